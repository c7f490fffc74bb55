package notify

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"
)

// A Transition is one change of state of a key's circuit, as the
// on_state_change command sees it (GUARD_KEY, GUARD_FROM, GUARD_TO,
// GUARD_REASON, GUARD_TIME, GUARD_UNTIL).
type Transition struct {
	Key    string    `json:"key"`
	From   string    `json:"from"`
	To     string    `json:"to"`
	Reason string    `json:"reason,omitempty"`
	Time   time.Time `json:"time"`
	Until  string    `json:"until,omitempty"` // RFC 3339: when an open circuit may probe again
}

// Env returns the variables the command gets for t, to add to the
// caller's environment.
func (t Transition) Env() []string {
	return []string{
		"GUARD_KEY=" + t.Key,
		"GUARD_FROM=" + t.From,
		"GUARD_TO=" + t.To,
		"GUARD_REASON=" + t.Reason,
		"GUARD_TIME=" + t.Time.UTC().Format(time.RFC3339),
		"GUARD_UNTIL=" + t.Until,
	}
}

// Encode writes t as the helper's argument.
func (t Transition) Encode() string {
	b, _ := json.Marshal(t)
	return string(b)
}

// Decode reads a helper's argument.
func Decode(arg string) (Transition, error) {
	var t Transition
	if err := json.Unmarshal([]byte(arg), &t); err != nil {
		return t, fmt.Errorf("reading a transition: %w", err)
	}
	if t.Key == "" && t.From == "" && t.To == "" {
		return t, errors.New("reading a transition: it names no state")
	}
	return t, nil
}

// A Helper is how to run guard's helper: the program (Path) and the
// arguments before the transitions (Args, from the program's name on:
// guard's hidden command, its flags, "--" and the command to run).
type Helper struct {
	Path string
	Args []string
	Env  []string // nil: the caller's environment
}

// Start starts h detached, with the transitions ts as its last arguments,
// and does not wait for it: the helper outlives the caller, with no stream
// of the caller's (stdin, stdout and stderr are the null device), in a
// session (Unix) or detached process group (Windows) of its own. Start
// returns once the helper has been started, or why it could not be.
func Start(h Helper, ts []Transition) error {
	if len(ts) == 0 {
		return nil
	}
	args := append([]string{}, h.Args...)
	for _, t := range ts {
		args = append(args, t.Encode())
	}
	path := h.Path
	if path == "" {
		var err error
		if path, err = os.Executable(); err != nil {
			return fmt.Errorf("starting on_state_change: %w", err)
		}
	}
	cmd := &exec.Cmd{Path: path, Args: args, Env: h.Env, SysProcAttr: detached()}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting on_state_change: %w", err)
	}
	// Not waited for: once guard exits, init reaps it.
	return cmd.Process.Release()
}
