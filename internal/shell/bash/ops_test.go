package bash

import (
	"strings"
	"testing"
)

// TestReadOpsLines: the command lines ops agents and hooks write, each
// read for every command it runs: wrappers stacked (sudo, timeout,
// setsid, flock -w, nice, ionice, env, systemd-run, nsenter, chroot),
// pipes, subshells, groups, conditions, command substitution, and
// strings handed to a shell.
func TestReadOpsLines(t *testing.T) {
	runReadSteps(t, []struct{ line, runs string }{
		{"sudo -u deploy kubectl -n prod rollout restart deploy/web", "kubectl -n prod rollout restart deploy/web"},
		{"timeout 30s sudo systemctl restart nginx", "systemctl restart nginx"},
		{"sudo systemctl restart nginx.service && sudo journalctl -u nginx -n 50", "systemctl restart nginx.service; journalctl -u nginx -n 50"},
		{"setsid -f docker restart web", "docker restart web"},
		{"flock -w 10 /run/lock/deploy docker restart web", "docker restart web"},
		{"flock -n /tmp/l -c 'docker compose up -d'", "docker compose up -d"},
		{"nice -n 10 ionice -c3 docker restart web", "docker restart web"},
		{"env -u HOME DOCKER_HOST=tcp://x docker restart web", "docker restart web"},
		{"systemd-run --unit x docker restart web", "docker restart web"},
		{"nsenter -t 1 -m -- docker restart web", "docker restart web"},
		{"chroot /host docker restart web", "docker restart web"},
		{"timeout 5 bash -c 'docker restart web'", "docker restart web"},
		{"sudo -u www-data bash -lc 'docker restart web'", "docker restart web"},
		{"sudo -E bash -c 'docker restart web'", "docker restart web"},
		{"sudo -i docker restart web", "docker restart web"},
		{"sudo -s", ""}, // a shell reading its script from an empty stdin
		{"su -c 'docker restart web' deploy", "docker restart web"},
		{"runuser -u ops -- sh -c 'docker restart web'", "docker restart web"},
		{"nohup docker restart web > /dev/null 2>&1 &", "docker restart web"},
		{"docker restart web & disown", "docker restart web; disown"},
		{"exec docker restart web", "docker restart web"},
		{"coproc docker restart web", "docker restart web"},
		{"time docker restart web", "docker restart web"},
		{"! docker restart web", "docker restart web"},
		{"bash -c 'for s in web db; do docker restart $s; done'", "docker restart web; docker restart db"},
		{"(cd /srv && docker compose restart web)", "cd /srv; docker compose restart web"},
		{"{ docker restart web; docker restart db; } > /tmp/log 2>&1", "docker restart web; docker restart db"},
		{"docker restart web 2>/dev/null || true", "docker restart web; true"},
		{"docker restart web |& tee log", "docker restart web; tee log"},
		{"exec 3>&1; docker restart web &>/dev/null", "docker restart web"},
		{"[[ -f x ]] && docker restart web", "docker restart web"},
		{"(( n++ )); let n=1; docker restart web", "docker restart web"},
		{"if ! systemctl is-active --quiet nginx; then sudo systemctl restart nginx; fi",
			"systemctl is-active --quiet nginx; {systemctl restart nginx | }"},
		{"docker restart $(docker ps -q --filter name=web)",
			"docker ps -q --filter name=web; docker restart <$(docker ps -q --filter name=web)>"},
		{`echo "$(date) restarting" >> /var/log/x.log; docker restart web`, `date; echo <"$(date) restarting">; docker restart web`},
		{"case $(hostname) in prod*) docker restart web;; esac", "hostname; { | docker restart web}"},
		{"find /srv -name '*.pid' -exec kill -HUP {} \\;", "?*(kill -HUP <{}>)"},
		{"find . -name x -exec sh -c 'docker restart \"$1\"' _ {} \\;", `?*(docker restart <"$1">)`},
		{"docker ps -q | xargs -r docker restart", "docker ps -q; ?*(docker restart <{xargs input}>)"},
		{"kubectl get pods -o name | xargs -n1 kubectl delete", "kubectl get pods -o name; ?*(kubectl delete <{xargs input}>)"},
		{"find . -print0 | xargs -0 -I{} docker restart {}", "?*(docker restart <{xargs input}>)"},
	})
}

