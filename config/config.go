package config

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"guard/breaker"
)

// A Config is guard's effective configuration: the built-in defaults, then
// guardrails.yaml, then environment variables. Command-line flags are
// applied on top by the caller, per run.
type Config struct {
	// Source names where the configuration came from, for people: a file
	// path, or "built-in defaults".
	Source string

	StateFile   string        // the hook state file; empty only when HOME is unset and nothing names one
	LockTimeout time.Duration // how long to wait for a state lock
	// RecordTimeout is how long guard run waits for the state lock to
	// record an outcome, once its command has run: longer than
	// LockTimeout, since the wait then delays only guard's exit, and
	// giving up loses the outcome (see docs/guarantees.md).
	RecordTimeout time.Duration
	// ConnectTimeout bounds connecting to a PostgreSQL state (a
	// postgres:// state_file); a URL's own connect_timeout wins.
	ConnectTimeout time.Duration
	FailureMode    string // "open": run the child when guard fails; "closed": skip it
	Notice         string // "auto", "stderr", "system-message" or "none"

	CircuitBreaker Breaker    // the defaults for every key
	Hooks          []HookRule // per-key overrides; the first that matches wins

	Logging  Logging
	Cooldown Cooldown
}

// A Breaker holds the circuit breaker settings for one key.
type Breaker struct {
	Enabled          bool          // false: guard passes calls through untouched
	FailureThreshold int           // failures that trip the circuit
	FailureWindow    time.Duration // 0: count consecutive failures; else failures inside this window
	SuccessThreshold int           // successful probes that close it
	Cooldown         time.Duration // how long it stays open at first
	MaxCooldown      time.Duration // cap of the doubling back-off
	HalfOpenMaxCalls int           // probes at once
	ProbeLease       time.Duration // lease of a probe when there is no timeout
	Timeout          time.Duration // 0: none
	KillGrace        time.Duration // between SIGTERM and SIGKILL on timeout
	// KillBackground: when the command exits, what it left running in its
	// process group gets SIGTERM, then SIGKILL after KillGrace.
	KillBackground bool
	// Scope says which calls share a circuit: auto, global, project or
	// session (see circuit.ScopedKey).
	Scope string
	// The trip rules beside failure_threshold (see breaker.Settings):
	// k of the last OfLast calls, a failure rate or a slow-call rate over
	// failure_window once MinimumCalls calls ended.
	OfLast       int
	FailureRate  float64
	SlowCallRate float64
	MinimumCalls int
	// Mode is enforce (skip while open), observe (decide and record, but
	// never skip) or disabled (no bookkeeping at all).
	Mode             string
	SlowCall         time.Duration // 0: off; a slower run counts as a failure
	MaxConcurrent    int           // 0: unlimited
	QueueTimeout     time.Duration // wait for a concurrency slot
	SuccessExitCodes []int
	IgnoreExitCodes  []int
	OpenExitCode     int // guard's exit status when it skips a call (never 2; see OnSkip)
	// OnSkip is what a call guard skips (open circuit, probe running,
	// max_concurrent reached, failure_mode: closed) does: "allow" exits
	// OpenExitCode, the agent carries on; "block" exits 2, Claude Code's
	// block, for a hook that must fail closed (a policy hook).
	OnSkip string
	// LaunchFailureExit is guard's exit status, in place of 2, when the
	// command exited 2 only because it could not start (see
	// supervise.Result.LaunchFailure); 2 passes it on as it is.
	LaunchFailureExit int
	Exclude           []string // keys (substrings or globs) that never trip
	Retention         time.Duration
	// MinInterval, if above 0, runs a key's command at most once per
	// MinInterval: a call that comes sooner after the last one guard let
	// run is skipped, as any skip (on_skip says whether it blocks).
	MinInterval time.Duration
	// Fallback, if not empty, is a shell command guard runs in place of a
	// call it does not run (open circuit, probe elsewhere, max_concurrent,
	// min_interval, failure_mode: closed), with the call's stdin and
	// environment: its stdout and exit status are the call's. It never runs
	// for a hook with on_skip: block, whose block wins. FallbackTimeout
	// bounds it.
	Fallback        string
	FallbackTimeout time.Duration
	// Retries is how many times a failed run is tried again before its
	// failure counts (0: never), RetryBackoff the wait before the first
	// retry, doubled for each next one, with jitter.
	Retries      int
	RetryBackoff time.Duration
	// IgnoreOutput and FailureOutput are regular expressions searched in
	// what a run printed (the end of its stdout and stderr): a run whose
	// exit status is a failure counts as ignored if one of IgnoreOutput
	// matches, and one whose status is a success counts as a failure if one
	// of FailureOutput does. Empty: the exit status alone decides.
	IgnoreOutput  []string
	FailureOutput []string
	// OnStateChange, if not empty, is a shell command guard starts,
	// detached, on every transition of a key's circuit (and on guard
	// disable and enable), with GUARD_KEY, GUARD_FROM, GUARD_TO and
	// GUARD_REASON in its environment; OnStateChangeTimeout bounds each
	// run of it.
	OnStateChange        string
	OnStateChangeTimeout time.Duration
	// SessionRetention is how long the circuit of one Claude Code session
	// (scope: session) outlives its last call, whatever its state: a
	// session that ended never calls again. 0 keeps it for Retention, as
	// any other key.
	SessionRetention time.Duration
}

