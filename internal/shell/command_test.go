package shell

import (
	"slices"
	"testing"
)

// Parse is the full parser's reading of line (package shell/sh, which
// register_test.go links in).
func Parse(line string) ([]Command, error) { return full.Commands(line) }

func normals(t *testing.T, line string) []string {
	t.Helper()
	cs, err := Parse(line)
	if err != nil {
		t.Fatalf("Parse(%q): %v", line, err)
	}
	var out []string
	for _, c := range cs {
		if n := c.Normal(); n != "" {
			out = append(out, n)
		}
	}
	return out
}

func TestNormal(t *testing.T) {
	tests := []struct {
		line string
		want []string
	}{
		{"docker restart web", []string{"docker restart web"}},
		{"docker restart -t 5 web", []string{"docker restart web -t=5"}},
		{"docker restart --time=5 web", []string{"docker restart web --time=5"}},
		{"docker container restart web", []string{"docker restart web"}},
		{"docker-compose restart web", []string{"docker compose restart web"}},
		{"docker compose -f prod.yml restart web", []string{"docker compose restart web"}},
		{"docker --context prod restart web", []string{"docker restart web"}},
		{"sudo -u root docker restart web", []string{"docker restart web"}},
		{"env A=1 B=2 docker restart web", []string{"docker restart web"}},
		{"A=1 docker restart web", []string{"docker restart web"}},
		{"timeout 30 docker restart web", []string{"docker restart web"}},
		{"cd /srv && docker restart web; echo done", []string{"cd /srv", "docker restart web", "echo done"}},
		{"docker ps | grep web && docker restart 'web'", []string{"docker ps", "grep web", "docker restart web"}},
		{`echo "docker restart web"`, []string{"echo docker restart web"}},
		{"echo docker restart web", []string{"echo docker restart web"}},
		{"docker compose up -d --force-recreate web", []string{"docker compose up web -d --force-recreate"}},
		{"x=$(docker restart web)", []string{"docker restart web"}},
		{"docker restart $SVC", []string{"docker restart $SVC"}},
		{"$'docker' restart $'w\\x65b'", []string{"docker restart web"}},
		{"systemctl --user -H prod restart nginx.service db", []string{"systemctl restart nginx db --user -H=prod"}},
		{"/usr/bin/docker restart web", []string{"docker restart web"}},
		{"docker --context prod -H tcp://h container restart web", []string{"docker restart web"}},
		{"docker compose --project-name x restart --timeout 5 web db", []string{"docker compose restart web db --timeout=5"}},
		{"docker restart -- -web", []string{"docker restart -web"}},
		{"helm upgrade --install -f v.yml rel ./chart", []string{"helm upgrade rel ./chart --install -f=v.yml"}},
		{"kubectl -n prod rollout restart deploy/web", []string{"kubectl rollout restart deploy/web -n=prod"}},
		{"command -v docker", []string{"command docker -v"}}, // runs no other: command is the program
		{"sudo -l docker restart web", []string{"sudo restart web -l=docker"}},
	}
	for _, tc := range tests {
		if got := normals(t, tc.line); !slices.Equal(got, tc.want) {
			t.Errorf("Normal(%q) = %q; want %q", tc.line, got, tc.want)
		}
	}
}

