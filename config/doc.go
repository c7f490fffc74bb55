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
package config
