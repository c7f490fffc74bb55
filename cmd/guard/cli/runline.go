package cli

import (
	"guard/cmd/guard/guardrun"
	"time"

	"github.com/urfave/cli/v2"
)

// lineFromContext reads a guard run command line that urfave/cli parsed.
func lineFromContext(c *cli.Context) guardrun.RunLine {
	l := guardrun.RunLine{
		Call: guardrun.Call{
			Command:    c.String("command"),
			HasCommand: c.IsSet("command"),
			Args:       c.Args().Slice(),
			Name:       c.String("name"),
			Shell:      c.String("shell"),
		},
		Config: c.String("config"),
		State:  c.String("state"),
	}
	if c.IsSet("on-skip") {
		v := c.String("on-skip")
		l.OnSkip = &v
	}
	if c.IsSet("fallback") {
		v := c.String("fallback")
		l.Fallback = &v
	}
	if v, ok := c.Generic("hook-timeout").(*hookTimeoutValue); ok && c.IsSet("hook-timeout") {
		d := v.d
		l.HookTimeout = &d
	}
	for name, dst := range map[string]**time.Duration{"timeout": &l.Timeout, "cooldown": &l.Cooldown} {
		if c.IsSet(name) {
			d := c.Duration(name)
			*dst = &d
		}
	}
	for name, dst := range map[string]**int{"failure-threshold": &l.FailureThreshold, "success-threshold": &l.SuccessThreshold, "cooldown-seconds": &l.CooldownSeconds} {
		if c.IsSet(name) {
			n := c.Int(name)
			*dst = &n
		}
	}
	if len(l.Args) == 0 {
		l.Args = nil
	}
	return l
}

// A hookTimeoutValue is --hook-timeout's value for urfave/cli, read by
// guardrun.ParseHookTimeout.
type hookTimeoutValue struct{ d time.Duration }

func (v *hookTimeoutValue) Set(s string) error {
	d, err := guardrun.ParseHookTimeout(s)
	if err == nil {
		v.d = d
	}
	return err
}

func (v *hookTimeoutValue) String() string {
	if v == nil || v.d == 0 {
		return ""
	}
	return v.d.String()
}
