package statefile

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLockServesWaitersInTurn: processes that wait for the state lock are
// served in the order they came, each as soon as the one before lets go,
// not whichever happens to poll at the right moment (performance-2 D1,
// faults #5: polled with naps of up to 10 ms, 64 callers lost outcomes
// after waiting out lock_timeout while others came and went). Each waiter
// is seen queued in the kernel (/proc/locks) before the next one starts;
// a waiter that polls never is.
func TestLockServesWaitersInTurn(t *testing.T) {
	const waiters = 8
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	order := filepath.Join(dir, "order")
	holder := open(t, path)
	unlock, err := holder.Lock()
	if err != nil {
		t.Fatal(err)
	}
	var st syscall.Stat_t
	if err := syscall.Stat(holder.LockPath(), &st); err != nil {
		t.Fatal(err)
	}
	var cmds []*exec.Cmd
	var pids []int
	defer func() {
		for _, c := range cmds {
			c.Process.Kill()
			c.Wait()
		}
	}()
	for i := range waiters {
		cmd := exec.Command(os.Args[0], "-test.run=^TestChildWaitsInTurn$")
		cmd.Env = append(os.Environ(), "STATEFILE_TURN_PATH="+path, "STATEFILE_TURN_ORDER="+order, "STATEFILE_TURN_ID="+strconv.Itoa(i))
		out := new(strings.Builder)
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
		pids = append(pids, cmd.Process.Pid)
		// The next waiter starts once this one waits in the kernel's queue
		// (a slow machine only makes this wait longer).
		for start := time.Now(); blockedOn(t, st.Ino, pids...) < i+1; time.Sleep(5 * time.Millisecond) {
			if time.Since(start) > 2*time.Minute {
				t.Fatalf("waiter %d never queued for the lock in the kernel (/proc/locks shows %d blocked)", i, blockedOn(t, st.Ino, pids...))
			}
		}
	}
	unlock()
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Errorf("waiter %d: %v\n%s", i, err, c.Stdout)
		}
	}
	cmds = nil
	data, err := os.ReadFile(order)
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for i := range waiters {
		fmt.Fprintln(&want, i)
	}
	if got := string(data); got != want.String() {
		t.Errorf("the waiters got the lock in the order\n%s; want the order they came in\n%s", got, want.String())
	}
}

// TestLockGivenUpIsReleased: a wait that timed out leaves its waiter in the
// kernel's queue, and when that waiter gets the lock later it lets go at
// once: a lock won after giving up must not be held while the caller goes
// on (guard run runs its command unguarded), nor keep the next in line out.
func TestLockGivenUpIsReleased(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	holder := open(t, path)
	unlock, err := holder.Lock()
	if err != nil {
		t.Fatal(err)
	}
	var st syscall.Stat_t
	if err := syscall.Stat(holder.LockPath(), &st); err != nil {
		t.Fatal(err)
	}
	f, _ := Open(path, Options{LockTimeout: 20 * time.Millisecond})
	if _, err := f.Lock(); !errors.Is(err, ErrLockTimeout) {
		t.Fatalf("Lock while held = %v; want ErrLockTimeout", err)
	}
	// The waiter given up on is still queued; a second waiter queues
	// behind it, and gets the lock once the first has had it and let go
	// (it waits a minute at most, which only a lock kept would use up).
	third, _ := Open(path, Options{LockTimeout: time.Minute})
	got := make(chan error, 1)
	go func() {
		unlock, err := third.Lock()
		if err == nil {
			unlock()
		}
		got <- err
	}()
	for start := time.Now(); blockedOn(t, st.Ino, os.Getpid()) < 2; time.Sleep(5 * time.Millisecond) {
		if time.Since(start) > 2*time.Minute {
			t.Fatalf("/proc/locks shows %d waiters; want the one given up on and the next", blockedOn(t, st.Ino, os.Getpid()))
		}
	}
	unlock()
	if err := <-got; err != nil {
		t.Fatalf("Lock behind a wait given up on = %v; want the lock", err)
	}
}

// TestChildWaitsInTurn is a waiter of TestLockServesWaitersInTurn: it
// takes the lock and writes its number to the order file.
func TestChildWaitsInTurn(t *testing.T) {
	path := os.Getenv("STATEFILE_TURN_PATH")
	if path == "" {
		t.Skip("run by TestLockServesWaitersInTurn")
	}
	// The first waiter waits while every other one starts and queues,
	// which on a busy machine (a load of hundreds) took minutes: its wait
	// is bounded by go test's timeout, not by a guess at the machine's
	// speed (a lock timeout here made it give up, and the order lacked it).
	f, err := Open(path, Options{LockTimeout: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	unlock, err := f.Lock()
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	o, err := os.OpenFile(os.Getenv("STATEFILE_TURN_ORDER"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	if _, err := fmt.Fprintln(o, os.Getenv("STATEFILE_TURN_ID")); err != nil {
		t.Fatal(err)
	}
}

// blockedOn counts the processes of pids that /proc/locks shows blocked on
// a lock of the file with inode ino. It counts only those processes: a
// file of another filesystem may have the same inode number (/proc/locks
// names the device too, but a stat of a file on an overlay may not give
// the device its locks show), and on a busy machine another process may
// be blocked on a lock of one, which counted would let the next waiter
// start before this one queued.
func blockedOn(t *testing.T, ino uint64, pids ...int) int {
	t.Helper()
	f, err := os.Open("/proc/locks")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	suffix := ":" + strconv.FormatUint(ino, 10)
	n := 0
	lines := bufio.NewScanner(f)
	for lines.Scan() {
		// 1: -> FLOCK  ADVISORY  WRITE 1235 fd:01:5678 0 EOF
		fields := strings.Fields(lines.Text())
		if len(fields) < 7 || fields[1] != "->" {
			continue
		}
		pid, err := strconv.Atoi(fields[5])
		if err != nil || !slices.Contains(pids, pid) {
			continue
		}
		if f := fields[6]; strings.HasSuffix(f, suffix) && strings.Count(f, ":") == 2 {
			n++
		}
	}
	return n
}
