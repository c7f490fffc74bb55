package backend

import (
	"guard/config"
	"guard/eventlog"
)

// EventLogFiles returns the event log files AllEvents reads, for a reader
// that keeps them across reads (eventlog.Cache, for guard status --watch);
// false if a state is in a database, whose log only AllEvents reads.
func EventLogFiles(cfg *config.Config) (eventlog.Logs, bool) {
	var files eventlog.Logs
	for _, where := range []string{cfg.StateFile, cfg.Cooldown.StateFile} {
		switch {
		case where == "":
		case IsURL(where):
			return nil, false
		default:
			files = append(files, eventLog(cfg, where))
		}
	}
	return files, true
}
