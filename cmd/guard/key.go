package main

import (
	"strings"

	"guard/shquote"
)

// commandKey is the key of a command given as argv: its words joined by
// spaces, each shell-quoted where it needs quoting, so that two different
// commands never share a key and the key can be pasted into a shell.
func commandKey(argv []string) string { return shquote.Join(argv) }

// keyArg quotes key as a shell argument for a hint a person may paste:
// double quotes where that is enough, as people write them.
func keyArg(key string) string {
	if !strings.ContainsAny(key, "\"$`\\!\n") {
		return `"` + key + `"`
	}
	return shquote.Quote(key)
}
