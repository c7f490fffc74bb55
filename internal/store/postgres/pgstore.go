package postgres

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"guard/config"
	"guard/internal/store"
	"guard/internal/store/hookstate"
)

// Settings are what a DB takes from guard's configuration.
type Settings struct {
	// ConnectTimeout bounds connecting (a URL's own connect_timeout wins).
	ConnectTimeout time.Duration
	// LockTimeout bounds a wait for a row another call has locked, and,
	// with a second more, each statement (statement_timeout) and a
	// transaction left idle by a frozen client
	// (idle_in_transaction_session_timeout). 0: 2s.
	LockTimeout time.Duration
	// Retention says how long idle keys are kept (see hookstate.Retention),
	// as circuit_breaker.retention and session_retention say.
	Retention hookstate.Retention
	// EventRetention is how long events are kept (0: for ever): the longer
	// of the two states' retentions, so that no state's write prunes the
	// other's events early.
	EventRetention time.Duration
	// Lease is how long a run's row lasts without its holder extending it
	// (the URL's guard_lease, else DefaultLease).
	Lease time.Duration
}

// DefaultLease is how long a run's row lasts unless its holder extends it,
// which it does every third of that while the run goes on: a holder that
// is gone (killed, its host down or cut off) frees its slot, and is seen
// dead by the other hosts, this long after it last extended it.
const DefaultLease = 15 * time.Second

// A DB is a connection to guard's database. It is safe for concurrent use
// by a run's heartbeat and the call it belongs to: one statement round at
// a time.
type DB struct {
	mu      sync.Mutex
	conn    *pgx.Conn
	cfg     *pgx.ConnConfig // to connect again after the connection broke
	where   string          // the URL, password hidden
	set     Settings
	checked bool        // the schema is known to be the one this guard writes
	pending []statement // slot listings and releases to run before anything else
	closed  bool        // by Close: no round is sent again

	skew     time.Duration // the database's clock minus this host's, from the first round
	haveSkew bool
	host     string // written into each event that names no host (store.Options.Host)

	leaseAsked bool // the lease was given (guard_lease), not the default

	// LocalClock makes decisions on the time the caller gives instead of
	// the database's: for tests that play time forward.
	LocalClock bool
}

// Open connects to the database at url. The password may come from the
// URL, PGPASSWORD or ~/.pgpass, as libpq takes it. The URL may carry
// guard's own option guard_lease (a duration: see Settings.Lease), which is
// taken out before the rest goes to the driver. The schema is checked, and
// created or migrated if need be, on the first round of statements: the
// check rides in that round trip.
func Open(ctx context.Context, rawURL string, set Settings) (*DB, error) {
	cfg, lease, err := parseURL(rawURL)
	if err != nil {
		return nil, err
	}
	leaseAsked := set.Lease > 0 || lease > 0
	if set.Lease == 0 {
		set.Lease = lease
	}
	if set.Lease <= 0 {
		set.Lease = DefaultLease
	}
	if set.LockTimeout <= 0 {
		set.LockTimeout = 2 * time.Second
	}
	if !strings.Contains(rawURL, "connect_timeout") && set.ConnectTimeout > 0 {
		cfg.ConnectTimeout = set.ConnectTimeout
	}
	if cfg.ConnectTimeout <= 0 {
		cfg.ConnectTimeout = 5 * time.Second
	}
	db := &DB{cfg: cfg, where: config.Redact(rawURL), set: set, leaseAsked: leaseAsked}
	if db.conn, err = pgx.ConnectConfig(ctx, cfg); err != nil {
		return nil, fmt.Errorf("cannot reach the database at %s: %w", db.where, unwrapConnect(err))
	}
	return db, nil
}

// parseURL reads a state's URL for the driver: every statement in one
// round trip (an unnamed statement, parsed and run together, which a
// transaction-mode pooler passes through), and sslmode prefer in one
// connection (see preferDialer). It returns the guard_lease option apart.
func parseURL(rawURL string) (*pgx.ConnConfig, time.Duration, error) {
	bad := func(err error) error {
		return fmt.Errorf("%s is not a PostgreSQL URL guard can use: %v", config.Redact(rawURL), err)
	}
	var lease time.Duration
	if u, err := url.Parse(rawURL); err == nil && u.Query().Has("guard_lease") {
		q := u.Query()
		if lease, err = config.ParseDuration(q.Get("guard_lease")); err != nil || lease <= 0 {
			return nil, 0, bad(fmt.Errorf("guard_lease=%s: want a duration such as 15s", q.Get("guard_lease")))
		}
		q.Del("guard_lease")
		u.RawQuery = q.Encode()
		rawURL = u.String()
	}
	cfg, err := pgx.ParseConfig(rawURL)
	if err != nil {
		return nil, 0, bad(err)
	}
	cfg.DefaultQueryExecMode = pgx.QueryExecModeExec
	preferInOneConnection(cfg)
	return cfg, lease, nil
}

