// Package earlysig starts guard run's signal subscription while the rest of
// the program is still being set up, and holds the one list of the signals
// guard passes on to its child.
//
// Subscribing to a signal takes a round trip to the Go runtime's signal
// thread, a few hundred microseconds for the four signals guard run passes
// on; guard run waits for it before it takes a lock, a lease or a slot,
// and before it starts the child (a closed circuit's lock-free read goes on
// meanwhile). A package's init
// runs as soon as the packages it imports are set up, and this one imports
// only os and os/signal, so it starts the subscription before the larger
// packages (YAML, the command-line parser) spend their own set-up time.
package earlysig

import (
	"os"
	"os/signal"
	"syscall"
)

// Signals are the signals guard passes on to its child.
var Signals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}

var (
	ch    chan os.Signal
	ready chan struct{}
)

func init() {
	if len(os.Args) > 1 && os.Args[1] == "run" {
		Start()
	}
}

// Start subscribes to Signals in the background, once.
func Start() {
	if ch == nil {
		ch, ready = Subscribe()
	}
}

// Get returns the channel the signals arrive on, and one that is closed
// once the subscription is in place. Start must have been called.
func Get() (chan os.Signal, chan struct{}) { return ch, ready }

// Subscribe subscribes a new channel to Signals in the background, and
// returns it with one that is closed once the subscription is in place.
func Subscribe() (chan os.Signal, chan struct{}) {
	c := make(chan os.Signal, 4)
	done := make(chan struct{})
	go func() {
		signal.Notify(c, Signals...)
		// Not SIGPIPE, though a reader of guard's stderr that goes away
		// (guard run ... 2>&1 | head -1) must not kill guard before it
		// records the run: guard run writes through duplicates of its
		// stdout and stderr instead (guardrun's unbroken), which saves a
		// round trip to the runtime's signal thread.
		close(done)
	}()
	return c, done
}
