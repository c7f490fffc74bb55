package cli

import (
	"bytes"
	"fmt"
	"guard/cmd/guard/guardrun"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"
)

// testEnv is an env for a test: its HOME, state, config and cooldown state
// in dir, and nothing else from the process's environment.
func testEnv(dir string, stdout, stderr *bytes.Buffer) *env {
	vars := map[string]string{
		"HOME":                 filepath.Join(dir, "home"),
		"GUARD_STATE":          filepath.Join(dir, "state.json"),
		"GUARD_CONFIG":         filepath.Join(dir, "guardrails.yaml"),
		"GUARD_COOLDOWN_STATE": filepath.Join(dir, "cooldown.json"),
		"PATH":                 os.Getenv("PATH"),
	}
	var environ []string
	for k, v := range vars {
		environ = append(environ, k+"="+v)
	}
	return &env{Env: guardrun.Env{
		Stdin:  strings.NewReader(`{"hook_event_name":"PreToolUse","tool_input":{"command":"docker restart nginx"}}`),
		Stdout: stdout, Stderr: stderr,
		Getenv:  func(k string) string { return vars[k] },
		Environ: func() []string { return environ },
		Now:     time.Now,
	}}
}

// tree lists the files under dir with their sizes and times, to tell
// whether anything was written.
func tree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		size := fi.Size()
		if d.IsDir() {
			size = 0
		}
		fmt.Fprintf(&b, "%s %v %v %d\n", p, fi.Mode(), fi.ModTime(), size)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestCompletionRunsNothing covers hostile-user-2 M1 for every command
// guard has, now and later: a command line that ends in
// --generate-bash-completion, whatever comes before it, runs nothing and
// writes nothing.
func TestCompletionRunsNothing(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "RAN")
	script := filepath.Join(dir, "deploy.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "home"), 0o755); err != nil {
		t.Fatal(err)
	}
	settings := filepath.Join(dir, "settings.json")
	os.WriteFile(settings, []byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"`+script+`"}]}]}}`), 0o644)
	os.WriteFile(filepath.Join(dir, "guardrails.yaml"), nil, 0o644)
	var stdout, stderr bytes.Buffer
	// A state to reset, probe, export and import.
	if code := testEnv(dir, &stdout, &stderr).main([]string{"guard", "trip", "k"}); code != 0 {
		t.Fatalf("guard trip k: exit %d: %s", code, stderr.String())
	}
	if code := testEnv(dir, &stdout, &stderr).main([]string{"guard", "cooldown", "record", "nginx", "restart"}); code != 0 {
		t.Fatalf("guard cooldown record: exit %d: %s", code, stderr.String())
	}
	checkpoint := filepath.Join(dir, "checkpoint.json")
	os.WriteFile(checkpoint, []byte(`{"hooks":{}}`), 0o644)
	before := tree(t, dir)

	var paths [][]string
	var walk func([]string, []*cli.Command)
	walk = func(prefix []string, cmds []*cli.Command) {
		for _, c := range cmds {
			p := append(append([]string{}, prefix...), c.Name)
			paths = append(paths, p)
			walk(p, c.Subcommands)
		}
	}
	walk(nil, testEnv(dir, &stdout, &stderr).app().Commands)
	tails := [][]string{
		nil,
		{"k"},
		{"--all"},
		{"nginx", "restart"},
		{"nginx", "restart", "--", script},
		{"nginx", "restart", script},
		{"--", script},
		{script},
		{"-c", script},
		{"--name", "k", "--", script},
		{"--settings", settings},
		{"--settings", settings, "--binary", "/bin/true"},
		{checkpoint},
		{filepath.Join(dir, "out.json")},
		{"--output", filepath.Join(dir, "out.prom")},
		{"digest", "--every", "1s", "--mark"},
		{"--error"},
	}
	for _, p := range paths {
		for _, tail := range tails {
			args := append(append([]string{"guard"}, p...), tail...)
			args = append(args, guardrun.CompletionFlag)
			stdout.Reset()
			stderr.Reset()
			if code := testEnv(dir, &stdout, &stderr).main(args); code != 0 {
				t.Errorf("%q: exit %d; want 0 (stderr %q)", args, code, stderr.String())
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatalf("%q ran %s", args, script)
			}
			if after := tree(t, dir); after != before {
				t.Fatalf("%q wrote to %s:\nbefore:\n%s\nafter:\n%s", args, dir, before, after)
			}
		}
	}
}

// TestCompletesChild checks where guard leaves completion to the shell's
// file names: after "--", and from the command guard run or guard cooldown
// run would run.
func TestCompletesChild(t *testing.T) {
	app := (&env{}).app()
	for _, tc := range []struct {
		words string
		want  bool
	}{
		{"run", true}, // the command to run comes next
		{"run --na", false},
		{"run --name", true}, // its value
		{"run --name=k", false},
		{"run --name k", true},
		{"run -c", true},
		{"run -c x", true},
		{"run ./deploy.sh", true},
		{"run ./deploy.sh --fo", true},
		{"run -- ./deploy.sh", true},
		{"run --", true},
		{"cooldown run", false},
		{"cooldown run nginx", false},
		{"cooldown run nginx restart", true},
		{"cooldown run nginx restart --ti", false},
		{"cooldown run --timeout 5s nginx", false},
		{"cooldown run nginx restart --", true},
		{"cooldown run nginx restart docker", true},
		{"reset", false},
		{"reset -- k", true},
		{"trip k --fo", false},
		{"status --js", false},
		{"", false},
		{"cooldown", false},
	} {
		if got := completesChild(app, strings.Fields(tc.words)); got != tc.want {
			t.Errorf("completesChild(%q) = %v; want %v", tc.words, got, tc.want)
		}
	}
}

// TestCompletionOffersPrintableKeysOnly covers hostile-user-2 m32: one
// candidate per line, and no control character reaches the shell.
func TestCompletionOffersPrintableKeysOnly(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "home"), 0o755)
	os.WriteFile(filepath.Join(dir, "guardrails.yaml"), nil, 0o644)
	var stdout, stderr bytes.Buffer
	for _, k := range []string{"lint", "two\nlines", "evil\x1b[31mRED", "bell\a", "a\xceb", "tab\tkey"} {
		if code := testEnv(dir, &stdout, &stderr).main([]string{"guard", "trip", k}); code != 0 {
			t.Fatalf("guard trip %q: exit %d: %s", k, code, stderr.String())
		}
	}
	stdout.Reset()
	testEnv(dir, &stdout, &stderr).main([]string{"guard", "reset", guardrun.CompletionFlag})
	if got, want := stdout.String(), "a\\xceb\nlint\n"; got != want {
		t.Errorf("keys offered: %q; want %q", got, want)
	}
}