// preferInOneConnection makes sslmode prefer (the default when neither the
// URL nor PGSSLMODE says otherwise) ask for TLS on the connection it opens
// and go on in the clear on that same connection if the server has none,
// as libpq does. pgx instead opens a second connection for the clear one:
// a round trip and a server process more on every call.
func preferInOneConnection(cfg *pgx.ConnConfig) {
	if cfg.TLSConfig == nil || len(cfg.Fallbacks) != 1 {
		return
	}
	fb := cfg.Fallbacks[0]
	if fb.TLSConfig != nil || fb.Host != cfg.Host || fb.Port != cfg.Port || cfg.SSLNegotiation == "direct" {
		return
	}
	tlsConfig, dial := cfg.TLSConfig, cfg.DialFunc
	cfg.TLSConfig, cfg.Fallbacks = nil, nil
	cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := dial(ctx, network, addr)
		if err != nil || network == "unix" {
			return conn, err
		}
		if d, ok := ctx.Deadline(); ok {
			conn.SetDeadline(d)
			defer conn.SetDeadline(time.Time{})
		}
		// SSLRequest: the server answers S (go on in TLS) or N (in the clear).
		if err := binary.Write(conn, binary.BigEndian, []int32{8, 80877103}); err != nil {
			conn.Close()
			return nil, err
		}
		answer := make([]byte, 1)
		if _, err := io.ReadFull(conn, answer); err != nil {
			conn.Close()
			return nil, err
		}
		if answer[0] != 'S' {
			return conn, nil
		}
		tc := tls.Client(conn, tlsConfig)
		if err := tc.HandshakeContext(ctx); err != nil {
			conn.Close()
			return nil, err
		}
		return tc, nil
	}
}

// unwrapConnect shortens pgx's connection errors to their cause.
func unwrapConnect(err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return errors.New(pe.Message)
	}
	return err
}

// Where says where the state is, for people.
func (db *DB) Where() string { return db.where }

// Close sends what is still pending (the release of a run's row that no
// later round carried) and closes the connection.
func (db *DB) Close() {
	db.mu.Lock()
	defer db.mu.Unlock()
	if len(db.pending) > 0 && !db.conn.IsClosed() {
		ctx, cancel := db.context()
		_ = db.roundLocked(ctx, true, nil, nil)
		cancel()
	}
	db.closed = true
	db.conn.Close(context.Background())
}

// A statement waits in DB.pending for the next round trip.
type statement struct {
	sql  string
	args []any
	// withWrite holds the statement back for the next round that writes
	// (roundWrite): the release of a run's row, which must commit in the
	// same transaction as the outcome that ends the run's probe lease, or
	// another caller reading in between finds a lease with no run and
	// reaps a live probe (faults #1).
	withWrite bool
}

// queue adds a statement to go with the next round trip.
func (db *DB) queue(sql string, args ...any) {
	db.mu.Lock()
	db.pending = append(db.pending, statement{sql: sql, args: args})
	db.mu.Unlock()
}

// context bounds one round trip: the statement timeout, and the connect
// timeout again for the network.
func (db *DB) context() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), db.statementTimeout()+db.cfg.ConnectTimeout)
}

func (db *DB) statementTimeout() time.Duration { return db.set.LockTimeout + time.Second }

// schemaCheck fails, so that nothing after it in its round trip runs, when
// the schema is not the one this guard writes: with undefined_table when
// there is none, with invalid_text_representation naming the version when
// it is another.
var schemaCheck = fmt.Sprintf(`SELECT CASE WHEN version = %d THEN 0 ELSE ('guard schema version ' || version)::int END FROM guard_schema`, schemaVersion)

// timeouts is the first statement of every round: the round's transaction
// waits for a lock at most lock_timeout, runs no statement longer than
// statement_timeout and, should it ever wait for its client, is ended
// after idle_in_transaction_session_timeout. SET LOCAL's way: nothing
// outlives the transaction, which a transaction-mode pooler needs.
const timeouts = `SELECT set_config('lock_timeout', $1, true), set_config('statement_timeout', $2, true),
	set_config('idle_in_transaction_session_timeout', $2, true), set_config('synchronous_commit', $3, true)`

func ms(d time.Duration) string { return fmt.Sprintf("%dms", max(d.Milliseconds(), 1)) }

