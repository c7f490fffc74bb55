package main

import (
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"
)

// A runLine is a guard run command line, parsed.
type runLine struct {
	command    string // -c STRING
	hasCommand bool
	args       []string // the command to run
	name       string
	config     string
	state      string

	// Overrides of the config; nil where the line has none.
	timeout, cooldown                                   *time.Duration
	failureThreshold, successThreshold, cooldownSeconds *int
}

// lineFromContext reads a guard run command line that urfave/cli parsed.
func lineFromContext(c *cli.Context) runLine {
	l := runLine{
		command:    c.String("command"),
		hasCommand: c.IsSet("command"),
		args:       c.Args().Slice(),
		name:       c.String("name"),
		config:     c.String("config"),
		state:      c.String("state"),
	}
	for name, dst := range map[string]**time.Duration{"timeout": &l.timeout, "cooldown": &l.cooldown} {
		if c.IsSet(name) {
			d := c.Duration(name)
			*dst = &d
		}
	}
	for name, dst := range map[string]**int{"failure-threshold": &l.failureThreshold, "success-threshold": &l.successThreshold, "cooldown-seconds": &l.cooldownSeconds} {
		if c.IsSet(name) {
			n := c.Int(name)
			*dst = &n
		}
	}
	if len(l.args) == 0 {
		l.args = nil
	}
	return l
}

// parseRunLine parses the arguments of guard run (those after "run") on
// guard's hot path, where setting up urfave/cli would cost a quarter of a
// millisecond. It understands only well-formed lines of the flags runCommand
// declares, each given once, and parses them as urfave/cli does; for
// anything else (help, a bad value, an unknown flag) it returns false, and
// urfave/cli parses the line and reports what is wrong. A test holds the two
// parsers to the same results.
func parseRunLine(args []string) (runLine, bool) {
	var l runLine
	if len(args) > 0 && args[len(args)-1] == "--generate-bash-completion" {
		return l, false // urfave/cli's completion, wherever it is
	}
	var seen []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			l.args = args[i+1:]
			break
		}
		if len(a) < 2 || a[0] != '-' {
			l.args = args[i:]
			break
		}
		name := a[1:]
		if name[0] == '-' {
			name = name[1:]
		}
		name, value, hasValue := strings.Cut(name, "=")
		if name == "" || name[0] == '-' {
			return l, false
		}
		if !hasValue {
			if i+1 == len(args) {
				return l, false
			}
			i++
			value = args[i]
		}
		if name == "c" {
			name = "command"
		}
		for _, s := range seen {
			if s == name {
				return l, false
			}
		}
		seen = append(seen, name)
		switch name {
		case "command":
			l.command, l.hasCommand = value, true
		case "name":
			l.name = value
		case "config":
			l.config = value
		case "state":
			l.state = value
		case "timeout", "cooldown":
			d, err := time.ParseDuration(value)
			if err != nil {
				return l, false
			}
			if name == "timeout" {
				l.timeout = &d
			} else {
				l.cooldown = &d
			}
		case "failure-threshold", "success-threshold", "cooldown-seconds":
			n64, err := strconv.ParseInt(value, 0, strconv.IntSize)
			if err != nil {
				return l, false
			}
			n := int(n64)
			switch name {
			case "failure-threshold":
				l.failureThreshold = &n
			case "success-threshold":
				l.successThreshold = &n
			default:
				l.cooldownSeconds = &n
			}
		default:
			return l, false
		}
	}
	if len(l.args) == 0 {
		l.args = nil
	}
	return l, true
}
