package claude

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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
	if flag != "" {
		switch {
		case !utf8.ValidString(flag):
			// settings.json is UTF-8: the hooks would name another file.
			return "", nil, &BinaryError{fmt.Sprintf("--binary %q is not valid UTF-8, which settings.json cannot hold: install guard under another path", flag)}
		case flag == "guard":
			if _, err := exec.LookPath("guard"); err != nil {
				warnings = append(warnings, "there is no guard on your PATH; hooks that call a bare guard will fail until there is")
			}
			return flag, warnings, nil
		case !filepath.IsAbs(flag):
			return "", nil, &BinaryError{fmt.Sprintf("--binary %q must be an absolute path, or the bare name guard (found through PATH): hooks run from any directory", flag)}
		case filepath.Base(flag) != "guard":
			return "", nil, &BinaryError{fmt.Sprintf("--binary %q must name a file called guard, so that uninstall can tell guard's hooks from others", flag)}
		}
		if _, err := os.Stat(flag); err != nil {
			warnings = append(warnings, fmt.Sprintf("%s does not exist yet; the hooks will fail until it does", flag))
		}
		return flag, warnings, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", nil, fmt.Errorf("cannot tell where this guard is; pass --binary: %w", err)
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	if filepath.Base(exe) == "guard-pg" {
		// guard-pg is guard with its database driver; hooks call guard,
		// which hands database states over to it.
		exe = filepath.Join(filepath.Dir(exe), "guard")
	}
	if !utf8.ValidString(exe) {
		return "", nil, fmt.Errorf("this guard's path %q is not valid UTF-8, which settings.json cannot hold; pass --binary; nothing changed", exe)
	}
	if temporaryBuild(exe) {
		return "", nil, errors.New("this guard is a temporary build (go run) at " + exe + ", which goes away when it exits; install guard (go install ./cmd/guard) and run that, or pass --binary with where guard is installed (or --binary guard to find it through PATH); nothing changed")
	}
	if filepath.Base(exe) != "guard" {
		return "", nil, fmt.Errorf("this guard is called %s; hooks must call a file named guard, so that uninstall can tell guard's hooks from others: rename it, or pass --binary; nothing changed", filepath.Base(exe))
	}
	return exe, nil, nil
}

// temporaryBuild reports whether exe is a binary go run built, in the go
// build cache's temporary directory.
func temporaryBuild(exe string) bool {
	sep := string(filepath.Separator)
	return strings.Contains(exe, sep+"go-build") && strings.Contains(exe, sep+"exe"+sep)
}

// WindowsPath writes a Windows path as hooks call it: with / for \
// (C:/Users/me/bin/guard.exe), which Git Bash, where Claude Code runs
// shell-form hooks on Windows, and Windows itself both take.
func WindowsPath(path string) string { return strings.ReplaceAll(path, `\`, "/") }
