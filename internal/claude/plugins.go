package claude

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// A Plugin is a plugin a settings file enables or that Claude Code's
// records hold, and where its hooks are, found the way Claude Code 2.1
// finds them: enabled by "enabledPlugins": {"NAME@MARKET": true} in the
// user's, the project's or the local settings (the last that names it
// wins), installed as recorded in <claude dir>/plugins/installed_plugins.json,
// from a marketplace recorded in known_marketplaces.json (without which
// Claude Code does not load it). Its hooks run from its root: the copy in
// the cache (the record's installPath) for a marketplace Claude Code
// clones (GitHub, git, a URL), the marketplace's own directory for a
// "directory" marketplace.
type Plugin struct {
	ID, Name, Market string
	Version          string
	// Root is where Claude Code runs its hooks: their ${CLAUDE_PLUGIN_ROOT}.
	Root string
	// Data is its ${CLAUDE_PLUGIN_DATA}: <claude dir>/plugins/data/NAME-MARKET.
	Data string
	// Enabled is set when a settings file enables it; EnabledIn names the
	// file that decides (for a disabled one too).
	Enabled   bool
	EnabledIn string
	// HookFiles are the files that hold its hooks, as Claude Code reads
	// them: hooks/hooks.json, the files the manifest's "hooks" names, and
	// the manifest (.claude-plugin/plugin.json) itself when it holds them
	// inline.
	HookFiles []string
	// NotCovered says what of its hooks guard cannot read or rewrite
	// (inline hooks in a list, say); empty if nothing.
	NotCovered []string
	// Unloaded, if set, says why Claude Code does not load the plugin:
	// no record of it, its marketplace unknown, its root missing.
	Unloaded string
}

// A PluginSource is where Plugins looks: Claude Code's user directory
// (~/.claude, or $CLAUDE_CONFIG_DIR), the project (Claude Code's working
// directory), and the file system.
type PluginSource struct {
	ClaudeDir  string
	ProjectDir string
	ReadFile   func(string) ([]byte, error)
	Stat       func(string) (fs.FileInfo, error)
	// ReadDir lists a directory (PluginCopies); nil: os.ReadDir.
	ReadDir func(string) ([]fs.DirEntry, error)
}

// PluginSettings are the settings files that may enable plugins, in the
// order Claude Code reads them (a later one overrides an earlier one).
func (src PluginSource) PluginSettings() []string {
	out := []string{filepath.Join(src.ClaudeDir, "settings.json")}
	if src.ProjectDir != "" {
		out = append(out, filepath.Join(src.ProjectDir, ".claude", "settings.json"), filepath.Join(src.ProjectDir, ".claude", "settings.local.json"))
	}
	return out
}

