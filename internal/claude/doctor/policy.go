package doctor

import (
	"regexp"
	"sync"

	"guard/internal/claude"
)

// PolicyEvents are the events where a hook can stop what Claude Code is
// about to do (a tool call, a permission, a prompt, the end of a turn or
// of a task): there, a hook guard skips lets it happen.
var PolicyEvents = map[string]bool{
	"PreToolUse": true, "PermissionRequest": true, "UserPromptSubmit": true, "Stop": true, "SubagentStop": true,
	"TaskCreated": true, "TaskCompleted": true, "TeammateIdle": true, "ConfigChange": true, "PreCompact": true,
	"Elicitation": true, "ElicitationResult": true,
}

// policySigns are what a hook that denies or blocks writes, in shell,
// Python, JavaScript or Go: an exit status of 2, or a decision.
var policySigns = sync.OnceValue(func() []struct {
	re   *regexp.Regexp
	what string
} {
	return []struct {
		re   *regexp.Regexp
		what string
	}{
		{regexp.MustCompile(`(?i)\bexit\s*\(?\s*2\b`), "exits 2"},
		{regexp.MustCompile(`(?s)permissionDecision.{0,80}\bdeny\b|\bdeny\b.{0,200}permissionDecision`), `answers "permissionDecision": "deny"`},
		{regexp.MustCompile(`\bdecision\\?["']?\s*:\s*\\?["']block\b`), `answers "decision": "block"`},
		{regexp.MustCompile(`\bbehavior\\?["']?\s*:\s*\\?["']deny\b`), `answers "behavior": "deny"`},
	}
})

// policyPairs are looser signs: a script that names the field of a
// decision and, anywhere else, writes the value that denies or blocks,
// as one that works the decision out first does (const decision = ask ?
// 'ask' : 'deny'; ... permissionDecision: decision).
var policyPairs = sync.OnceValue(func() []struct {
	field, value *regexp.Regexp
	what         string
} {
	quoted := func(v string) *regexp.Regexp { return regexp.MustCompile("[\"'`]" + v + "[\"'`]") }
	return []struct {
		field, value *regexp.Regexp
		what         string
	}{
		{regexp.MustCompile(`\bpermissionDecision\b`), quoted("deny"), `answers "permissionDecision": "deny"`},
		{regexp.MustCompile(`\bdecision\b`), quoted("block"), `answers "decision": "block"`},
		{regexp.MustCompile(`\bbehavior\b`), quoted("deny"), `answers "behavior": "deny"`},
	}
})

// maxScript is how much of a script Policy reads.
const maxScript = 1 << 20

// Policy says why a hook looks like a policy (a hook that denies or
// blocks: exit 2, "permissionDecision": "deny", "decision": "block",
// "behavior": "deny", in its command or in the script it runs, or a
// script that names permissionDecision (decision, behavior) and writes
// 'deny' ('block') anywhere in it) on an event where blocking stops
// something, or returns "". It is a heuristic: it reads the hook's
// command and the scripts it runs, not what they do.
func (env Env) Policy(h claude.Hook) string {
	if !PolicyEvents[h.Event] {
		return ""
	}
	if why := sign([]byte(h.Own())); why != "" {
		return "its command " + why
	}
	for _, path := range env.scripts(h) {
		data, err := env.ReadFile(path)
		if err != nil {
			continue
		}
		if why := sign(data[:min(len(data), maxScript)]); why != "" {
			return "its script " + path + " " + why
		}
	}
	return ""
}

func sign(text []byte) string {
	for _, s := range policySigns() {
		if s.re.Match(text) {
			return s.what
		}
	}
	for _, p := range policyPairs() {
		if p.field.Match(text) && p.value.Match(text) {
			return p.what
		}
	}
	return ""
}
