package circuit

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"guard/internal/shell"
)

// CommandKey is the key of a command given as argv: its words joined by
// spaces, each shell-quoted where it needs quoting, so that two different
// commands never share a key and the key can be pasted into a shell.
func CommandKey(argv []string) string { return shell.Join(argv) }

// KeyArg quotes key as a shell argument for a hint a person may paste:
// double quotes where that is enough, as people write them.
func KeyArg(key string) string {
	if !strings.ContainsAny(key, "\"$`\\!\n") {
		return `"` + key + `"`
	}
	return shell.Quote(key)
}

// ProjectVar is the variable Claude Code sets to the project a hook runs
// for.
const ProjectVar = "CLAUDE_PROJECT_DIR"

// ProjectSep joins a command that refers to the project directory and the
// directory it ran for, in a key.
const ProjectSep = " @ "

// ProjectKey makes a command that refers to $CLAUDE_PROJECT_DIR (in any
// quoting) one circuit per project: "CMD @ /the/project". The same hook
// line in settings.json runs a different script in each project, and a
// failing one in one project must not skip a healthy one in another. A
// directory that is not UTF-8 is written as ValidKey writes keys.
func ProjectKey(command, projectDir string) string {
	if projectDir == "" || !strings.Contains(command, ProjectVar) {
		return command
	}
	return command + ProjectSep + ValidKey(projectDir)
}

// KeyProject returns the project a key belongs to, if ProjectKey made it.
func KeyProject(key string) string {
	i := strings.LastIndex(key, ProjectSep)
	if i < 0 || !strings.Contains(key[:i], ProjectVar) || strings.HasPrefix(key[i:], SessionSep) {
		return ""
	}
	return key[i+len(ProjectSep):]
}

// ValidKey returns key as a JSON string can hold it. A key that is not
// valid UTF-8 has each byte that is not part of a character written as
// \xHH, and its backslashes doubled, so that two different commands never
// become one key (as they would if both were read with U+FFFD).
func ValidKey(key string) string {
	if utf8.ValidString(key) {
		return key
	}
	var b strings.Builder
	for i := 0; i < len(key); {
		r, n := utf8.DecodeRuneInString(key[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, key[i])
		case r == '\\':
			b.WriteString(`\\`)
		default:
			b.WriteString(key[i : i+n])
		}
		i += n
	}
	return b.String()
}
