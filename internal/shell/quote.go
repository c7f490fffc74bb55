package shell

// Quoting: words for a POSIX shell, the way guard writes keys and the hook
// commands it installs.

import "strings"

// safe holds the characters a word may have and still stand bare.
const safe = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-"

// Quote returns s as one shell word: bare if every character is safe, else
// in single quotes, where a single quote is written as quote, backslash,
// quote, quote (close the quotes, an escaped quote, open them again).
func Quote(s string) string {
	if s != "" && strings.Trim(s, safe) == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Join quotes each of argv and joins them with spaces, so that the shell
// reads back exactly argv.
func Join(argv []string) string {
	quoted := make([]string, len(argv))
	for i, a := range argv {
		quoted[i] = Quote(a)
	}
	return strings.Join(quoted, " ")
}
