package config

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
)

// The *Fields types mirror guardrails.yaml. Every field is optional: a nil
// pointer means the key is absent and the layer below shows through.

type fileFields struct {
	StateFile      *string         `yaml:"state_file,omitempty"`
	LockTimeout    *Duration       `yaml:"lock_timeout,omitempty"`
	RecordTimeout  *Duration       `yaml:"record_timeout,omitempty"`
	ConnectTimeout *Duration       `yaml:"connect_timeout,omitempty"`
	FailureMode    *string         `yaml:"failure_mode,omitempty"`
	Notice         *string         `yaml:"notice,omitempty"`
	CircuitBreaker *breakerFields  `yaml:"circuit_breaker,omitempty"`
	Hooks          []hookFields    `yaml:"hooks,omitempty"`
	Logging        *loggingFields  `yaml:"logging,omitempty"`
	Cooldown       *cooldownFields `yaml:"cooldown,omitempty"`
}

type breakerFields struct {
	Enabled           *bool     `yaml:"enabled,omitempty"`
	FailureThreshold  *int      `yaml:"failure_threshold,omitempty"`
	FailureWindow     *Duration `yaml:"failure_window,omitempty"`
	SuccessThreshold  *int      `yaml:"success_threshold,omitempty"`
	CooldownSeconds   *int      `yaml:"cooldown_seconds,omitempty"`
	Cooldown          *Duration `yaml:"cooldown,omitempty"`
	MaxCooldown       *Duration `yaml:"max_cooldown,omitempty"`
	HalfOpenMaxCalls  *int      `yaml:"half_open_max_calls,omitempty"`
	ProbeLease        *Duration `yaml:"probe_lease,omitempty"`
	Timeout           *Duration `yaml:"timeout,omitempty"`
	KillGrace         *Duration `yaml:"kill_grace,omitempty"`
	KillBackground    *bool     `yaml:"kill_background,omitempty"`
	Scope             *string   `yaml:"scope,omitempty"`
	OfLast            *int      `yaml:"of_last,omitempty"`
	FailureRate       *Percent  `yaml:"failure_rate,omitempty"`
	SlowCallRate      *Percent  `yaml:"slow_call_rate,omitempty"`
	MinimumCalls      *int      `yaml:"minimum_calls,omitempty"`
	Mode              *string   `yaml:"mode,omitempty"`
	SlowCall          *Duration `yaml:"slow_call,omitempty"`
	MaxConcurrent     *int      `yaml:"max_concurrent,omitempty"`
	QueueTimeout      *Duration `yaml:"queue_timeout,omitempty"`
	SuccessExitCodes  *[]int    `yaml:"success_exit_codes,omitempty"`
	IgnoreExitCodes   *[]int    `yaml:"ignore_exit_codes,omitempty"`
	OpenExitCode      *int      `yaml:"open_exit_code,omitempty"`
	LaunchFailureExit *int      `yaml:"launch_failure_exit,omitempty"`
	OnSkip            *string   `yaml:"on_skip,omitempty"`
	Exclude           *[]string `yaml:"exclude,omitempty"`
	Retention         *Duration `yaml:"retention,omitempty"`
	SessionRetention  *Duration `yaml:"session_retention,omitempty"`
	MinInterval       *Duration `yaml:"min_interval,omitempty"`

	Fallback        *string   `yaml:"fallback,omitempty"`
	FallbackTimeout *Duration `yaml:"fallback_timeout,omitempty"`
	Retries         *int      `yaml:"retries,omitempty"`
	RetryBackoff    *Duration `yaml:"retry_backoff,omitempty"`
	IgnoreOutput    *[]string `yaml:"ignore_output,omitempty"`
	FailureOutput   *[]string `yaml:"failure_output,omitempty"`

	OnStateChange        *string   `yaml:"on_state_change,omitempty"`
	OnStateChangeTimeout *Duration `yaml:"on_state_change_timeout,omitempty"`
}

type hookFields struct {
	Match         *string `yaml:"match,omitempty"`
	Regex         *string `yaml:"regex,omitempty"`
	breakerFields `yaml:",inline"`
}

type loggingFields struct {
	File     *string `yaml:"file,omitempty"`      // the Python guardrails' text log; guard never writes it
	EventLog *string `yaml:"event_log,omitempty"` // guard's own JSON Lines event log
	MaxSize  *Size   `yaml:"max_size,omitempty"`
	MaxFiles *int    `yaml:"max_files,omitempty"`
	Level    *string `yaml:"level,omitempty"`  // Python guardrails; ignored
	Format   *string `yaml:"format,omitempty"` // Python guardrails; ignored
}

