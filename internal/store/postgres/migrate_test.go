package postgres

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"guard/breaker"
	"guard/internal/store"
	"guard/internal/store/postgres/pgtest"
)

// schema1 is a database written by guard's first PostgreSQL backend
// (schema version 1, one document a state), dumped with pg_dump --inserts:
// keys closed, open (tripped by hand), half-open with a probe lease held
// by hostB (pid 20236), a 3,000-byte key and one full of quotes; budgets of
// two services and a last_daily_digest stamp; the runs of unlimited keys
// as slot rows (only flaky's still held when it was dumped); 17 events.
//
//go:embed testdata/schema1.sql
var schema1 string

// loadSchema1 makes the database at url the one of schema1, and holds
// flaky's slot as its guard held it then: a session advisory lock.
func loadSchema1(t *testing.T, url string) {
	t.Helper()
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	conn, err := pgx.ConnectConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	if _, err := conn.Exec(context.Background(), schema1); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(context.Background(), `SELECT pg_advisory_lock(hashtext('guard-slot:flaky'), 1048576)`); err != nil {
		t.Fatal(err)
	}
}

// docOf reads a row of guard_state as JSON.
func docOf(t *testing.T, db *DB, name string) map[string]any {
	t.Helper()
	var doc string
	if err := db.conn.QueryRow(context.Background(), `SELECT doc FROM guard_state WHERE name = $1`, name).Scan(&doc); err != nil {
		t.Fatalf("guard_state %s: %v", name, err)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(doc), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// A database of schema version 1 moves to version 2 on first use, with
// nothing lost: every key's entry (the probe lease with it), the totals,
// every budget and stamp, the run still in flight, every event (found by
// its key again), and the documents themselves, kept. Two guards that
// come at once migrate it once.
func TestMigrationFromSchema1LosesNothing(t *testing.T) {
	url := pgtest.Shared(t).NewDB(t)
	loadSchema1(t, url)

	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			db := openWith(t, url, Settings{ConnectTimeout: time.Second, LockTimeout: 20 * time.Second})
			if _, err := db.Circuits().Peek("lint"); err != nil {
				t.Errorf("the first call on a database of schema 1: %v", err)
			}
		}()
	}
	wg.Wait()
	db := open(t, url)
	var version int
	db.conn.QueryRow(context.Background(), `SELECT version FROM guard_schema`).Scan(&version)
	if version != schemaVersion {
		t.Fatalf("schema version %d; want %d", version, schemaVersion)
	}

	// The hook state: every key, entry for entry, and the totals.
	old := docOf(t, db, "hooks.v1")
	data, err := db.HookCheckpoint().Export()
	if err != nil {
		t.Fatal(err)
	}
	var now map[string]any
	if err := json.Unmarshal(data, &now); err != nil {
		t.Fatal(err)
	}
	oldHooks, newHooks := old["hooks"].(map[string]any), now["hooks"].(map[string]any)
	if len(oldHooks) != 5 || len(newHooks) != len(oldHooks) {
		t.Fatalf("%d keys before, %d after; want the 5 of the dump", len(oldHooks), len(newHooks))
	}
	for k, v := range oldHooks {
		if fmt.Sprint(newHooks[k]) != fmt.Sprint(v) {
			t.Errorf("key %.40q: %v\nwas %v", k, newHooks[k], v)
		}
	}
	og, ng := old["global_stats"].(map[string]any), now["global_stats"].(map[string]any)
	for _, f := range []string{"total_executions", "total_failures", "hooks_disabled"} {
		if og[f] != ng[f] {
			t.Errorf("global_stats.%s = %v; was %v", f, ng[f], og[f])
		}
	}
	c, err := db.Circuits().Peek("flaky")
	if err != nil || c.State != breaker.HalfOpen || len(c.Leases) != 1 || c.Leases[0].Host != "hostB" || c.Leases[0].PID != 20236 {
		t.Errorf("flaky = %+v, %v; want half-open with hostB's lease", c, err)
	}

	// The cooldown state: every service and stamp.
	oldCool := docOf(t, db, "cooldown.v1")
	data, err = db.CooldownCheckpoint(nil).Export()
	if err != nil {
		t.Fatal(err)
	}
	var cool map[string]any
	json.Unmarshal(data, &cool)
	if fmt.Sprint(cool) != fmt.Sprint(oldCool) {
		t.Errorf("cooldown state:\n%v\nwas\n%v", cool, oldCool)
	}

	// The run in flight, and only it: the others' locks were gone.
	runs, err := db.Runs().List(nil)
	if err != nil || len(runs) != 1 || runs[0].Key != "flaky" || runs[0].Holder.Host != "hostB" || runs[0].Holder.PID != 20236 {
		t.Errorf("runs in flight = %+v, %v; want flaky's on hostB", runs, err)
	}

	// Every event, and a key's found by its key.
	res, err := db.Events().Read(nil)
	if err != nil || len(res.Events) != 17 || res.Malformed != 0 {
		t.Errorf("events: %d (%d malformed), %v; want the 17 of the dump", len(res.Events), res.Malformed, err)
	}
	res, err = store.Select(db.Events(), store.Query{Keys: []string{"lint"}})
	if err != nil || len(res.Events) != 3 {
		t.Errorf("lint's events: %d, %v; want its 3 runs", len(res.Events), err)
	}
	var slots *string
	db.conn.QueryRow(context.Background(), `SELECT to_regclass('guard_slots')::text`).Scan(&slots)
	if slots != nil {
		t.Errorf("guard_slots is still there")
	}
}