// A HookRule overrides Breaker settings for the keys it matches.
type HookRule struct {
	Match  string // a glob over the whole key, or "" when Regex is set
	Regex  string // a regular expression searched in the key
	Line   int    // where the rule is in the file, for messages
	re     *regexp.Regexp
	fields breakerFields
}

// Matches reports whether the rule applies to key.
func (r *HookRule) Matches(key string) bool {
	return r.re.MatchString(key)
}

// MaxLogFiles is the most rotated event logs logging.max_files may keep:
// guard log and the run times read them all.
const MaxLogFiles = 100

// Logging says where the event log goes.
type Logging struct {
	// File is the Python guardrails' text log (logging.file). guard reads
	// it so that their config file works as it is, and never writes it.
	File     string
	EventLog string // guard's JSON Lines event log; "" means beside the state file
	MaxSize  int64  // bytes before the log rotates; more than 0
	MaxFiles int    // rotated files kept: 1 to MaxLogFiles
	Level    string // accepted for the Python guardrails; guard ignores it
	Format   string // accepted for the Python guardrails; guard ignores it
}

// Cooldown configures service action budgets (guard cooldown).
type Cooldown struct {
	StateFile string // "" means GUARD_COOLDOWN_STATE, $CLAUDEOPS_STATE_DIR/cooldown.json or ~/.claude/cooldown.json
	// FailureMode says what a budgeted action gets when guard cannot read
	// or write the budgets (a database away, a file it cannot lock):
	// "closed" (the default) refuses it, as a spent budget would, in
	// cooldown hook and cooldown run alike; "open" lets it through with a
	// warning. A command that takes no budgeted action always runs.
	FailureMode       string
	ResetAfterHealthy int
	Retention         time.Duration
	Actions           map[string]Action
	Patterns          []Pattern
}

// An Action is a budget: at most Limit records in Field per Window.
type Action struct {
	Field  string
	Limit  int
	Window time.Duration
	// Timestamps names an array of bare timestamps that every record is
	// written to as well (Claude Ops' hooks read restart_timestamps); ""
	// writes one only where the file already keeps such arrays.
	Timestamps string
}

// A Pattern recognises an action on a service in a shell command.
type Pattern struct {
	Regex  string
	Action string
	re     *regexp.Regexp // nil until first used
}

// Regexp returns the compiled pattern. It has a group named "service".
func (p *Pattern) Regexp() *regexp.Regexp {
	if p.re == nil {
		p.re = regexp.MustCompile(p.Regex) // built in, or checked by Load
	}
	return p.re
}

