package doctor

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"guard/internal/claude"
)

// Plugins checks the hooks of the enabled plugins (disabled ones are left
// out): each command hook is listed with its plugin, behind guard or not,
// and checked as a settings file's hook is, its ${CLAUDE_PLUGIN_ROOT}
// read as the plugin's root. A plugin with hooks not behind guard gets a
// warning (install --plugins wraps them; an update of the plugin puts
// them back as they were), and so does one Claude Code does not load.
func Plugins(plugins []claude.Plugin, env Env) ([]Checked, []Finding) {
	var checked []Checked
	var findings []Finding
	for _, p := range plugins {
		if !p.Enabled {
			continue
		}
		what := "plugin " + p.ID
		if p.Unloaded != "" {
			checked = append(checked, Checked{What: what, Detail: "not loaded: " + p.Unloaded})
			findings = append(findings, Finding{Warning: true, Where: what + " (enabled in " + p.EnabledIn + ")",
				Problem: "is enabled, but Claude Code does not load it: " + p.Unloaded,
				Fix:     "install it again (claude plugin install " + p.ID + "), or disable it"})
			continue
		}
		penv := env
		penv.PluginRoot, penv.PluginData, penv.Plugin = p.Root, p.Data, p.ID
		total, guarded := 0, 0
		var bare []string
		for _, file := range p.HookFiles {
			doc, err := env.ReadFile(file)
			if err != nil {
				findings = append(findings, Finding{Where: file, Problem: "cannot be read: " + err.Error(), Fix: "check its permissions: Claude Code cannot read it either"})
				continue
			}
			c, fs, hooks := settings(file, doc, penv)
			if c.Detail == "invalid" {
				findings = append(findings, fs...)
				continue
			}
			for _, f := range fs {
				f.Where = what + ", " + strings.TrimPrefix(f.Where, file+", ")
				findings = append(findings, f)
			}
			for _, h := range hooks {
				total++
				place := h.Event
				if h.Matcher != "" {
					place += "[" + h.Matcher + "]"
				}
				detail := "not behind guard"
				if h.Guard != "" && !h.Broken {
					guarded++
					detail = "behind guard"
				} else {
					bare = append(bare, place+": "+own(h))
				}
				checked = append(checked, Checked{What: what + " hook " + place + ": " + own(h), Detail: detail})
			}
		}
		checked = append(checked, Checked{What: what + " (" + p.Root + ")", Detail: fmt.Sprintf("%d command hooks, %d behind guard", total, guarded)})
		if len(bare) > 0 {
			findings = append(findings, Finding{Warning: true, Where: what,
				Problem: fmt.Sprintf("%d of its %d command hooks are not behind guard (%s); a plugin update puts its hooks back as they were", len(bare), total, strings.Join(bare, "; ")),
				Fix:     "guard install --plugins wraps them (guard install --plugins --auto does it again at the start of each session after an update)"})
		}
		for _, nc := range p.NotCovered {
			findings = append(findings, Finding{Warning: true, Where: what, Problem: nc + ": guard does not wrap them", Fix: "move them to hooks/hooks.json of the plugin, then guard install --plugins"})
		}
	}
	return checked, findings
}

// FrontmatterFiles are the skills, slash commands and agents whose
// frontmatter may hold hooks: in Claude Code's user directory, the
// project's .claude/, and the enabled plugins.
func FrontmatterFiles(claudeDir, projectDir string, plugins []claude.Plugin) []string {
	var roots []string
	roots = append(roots, claudeDir)
	if projectDir != "" {
		roots = append(roots, filepath.Join(projectDir, ".claude"))
	}
	for _, p := range plugins {
		if p.Enabled && p.Unloaded == "" {
			roots = append(roots, p.Root)
		}
	}
	var out []string
	for _, r := range roots {
		skills, _ := os.ReadDir(filepath.Join(r, "skills"))
		for _, s := range skills {
			if s.IsDir() {
				out = append(out, filepath.Join(r, "skills", s.Name(), "SKILL.md"))
			}
		}
		for _, sub := range []string{"commands", "agents"} {
			walkMarkdown(filepath.Join(r, sub), 0, &out)
		}
	}
	return out
}

// walkMarkdown adds the .md files under dir, a few levels deep.
func walkMarkdown(dir string, depth int, out *[]string) {
	entries, err := os.ReadDir(dir)
	if err != nil || depth > 3 {
		return
	}
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		switch {
		case e.IsDir():
			walkMarkdown(path, depth+1, out)
		case e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".md"):
			*out = append(*out, path)
		}
	}
}

// Frontmatter warns about each file whose YAML frontmatter (between the
// --- lines that start it) has hooks: Claude Code runs them while the
// skill, command or agent is in use, and guard does not wrap them.
func Frontmatter(files []string, env Env) []Finding {
	var out []Finding
	for _, f := range files {
		data, err := env.ReadFile(f)
		if err != nil || !frontmatterHasHooks(data) {
			continue
		}
		out = append(out, Finding{Warning: true, Where: f,
			Problem: "has hooks in its frontmatter, which Claude Code runs while it is in use, and which guard does not wrap",
			Fix:     "to guard one, make its command guard run -c '...' by hand, or move it into a settings file, which guard install wraps"})
	}
	return out
}

// frontmatterHasHooks reports whether the frontmatter of a Markdown file
// has a hooks: key at its top level.
func frontmatterHasHooks(data []byte) bool {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if !bytes.HasPrefix(data, []byte("---")) {
		return false
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Scan() // the opening ---
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimRight(line, " \r") == "---" {
			return false
		}
		if strings.HasPrefix(line, "hooks:") {
			return true
		}
	}
	return false
}
