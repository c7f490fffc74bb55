package supervise

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// On Windows the child runs in a job object that ends every process in it
// when its last handle closes (JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE): guard
// holds the only one, so guard's death, however it comes, ends the child
// and everything it started. The child is created suspended and assigned
// to the job before it runs, so nothing it starts escapes the job. There
// are no signals: Ctrl-Break (CTRL_BREAK_EVENT, to the child's process
// group of its own) stands for SIGTERM, and TerminateJobObject for SIGKILL.
// A process the child starts with CREATE_BREAKAWAY_FROM_JOB leaves the
// job (it is allowed to), as a Unix daemon leaves with setsid.

// childSys is the child's job object (0: guard could not make one, and
// only the child itself is stopped) and its process handle.
type childSys struct {
	job     windows.Handle
	process windows.Handle
}

// The words killBackground reports with.
const (
	terminateWord = "CTRL_BREAK_EVENT"
	killWord      = "TerminateJobObject"
)

// startChild starts spec's command with stderr as its stderr, in a job
// object of its own and a process group of its own (for Ctrl-Break).
func startChild(spec Spec, stderr *os.File) (*child, error) {
	path, err := lookPath(spec.Argv[0])
	if err != nil {
		return nil, err
	}
	env := spec.Env
	if env == nil {
		env = os.Environ()
	}
	c := &child{done: make(chan exitStatus, 1)}
	stdin, stdout, closeAfter, err := childFiles(spec, c)
	if err != nil {
		c.closeAll(closeAfter, true)
		return nil, err
	}
	job := NewJob()
	pid, h, err := syscall.StartProcess(path, spec.Argv, &syscall.ProcAttr{
		Env:   env,
		Files: []uintptr{stdin.Fd(), stdout.Fd(), stderr.Fd()},
		Sys: &syscall.SysProcAttr{
			CreationFlags: windows.CREATE_SUSPENDED | windows.CREATE_NEW_PROCESS_GROUP,
			CmdLine:       cmdLine(path, spec.Argv, env),
		},
	})
	c.closeAll(closeAfter, err != nil)
	if err != nil {
		if job != 0 {
			windows.CloseHandle(job)
		}
		return nil, &fs.PathError{Op: "fork/exec", Path: path, Err: err}
	}
	c.pid, c.sys.process = pid, windows.Handle(h)
	if job != 0 && windows.AssignProcessToJobObject(job, c.sys.process) != nil {
		windows.CloseHandle(job) // guard's own job forbids it: the child alone
		job = 0
	}
	c.sys.job = job
	if err := resume(uint32(pid)); err != nil {
		_ = windows.TerminateProcess(c.sys.process, 1)
		c.release()
		return nil, &fs.PathError{Op: "resume", Path: path, Err: err}
	}
	go func() { c.done <- waitProcess(c.sys.process) }()
	return c, nil
}

// cmdLine returns the command line for a program of the MSYS2 or Cygwin
// runtime (Git Bash's bash and sh), written as it splits one
// (posixCmdLine, cmdline.go), when an argument needs it; "" for any other
// program, whose command line syscall.StartProcess writes.
func cmdLine(path string, argv, env []string) string {
	if !posixQuoted(argv[1:]) {
		return ""
	}
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	dll := posixRuntime(f)
	f.Close()
	if dll == "" && gitLauncher(path) {
		dll = msysDLL
	}
	if dll == "" {
		return ""
	}
	return posixCmdLine(argv, runtimeGlobs(dll, env))
}

// gitLauncher reports whether path is Git for Windows' bin\bash.exe or
// bin\sh.exe, a Windows program that starts usr\bin's (MSYS2's) with the
// rest of its own command line as it is.
func gitLauncher(path string) bool {
	name := strings.ToLower(filepath.Base(path))
	if name != "bash.exe" && name != "sh.exe" {
		return false
	}
	_, err := os.Stat(filepath.Join(filepath.Dir(path), "..", "usr", "bin", msysDLL))
	return err == nil
}

// withExt returns path with the extension Windows finds it by, as a shell
// or Node's spawn does (C:/tools/lint runs C:/tools/lint.exe: exec.LookPath
// tries PATHEXT's), since CreateProcess adds none to a path; path as it is
// if there is no such file, for the start to fail and say why.
func withExt(path string) string {
	if p, err := exec.LookPath(path); err == nil {
		return p
	}
	return path
}

