//go:build unix

package tests

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"guard/internal/store/postgres/pgtest"
)

// TestLiveProbesAreNeverReaped covers faults #1: on PostgreSQL, direct and
// through pgbouncer, while other calls of a half-open key come in (they
// are skipped, and write the key's row), a probe whose guard is alive and
// whose command succeeds is never reaped as "died without reporting": its
// run's row ends in the same transaction as its outcome. The workload is
// the finding's: 8 callers, two hosts, each making 12 calls of a key kept
// half-open (success_threshold 1000), one probe at a time.
func TestLiveProbesAreNeverReaped(t *testing.T) {
	srv := pgtest.Shared(t)
	for _, via := range []string{"direct", "pgbouncer"} {
		t.Run(via, func(t *testing.T) {
			url := srv.NewDB(t)
			if via == "pgbouncer" {
				b := srv.Bouncer(t, 4)
				url = strings.Replace(url, fmt.Sprintf(":%d/", srv.Port), fmt.Sprintf(":%d/", b.Port), 1)
			}
			const cfg = "hooks:\n  - match: \"hc*\"\n    failure_threshold: 1\n    success_threshold: 1000\n    cooldown: 1s\n    max_cooldown: 1s\n"
			hosts := []*sandbox{pgSandbox(t, cfg, url, "h0"), pgSandbox(t, cfg, url, "h1")}
			if code, _, stderr := hosts[0].guard("trip", "hcx", "--for", "1s"); code != 0 {
				t.Fatalf("trip: exit %d: %s", code, stderr)
			}
			time.Sleep(1500 * time.Millisecond) // past the trip's second: the next call probes
			var wg sync.WaitGroup
			for w := range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range 12 {
						if code, _, stderr := hosts[w%2].guard("run", "--name", "hcx", "--", "sleep", "0.15"); code != 0 {
							t.Errorf("caller %d: exit %d: %s", w, code, stderr)
						}
					}
				}()
			}
			wg.Wait()
			if _, out, _ := hosts[0].guard("log", "--key", "hcx", "--event", "reaped"); strings.TrimSpace(out) != "" {
				_, all, _ := hosts[0].guard("log", "--key", "hcx")
				t.Log(all)
				t.Errorf("live probes were reaped:\n%s", out)
			}
			if n := exportedTotals(t, url, "hcx")["abandoned"]; n != 0 {
				t.Errorf("abandoned = %d; want 0: every probe lived and reported", n)
			}
			if n := exportedTotals(t, url, "hcx")["successes"]; n < 2 {
				t.Errorf("successes = %d; want the probes counted", n)
			}
		})
	}
}
