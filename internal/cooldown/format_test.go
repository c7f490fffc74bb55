package cooldown_test

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"

	"guard/config"
	"guard/internal/cooldown"
	"guard/internal/store"
	"guard/internal/store/file"
	"guard/internal/supervise"
)

var update = flag.Bool("update", false, "rewrite testdata/format/*.txtar with what the code does now")

// TestFileFormat is the fence around cooldown.json's bytes: for each
// starting file in testdata/format (the "cooldown.json" section, absent
// for no file), it runs the same steps through the rules on the file
// backend and compares, after each step, what the step returned, the file
// as it is then, and the events it logged, with the file's "want"
// section. The files were written by the rules as they stood before
// budgets were rebuilt like circuits (issue 35): the rebuild had to leave
// every byte as it was. Run with -update to rewrite them after a change
// that means to change the format, and read the diff.
func TestFileFormat(t *testing.T) {
	files, _ := filepath.Glob("testdata/format/*.txtar")
	if len(files) == 0 {
		t.Fatal("no testdata/format/*.txtar")
	}
	for _, name := range files {
		t.Run(strings.TrimSuffix(filepath.Base(name), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(name)
			if err != nil {
				t.Fatal(err)
			}
			var start []byte
			var want string
			for _, f := range ar.Files {
				switch f.Name {
				case "cooldown.json":
					start = f.Data
				case "want":
					want = string(f.Data)
				}
			}
			got := formatSteps(t, start)
			if *update {
				ar.Files = []txtar.File{{Name: "want", Data: []byte(got)}}
				if start != nil {
					ar.Files = append([]txtar.File{{Name: "cooldown.json", Data: start}}, ar.Files...)
				}
				if err := os.WriteFile(name, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if got != want {
				gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
				for i := range max(len(gl), len(wl)) {
					var g, w string
					if i < len(gl) {
						g = gl[i]
					}
					if i < len(wl) {
						w = wl[i]
					}
					if g != w {
						t.Fatalf("line %d:\n got  %q\n want %q\n(run go test -run TestFileFormat -update ./internal/cooldown to see the whole of it)", i+1, g, w)
					}
				}
			}
		})
	}
}

// formatSteps runs the steps on a cooldown.json that starts as start (no
// file if nil) and returns their record.
func formatSteps(t *testing.T, start []byte) string {
	dir := t.TempDir()
	path := filepath.Join(dir, "cooldown.json")
	if start != nil {
		if err := os.WriteFile(path, start, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cfg := config.Default(dir)
	actions := []store.Action{restart, redeploy}
	s, err := file.OpenCooldown(cfg, path, actions, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := &cooldown.Rules{Budgets: s.Budgets, Actions: actions, ResetAfterHealthy: 2, Retention: cfg.Cooldown.Retention}
	t1 := time.Date(2025, 6, 15, 12, 0, 0, 0, time.UTC)
	ran := &supervise.Result{ExitCode: 0}
	failed := &supervise.Result{ExitCode: 1}
	never := &supervise.Result{ExitCode: 127, StartErr: errors.New("x: command not found")}
	take := func(svc string, a store.Action, n int) cooldown.Take {
		return cooldown.Take{Match: cooldown.Match{Service: svc, Action: a}, N: n}
	}
	verdict := func(v any, err error) string { return fmt.Sprintf("%+v, %v", v, err) }
	steps := []struct {
		name string
		do   func() string
	}{
		{"check nginx restart", func() string { return verdict(r.Decide("nginx", restart, t1)) }},
		{"check 2 nginx restarts", func() string { return verdict(r.DecideN("nginx", restart, 2, t1)) }},
		{"check old restart", func() string { return verdict(r.Decide("old", restart, t1)) }},
		{"record nginx restart", func() string { return verdict(r.Record("nginx", restart, t1, true, "")) }},
		{"record a failed redeploy of api", func() string { return verdict(r.Record("api", redeploy, t1, false, "exit 1: boom")) }},
		{"reserve web restart 100", func() string { return verdict(r.Reserve("web", restart, t1.Add(time.Second), 100)) }},
		{"reserve web restart 101", func() string { return verdict(r.Reserve("web", restart, t1.Add(time.Second), 101)) }},
		{"reserve web restart 102", func() string { return verdict(r.Reserve("web", restart, t1.Add(time.Second), 102)) }},
		{"finish 100 failed", func() string {
			return fmt.Sprint(r.Finish("web", restart, t1.Add(time.Second), t1.Add(2*time.Minute), 100, failed, 0))
		}},
		{"finish 101 never started", func() string {
			return fmt.Sprint(r.Finish("web", restart, t1.Add(time.Second), t1.Add(2*time.Minute), 101, never, 0))
		}},
		{"reserve old restart 103", func() string { return verdict(r.Reserve("old", restart, t1.Add(3*time.Second), 103)) }},
		{"reserve nginx restart 104", func() string { return verdict(r.Reserve("nginx", restart, t1.Add(4*time.Second), 104)) }},
		{"finish old 103 never started", func() string {
			return fmt.Sprint(r.Finish("old", restart, t1.Add(3*time.Second), t1.Add(5*time.Second), 103, never, 0))
		}},
		{"finish nginx 104", func() string {
			return fmt.Sprint(r.Finish("nginx", restart, t1.Add(4*time.Second), t1.Add(6*time.Second), 104, ran, 0))
		}},
		{"healthy nginx", func() string { return verdict2(r.Healthy("nginx", t1)) }},
		{"unhealthy nginx", func() string { return fmt.Sprint(r.Unhealthy("nginx", t1)) }},
		{"healthy postgres", func() string { return verdict2(r.Healthy("postgres", t1)) }},
		{"healthy postgres again", func() string { return verdict2(r.Healthy("postgres", t1)) }},
		{"reserve all: web restart x2, db redeploy", func() string {
			refused, v, err := r.ReserveAll([]cooldown.Take{take("web", restart, 2), take("db", redeploy, 1)}, t1.Add(time.Minute), 200)
			return fmt.Sprintf("%v %+v, %v", refused != nil, v, err)
		}},
		{"reserve all: db restart, cache restart x3", func() string {
			refused, v, err := r.ReserveAll([]cooldown.Take{take("db", restart, 1), take("cache", restart, 3)}, t1.Add(time.Minute), 201)
			return fmt.Sprintf("%v %+v, %v", refused != nil, v, err)
		}},
		{"reserve all: db restart, cache restart x2", func() string {
			refused, v, err := r.ReserveAll([]cooldown.Take{take("db", restart, 1), take("cache", restart, 2)}, t1.Add(time.Minute), 202)
			return fmt.Sprintf("%v %+v, %v", refused != nil, v, err)
		}},
		{"finish all 202", func() string {
			return fmt.Sprint(r.FinishAll([]cooldown.Take{take("db", restart, 1), take("cache", restart, 2)}, t1.Add(time.Minute), t1.Add(2*time.Minute), 202, ran, 0))
		}},
		{"record all: web restart x2, api redeploy", func() string {
			return fmt.Sprint(r.RecordAll([]cooldown.Take{take("web", restart, 2), take("api", redeploy, 1)}, t1.Add(3*time.Minute), false, "exit 2"))
		}},
		{"mark run", func() string { return fmt.Sprint(r.Mark("run", t1.Add(time.Minute))) }},
		{"due digest", func() string { return verdict2(r.Due("digest", time.Hour, t1, true)) }},
		{"due digest again", func() string { return verdict2(r.Due("digest", time.Hour, t1.Add(time.Minute), true)) }},
		{"a day on: record nginx restart", func() string { return verdict(r.Record("nginx", restart, t1.Add(30*time.Hour), true, "")) }},
		{"three days on: record web restart", func() string { return verdict(r.Record("web", restart, t1.Add(72*time.Hour), true, "")) }},
	}
	var b strings.Builder
	logPath := cfg.EventLog(path)
	seen := 0
	last := start
	for i, st := range steps {
		fmt.Fprintf(&b, "== %d. %s: %s\n", i+1, st.name, st.do())
		data, err := os.ReadFile(path)
		switch {
		case err != nil:
			fmt.Fprintf(&b, "(no file: %v)\n", errors.Unwrap(err))
		case bytes.Equal(data, last):
			b.WriteString("(file unchanged)\n")
		default:
			last = data
			b.Write(data)
			if !bytes.HasSuffix(data, []byte("\n")) {
				b.WriteString("\n")
			}
		}
		events, _ := os.ReadFile(logPath)
		for _, line := range strings.SplitAfter(string(events), "\n")[seen:] {
			if line != "" {
				b.WriteString("event: " + line)
			}
		}
		seen = strings.Count(string(events), "\n")
	}
	return b.String()
}

func verdict2[A, B any](a A, b B, err error) string { return fmt.Sprintf("%+v %+v, %v", a, b, err) }
