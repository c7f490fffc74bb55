package postgres

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"guard/internal/store"
	"guard/internal/store/postgres/pgtest"
)

func open(t *testing.T, url string) *DB {
	t.Helper()
	db, err := Open(context.Background(), url, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	return db
}

// The schema is made by the first statement, and a schema newer than
// this guard's is refused with a message that says so.
func TestSchemaIsCheckedOnTheFirstStatement(t *testing.T) {
	url := pgtest.Shared(t).NewDB(t)
	db := open(t, url)
	if c, err := db.Circuits(time.Hour).Peek("k"); err != nil || c.State != "" {
		t.Fatalf("Peek on a new database: %+v, %v", c, err)
	}
	var version int
	if err := db.conn.QueryRow(context.Background(), `SELECT version FROM guard_schema`).Scan(&version); err != nil || version != schemaVersion {
		t.Fatalf("schema version %d, %v; want %d", version, err, schemaVersion)
	}
	if _, err := db.conn.Exec(context.Background(), `UPDATE guard_schema SET version = $1`, schemaVersion+1); err != nil {
		t.Fatal(err)
	}
	_, err := open(t, url).Circuits(time.Hour).Peek("k")
	if err == nil || !strings.Contains(err.Error(), "newer than this guard knows") {
		t.Errorf("a newer schema: %v; want it refused", err)
	}
	if err := open(t, url).Ping(); err == nil || !strings.Contains(err.Error(), "newer than this guard knows") {
		t.Errorf("Ping of a newer schema: %v; want it refused", err)
	}
}

// A released max_concurrent slot is free at once; the slot that lists a
// run of an unlimited key is freed on the connection's next round trip,
// or when it closes.
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
	if err != nil || listed() != 1 {
		t.Fatalf("an unlimited run: %v; want it listed", err)
	}
	slot.Release()
	if _, err := a.read("hooks"); err != nil { // a's next round trip
		t.Fatal(err)
	}
	if n := listed(); n != 0 {
		t.Errorf("after a's next round trip, %d runs listed; want none", n)
	}
}

// update is one transaction: a failing fn leaves nothing behind and the
// connection usable.
func TestFailedUpdateRollsBack(t *testing.T) {
	db := open(t, pgtest.Shared(t).NewDB(t))
	boom := pgx.ErrTxClosed
	err := db.update("doc", time.Now(), func(doc []byte, now time.Time) ([]byte, []store.Event, []store.Aside, error) {
		return nil, nil, nil, boom
	})
	if err != boom {
		t.Fatalf("update: %v; want fn's error", err)
	}
	if err := db.update("doc", time.Now(), func(doc []byte, now time.Time) ([]byte, []store.Event, []store.Aside, error) {
		return []byte("v1"), nil, nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	if doc, err := db.read("doc"); err != nil || string(doc) != "v1" {
		t.Errorf("read %q, %v; want v1", doc, err)
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.StopShared()
	os.Exit(code)
}