func TestProgram(t *testing.T) {
	tests := []struct {
		line string
		want []string
	}{
		{"GUARD_STATE=/tmp/s.json guard run -c './y.sh'", []string{"guard", "run", "-c", "./y.sh"}},
		{"env -u X guard run -- ls", []string{"guard", "run", "--", "ls"}},
		{"nice -n 5 guard status", []string{"guard", "status"}},
		{"'/opt/my tools/guard' run -c x", []string{"/opt/my tools/guard", "run", "-c", "x"}},
		// Every program of the Runner table, with its valued options and
		// the words it skips (architecture-2 defect 1: these were wrapped
		// twice by install).
		{"setsid guard run -- x", []string{"guard", "run", "--", "x"}},
		{"setsid -w -f guard run -- x", []string{"guard", "run", "--", "x"}},
		{"flock -w 5 /tmp/l guard run -- x", []string{"guard", "run", "--", "x"}},
		{"flock --timeout=5 -E 3 /tmp/l guard run -- x", []string{"guard", "run", "--", "x"}},
		{"flock /tmp/l -c 'guard run -- x'", []string{"guard", "run", "--", "x"}},
		{"flock -c 'nice guard run -- x' /tmp/l", []string{"guard", "run", "--", "x"}},
		{"ionice -P 1 guard run -- x", []string{"guard", "run", "--", "x"}},
		{"ionice -c2 -n 7 guard run -- x", []string{"guard", "run", "--", "x"}},
		{"sudo -T 5 guard run -- x", []string{"guard", "run", "--", "x"}},
		{"sudo -u root -g wheel A=1 guard run -- x", []string{"guard", "run", "--", "x"}},
		{"env -P /bin guard run -- x", []string{"guard", "run", "--", "x"}},
		{"env -i A=1 - guard run -- x", []string{"guard", "run", "--", "x"}},
		{"env -S 'nice -n 2 guard run' -- x", []string{"guard", "run", "--", "x"}},
		{"systemd-run --user --scope -p MemoryMax=1G guard run -- x", []string{"guard", "run", "--", "x"}},
		{"nsenter -t 1 -m -u guard run -- x", []string{"guard", "run", "--", "x"}},
		{"chroot --userspec=u:g /srv guard run -- x", []string{"guard", "run", "--", "x"}},
		{"unshare --map-user 0 -r guard run -- x", []string{"guard", "run", "--", "x"}},
		{"timeout -k 5 60 guard run -- x", []string{"guard", "run", "--", "x"}},
		{"timeout --signal=KILL 1m nohup stdbuf -oL guard run -- x", []string{"guard", "run", "--", "x"}},
		{"taskset 0x3 chrt 0 cgexec -g cpu:g prlimit --nofile=10 guard run -- x", []string{"guard", "run", "--", "x"}},
		{"xargs -n 1 -P 4 guard run --", []string{"guard", "run", "--"}},
		{"doas -u root pkexec --user root firejail caffeinate unbuffer guard run -- x", []string{"guard", "run", "--", "x"}},
		{"exec -a hook time -f %e command guard run -- x", []string{"guard", "run", "--", "x"}},
		// A program that runs no command, or is given none, is where it
		// stops.
		{"command -v guard", []string{"command", "-v", "guard"}},
		{"sudo -l guard", []string{"sudo", "-l", "guard"}},
		{"timeout 5", nil},
		{"nice", nil},
	}
	for _, tc := range tests {
		cs, err := Parse(tc.line)
		if err != nil || len(cs) == 0 {
			t.Fatalf("Parse(%q) = %v, %v", tc.line, cs, err)
		}
		if got := cs[0].Program(); !slices.Equal(got, tc.want) {
			t.Errorf("Program(%q) = %q; want %q", tc.line, got, tc.want)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add("docker restart -t 5 web && echo 'a b' | sudo env X=1 nice -n 2 ls")
	f.Fuzz(func(t *testing.T, line string) {
		cs, err := Parse(line)
		if err != nil {
			return
		}
		for _, c := range cs {
			_ = c.Normal()
		}
	})
}

// TestTakesValue: the options whose value Normal reads as the next word,
// which the budget reader does not take for a service it cannot know
// (docker restart -t $T web).
func TestTakesValue(t *testing.T) {
	for _, st := range []struct {
		opt  string
		want bool
	}{
		{"-t", true}, {"--time", true}, {"--context", true}, {"-f", true}, {"-p", true},
		{"-n", true}, {"--namespace", true}, {"-H", true}, {"--property", true},
		{"-d", false}, {"--force-recreate", false}, {"--no-block", false}, {"web", false},
	} {
		if got := TakesValue(st.opt); got != st.want {
			t.Errorf("TakesValue(%q) = %v; want %v", st.opt, got, st.want)
		}
	}
}