// Default returns the built-in configuration, which is what guard uses
// when there is no config file. home is the user's home directory.
func Default(home string) *Config {
	return &Config{
		Source:         "built-in defaults",
		StateFile:      home + "/.claude/hook_state.json",
		LockTimeout:    2 * time.Second,
		RecordTimeout:  10 * time.Second,
		ConnectTimeout: time.Second,
		FailureMode:    "open",
		Notice:         "auto",
		CircuitBreaker: Breaker{
			Enabled:           true,
			FailureThreshold:  3,
			SuccessThreshold:  2,
			Cooldown:          5 * time.Minute,
			MaxCooldown:       time.Hour,
			HalfOpenMaxCalls:  1,
			ProbeLease:        10 * time.Minute,
			KillGrace:         5 * time.Second,
			SuccessExitCodes:  []int{0},
			IgnoreExitCodes:   []int{2},
			LaunchFailureExit: 1,
			OnSkip:            "allow",
			Scope:             "auto",
			MinimumCalls:      10,
			Mode:              "enforce",
			Exclude:           []string{},
			Retention:         30 * 24 * time.Hour,
			SessionRetention:  24 * time.Hour,

			OnStateChangeTimeout: 30 * time.Second,
			FallbackTimeout:      10 * time.Second,
			RetryBackoff:         time.Second,
			IgnoreOutput:         []string{},
			FailureOutput:        []string{},
		},
		Logging: Logging{
			MaxSize:  10 << 20,
			MaxFiles: 3,
			Level:    "INFO",
		},
		Cooldown: Cooldown{
			FailureMode:       "closed",
			ResetAfterHealthy: 2,
			Retention:         48 * time.Hour,
			Actions: map[string]Action{
				"restart":  {Field: "restarts", Limit: 2, Window: 4 * time.Hour},
				"redeploy": {Field: "redeployments", Limit: 1, Window: 24 * time.Hour},
			},
			Patterns: defaultPatterns(),
		},
	}
}

// defaultPatterns are compiled when first used (see Pattern.Regexp): most
// guard commands never need them. They match the normal form of each
// simple command (see shell.Command.Normal): positional words first,
// then options. The first pattern that matches a simple command decides
// its action. They are Claude Ops' patterns, plus
// "docker compose up ... --force-recreate", which is a redeploy, and the
// other ways to restart, stop or start a service: docker compose
// stop|start X and systemctl restart|stop|start X (X.service is X).
func defaultPatterns() []Pattern {
	return append(append([]Pattern{
		{Regex: `^docker compose up ` + servicesGroup + `\b.* --force-recreate\b`, Action: "redeploy"},
	}, claudeOpsPatterns("redeploy")...),
		Pattern{Regex: `^docker compose (?:stop|start) ` + servicesGroup, Action: "restart"},
		Pattern{Regex: `^systemctl (?:restart|stop|start|try-restart|reload-or-restart|try-reload-or-restart|condrestart) ` + servicesGroup, Action: "restart"},
	)
}

// servicesGroup matches one or more service names, the positional words
// of a normal form, up to its first option.
const servicesGroup = `(?P<services>[\w.][\w.-]*(?: [\w.][\w.-]*)*)`

// claudeOpsPatterns are the commands Claude Ops' cooldown hook budgets:
// docker restart|stop|start X, docker compose restart X and docker compose
// up ... X are restarts; ansible-playbook ... redeploy-X.yml and helm
// upgrade X are redeployments, recorded as the action redeploy names.
func claudeOpsPatterns(redeploy string) []Pattern {
	return []Pattern{
		{Regex: `^docker (?:restart|stop|start) ` + servicesGroup, Action: "restart"},
		{Regex: `^docker compose restart ` + servicesGroup, Action: "restart"},
		{Regex: `^docker compose up ` + servicesGroup, Action: "restart"},
		{Regex: `^ansible-playbook (?:[^ ]+ )*?(?:[^ ]*/)?redeploy-(?P<service>[\w-]+)\.ya?ml\b`, Action: redeploy},
		{Regex: `^helm upgrade (?P<service>[\w.][\w.-]*)`, Action: redeploy},
	}
}

// ActionAlias returns the other name of an action that has two: Claude
// Ops calls guard's redeploy redeployment.
func ActionAlias(name string) string {
	switch name {
	case "redeploy":
		return "redeployment"
	case "redeployment":
		return "redeploy"
	}
	return ""
}

