package guardrun

import (
	"strconv"
	"strings"
	"time"
)

// A RunLine is a guard run command line, parsed: the call, and the files
// it names.
type RunLine struct {
	Call
	Config string // --config
	State  string // --state
}

// ParseRunLine parses the arguments of guard run (those after "run") on
// guard's hot path, where setting up urfave/cli would cost a quarter of a
// millisecond. It understands only well-formed lines of the flags runCommand
// declares, each given once, and parses them as urfave/cli does; for
// anything else (help, a bad value, an unknown flag) it returns false, and
// urfave/cli parses the line and reports what is wrong. A test holds the two
// parsers to the same results.
func ParseRunLine(args []string) (RunLine, bool) {
	var l RunLine
	if len(args) > 0 && args[len(args)-1] == "--generate-bash-completion" {
		return l, false // urfave/cli's completion, wherever it is
	}
	var seen []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			l.Args = args[i+1:]
			break
		}
		if len(a) < 2 || a[0] != '-' {
			l.Args = args[i:]
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
			l.Command, l.HasCommand = value, true
		case "name":
			l.Name = value
		case "config":
			l.Config = value
		case "state":
			l.State = value
		case "on-skip":
			l.OnSkip = &value
		case "fallback":
			l.Fallback = &value
		case "shell":
			l.Shell = value
		case "from-python":
			// what the hook was under the Python wrapper, for guard uninstall
		case "hook-timeout":
			d, err := ParseHookTimeout(value)
			if err != nil {
				return l, false
			}
			l.HookTimeout = &d
		case "timeout", "cooldown":
			d, err := time.ParseDuration(value)
			if err != nil {
				return l, false
			}
			if name == "timeout" {
				l.Timeout = &d
			} else {
				l.Cooldown = &d
			}
		case "failure-threshold", "success-threshold", "cooldown-seconds":
			n64, err := strconv.ParseInt(value, 0, strconv.IntSize)
			if err != nil {
				return l, false
			}
			n := int(n64)
			switch name {
			case "failure-threshold":
				l.FailureThreshold = &n
			case "success-threshold":
				l.SuccessThreshold = &n
			default:
				l.CooldownSeconds = &n
			}
		default:
			return l, false
		}
	}
	if len(l.Args) == 0 {
		l.Args = nil
	}
	return l, true
}
