package cooldownstate

import (
	"slices"
	"strings"
	"testing"
)

// TestSalvageKeepsEveryWholeRecord covers TC's variant of faults #7 on the
// budgets: cooldown.json cut short at any byte keeps every record that was
// whole before the cut, and counts a record the cut fell in once it has
// begun, so a torn file never gives a spent budget back (before, the whole
// file was set aside and every budget started afresh).
func TestSalvageKeepsEveryWholeRecord(t *testing.T) {
	whole := []byte(referenceFile)
	for cut := range len(whole) {
		data := whole[:cut]
		var d Document
		kept, partial, _, _ := d.Salvage(data)
		// The nginx restarts begun before the cut: each "{" opens one.
		start := strings.Index(referenceFile, `"restarts": [`)
		begun := 0
		if cut > start {
			end := strings.Index(referenceFile[start:], "]") + start
			begun = strings.Count(referenceFile[start:min(cut, end)], "{")
		}
		if begun == 0 {
			continue
		}
		if kept == 0 {
			t.Fatalf("cut at %d: nothing kept", cut)
		}
		if got := len(recs(t, &d, "nginx", restart)); got < begun {
			t.Errorf("cut at %d: %d nginx restarts; want the %d begun before the cut", cut, got, begun)
		}
		if cut < strings.Index(referenceFile, `"postgres"`) && !slices.Equal(partial, []string{"nginx"}) {
			t.Errorf("cut at %d: partial %q; want nginx", cut, partial)
		}
	}
	// Cut after both services, both are whole, and so are their records.
	var d Document
	cut := strings.Index(referenceFile, `"last_run"`)
	if kept, partial, lost, isCut := d.Salvage(whole[:cut]); kept != 2 || partial != nil || lost != nil || !isCut {
		t.Errorf("Salvage past both services = %d, %q, %q, %v", kept, partial, lost, isCut)
	}
	if got := len(recs(t, &d, "postgres", redeploy)); got != 1 {
		t.Errorf("postgres redeploys = %d; want 1", got)
	}
	// A record cut before its timestamp counts as if it had just happened.
	d = Document{}
	d.Salvage([]byte(`{"services": {"web": {"restarts": [{"timestamp": "2025-06-15T11:00:00Z", "success": true}, {"times`))
	rs := recs(t, &d, "web", restart)
	if len(rs) != 2 || !rs[1].Unreadable {
		t.Errorf("web restarts = %+v; want the whole one and one guard cannot read", rs)
	}
}
