//go:build windows

package notify

import "syscall"

// detachedProcess is DETACHED_PROCESS: no console of the caller's.
const detachedProcess = 0x00000008

// detached starts the helper as a process group of its own, with no
// console: a console's Ctrl+C for the caller does not reach it.
func detached() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP | detachedProcess}
}

// shellArgv runs command with cmd.exe, the shell Windows has.
func shellArgv(command string) []string { return []string{"cmd.exe", "/C", command} }
