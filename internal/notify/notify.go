package notify

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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

// Encode writes t as one line of the helper's input (JSON escapes every
// newline in it), or as one of its arguments.
func (t Transition) Encode() string {
	b, _ := json.Marshal(t)
	return string(b)
}

// Decode reads one transition written by Encode.
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

// A Helper is how to run guard's helper: the program (Path) and its
// arguments (Args, from the program's name on: guard's hidden command, its
// flags, "--" and the command to run).
type Helper struct {
	Path string
	Args []string
	Env  []string // nil: the caller's environment
}

// handOverTimeout bounds how long Start waits for the helper to take the
// transitions. Those of one call fit in the pipe's buffer (64KiB on Linux)
// and are not waited for at all; a flood (a reset --all of thousands of
// keys) is read by the helper first thing, as fast as it is written.
const handOverTimeout = 5 * time.Second

// Start starts h detached, hands it the transitions ts on its stdin, one
// JSON object a line (ReadAll reads them), and does not wait for it: the
// helper outlives the caller, with no stream of the caller's (stdin is a
// pipe of its own, stdout and stderr the null device), in a session
// (Unix) or detached process group (Windows) of its own. Start returns
// once the helper has been started and has the transitions, or why not.
//
// The transitions go on stdin, not the command line, which the kernel
// caps (ARG_MAX: about 2MB with the environment, on Linux): a flood of
// them would keep the helper from starting at all.
func Start(h Helper, ts []Transition) error {
	if len(ts) == 0 {
		return nil
	}
	var lines []byte
	for _, t := range ts {
		lines = append(append(lines, t.Encode()...), '\n')
	}
	path := h.Path
	if path == "" {
		var err error
		if path, err = os.Executable(); err != nil {
			return fmt.Errorf("starting on_state_change: %w", err)
		}
	}
	r, w, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("starting on_state_change: %w", err)
	}
	cmd := &exec.Cmd{Path: path, Args: h.Args, Env: h.Env, Stdin: r, SysProcAttr: detached()}
	err = cmd.Start()
	r.Close()
	if err != nil {
		w.Close()
		return fmt.Errorf("starting on_state_change: %w", err)
	}
	// Not waited for: once guard exits, init reaps it.
	cmd.Process.Release()
	_ = w.SetWriteDeadline(time.Now().Add(handOverTimeout)) // a pipe that takes no deadline (Windows) is written whole
	_, err = w.Write(lines)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("handing the transitions to on_state_change: %w", err)
	}
	return nil
}

// ReadAll reads the transitions Start hands a helper, one JSON object a
// line. A line that does not decode (the end of a hand-over cut short)
// is skipped and counted in bad.
func ReadAll(r io.Reader) (ts []Transition, bad int, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		if len(sc.Bytes()) == 0 {
			continue
		}
		t, err := Decode(sc.Text())
		if err != nil {
			bad++
			continue
		}
		ts = append(ts, t)
	}
	return ts, bad, sc.Err()
}
