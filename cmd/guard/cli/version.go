package cli

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/urfave/cli/v2"
)

// version is stamped by a release build (-ldflags "-X guard/cmd/guard/cli.version=v1.2.3").
// Unstamped, guard --version says what the build info knows.
var version = ""

// versionString is guard's version: the stamped one, else the module's
// version and the VCS revision from the build info ("(devel)" for a build
// from a checkout), with "+dirty" when the work tree had changes.
func versionString(info *debug.BuildInfo, ok bool) string {
	if version != "" {
		return version
	}
	if !ok {
		return "(unknown: no build info)"
	}
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, when, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	var b strings.Builder
	b.WriteString(v)
	if rev != "" && !strings.Contains(v, rev[:min(12, len(rev))]) {
		fmt.Fprintf(&b, ", revision %s%s", rev[:min(12, len(rev))], dirty)
		if when != "" {
			fmt.Fprintf(&b, " (%s)", when)
		}
	}
	fmt.Fprintf(&b, ", %s", info.GoVersion)
	return b.String()
}

// printVersion is guard --version; it reads the build info only then.
func printVersion(c *cli.Context) {
	info, ok := debug.ReadBuildInfo()
	fmt.Fprintf(c.App.Writer, "%s version %s\n", c.App.Name, versionString(info, ok))
}
