package supervise

import "strings"

// Telling returns the line of a process's error output that says most
// about what failed: the last line, unless the output ends in lines
// indented under another (a "Caused by:", a stack trace, an object dump):
// then that line, with the cause after it if there is one, so that uv's
// "error: Failed to spawn: `check.py`" is not reduced to its "Caused by:
// No such file or directory".
func Telling(msg string) string {
	var lines []string
	for _, l := range strings.Split(msg, "\n") {
		if l = strings.TrimRight(l, " \t\r"); strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
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
		line := strings.TrimSpace(lines[i])
		if cause, ok := strings.CutPrefix(strings.TrimSpace(last), "Caused by:"); ok {
			line += "; caused by:" + cause
		}
		return line
	}
	return strings.TrimSpace(last)
}

func indented(line string) bool { return line[0] == ' ' || line[0] == '\t' }
