package config

import "time"

// MarshalYAML writes a Duration the short way: "5m", "0s".
func (d Duration) MarshalYAML() (any, error) { return FormatDuration(time.Duration(d)), nil }

// MarshalYAML writes a Size with its largest whole unit: "10MiB".
func (z Size) MarshalYAML() (any, error) { return FormatSize(int64(z)), nil }

func dur(d time.Duration) *Duration { v := Duration(d); return &v }

// fields returns every setting of b, for printing.
func (b *Breaker) fields() breakerFields {
	return breakerFields{
		Enabled:           &b.Enabled,
		FailureThreshold:  &b.FailureThreshold,
		FailureWindow:     dur(b.FailureWindow),
		SuccessThreshold:  &b.SuccessThreshold,
		Cooldown:          dur(b.Cooldown),
		MaxCooldown:       dur(b.MaxCooldown),
		HalfOpenMaxCalls:  &b.HalfOpenMaxCalls,
		ProbeLease:        dur(b.ProbeLease),
		Timeout:           dur(b.Timeout),
		KillGrace:         dur(b.KillGrace),
		KillBackground:    &b.KillBackground,
		Scope:             &b.Scope,
		OfLast:            &b.OfLast,
		FailureRate:       (*Percent)(&b.FailureRate),
		SlowCallRate:      (*Percent)(&b.SlowCallRate),
		MinimumCalls:      &b.MinimumCalls,
		Mode:              &b.Mode,
		SlowCall:          dur(b.SlowCall),
		MaxConcurrent:     &b.MaxConcurrent,
		QueueTimeout:      dur(b.QueueTimeout),
		SuccessExitCodes:  &b.SuccessExitCodes,
		IgnoreExitCodes:   &b.IgnoreExitCodes,
		OpenExitCode:      &b.OpenExitCode,
		LaunchFailureExit: &b.LaunchFailureExit,
		OnSkip:            &b.OnSkip,
		Exclude:           &b.Exclude,
		Retention:         dur(b.Retention),
		SessionRetention:  dur(b.SessionRetention),
		MinInterval:       dur(b.MinInterval),

		Fallback:             &b.Fallback,
		FallbackTimeout:      dur(b.FallbackTimeout),
		Retries:              &b.Retries,
		RetryBackoff:         dur(b.RetryBackoff),
		IgnoreOutput:         &b.IgnoreOutput,
		FailureOutput:        &b.FailureOutput,
		OnStateChange:        &b.OnStateChange,
		OnStateChangeTimeout: dur(b.OnStateChangeTimeout),
	}
}

// YAML returns b in the shape of the circuit_breaker section.
func (b *Breaker) YAML() ([]byte, error) {
	return marshalYAML(b.fields())
}

// YAML returns the effective configuration in the shape of guardrails.yaml,
// with every setting spelled out.
func (c *Config) YAML() ([]byte, error) {
	cb := c.CircuitBreaker.fields()
	size := Size(c.Logging.MaxSize)
	f := fileFields{
		StateFile:      &c.StateFile,
		LockTimeout:    dur(c.LockTimeout),
		RecordTimeout:  dur(c.RecordTimeout),
		ConnectTimeout: dur(c.ConnectTimeout),
		FailureMode:    &c.FailureMode,
		Notice:         &c.Notice,
		CircuitBreaker: &cb,
		Logging: &loggingFields{
			File:     &c.Logging.File,
			EventLog: &c.Logging.EventLog,
			MaxSize:  &size,
			MaxFiles: &c.Logging.MaxFiles,
		},
		Cooldown: &cooldownFields{
			StateFile:         &c.Cooldown.StateFile,
			FailureMode:       &c.Cooldown.FailureMode,
			ResetAfterHealthy: &c.Cooldown.ResetAfterHealthy,
			Retention:         dur(c.Cooldown.Retention),
			Actions:           map[string]actionFields{},
		},
	}
	for i := range c.Hooks {
		r := &c.Hooks[i]
		h := hookFields{breakerFields: r.fields}
		if r.Match != "" {
			h.Match = &r.Match
		}
		if r.Regex != "" {
			h.Regex = &r.Regex
		}
		f.Hooks = append(f.Hooks, h)
	}
	for name, a := range c.Cooldown.Actions {
		f.Cooldown.Actions[name] = actionFields{Field: &a.Field, Limit: &a.Limit, Window: dur(a.Window)}
		if a.Timestamps != "" {
			f.Cooldown.Actions[name] = actionFields{Field: &a.Field, Limit: &a.Limit, Window: dur(a.Window), Timestamps: &a.Timestamps}
		}
	}
	patterns := make([]patternFields, len(c.Cooldown.Patterns))
	for i := range c.Cooldown.Patterns {
		p := &c.Cooldown.Patterns[i]
		patterns[i] = patternFields{Regex: &p.Regex, Action: &p.Action}
	}
	f.Cooldown.Patterns = &patterns

	return marshalYAML(f)
}
