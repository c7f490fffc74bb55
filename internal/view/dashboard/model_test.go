package dashboard_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"guard/breaker"
	"guard/config"
	"guard/internal/circuit"
	"guard/internal/store"
	"guard/internal/store/file"
	"guard/internal/view/dashboard"
)

// counted counts the reads of a store.Circuits.
type counted struct {
	store.Circuits
	peeks, snapshots int
}

func (c *counted) Peek(key string) (breaker.Circuit, error) {
	c.peeks++
	return c.Circuits.Peek(key)
}

func (c *counted) Snapshot() (store.CircuitView, error) {
	c.snapshots++
	return c.Circuits.Snapshot()
}

// fixture is a state file and the Source of its dashboard.
type fixture struct {
	t     *testing.T
	cfg   *config.Config
	hooks *store.Hooks
	reads *counted
}

func newFixture(t *testing.T) *fixture {
	dir := t.TempDir()
	cfg := config.Default(dir)
	cfg.StateFile = filepath.Join(dir, "state.json")
	cfg.Cooldown.StateFile = filepath.Join(dir, "cooldown.json")
	hooks, err := file.OpenHooks(cfg, cfg.StateFile, store.Options{Host: "h1"})
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{t: t, cfg: cfg, hooks: hooks, reads: &counted{Circuits: hooks.Circuits}}
}

func (f *fixture) source() *dashboard.Source {
	h := *f.hooks
	h.Circuits = f.reads
	return &dashboard.Source{
		Config: f.cfg, Hooks: &h, Events: f.hooks.Events,
		Alive: func(store.Holder) bool { return false },
		Fingerprint: func() string {
			fi, err := os.Stat(f.cfg.StateFile)
			if err != nil {
				return ""
			}
			return fmt.Sprint(fi.Size(), fi.ModTime().UnixNano())
		},
	}
}

func (f *fixture) run(key string, now time.Time, failed bool) {
	f.t.Helper()
	r := breaker.Result{Outcome: breaker.Success}
	exit := 0
	if failed {
		r, exit = breaker.Result{Outcome: breaker.Failure, Error: "exit 1: boom"}, 1
	}
	s := f.cfg.For(key)
	err := f.hooks.Circuits.Update(now, func(tx store.CircuitTx) (bool, error) {
		_, err := circuit.Record(tx, key, s.Settings(key), now, r, circuit.Run{Exit: exit, Duration: 40 * time.Millisecond})
		return true, err
	})
	if err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) trip(key string, now time.Time) {
	f.t.Helper()
	err := f.hooks.Circuits.Update(now, func(tx store.CircuitTx) (bool, error) {
		_, err := circuit.Trip(tx, key, now, 0, "by hand")
		return true, err
	})
	if err != nil {
		f.t.Fatal(err)
	}
}

// normal is a page without what depends on the order keys were met in.
func normal(p dashboard.Page) dashboard.Page {
	p.Version = 0
	for i := range p.Tiles {
		p.Tiles[i].ID = ""
	}
	for i := range p.RunTimes {
		p.RunTimes[i].ID = ""
	}
	return p
}

// TestRefreshFollowsTheState holds a Model refreshed step by step to one
// read afresh at each step, and checks that a refresh reads only the
// circuits the log names, and that its Delta carries only what changed.
func TestRefreshFollowsTheState(t *testing.T) {
	f := newFixture(t)
	t0 := time.Date(2026, 3, 2, 9, 10, 0, 0, time.UTC)
	f.run("lint", t0, false)
	f.run("fmt", t0, false)
	m, err := dashboard.New(f.source(), t0)
	if err != nil {
		t.Fatal(err)
	}
	type step struct {
		name    string
		at      time.Duration // after t0
		do      func(now time.Time)
		changed []string // the tiles the Delta carries
		full    bool     // or: the page is fetched whole
		peeks   int      // the circuits read one by one
	}
	steps := []step{
		{name: "nothing happened", at: time.Second, do: func(time.Time) {}},
		{name: "lint failed", at: 2 * time.Second, do: func(now time.Time) { f.run("lint", now, true) }, changed: []string{"lint"}, peeks: 1},
		{name: "lint opened", at: 3 * time.Second, do: func(now time.Time) {
			f.run("lint", now, true)
			f.run("lint", now, true)
		}, changed: []string{"lint"}, peeks: 1},
		{name: "a new key, tripped", at: 4 * time.Second, do: func(now time.Time) { f.trip("deploy", now) }, changed: []string{"deploy"}, peeks: 1},
		// (and every sparkline of the last hours moved along)
		{name: "lint's retry time came", at: 10 * time.Minute, do: func(time.Time) {}, changed: []string{"lint", "deploy", "fmt"}},
		{name: "the next hour: every timeline moves", at: time.Hour, do: func(now time.Time) { f.run("fmt", now, false) }, full: true, peeks: 1},
		{name: "fmt ran", at: time.Hour + time.Second, do: func(now time.Time) { f.run("fmt", now, false) }, changed: []string{"fmt"}, peeks: 1},
		{name: "eight days on: the window is empty", at: 8 * 24 * time.Hour, do: func(time.Time) {}, full: true},
	}
	for i, s := range steps {
		now := t0.Add(s.at)
		s.do(now)
		before := m.Version()
		peeks, snaps := f.reads.peeks, f.reads.snapshots
		if _, err := m.Refresh(now); err != nil {
			t.Fatalf("step %d (%s): %v", i, s.name, err)
		}
		if got := f.reads.peeks - peeks; got != s.peeks || f.reads.snapshots != snaps {
			t.Errorf("step %d (%s): %d peeks, %d snapshots; want %d and none", i, s.name, got, f.reads.snapshots-snaps, s.peeks)
		}
		d := m.Changes(before)
		var tiles []string
		for _, tl := range d.Tiles {
			tiles = append(tiles, tl.Key)
		}
		if d.Full != s.full || !reflect.DeepEqual(tiles, s.changed) {
			t.Errorf("step %d (%s): the delta has %q (full: %v); want %q (full: %v)", i, s.name, tiles, d.Full, s.changed, s.full)
		}
		fresh, err := dashboard.New(f.source(), now)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := normal(m.Page()), normal(fresh.Page()); !reflect.DeepEqual(got, want) {
			t.Errorf("step %d (%s): refreshed page differs from a fresh one:\n got %+v\nwant %+v", i, s.name, got.Tiles, want.Tiles)
		}
	}
}
