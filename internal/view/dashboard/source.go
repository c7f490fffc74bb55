package dashboard

import (
	"io"
	"time"

	"guard/config"
	"guard/internal/store"
)

// A Source is a state the dashboard reads, as the CLI opened it.
type Source struct {
	Config *config.Config
	Hooks  *store.Hooks
	// Cooldown opens the cooldown state: nil and no error while there is
	// none.
	Cooldown func() (*store.Cooldown, error)
	// Events is the event log of both states (store.AllEvents).
	Events store.Events
	// Alive tells whether a holder of a lease or a slot is alive.
	Alive func(store.Holder) bool
	// Fingerprint returns a token that changes whenever the state does,
	// even in ways the event log does not tell (an import, an edit, old
	// keys pruned); nil if there is no cheap one (a database), and then
	// the whole state is read again every Resync.
	Fingerprint func() string
	// Status writes the 'guard status --json' document, and Metrics the
	// Prometheus report ('guard report --format prometheus'), for
	// /api/status and /metrics.
	Status  func(w io.Writer) error
	Metrics func(w io.Writer) error
}

// Window is how far back the timelines, run times and hosts look.
const Window = 7 * 24 * time.Hour

// Resync is how often a state with no Fingerprint is read whole.
const Resync = 30 * time.Second

// peekLimit is how many keys a refresh reads one by one (Peek) before it
// reads the whole state instead.
const peekLimit = 16

// ServeOptions are how 'guard serve' runs.
type ServeOptions struct {
	// Listen is the address to listen on (host:port); port 0 picks one.
	Listen string
	// Interval is how often the state is looked at for changes.
	Interval time.Duration
	// Now reads the clock.
	Now func() time.Time
	// Ready hears the page's URL once the server listens.
	Ready func(url string)
	// Warn prints a warning, once per text.
	Warn func(format string, args ...any)
}