// Plugins returns the plugins the settings files name in enabledPlugins
// (enabled or not), and those the records hold that none names, sorted
// by ID. An error is a record that cannot be read (one that is not there
// is no error: no plugin is installed).
func Plugins(src PluginSource) ([]Plugin, error) {
	byID := map[string]*Plugin{}
	get := func(id string) *Plugin {
		p := byID[id]
		if p == nil {
			name, market, _ := strings.Cut(id, "@")
			p = &Plugin{ID: id, Name: name, Market: market}
			byID[id] = p
		}
		return p
	}
	for _, path := range src.PluginSettings() {
		data, err := src.ReadFile(path)
		if err != nil {
			continue
		}
		var doc struct {
			Enabled map[string]any `json:"enabledPlugins"`
		}
		if json.Unmarshal(trimBOM(data), &doc) != nil {
			continue
		}
		for id, v := range doc.Enabled {
			if !strings.Contains(id, "@") {
				continue
			}
			p := get(id)
			p.Enabled, p.EnabledIn = v == true, path
		}
	}
	dir, installed, markets, err := readRecords(src)
	if err != nil {
		return nil, err
	}
	for id := range installed {
		get(id)
	}
	var out []Plugin
	for _, p := range byID {
		p.Data = filepath.Join(dir, "data", p.Name+"-"+p.Market)
		src.locate(p, installed[p.ID], markets)
		if p.Unloaded == "" {
			src.hookFiles(p)
		}
		out = append(out, *p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// PluginCopies returns every copy of a plugin that guard install --plugins
// may have wrapped, for guard uninstall --plugins to give back: the copy of
// every record in installed_plugins.json, whatever its scope, its project
// and whether a settings file enables it (install wraps those of the
// project it runs in), a "directory" marketplace's plugins, and every
// version left in the cache (<claude dir>/plugins/cache/MARKET/NAME/VERSION:
// Claude Code keeps the old one a while after an update, and takes it up
// again if the plugin goes back to it). Each has its ID, Root and
// HookFiles; the list is sorted by ID, then Root.
func PluginCopies(src PluginSource) ([]Plugin, error) {
	dir, installed, markets, err := readRecords(src)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []Plugin
	add := func(id, root string) {
		if root == "" || seen[filepath.Clean(root)] {
			return
		}
		if fi, err := src.Stat(root); err != nil || !fi.IsDir() {
			return
		}
		seen[filepath.Clean(root)] = true
		name, market, _ := strings.Cut(id, "@")
		p := Plugin{ID: id, Name: name, Market: market, Root: root}
		src.hookFiles(&p)
		out = append(out, p)
	}
	for id, records := range installed {
		name, market, _ := strings.Cut(id, "@")
		for _, r := range records {
			add(id, r.InstallPath)
		}
		if m, ok := markets[market]; ok && m.Source.Source == "directory" {
			loc := m.InstallLocation
			if loc == "" {
				loc = m.Source.Path
			}
			if rel, _ := src.marketEntry(loc, name); rel != "" {
				add(id, filepath.Join(loc, filepath.FromSlash(rel)))
			}
		}
	}
	cache := filepath.Join(dir, "cache")
	for _, market := range src.dirs(cache) {
		for _, name := range src.dirs(filepath.Join(cache, market)) {
			for _, version := range src.dirs(filepath.Join(cache, market, name)) {
				add(name+"@"+market, filepath.Join(cache, market, name, version))
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].ID != out[j].ID {
			return out[i].ID < out[j].ID
		}
		return out[i].Root < out[j].Root
	})
	return out, nil
}

// dirs returns the names of the directories in dir (none if it cannot be
// read).
func (src PluginSource) dirs(dir string) []string {
	read := src.ReadDir
	if read == nil {
		read = os.ReadDir
	}
	entries, _ := read(dir)
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out
}

// An installRecord is one entry of installed_plugins.json.
type installRecord struct {
	Scope       string `json:"scope"`
	InstallPath string `json:"installPath"`
	Version     string `json:"version"`
	ProjectPath string `json:"projectPath"`
}

// readRecords reads Claude Code's records of plugins in its plugins
// directory (dir): installed_plugins.json and known_marketplaces.json.
func readRecords(src PluginSource) (dir string, installed map[string][]installRecord, markets map[string]marketRecord, err error) {
	dir = filepath.Join(src.ClaudeDir, "plugins")
	if installed, err = readInstalled(src, filepath.Join(dir, "installed_plugins.json")); err != nil {
		return "", nil, nil, err
	}
	if markets, err = readMarkets(src, filepath.Join(dir, "known_marketplaces.json")); err != nil {
		return "", nil, nil, err
	}
	return dir, installed, markets, nil
}

// readInstalled reads installed_plugins.json: version 2 holds a list of
// records for each plugin (one per scope), version 1 one record.
func readInstalled(src PluginSource, path string) (map[string][]installRecord, error) {
	data, err := src.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var doc struct {
		Plugins map[string]json.RawMessage `json:"plugins"`
	}
	if err := json.Unmarshal(trimBOM(data), &doc); err != nil {
		return nil, &PluginRecordError{Path: path, Err: err}
	}
	out := map[string][]installRecord{}
	for id, raw := range doc.Plugins {
		var list []installRecord
		if json.Unmarshal(raw, &list) != nil {
			var one installRecord
			if json.Unmarshal(raw, &one) != nil {
				continue
			}
			list = []installRecord{one}
		}
		out[id] = list
	}
	return out, nil
}

// A marketRecord is one entry of known_marketplaces.json.
type marketRecord struct {
	Source struct {
		Source string `json:"source"`
		Path   string `json:"path"`
	} `json:"source"`
	InstallLocation string `json:"installLocation"`
}

func readMarkets(src PluginSource, path string) (map[string]marketRecord, error) {
	data, err := src.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(trimBOM(data), &doc); err != nil {
		return nil, &PluginRecordError{Path: path, Err: err}
	}
	out := map[string]marketRecord{}
	for name, raw := range doc {
		var m marketRecord
		if json.Unmarshal(raw, &m) == nil {
			out[name] = m
		}
	}
	return out, nil
}

// A PluginRecordError is one of Claude Code's plugin records that is not
// JSON.
type PluginRecordError struct {
	Path string
	Err  error
}

func (e *PluginRecordError) Error() string {
	return "cannot read Claude Code's plugin record " + e.Path + ": " + e.Err.Error()
}

func (e *PluginRecordError) Unwrap() error { return e.Err }

// locate finds where Claude Code runs the plugin p from, or why it does
// not load it.
func (src PluginSource) locate(p *Plugin, records []installRecord, markets map[string]marketRecord) {
	rec, ok := src.pick(records)
	if !ok {
		p.Unloaded = "it is not installed (no record in installed_plugins.json)"
		if len(records) > 0 {
			p.Unloaded = "it is installed for another project (" + records[0].ProjectPath + "), not for this one"
		}
		return
	}
	p.Version = rec.Version
	m, ok := markets[p.Market]
	if !ok {
		p.Unloaded = "its marketplace " + p.Market + " is not in known_marketplaces.json"
		return
	}
	p.Root = rec.InstallPath
	loc := m.InstallLocation
	if loc == "" {
		loc = m.Source.Path
	}
	rel, hooks := src.marketEntry(loc, p.Name)
	if m.Source.Source == "directory" && rel != "" {
		// Claude Code runs the plugin from the marketplace's own
		// directory, where its entry in marketplace.json points.
		p.Root = filepath.Join(loc, filepath.FromSlash(rel))
	}
	if hooks {
		p.NotCovered = append(p.NotCovered, "hooks written in the marketplace's entry for it ("+filepath.Join(loc, ".claude-plugin", "marketplace.json")+"), which guard install does not rewrite")
	}
	if p.Root == "" {
		p.Unloaded = "its record has no installPath"
		return
	}
	if fi, err := src.Stat(p.Root); err != nil || !fi.IsDir() {
		p.Unloaded = "its directory " + p.Root + " is not there"
	}
}

// pick chooses the record Claude Code uses in this project: one of the
// project (or local) scope for this project, else the user's.
func (src PluginSource) pick(records []installRecord) (installRecord, bool) {
	var user *installRecord
	for i, r := range records {
		switch r.Scope {
		case "project", "local":
			if src.ProjectDir != "" && samePath(r.ProjectPath, src.ProjectDir) {
				return r, true
			}
		default:
			if user == nil {
				user = &records[i]
			}
		}
	}
	if user != nil {
		return *user, true
	}
	return installRecord{}, false
}

func samePath(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	return filepath.Clean(a) == filepath.Clean(b)
}

// marketEntry reads the entry of the plugin name in the marketplace at
// dir (its .claude-plugin/marketplace.json): the relative path its
// "source" gives ("" for another kind of source), and whether it writes
// hooks of its own.
func (src PluginSource) marketEntry(dir, name string) (rel string, hooks bool) {
	if dir == "" {
		return "", false
	}
	data, err := src.ReadFile(filepath.Join(dir, ".claude-plugin", "marketplace.json"))
	if err != nil {
		return "", false
	}
	var doc struct {
		Plugins []struct {
			Name   string          `json:"name"`
			Source any             `json:"source"`
			Hooks  json.RawMessage `json:"hooks"`
		} `json:"plugins"`
	}
	if json.Unmarshal(trimBOM(data), &doc) != nil {
		return "", false
	}
	for _, e := range doc.Plugins {
		if e.Name != name {
			continue
		}
		hooks = len(e.Hooks) > 0 && string(e.Hooks) != "null"
		if s, ok := e.Source.(string); ok && !filepath.IsAbs(s) {
			rel = s
		}
		return rel, hooks
	}
	return "", false
}

// hookFiles finds the files that hold the hooks of the plugin p.
func (src PluginSource) hookFiles(p *Plugin) {
	seen := map[string]bool{}
	add := func(path string) {
		if fi, err := src.Stat(path); err == nil && fi.Mode().IsRegular() && !seen[path] {
			seen[path] = true
			p.HookFiles = append(p.HookFiles, path)
		}
	}
	add(filepath.Join(p.Root, "hooks", "hooks.json"))
	manifest := filepath.Join(p.Root, ".claude-plugin", "plugin.json")
	data, err := src.ReadFile(manifest)
	if err != nil {
		return
	}
	var doc struct {
		Hooks json.RawMessage `json:"hooks"`
	}
	if json.Unmarshal(trimBOM(data), &doc) != nil || len(doc.Hooks) == 0 {
		return
	}
	var list []json.RawMessage
	if json.Unmarshal(doc.Hooks, &list) != nil {
		list = []json.RawMessage{doc.Hooks}
	}
	inList := len(list) > 1 || doc.Hooks[0] == '['
	for _, raw := range list {
		var rel string
		switch {
		case json.Unmarshal(raw, &rel) == nil:
			path := filepath.Clean(filepath.Join(p.Root, filepath.FromSlash(rel)))
			if !strings.HasPrefix(path, filepath.Clean(p.Root)+string(filepath.Separator)) {
				p.NotCovered = append(p.NotCovered, "the manifest's hooks file "+rel+" is outside the plugin, which Claude Code refuses")
				continue
			}
			add(path)
		case len(raw) > 0 && raw[0] == '{' && !inList:
			add(manifest) // its "hooks" object, read as a settings file's
		case len(raw) > 0 && raw[0] == '{':
			p.NotCovered = append(p.NotCovered, "hooks written inline in a list in "+manifest+", which guard install does not rewrite")
		}
	}
}

func trimBOM(doc []byte) []byte {
	if len(doc) >= 3 && string(doc[:3]) == "\xef\xbb\xbf" {
		return doc[3:]
	}
	return doc
}
