package cli

import (
	"encoding/json"
	"fmt"

	"guard/config"
	"guard/internal/view"
)

// skipped tells the user, with msg, that key was not run, and exits as a
// skip does.
//
// The notice goes to stderr, or, under Claude Code (notice: auto with
// CLAUDE_PROJECT_DIR set, or notice: system-message), to stdout as
// {"systemMessage": ...}, which Claude shows to the user. That is only
// possible with exit status 0, because Claude reads a hook's JSON only then.
func (e *env) skipped(cfg *config.Config, b config.Breaker, key string, msg string) error {
	mode := cfg.Notice
	if mode == "auto" {
		mode = "stderr"
		if e.getenv("CLAUDE_PROJECT_DIR") != "" {
			mode = "system-message"
		}
	}
	switch {
	case mode == "system-message" && b.OpenExitCode == 0:
		out, _ := json.Marshal(map[string]string{"systemMessage": msg})
		fmt.Fprintf(e.stdout, "%s\n", out)
	case mode != "none":
		fmt.Fprintln(e.stderr, view.Printable(msg))
	}
	return exit(b.OpenExitCode)
}
