//go:build windows

package guardrun

import (
	"os"
	"os/signal"

	"golang.org/x/sys/windows"

	"guard/internal/supervise"
)

// replaceProcess does on Windows what execve(2) does elsewhere, as far as
// Windows can: it has no exec, so it starts argv0 with guard's streams and
// the environment envv, waits for it, and exits with its exit status. A
// Ctrl-C or Ctrl-Break reaches both (the console sends it to every process
// attached to it), so guard ignores it and goes on waiting for the command
// to end. Whatever ends guard ends the command too, as it would end the
// one process that exec leaves (see dieWithGuard); once the command has
// ended on its own, what it left running on purpose (a hook's background
// process, with kill_background off) lives on, as it does after an exec.
// It returns only if the command cannot be started. (Unlike exec, the
// command has a pid of its own.)
func replaceProcess(argv0 string, argv []string, envv []string) error {
	job := dieWithGuard()
	p, err := os.StartProcess(argv0, argv, &os.ProcAttr{Env: envv, Files: []*os.File{os.Stdin, os.Stdout, os.Stderr}})
	if err != nil {
		return err
	}
	signal.Ignore(os.Interrupt)
	st, err := p.Wait()
	if err != nil {
		os.Exit(1)
	}
	if job != 0 {
		// guard's exit closes the job: it must no longer end what is in it.
		_ = supervise.SetJobLimits(job, windows.JOB_OBJECT_LIMIT_BREAKAWAY_OK)
	}
	os.Exit(st.ExitCode())
	return nil
}

// dieWithGuard puts guard in a job object of its own that ends every
// process in it when its last handle closes (JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE),
// and returns the job (0 if it could not). guard holds the only handle,
// and keeps it open for its life, so its death, however it comes (Claude
// Code ending it at a hook's timeout, say), ends the command it hands over
// to, which is started in the job after this, and what that command
// started. guard-pg then runs a hook in a job of its own, inside this one
// (Windows 8 and later nest jobs). A process may leave the job on purpose
// (CREATE_BREAKAWAY_FROM_JOB), as the jobs of internal/supervise allow.
// Best effort: where guard cannot be put in a job, the command runs on if
// guard is killed.
func dieWithGuard() windows.Handle {
	job := supervise.NewJob() // not inherited
	if job == 0 {
		return 0
	}
	if windows.AssignProcessToJobObject(job, windows.CurrentProcess()) != nil {
		windows.CloseHandle(job)
		return 0
	}
	return job
}
