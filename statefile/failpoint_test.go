//go:build failpoints && unix

package statefile

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"guard/internal/jsonx"
)

// TestCrashAtEveryStepLeavesOldOrNew stops a writer with SIGKILL at each
// step of an update in turn. Whatever the step, the file is then the old
// version or the new one, byte for byte, the lock is free, and the next
// update finds what it should and leaves no temp file behind.
func TestCrashAtEveryStepLeavesOldOrNew(t *testing.T) {
	crashAtEveryStep(t, Failpoints, "")
}

// TestCrashAtEveryStepOfARelaxedUpdate: the same for the cheaper write of
// a relaxed update, which skips the directory's fsync.
func TestCrashAtEveryStepOfARelaxedUpdate(t *testing.T) {
	crashAtEveryStep(t, RelaxedFailpoints, "1")
}

func crashAtEveryStep(t *testing.T, steps []string, relaxed string) {
	for _, step := range steps {
		t.Run(step, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "state.json")
			f := open(t, path)
			if err := Update(f, increment); err != nil {
				t.Fatal(err)
			}
			old, _ := os.ReadFile(path)
			want, _ := jsonx.MarshalDocument(&counter{N: 2})

			cmd := exec.Command(os.Args[0], "-test.run=^TestChildIncrements$")
			cmd.Env = append(os.Environ(), "STATEFILE_CHILD_PATH="+path, "STATEFILE_CHILD_N=1", "GUARD_FAILPOINT="+step, "STATEFILE_CHILD_RELAXED="+relaxed)
			err := cmd.Run()
			var xe *exec.ExitError
			if !errors.As(err, &xe) || xe.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
				t.Fatalf("child was not stopped at %s: %v", step, err)
			}

			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			renamed := slices.Index(steps, step) >= slices.Index(steps, "after-rename")
			switch {
			case renamed && !bytes.Equal(got, want):
				t.Fatalf("after %s the file is\n%s\nwant the new version\n%s", step, got, want)
			case !renamed && !bytes.Equal(got, old):
				t.Fatalf("after %s the file is\n%s\nwant the old version\n%s", step, got, old)
			}

			f.opts.LockTimeout = 5 * time.Second // the kernel freed the dead writer's lock
			if err := Update(f, increment); err != nil {
				t.Fatalf("update after the crash: %v", err)
			}
			n := 2
			if renamed {
				n = 3
			}
			if c := readCounter(t, path); c.N != n {
				t.Errorf("n = %d; want %d", c.N, n)
			}
			if tmps, _ := filepath.Glob(filepath.Join(dir, ".state.json.tmp*")); len(tmps) != 0 {
				t.Errorf("temp files left behind: %v", tmps)
			}
		})
	}
}
