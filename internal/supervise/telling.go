package supervise

import "strings"

// Telling returns the line of a process's error output that says most
// about what failed: the last line, unless the output ends in lines
// indented under another (a "Caused by:", a stack trace, an object dump):
// then that line, with the cause after it if there is one, so that uv's
// "error: Failed to spawn: `check.py`" is not reduced to its "Caused by:
// No such file or directory". A runtime's own trailer after its report
// (Node's "Node.js v20.1.0") is not the telling line, and neither is a
// list under the error (Node's "Require stack:"): an error's heading
// ("TypeError: ...") just above the trace is.
func Telling(msg string) string {
	var lines []string
	for _, l := range strings.Split(msg, "\n") {
		if l = strings.TrimRight(l, " \t\r"); strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	for len(lines) > 1 && runtimeTrailer(lines[len(lines)-1]) {
		lines = lines[:len(lines)-1]
	}
	if len(lines) == 0 {
		return strings.TrimSpace(msg)
	}
	last := lines[len(lines)-1]
	if !indented(last) {
		return strings.TrimSpace(last)
	}
	for i := len(lines) - 2; i >= 0; i-- {
		if indented(lines[i]) {
			continue
		}
		// Under a list such as Node's "Require stack:\n- /p/hook.js", the
		// error's heading just above it.
		if strings.HasPrefix(lines[i], "- ") {
			for j := i - 1; j >= 0 && j > i-8; j-- {
				if errorHeading(lines[j]) {
					i = j
					break
				}
				if !strings.HasPrefix(lines[j], "- ") && !strings.HasSuffix(lines[j], ":") {
					break
				}
			}
		}
		line := strings.TrimSpace(lines[i])
		if cause, ok := strings.CutPrefix(strings.TrimSpace(last), "Caused by:"); ok {
			line += "; caused by:" + cause
		}
		return line
	}
	return strings.TrimSpace(last)
}

// runtimeTrailer reports whether line is what Node and Bun print after an
// uncaught error's report: their own version ("Node.js v20.1.0", "Bun
// v1.1.0 (Linux x64)"). Hand-written, as is errorHeading: a regular
// expression compiled at start-up would cost every guard run.
func runtimeTrailer(line string) bool {
	for _, p := range []string{"Node.js v", "Bun v"} {
		v, ok := strings.CutPrefix(line, p)
		if !ok {
			continue
		}
		v, platform, _ := strings.Cut(v, " ")
		if platform != "" && !(strings.HasPrefix(platform, "(") && strings.HasSuffix(platform, ")")) {
			return false
		}
		return v != "" && v[0] >= '0' && v[0] <= '9' && strings.Trim(v, "0123456789.") == ""
	}
	return false
}

// errorHeading reports whether line is an error's first line in Node,
// Python, Java and alike: "Error: ...", "TypeError: ...", "Error
// [ERR_X]: ...", "java.lang.IllegalStateException: ...".
func errorHeading(line string) bool {
	name, _, ok := strings.Cut(line, ":")
	if !ok {
		return false
	}
	if b := strings.IndexByte(name, ' '); b >= 0 {
		if !strings.HasPrefix(name[b:], " [") || !strings.HasSuffix(name, "]") {
			return false
		}
		name = name[:b]
	}
	if !strings.HasSuffix(name, "Error") && !strings.HasSuffix(name, "Exception") {
		return false
	}
	for _, r := range name {
		if !(r == '_' || r == '$' || r == '.' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// indented reports whether line belongs to the block under another line:
// it is indented, or it only closes brackets (the "}" that ends Node's
// dump of an error's properties).
func indented(line string) bool {
	return line[0] == ' ' || line[0] == '\t' || strings.Trim(line, "}])") == ""
}
