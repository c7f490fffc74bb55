package supervise

import (
	"bytes"
	"regexp"
	"sync"
)

// launchFailures are what an interpreter or a shell prints when the
// command could not even start: its script is not there, or the
// interpreter of its #! line is not. Each is matched against a whole line
// of the child's stderr.
// They are compiled on first use: most runs exit 0 and never need them.
var launchFailures = sync.OnceValue(func() []*regexp.Regexp {
	return []*regexp.Regexp{
		// python3 missing.py: exit 2
		regexp.MustCompile(`^(?:\S*/)?(?:python[0-9.]*|pypy[0-9.]*): can't open file .*`),
		// uv run missing.py: exit 2
		regexp.MustCompile(`^error: Failed to spawn: .*`),
		// node missing.js (the main module, not one it requires): exit 1
		regexp.MustCompile(`^Error: Cannot find module .*`),
		// bun missing.ts, deno run missing.ts: exit 1
		regexp.MustCompile(`^error: Module not found .*`),
		// a #! interpreter that is not there: bash, then env
		regexp.MustCompile(`^.*: bad interpreter: .*`),
		regexp.MustCompile(`^(?:/usr)?(?:/bin/)?env: .*: No such file or directory$`),
	}
})

// LaunchFailure returns the line of the child's stderr that shows it never
// really started (an interpreter that could not open its script, a #!
// interpreter that is not there), or "" if it exited 0, was killed, or
// shows no such line. A Node "Cannot find module" counts only for the main
// module (requireStack is empty): a script that started and then failed to
// load a dependency did start.
func (r *Result) LaunchFailure() string {
	if !r.Ran() || r.ExitCode == 0 || r.Signal != 0 || r.TimedOut || r.Interrupted != nil {
		return ""
	}
	for _, line := range bytes.Split(r.Tail, []byte("\n")) {
		line = bytes.TrimRight(line, "\r")
		for i, re := range launchFailures() {
			if !re.Match(line) {
				continue
			}
			if i == 2 && !bytes.Contains(r.Tail, []byte("requireStack: []")) {
				continue
			}
			return string(line)
		}
	}
	return ""
}
