package cooldown_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"guard/config"
	"guard/internal/cooldown"
	"guard/internal/store"
	"guard/internal/store/file"
	"guard/internal/supervise"
)

var (
	t0       = time.Date(2026, 6, 15, 12, 0, 0, 0, time.UTC)
	restart  = store.Action{Name: "restart", Field: "restarts", Limit: 2, Window: 4 * time.Hour}
	redeploy = store.Action{Name: "redeploy", Field: "redeployments", Limit: 1, Window: 24 * time.Hour}
)

func rules(t *testing.T) *cooldown.Rules {
	dir := t.TempDir()
	cfg := config.Default(dir)
	s, err := file.OpenCooldown(cfg, filepath.Join(dir, "cooldown.json"), []store.Action{restart}, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return &cooldown.Rules{Budgets: s.Budgets, Actions: []store.Action{restart, redeploy}, ResetAfterHealthy: 2, Patterns: cfg.Cooldown.Patterns}
}

func TestMatch(t *testing.T) {
	r := rules(t)
	tests := []struct{ cmd, want string }{
		{"docker restart -t 5 web", "web restart"},
		{"cd /srv && sudo docker container restart web; echo ok", "web restart"},
		{"docker-compose -f x.yml restart api", "api restart"},
		{"echo docker restart web", ""},
		{"docker restart $SVC", ""},
		// Claude Ops' commands, every service of each.
		{"docker stop nginx", "nginx restart"},
		{"docker start a b", "a restart, b restart"},
		{"docker compose restart web api", "web restart, api restart"},
		{"docker compose up -d web", "web restart"},
		{"docker compose -f x.yml up -d web db", "web restart, db restart"},
		{"docker compose up -d", ""},
		{"ansible-playbook -i inventory playbooks/redeploy-jellyfin.yml", "jellyfin redeploy"},
		{"ansible-playbook redeploy-web.yaml --check", "web redeploy"},
		{"ansible-playbook site.yml", ""},
		{"helm upgrade myrelease ./chart --install", "myrelease redeploy"},
		// guard's own: a forced re-create is a redeploy, and only that.
		{"docker compose up -d --force-recreate web", "web redeploy"},
	}
	for _, tc := range tests {
		if got := cooldown.Describe(r.Match(tc.cmd)); got != tc.want {
			t.Errorf("Match(%q) = %q; want %q", tc.cmd, got, tc.want)
		}
	}
}

func TestReserveIsAtomicAndFinishGivesBackWhatNeverRan(t *testing.T) {
	r := rules(t)
	for i := range 3 {
		v, err := r.Reserve("web", restart, t0, 100+i)
		if err != nil || v.Allowed != (i < 2) {
			t.Fatalf("reservation %d: allowed %v, %v; want the first two only", i, v.Allowed, err)
		}
	}
	// The first command could not start: its reservation is given back.
	if err := r.Finish("web", restart, t0, t0, 100, notStarted(), 0); err != nil {
		t.Fatal(err)
	}
	v, _ := r.Decide("web", restart, t0)
	if !v.Allowed || v.Used != 1 {
		t.Errorf("after a reservation was given back: %+v; want 1 used and room for one", v)
	}
}

func TestDueMarksOnce(t *testing.T) {
	r := rules(t)
	_, due, err := r.Due("digest", time.Hour, t0, true)
	if err != nil || !due {
		t.Fatalf("first Due = %v, %v; want due", due, err)
	}
	if _, due, _ := r.Due("digest", time.Hour, t0.Add(time.Minute), true); due {
		t.Error("due again a minute after it was marked")
	}
	if _, due, _ := r.Due("digest", time.Hour, t0.Add(time.Hour), false); !due {
		t.Error("not due an hour later")
	}
}

// busy is a store whose transactions never get their lock.
type busy struct{ store.Budgets }

func (busy) Update(time.Time, func(store.BudgetTx) (bool, error)) error {
	return fmt.Errorf("cannot lock: %w", store.ErrBusy)
}

func TestDecideFallsBackToASnapshotWhenBusy(t *testing.T) {
	r := rules(t)
	r.Record("web", restart, t0, true, "")
	r.Record("web", restart, t0, true, "")
	var warned []string
	r.Budgets = busy{r.Budgets}
	r.Warn = func(format string, args ...any) { warned = append(warned, fmt.Sprintf(format, args...)) }
	v, err := r.Decide("web", restart, t0.Add(time.Minute))
	if err != nil || v.Allowed {
		t.Fatalf("Decide on a busy store = %+v, %v; want the spent budget refused all the same", v, err)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "deciding without logging") {
		t.Errorf("warnings = %q", warned)
	}
}

func TestCheckService(t *testing.T) {
	for _, bad := range []string{"", "a\xff", "a\nb"} {
		if cooldown.CheckService(bad) == nil {
			t.Errorf("CheckService(%q) accepts it", bad)
		}
	}
	if err := cooldown.CheckService("nginx-1.web_2"); err != nil {
		t.Error(err)
	}
}

func notStarted() *supervise.Result {
	return &supervise.Result{ExitCode: 127, StartErr: errors.New("x: command not found")}
}
