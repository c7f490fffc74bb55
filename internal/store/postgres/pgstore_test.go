package postgres

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"guard/breaker"
	"guard/internal/store"
	"guard/internal/store/postgres/pgtest"
)

func open(t *testing.T, url string) *DB {
	t.Helper()
	return openWith(t, url, Settings{ConnectTimeout: time.Second})
}

func openWith(t *testing.T, url string, set Settings) *DB {
	t.Helper()
	db, err := Open(context.Background(), url, set)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	return db
}

// exec runs sql on its own connection, as an administrator would.
func exec(t *testing.T, url, sql string, args ...any) {
	t.Helper()
	db := open(t, url)
	if _, err := db.conn.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// The schema is made by the first statement, and a schema newer than
// this guard's is refused with a message that says so.
func TestSchemaIsCheckedOnTheFirstStatement(t *testing.T) {
	url := pgtest.Shared(t).NewDB(t)
	db := open(t, url)
	if c, err := db.Circuits().Peek("k"); err != nil || c.State != "" {
		t.Fatalf("Peek on a new database: %+v, %v", c, err)
	}
	var version int
	if err := db.conn.QueryRow(context.Background(), `SELECT version FROM guard_schema`).Scan(&version); err != nil || version != schemaVersion {
		t.Fatalf("schema version %d, %v; want %d", version, err, schemaVersion)
	}
	exec(t, url, `UPDATE guard_schema SET version = $1`, schemaVersion+1)
	_, err := open(t, url).Circuits().Peek("k")
	if err == nil || !strings.Contains(err.Error(), "newer than this guard knows") {
		t.Errorf("a newer schema: %v; want it refused", err)
	}
	if err := open(t, url).Ping(); err == nil || !strings.Contains(err.Error(), "newer than this guard knows") {
		t.Errorf("Ping of a newer schema: %v; want it refused", err)
	}
}

// A released max_concurrent slot is free at once, and so is the row that
// lists a run of an unlimited key, released with the next round.
func TestReleasedSlots(t *testing.T) {
	url := pgtest.Shared(t).NewDB(t)
	a, b := open(t, url), open(t, url)
	run := store.Run{Key: "k", Holder: store.Holder{Host: "h", PID: 1, Start: 1}, Started: time.Now()}
	slot, err := a.Runs().Acquire(run, 1, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Runs().Acquire(run, 1, 0, nil); err != store.ErrFull {
		t.Fatalf("a held slot: %v; want ErrFull", err)
	}
	slot.Release()
	got, err := b.Runs().Acquire(run, 1, 0, nil)
	if err != nil {
		t.Fatalf("right after the release: %v", err)
	}
	got.Release()

	listed := func() int {
		t.Helper()
		runs, err := b.Runs().List(nil)
		if err != nil {
			t.Fatal(err)
		}
		return len(runs)
	}
	slot, err = a.Runs().Acquire(run, 0, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := listed(); n != 0 {
		t.Fatalf("an unlimited run is listed before a's next round: %d", n)
	}
	if _, err := a.Circuits().Peek("k"); err != nil { // a's next round
		t.Fatal(err)
	}
	if n := listed(); n != 1 {
		t.Fatalf("after a's next round, %d runs listed; want 1", n)
	}
	slot.(store.Queued).ReleaseLater()
	if n := listed(); n != 1 {
		t.Fatalf("released later, %d runs listed before a's next round; want 1", n)
	}
	slot.Release() // sends what no round carried
	if n := listed(); n != 0 {
		t.Errorf("after Release, %d runs listed; want none", n)
	}
}

// An update is one transaction: a failing fn leaves nothing behind and the
// connection usable.
func TestFailedUpdateRollsBack(t *testing.T) {
	db := open(t, pgtest.Shared(t).NewDB(t))
	c := db.Circuits()
	boom := errors.New("boom")
	err := c.Update(time.Now(), func(tx store.CircuitTx) (bool, error) {
		tx.Put("k", breaker.Circuit{State: breaker.Open})
		return true, boom
	})
	if err != boom {
		t.Fatalf("Update: %v; want fn's error", err)
	}
	if got, err := c.Peek("k"); err != nil || got.State != "" {
		t.Fatalf("after a failed update: %+v, %v; want no state", got, err)
	}
	if err := c.Update(time.Now(), func(tx store.CircuitTx) (bool, error) {
		tx.Put("k", breaker.Circuit{State: breaker.Open})
		return true, nil
	}); err != nil {
		t.Fatal(err)
	}
	if got, err := open(t, pgtest.Shared(t).URL(strings.TrimPrefix(dbName(db), "/"))).Circuits().Peek("k"); err != nil || got.State != breaker.Open {
		t.Errorf("Peek = %+v, %v; want open", got, err)
	}
}

func dbName(db *DB) string { return db.cfg.Database }

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.StopShared()
	os.Exit(code)
}
