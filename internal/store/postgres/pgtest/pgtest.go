// Package pgtest starts a throwaway PostgreSQL cluster for tests: initdb
// in a temporary directory and pg_ctl on a free port of 127.0.0.1, as the
// postgres user when the tests run as root (PostgreSQL refuses to run as
// root). It needs PostgreSQL's server programs (Debian's postgresql
// package, which .ci/run installs); without them a test skips, except in
// CI (CI set in the environment), where it fails.
package pgtest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// A Server is a running throwaway cluster.
type Server struct {
	dir  string // the cluster's directory (data, log, socket)
	bin  string // where initdb and pg_ctl are
	Port int
	asPG bool // run the server programs as the postgres user
	next atomic.Int64
}

var (
	shared    *Server
	sharedErr error
	once      sync.Once
)

// Shared returns a cluster shared by the tests of one test binary, started
// on first use; Stop it from TestMain. It skips t (or fails it in CI) if
// there is no PostgreSQL to start.
func Shared(t testing.TB) *Server {
	t.Helper()
	once.Do(func() { shared, sharedErr = Start() })
	if sharedErr != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("cannot start PostgreSQL, which CI must have: %v", sharedErr)
		}
		t.Skipf("no PostgreSQL to test with: %v", sharedErr)
	}
	return shared
}

// StopShared stops the shared cluster, if one was started.
func StopShared() {
	if shared != nil {
		shared.Stop()
	}
}

// findBin finds the directory of PostgreSQL's server programs.
func findBin() (string, error) {
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		return filepath.Dir(p), nil
	}
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_ctl")
	if len(matches) == 0 {
		return "", fmt.Errorf("pg_ctl not found (install Debian's postgresql package)")
	}
	return filepath.Dir(matches[len(matches)-1]), nil
}

// Start starts a cluster.
func Start() (*Server, error) {
	bin, err := findBin()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "guard-pg-")
	if err != nil {
		return nil, err
	}
	s := &Server{dir: dir, bin: bin, asPG: os.Geteuid() == 0}
	if s.asPG {
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, fmt.Errorf("running as root, and there is no postgres user to run the server as: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			return nil, err
		}
	}
	if out, err := s.run("initdb", "-D", s.data(), "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"); err != nil {
		return nil, fmt.Errorf("initdb: %v\n%s", err, out)
	}
	// Every role is trusted but PasswordRole's, which must give its
	// password (SCRAM) over TCP.
	hba := filepath.Join(s.data(), "pg_hba.conf")
	old, err := os.ReadFile(hba)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(hba, append([]byte("host all "+PasswordRole+" 127.0.0.1/32 scram-sha-256\n"), old...), 0o600); err != nil {
		return nil, err
	}
	if err := s.start(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, s.URL("postgres"))
	if err != nil {
		s.Stop()
		return nil, err
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, fmt.Sprintf("SET password_encryption = 'scram-sha-256'; CREATE ROLE %s LOGIN SUPERUSER PASSWORD '%s'", PasswordRole, PasswordOf)); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

func (s *Server) data() string { return filepath.Join(s.dir, "data") }

// run runs one of PostgreSQL's programs, as postgres if need be.
func (s *Server) run(prog string, args ...string) ([]byte, error) {
	path := filepath.Join(s.bin, prog)
	var cmd *exec.Cmd
	if s.asPG {
		cmd = exec.Command("runuser", append([]string{"-u", "postgres", "--", path}, args...)...)
	} else {
		cmd = exec.Command(path, args...)
	}
	cmd.Dir = s.dir
	return cmd.CombinedOutput()
}

func (s *Server) start() error {
	if s.Port == 0 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		s.Port = l.Addr().(*net.TCPAddr).Port
		l.Close()
	}
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200", s.Port, s.dir)
	if out, err := s.run("pg_ctl", "-D", s.data(), "-l", filepath.Join(s.dir, "log"), "-o", opts, "-w", "-t", "60", "start"); err != nil {
		log, _ := os.ReadFile(filepath.Join(s.dir, "log"))
		return fmt.Errorf("pg_ctl start: %v\n%s\n%s", err, out, log)
	}
	return nil
}

// Stop stops the cluster and removes it.
func (s *Server) Stop() {
	s.run("pg_ctl", "-D", s.data(), "-m", "immediate", "-w", "stop")
	os.RemoveAll(s.dir)
}

// Down stops the server, keeping its data, as an outage would.
func (s *Server) Down() error {
	out, err := s.run("pg_ctl", "-D", s.data(), "-m", "fast", "-w", "stop")
	if err != nil {
		return fmt.Errorf("pg_ctl stop: %v\n%s", err, out)
	}
	return nil
}

// Up starts the server again after Down, on the same port.
func (s *Server) Up() error { return s.start() }

// PasswordRole is a superuser that must log in with its password,
// PasswordOf, over TCP.
const (
	PasswordRole = "guard_pw"
	PasswordOf   = "s3cret-pw"
)

// SocketDir is the directory of the server's Unix socket.
func (s *Server) SocketDir() string { return s.dir }

// URL returns the URL of database db.
func (s *Server) URL(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", s.Port, db)
}

// NewDB creates an empty database of its own for one test and returns its
// URL.
func (s *Server) NewDB(t testing.TB) string {
	t.Helper()
	name := fmt.Sprintf("guard_%d_%d", os.Getpid(), s.next.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, s.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	return s.URL(name)
}

// Log returns the server's log, for a failing test.
func (s *Server) Log() string {
	b, _ := os.ReadFile(filepath.Join(s.dir, "log"))
	return strings.TrimSpace(string(b))
}

// Addr is the server's host:port.
func (s *Server) Addr() string { return fmt.Sprintf("127.0.0.1:%d", s.Port) }
