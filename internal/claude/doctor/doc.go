// Package doctor checks a Claude Code setup that guard is part of: the
// settings files Claude Code reads and each of their hooks (whether Claude
// Code accepts them, the guard a hook calls and its --hook-timeout, the
// program, script and interpreter it runs, on the PATH the settings give
// hooks and from the project directory, a second wrapper, a timeout in the
// wrong unit, a hook wrapped in one file and bare in another), the hooks of
// the enabled plugins (plugins.go), and hooks in the frontmatter of
// skills, commands and agents, which guard does not wrap. Each problem
// comes with what to do about it; a warning is something that may be meant
// so. guard doctor (package cli) adds the checks of guard's own config,
// state, circuits and budgets.
//
// The checks read the machine only through Env, and are heuristics where
// they say so: a policy is recognised by what its command or scripts
// write, not by what they do, and a verdict decided in a module a script
// imports is not seen.
package doctor
