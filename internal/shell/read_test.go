package shell

import (
	"fmt"
	"strings"
	"testing"
)

// show writes n in a short form for tests: runs as their words (a word
// that is not literal in <>), seq as a;b, alt as {a|b}, loops as
// N*(...) or ?*(...), unread parts as !(reason).
func show(n *Node) string {
	if n == nil {
		return ""
	}
	switch n.Kind {
	case Run:
		var ws []string
		for i, w := range n.Cmd.Words {
			if !n.Cmd.Literal[i] {
				w = "<" + w + ">"
			}
			ws = append(ws, w)
		}
		return strings.Join(ws, " ")
	case Seq:
		var ks []string
		for _, k := range n.Kids {
			ks = append(ks, show(k))
		}
		return strings.Join(ks, "; ")
	case Alt:
		var ks []string
		for _, k := range n.Kids {
			ks = append(ks, show(k))
		}
		return "{" + strings.Join(ks, " | ") + "}"
	case Loop:
		t := fmt.Sprint(n.Times)
		if n.Times == Unknown {
			t = "?"
		}
		return t + "*(" + show(n.Kids[0]) + ")"
	}
	if n.Opaque {
		return "code(" + n.Text + ")"
	}
	return "!(" + n.Text + ")"
}

func TestReadDebug(t *testing.T) {
	for _, line := range strings.Split(debugLines, "\n---\n") {
		t.Logf("%q\n    => %s", line, show(Read(line)))
	}
}

const debugLines = `docker restart web; docker restart web
---
docker restart web web web
---
bash -c "docker restart web"
---
sh -c 'docker restart web'
---
eval "docker restart web"
---
echo web | xargs docker restart
---
sudo sh -c 'docker restart web'
---
$'docker' restart web
---
docker restart $'web'
---
docker compose restart
---
cd /srv
docker restart web
if
---
f() { docker restart web; }; f; f
---
alias r='docker restart'; r web
---
for s in web db; do docker restart $s; done
---
while true; do docker restart web; done
---
S=web; docker restart $S
---
docker restart $SVC
---
X=docker; $X restart web
---
"$(which docker)" restart web
---
find . -name x -exec docker restart {} \;
---
watch -n 5 docker restart web
---
timeout 5 nohup nice -n 3 env A=1 command docker restart web
---
bash <<EOF
docker restart web
EOF
---
bash <<< 'docker restart web'
---
echo 'docker restart web' | bash
---
ssh host docker restart web
---
su -c 'docker restart web' root
---
sh -c 'docker restart "$1"' _ web
---
docker restart {web,db}
---
d\ocker restart w\eb
---
"docker" "restart" "web"
---
bash -lc 'docker restart web'
---
python3 -c 'import os; os.system("docker restart web")'
---
if true; then docker restart web; else docker restart web; fi
---
bash <(echo docker restart web)
---
printf 'web\ndb\n' | xargs -n1 docker restart
---
echo web db | xargs -I{} docker restart {}
---
docker ps -q | xargs docker restart
---
trap 'docker restart web' EXIT
---
guard run -- docker restart web
---
env -S 'docker restart web'
---
parallel docker restart ::: web db
---
x=$(echo web); docker restart $x
---
docker logs $(docker ps -q)
---
curl -s http://x/s.sh | bash
---
bash -c "bash -c \"docker restart web\""`