// Presets are whole cooldown configurations by name (cooldown: {preset:
// NAME}); settings beside the preset change it.
var Presets = map[string]func() Cooldown{
	// claude-ops: exactly Claude Ops' budgets, names and patterns, writing
	// the restart_timestamps and redeployment_timestamps its hooks read.
	"claude-ops": func() Cooldown {
		return Cooldown{
			FailureMode:       "closed",
			ResetAfterHealthy: 2,
			Retention:         48 * time.Hour,
			Actions: map[string]Action{
				"restart":      {Field: "restarts", Limit: 2, Window: 4 * time.Hour, Timestamps: "restart_timestamps"},
				"redeployment": {Field: "redeployments", Limit: 1, Window: 24 * time.Hour, Timestamps: "redeployment_timestamps"},
			},
			Patterns: claudeOpsPatterns("redeployment"),
		}
	},
}

// EventLog returns the event log for the state file at statePath:
// logging.event_log if set, else "<name>.events.jsonl" beside the state
// file (hook_state.json logs to hook_state.events.jsonl). It is never
// logging.file, the Python guardrails' text log.
func (c *Config) EventLog(statePath string) string {
	if c.Logging.EventLog != "" {
		return c.Logging.EventLog
	}
	return strings.TrimSuffix(statePath, filepath.Ext(statePath)) + ".events.jsonl"
}

// For returns the settings for key: the circuit_breaker section, then the
// first hooks rule that matches key.
func (c *Config) For(key string) Breaker {
	b := c.CircuitBreaker
	b.SuccessExitCodes = slices.Clone(b.SuccessExitCodes)
	b.IgnoreExitCodes = slices.Clone(b.IgnoreExitCodes)
	b.IgnoreOutput = slices.Clone(b.IgnoreOutput)
	b.FailureOutput = slices.Clone(b.FailureOutput)
	for i := range c.Hooks {
		if c.Hooks[i].Matches(key) {
			// Rules were validated when the file was loaded.
			_ = b.apply(&c.Hooks[i].fields, nil)
			break
		}
	}
	return b
}

// Excluded reports whether key matches an exclude pattern.
func (b *Breaker) Excluded(key string) bool {
	for _, p := range b.Exclude {
		if MatchPattern(p, key) {
			return true
		}
	}
	return false
}

// Settings returns the breaker package's view of b for key. A probe lease
// lasts probe_lease, or the timeout plus kill_grace when there is a
// timeout.
func (b *Breaker) Settings(key string) breaker.Settings {
	lease := b.ProbeLease
	if b.Timeout > 0 {
		lease = b.Timeout + b.KillGrace
	}
	return breaker.Settings{
		FailureThreshold: b.FailureThreshold,
		FailureWindow:    b.FailureWindow,
		SuccessThreshold: b.SuccessThreshold,
		Cooldown:         b.Cooldown,
		MaxCooldown:      b.MaxCooldown,
		HalfOpenMaxCalls: b.HalfOpenMaxCalls,
		ProbeLease:       lease,
		Exclude:          b.Excluded(key),
		OfLast:           b.OfLast,
		FailureRate:      b.FailureRate,
		MinimumCalls:     b.MinimumCalls,
		SlowCallRate:     b.SlowCallRate,
		Observe:          b.Mode == "observe",
		MinInterval:      b.MinInterval,
		Blocks:           b.OnSkip == "block",
	}
}

// closes is "closes" after one success, "close" after more.
func closes(n int) string {
	if n == 1 {
		return "closes"
	}
	return "close"
}