// TestReadExpansionsOfTheLine: variables, positional parameters, arrays,
// arithmetic and braces the line itself sets, in the shell and in the
// functions it defines, expanded as bash does; a command a variable holds
// is read as the command it is.
func TestReadExpansionsOfTheLine(t *testing.T) {
	runReadSteps(t, []struct{ line, runs string }{
		{`S=web; docker restart "${S}"-1 ${S}_2`, "docker restart web-1 web_2"},
		{`set -- web db; docker restart "$@"`, "docker restart web db"},
		{"set -- web db; docker restart $# $1", "docker restart 2 web"},
		{"arr=(web db); docker restart ${arr[1]}", "docker restart db"},
		{"N=3; docker scale web=$((N+1))", "docker scale web=4"},
		{"docker restart web{,-worker}", "docker restart web web-worker"},
		{`docker restart "web"{1..2}`, "docker restart web1 web2"},
		{"echo $((1+2)) | xargs docker restart", "echo 3; docker restart 3"},
		{"CMD='docker restart web'; $CMD", "docker restart web"},
		{"CMD='docker restart web'; eval $CMD", "docker restart web"},
		{`CMD='docker restart web'; bash -c "$CMD"`, "docker restart web"},
		{"a=docker; b=restart; $a $b web", "docker restart web"},
		{"declare -x S=web; bash -c 'docker restart $S'", "docker restart web"},
		{"readonly S=web; docker restart $S", "docker restart web"},
		{"typeset -g S=web; docker restart $S", "docker restart web"},
		{"X=$(<svc); docker restart $X", "docker restart <$X>"},
		{"x=$(false) docker restart web", "false; docker restart web"},
		// Functions: their parameters, their local variables, and what
		// they set in the shell.
		{`f() { local s=$1; docker restart "$s"; }; f web`, "docker restart web"},
		{`restart() { sudo systemctl restart "$@"; }; restart nginx redis`, "systemctl restart nginx redis"},
		{`f() { set -- db; docker restart "$@"; }; f web`, "docker restart db"},
		{"f() { local S=db; }; S=web; f; docker restart $S", "docker restart web"},
		{"S=web; f() { S=db; }; f; docker restart $S", "docker restart db"},
		{"unset -f f; f() { :; }; f", ":"},
		{"alias k=kubectl\nk -n prod delete pod web-0", "{kubectl -n prod delete pod web-0 | k -n prod delete pod web-0}"},
		// Loops: unrolled over words it can read, else counted unknown.
		{"for i in 1 2 3; do docker restart web; sleep 5; done",
			"docker restart web; sleep 5; docker restart web; sleep 5; docker restart web; sleep 5"},
		{"for s in $(seq 3); do docker restart web$s; done", "seq 3; ?*(docker restart <web$s>)"},
		{"select s in web db; do docker restart $s; break; done", "?*(docker restart <$s>; break)"},
		{`while read -r s; do docker restart "$s"; done < services.txt`, `?*(docker restart <"$s">)`},
		{"while read -r s; do docker restart $s; done < <(docker ps -q)", "docker ps -q; ?*(docker restart <$s>)"},
	})
}

