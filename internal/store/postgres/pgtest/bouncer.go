package pgtest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A Bouncer is a pgbouncer in transaction mode in front of a Server: each
// transaction may run on another server connection, so that nothing a
// client leaves in a session (a session lock, a SET, a named prepared
// statement) can be counted on, as behind a real pooler.
type Bouncer struct {
	Port int
	dir  string
	cmd  *exec.Cmd
}

// Bouncer starts a pgbouncer in front of s, with at most poolSize server
// connections for each database and user, stopped when t ends. It skips
// t (fails it in CI) if pgbouncer is not installed (Debian's pgbouncer
// package, which .ci/run installs).
func (s *Server) Bouncer(t testing.TB, poolSize int) *Bouncer {
	t.Helper()
	bin, err := exec.LookPath("pgbouncer")
	if err != nil {
		bin = "/usr/sbin/pgbouncer"
		if _, serr := os.Stat(bin); serr != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("pgbouncer, which CI must have, is not installed: %v", err)
			}
			t.Skipf("no pgbouncer to test with: %v", err)
		}
	}
	dir, err := os.MkdirTemp("", "guard-bouncer-") // not under t.TempDir(), which the postgres user may not enter
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	ini := fmt.Sprintf(`[databases]
* = host=127.0.0.1 port=%d

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = %d
unix_socket_dir =
auth_type = trust
auth_file = %s
pool_mode = transaction
default_pool_size = %d
max_client_conn = 500
server_reset_query =
logfile = %s
pidfile = %s
`, s.Port, port, filepath.Join(dir, "users.txt"), poolSize, filepath.Join(dir, "log"), filepath.Join(dir, "pid"))
	files := map[string]string{
		"pgbouncer.ini": ini,
		"users.txt":     `"postgres" ""` + "\n" + `"` + PasswordRole + `" ""` + "\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	args := []string{filepath.Join(dir, "pgbouncer.ini")}
	if os.Geteuid() == 0 { // pgbouncer will not run as root
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Fatalf("running as root, and no postgres user to run pgbouncer as: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
		args = append([]string{"-u", "postgres"}, args...)
	}
	b := &Bouncer{Port: port, dir: dir, cmd: exec.Command(bin, args...)}
	if err := b.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.cmd.Process.Kill(); b.cmd.Wait() })
	for deadline := time.Now().Add(10 * time.Second); ; {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(dir, "log"))
			t.Fatalf("pgbouncer did not start: %v\n%s", err, log)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return b
}

// URL returns the URL of a database db of the server, through the
// bouncer.
func (b *Bouncer) URL(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", b.Port, db)
}

// Log returns pgbouncer's log, for a failing test.
func (b *Bouncer) Log() string {
	log, _ := os.ReadFile(filepath.Join(b.dir, "log"))
	return strings.TrimSpace(string(log))
}