// round sends one round of statements as one transaction (the round's
// statements are pipelined with one Sync: the server runs them in one
// implicit transaction, rolled back whole if any fails, and never waits on
// the client in between). Before the statements of add come the timeouts,
// the schema check (once per connection; on failure the schema is migrated
// and the round sent again) and the pending statements. read reads
// the results of add's statements. relaxed lets the commit go without
// waiting for the disk (docs/guarantees.md: "Durability").
//
// The pending statements held back for a write (statement.withWrite) go
// only with roundWrite.
func (db *DB) round(add func(b *pgx.Batch), read func(br pgx.BatchResults) error, relaxed bool) error {
	return db.roundOf(false, add, read, relaxed)
}

// roundWrite is round for a write, which carries every pending statement,
// those held back for a write too (see statement.withWrite).
func (db *DB) roundWrite(add func(b *pgx.Batch), read func(br pgx.BatchResults) error, relaxed bool) error {
	return db.roundOf(true, add, read, relaxed)
}

func (db *DB) roundOf(write bool, add func(b *pgx.Batch), read func(br pgx.BatchResults) error, relaxed bool) error {
	db.mu.Lock()
	defer db.mu.Unlock()
	if db.closed {
		return errClosed
	}
	ctx, cancel := db.context()
	defer cancel()
	err := db.roundLocked(ctx, write, add, read, relaxed)
	if err != nil && db.conn.IsClosed() && ctx.Err() == nil {
		// The connection broke (a server restart, a pooler or firewall
		// that dropped it): once more on a new one. A write that reached
		// the disk before the break is not applied twice: its events have
		// the same ids, and the second insert fails (see Circuits.Update).
		if cerr := db.reconnect(ctx); cerr == nil {
			err = db.roundLocked(ctx, write, add, read, relaxed)
		} else {
			err = cerr // why there is no connection now
		}
	}
	return db.explain(ctx, err)
}

var errClosed = errors.New("the connection to the database is closed")

// reconnect opens a new connection in place of a broken one.
func (db *DB) reconnect(ctx context.Context) error {
	conn, err := pgx.ConnectConfig(ctx, db.cfg)
	if err != nil {
		return err
	}
	db.conn, db.checked = conn, false
	return nil
}

func (db *DB) roundLocked(ctx context.Context, write bool, add func(b *pgx.Batch), read func(br pgx.BatchResults) error, relaxed ...bool) error {
	var b pgx.Batch
	commit := "on"
	if len(relaxed) > 0 && relaxed[0] {
		commit = "off"
	}
	b.Queue(timeouts, ms(db.set.LockTimeout), ms(db.statementTimeout()), commit)
	if !db.checked {
		b.Queue(schemaCheck)
	}
	var pending, kept []statement
	for _, st := range db.pending {
		if st.withWrite && !write {
			kept = append(kept, st)
			continue
		}
		pending = append(pending, st)
	}
	for _, st := range pending {
		b.Queue(st.sql, st.args...)
	}
	if add != nil {
		add(&b)
	}
	br := db.conn.SendBatch(ctx, &b)
	if _, err := br.Exec(); err != nil {
		br.Close()
		return err
	}
	if !db.checked {
		if _, err := br.Exec(); err != nil {
			br.Close()
			if !schemaOutdated(err) {
				return err
			}
			if err := db.migrate(ctx); err != nil {
				return err
			}
			db.checked = true
			return db.roundLocked(ctx, write, add, read, relaxed...)
		}
		db.checked = true
	}
	err := func() error {
		for range pending {
			if _, err := br.Exec(); err != nil {
				return err
			}
		}
		if read != nil {
			return read(br)
		}
		return nil
	}()
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		db.pending = kept // db.mu is held: nothing was queued meanwhile
	}
	return err
}

// A DeniedError is a statement the role may not run: it says what an
// administrator must grant.
type DeniedError struct {
	Role   string
	Schema string // guard's schema, as far as the URL says
	Cause  string // the server's message
}

// Is makes a DeniedError store.ErrDenied.
func (e *DeniedError) Is(target error) bool { return target == store.ErrDenied }

func (e *DeniedError) Error() string {
	return fmt.Sprintf("permission denied (%s): an administrator must run 'guard state init --grant %s' (or: %s)", e.Cause, e.Role, strings.Join(Grants(e.Role, e.Schema), " "))
}

