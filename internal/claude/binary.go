package claude

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"unicode/utf8"
)

// A BinaryError is a --binary that hooks must not call.
type BinaryError struct{ Msg string }

func (e *BinaryError) Error() string { return e.Msg }

// Binary returns the guard that wrapped hooks call: flag (install's
// --binary: an absolute path, or the bare name guard, found through PATH
// when the hook runs), else the absolute path of the running guard. It
// must name a file called guard, which is how Uninstall tells guard's
// hooks from others, and not a temporary go run build, which is gone when
// go run exits. warnings are worth telling the user; a bad flag is a
// *BinaryError.
func Binary(flag string) (bin string, warnings []string, err error) {
	return binary(flag, "", runtime.GOOS == "windows")
}

// BinaryFor is Binary for the guard at self, the one the user ran, when
// that is not this program: guard hands install over to guard-cli, and
// names itself (see guardrun.Env.HandOver). "" is Binary.
func BinaryFor(flag, self string) (bin string, warnings []string, err error) {
	return binary(flag, self, runtime.GOOS == "windows")
}

// binary is BinaryFor, for hooks that run on Windows or not: there guard
// is guard.exe, and its path is written with / (WindowsPath).
func binary(flag, self string, windows bool) (bin string, warnings []string, err error) {
	isName := func(name string) bool { return name == "guard" || windows && name == "guard.exe" }
	if flag != "" {
		if windows {
			flag = WindowsPath(flag)
		}
		switch {
		case !utf8.ValidString(flag):
			// settings.json is UTF-8: the hooks would name another file.
			return "", nil, &BinaryError{fmt.Sprintf("--binary %q is not valid UTF-8, which settings.json cannot hold: install guard under another path", flag)}
		case isName(flag):
			if _, err := exec.LookPath("guard"); err != nil {
				warnings = append(warnings, "there is no guard on your PATH; hooks that call a bare guard will fail until there is")
			}
			return flag, warnings, nil
		case !filepath.IsAbs(flag) && !(windows && windowsAbs(flag)):
			return "", nil, &BinaryError{fmt.Sprintf("--binary %q must be an absolute path, or the bare name guard (found through PATH): hooks run from any directory", flag)}
		case !isName(fileName(flag)):
			return "", nil, &BinaryError{fmt.Sprintf("--binary %q must name a file called guard, so that uninstall can tell guard's hooks from others", flag)}
		}
		if _, err := os.Stat(flag); err != nil {
			warnings = append(warnings, fmt.Sprintf("%s does not exist yet; the hooks will fail until it does", flag))
		}
		return flag, warnings, nil
	}
	exe := self
	if exe == "" {
		if exe, err = os.Executable(); err != nil {
			return "", nil, fmt.Errorf("cannot tell where this guard is; pass --binary: %w", err)
		}
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	switch filepath.Base(exe) {
	case "guard-cli", "guard-pg", "guard-web":
		// guard-cli is guard's commands other than guard run, which guard
		// hands install over to (guard-pg is guard-cli with its database
		// driver, guard-web with its dashboard); hooks call guard, which
		// runs them itself or hands over to these.
		exe = filepath.Join(filepath.Dir(exe), "guard")
	case "guard-cli.exe", "guard-pg.exe", "guard-web.exe":
		exe = filepath.Join(filepath.Dir(exe), "guard.exe")
	}
	if windows {
		exe = WindowsPath(exe)
	}
	if !utf8.ValidString(exe) {
		return "", nil, fmt.Errorf("this guard's path %q is not valid UTF-8, which settings.json cannot hold; pass --binary; nothing changed", exe)
	}
	if temporaryBuild(exe) {
		return "", nil, errors.New("this guard is a temporary build (go run) at " + exe + ", which goes away when it exits; install guard (go install ./cmd/guard) and run that, or pass --binary with where guard is installed (or --binary guard to find it through PATH); nothing changed")
	}
	if !isName(fileName(exe)) {
		return "", nil, fmt.Errorf("this guard is called %s; hooks must call a file named guard, so that uninstall can tell guard's hooks from others: rename it, or pass --binary; nothing changed", fileName(exe))
	}
	return exe, nil, nil
}

// temporaryBuild reports whether exe is a binary go run built, in the go
// build cache's temporary directory.
func temporaryBuild(exe string) bool {
	exe = WindowsPath(exe)
	return strings.Contains(exe, "/go-build") && strings.Contains(exe, "/exe/")
}

// windowsAbs reports whether path is absolute on Windows: a drive and a
// slash (C:/Users, C:\Users), or a share (//server/x).
func windowsAbs(path string) bool {
	path = WindowsPath(path)
	return len(path) >= 3 && path[1] == ':' && path[2] == '/' || strings.HasPrefix(path, "//")
}

// WindowsPath writes a Windows path as hooks call it: with / for \
// (C:/Users/me/bin/guard.exe), which Git Bash, where Claude Code runs
// shell-form hooks on Windows, and Windows itself both take.
func WindowsPath(path string) string { return strings.ReplaceAll(path, `\`, "/") }