// TestReadRedirectionsAndFiles: here-documents, here-strings and files a
// shell reads its script from; scripts the line writes (>, >>, tee, cp,
// printf) and then runs; files it cannot know.
func TestReadRedirectionsAndFiles(t *testing.T) {
	runReadSteps(t, []struct{ line, runs string }{
		{"cat <<-EOF | sh\n\tdocker restart web\n\tEOF", "cat; docker restart web"},
		{"S=web; sh <<< \"docker restart $S\"", "docker restart web"},
		{"sh <<< \"docker restart $X\"", "!?(<<< \"docker restart $X\" | sh)"},
		{"bash -s < deploy.sh", "!(bash -s)"},
		{"echo docker restart web > /tmp/x; sh < /tmp/x", "echo docker restart web; docker restart web"},
		{"cat <<EOF > /tmp/x.sh\ndocker restart web\nEOF\nbash /tmp/x.sh", "cat; docker restart web"},
		{"cat > /tmp/x.sh <<'EOF'\n#!/bin/sh\ndocker restart $1\nEOF\nchmod +x /tmp/x.sh; /tmp/x.sh web", "cat; chmod +x /tmp/x.sh; docker restart web"},
		{"echo 'docker restart web' > x.sh && chmod +x x.sh && ./x.sh", "echo docker restart web; chmod +x x.sh; docker restart web"},
		// A name guard cannot expand, written by tee or in quotes, is still
		// known by its base name (review of a56898b).
		{"echo 'docker restart web' | tee $HOME/bin/dep; chmod +x $HOME/bin/dep; dep", "echo docker restart web; tee <$HOME/bin/dep>; chmod +x <$HOME/bin/dep>; docker restart web"},
		{`echo 'docker restart web' | tee "$HOME/bin/dep"; dep`, `echo docker restart web; tee <"$HOME/bin/dep">; docker restart web`},
		{`echo 'docker restart web' > "$HOME/bin/dep"; dep`, "echo docker restart web; docker restart web"},
		{"printf 'docker restart %s\\n' web db > x.sh; sh x.sh", "printf docker restart %s\\n web db; docker restart web; docker restart db"},
		{"echo 'docker restart web' > a.sh; cp a.sh b.sh; bash b.sh", "echo docker restart web; cp a.sh b.sh; docker restart web"},
		{"echo 'docker restart web' | tee a.sh; bash a.sh", "echo docker restart web; tee a.sh; docker restart web"},
		{"echo 'docker restart web' | tee x.sh $OUT; bash x.sh", "echo docker restart web; tee x.sh <$OUT>; docker restart web"},
		// Appended to a file that was there before: what it holds is not
		// all the line wrote.
		{"echo 'docker restart web' >> x.sh; bash x.sh", "echo docker restart web; !?(bash x.sh)"},
		{"echo 'docker restart web' | tee -a a.sh >/dev/null; bash a.sh", "echo docker restart web; tee -a a.sh; !?(bash a.sh)"},
		// A file run under another name than the line wrote may be it.
		{"echo 'docker restart web' > a.sh; cp -t /tmp a.sh; bash /tmp/a.sh",
			"echo docker restart web; cp -t /tmp a.sh; bash /tmp/a.sh; code(docker restart web\n)"},
		{"echo 'docker restart web' > a.sh; mv $X b.sh; bash b.sh", "echo docker restart web; mv <$X> b.sh; bash b.sh; code(docker restart web\n)"},
		{"cp deploy.sh /tmp/; bash /tmp/deploy.sh", "cp deploy.sh /tmp/; bash /tmp/deploy.sh"},
	})
}

// TestReadInstalls: a file written where a program runs it later, again
// and again, installs what it holds, whether its name is literal or not
// (~/.bashrc, "$REPO/.git/hooks/..."), and whether the line writes it
// with a redirection or with tee.
func TestReadInstalls(t *testing.T) {
	for i, st := range []struct{ line, why string }{
		{"echo 'docker restart web' | sudo tee /etc/cron.d/x", "cron runs"},
		{"echo ok >> ~/.ssh/config", "ssh runs commands from"},
		{"echo x > /etc/ssh/ssh_config.d/x.conf", "ssh runs commands from"},
		{"echo 'docker restart web' > ~/.config/systemd/user/x.service", "systemd runs"},
		{"echo '[alias] r = !docker restart web' >> .git/config", "git reads its aliases and commands from"},
		{"echo 'docker restart web' > $HOME/.bashrc", "a program runs at its start"},
		{`echo 'docker restart web' > "$REPO/.git/hooks/pre-commit"`, "git runs as a hook"},
		// The same files written by tee under a name guard cannot expand.
		{"echo 'docker restart web' | tee -a ~/.bashrc", "a program runs at its start"},
		{"echo 'docker restart web' | tee $HOME/.profile >/dev/null", "a program runs at its start"},
		{`echo 'docker restart web' | tee "$REPO/.git/hooks/pre-commit"`, "git runs as a hook"},
		// ... and in double quotes, whose base name is the file's.
		{`echo 'docker restart web' | tee "$HOME/.bashrc"`, "a program runs at its start"},
		{`echo 'docker restart web' | tee -a "$HOME/.bashrc"`, "a program runs at its start"},
		{`echo 'docker restart web' >> "$HOME/.bashrc"`, "a program runs at its start"},
		{`echo 'docker restart web' | tee "$D/hooks/pre-commit"`, "git runs as a hook"},
	} {
		n := Read(st.line)
		u := firstUnread(n)
		if u == nil || !u.Opaque || !strings.Contains(u.Reason, st.why) || !strings.Contains(show(n), "?*(code(") {
			t.Errorf("step %d: Read(%q) = %s; want what it writes installed (%q)", i+1, st.line, show(n), st.why)
		}
	}
}

