package config

import (
	"fmt"
	"slices"
	"strings"
)

// varProblem words the variables a path used that are not set, or are
// empty: "$A, $B are not set and $C is empty".
func varProblem(unset, empty []string) string {
	var parts []string
	word := func(names []string, what string) {
		if len(names) == 1 {
			parts = append(parts, "$"+names[0]+" is "+what)
		} else if len(names) > 1 {
			parts = append(parts, "$"+strings.Join(names, ", $")+" are "+what)
		}
	}
	word(unset, "not set")
	word(empty, "empty")
	return strings.Join(parts, " and ")
}

// expandVars expands $NAME, ${NAME}, ${NAME:-WORD} and ${NAME-WORD} in s
// as sh(1) does: ${NAME:-WORD} is WORD when NAME is unset or empty,
// ${NAME-WORD} only when it is unset, and WORD is expanded in turn. A
// default is taken as written, even an empty one; but a variable that is
// used and is not set, or is set to "", is a problem (a path made with it
// would not mean what it says): their names are returned, in unset and
// empty, for the caller to refuse. Any other ${...} form
// (${NAME:=WORD}, ${#NAME}, ...) is an error: guard would not give it the
// shell's meaning. A $ followed by no name is kept as it is; one of the
// shell's special parameters ($$, $?, ...) is never set.
//
// lookup returns a variable's value and whether it is set.
func expandVars(s string, lookup func(string) (string, bool)) (out string, unset, empty []string, err error) {
	if !strings.Contains(s, "$") {
		return s, nil, nil, nil
	}
	var b strings.Builder
	use := func(name string) {
		v, set := lookup(name)
		switch {
		case !set && !slices.Contains(unset, name):
			unset = append(unset, name)
		case set && v == "" && !slices.Contains(empty, name):
			empty = append(empty, name)
		}
		b.WriteString(v)
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c != '$' {
			b.WriteByte(c)
			i++
			continue
		}
		if i+1 < len(s) && s[i+1] == '{' {
			end := closingBrace(s, i+2)
			if end < 0 {
				return "", nil, nil, fmt.Errorf("%q has no closing }", s[i:])
			}
			body := s[i+2 : end]
			n := nameLen(body)
			name, op := body[:n], body[n:]
			switch {
			case n == 0:
				return "", nil, nil, fmt.Errorf("${%s} is not a variable guard can expand: it takes $NAME, ${NAME}, ${NAME:-default} and ${NAME-default}", body)
			case op == "":
				use(name)
			case strings.HasPrefix(op, ":-") || strings.HasPrefix(op, "-"):
				word := strings.TrimPrefix(strings.TrimPrefix(op, ":"), "-")
				v, set := lookup(name)
				if set && (v != "" || op[0] == '-') {
					use(name)
					break
				}
				w, u, e, err := expandVars(word, lookup)
				if err != nil {
					return "", nil, nil, err
				}
				for _, name := range u {
					if !slices.Contains(unset, name) {
						unset = append(unset, name)
					}
				}
				for _, name := range e {
					if !slices.Contains(empty, name) {
						empty = append(empty, name)
					}
				}
				b.WriteString(w)
			default:
				return "", nil, nil, fmt.Errorf("${%s} is not a form guard can expand: it takes $NAME, ${NAME}, ${NAME:-default} and ${NAME-default}", body)
			}
			i = end + 1
			continue
		}
		n := nameLen(s[i+1:])
		if n == 0 && i+1 < len(s) && strings.IndexByte("*#$@!?-", s[i+1]) >= 0 {
			n = 1 // the shell's own parameters ($$, $?, ...): never set for guard
		}
		if n == 0 {
			b.WriteByte('$') // "$", "a$/b": no variable
			i++
			continue
		}
		use(s[i+1 : i+1+n])
		i += 1 + n
	}
	return b.String(), unset, empty, nil
}

// nameLen is the length of the variable name s starts with: letters,
// digits and underscores (as os.Expand takes them).
func nameLen(s string) int {
	n := 0
	for n < len(s) {
		c := s[n]
		if c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' {
			n++
			continue
		}
		break
	}
	return n
}

// closingBrace returns the index of the } that closes the ${ whose body
// starts at from, skipping nested ${...}; -1 if there is none.
func closingBrace(s string, from int) int {
	depth := 0
	for i := from; i < len(s); i++ {
		switch {
		case s[i] == '$' && i+1 < len(s) && s[i+1] == '{':
			depth++
			i++
		case s[i] == '}':
			if depth == 0 {
				return i
			}
			depth--
		}
	}
	return -1
}
