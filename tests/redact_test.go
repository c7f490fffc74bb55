package tests

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"guard/internal/store/postgres/pgtest"
)

// TestNoPasswordIsPrinted (hostile-user-2 M7): a database password never
// shows in anything guard prints, on stdout or stderr, whatever command
// runs and whether or not the database can be reached: a password in the
// URL's user part, in ?password= or ?sslpassword=, or in a URL Go's
// url.Parse rejects (a "#", a bad "%" escape or a space in it), given in
// GUARD_STATE, GUARD_COOLDOWN_STATE, --state or guardrails.yaml.
func TestNoPasswordIsPrinted(t *testing.T) {
	srv := pgtest.Shared(t)
	url := srv.NewDB(t)
	db := url[strings.LastIndex(url, "/")+1 : strings.Index(url, "?")]
	role, pw := pgtest.PasswordRole, pgtest.PasswordOf
	closed := closedPort(t)
	at := func(port int, userinfo, query string) string {
		return fmt.Sprintf("postgres://%s@127.0.0.1:%d/%s?sslmode=disable%s", userinfo, port, db, query)
	}
	cases := []struct {
		name    string
		url     string
		secrets []string // none of which may be printed
	}{
		{"user part, reachable", at(srv.Port, role+":"+pw, ""), []string{pw}},
		{"password=, reachable", at(srv.Port, role, "&password="+pw), []string{pw}},
		{"user part, unreachable", at(closed, role+":Xq7Zp9Wv", ""), []string{"Xq7Zp9Wv"}},
		{"password= and sslpassword=, unreachable", at(closed, role, "&sslpassword=Kd4Lm2&password=Xq7Zp9Wv"), []string{"Xq7Zp9Wv", "Kd4Lm2"}},
		{"wrong password", at(srv.Port, role+":Xq7Zp9Wv", ""), []string{"Xq7Zp9Wv"}},
		{"a # in the password", at(srv.Port, role+":Xq7#Zp9Wv", ""), []string{"Xq7", "Zp9Wv"}},
		{"a bad % escape in the password", at(srv.Port, role+":Xq7%zzZp9Wv", ""), []string{"Xq7", "Zp9Wv"}},
		{"a space in the password", at(srv.Port, role+":Xq7 Zp9Wv", ""), []string{"Xq7", "Zp9Wv"}},
		{"postgres: without //", "postgres:" + role + ":Xq7Zp9Wv@127.0.0.1/x", []string{"Xq7Zp9Wv"}},
	}
	work := t.TempDir()
	checkpoint := filepath.Join(work, "checkpoint.json")
	os.WriteFile(checkpoint, []byte(`{"hooks": {}, "global_stats": {"total_executions": 0, "total_failures": 0, "hooks_disabled": 0, "last_updated": null}}`), 0o600)
	payload := `{"hook_event_name":"PreToolUse","tool_input":{"command":"docker restart web"}}`

	commands := [][]string{
		{"run", "--name", "k", "--", "true"},
		{"run", "--name", "bad", "--", "false"},
		{"run", "--name", "bad", "--", "false"},
		{"run", "--name", "bad", "--", "false"},
		{"run", "--name", "bad", "--", "true"},
		{"run", "-c", "true"},
		{"status"}, {"status", "--json"}, {"status", "--wide"}, {"status", "k"},
		{"report"}, {"report", "--format", "json"}, {"report", "--format", "markdown"}, {"report", "--format", "prometheus"},
		{"log"}, {"log", "--json"},
		{"trip", "k2", "--reason", "r"}, {"probe", "k2"}, {"reset", "k2"}, {"reset", "nokey"},
		{"state", "export"}, {"state", "export", filepath.Join(work, "out.json")}, {"state", "import", checkpoint},
		{"cooldown", "status"}, {"cooldown", "status", "--json"}, {"cooldown", "check", "web", "restart"},
		{"cooldown", "record", "web", "restart"}, {"cooldown", "hook"}, {"cooldown", "export"},
		{"config", "check"}, {"config", "check", "--key", "k"},
		{"doctor"}, {"doctor", "--json"},
		{"reset", "--all"},
	}
	for n, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// The forms run side by side: each is hundreds of guard
			// processes, most of them waiting on the network.
			t.Parallel()
			home := t.TempDir()
			yaml := filepath.Join(home, "guardrails.yaml")
			os.WriteFile(yaml, []byte("state_file: '"+strings.ReplaceAll(tc.url, "'", "''")+"'\n"), 0o600)
			for _, how := range []struct {
				name string
				env  []string
				flag []string
			}{
				{"GUARD_STATE", []string{"GUARD_STATE=" + tc.url, "GUARD_COOLDOWN_STATE=" + tc.url}, nil},
				{"--state", []string{"GUARD_STATE="}, []string{"--state", tc.url}},
				{"guardrails.yaml", []string{"GUARD_STATE=", "GUARD_CONFIG=" + yaml}, nil},
			} {
				for i, args := range commands {
					// Every command for the first forms through GUARD_STATE,
					// half of them for the others, a quarter the other ways:
					// each command still meets each kind of location.
					switch {
					case how.name == "GUARD_STATE" && (n < 4 || i%2 == n%2):
					case how.name != "GUARD_STATE" && i%4 == n%4:
					default:
						continue
					}
					// --state goes first, as a global flag; where a command
					// does not take it, its usage error must not show it
					// either.
					argv := append(append([]string{}, how.flag...), args...)
					env := append([]string{"HOME=" + home, "GUARD_CONFIG=", "CLAUDE_PROJECT_DIR=", "GUARD_COOLDOWN_STATE="}, how.env...)
					if args[0] == "run" && args[1] == "-c" {
						env = append(env, "CLAUDE_PROJECT_DIR="+home) // the notice as a systemMessage
					}
					stdout, stderr := runGuardIn(t, home, env, payload, argv...)
					for _, s := range tc.secrets {
						for stream, out := range map[string]string{"stdout": stdout, "stderr": stderr} {
							if strings.Contains(out, s) {
								t.Errorf("%s: guard %s printed %q on %s:\n%s", how.name, strings.Join(argv, " "), s, stream, out)
							}
						}
					}
				}
			}
		})
	}
}

// runGuardIn runs guard in dir with env added to the test's environment
// and stdin as its input, and returns what it printed.
func runGuardIn(t *testing.T, dir string, env []string, stdin string, args ...string) (string, string) {
	t.Helper()
	cmd := exec.Command(guardBin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatalf("guard %q: %v", args, err)
		}
	}
	return stdout.String(), stderr.String()
}

// closedPort returns a port of 127.0.0.1 that nothing listens on.
func closedPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return port
}
