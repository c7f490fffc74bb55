// Command sessions measures what scope: session leaves behind: a hook run
// once in each of N Claude Code sessions, then one more call after the
// sessions have been idle past session_retention and the hourly sweep is
// due. It prints a Markdown table for BENCHMARKS.md (bench/run.sh runs it):
// the state file's size and the files in its runs directory, for 10 and
// 2,000 sessions, while the sessions are live and once they have ended.
//
// Every figure is from the run that prints it.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

var (
	guardBin = flag.String("guard", "", "the guard binary")
	counts   = flag.String("sessions", "10,2000", "how many sessions, comma-separated")
)

func main() {
	flag.Parse()
	if *guardBin == "" {
		fmt.Fprintln(os.Stderr, "sessions: -guard is required")
		os.Exit(2)
	}
	fmt.Println("## Sessions: what scope: session leaves behind")
	fmt.Println()
	fmt.Println("`bench/sessions`: one call of a hook in each of N sessions (`scope: session`, `session_retention: 1s`), then, with the sessions idle past it and the hourly sweep due, one more call. State file and runs directory (where the runs of keys without max_concurrent share a pool of slot files, one per run that went on at the same time: one here, whatever the sessions):")
	fmt.Println()
	fmt.Println("| sessions | state file, sessions live | files in runs/, live | state file, sessions ended | files in runs/, ended |")
	fmt.Println("|---:|---:|---:|---:|---:|")
	for _, f := range strings.Split(*counts, ",") {
		var n int
		fmt.Sscan(f, &n)
		liveSize, liveRuns, endSize, endRuns, err := measure(n)
		if err != nil {
			fmt.Fprintln(os.Stderr, "sessions:", err)
			os.Exit(1)
		}
		fmt.Printf("| %d | %d B | %d | %d B | %d |\n", n, liveSize, liveRuns, endSize, endRuns)
	}
}

func measure(n int) (liveSize int64, liveRuns int, endSize int64, endRuns int, err error) {
	dir, err := os.MkdirTemp("", "guard-sessions")
	if err != nil {
		return
	}
	defer os.RemoveAll(dir)
	state := filepath.Join(dir, "state.json")
	cfg := filepath.Join(dir, "guardrails.yaml")
	if err = os.WriteFile(cfg, []byte("circuit_breaker:\n  scope: session\n  session_retention: 1s\n"), 0o600); err != nil {
		return
	}
	env := append(os.Environ(), "GUARD_STATE="+state, "GUARD_CONFIG="+cfg, "HOME="+dir, "CLAUDE_PROJECT_DIR=")
	call := func(session string) error {
		cmd := exec.Command(*guardBin, "run", "--name", "lint", "--", "true")
		cmd.Env = env
		cmd.Stdin = strings.NewReader(fmt.Sprintf(`{"session_id":%q,"hook_event_name":"PostToolUse"}`, session))
		if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
			return fmt.Errorf("guard run: %v: %s", err, out)
		}
		return nil
	}
	for i := range n {
		if err = call(fmt.Sprintf("session-%d", i)); err != nil {
			return
		}
	}
	liveSize, liveRuns = sizes(state)
	// The sessions end: idle past session_retention, and the hourly sweep
	// due (its last run an hour back).
	time.Sleep(1500 * time.Millisecond)
	if err = backdateSweep(state); err != nil {
		return
	}
	if err = call("a new session"); err != nil {
		return
	}
	endSize, endRuns = sizes(state)
	return
}

func sizes(state string) (int64, int) {
	fi, _ := os.Stat(state)
	entries, _ := os.ReadDir(state + ".runs")
	if fi == nil {
		return 0, len(entries)
	}
	return fi.Size(), len(entries)
}

// backdateSweep moves the state's last sweep two hours back, as if that
// long had passed (an edit guard accepts: the file is then read in full).
func backdateSweep(state string) error {
	data, err := os.ReadFile(state)
	if err != nil {
		return err
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		return err
	}
	gs, _ := doc["global_stats"].(map[string]any)
	if gs == nil {
		return fmt.Errorf("no global_stats in %s", state)
	}
	gs["last_sweep"] = time.Now().Add(-2 * time.Hour).UTC().Format(time.RFC3339)
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(state, append(out, '\n'), 0o600)
}
