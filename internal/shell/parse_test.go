package shell

import (
	"slices"
	"testing"
)

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
