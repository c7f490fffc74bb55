package claudetest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// Version is the Claude Code the tests pin: .ci/run installs it from npm.
const Version = "2.1.328"

// EnvBinary names the environment variable that points the tests at a
// Claude Code binary (bin/claude.exe of the npm package, or the native
// binary of its platform package).
const EnvBinary = "GUARD_CLAUDE_CODE"

// CacheDir is where .ci/run installs the npm package
// (npm install --prefix CacheDir): ~/.cache/guard-ci/claude-code, or
// $GUARD_CLAUDE_CODE_DIR.
func CacheDir() string {
	if d := os.Getenv("GUARD_CLAUDE_CODE_DIR"); d != "" {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".cache", "guard-ci", "claude-code")
}

// Find returns the path of Claude Code Version's binary: $GUARD_CLAUDE_CODE,
// else the npm package under CacheDir (its bin/claude.exe, which npm's
// postinstall replaces with the native binary, or, where npm did not run
// the postinstall, the native binary of the platform package beside it).
// The error says what was tried.
func Find() (string, error) {
	var tried []string
	var candidates []string
	if p := os.Getenv(EnvBinary); p != "" {
		candidates = append(candidates, p)
	} else if dir := CacheDir(); dir != "" {
		mods := filepath.Join(dir, "node_modules", "@anthropic-ai")
		candidates = append(candidates,
			filepath.Join(mods, "claude-code", "bin", "claude.exe"),
			filepath.Join(mods, "claude-code-"+platform(), "claude"))
	}
	for _, p := range candidates {
		v, err := version(p)
		switch {
		case err != nil:
			tried = append(tried, fmt.Sprintf("%s: %v", p, err))
		case v != Version:
			tried = append(tried, fmt.Sprintf("%s is Claude Code %s, not %s", p, v, Version))
		default:
			return p, nil
		}
	}
	if len(tried) == 0 {
		return "", fmt.Errorf("no Claude Code: set %s, or let .ci/run install it", EnvBinary)
	}
	return "", fmt.Errorf("no Claude Code %s (.ci/run installs it: npm install --prefix %s @anthropic-ai/claude-code@%s): %s",
		Version, CacheDir(), Version, strings.Join(tried, "; "))
}

// platform names npm's platform package for this machine, as the
// package's install.cjs does.
func platform() string {
	arch := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	os := map[string]string{"windows": "win32"}[runtime.GOOS]
	if os == "" {
		os = runtime.GOOS
	}
	return os + "-" + arch
}

// version runs bin --version: "2.1.328 (Claude Code)".
func version(bin string) (string, error) {
	if _, err := os.Stat(bin); err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--version")
	cmd.Env = baseEnv(os.TempDir())
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s --version: %v", bin, err)
	}
	f := strings.Fields(string(bytes.TrimSpace(out)))
	if len(f) == 0 {
		return "", fmt.Errorf("%s --version printed nothing", bin)
	}
	return f[0], nil
}