// NewJob makes a job object that kills its processes when its last handle
// closes, and lets a process leave it on purpose; 0 if it cannot. (guard
// run's hand-over on Windows puts guard itself in one.)
func NewJob() windows.Handle {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0
	}
	if SetJobLimits(job, windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE|windows.JOB_OBJECT_LIMIT_BREAKAWAY_OK) != nil {
		windows.CloseHandle(job)
		return 0
	}
	return job
}

// SetJobLimits sets the limit flags of job.
func SetJobLimits(job windows.Handle, flags uint32) error {
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
		BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{LimitFlags: flags},
	}
	_, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)))
	return err
}

// resume starts the threads of process pid, created suspended (its one
// thread: syscall.StartProcess closes the handle it had to it).
func resume(pid uint32) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return err
	}
	defer windows.CloseHandle(snap)
	te := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	resumed := 0
	for err = windows.Thread32First(snap, &te); err == nil; err = windows.Thread32Next(snap, &te) {
		if te.OwnerProcessID != pid {
			continue
		}
		th, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, te.ThreadID)
		if err != nil {
			return err
		}
		_, err = windows.ResumeThread(th)
		windows.CloseHandle(th)
		if err != nil {
			return err
		}
		resumed++
	}
	if resumed == 0 {
		return errors.New("no thread to resume")
	}
	return nil
}

// waitProcess waits for the process to end.
func waitProcess(h windows.Handle) exitStatus {
	if _, err := windows.WaitForSingleObject(h, windows.INFINITE); err != nil {
		return exitStatus{err: err}
	}
	var code uint32
	if err := windows.GetExitCodeProcess(h, &code); err != nil {
		return exitStatus{err: err}
	}
	return exitStatus{code: int(code)}
}

// passOn passes a signal guard received on as Ctrl-Break to the child's
// process group: Windows has no other signal a console program gets.
func (c *child) passOn(os.Signal) { c.terminate() }

// terminate sends Ctrl-Break to the child's process group.
func (c *child) terminate() {
	_ = windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, uint32(c.pid))
}

// kill ends every process in the child's job (the child alone without
// one), and waits up to a second for them to be gone.
func (c *child) kill() {
	if c.sys.job == 0 {
		_ = windows.TerminateProcess(c.sys.process, 1)
		return
	}
	_ = windows.TerminateJobObject(c.sys.job, 1)
	for end, nap := time.Now().Add(time.Second), time.Millisecond; c.leftovers() && time.Now().Before(end); nap = min(2*nap, 20*time.Millisecond) {
		time.Sleep(nap)
	}
}

// jobAccounting is JOBOBJECT_BASIC_ACCOUNTING_INFORMATION.
type jobAccounting struct {
	TotalUserTime, TotalKernelTime, ThisPeriodTotalUserTime, ThisPeriodTotalKernelTime int64
	TotalPageFaultCount, TotalProcesses, ActiveProcesses, TotalTerminatedProcesses     uint32
}

// leftovers reports whether a process still runs in the child's job.
func (c *child) leftovers() bool {
	if c.sys.job == 0 {
		return false
	}
	var info jobAccounting
	err := windows.QueryInformationJobObject(c.sys.job, windows.JobObjectBasicAccountingInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)), nil)
	return err == nil && info.ActiveProcesses > 0
}

// release lets go of the job and the child's handle. What the child left
// running on purpose (kill_background off) lives on, as it would on Unix:
// the job stops killing on close before guard closes it.
func (c *child) release() {
	if c.sys.job != 0 {
		_ = SetJobLimits(c.sys.job, windows.JOB_OBJECT_LIMIT_BREAKAWAY_OK)
		windows.CloseHandle(c.sys.job)
		c.sys.job = 0
	}
	if c.sys.process != 0 {
		windows.CloseHandle(c.sys.process)
		c.sys.process = 0
	}
}

// IsTerminal reports whether v is an *os.File open on a console.
func IsTerminal(v any) bool {
	f, ok := v.(*os.File)
	if !ok {
		return false
	}
	var mode uint32
	return windows.GetConsoleMode(windows.Handle(f.Fd()), &mode) == nil
}

func signalName(s syscall.Signal) string { return "signal " + strconv.Itoa(int(s)) }
