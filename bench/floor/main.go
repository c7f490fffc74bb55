// Command floor is the baseline guard's run is measured against: the least
// a program can do and still do guard's job on a closed circuit. It reads a
// state file, runs the command, then takes the state lock and does one
// durable read-modify-write of a small JSON document.
//
// Usage: floor STATE CMD [ARG...]
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/gofrs/flock"
)

func main() {
	if err := run(os.Args[1], os.Args[2:]); err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
}

func run(state string, argv []string) error {
	var doc map[string]any
	if data, err := os.ReadFile(state); err == nil {
		if err := json.Unmarshal(data, &doc); err != nil {
			return err
		}
	}

	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	runErr := cmd.Run()

	lock := flock.New(state+".lock", flock.SetFlag(os.O_CREATE|os.O_RDWR))
	if err := lock.Lock(); err != nil {
		return err
	}
	defer lock.Unlock()
	doc = map[string]any{}
	if data, err := os.ReadFile(state); err == nil {
		if err := json.Unmarshal(data, &doc); err != nil {
			return err
		}
	}
	n, _ := doc["runs"].(float64)
	doc["runs"] = n + 1
	doc["last_ok"] = runErr == nil
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(state), ".floor-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(out); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), state); err != nil {
		return err
	}
	dir, err := os.Open(filepath.Dir(state))
	if err != nil {
		return err
	}
	defer dir.Close()
	return dir.Sync()
}
