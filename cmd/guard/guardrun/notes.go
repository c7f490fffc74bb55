package guardrun

import (
	"errors"
	"fmt"
	"time"

	"guard/breaker"
	"guard/config"
	"guard/internal/circuit"
	"guard/internal/notify"
	"guard/internal/store"
	"guard/internal/view"
)

// NotifyCommand is the hidden command that runs on_state_change
// commands, detached from the guard that saw the transitions.
const NotifyCommand = "notify-state-change"

// A Notes gathers the transitions a command made, for the on_state_change
// commands of their keys: started once the state that holds them is
// written, all at once, one helper per command so that each sees its
// transitions in order.
type Notes struct {
	order []noteCommand
	ts    map[noteCommand][]notify.Transition
}

// A noteCommand is an on_state_change command with its timeout.
type noteCommand struct {
	command string
	timeout time.Duration
}

// Note adds the transitions among evs of key's circuit (now c), for b's
// on_state_change. A transition to the state it came from (a reset of a
// closed circuit) is none.
func (n *Notes) Note(b config.Breaker, key string, c breaker.Circuit, evs []breaker.Event, now time.Time) {
	if b.OnStateChange == "" {
		return
	}
	nc := noteCommand{b.OnStateChange, b.OnStateChangeTimeout}
	for _, ev := range evs {
		if ev.Kind != breaker.Transition || ev.From == ev.To {
			continue
		}
		t := notify.Transition{Key: key, From: string(ev.From), To: string(ev.To), Reason: ev.Reason, Time: now}
		if ev.To == breaker.Open && !c.RetryAfter.IsZero() {
			t.Until = store.Stamp(c.RetryAfter)
		}
		if n.ts == nil {
			n.ts = map[noteCommand][]notify.Transition{}
		}
		if _, ok := n.ts[nc]; !ok {
			n.order = append(n.order, nc)
		}
		n.ts[nc] = append(n.ts[nc], t)
	}
}

// NoteFor is note, with the settings of key from cfg.
func (n *Notes) NoteFor(cfg *config.Config, key string, c breaker.Circuit, evs []breaker.Event, now time.Time) {
	if cfg == nil {
		return
	}
	n.Note(cfg.For(circuit.RuleKey(key)), key, c, evs, now)
}

// StartNotes starts the helpers for the transitions n gathered, detached,
// and forgets them. The helper is this very program (guard, guard-pg or
// guard-web, whichever reads the state), told where the state is: the
// config file this command read, and its state location (GUARD_STATE,
// which the command sees too). A helper that
// cannot be started is a warning and an event, never the call's failure.
func (e *Env) StartNotes(n *Notes, cfg *config.Config, hooks *store.Hooks) {
	if n == nil || len(n.order) == 0 || cfg == nil {
		return
	}
	name := "guard"
	if len(e.Args) > 0 && e.Args[0] != "" {
		name = e.Args[0]
	}
	// The state goes in the environment, not on the command line, where
	// anyone may read a database URL's password.
	env := append(e.Environ(), "GUARD_STATE="+cfg.StateFile)
	// The guard binary has no notify-state-change of its own: the helper
	// is guard-cli (which this program would hand it over to anyway).
	path, whyNot := "", ""
	if e.lean {
		if path, whyNot = e.FindCompanion(cliCompanion); path == "" {
			if whyNot == "" {
				whyNot = "there is no guard-cli beside guard or on PATH; install it with make install (or go install ./cmd/...)"
			}
			whyNot = "guard-cli not used: " + whyNot
		}
	}
	for _, nc := range n.order {
		args := []string{name, NotifyCommand, "--timeout", nc.timeout.String()}
		if cfg.Source != "" && cfg.Source != config.Default("").Source && cfg.Source != config.StdinSource {
			args = append(args, "--config", cfg.Source)
		}
		args = append(args, "--", nc.command)
		ts := n.ts[nc]
		err := errors.New(whyNot)
		if whyNot == "" {
			err = notify.Start(notify.Helper{Path: path, Args: args, Env: env}, ts) // the transitions go on its stdin
		}
		if err == nil {
			continue
		}
		e.Warnf("on_state_change for %s not run: %v", circuit.KeyWord(ts[0].Key), view.ErrorLine(err))
		if hooks == nil {
			continue
		}
		if a, ok := hooks.Events.(store.Appender); ok {
			for _, t := range ts {
				_ = a.Append(store.Event{Time: e.Now(), Event: store.EventNotify, Key: t.Key, From: t.From, To: t.To, Reason: t.Reason,
					Outcome: string(breaker.Failure), Error: fmt.Sprintf("not started: %v", err)})
			}
		}
	}
	n.order, n.ts = nil, nil
}