type cooldownFields struct {
	Preset            *string                 `yaml:"preset,omitempty"`
	StateFile         *string                 `yaml:"state_file,omitempty"`
	FailureMode       *string                 `yaml:"failure_mode,omitempty"`
	ResetAfterHealthy *int                    `yaml:"reset_after_healthy,omitempty"`
	Retention         *Duration               `yaml:"retention,omitempty"`
	Actions           map[string]actionFields `yaml:"actions,omitempty"`
	Patterns          *[]patternFields        `yaml:"patterns,omitempty"`
}

type actionFields struct {
	Field      *string   `yaml:"field,omitempty"`
	Limit      *int      `yaml:"limit,omitempty"`
	Window     *Duration `yaml:"window,omitempty"`
	Timestamps *string   `yaml:"timestamps,omitempty"`
}

type patternFields struct {
	Regex  *string `yaml:"regex,omitempty"`
	Action *string `yaml:"action,omitempty"`
}

// maxRetries bounds retries.
const maxRetries = 10

// A locator names where a key was set, for error messages: "file:line:
// circuit_breaker.timeout" or "GUARDRAILS_CIRCUIT_BREAKER_TIMEOUT".
type locator func(key string) string

func atLeast(where locator, key string, v, least int) error {
	if v < least {
		return fmt.Errorf("%s: must be at least %d, got %d", where(key), least, v)
	}
	return nil
}

func exitCodes(where locator, key string, codes []int) error {
	for _, c := range codes {
		if c < 0 || c > 255 {
			return fmt.Errorf("%s: exit status %d is outside 0-255", where(key), c)
		}
	}
	return nil
}