// TestReadShellsOnStdin: a shell reading its script from a pipe runs what
// the commands before it write, when guard can tell (echo, printf,
// true), and is a part it cannot see when it cannot.
func TestReadShellsOnStdin(t *testing.T) {
	runReadSteps(t, []struct{ line, runs string }{
		{"printf '%s\\n' web | sh", "printf %s\\n web; web"},
		{"echo -e 'docker restart web\\n' | sh", "echo -e docker restart web\\n; docker restart web"},
		{"echo -e '\\x' | sh", "echo -e \\x; x"},
		{"echo docker restart web | bash -x", "echo docker restart web; docker restart web"},
		{"echo docker restart web | bash -c 'cat'", "echo docker restart web; cat"},
		{"echo docker restart web | bash -c 'sh'", "echo docker restart web; docker restart web"},
		{"echo docker restart web | sudo bash", "echo docker restart web; docker restart web"},
		{"echo docker restart web | ssh prod", "echo docker restart web; docker restart web"},
		{"echo docker restart web | ssh prod bash", "echo docker restart web; docker restart web"},
		{"true | sh", "true"},
		{": | sh", ":"},
		{"printf '%' | sh", "printf %; !?(printf '%' | sh)"},
		{"docker ps | (sh)", "docker ps; !?(docker ps | sh)"},
		{"D=x docker ps | sh", "docker ps; !?(D=x docker ps | sh)"},
		{"{ echo docker restart web; } | bash", "echo docker restart web; !?({ echo docker restart web; } | bash)"},
	})
}

// TestReadProgramsEdges: the programs Read follows, given no command, an
// option ending their options, or a word it cannot read where the
// command starts.
func TestReadProgramsEdges(t *testing.T) {
	runReadSteps(t, []struct{ line, runs string }{
		{"watch", ""}, {"tmux", ""}, {"screen", ""}, {"ssh prod", ""}, {"guard run", ""}, {"sem", ""}, {"pssh -h hosts", ""},
		{"watch -- docker restart web", "?*(docker restart web)"},
		{"entr -- docker restart web", "?*(docker restart web)"},
		{"sem -- docker restart web", "docker restart web"},
		{"ssh -- prod docker restart web", "docker restart web"},
		{"pssh -h hosts -- docker restart web", "docker restart web"},
		{"tmux -L sock new -d 'docker restart web'", "docker restart web"},
		{"screen -S x -dm docker restart web", "docker restart web"},
		{"guard run -- $CMD", "?<$CMD>"},
		{"guard --state", "guard --state"},
		{"echo web | xargs", "echo web; echo web"},
		{"echo web | xargs -- docker restart", "echo web; docker restart web"},
		{"echo web | xargs -I % docker restart %", "echo web; docker restart web"},
		{"echo web | xargs -L 1 docker restart", "echo web; docker restart web"},
		{"echo web | xargs --replace docker restart {}", "echo web; docker restart web"},
		{"xargs docker restart < list", "?*(docker restart <{xargs input}>)"},
		{"parallel -j2 docker restart ::: web db", "docker restart web; docker restart db"},
		{"echo web | parallel docker restart", "echo web; docker restart web"},
		{"cat f | parallel docker restart", "cat f; ?*(docker restart <{parallel input}>)"},
		{"parallel docker restart ::: $X", "?*(parallel docker restart ::: <$X>)"},
		{"git -C /srv config alias.r '!docker restart web'", "git -C /srv config alias.r !docker restart web; ?*(docker restart web)"},
		{"git config --global core.pager 'docker restart web'", "git config --global core.pager docker restart web; ?*(docker restart web)"},
		{"git config user.name x", "git config user.name x"},
		{"ansible all --module-name=shell --args='docker restart web'", "docker restart web"},
		{"ansible all -m shell", "ansible all -m shell"},
		{"salt '*' cmd.run 'docker restart web' runas=root", "docker restart web"},
		{"echo '* * * * * docker restart web' | crontab -u root -", "echo * * * * * docker restart web; crontab -u root -; ?*(docker restart web)"},
		{"crontab -l", "crontab -l"},
		{"python3 -m http.server", "python3 -m http.server"},
		{"python3 --version", "python3 --version"},
		{"python3 -u -c 'print(1)'", "code(print(1))"},
		{"script -q /dev/null", "script -q /dev/null"},
		{"make -f Mk all", "make -f Mk all"},
		{"echo 'x:\n\tdocker restart web' > Mk; make -fMk", "echo x:\n\tdocker restart web; make -fMk; code(x:\n\tdocker restart web\n)"},
	})
}

