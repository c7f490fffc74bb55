//go:build unix

package notify

import "syscall"

// detached puts the helper in a session of its own: no controlling
// terminal, and out of the process group that a hook's timeout, or the
// caller's kill of guard's group, ends.
func detached() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
