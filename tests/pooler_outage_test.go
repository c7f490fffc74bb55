//go:build unix

package tests

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"guard/internal/store/postgres/pgtest"
)

// TestPoolerOutageSaysTheDatabaseIsUnreachable covers faults #11: through
// pgbouncer, while PostgreSQL is down and then restarting behind it (the
// pooler's "server login has been failing" for a while after), every
// warning and error starts "cannot reach the database at URL: ", as a
// failed connect does, the hook runs, and nothing names a bare SQLSTATE.
func TestPoolerOutageSaysTheDatabaseIsUnreachable(t *testing.T) {
	srv := pgtest.Shared(t)
	url := srv.NewDB(t)
	b := srv.Bouncer(t, 2)
	url = strings.Replace(url, fmt.Sprintf(":%d/", srv.Port), fmt.Sprintf(":%d/", b.Port), 1)
	if code, _, stderr := pgGuard(t, url, "h1", "run", "--name", "k", "--", "true"); code != 0 || stderr != "" {
		t.Fatalf("before the outage: exit %d: %s", code, stderr)
	}
	if err := srv.Down(); err != nil {
		t.Fatal(err)
	}
	up := false
	defer func() {
		if !up {
			srv.Up()
		}
	}()
	want := "cannot reach the database at " + strings.SplitN(url, "?", 2)[0]
	check := func(when string) {
		t.Helper()
		code, stdout, stderr := pgGuard(t, url, "h1", "run", "--name", "k", "--", "echo", "ran")
		if code != 0 || stdout != "ran\n" || !strings.HasPrefix(stderr, "guard: warning: "+want) || strings.Contains(stderr, "SQLSTATE") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want the hook run and a warning that starts %q", when, code, stdout, stderr, want)
		}
		if code, _, stderr := pgGuard(t, url, "h1", "status"); code == 0 || !strings.Contains(stderr, want) {
			t.Errorf("%s: status: exit %d, stderr %q; want an error that says %q", when, code, stderr, want)
		}
	}
	check("server down")
	check("server still down")
	if err := srv.Up(); err != nil {
		t.Fatal(err)
	}
	up = true
	// pgbouncer goes on refusing for a while (server_login_retry): what it
	// says meanwhile is worded the same; and then calls are counted again.
	for deadline := time.Now().Add(2 * time.Minute); ; {
		code, stdout, stderr := pgGuard(t, url, "h1", "run", "--name", "k", "--", "echo", "ran")
		if code != 0 || stdout != "ran\n" {
			t.Fatalf("after the restart: exit %d, stdout %q: %s", code, stdout, stderr)
		}
		if stderr == "" {
			break
		}
		if !strings.HasPrefix(stderr, "guard: warning: "+want) {
			t.Fatalf("after the restart: stderr %q; want a warning that starts %q", stderr, want)
		}
		if time.Now().After(deadline) {
			t.Fatalf("pgbouncer still refuses two minutes after the restart: %s", stderr)
		}
		time.Sleep(500 * time.Millisecond)
	}
}
