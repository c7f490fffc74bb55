package cli

import (
	"guard/cmd/guard/guardrun"
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"sync"
)

// guardCopy reports whether program, the first word of a command a hook
// runs (a path, or a name found through PATH), is one of guard's programs
// under another name (a copy of guard called guard-copy, say), from its
// build information, without running it: install does not wrap a hook
// that runs one again, and doctor reports one behind guard as wrapped
// twice (hostile-user-3 m5). Any build of guard counts.
func guardCopy(program string) bool {
	path := program
	if !strings.ContainsRune(program, '/') {
		p, err := exec.LookPath(program)
		if err != nil {
			return false
		}
		path = p
	}
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return false // nothing that could block a read: a FIFO, a device
	}
	info, err := guardrun.ReadBuildInfo(path)
	if err != nil {
		return false
	}
	own := ownBuild()
	if own == nil || info.Main.Path != own.Main.Path {
		return false
	}
	// One of guard's commands, or (guard's end-to-end tests run their
	// test binary as guard) a copy of this very program.
	return strings.HasPrefix(info.Path, own.Main.Path+"/cmd/guard") || info.Path == own.Path
}

var ownBuild = sync.OnceValue(func() *debug.BuildInfo {
	info, _ := debug.ReadBuildInfo()
	return info
})
