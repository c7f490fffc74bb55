package main

import "strings"

// commandKey is the key of a command given as argv: its words joined by
// spaces, each shell-quoted where it needs quoting, so that two different
// commands never share a key and the key can be pasted into a shell.
func commandKey(argv []string) string {
	quoted := make([]string, len(argv))
	for i, a := range argv {
		quoted[i] = shellQuote(a)
	}
	return strings.Join(quoted, " ")
}

// shellQuote quotes s for a POSIX shell, leaving it bare when it is safe.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// keyArg quotes key as a shell argument for a hint a person may paste:
// double quotes where that is enough, as people write them.
func keyArg(key string) string {
	if !strings.ContainsAny(key, "\"$`\\!\n") {
		return `"` + key + `"`
	}
	return shellQuote(key)
}
