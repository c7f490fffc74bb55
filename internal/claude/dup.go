package claude

import (
	"sort"
	"strings"

	"guard/internal/shell"
)

var shellJoin = shell.Join

// A Copy is a hook as one settings file holds it.
type Copy struct {
	File string
	Hook Hook
}

// handler is what makes two hooks the same handler to Claude Code, which
// runs a handler defined identically in several settings files (user,
// project, local) once per event: the event, the command (or program and
// args), the shell and the "if" condition. Guard's wrapping is taken off,
// so that a hook behind guard and its bare copy are the same handler.
func handler(h Hook) string {
	sh := h.Shell
	if sh == "" {
		sh = "bash"
	}
	form := "sh"
	if h.Exec {
		form = "exec"
	}
	own := h.text()
	if h.Guard != "" {
		own, form = h.Inner, "sh"
		if h.InnerArgv != nil {
			own, form = shellJoin(h.InnerArgv), "exec"
		}
	}
	return strings.Join([]string{h.Event, form, sh, h.If, own}, "\x00")
}

// asRun is what Claude Code compares: the hook as written.
func asRun(h Hook) string {
	return strings.Join(append([]string{h.Command}, h.Args...), "\x00")
}

// Differing returns the handlers that are defined in more than one
// settings file but not the same way in each: one copy behind guard and
// another bare, or behind different guards. Claude Code runs such a
// handler once for each different copy, where it would run identical
// copies once. Each group lists every copy, in the order given.
func Differing(copies []Copy) [][]Copy {
	groups := map[string][]Copy{}
	var order []string
	for _, c := range copies {
		if c.Hook.Broken {
			continue // Claude Code cannot start it at all
		}
		k := handler(c.Hook)
		if groups[k] == nil {
			order = append(order, k)
		}
		groups[k] = append(groups[k], c)
	}
	var out [][]Copy
	for _, k := range order {
		g := groups[k]
		files, runs := map[string]bool{}, map[string]bool{}
		for _, c := range g {
			files[c.File] = true
			runs[asRun(c.Hook)] = true
		}
		if len(files) > 1 && len(runs) > 1 {
			out = append(out, g)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i][0].File < out[j][0].File })
	return out
}
