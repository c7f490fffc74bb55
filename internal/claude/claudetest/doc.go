// Package claudetest drives the real Claude Code, the pinned version that
// .ci/run installs from npm (@anthropic-ai/claude-code@Version), in tests:
// a non-interactive session (claude -p PROMPT --allowedTools Bash) in a
// throwaway home, against API, a stand-in for Anthropic's Messages API on
// loopback that streams one Bash tool call and ends the turn with text
// once the tool's result comes back, and records what Claude Code sent it
// (so a test sees whether the tool ran or a hook blocked it, and what the
// hook said). Plugins can be laid out by hand in Claude Code's plugin
// records (InstallPlugin), as its plugin commands would.
//
// Nothing leaves the machine: the session's only server is the stand-in,
// auto-update, telemetry, error reporting and other non-essential traffic
// are switched off by their environment variables, and every other HTTP
// request goes to a proxy on a closed loopback port. It is linked into no
// guard binary.
//
// Find locates the binary; a test that cannot find it must fail in CI
// (CI set), not skip.
package claudetest
