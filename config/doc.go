// Package config loads guardrails.yaml: the built-in defaults, then the
// file, then environment variables, and resolves the settings for one key.
//
// Every key in the file is optional, and guard works with no file at all.
// Decoding is strict: a key guard does not know is an error that names the
// file and line (with a suggestion when it looks like a typo), because a
// misspelt threshold that is silently ignored is worse than no setting.
// The Python guardrails' keys (circuit_breaker.enabled, failure_threshold,
// cooldown_seconds, success_threshold, exclude, state_file, logging.file,
// and logging.level and logging.format, which guard ignores) are accepted
// as they are, and so are its GUARDRAILS_* environment variables.
//
// Per-key settings come from the hooks list: the first rule whose match (a
// glob over the whole key) or regex fits the key overrides the
// circuit_breaker section for that key.
//
// config links no YAML library. It reads the plain YAML config files are
// written in with a parser and a decoder of its own (fastyaml.go,
// fastdecode.go, into its Node type), held to yaml.v3 by tests and
// fuzzers; anything else (anchors, tags, block scalars, a value they would
// refuse) goes to the full reader, yaml.v3, which package config/yamlv3
// registers when it is linked in (guard-cli, guard-pg, guard-web). Without
// it Load returns ErrNeedsYAML, and guard, which runs hooks and links no
// YAML library, hands the command over to guard-cli.
package config
