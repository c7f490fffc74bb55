package claude

import (
	"regexp"
	"strings"
	"sync"
)

// pluginPlaceholders are the placeholders Claude Code fills into a
// plugin's exec-form hook's args (${user_config.NAME} is a value the user
// gave the plugin, a token maybe): a key must not hold what they become.
var pluginPlaceholders = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\$\{(CLAUDE_PLUGIN_ROOT|CLAUDE_PLUGIN_DATA|user_config\.[^}]*)\}`)
})

// PluginKey is the key (guard run --name) of a plugin's hook that runs
// own (its command, or its program and args as a shell reads them):
// "plugin NAME@MARKET: own", own's ${CLAUDE_PLUGIN_ROOT}, ${CLAUDE_PLUGIN_DATA}
// and ${user_config.*} written $CLAUDE_PLUGIN_ROOT and so on, which Claude
// Code leaves as they are. The plugin's root holds its version
// (~/.claude/plugins/cache/MARKET/NAME/1.2.0): the key does not, so an
// update of the plugin keeps its hooks' circuits. ${CLAUDE_PROJECT_DIR}
// stays, and becomes the project, so that such a hook has a circuit per
// project, as guard keeps one for a settings file's hook.
//
// $CLAUDE_PROJECT_DIR written without braces is written ${CLAUDE_PROJECT_DIR},
// which Claude Code fills in, so that a hook that refers to the project has
// a circuit per project however it spells the variable.
func PluginKey(plugin, own string) string {
	own = pluginPlaceholders().ReplaceAllString(own, "$$$1")
	return "plugin " + plugin + ": " + bareProjectDir().ReplaceAllString(own, "$${CLAUDE_PROJECT_DIR}$1")
}

// bareProjectDir is $CLAUDE_PROJECT_DIR without braces, and what follows
// it (not part of a longer name).
var bareProjectDir = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\$CLAUDE_PROJECT_DIR([^A-Za-z0-9_]|$)`)
})

// shellVars are the placeholders Claude Code fills into the args of an
// exec-form hook, and also exports to it as variables.
var shellVars = []string{"CLAUDE_PLUGIN_ROOT", "CLAUDE_PROJECT_DIR", "CLAUDE_PLUGIN_DATA"}

// hidePlaceholders writes each ${VAR} of shellVars in raw, the JSON text
// of a shell command, as ${VAR:-}, which bash expands the same way (the
// variable is set) but Claude Code does not fill in: a shell-form hook
// written in exec form is then run as Claude Code 2.1 runs it in shell
// form, bash expanding the variable, and not with the path pasted into
// the command, where a $ or a backtick in it would be expanded again. It
// reports false for a command it cannot write so and read back: one that
// has ${VAR:-} already, or a placeholder written with escapes.
func hidePlaceholders(raw []byte) ([]byte, bool) {
	decoded := decode(raw[1 : len(raw)-1])
	out := string(raw)
	for _, v := range shellVars {
		if strings.Contains(out, "${"+v+":-}") || strings.Count(decoded, "${"+v+"}") != strings.Count(out, "${"+v+"}") {
			return nil, false
		}
		out = strings.ReplaceAll(out, "${"+v+"}", "${"+v+":-}")
	}
	return []byte(out), true
}

// showPlaceholders undoes hidePlaceholders.
func showPlaceholders(s string) string {
	for _, v := range shellVars {
		s = strings.ReplaceAll(s, "${"+v+":-}", "${"+v+"}")
	}
	return s
}