// TestRuns: the programs whose commands Read follows, by name.
func TestRuns(t *testing.T) {
	for _, name := range []string{"sudo", "env", "timeout", "flock", "xargs", "bash", "sh", "fish", "su", "find", "watch", "ssh",
		"parallel", "guard", "git", "ansible", "salt", "python3", "python", "perl", "awk", "node"} {
		if !Runs(name) {
			t.Errorf("Runs(%q) = false; want true", name)
		}
	}
	for _, name := range []string{"docker", "kubectl", "systemctl", "echo", "grep", "cat", "/usr/bin/sudo", ""} {
		if Runs(name) {
			t.Errorf("Runs(%q) = true; want false", name)
		}
	}
}

// TestArgEdges: ArgCommand and ArgScript of what is no command.
func TestArgEdges(t *testing.T) {
	n := lastRun(Read("strace -f docker restart web"))
	for _, i := range []int{0, -1, len(n.Cmd.Words)} {
		if got := ArgCommand(n, i); got != nil {
			t.Errorf("ArgCommand(n, %d) = %s; want nil", i, show(got))
		}
	}
	if ArgCommand(nil, 1) != nil || ArgScript(nil, "docker restart web") != nil {
		t.Error("ArgCommand or ArgScript of no node is not nil")
	}
	// A node not found by Read has steps of its own.
	own := &Node{Kind: Run, Text: "x docker restart web"}
	own.Cmd.Words, own.Cmd.Literal = []string{"x", "docker", "restart", "web"}, []bool{true, true, true, true}
	if got := show(ArgCommand(own, 1)); got != "docker restart web" {
		t.Errorf("ArgCommand of a node of its own = %q", got)
	}
	if got := show(ArgScript(own, "docker restart web; docker ps")); got != "docker restart web; docker ps" {
		t.Errorf("ArgScript of a node of its own = %q", got)
	}
}

// TestClip: a message's text is shortened on a rune's boundary.
func TestClip(t *testing.T) {
	for _, st := range []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"docker restart web", 6, "docker..."},
		{"ééé", 3, "é..."}, // not half of the second é
		{"ééé", 4, "éé..."},
	} {
		if got := clip(st.s, st.n); got != st.want {
			t.Errorf("clip(%q, %d) = %q; want %q", st.s, st.n, got, st.want)
		}
	}
	for _, st := range []struct {
		in   input
		want string
	}{
		{input{what: "the file x"}, "the file x"},
		{input{src: "curl -s x"}, "the output of curl -s x"},
		{input{}, "its stdin"},
	} {
		if got := st.in.describe(); got != st.want {
			t.Errorf("describe(%+v) = %q; want %q", st.in, got, st.want)
		}
	}
}