// apply sets the fields present in f, checking each. A nil where skips the
// checks, for fields that were checked when they were loaded.
func (b *Breaker) apply(f *breakerFields, where locator) error {
	if where == nil {
		where = func(k string) string { return k }
	}
	if f.Cooldown != nil && f.CooldownSeconds != nil {
		return fmt.Errorf("%s: set cooldown or cooldown_seconds, not both", where("cooldown"))
	}
	if f.KillBackground != nil {
		b.KillBackground = *f.KillBackground
	}
	if f.FailureRate != nil {
		b.FailureRate = float64(*f.FailureRate)
	}
	if f.SlowCallRate != nil {
		b.SlowCallRate = float64(*f.SlowCallRate)
	}
	if f.Mode != nil {
		switch *f.Mode {
		case "enforce", "observe", "disabled":
			b.Mode = *f.Mode
		default:
			return fmt.Errorf("%s: must be enforce, observe or disabled, got %q", where("mode"), *f.Mode)
		}
	}
	if f.Scope != nil {
		switch *f.Scope {
		case "auto", "global", "project", "session":
			b.Scope = *f.Scope
		default:
			return fmt.Errorf("%s: must be auto, global, project or session, got %q", where("scope"), *f.Scope)
		}
	}
	if f.OnSkip != nil {
		switch *f.OnSkip {
		case "allow", "block":
			b.OnSkip = *f.OnSkip
		default:
			return fmt.Errorf("%s: must be allow or block, got %q", where("on_skip"), *f.OnSkip)
		}
	}
	if f.Enabled != nil {
		b.Enabled = *f.Enabled
	}
	if f.OnStateChange != nil {
		b.OnStateChange = strings.TrimSpace(*f.OnStateChange)
	}
	if f.Fallback != nil {
		b.Fallback = strings.TrimSpace(*f.Fallback)
	}
	if f.FallbackTimeout != nil && *f.FallbackTimeout <= 0 {
		return fmt.Errorf("%s: must be longer than 0s: a fallback runs in a hook's place, and must end", where("fallback_timeout"))
	}
	for _, o := range []struct {
		src *[]string
		dst *[]string
		key string
	}{{f.IgnoreOutput, &b.IgnoreOutput, "ignore_output"}, {f.FailureOutput, &b.FailureOutput, "failure_output"}} {
		if o.src == nil {
			continue
		}
		for _, re := range *o.src {
			if err := checkOutputPattern(re); err != nil {
				return fmt.Errorf("%s: %v", where(o.key), err)
			}
		}
		*o.dst = slices.Clone(*o.src)
	}
	if f.OnStateChangeTimeout != nil && *f.OnStateChangeTimeout <= 0 {
		return fmt.Errorf("%s: must be longer than 0s: a command guard starts detached must end", where("on_state_change_timeout"))
	}
	ints := []struct {
		src   *int
		dst   *int
		key   string
		least int
	}{
		{f.FailureThreshold, &b.FailureThreshold, "failure_threshold", 1},
		{f.SuccessThreshold, &b.SuccessThreshold, "success_threshold", 1},
		{f.HalfOpenMaxCalls, &b.HalfOpenMaxCalls, "half_open_max_calls", 1},
		{f.MaxConcurrent, &b.MaxConcurrent, "max_concurrent", 0},
		{f.OpenExitCode, &b.OpenExitCode, "open_exit_code", 0},
		{f.LaunchFailureExit, &b.LaunchFailureExit, "launch_failure_exit", 0},
		{f.OfLast, &b.OfLast, "of_last", 0},
		{f.MinimumCalls, &b.MinimumCalls, "minimum_calls", 1},
		{f.Retries, &b.Retries, "retries", 0},
	}
	for _, s := range ints {
		if s.src == nil {
			continue
		}
		if err := atLeast(where, s.key, *s.src, s.least); err != nil {
			return err
		}
		*s.dst = *s.src
	}
	if f.Retries != nil && *f.Retries > maxRetries {
		return fmt.Errorf("%s: at most %d, got %d: a hook that fails that often is broken, and its caller waits for every try", where("retries"), maxRetries, *f.Retries)
	}
	if f.OpenExitCode != nil && *f.OpenExitCode > 255 {
		return fmt.Errorf("%s: exit status %d is outside 0-255", where("open_exit_code"), *f.OpenExitCode)
	}
	if f.OpenExitCode != nil && *f.OpenExitCode == 2 {
		// A skip that exits 2 blocks on guard's own account, for every
		// hook; a hook that must fail closed says so itself.
		return fmt.Errorf("%s: 2 would block on guard's own account; use on_skip: block for a hook that must fail closed", where("open_exit_code"))
	}
	if f.LaunchFailureExit != nil && *f.LaunchFailureExit > 255 {
		return fmt.Errorf("%s: exit status %d is outside 0-255", where("launch_failure_exit"), *f.LaunchFailureExit)
	}
	if f.CooldownSeconds != nil {
		if err := atLeast(where, "cooldown_seconds", *f.CooldownSeconds, 0); err != nil {
			return err
		}
		b.Cooldown = time.Duration(*f.CooldownSeconds) * time.Second
	}
	durations := []struct {
		src *Duration
		dst *time.Duration
	}{
		{f.FailureWindow, &b.FailureWindow},
		{f.Cooldown, &b.Cooldown},
		{f.MaxCooldown, &b.MaxCooldown},
		{f.ProbeLease, &b.ProbeLease},
		{f.Timeout, &b.Timeout},
		{f.KillGrace, &b.KillGrace},
		{f.SlowCall, &b.SlowCall},
		{f.QueueTimeout, &b.QueueTimeout},
		{f.Retention, &b.Retention},
		{f.SessionRetention, &b.SessionRetention},
		{f.MinInterval, &b.MinInterval},
		{f.OnStateChangeTimeout, &b.OnStateChangeTimeout},
		{f.FallbackTimeout, &b.FallbackTimeout},
		{f.RetryBackoff, &b.RetryBackoff},
	}
	for _, d := range durations {
		if d.src != nil {
			*d.dst = time.Duration(*d.src)
		}
	}
	if f.SuccessExitCodes != nil {
		if err := exitCodes(where, "success_exit_codes", *f.SuccessExitCodes); err != nil {
			return err
		}
		b.SuccessExitCodes = slices.Clone(*f.SuccessExitCodes)
	}
	if f.IgnoreExitCodes != nil {
		if err := exitCodes(where, "ignore_exit_codes", *f.IgnoreExitCodes); err != nil {
			return err
		}
		b.IgnoreExitCodes = slices.Clone(*f.IgnoreExitCodes)
	}
	for _, c := range b.SuccessExitCodes {
		if slices.Contains(b.IgnoreExitCodes, c) {
			return fmt.Errorf("%s: exit status %d is both a success and ignored", where("ignore_exit_codes"), c)
		}
	}
	if f.Exclude != nil {
		b.Exclude = slices.Clone(*f.Exclude)
		for _, p := range b.Exclude {
			if err := checkExclude(p); err != nil {
				return fmt.Errorf("%s: %v", where("exclude"), err)
			}
		}
	}
	return b.checkRules(where)
}

// checkRules checks that the trip rules b ends up with fit together.
func (b *Breaker) checkRules(where locator) error {
	switch {
	case b.OfLast > 0 && b.FailureRate > 0:
		return fmt.Errorf("%s: of_last and failure_rate are two different rules; set one", where("of_last"))
	case b.OfLast > 0 && b.OfLast < b.FailureThreshold:
		return fmt.Errorf("%s: %d calls can never hold failure_threshold %d failures", where("of_last"), b.OfLast, b.FailureThreshold)
	case b.FailureRate > 0 && b.FailureWindow <= 0:
		return fmt.Errorf("%s: needs failure_window, the window the rate is measured over (e.g. 10m)", where("failure_rate"))
	case b.SlowCallRate > 0 && b.FailureWindow <= 0:
		return fmt.Errorf("%s: needs failure_window, the window the rate is measured over (e.g. 10m)", where("slow_call_rate"))
	case b.SlowCallRate > 0 && b.SlowCall <= 0:
		return fmt.Errorf("%s: needs slow_call, the time over which a call is slow", where("slow_call_rate"))
	}
	return nil
}