// RulesInForce says in words which rules b trips and closes the circuit by,
// and its mode: for guard config check --key.
func (b *Breaker) RulesInForce() []string {
	var trip string
	switch {
	case b.OfLast > 0:
		trip = fmt.Sprintf("trips on %s among the last %s (of_last)", breaker.Count(b.FailureThreshold, "failure"), breaker.Count(b.OfLast, "call"))
	case b.FailureRate > 0:
		trip = fmt.Sprintf("trips when %s of the calls in %s failed, once %s ended (failure_rate)", FormatPercent(b.FailureRate), FormatDuration(b.FailureWindow), breaker.Count(b.MinimumCalls, "call"))
	case b.FailureWindow > 0:
		trip = fmt.Sprintf("trips on %s in %s (failure_window)", breaker.Count(b.FailureThreshold, "failure"), FormatDuration(b.FailureWindow))
	default:
		trip = "trips on 1 failure"
		if b.FailureThreshold != 1 {
			trip = fmt.Sprintf("trips on %d consecutive failures", b.FailureThreshold)
		}
	}
	lines := []string{"rule: " + trip}
	switch {
	case b.SlowCallRate > 0:
		lines = append(lines, fmt.Sprintf("rule: trips when %s of the calls in %s were slower than %s, once %s ended (slow_call_rate)",
			FormatPercent(b.SlowCallRate), FormatDuration(b.FailureWindow), FormatDuration(b.SlowCall), breaker.Count(b.MinimumCalls, "call")))
	case b.SlowCall > 0:
		lines = append(lines, fmt.Sprintf("rule: a call slower than %s is a failure (slow_call)", FormatDuration(b.SlowCall)))
	}
	trials := breaker.Count(max(1, b.HalfOpenMaxCalls), "trial")
	probes := fmt.Sprintf("half-open: up to %s at once; %s %s it, the first failure re-opens it", trials, breaker.Count(max(1, b.SuccessThreshold), "success"), closes(max(1, b.SuccessThreshold)))
	if b.FailureRate > 0 {
		probes = fmt.Sprintf("half-open: up to %s at once; after %s, %s of them failed re-opens it, else it closes", trials, breaker.Count(max(1, b.SuccessThreshold), "trial"), FormatPercent(b.FailureRate))
	}
	lines = append(lines, probes)
	switch {
	case !b.Enabled || b.Mode == "disabled":
		lines = append(lines, "mode: disabled (the command runs with no bookkeeping)")
	case b.Mode == "observe":
		lines = append(lines, "mode: observe (decides and logs, never skips)")
	default:
		lines = append(lines, "mode: enforce")
	}
	if b.MinInterval > 0 {
		lines = append(lines, fmt.Sprintf("min_interval: runs at most once per %s; a call sooner is skipped, as any skip (on_skip)", FormatDuration(b.MinInterval)))
	}
	if b.Retries > 0 {
		lines = append(lines, fmt.Sprintf("retries: a failed run is tried again up to %d times, %s apart at first, doubling, with jitter, before its failure counts", b.Retries, FormatDuration(b.RetryBackoff)))
	}
	if len(b.IgnoreOutput) > 0 || len(b.FailureOutput) > 0 {
		lines = append(lines, fmt.Sprintf("output: a failing run that printed a match of ignore_output (%d) is ignored; a succeeding one that printed a match of failure_output (%d) failed", len(b.IgnoreOutput), len(b.FailureOutput)))
	}
	switch {
	case b.Fallback != "" && b.OnSkip == "block":
		lines = append(lines, "fallback: never runs: on_skip: block wins, and a skipped call blocks")
	case b.Fallback != "":
		lines = append(lines, fmt.Sprintf("fallback: a call guard skips runs %q instead (stopped after %s)", b.Fallback, FormatDuration(b.FallbackTimeout)))
	}
	if b.OnStateChange != "" {
		lines = append(lines, fmt.Sprintf("on_state_change: runs %q, detached, on every transition (each run stopped after %s)", b.OnStateChange, FormatDuration(b.OnStateChangeTimeout)))
	}
	if b.OnSkip == "block" {
		lines = append(lines, "on_skip: block (a call guard skips exits 2, a block, with the reason on stderr)")
	} else {
		lines = append(lines, fmt.Sprintf("on_skip: allow (a call guard skips exits %d)", b.OpenExitCode))
	}
	return lines
}

// Classify returns the outcome of a child that exited with code.
func (b *Breaker) Classify(code int) breaker.Outcome {
	switch {
	case slices.Contains(b.SuccessExitCodes, code):
		return breaker.Success
	case slices.Contains(b.IgnoreExitCodes, code):
		return breaker.Ignored
	}
	return breaker.Failure
}
