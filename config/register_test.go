package config_test

// The full YAML reader (package config/yamlv3) is linked into these tests,
// as into guard-cli: they load configs of every kind, and hold the fast
// parser and decoder to it.
import _ "guard/config/yamlv3"