func (l *Logging) apply(f *loggingFields, where locator) error {
	if f.File != nil {
		l.File = *f.File
	}
	if f.EventLog != nil {
		l.EventLog = *f.EventLog
	}
	// The event log always rotates, and what it keeps is bounded: nothing
	// guard keeps grows without bound (hostile-user-3 m8).
	if f.MaxSize != nil {
		if *f.MaxSize <= 0 {
			return fmt.Errorf("%s: must be more than 0: the event log always rotates, so that it never grows without bound", where("max_size"))
		}
		l.MaxSize = int64(*f.MaxSize)
	}
	if f.MaxFiles != nil {
		if err := atLeast(where, "max_files", *f.MaxFiles, 1); err != nil {
			return err
		}
		if *f.MaxFiles > MaxLogFiles {
			return fmt.Errorf("%s: must be at most %d (guard log reads every rotated file), got %d", where("max_files"), MaxLogFiles, *f.MaxFiles)
		}
		l.MaxFiles = *f.MaxFiles
	}
	if f.Level != nil {
		l.Level = *f.Level
	}
	if f.Format != nil {
		l.Format = *f.Format
	}
	return nil
}

func (c *Cooldown) apply(f *cooldownFields, where locator) error {
	if f.Preset != nil && *f.Preset != "" {
		preset, ok := Presets[*f.Preset]
		if !ok {
			names := make([]string, 0, len(Presets))
			for n := range Presets {
				names = append(names, n)
			}
			sort.Strings(names)
			return fmt.Errorf("%s: unknown preset %q; the presets are %s", where("preset"), *f.Preset, strings.Join(names, ", "))
		}
		p := preset()
		p.StateFile = c.StateFile
		p.FailureMode = c.FailureMode
		*c = p
	}
	if f.FailureMode != nil {
		if m := *f.FailureMode; m != "open" && m != "closed" {
			return fmt.Errorf("%s: must be open or closed, got %q", where("failure_mode"), m)
		}
		c.FailureMode = *f.FailureMode
	}
	if f.StateFile != nil {
		if err := CheckStateLocation(*f.StateFile); err != nil {
			return fmt.Errorf("%s: %v", where("state_file"), err)
		}
		c.StateFile = *f.StateFile
	}
	if f.ResetAfterHealthy != nil {
		if err := atLeast(where, "reset_after_healthy", *f.ResetAfterHealthy, 1); err != nil {
			return err
		}
		c.ResetAfterHealthy = *f.ResetAfterHealthy
	}
	if f.Retention != nil {
		c.Retention = time.Duration(*f.Retention)
	}
	if f.Actions != nil {
		actions := make(map[string]Action, len(c.Actions)+len(f.Actions))
		for name, a := range c.Actions {
			actions[name] = a
		}
		for name, af := range f.Actions {
			if _, ok := actions[name]; !ok {
				if other := ActionAlias(name); other != "" {
					if _, ok := actions[other]; ok {
						name = other // Claude Ops' name for guard's action, or the other way round
					}
				}
			}
			a := actions[name] // an existing action is changed, a new one starts empty
			key := "actions." + name
			if af.Field != nil {
				a.Field = *af.Field
			}
			if af.Limit != nil {
				if err := atLeast(where, key+".limit", *af.Limit, 0); err != nil {
					return err
				}
				a.Limit = *af.Limit
			}
			if af.Window != nil {
				a.Window = time.Duration(*af.Window)
			}
			if af.Timestamps != nil {
				a.Timestamps = *af.Timestamps
			}
			if a.Field == "" {
				return fmt.Errorf("%s: needs a field, the array it records into (e.g. restarts)", where(key))
			}
			if a.Window <= 0 {
				return fmt.Errorf("%s: needs a window longer than 0s", where(key))
			}
			actions[name] = a
		}
		c.Actions = actions
	}
	if f.Patterns != nil {
		ps := make([]Pattern, 0, len(*f.Patterns))
		for i, pf := range *f.Patterns {
			key := fmt.Sprintf("patterns[%d]", i)
			if pf.Regex == nil || pf.Action == nil {
				return fmt.Errorf("%s: needs both regex and action", where(key))
			}
			p, err := compilePattern(*pf.Regex, *pf.Action)
			if err != nil {
				return fmt.Errorf("%s: %v", where(key), err)
			}
			ps = append(ps, p)
		}
		c.Patterns = ps
	}
	for _, p := range c.Patterns {
		if _, ok := c.Actions[p.Action]; !ok {
			return fmt.Errorf("%s: pattern %q names action %q, which is not defined", where("patterns"), p.Regex, p.Action)
		}
	}
	return nil
}
