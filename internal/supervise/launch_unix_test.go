//go:build unix

package supervise

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestLaunchFailureOfRealInterpreters runs the interpreters found on this
// machine with a script that is not there, and with one that started and
// then blocked after a helper could not start.
func TestLaunchFailureOfRealInterpreters(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	os.WriteFile("policy.py", []byte("import subprocess, sys\n"+
		"r = subprocess.run([sys.executable, '/nonexistent/validator.py'])\n"+
		"sys.exit(2)\n"), 0o644)
	for _, tc := range []struct {
		argv []string
		want bool
	}{
		{[]string{"python3", "missing.py"}, true},
		{sh("python3 ./missing.py"), true},
		{[]string{"sh", "missing.sh"}, true},
		{[]string{"perl", "missing.pl"}, true},
		{[]string{"node", "missing.js"}, true},
		{[]string{"python3", "policy.py"}, false},
		{sh("python3 /nonexistent/validator.py || exit 2"), false},
	} {
		prog := tc.argv[0]
		if prog == "/bin/sh" {
			prog = strings.Fields(tc.argv[2])[0]
		}
		if _, err := exec.LookPath(prog); err != nil {
			continue
		}
		res, _, _ := run(t, Spec{Argv: tc.argv})
		if got := res.LaunchFailure(); (got != "") != tc.want {
			t.Errorf("%q exited %d with %q: LaunchFailure = %q; want a launch failure: %v", tc.argv, res.ExitCode, res.Tail, got, tc.want)
		}
	}
}

// TestMissingInterpreterIsNamed: a script run by path whose #! program is
// not there is no "command not found": guard names the interpreter, and
// exits 126 as bash does.
func TestMissingInterpreterIsNamed(t *testing.T) {
	script := t.TempDir() + "/hook.py"
	os.WriteFile(script, []byte("#!/nonexistent/python9 -u\nprint('hi')\n"), 0o755)
	res, _, _ := run(t, Spec{Argv: []string{script}})
	want := script + ": /nonexistent/python9: bad interpreter: No such file or directory"
	if res.Ran() || res.ExitCode != 126 || res.StartErr.Error() != want {
		t.Errorf("Run = exit %d, %v; want 126, %q", res.ExitCode, res.StartErr, want)
	}
}