// explain words the errors of a round: a lock or statement timeout is
// store.ErrBusy; a round the database did not answer in time says so,
// apart from a lock; a missing right names the grants it needs; and a
// connection that failed, or that a pooler or the server refused or
// closed (pgbouncer's "server login has been failing" while PostgreSQL
// restarts behind it, a server shutting down or starting up), is "cannot
// reach the database at URL: ...", as a failed connect is (faults #11).
func (db *DB) explain(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "55P03", "57014": // lock_not_available, query_canceled (statement_timeout)
			return fmt.Errorf("%s: %w", pe.Message, store.ErrBusy)
		case "42501": // insufficient_privilege
			return &DeniedError{Role: db.cfg.User, Schema: db.schema(), Cause: pe.Message}
		}
		if connectionLost(pe.Code) {
			return db.unreachable(err)
		}
	}
	if ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("the database at %s did not answer within %s: %v", db.where, db.statementTimeout()+db.cfg.ConnectTimeout, err)
	}
	if pe == nil && (db.conn == nil || db.conn.IsClosed()) {
		return db.unreachable(err) // the connection broke, and no new one came
	}
	return err
}

// unreachable words err, a connection that failed, as a failed connect is.
func (db *DB) unreachable(err error) error {
	return fmt.Errorf("cannot reach the database at %s: %w", db.where, unwrapConnect(err))
}

// connectionLost reports whether a server's (or a pooler's) error code
// says the connection to the database failed or was refused: class 08
// (connection exception: pgbouncer's own refusals are 08P01), and the
// server shutting down, crashed, or not yet up (57P01 to 57P03).
func connectionLost(code string) bool {
	return strings.HasPrefix(code, "08") || code == "57P01" || code == "57P02" || code == "57P03"
}

// schema is the schema guard's tables are in, as the URL's search_path
// says: its first, or public.
func (db *DB) schema() string {
	if sp := db.cfg.RuntimeParams["search_path"]; sp != "" {
		return strings.Trim(strings.TrimSpace(strings.Split(sp, ",")[0]), `"`)
	}
	return "public"
}

// now returns the database's time for a decision taken at local: local
// moved by the skew measured on the first round, so that hosts whose
// clocks disagree decide on one clock.
func (db *DB) now(local time.Time) time.Time {
	if db.LocalClock || !db.haveSkew {
		return local
	}
	return time.Now().Add(db.skew)
}

// syncClock measures the skew of the database's clock if no round has yet
// (guard run's peek does; a command that starts with an update, such as
// guard trip, pays one round for it), so that every decision is taken on
// the database's clock.
func (db *DB) syncClock() error {
	if db.haveSkew || db.LocalClock {
		return nil
	}
	sent := time.Now()
	return db.round(func(b *pgx.Batch) { b.Queue(`SELECT now()`) }, func(br pgx.BatchResults) error {
		var now time.Time
		if err := br.QueryRow().Scan(&now); err != nil {
			return err
		}
		db.noteClock(now, sent, time.Now())
		return nil
	}, false)
}

// noteClock takes the skew of the database's clock from a round that read
// now() between sent and received.
func (db *DB) noteClock(dbNow, sent, received time.Time) {
	if db.haveSkew {
		return
	}
	mid := sent.Add(received.Sub(sent) / 2)
	db.skew, db.haveSkew = dbNow.Sub(mid), true
}

// hash is the key of a key's row: keys may be of any length, and a btree
// holds only so much; a hash of 32 bytes it always holds.
func hash(key string) []byte {
	h := sha256.Sum256([]byte(key))
	return h[:]
}

// newID returns an event's id: random, so that no sequence is written by
// every call.
func newID() int64 { return rand.Int64() }

// conflict is the error a compare-and-set raises when the row it expected
// changed: the round's statements are rolled back whole, and the update
// reads the row again.
const conflictMark = "guard-conflict"

// casCheck wraps a statement returning one row per row it changed, so that
// the round fails when it changed none.
func casCheck(cte string) string {
	return `WITH u AS (` + cte + `) SELECT CASE WHEN count(*) = 1 THEN 0 ELSE ('` + conflictMark + ` ' || count(*))::int END FROM u`
}

// isConflict reports whether err is a compare-and-set that found its row
// changed, or an insert that found it already there.
func isConflict(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "22P02" && strings.Contains(pe.Message, conflictMark)
}

// isDuplicateEvent reports whether err is the insert of an event that is
// already there: a round that was sent again after its connection broke,
// and had been committed the first time.
func isDuplicateEvent(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505" && pe.TableName == "guard_events"
}

// hostname is this host, for the rows of runs.
func hostname() string {
	h, _ := os.Hostname()
	return h
}

// withHost gives e this host's name if it names none (store.Options.Host).
func (db *DB) withHost(e store.Event) store.Event {
	if e.Host == "" {
		e.Host = db.host
	}
	return e
}
