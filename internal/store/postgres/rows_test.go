package postgres

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"guard/breaker"
	"guard/config"
	"guard/internal/circuit"
	"guard/internal/store"
	"guard/internal/store/hookstate"
	"guard/internal/store/postgres/pgtest"
	"guard/internal/supervise"
)

var testSettings = breaker.Settings{FailureThreshold: 1, SuccessThreshold: 1, Cooldown: time.Minute, MaxCooldown: time.Hour, HalfOpenMaxCalls: 1, ProbeLease: 20 * time.Minute}

// via returns url with its host:port replaced by addr (a proxy's).
func via(t *testing.T, rawURL, addr string) string {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	u.Host = addr
	return u.String()
}

// proto is guard run's protocol on db, for the process pid on host.
func proto(db *DB, host string, pid int) *circuit.Protocol {
	runs := db.Runs()
	return &circuit.Protocol{
		Circuits: db.Circuits(), Runs: runs,
		Live: store.Liveness{Host: host, Local: func(int, uint64) bool { return true }},
		Self: store.Holder{Host: host, PID: pid, Start: 1},
	}
}

// call is guard run's closed call: Start (which lists the run), Admit,
// the command, Record.
func call(t *testing.T, p *circuit.Protocol, key string, exit int) breaker.Decision {
	t.Helper()
	now := time.Now()
	slot, err := p.Start(key, 0, 0, now, time.Time{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	dec, _, err := p.Admit(key, testSettings, now)
	if err != nil {
		t.Fatal(err)
	}
	if !dec.Run {
		return dec
	}
	res := supervise.Result{ExitCode: exit}
	r := circuit.Classify(&res, config.Default("/h").CircuitBreaker, dec)
	if err := p.Record(key, testSettings, time.Now(), r, circuit.Run{Exit: exit}); err != nil {
		t.Fatal(err)
	}
	if slot != nil {
		slot.Release()
	}
	return dec
}

// A closed call is three round trips after the TCP connect: start-up and
// authentication, the peek (with the run's listing), the record (with the
// run's release, its event and the pruning).
func TestClosedCallIsThreeRoundTrips(t *testing.T) {
	srv := pgtest.Shared(t)
	u := srv.NewDB(t)
	if err := open(t, u).Ping(); err != nil { // the schema, made beforehand
		t.Fatal(err)
	}
	p := pgtest.NewProxy(t, srv.Addr())
	db := openWith(t, via(t, u, p.Addr), Settings{ConnectTimeout: time.Second, Retention: hookstate.Retention{Idle: time.Hour}, EventRetention: time.Hour})
	call(t, proto(db, "h", 1), "k", 0)
	if n := p.Requests.Load(); n != 3 {
		t.Errorf("a closed call made %d round trips; want 3", n)
	}
	if n := p.Connections.Load(); n != 1 {
		t.Errorf("a closed call opened %d connections; want 1", n)
	}
}

// A URL without sslmode (libpq's prefer: TLS if the server has it) makes
// one connection to a server without TLS, not two.
func TestPreferIsOneConnection(t *testing.T) {
	srv := pgtest.Shared(t)
	u := srv.NewDB(t)
	p := pgtest.NewProxy(t, srv.Addr())
	noMode := strings.Replace(via(t, u, p.Addr), "sslmode=disable", "", 1)
	db := open(t, noMode)
	if err := db.Ping(); err != nil {
		t.Fatal(err)
	}
	if n := p.Connections.Load(); n != 1 {
		t.Errorf("%d connections; want 1", n)
	}
	if db.conn.PgConn().Conn() == nil {
		t.Fatal("no connection")
	}
}

// Keys of any length work: rows are keyed by a hash of the key, not by
// the key, which a btree could not hold past 2.7 KB.
func TestLongKeys(t *testing.T) {
	db := open(t, pgtest.Shared(t).NewDB(t))
	key := strings.Repeat("x", 100<<10) + fmt.Sprint(time.Now().UnixNano()) // 100 KB, incompressible enough at its end
	p := proto(db, "h", 1)
	slot, err := p.Start(key, 1, 0, time.Now(), time.Time{}, nil)
	if err != nil {
		t.Fatalf("a max_concurrent slot of a 100 KB key: %v", err)
	}
	if _, err := proto(db, "h", 2).Start(key, 1, 0, time.Now(), time.Time{}, nil); !errors.Is(err, store.ErrFull) {
		t.Errorf("its second slot: %v; want ErrFull", err)
	}
	slot.Release()
	for range 2 {
		call(t, p, key, 1)
	}
	c, err := db.Circuits().Peek(key)
	if err != nil || c.State != breaker.Open {
		t.Fatalf("after two failures: %+v, %v; want open", c.State, err)
	}
	res, err := store.Select(db.Events(), store.Query{Keys: []string{key}, Events: []string{store.EventRun}})
	if err != nil || len(res.Events) != 1 || res.Events[0].Key != key {
		t.Errorf("the key's run events: %d, %v; want 1", len(res.Events), err)
	}
}

// Events older than the retention and keys idle past it are pruned by the
// writes that come after, a bounded batch at a time, with no cron; the
// totals of a pruned key stay in the lifetime totals.
func TestPruningAsWritten(t *testing.T) {
	u := pgtest.Shared(t).NewDB(t)
	db := openWith(t, u, Settings{ConnectTimeout: time.Second, Retention: hookstate.Retention{Idle: time.Hour}, EventRetention: time.Hour})
	p := proto(db, "h", 1)
	call(t, p, "old", 0)
	call(t, p, "old", 1)
	call(t, p, "old", 0) // a probe? no: open after one failure; a skip
	// Age everything by a day, and add a thousand old events.
	exec(t, u, `UPDATE guard_circuits SET entry = replace(entry, to_char(now() at time zone 'utc', 'YYYY-MM-DD'), '2000-01-01'), prune_after = '2000-01-01'`)
	exec(t, u, `UPDATE guard_events SET ts = ts - interval '1 day'`)
	exec(t, u, `INSERT INTO guard_events (id, ts, event, line) SELECT g, now() - interval '2 days', 'run', '{}' FROM generate_series(1, 1000) g`)
	before, err := db.Circuits().stats()
	if err != nil {
		t.Fatal(err)
	}
	count := func(sql string) int {
		var n int
		if err := db.conn.QueryRow(context.Background(), sql).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	call(t, p, "new", 0)
	if n := count(`SELECT count(*) FROM guard_events WHERE ts < now() - interval '1 hour'`); n == 0 || n >= 1003 {
		t.Errorf("after one write, %d old events; want a batch of them pruned, not all", n)
	}
	for range 40 {
		call(t, p, "new", 0)
	}
	if n := count(`SELECT count(*) FROM guard_events WHERE ts < now() - interval '1 hour'`); n != 0 {
		t.Errorf("after 41 writes, %d old events left; want none", n)
	}
	if n := count(`SELECT count(*) FROM guard_circuits WHERE key = 'old'`); n != 0 {
		t.Errorf("the idle key was not pruned")
	}
	after, err := db.Circuits().stats()
	if err != nil {
		t.Fatal(err)
	}
	if after.TotalExecutions != before.TotalExecutions+41 || after.TotalFailures != before.TotalFailures {
		t.Errorf("totals %+v after pruning; want %+v and 41 more runs", after, before)
	}
}

// A client frozen in the middle of a transaction (here: one that locked a
// key's row and stopped) holds up only calls of that key, each for at most
// lock_timeout, after which it fails as busy; calls of other keys go on.
// guard's own writes never wait on their client: they are one round each.
func TestFrozenClientHoldsOnlyItsRow(t *testing.T) {
	u := pgtest.Shared(t).NewDB(t)
	db := openWith(t, u, Settings{ConnectTimeout: time.Second, LockTimeout: 300 * time.Millisecond})
	p := proto(db, "h", 1)
	call(t, p, "frozen", 0)
	frozen := open(t, u)
	ctx := context.Background()
	if _, err := frozen.conn.Exec(ctx, `BEGIN`); err != nil {
		t.Fatal(err)
	}
	if _, err := frozen.conn.Exec(ctx, `UPDATE guard_circuits SET updated = now() WHERE key = 'frozen'`); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	call(t, p, "other", 0)
	other := time.Since(start)
	start = time.Now()
	err := p.Record("frozen", testSettings, time.Now(), breaker.Result{Outcome: breaker.Success}, circuit.Run{})
	same := time.Since(start)
	if !errors.Is(err, store.ErrBusy) {
		t.Errorf("a call of the frozen row: %v; want ErrBusy", err)
	}
	t.Logf("other key: %s; same key: %s (lock_timeout 300ms)", other, same)
	if same > 30*time.Second {
		t.Errorf("the same key's call waited %s", same) // not a timing: a call that hung
	}
}

// A max_concurrent slot is a row, not a session's lock: it outlives a
// restart of the server, and its holder extends it on a new connection.
func TestSlotOutlivesServerRestart(t *testing.T) {
	srv := pgtest.Shared(t)
	u := srv.NewDB(t)
	a := openWith(t, u, Settings{ConnectTimeout: time.Second, Lease: 3 * time.Second})
	run := store.Run{Key: "k", Holder: store.Holder{Host: "a", PID: 1, Start: 1}, Started: time.Now()}
	slot, err := a.Runs().Acquire(run, 1, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer slot.Release()
	if err := srv.Down(); err != nil {
		t.Fatal(err)
	}
	if err := srv.Up(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(4 * time.Second) // past the first lease: the holder extended it after the restart
	b := open(t, u)
	run.Holder = store.Holder{Host: "b", PID: 2, Start: 2}
	if _, err := b.Runs().Acquire(run, 1, 0, nil); !errors.Is(err, store.ErrFull) {
		t.Errorf("another host's Acquire after the restart: %v; want ErrFull", err)
	}
}

// A holder whose slot's row is taken away tells its run to stop its
// command (store.Losing), so that no two runs hold one slot.
func TestSlotLostStopsItsCommand(t *testing.T) {
	u := pgtest.Shared(t).NewDB(t)
	a := openWith(t, u, Settings{ConnectTimeout: time.Second, Lease: 2 * time.Second})
	run := store.Run{Key: "k", Holder: store.Holder{Host: "a", PID: 1, Start: 1}, Started: time.Now()}
	slot, err := a.Runs().Acquire(run, 1, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer slot.Release()
	slot.Started(12345)
	// Another client takes the row away, as one would after it expired.
	exec(t, u, `UPDATE guard_runs SET pid = 99`)
	l := slot.(store.Losing)
	select {
	case <-l.Lost():
	case <-time.After(2 * time.Minute):
		t.Fatal("a lost slot did not tell its run to stop its command")
	}
	if !strings.Contains(l.LostWhy(), "row is gone") {
		t.Errorf("LostWhy = %q", l.LostWhy())
	}
}

// A holder cut off from the database (every round waits for its time
// limit, as behind a dropped network) gives its slot up on a timer of its
// own, measured from its last extension, without waiting on the hung
// round (faults #3); its lease, too short for its command's kill_grace and
// a round, was raised, and says so.
func TestSlotCutOffIsGivenUp(t *testing.T) {
	srv := pgtest.Shared(t)
	u := srv.NewDB(t)
	p := pgtest.NewProxy(t, srv.Addr())
	a := openWith(t, via(t, u, p.Addr), Settings{ConnectTimeout: 500 * time.Millisecond, LockTimeout: 500 * time.Millisecond, Lease: time.Second})
	run := store.Run{Key: "k", Holder: store.Holder{Host: "a", PID: 1, Start: 1}, Started: time.Now(), KillGrace: time.Second}
	slot, err := a.Runs().Acquire(run, 1, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	l := slot.(store.Losing)
	if given, asked := l.Lease(); asked != time.Second || given != 6*time.Second {
		t.Errorf("Lease = %v, %v; want 6s raised from 1s (1.5 x (a 2s round + a 1s grace + 1s))", given, asked)
	}
	p.Blackhole.Store(true)
	select {
	case <-l.Lost():
	case <-time.After(2 * time.Minute):
		t.Fatal("a holder cut off from the database kept its slot")
	}
	if !strings.Contains(l.LostWhy(), "could not be extended") {
		t.Errorf("LostWhy = %q", l.LostWhy())
	}
}

// The schedule of a slot that cannot be extended: SIGTERM, the grace and
// the margin all fit in the lease after one extension's round.
func TestLeaseSchedule(t *testing.T) {
	for _, tc := range []struct {
		lock, connect, grace, want time.Duration
	}{
		{2 * time.Second, time.Second, 5 * time.Second, 15 * time.Second}, // the defaults need the default lease
		{500 * time.Millisecond, 500 * time.Millisecond, time.Second, 6 * time.Second},
		{2 * time.Second, time.Second, 0, 8 * time.Second}, // 7.5s, rounded up
	} {
		db := &DB{set: Settings{LockTimeout: tc.lock}, cfg: &pgx.ConnConfig{}}
		db.cfg.ConnectTimeout = tc.connect
		lease := db.minLease(tc.grace)
		if lease != tc.want {
			t.Errorf("minLease(lock %v, connect %v, grace %v) = %v; want %v", tc.lock, tc.connect, tc.grace, lease, tc.want)
		}
		// The first extension, a third of a lease in, may take a whole
		// round; the command must then still get its grace and die a
		// margin before the row expires.
		if first, stop := lease/3+db.RoundLimit(), lease-stopMargin(lease)-tc.grace; first > stop {
			t.Errorf("lease %v: the first extension may end at %v, after the stop at %v", lease, first, stop)
		}
	}
}

// A prober on another host that is gone (its run's row no longer extended)
// is seen dead once the row expires, long before its probe lease ends, and
// its probe re-opens the circuit with the cooldown it had.
func TestDeadProberOnAnotherHost(t *testing.T) {
	u := pgtest.Shared(t).NewDB(t)
	set := Settings{ConnectTimeout: time.Second, Lease: time.Second}
	a, b := openWith(t, u, set), openWith(t, u, set)
	pa, pb := proto(a, "hostA", 1), proto(b, "hostB", 2)
	s := testSettings
	call(t, pa, "k", 1)
	if err := a.Circuits().Update(time.Now(), func(tx store.CircuitTx) (bool, error) {
		_, _, err := circuit.Probe(tx, "k", time.Now()) // the next call probes
		return true, err
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := pa.Start("k", 0, 0, time.Now(), time.Time{}, nil); err != nil {
		t.Fatal(err)
	}
	dec, _, err := pa.Admit("k", s, time.Now())
	if err != nil || !dec.Probe {
		t.Fatalf("hostA: %+v, %v; want a probe", dec, err)
	}
	if dec, _, err := pb.Admit("k", s, time.Now()); err != nil || dec.Run {
		t.Fatalf("hostB while hostA probes: %+v, %v; want a skip", dec, err)
	}
	a.Close() // hostA is gone: its row is no longer extended
	time.Sleep(1500 * time.Millisecond)
	dec, c, err := pb.Admit("k", testSettings, time.Now())
	if err != nil || len(dec.Events) == 0 || dec.Events[0].Kind != breaker.Reaped {
		t.Fatalf("hostB after hostA's row expired: %+v, %v; want hostA's lease reaped", dec, err)
	}
	if c.Reopens != 0 {
		t.Errorf("re-opened with reopen count %d; want the cooldown it had", c.Reopens)
	}
}

// A role with no CREATE runs guard once an administrator made the schema
// and granted it what guard init grants; without the grants it is told
// what to grant, not that the database is unreachable.
func TestRoleWithoutCreate(t *testing.T) {
	srv := pgtest.Shared(t)
	u := srv.NewDB(t)
	role := fmt.Sprintf("hook_%d", time.Now().UnixNano())
	exec(t, u, `CREATE ROLE `+role+` LOGIN`)
	exec(t, u, `REVOKE CREATE ON SCHEMA public FROM PUBLIC`)
	asRole := strings.Replace(u, "postgres@", role+"@", 1)

	// No schema yet, and no right to make it.
	if err := open(t, asRole).Ping(); err == nil || !strings.Contains(err.Error(), "permission denied") || !strings.Contains(err.Error(), "guard state init") {
		t.Errorf("Ping with no schema and no CREATE: %v; want permission denied, and what to run", err)
	}
	admin := open(t, u)
	if err := admin.Init(""); err != nil {
		t.Fatal(err)
	}
	err := open(t, asRole).Ping()
	var denied *DeniedError
	if !errors.As(err, &denied) || !strings.Contains(err.Error(), "GRANT SELECT, INSERT, UPDATE, DELETE ON guard_circuits TO "+role) {
		t.Errorf("Ping without grants: %v; want permission denied with the GRANTs", err)
	}
	if err := admin.Init(role); err != nil {
		t.Fatal(err)
	}
	if err := admin.Init(role); err != nil { // idempotent
		t.Fatal(err)
	}
	db := open(t, asRole)
	if err := db.Ping(); err != nil {
		t.Fatalf("Ping with the grants: %v", err)
	}
	p := proto(db, "h", 1)
	call(t, p, "k", 0)
	if _, err := db.Runs().Acquire(store.Run{Key: "k", Holder: p.Self, Started: time.Now()}, 1, 0, nil); err != nil {
		t.Errorf("a slot: %v", err)
	}
	if _, err := db.HookCheckpoint().Export(); err != nil {
		t.Errorf("export: %v", err)
	}
}

// Queries go to the server: a limit reads that many rows, newest first,
// however many match.
func TestQueryIsAnsweredOnTheServer(t *testing.T) {
	u := pgtest.Shared(t).NewDB(t)
	db := open(t, u)
	if err := db.Ping(); err != nil {
		t.Fatal(err)
	}
	exec(t, u, `INSERT INTO guard_events (id, ts, event, key_hash, line)
		SELECT g, now() - make_interval(secs => 10000 - g), 'run', sha256('k'::bytea),
			'{"time":"2026-01-01T00:00:00Z","ts_ms":' || g || ',"event":"run","key":"k","duration_ms":1}'
		FROM generate_series(1, 10000) g`)
	res, err := store.Select(db.Events(), store.Query{Keys: []string{"k"}, Limit: 5, Offset: 2})
	if err != nil || len(res.Events) != 5 {
		t.Fatalf("limit 5: %d events, %v", len(res.Events), err)
	}
	for i, e := range res.Events {
		if want := int64(9994 + i); e.Time.UnixMilli() != want {
			t.Errorf("event %d at %d; want %d", i, e.Time.UnixMilli(), want)
		}
	}
	res, err = store.Select(db.Events(), store.Query{Keys: []string{"k"}, Keep: func(e *store.Event) bool { return e.Time.UnixMilli()%1000 == 0 }, Limit: 3})
	if err != nil || len(res.Events) != 3 || res.Events[2].Time.UnixMilli() != 10000 {
		t.Errorf("limit 3 with a filter: %+v, %v", res.Events, err)
	}
}
