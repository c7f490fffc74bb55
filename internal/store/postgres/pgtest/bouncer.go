package pgtest

import (
	"errors"
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
	b, err := s.StartBouncer(poolSize)
	if errors.Is(err, errNoBouncer) {
		if os.Getenv("CI") != "" {
			t.Fatalf("pgbouncer, which CI must have, is not installed: %v", err)
		}
		t.Skipf("no pgbouncer to test with: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Stop)
	return b
}

var errNoBouncer = errors.New("pgbouncer is not installed")

// StartBouncer starts a pgbouncer in front of s; Stop it.
func (s *Server) StartBouncer(poolSize int) (*Bouncer, error) {
	bin, err := exec.LookPath("pgbouncer")
	if err != nil {
		bin = "/usr/sbin/pgbouncer"
		if _, serr := os.Stat(bin); serr != nil {
			return nil, errNoBouncer
		}
	}
	dir, err := os.MkdirTemp("", "guard-bouncer-") // not under a test's TempDir, which the postgres user may not enter
	if err != nil {
		return nil, err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
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
			return nil, err
		}
	}
	args := []string{filepath.Join(dir, "pgbouncer.ini")}
	if os.Geteuid() == 0 { // pgbouncer will not run as root
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, fmt.Errorf("running as root, and no postgres user to run pgbouncer as: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			return nil, err
		}
		args = append([]string{"-u", "postgres"}, args...)
	}
	b := &Bouncer{Port: port, dir: dir, cmd: exec.Command(bin, args...)}
	if err := b.cmd.Start(); err != nil {
		return nil, err
	}
	for deadline := time.Now().Add(10 * time.Second); ; {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			c.Close()
			return b, nil
		}
		if time.Now().After(deadline) {
			log := b.Log()
			b.Stop()
			return nil, fmt.Errorf("pgbouncer did not start: %v\n%s", err, log)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Stop stops the bouncer and removes its files.
func (b *Bouncer) Stop() {
	b.cmd.Process.Kill()
	b.cmd.Wait()
	os.RemoveAll(b.dir)
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
