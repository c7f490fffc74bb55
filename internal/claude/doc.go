// Package claude is guard's side of Claude Code's hooks: it lists the
// hooks of a settings file (or of a plugin's hooks file, which has the
// same shape) and rewrites them so that each runs behind guard, and back;
// it finds the plugins Claude Code loads and where their hooks are
// (plugins.go). Package claude/doctor checks a setup.
//
// A command hook in shell form, {"type": "command", "command": X}, becomes
// {"type": "command", "command": "/path/to/guard run --hook-timeout N
// --shell bash -c 'X'"}, with X quoted so that the shell Claude runs it
// with hands guard exactly X whatever it holds (single quotes, $,
// backticks, newlines), and N the hook's "timeout" or Claude Code's default
// for its event (timeout.go). A hook in Claude Code's exec form,
// {"command": PROGRAM, "args": [A, B]}, which Claude Code starts without a
// shell, becomes {"command": "/path/to/guard", "args": ["run",
// "--hook-timeout", "N", "--", PROGRAM, A, B]}. A hook that blocks when it
// fails ("onFailure": "block") gets guard run --on-skip block, so that
// guard skipping it blocks too. A plugin's hooks and PowerShell hooks are
// written in exec form, {"command": "/path/to/guard", "args": ["run", ...,
// "--shell", SHELL, "-c", X]}: Claude Code fills a plugin's placeholders
// into each arg and passes it on without a shell, so that no path breaks
// the quoting; a plugin's hook is keyed by the plugin (PluginKey).
// wrapped.go has the exact forms.
//
// The rewrite edits the file's bytes in place: keys keep their order, the
// indentation and the final newline stay as they were, and even the way
// each string was escaped is kept, so that Uninstall after Install gives
// back the very same bytes. Both are idempotent, and do no I/O:
// RewriteFile (file.go) applies them to a file on disk, keeping a backup
// (beside a user's file; in a backup directory for a project's, which
// teams commit, and a plugin's), and Binary (binary.go) finds the guard
// the hooks call. AddHook and RemoveHook (addhook.go) add and remove the
// SessionStart hook of install --plugins --auto the same way.
//
// The package is what guard install and uninstall do; it prints nothing:
// each Change says what was done, or left alone and why.
package claude
