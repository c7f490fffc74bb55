package circuit

import (
	"encoding/json"
	"strings"

	"guard/internal/store"
)

// Scopes of a circuit: which calls of one command share it.
const (
	ScopeAuto    = "auto"    // per project for a command that refers to $CLAUDE_PROJECT_DIR, else global
	ScopeGlobal  = "global"  // one circuit for every call
	ScopeProject = "project" // one per project directory ($CLAUDE_PROJECT_DIR)
	ScopeSession = "session" // one per Claude Code session (the payload's session_id)
)

// SessionSep joins a command and the session it is kept for, in a key
// (store.SessionSep: backends expire such keys sooner).
const SessionSep = store.SessionSep

// ScopedKey returns the key of a call under scope: key is what Target
// made of it (the auto scope), base the command (or --name) alone. A scope
// whose project or session is not known falls back to the global one.
func ScopedKey(key, base, scope, projectDir, sessionID string) string {
	switch scope {
	case ScopeGlobal:
		return base
	case ScopeProject:
		if projectDir == "" {
			return base
		}
		return base + ProjectSep + ValidKey(projectDir)
	case ScopeSession:
		if sessionID == "" {
			return base
		}
		return base + SessionSep + ValidKey(sessionID)
	}
	return key
}

// SessionID returns the session_id of a Claude Code hook payload, exactly
// as it is, or "" if payload is not a JSON object or has no string
// session_id (or one of white space only). Keys are exact: ids that differ
// only in white space are two sessions, never one circuit (hostile-user-3
// m7).
func SessionID(payload []byte) string {
	var p struct {
		SessionID any `json:"session_id"`
	}
	if json.Unmarshal(payload, &p) != nil {
		return ""
	}
	s, _ := p.SessionID.(string)
	if strings.TrimSpace(s) == "" {
		return ""
	}
	return s
}

// KeySession returns the session a key is kept for, if ScopedKey made it
// so.
func KeySession(key string) string { return store.KeySession(key) }

// RuleKey returns the key the config's rules see for a key: the command
// (or --name) without the project or session it is kept for.
func RuleKey(key string) string {
	if s := KeySession(key); s != "" {
		return strings.TrimSuffix(key, SessionSep+s)
	}
	if p := KeyProject(key); p != "" {
		return strings.TrimSuffix(key, ProjectSep+p)
	}
	return key
}
