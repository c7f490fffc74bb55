package claudetest

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// A Plugin is a plugin laid out by hand the way Claude Code's plugin
// commands lay one out, so that a session loads it once the settings
// enable it ("enabledPlugins": {"NAME@MARKET": true}).
type Plugin struct {
	Name, Market, Version string
	// Directory, if set, makes the marketplace a "directory" one at this
	// path, holding the plugin in plugins/NAME: Claude Code then runs the
	// plugin from there. Otherwise the marketplace is recorded as a GitHub
	// one, under ~/.claude/plugins/marketplaces/MARKET, and the plugin
	// runs from its copy in the cache, ~/.claude/plugins/cache/MARKET/NAME/VERSION.
	Directory string
	// Files are the plugin's files, by path from its root
	// (hooks/hooks.json, .claude-plugin/plugin.json, scripts).
	// Files ending in .sh are made executable.
	Files map[string]string
}

// InstallPlugin lays p out under home: its files, the marketplace's
// .claude-plugin/marketplace.json, and its entries in
// ~/.claude/plugins/known_marketplaces.json and installed_plugins.json
// (added to what they hold). It returns the plugin's root, where Claude
// Code runs its hooks (their ${CLAUDE_PLUGIN_ROOT}).
func InstallPlugin(home string, p Plugin) (string, error) {
	plugins := filepath.Join(home, ".claude", "plugins")
	cache := filepath.Join(plugins, "cache", p.Market, p.Name, p.Version)
	market := filepath.Join(plugins, "marketplaces", p.Market)
	source := map[string]any{"source": "github", "repo": "guard-tests/" + p.Market}
	root := cache
	if p.Directory != "" {
		market = p.Directory
		source = map[string]any{"source": "directory", "path": p.Directory}
		root = filepath.Join(p.Directory, "plugins", p.Name)
	}
	for rel, data := range p.Files {
		path := filepath.Join(root, filepath.FromSlash(rel))
		if err := writeFile(path, data); err != nil {
			return "", err
		}
		if filepath.Ext(rel) == ".sh" {
			if err := os.Chmod(path, 0o755); err != nil {
				return "", err
			}
		}
	}
	if _, ok := p.Files[".claude-plugin/plugin.json"]; !ok {
		manifest, _ := json.Marshal(map[string]string{"name": p.Name, "version": p.Version})
		if err := writeFile(filepath.Join(root, ".claude-plugin", "plugin.json"), string(manifest)); err != nil {
			return "", err
		}
	}
	if err := addEntry(filepath.Join(market, ".claude-plugin", "marketplace.json"), func(doc map[string]any) {
		doc["name"] = p.Market
		doc["owner"] = map[string]any{"name": "guard tests"}
		list, _ := doc["plugins"].([]any)
		doc["plugins"] = append(list, map[string]any{"name": p.Name, "source": "./plugins/" + p.Name, "description": "a test plugin"})
	}); err != nil {
		return "", err
	}
	const when = "2026-11-01T00:00:00.000Z"
	if err := addEntry(filepath.Join(plugins, "known_marketplaces.json"), func(doc map[string]any) {
		doc[p.Market] = map[string]any{"source": source, "installLocation": market, "lastUpdated": when}
	}); err != nil {
		return "", err
	}
	err := addEntry(filepath.Join(plugins, "installed_plugins.json"), func(doc map[string]any) {
		doc["version"] = 2
		all, _ := doc["plugins"].(map[string]any)
		if all == nil {
			all = map[string]any{}
		}
		all[p.Name+"@"+p.Market] = []any{map[string]any{"scope": "user", "installPath": cache, "version": p.Version,
			"installedAt": when, "lastUpdated": when}}
		doc["plugins"] = all
	})
	return root, err
}

// addEntry edits the JSON object in the file at path (an empty one if
// there is no file).
func addEntry(path string, edit func(map[string]any)) error {
	doc := map[string]any{}
	data, err := os.ReadFile(path)
	switch {
	case err == nil:
		if err := json.Unmarshal(data, &doc); err != nil {
			return err
		}
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	edit(doc)
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	return writeFile(path, string(out)+"\n")
}