// TestReadArithmeticAssigns: arithmetic that assigns a variable, in ((
// )), let, [[ ]] or a word's $((...)), makes what guard knew of it
// unknown: bash runs web2 for N=1; ((N+=1)); docker restart web$N, which
// guard read as web1 when it took (( )) for no assignment at all (the
// assignment operators are not a range of syntax's: Assgn comes after
// ShrAssgn), so web2's budget went unspent.
func TestReadArithmeticAssigns(t *testing.T) {
	runReadSteps(t, []struct{ line, runs string }{
		{"N=1; ((N+=1)); docker restart web$N", "docker restart <web$N>"},
		{"S=web; (( S = 1 )); docker restart $S", "docker restart <$S>"},
		{"S=web; let S=2; docker restart $S", "docker restart <$S>"},
		{"S=web; let S++; docker restart $S", "docker restart <$S>"},
		{"N=1; (( N <<= 2 )); docker restart web$N", "docker restart <web$N>"},
		{"N=1; [[ $((N=5)) ]]; docker restart web$N", "docker restart <web$N>"},
		{"N=1; echo $((N=5)); docker restart web$N", "echo <$((N=5))>; docker restart <web$N>"},
		// Arithmetic that only reads a variable leaves it known.
		{"N=1; (( N > 0 )) && docker restart web$N", "docker restart web1"},
		{"N=1; echo $((N+1)); docker restart web$N", "echo 2; docker restart web1"},
		{"N=1; for ((i=0; i<2; i++)); do N=$N; done; docker restart web$N", "docker restart web1"},
	})
}

// TestReadAssignments: what each kind of assignment leaves guard knowing.
func TestReadAssignments(t *testing.T) {
	runReadSteps(t, []struct{ line, runs string }{
		{"S=web; S+=-1; docker restart $S", "docker restart web-1"},
		{"S+=x; docker restart $S", "docker restart <$S>"},
		{"S=web; S[1]=db; docker restart $S", "docker restart <$S>"},
		{"a=(web $X); docker restart ${a[0]}", "docker restart <${a[0]}>"},
		{"S=web; bash <<\\EOF\ndocker restart $S\nEOF", "docker restart <$S>"},
		{"export S=web; bash <<'EOF'\ndocker restart $S\nEOF", "docker restart web"},
		{"S=web; bash <<EOF\ndocker restart \\$S\nEOF", "docker restart <$S>"},
		{"S=web; export S; sh -c 'docker restart $S'", "docker restart web"},
		{"f() { docker restart $#; }; f a b c", "docker restart 3"},
		{"f() { docker restart $5; }; f a", "docker restart"},
		{"f() { declare S=db; }; S=web; f; docker restart $S", "docker restart web"},
		{"f() { declare -g S=db; }; S=web; f; docker restart $S", "docker restart db"},
	})
}

// TestReadConfigAndRemoteForms: git config writing a command to a file
// (-f, --file) installs it as it does in the repository's config; ansible's
// joined options; a shell of su or runuser given no command reads an
// empty stdin.
func TestReadConfigAndRemoteForms(t *testing.T) {
	runReadSteps(t, []struct{ line, runs string }{
		{"git config -f x.cfg alias.r '!docker restart web'", "git config -f x.cfg alias.r !docker restart web; ?*(docker restart web)"},
		{"git config --file x.cfg core.sshCommand 'docker restart web'",
			"git config --file x.cfg core.sshCommand docker restart web; ?*(docker restart web)"},
		{"git config user.email x@y", "git config user.email x@y"},
		{"git -c alias.r='!docker restart web' r", "docker restart web; git -c alias.r=!docker restart web r"},
		{"ansible all -m command --args='docker restart web'", "docker restart web"},
		{"ansible all --module-name=ping", "ansible all --module-name=ping"},
		{"tmux -S /tmp/s new-session 'docker restart web'", "docker restart web"},
		{"entr", ""},
		{"su ops", ""},
		{"runuser -u ops", ""},
	})
}
