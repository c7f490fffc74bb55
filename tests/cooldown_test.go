package tests

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
)

func cooldownFile(t *testing.T, sb *sandbox) map[string]any {
	t.Helper()
	data, err := os.ReadFile(sb.path("cooldown.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("cooldown.json does not parse: %v", err)
	}
	return doc
}

func records(doc map[string]any, service, field string) []any {
	svcs, _ := doc["services"].(map[string]any)
	svc, _ := svcs[service].(map[string]any)
	rs, _ := svc[field].([]any)
	return rs
}

func TestParallelRecordsLoseNothing(t *testing.T) {
	sb := newSandbox(t, "cooldown:\n  actions:\n    restart: {field: restarts, limit: 100000, window: 4h}\n")
	sb.env = append(sb.env, "GUARD_COOLDOWN_STATE="+sb.path("cooldown.json"))
	workers, each := 16, 20
	if raceEnabled {
		each = 8
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				service := "svc" + strconv.Itoa(i%3)
				if code, _, stderr := sb.guard("cooldown", "record", service, "restart"); code != 0 {
					t.Errorf("worker %d: exit %d: %s", w, code, stderr)
					return
				}
			}
		}()
	}
	wg.Wait()
	doc := cooldownFile(t, sb)
	total := 0
	for s := range 3 {
		total += len(records(doc, "svc"+strconv.Itoa(s), "restarts"))
	}
	if total != workers*each {
		t.Errorf("%d records; want %d", total, workers*each)
	}
}

func TestReservationRace(t *testing.T) {
	sb := newSandbox(t, "")
	sb.env = append(sb.env, "GUARD_COOLDOWN_STATE="+sb.path("cooldown.json"))
	const callers = 10
	var wg sync.WaitGroup
	codes := make([]int, callers)
	for i := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i], _, _ = sb.guard("cooldown", "run", "api", "redeploy", "--", "sh", "-c", "echo ran >> runs")
		}()
	}
	wg.Wait()
	data, _ := os.ReadFile(sb.path("runs"))
	if n := strings.Count(string(data), "ran"); n != 1 {
		t.Fatalf("%d commands ran against a budget of 1; want exactly 1 (exit statuses %v)", n, codes)
	}
	refused := 0
	for _, c := range codes {
		if c == 75 {
			refused++
		}
	}
	if refused != callers-1 {
		t.Errorf("exit statuses %v; want one 0 and the rest 75", codes)
	}
	if rs := records(cooldownFile(t, sb), "api", "redeployments"); len(rs) != 1 {
		t.Errorf("redeployments = %v; want one record", rs)
	}
}
