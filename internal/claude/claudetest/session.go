package claudetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// A Session is a non-interactive Claude Code session in a throwaway home.
type Session struct {
	Bin  string // Claude Code's binary (Find)
	Home string // HOME: ~/.claude/settings.json and the plugin records are here
	Dir  string // the project: the session's working directory
	API  *API
	// Path is the PATH Claude Code and its hooks get.
	Path string
	// Env is more environment, NAME=value, for Claude Code and its hooks
	// (GUARD_STATE, GUARD_CONFIG, ...).
	Env []string
	// Timeout bounds the whole session; 0 is 5 minutes.
	Timeout time.Duration
}

// A Result is how a session ended.
type Result struct {
	Stdout, Stderr string
	Err            error // nil for exit 0
	Took           time.Duration
}

// noNetwork is the environment that keeps a session on loopback, quiet
// and fixed to this version: no auto-update, no telemetry or error
// reports, no non-essential traffic (Claude Code's own switches), and a
// dead proxy for whatever else would go out.
var noNetwork = []string{
	"DISABLE_AUTOUPDATER=1",
	"DISABLE_TELEMETRY=1",
	"DISABLE_ERROR_REPORTING=1",
	"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
	"HTTP_PROXY=http://127.0.0.1:9",
	"HTTPS_PROXY=http://127.0.0.1:9",
	"NO_PROXY=127.0.0.1,localhost",
}

// baseEnv is the environment of every Claude Code process the tests
// start, with its temporary files in tmp.
func baseEnv(tmp string) []string {
	return append([]string{"TMPDIR=" + tmp, "TERM=dumb", "LANG=C.UTF-8"}, noNetwork...)
}

// Run runs claude -p prompt --allowedTools Bash in s.Dir. Claude Code's
// stdin is empty; its temporary files go under s.Home.
func (s *Session) Run(prompt string) Result {
	timeout := s.Timeout
	if timeout == 0 {
		timeout = 5 * time.Minute
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	tmp := filepath.Join(s.Home, "tmp")
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		return Result{Err: err}
	}
	cmd := exec.CommandContext(ctx, s.Bin, "-p", prompt, "--allowedTools", "Bash", "--no-session-persistence")
	cmd.Dir = s.Dir
	cmd.Env = append(baseEnv(tmp),
		"HOME="+s.Home,
		"PATH="+s.Path,
		"ANTHROPIC_BASE_URL="+s.API.URL(),
		"ANTHROPIC_API_KEY=sk-ant-guard-test",
	)
	cmd.Env = append(cmd.Env, s.Env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// Claude Code's hooks may leave children holding its pipes; do not
	// wait for them past its own end.
	cmd.WaitDelay = 10 * time.Second
	start := time.Now()
	err := cmd.Run()
	r := Result{Stdout: stdout.String(), Stderr: stderr.String(), Err: err, Took: time.Since(start)}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		r.Err = fmt.Errorf("claude ran past %s: %v", timeout, err)
	}
	return r
}

// WriteSettings writes ~/.claude/settings.json in s.Home.
func (s *Session) WriteSettings(doc string) error {
	return writeFile(filepath.Join(s.Home, ".claude", "settings.json"), doc)
}

func writeFile(path, data string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(data), 0o644)
}
