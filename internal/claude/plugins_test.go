package claude

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// memFS is a file system of files (and the directories above them).
type memFS map[string]string

func (m memFS) ReadFile(p string) ([]byte, error) {
	if s, ok := m[p]; ok {
		return []byte(s), nil
	}
	return nil, &fs.PathError{Op: "open", Path: p, Err: fs.ErrNotExist}
}

func (m memFS) Stat(p string) (fs.FileInfo, error) {
	if _, ok := m[p]; ok {
		return fileInfo{name: filepath.Base(p)}, nil
	}
	for f := range m {
		if len(f) > len(p) && f[:len(p)+1] == p+"/" {
			return fileInfo{name: filepath.Base(p), dir: true}, nil
		}
	}
	return nil, &fs.PathError{Op: "stat", Path: p, Err: fs.ErrNotExist}
}

type fileInfo struct {
	name string
	dir  bool
}

func (f fileInfo) Name() string { return f.name }
func (f fileInfo) Size() int64  { return 0 }
func (f fileInfo) Mode() fs.FileMode {
	if f.dir {
		return fs.ModeDir | 0o755
	}
	return 0o644
}
func (f fileInfo) ModTime() time.Time { return time.Time{} }
func (f fileInfo) IsDir() bool        { return f.dir }
func (f fileInfo) Sys() any           { return nil }

// TestPlugins: the plugins Claude Code loads, as its records lay them out:
// a version 1 and a version 2 record, a project-scope record for this
// project and one for another, a plugin whose marketplace is unknown
// (Claude Code does not load it), a disabled one, a directory
// marketplace, hooks in plugin.json and in a file it names.
func TestPlugins(t *testing.T) {
	c := "/h/.claude"
	m := memFS{
		c + "/settings.json":                `{"enabledPlugins": {"a@gh": true, "b@gh": true, "lost@nowhere": true, "off@gh": true, "d@dir": true, "theirs@gh": true}}`,
		"/proj/.claude/settings.local.json": `{"enabledPlugins": {"off@gh": false}}`,
		c + "/plugins/installed_plugins.json": `{"version": 2, "plugins": {
			"a@gh": [{"scope": "project", "projectPath": "/other", "installPath": "/cache/a/0.1"},
			         {"scope": "project", "projectPath": "/proj", "installPath": "/cache/a/0.2", "version": "0.2"},
			         {"scope": "user", "installPath": "/cache/a/0.3"}],
			"b@gh": {"scope": "user", "installPath": "/cache/b/1.0"},
			"lost@nowhere": [{"scope": "user", "installPath": "/cache/lost/1"}],
			"off@gh": [{"scope": "user", "installPath": "/cache/off/1"}],
			"d@dir": [{"scope": "user", "installPath": "/cache/d/1"}],
			"theirs@gh": [{"scope": "project", "projectPath": "/other", "installPath": "/cache/theirs/1"}]}}`,
		c + "/plugins/known_marketplaces.json": `{"gh": {"source": {"source": "github", "repo": "x/gh"}, "installLocation": "/m/gh"},
			"dir": {"source": {"source": "directory", "path": "/src/my market"}, "installLocation": "/src/my market"}}`,
		"/src/my market/.claude-plugin/marketplace.json":      `{"name": "dir", "plugins": [{"name": "d", "source": "./plugins/d"}]}`,
		"/cache/a/0.2/hooks/hooks.json":                       `{"hooks": {}}`,
		"/cache/b/1.0/.claude-plugin/plugin.json":             `{"name": "b", "hooks": {"Stop": []}}`,
		"/cache/off/1/hooks/hooks.json":                       `{"hooks": {}}`,
		"/cache/lost/1/hooks/hooks.json":                      `{"hooks": {}}`,
		"/src/my market/plugins/d/.claude-plugin/plugin.json": `{"name": "d", "hooks": ["./extra.json", "../../escape.json"]}`,
		"/src/my market/plugins/d/extra.json":                 `{"hooks": {}}`,
		"/cache/d/1/hooks/hooks.json":                         `{"hooks": {}}`,
		"/cache/theirs/1/hooks/hooks.json":                    `{"hooks": {}}`,
	}
	ps, err := Plugins(PluginSource{ClaudeDir: c, ProjectDir: "/proj", ReadFile: m.ReadFile, Stat: m.Stat})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Plugin{}
	for _, p := range ps {
		got[p.ID] = p
	}
	if p := got["a@gh"]; !p.Enabled || p.Root != "/cache/a/0.2" || p.Version != "0.2" || len(p.HookFiles) != 1 {
		t.Errorf("a@gh: %+v; want this project's record", p)
	}
	if p := got["b@gh"]; p.Root != "/cache/b/1.0" || len(p.HookFiles) != 1 || p.HookFiles[0] != "/cache/b/1.0/.claude-plugin/plugin.json" {
		t.Errorf("b@gh: %+v; want its inline hooks in plugin.json", p)
	}
	if p := got["lost@nowhere"]; p.Unloaded == "" {
		t.Errorf("lost@nowhere: %+v; want it not loaded (its marketplace is unknown)", p)
	}
	if p := got["theirs@gh"]; !strings.Contains(p.Unloaded, "installed for another project (/other)") {
		t.Errorf("theirs@gh: %+v; want it not loaded here, installed for /other", p)
	}
	if p := got["off@gh"]; p.Enabled || p.EnabledIn != "/proj/.claude/settings.local.json" {
		t.Errorf("off@gh: %+v; want it disabled by the local settings", p)
	}
	if p := got["d@dir"]; p.Root != "/src/my market/plugins/d" || len(p.HookFiles) != 1 || p.HookFiles[0] != "/src/my market/plugins/d/extra.json" || len(p.NotCovered) != 1 {
		t.Errorf("d@dir: %+v; want it run from the marketplace's directory, its manifest's file, and the escaping path not covered", p)
	}
	if p := got["d@dir"]; p.Data != c+"/plugins/data/d-dir" {
		t.Errorf("d@dir data %q", p.Data)
	}
}

// TestPluginsWithoutRecords: no plugin installed is no error.
func TestPluginsWithoutRecords(t *testing.T) {
	dir := t.TempDir()
	ps, err := Plugins(PluginSource{ClaudeDir: dir, ReadFile: os.ReadFile, Stat: os.Stat})
	if err != nil || len(ps) != 0 {
		t.Errorf("Plugins = %v, %v", ps, err)
	}
}
