package tests

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"testing"
)

// TestWrappedHookRunsTheSameCommand installs guard around hooks with tricky
// commands, then runs each hook's command string through sh -c, as Claude
// Code does, wrapped and unwrapped: stdout, the exit status and how much of
// stdin was read must be the same.
func TestWrappedHookRunsTheSameCommand(t *testing.T) {
	commands := []string{
		`read line; printf '%s|' "$line"; echo "it's \"quoted\" $((1+2)) ` + "`echo backticks`" + `"`,
		"cat <<'EOF'\nmulti\nline $HOME\nEOF",
		`head -c 5; exit 3`,
		`printf 'no newline at the end'`,
		`echo a && echo b | tr a-z A-Z; false || echo c`,
		`exit 2`,
		`x='single '\''quoted'\'' word'; echo "$x" '\'' \\ $x`,
		`echo '' "" ''''; echo \'; echo "a'b"`,
		"printf '%s\\n' \"$(cat)\"",
		`sh -c 'echo nested "$0"' 'arg with spaces'`,
	}
	sb := newSandbox(t, "")
	hooks := []map[string]any{}
	for _, c := range commands {
		hooks = append(hooks, map[string]any{"type": "command", "command": c})
	}
	doc, _ := json.MarshalIndent(map[string]any{
		"hooks": map[string]any{"PreToolUse": []any{map[string]any{"matcher": "Bash", "hooks": hooks}}},
	}, "", "  ")
	os.WriteFile(sb.path("settings.json"), doc, 0o600)
	if code, _, stderr := sb.guard("install", "--settings", "settings.json", "--binary", guardBin); code != 0 {
		t.Fatalf("install: %s", stderr)
	}
	var installed struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	data, _ := os.ReadFile(sb.path("settings.json"))
	if err := json.Unmarshal(data, &installed); err != nil {
		t.Fatal(err)
	}
	wrapped := installed.Hooks["PreToolUse"][0].Hooks

	input := sb.path("stdin")
	os.WriteFile(input, []byte("first line of the payload\n{\"tool_input\": {\"command\": \"ls\"}}\nmore\n"), 0o600)
	run := func(command string) (string, int, int64) {
		f, err := os.Open(input)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		var stdout bytes.Buffer
		cmd := exec.Command("sh", "-c", command)
		cmd.Dir, cmd.Env, cmd.Stdin, cmd.Stdout = sb.dir, sb.env, f, &stdout
		err = cmd.Run()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		off, _ := f.Seek(0, io.SeekCurrent)
		return stdout.String(), code, off
	}
	// The measure itself works: read takes exactly the first line.
	if _, _, n := run(commands[0]); n != int64(len("first line of the payload\n")) {
		t.Fatalf("read consumed %d bytes of stdin; want the first line only", n)
	}
	for i, c := range commands {
		wantOut, wantCode, wantRead := run(c)
		gotOut, gotCode, gotRead := run(wrapped[i].Command)
		if gotOut != wantOut || gotCode != wantCode || gotRead != wantRead {
			t.Errorf("hook %q\nwrapped as %q:\n  stdout %q, exit %d, read %d bytes of stdin\nwant\n  stdout %q, exit %d, read %d bytes",
				c, wrapped[i].Command, gotOut, gotCode, gotRead, wantOut, wantCode, wantRead)
		}
	}
}
