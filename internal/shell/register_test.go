package shell_test

// The full parser (package shell/sh) is linked into these tests, as into
// guard-cli: the tests of Program, Normal and the runners read lines of
// every kind, and FuzzPlainMatchesParser holds the plain reader to it.
import _ "guard/internal/shell/sh"
