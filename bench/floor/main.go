// Command floor is the like-for-like floor guard's closed call is measured
// against: the least a program can do and still do guard's job on a closed
// circuit, with the same lock, read-modify-write and durability. It reads
// the state (without the lock, as guard's look before a run does), runs
// the command through os/exec, then takes the state's lock and updates the
// document in one locked read-modify-write, through package statefile as
// guard does, and so with guard's durability on the filesystem at hand: a
// healthy run's counters are a relaxed write (no directory fsync, and no
// file fsync where the filesystem orders a replacing rename after the
// data, as ext4 with its defaults does; see statefile). The document is
// decoded whole with encoding/json, where guard reads and writes one key.
//
// Usage: floor STATE CMD [ARG...]
package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"

	"guard/statefile"
)

// doc is the state, decoded whole.
type doc map[string]any

// Relaxed says that a closed, healthy run's update is a relaxed one, as
// guard's is (statefile.Relaxer).
func (doc) Relaxed() bool { return true }

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: floor STATE CMD [ARG...]")
		os.Exit(64)
	}
	code, err := run(os.Args[1], os.Args[2:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
	os.Exit(code)
}

func run(state string, argv []string) (int, error) {
	f, err := statefile.Open(state, statefile.Options{})
	if err != nil {
		return 0, err
	}
	var before doc
	if _, err := statefile.Load(f, &before); err != nil {
		return 0, err
	}
	if open, _ := before["open"].(bool); open {
		return 0, nil // an open circuit: skip
	}

	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	runErr := cmd.Run()
	code := 0
	var exit *exec.ExitError
	switch {
	case errors.As(runErr, &exit):
		code = exit.ExitCode()
	case runErr != nil:
		code = 127
	}

	return code, statefile.Update(f, func(d *doc) (bool, error) {
		if *d == nil {
			*d = doc{}
		}
		stats, _ := (*d)["global_stats"].(map[string]any)
		if stats == nil {
			stats = map[string]any{}
			(*d)["global_stats"] = stats
		}
		n, _ := stats["total_executions"].(float64)
		stats["total_executions"] = n + 1
		stats["last_ok"] = code == 0
		return true, nil
	})
}
