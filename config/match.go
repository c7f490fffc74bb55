package config

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
)

// globRegexp compiles a glob over a whole key. Keys are command lines, so
// unlike path globs, "*" matches any run of characters, "/" included; "?"
// matches one character and "[...]" a class.
func globRegexp(glob string) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteString(`^(?s:`)
	for i := 0; i < len(glob); i++ {
		switch c := glob[i]; c {
		case '*':
			b.WriteString(`.*`)
		case '?':
			b.WriteString(`.`)
		case '[':
			end := strings.IndexByte(glob[i+1:], ']')
			if end < 0 {
				return nil, fmt.Errorf("glob %q has an unclosed [", glob)
			}
			class := glob[i+1 : i+1+end]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + strings.ReplaceAll(class, `\`, `\\`) + "]")
			i += end + 1
		case '\\':
			if i+1 < len(glob) {
				i++
			}
			b.WriteString(regexp.QuoteMeta(glob[i : i+1]))
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString(`)$`)
	return regexp.Compile(b.String())
}

// Glob compiles a glob over a whole string (a key, an event name), as the
// hooks rules read them: "*" matches any run of characters, "/" included.
func Glob(pattern string) (*regexp.Regexp, error) { return globRegexp(pattern) }

// IsGlob reports whether p holds glob characters.
func IsGlob(p string) bool { return isGlob(p) }

func isGlob(p string) bool { return strings.ContainsAny(p, "*?[") }

// checkExclude reports whether an exclude pattern is usable.
func checkExclude(p string) error {
	if p == "" {
		return errors.New("an empty exclude pattern would exclude every key")
	}
	if isGlob(p) {
		_, err := globRegexp(p)
		return err
	}
	return nil
}

// MatchPattern applies one exclude pattern the way the Python guardrails
// did: a plain string matches any key that contains it, and a pattern with
// glob characters must match the whole key.
func MatchPattern(p, key string) bool {
	if !isGlob(p) {
		return strings.Contains(key, p)
	}
	re, err := globRegexp(p)
	return err == nil && re.MatchString(key)
}

func compileRule(r *HookRule) error {
	switch {
	case r.Match != "" && r.Regex != "":
		return errors.New("set match or regex, not both")
	case r.Match != "":
		re, err := globRegexp(r.Match)
		r.re = re
		return err
	case r.Regex != "":
		re, err := regexp.Compile(r.Regex)
		if err != nil {
			return fmt.Errorf("regex %q: %v", r.Regex, err)
		}
		r.re = re
		return nil
	}
	return errors.New("needs match (a glob over the key) or regex")
}

// compilePattern checks a cooldown pattern. It is compiled when first
// used (see Pattern.Regexp): guard run, which reads the same config, never
// uses it, and parsing is half of what compiling costs.
func compilePattern(regex, action string) (Pattern, error) {
	if builtinPattern(regex) {
		// One of guard's own, as guardrails.example.yaml spells them out:
		// known to parse, with its group, and not worth parsing on every
		// guard run.
		return Pattern{Regex: regex, Action: action}, nil
	}
	re, err := syntax.Parse(regex, syntax.Perl)
	if err != nil {
		return Pattern{}, fmt.Errorf("regex %q: %v", regex, err)
	}
	if names := re.CapNames(); !slices.Contains(names, "service") && !slices.Contains(names, "services") {
		return Pattern{}, fmt.Errorf("regex %q has no (?P<service>...) group (or (?P<services>...), for a list of services separated by spaces)", regex)
	}
	return Pattern{Regex: regex, Action: action}, nil
}

// checkOutputPattern checks an ignore_output or failure_output pattern, as
// OutputPatterns compiles it when a run's output is classified.
func checkOutputPattern(re string) error {
	if re == "" {
		return errors.New("an empty pattern would match every output")
	}
	c, err := regexp.Compile("(?m)" + re)
	if err != nil {
		return fmt.Errorf("regex %q: %v", strings.TrimPrefix(re, "(?m)"), err)
	}
	if c.MatchString("") {
		return fmt.Errorf("regex %q matches empty output, so it would match every run", re)
	}
	return nil
}

// OutputPatterns compiles patterns checked when they were loaded. Output
// is lines: ^ and $ match at the start and end of each line.
func OutputPatterns(patterns []string) []*regexp.Regexp {
	out := make([]*regexp.Regexp, 0, len(patterns))
	for _, p := range patterns {
		if re, err := regexp.Compile("(?m)" + p); err == nil {
			out = append(out, re)
		}
	}
	return out
}

// builtinPattern reports whether regex is the regex of one of guard's own
// patterns: the default ones, or a preset's.
func builtinPattern(regex string) bool { return builtinPatterns()[regex] }

var builtinPatterns = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, p := range defaultPatterns() {
		m[p.Regex] = true
	}
	for _, preset := range Presets {
		for _, p := range preset().Patterns {
			m[p.Regex] = true
		}
	}
	return m
})
