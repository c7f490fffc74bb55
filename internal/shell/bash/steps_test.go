package bash

import (
	"strings"
	"testing"

	"guard/internal/shell"
)

// The step tables of the reader: for each line, what bash would run, as
// show writes it (see read_test.go): one table per way a command runs
// another. Each row is a step a newcomer can check by hand against bash.

func runReadSteps(t *testing.T, steps []struct{ line, runs string }) {
	t.Helper()
	for i, st := range steps {
		if got := show(Read(st.line)); got != st.runs {
			t.Errorf("step %d: Read(%q) runs %q; want %q", i+1, st.line, got, st.runs)
		}
	}
}

// TestReadRunnerTable: The programs of shell's Runner table run the command after their options,
// read as Runner.Use reads them: each valued option, the words they skip,
// the options with which they run nothing, and the strings some hand a
// shell or split (architecture-2 defect 1: one table for Program and Read).
// Then the shells: -c and its options, scripts on stdin and in files.
func TestReadRunnerTable(t *testing.T) {
	runReadSteps(t, []struct{ line, runs string }{
		// The runner table: each program and its valued options.
		{"sudo -u root -g wheel docker restart web", "docker restart web"},
		{"sudo -T 5 docker restart web", "docker restart web"},
		{"sudo --user=root docker restart web", "docker restart web"},
		{"sudo -E -H docker restart web", "docker restart web"},
		{"sudo -- docker restart web", "docker restart web"},
		{"sudo -e /etc/hosts", "sudo -e /etc/hosts"},
		{"sudo -k docker restart web", "sudo -k docker restart web"},
		{"doas -u root docker restart web", "docker restart web"},
		{"doas -L", "doas -L"},
		{"env -u HOME -C /srv docker restart web", "docker restart web"},
		{"env -P /usr/bin docker restart web", "docker restart web"},
		{"env --chdir=/srv A=1 B=2 docker restart web", "docker restart web"},
		{"env - PATH=/bin docker restart web", "docker restart web"},
		{"env -i docker restart web", "docker restart web"},
		{"env --split-string='docker restart' web", "docker restart web"},
		{"env -S \"$X\" web", "!?(env -S \"$X\" web)"},
		{"nice -n 19 docker restart web", "docker restart web"},
		{"nice --adjustment=5 docker restart web", "docker restart web"},
		{"nice -5 docker restart web", "docker restart web"},
		{"ionice -c2 -n7 docker restart web", "docker restart web"},
		{"ionice -P 1 docker restart web", "docker restart web"},
		{"ionice -u 0 docker restart web", "docker restart web"},
		{"nohup docker restart web", "docker restart web"},
		{"time -f %e docker restart web", "-f %e docker restart web"},
		{"command docker restart web", "docker restart web"},
		{"command -V docker", "command -V docker"},
		{"builtin eval docker restart web", "docker restart web"},
		{"exec docker restart web", "docker restart web"},
		{"stdbuf -i0 -o L docker restart web", "docker restart web"},
		{"stdbuf --output=L docker restart web", "docker restart web"},
		{"timeout 5 docker restart web", "docker restart web"},
		{"timeout -k 5 -s TERM 1m docker restart web", "docker restart web"},
		{"timeout --kill-after=5 10 docker restart web", "docker restart web"},
		{"timeout 5", ""},
		{"setsid docker restart web", "docker restart web"},
		{"setsid -f -w docker restart web", "docker restart web"},
		{"chroot /srv docker restart web", "docker restart web"},
		{"chroot --userspec=u:g /srv docker restart web", "docker restart web"},
		{"flock /tmp/l docker restart web", "docker restart web"},
		{"flock -w 5 /tmp/l docker restart web", "docker restart web"},
		{"flock -E 3 -w 5 /tmp/l docker restart web", "docker restart web"},
		{"flock --timeout=5 /tmp/l docker restart web", "docker restart web"},
		{"flock -c 'docker restart web' /tmp/l", "docker restart web"},
		{"flock -x /tmp/l -c 'docker restart web'", "docker restart web"},
		{"nsenter -t 1 -m -u docker restart web", "docker restart web"},
		{"nsenter --target=1 -a docker restart web", "docker restart web"},
		{"systemd-run --user --scope docker restart web", "docker restart web"},
		{"systemd-run -p MemoryMax=1G --uid=0 docker restart web", "docker restart web"},
		{"systemd-run --on-calendar=daily docker restart web", "docker restart web"},
		{"unbuffer docker restart web", "docker restart web"},
		{"taskset 0x3 docker restart web", "docker restart web"},
		{"taskset -c 0 docker restart web", "docker restart web"},
		{"chrt 10 docker restart web", "docker restart web"},
		{"chrt -f 10 docker restart web", "docker restart web"},
		{"caffeinate docker restart web", "docker restart web"},
		{"pkexec --user root docker restart web", "docker restart web"},
		{"unshare --map-user 0 -r docker restart web", "docker restart web"},
		{"unshare -m -p -f docker restart web", "docker restart web"},
		{"cgexec -g cpu:grp docker restart web", "docker restart web"},
		{"firejail --noprofile docker restart web", "docker restart web"},
		{"prlimit --nofile=10 docker restart web", "docker restart web"},
		{"prlimit -p 1 --nofile=10", ""},
		{"nice timeout 5 setsid sudo -u ops env A=1 docker restart web", "docker restart web"},
		// Shells: -c, options with values, stdin, files.
		{"sh -c 'docker restart web'", "docker restart web"},
		{"bash -ec 'docker restart web'", "docker restart web"},
		{"bash -x -c 'docker restart web'", "docker restart web"},
		{"bash -o pipefail -c 'docker restart web'", "docker restart web"},
		{"bash +x -c 'docker restart web'", "docker restart web"},
		{"bash --rcfile x -c 'docker restart web'", "docker restart web"},
		{"dash -c 'docker restart \"$0\"' web", "docker restart web"},
		{"ksh -c 'docker restart web'", "docker restart web"},
		{"mksh -c 'docker restart web'", "docker restart web"},
		{"zsh -fc 'docker restart web'", "docker restart web"},
		{"fish -c 'docker restart web'", "docker restart web"},
		{"fish --command='docker restart web'", "docker restart web"},
		{"csh -c 'docker restart web'", "docker restart web"},
		{"tcsh -c 'docker restart web'", "docker restart web"},
		{"yash -c 'docker restart web'", "docker restart web"},
		{"posh -c 'docker restart web'", "docker restart web"},
		{"busybox ash -c 'docker restart web'", "docker restart web"},
		{"bash -c 'docker restart $1' _ web", "docker restart web"},
		{"bash -c 'for s; do docker restart $s; done' _ web db", "docker restart web; docker restart db"},
		{"bash -c 'docker restart \"$@\"' _ web db", "docker restart web db"},
		{"bash -c \"$X\"", "!?(bash -c \"$X\")"},
		{"bash -c", ""},
		{"bash -s web <<< 'docker restart $1'", "docker restart web"},
		{"bash - <<< 'docker restart web'", "docker restart web"},
		{"bash /dev/stdin <<< 'docker restart web'", "docker restart web"},
		{"sh deploy.sh web", "sh deploy.sh web"},
		{"sh -x deploy.sh", "sh -x deploy.sh"},
		{"\"$SHELL\" -c 'docker restart web'", "<\"$SHELL\"> -c docker restart web"},
		{"sh -c 'sh -c \"sh -c \\\"docker restart web\\\"\"'", "docker restart web"},
	})
}

// TestReadOptionCommands: Options whose value a shell runs, per program (shell.Runner.Options), and
// variables whose value a program runs (shell.CommandVar): hostile-user-3
// M4.
func TestReadOptionCommands(t *testing.T) {
	runReadSteps(t, []struct{ line, runs string }{
		{"/usr/bin/time -f %e docker restart web", "docker restart web"},
		// Options that hand a shell a command.
		{"rsync -e \"docker restart web\" a b", "rsync -e docker restart web a b; docker restart web"},
		{"rsync -a --rsh='docker restart web' a h:b", "rsync -a --rsh=docker restart web a h:b; docker restart web"},
		{"rsync --rsync-path='sudo docker restart web' a h:b", "rsync --rsync-path=sudo docker restart web a h:b; docker restart web"},
		{"rsync -e ssh -a a h:b", "rsync -e ssh -a a h:b"},
		{"rsync -essh a h:b", "rsync -essh a h:b"},
		{"rsync -e \"$RSH\" a h:b", "rsync -e <\"$RSH\"> a h:b; !?(rsync -e \"$RSH\" a h:b)"},
		{"ssh -o ProxyCommand='docker restart web' h true", "docker restart web; true"},
		{"ssh -oProxyCommand='docker restart web' h", "docker restart web"},
		{"ssh -o 'LocalCommand=docker restart web' h", "docker restart web"},
		{"ssh -o KnownHostsCommand='docker restart web' h", "docker restart web"},
		{"ssh -o StrictHostKeyChecking=no h uptime", "uptime"},
		{"scp -o ProxyCommand='docker restart web' a h:b", "scp -o ProxyCommand=docker restart web a h:b; docker restart web"},
		{"scp -S 'docker restart web' a h:b", "scp -S docker restart web a h:b; docker restart web"},
		{"sftp -o ProxyCommand='docker restart web' h", "sftp -o ProxyCommand=docker restart web h; docker restart web"},
		{"tar -cf /dev/null --to-command='docker restart web' x", "tar -cf /dev/null --to-command=docker restart web x; ?*(docker restart web)"},
		{"tar -xf x.tar --to-command 'docker restart web'", "tar -xf x.tar --to-command docker restart web; ?*(docker restart web)"},
		{"tar -I 'docker restart web' -cf x.tar y", "tar -I docker restart web -cf x.tar y; docker restart web"},
		{"tar --use-compress-program='docker restart web' -cf x.tar y", "tar --use-compress-program=docker restart web -cf x.tar y; docker restart web"},
		{"tar -F 'docker restart web' -cf x.tar y", "tar -F docker restart web -cf x.tar y; ?*(docker restart web)"},
		{"tar --checkpoint=1 --checkpoint-action=exec='docker restart web' -cf x.tar y", "tar --checkpoint=1 --checkpoint-action=exec=docker restart web -cf x.tar y; ?*(docker restart web)"},
		{"tar --checkpoint-action=dot -cf x.tar y", "tar --checkpoint-action=dot -cf x.tar y"},
		{"tar -czf x.tgz dir", "tar -czf x.tgz dir"},
		{"git -c alias.x='!docker restart web' x", "docker restart web; git -c alias.x=!docker restart web x"},
		{"git -c alias.x='status' x", "git -c alias.x=status x"},
		{"git -c core.sshCommand='docker restart web' fetch", "docker restart web; git -c core.sshCommand=docker restart web fetch"},
		{"git -c credential.helper='!docker restart web' push", "docker restart web; git -c credential.helper=!docker restart web push"},
		{"git -c user.name=x commit -m 'docker restart web'", "git -c user.name=x commit -m docker restart web"},
		{"git clone --upload-pack='docker restart web' h:r", "docker restart web; git clone --upload-pack=docker restart web h:r"},
		{"git push --receive-pack='docker restart web' h:r", "docker restart web; git push --receive-pack=docker restart web h:r"},
		{"vim -c '!docker restart web' -c q f", "vim -c !docker restart web -c q f; docker restart web; code(q)"},
		{"vim '+!docker restart web' f", "vim +!docker restart web f; docker restart web"},
		{"vim --cmd 'silent !docker restart web' f", "vim --cmd silent !docker restart web f; docker restart web; code(silent )"},
		{"vi -c 'set nu' f", "vi -c set nu f; code(set nu)"},
		{"nvim +42 f", "nvim +42 f; code(42)"},
		{"view -c ':!docker restart web' f", "view -c :!docker restart web f; docker restart web; code(:)"},
		{"ex -c '!docker restart web' f", "ex -c !docker restart web f; docker restart web"},
		{"vim -es <<< '!docker restart web'", "vim -es; docker restart web"},
		{"less '+!docker restart web' f", "less +!docker restart web f; docker restart web"},
		{"less +G f", "less +G f; code(G)"},
		{"man -P 'docker restart web' ls", "man -P docker restart web ls; docker restart web"},
		{"psql -c '\\! docker restart web'", "psql -c \\! docker restart web; docker restart web"},
		{"psql --command='\\! docker restart web'", "psql --command=\\! docker restart web; docker restart web"},
		{"psql -c 'SELECT 1 FROM docker'", "psql -c SELECT 1 FROM docker; code(SELECT 1 FROM docker)"},
		{"psql <<< '\\! docker restart web'", "psql; docker restart web"},
		{"echo '\\! docker restart web' | psql", "echo \\! docker restart web; psql; docker restart web"},
		{"mysql -e 'system docker restart web'", "mysql -e system docker restart web; docker restart web"},
		{"mariadb --execute='\\! docker restart web'", "mariadb --execute=\\! docker restart web; docker restart web"},
		{"sqlite3 db '.shell docker restart web'", "sqlite3 db .shell docker restart web; code(db); docker restart web"},
		{"sqlite3 db 'SELECT 1' '.system docker restart web'", "sqlite3 db SELECT 1 .system docker restart web; code(db); code(SELECT 1); docker restart web"},
		{"sqlite3 db <<< '.shell docker restart web'", "sqlite3 db; code(db); docker restart web"},
		{"gdb -batch -ex 'shell docker restart web'", "docker restart web"},
		{"gdb -ex '!docker restart web' --args prog", "docker restart web; prog"},
		{"gdb --args docker restart web", "docker restart web"},
		{"lftp -c '!docker restart web'", "lftp -c !docker restart web; docker restart web"},
		{"ed f <<< '!docker restart web'", "ed f; docker restart web"},
		{"zip -T -TT 'docker restart web' x.zip f", "zip -T -TT docker restart web x.zip f; docker restart web"},
		{"dpkg --pre-invoke='docker restart web' -i x.deb", "dpkg --pre-invoke=docker restart web -i x.deb; docker restart web"},
		{"apt-get -o APT::Update::Pre-Invoke::='docker restart web' update", "apt-get -o APT::Update::Pre-Invoke::=docker restart web update; docker restart web"},
		{"apt -o 'DPkg::Post-Invoke::=docker restart web' install x", "apt -o DPkg::Post-Invoke::=docker restart web install x; docker restart web"},
		{"apt-get -o Acquire::Retries=3 update", "apt-get -o Acquire::Retries=3 update"},
		{"apt-get install -y ssh docker.io", "apt-get install -y ssh docker.io"},
		// Variables whose value a program runs.
		{"GIT_SSH_COMMAND='docker restart web' git fetch", "docker restart web; git fetch"},
		{"GIT_EDITOR='docker restart web' git commit", "docker restart web; git commit"},
		{"EDITOR='docker restart web' crontab -e", "docker restart web; crontab -e"},
		{"export VISUAL='docker restart web'", "docker restart web"},
		{"PAGER='docker restart web' man ls", "docker restart web; man ls"},
		{"LESSOPEN='|docker restart web %s' less f", "docker restart web; less f"},
		{"BASH_ENV=x.sh bash -c true", "true"},
		{"echo 'docker restart web' > x.sh; BASH_ENV=x.sh bash -c true", "echo docker restart web; docker restart web; true"},
		{"GIT_SSH_COMMAND=\"$X\" git fetch", "!?(GIT_SSH_COMMAND=\"$X\"); git fetch"},
		{"A='docker restart web' git fetch", "git fetch"},
	})
}

// TestReadWrittenScripts: A script the line writes and then runs is read as what was written; one
// written with output guard cannot tell is a script guard cannot see;
// make's recipes and cron's jobs given in the line are read too
// (hostile-user-3 M4).
func TestReadWrittenScripts(t *testing.T) {
	runReadSteps(t, []struct{ line, runs string }{
		// Scripts written and run in the same line.
		{"echo 'docker restart web' > x.sh; bash x.sh", "echo docker restart web; docker restart web"},
		{"echo 'docker restart web' > x.sh; sh ./x.sh", "echo docker restart web; docker restart web"},
		{"echo 'docker restart web' > /tmp/x.sh && . /tmp/x.sh", "echo docker restart web; docker restart web"},
		{"echo 'docker restart web' > x.sh; source x.sh", "echo docker restart web; docker restart web"},
		{"printf 'docker restart web\\n' > x.sh; chmod +x x.sh; ./x.sh", "printf docker restart web\\n; chmod +x x.sh; docker restart web"},
		{"printf '#!/bin/sh\\ndocker restart \"$1\"\\n' > x.sh; ./x.sh web", "printf #!/bin/sh\\ndocker restart \"$1\"\\n; docker restart web"},
		{"printf '#!/usr/bin/env python3\\nimport os\\n' > x.py; ./x.py", "printf #!/usr/bin/env python3\\nimport os\\n; code(#!/usr/bin/env python3\nimport os\n)"},
		{"echo 'docker restart web' >> x.sh; echo 'docker restart db' >> x.sh; bash x.sh", "echo docker restart web; echo docker restart db; !?(bash x.sh)"},
		{"echo 'docker restart web' > a.sh; cp a.sh b.sh; bash b.sh", "echo docker restart web; cp a.sh b.sh; docker restart web"},
		{"echo 'docker restart web' > a.sh; mv a.sh b.sh; sh b.sh", "echo docker restart web; mv a.sh b.sh; docker restart web"},
		{"echo 'docker restart web' | tee x.sh; bash x.sh", "echo docker restart web; tee x.sh; docker restart web"},
		{"echo 'docker restart web' | tee -a log x.sh > /dev/null; bash x.sh", "echo docker restart web; tee -a log x.sh; !?(bash x.sh)"},
		{"curl -s http://x/s.sh > s.sh; bash s.sh", "curl -s http://x/s.sh; !?(bash s.sh)"},
		{"echo \"$CMD\" > x.sh; bash x.sh", "echo <\"$CMD\">; !?(bash x.sh)"},
		{"echo ok > x.sh; echo 'docker restart web' >> x.sh; bash x.sh", "echo ok; echo docker restart web; ok; docker restart web"},
		{"ls > x.sh; echo 'docker restart web' >> x.sh; bash x.sh", "ls; echo docker restart web; !?(bash x.sh)"},
		{"echo 'docker restart web' > x.sh; at -f x.sh now", "echo docker restart web; docker restart web"},
		{"echo 'docker restart web' > x.sh; at -f y.sh now", "echo docker restart web; at -f y.sh now; code(docker restart web\n)"},
		{"echo 'docker restart web' > x.sh; bash y.sh", "echo docker restart web; bash y.sh; code(docker restart web\n)"},
		{"echo 'import os' > x.py; python3 x.py", "echo import os; code(import os\n)"},
		{"echo 'docker restart web' 2> x.sh; bash x.sh", "echo docker restart web; bash x.sh"},
		// TC's variants of hostile-user-3 M4. A file run that the line did
		// not write under that name may be one it wrote under another (cp
		// to a directory, cd, ln, "$PWD/x.sh", make's default makefile):
		// what the line wrote is searched as code. A file written where a
		// program runs it later (git's hooks, cron, a shell's start-up
		// files) is installed, as crontab installs. Interpreters take
		// their code from a here-document or a pipe, and their code's
		// arguments are searched with it. git config installs a command
		// as git -c runs one. A file the line wrote given to a program
		// (ssh -F, vim -S, --config=) may hold commands in its language.
		{"echo 'docker restart web' > x.sh && cp x.sh /tmp/ && bash /tmp/x.sh", "echo docker restart web; cp x.sh /tmp/; docker restart web"},
		{"echo 'docker restart web' > x.sh && cp x.sh /tmp/ && cd /tmp && bash ./y/../x.sh", "echo docker restart web; cp x.sh /tmp/; cd /tmp; docker restart web"},
		{"echo 'docker restart web' > x.sh && cp x.sh /srv/app/ && bash /srv/app/y.sh", "echo docker restart web; cp x.sh /srv/app/; bash /srv/app/y.sh; code(docker restart web\ndocker restart web\n)"},
		{"echo 'docker restart web' > x.sh && cd sub && bash ../x.sh", "echo docker restart web; cd sub; bash ../x.sh; code(docker restart web\n)"},
		{"echo 'docker restart web' > x.sh && ln -s x.sh y.sh && ./y.sh", "echo docker restart web; ln -s x.sh y.sh; docker restart web"},
		{"echo 'docker restart web' > x.sh; source \"$PWD/x.sh\"", "echo docker restart web; source /x.sh; code(docker restart web\n)"},
		{"echo 'import os' > x.py; python3 /tmp/x.py", "echo import os; python3 /tmp/x.py; code(import os\n)"},
		{"printf 'all:\\n\\tdocker restart web\\n' > Makefile && make", "printf all:\\n\\tdocker restart web\\n; make; code(all:\n\tdocker restart web\n)"},
		{"printf 'all:\\n\\tdocker restart web\\n' > M && make -f N", "printf all:\\n\\tdocker restart web\\n; make -f N; code(all:\n\tdocker restart web\n)"},
		{"echo 'x' > notes.txt; make test", "echo x; make test; code(x\n)"},
		{"echo '* * * * * docker restart web' > t; crontab u", "echo * * * * * docker restart web; crontab u; ?*(code(* * * * * docker restart web\n))"},
		{"echo ok > x.sh; ./deploy.sh", "echo ok; ./deploy.sh; code(ok\n)"},
		{"python3 <<< 'import os'", "python3; code(import os\n)"},
		{"echo 'import os' | python3 -", "echo import os; python3 -; code(import os\n)"},
		{"curl -s x | python3", "curl -s x; !?(curl -s x | python3)"},
		{"python3 -c 'import sys' docker restart web", "code(import sys\ndocker restart web)"},
		{"awk -v c='docker restart web' 'BEGIN{system(c)}'", "code(BEGIN{system(c)}\nc=docker restart web)"},
		{"perl x.pl", "perl x.pl"},
		{"newgrp docker <<< 'docker restart web'", "newgrp docker; docker restart web"},
		{"git config alias.x '!docker restart web'", "git config alias.x !docker restart web; ?*(docker restart web)"},
		{"git config --global core.pager 'docker restart web'", "git config --global core.pager docker restart web; ?*(docker restart web)"},
		{"git config set core.sshCommand \"$X\"", "git config set core.sshCommand <\"$X\">; !?(git config set core.sshCommand \"$X\")"},
		{"git config user.name docker", "git config user.name docker"},
		{"echo 'docker restart web' > .git/hooks/pre-commit", "echo docker restart web; ?*(code(docker restart web\n))"},
		{"cat > ~/.bashrc <<< 'docker restart web'", "cat; ?*(code(docker restart web\n))"},
		{"echo 'docker restart web' | tee -a /etc/cron.d/x", "echo docker restart web; tee -a /etc/cron.d/x; ?*(code(docker restart web\n))"},
		{"curl x > .git/hooks/pre-push", "curl x; !?(curl x > .git/hooks/pre-push)"},
		{"echo 'x' > a.sh; cp a.sh .git/hooks/post-merge", "echo x; cp a.sh .git/hooks/post-merge; ?*(code(x\n))"},
		{"printf 'Host h\\n ProxyCommand docker restart web\\n' > cfg; ssh -F cfg h true", "printf Host h\\n ProxyCommand docker restart web\\n; code(Host h\n ProxyCommand docker restart web\n); true"},
		{"echo '!docker restart web' > v.vim; vim -S v.vim", "echo !docker restart web; vim -S v.vim; code(!docker restart web\n)"},
		{"echo 'docker restart web' > c.txt; mytool --config=c.txt", "echo docker restart web; mytool --config=c.txt; code(docker restart web\n)"},
		{"echo 'docker restart web' > x.sh; parallel -a x.sh", "echo docker restart web; docker restart web"},
		{"parallel <<< 'docker restart web'", "docker restart web"},
		{"env -S'docker restart web'", "docker restart web"},
		{"env -vS 'docker restart web'", "docker restart web"},
		{"ssh -o 'ProxyCommand docker restart web' h true", "docker restart web; true"},
		{"vim -c 'call system(\"docker restart web\")'", "vim -c call system(\"docker restart web\"); code(call system(\"docker restart web\"))"},
		{"psql -c '\\o |docker restart web'", "psql -c \\o |docker restart web; code(\\o |docker restart web)"},
		// A program the line wrote into a directory of PATH, run by its
		// name; ln and dd copy as cp does; a git hook's name is one
		// wherever core.hooksPath puts it; sed -f and awk -f read a
		// script the line gives.
		{"echo 'docker restart web' > ~/bin/foo; chmod +x ~/bin/foo; foo", "echo docker restart web; chmod +x <~/bin/foo>; docker restart web"},
		{"echo 'docker restart web' > /usr/local/bin/foo; foo", "echo docker restart web; docker restart web"},
		{"echo 'docker restart web' | tee /usr/local/bin/foo; foo", "echo docker restart web; tee /usr/local/bin/foo; docker restart web"},
		{"echo 'docker restart web' > x.sh && ln -s ../../x.sh .git/hooks/pre-commit", "echo docker restart web; ln -s ../../x.sh .git/hooks/pre-commit; ?*(code(docker restart web\n))"},
		{"echo 'docker restart web' > x.sh && dd if=x.sh of=y.sh && bash y.sh", "echo docker restart web; dd if=x.sh of=y.sh; docker restart web"},
		{"echo 'docker restart web' > /tmp/h/pre-commit", "echo docker restart web; ?*(code(docker restart web\n))"},
		{"sed -f <(echo '1e docker restart web') f", "echo 1e docker restart web; code(1e docker restart web\n)"},
		{"echo 'BEGIN{system(\"docker restart web\")}' > x.awk; awk -f x.awk", "echo BEGIN{system(\"docker restart web\")}; code(BEGIN{system(\"docker restart web\")}\n)"},
		{"echo 's/a/b/' > x.sed; sed -f x.sed f", "echo s/a/b/; sed -f x.sed f"},
		{"echo 'echo hi' > ~/bin/hello; hello", "echo echo hi; echo hi"},
		// make and crontab.
		{"make -f - <<< 'all: ; docker restart web'", "make -f -; code(all: ; docker restart web\n)"},
		{"make -f /dev/stdin <<< 'all: ; docker restart web'", "make -f /dev/stdin; code(all: ; docker restart web\n)"},
		{"make --file=- all <<< 'all: ; docker restart web'", "make --file=- all; code(all: ; docker restart web\n)"},
		{"make --eval='all: ; docker restart web'", "make --eval=all: ; docker restart web; code(all: ; docker restart web)"},
		{"printf 'all:\\n\\tdocker restart web\\n' > M; make -f M", "printf all:\\n\\tdocker restart web\\n; make -f M; code(all:\n\tdocker restart web\n)"},
		{"printf 'all:\\n\\tdocker restart web\\n' | make -f -", "printf all:\\n\\tdocker restart web\\n; make -f -; code(all:\n\tdocker restart web\n)"},
		{"curl x | make -f -", "curl x; make -f -; !(curl x | make -f -)"},
		{"make -f Makefile.deploy", "make -f Makefile.deploy"},
		{"make docker", "make docker"},
		{"make -C dir install", "make -C dir install"},
		{"crontab <<< '* * * * * docker restart web'", "crontab; ?*(docker restart web)"},
		{"echo '@reboot docker restart web' | crontab -", "echo @reboot docker restart web; crontab -; ?*(docker restart web)"},
		{"echo '*/5 * * * * docker restart web > /dev/null 2>&1' | crontab -", "echo */5 * * * * docker restart web > /dev/null 2>&1; crontab -; ?*(docker restart web)"},
		{"printf 'MAILTO=x\\n# c\\n0 1 * * * docker restart web\\n30 2 * * 1 docker restart db%%in\\n' | crontab -", "printf MAILTO=x\\n# c\\n0 1 * * * docker restart web\\n30 2 * * 1 docker restart db%%in\\n; crontab -; ?*(docker restart web; docker restart db)"},
		{"echo '* * * * * docker restart web' > t; crontab t", "echo * * * * * docker restart web; crontab t; ?*(docker restart web)"},
		{"crontab t", "crontab t"},
		{"crontab -l", "crontab -l"},
		{"crontab -r", "crontab -r"},
		{"crontab -u ops -l", "crontab -u ops -l"},
		{"crontab -l | grep -v x | crontab -", "crontab -l; grep -v x; !(crontab -l | grep -v x | crontab -)"},
		{"crontab -l | { cat; echo '* * * * * docker restart web'; } | crontab -", "crontab -l; cat; echo * * * * * docker restart web; !(crontab -l | { cat; echo '* * * * * docker restart web'; } | crontab -)"},
	})
}

// TestReadFlow: Lists, pipelines, subshells and substitutions run every command; if and
// case run one branch (Alt); loops run their body a number of times (Loop,
// Unknown when guard cannot count); functions, aliases, eval and trap run
// the code they hold.
func TestReadFlow(t *testing.T) {
	runReadSteps(t, []struct{ line, runs string }{
		// Lists, pipelines, subshells, substitutions.
		{"docker restart web; docker restart db", "docker restart web; docker restart db"},
		{"docker restart web && docker restart db", "docker restart web; docker restart db"},
		{"docker restart web || docker restart db", "docker restart web; docker restart db"},
		{"! docker restart web", "docker restart web"},
		{"(docker restart web)", "docker restart web"},
		{"{ docker restart web; docker restart db; }", "docker restart web; docker restart db"},
		{"docker restart web | tee log", "docker restart web; tee log"},
		{"docker restart web |& tee log", "docker restart web; tee log"},
		{"docker restart web 2>&1 | grep x", "docker restart web; grep x"},
		{"x=$(docker restart web)", "docker restart web"},
		{"echo \"$(docker restart web)\"", "docker restart web; echo <\"$(docker restart web)\">"},
		{"echo `docker restart web`", "docker restart web; echo <`docker restart web`>"},
		{"diff <(docker restart web) <(docker restart db)", "docker restart web; docker restart db; diff /dev/fd/guard-1 /dev/fd/guard-2"},
		{"docker restart web > >(tee log)", "tee log; docker restart web"},
		{"coproc docker restart web", "docker restart web"},
		{"time docker restart web", "docker restart web"},
		{"docker restart web & docker restart db & wait", "docker restart web; docker restart db; wait"},
		{"[[ $(docker restart web) ]]", "docker restart web"},
		{"(( $(docker restart web) ))", "docker restart web"},
		{"let x=$(docker restart web)", "docker restart web"},
		{"declare x=$(docker restart web)", "docker restart web"},
		{"local x=$(docker restart web)", "docker restart web"},
		{"export x=$(docker restart web)", "docker restart web"},
		{"case $(docker restart web) in *) ;; esac", "docker restart web"},
		{"for x in $(docker restart web); do :; done", "docker restart web; ?*(:)"},
		// Control flow.
		{"if docker restart web; then :; fi", "docker restart web; {: | }"},
		{"if true; then docker restart web; fi", "true; {docker restart web | }"},
		{"if true; then docker restart web; else docker restart db; fi", "true; {docker restart web | docker restart db}"},
		{"if a; then b; elif c; then docker restart web; else d; fi", "a; {b | c; {docker restart web | d}}"},
		{"case x in a) docker restart web;; b) docker restart db;; esac", "{ | docker restart web | docker restart db}"},
		{"case x in a|b) docker restart web;; esac", "{ | docker restart web}"},
		{"for s in web db cache; do docker restart $s; done", "docker restart web; docker restart db; docker restart cache"},
		{"for s in web; do for t in db; do docker restart $s $t; done; done", "docker restart web db"},
		{"for s in {1..3}; do docker restart web$s; done", "docker restart web1; docker restart web2; docker restart web3"},
		{"for s; do docker restart $s; done", "?*(docker restart <$s>)"},
		{"for s in \"$@\"; do docker restart $s; done", "?*(docker restart <$s>)"},
		{"while read s; do docker restart $s; done < list", "?*(docker restart <$s>)"},
		{"while :; do docker restart web; sleep 1; done", "?*(:; docker restart web; sleep 1)"},
		{"until docker restart web; do sleep 1; done", "?*(docker restart web; sleep 1)"},
		{"select s in web db; do docker restart $s; done", "?*(docker restart <$s>)"},
		{"for ((;;)); do docker restart web; done", "?*(docker restart web)"},
		// Functions, aliases, eval, trap.
		{"f() { docker restart \"$@\"; }; f web db", "docker restart web db"},
		{"f() { docker restart $1; }; g() { f $1; }; g web", "docker restart web"},
		{"f() { docker restart web; }; unset -f f; f", "f"},
		{"f() { docker restart web; }", ""},
		{"r() { docker \"$@\"; }; r restart web", "docker restart web"},
		{"alias d=docker; d restart web", "{docker restart web | d restart web}"},
		{"alias d='docker restart' e='docker start'; d web; e db", "{docker restart web | d web}; {docker start db | e db}"},
		{"unalias -a; docker restart web", "docker restart web"},
		{"eval 'docker restart web'", "docker restart web"},
		{"eval \"S=web\"; docker restart $S", "docker restart web"},
		{"eval docker restart '$S'", "docker restart <$S>"},
		{"trap 'docker restart web' EXIT", "docker restart web"},
		{"trap 'docker restart web' INT TERM", "{docker restart web | }"},
		{"trap - EXIT", ""},
		{"trap -l", ""},
		{"source /dev/stdin <<< 'docker restart web'", "docker restart web"},
		{". <(echo docker restart web)", "echo docker restart web; docker restart web"},
	})
}

// TestReadItemsAndRemotes: Programs that run a command for each item of their input (xargs, find,
// parallel, watch, entr), remote shells (ssh, pssh, ansible, salt),
// terminals and sessions, git's own runners, and guard run.
func TestReadItemsAndRemotes(t *testing.T) {
	runReadSteps(t, []struct{ line, runs string }{
		// Programs that run their input or a command per item.
		{"echo web | xargs docker restart", "echo web; docker restart web"},
		{"echo web db | xargs -n1 docker restart", "echo web db; docker restart web; docker restart db"},
		{"echo web db | xargs -L 1 docker restart", "echo web db; docker restart web; docker restart db"},
		{"echo web db | xargs --max-args=1 docker restart", "echo web db; docker restart web; docker restart db"},
		{"printf 'web\\0db\\0' | xargs -0 docker restart", "printf web\\0db\\0; docker restart web db"},
		{"echo web,db | xargs -d , docker restart", "echo web,db; docker restart web db"},
		{"echo 'web db' | xargs -I % docker restart %", "echo web db; docker restart web db"},
		{"echo web | xargs -i docker restart {}", "echo web; docker restart web"},
		{"echo web | xargs -Iz sh -c 'docker restart z'", "echo web; docker restart web"},
		{"echo | xargs -r docker restart", "echo"},
		{"echo | xargs docker restart web", "echo; docker restart web"},
		{"xargs docker restart < list", "?*(docker restart <{xargs input}>)"},
		{"docker ps -q | xargs docker restart", "docker ps -q; ?*(docker restart <{xargs input}>)"},
		{"xargs -a list docker restart", "?*(docker restart <{xargs input}>)"},
		{"xargs -P 4 -n 1 docker restart <<< 'web db'", "docker restart web; docker restart db"},
		{"find . -exec docker restart web \\;", "?*(docker restart web)"},
		{"find . -name x -exec docker restart {} \\;", "?*(docker restart <{}>)"},
		{"find . -ok docker restart web \\;", "?*(docker restart web)"},
		{"find . -okdir docker restart web ';'", "?*(docker restart web)"},
		{"find . -exec echo {} \\; -exec docker restart web \\;", "?*(echo <{}>); ?*(docker restart web)"},
		{"find . -name '*.log' -delete", ""},
		{"watch docker restart web", "?*(docker restart web)"},
		{"watch -n 1 -x docker restart web", "?*(docker restart web)"},
		{"watch -- docker restart web", "?*(docker restart web)"},
		{"parallel docker restart ::: web db", "docker restart web; docker restart db"},
		{"parallel -j 2 'docker restart {}' ::: web db", "docker restart web; docker restart db"},
		{"parallel docker restart {} ::: web db", "docker restart web; docker restart db"},
		{"echo web | parallel docker restart", "echo web; docker restart web"},
		{"parallel --dry-run docker restart ::: web", "docker restart web"},
		{"parallel docker restart :::: list", "?*(docker restart <{parallel input}>)"},
		{"sem -j 1 docker restart web", "docker restart web"},
		{"entr docker restart web", "?*(docker restart web)"},
		{"entr -s 'docker restart web'", "?*(docker restart web)"},
		{"ls | entr -r docker restart web", "ls; ?*(docker restart web)"},
		{"tsp docker restart web", "tsp docker restart web"},
		// Remote shells.
		{"ssh prod docker restart web", "docker restart web"},
		{"ssh -t prod 'docker restart web'", "docker restart web"},
		{"ssh -l ops -p 2222 prod docker restart web", "docker restart web"},
		{"ssh -J bastion prod 'docker restart web'", "docker restart web"},
		{"ssh -N -L 80:h:80 prod", ""},
		{"ssh prod", ""},
		{"ssh prod <<< 'docker restart web'", "docker restart web"},
		{"ssh prod 'S=web; docker restart $S'", "docker restart web"},
		{"ssh prod \"docker restart $S\"", "docker restart <$S>"},
		{"pssh -h hosts 'docker restart web'", "docker restart web"},
		{"parallel-ssh -H h1 -H h2 docker restart web", "docker restart web"},
		{"clush -w h[1-3] docker restart web", "docker restart web"},
		{"ansible all -a 'docker restart web'", "docker restart web"},
		{"ansible all -m shell -a 'docker restart web'", "docker restart web"},
		{"ansible all -m ping", "ansible all -m ping"},
		{"salt '*' cmd.run 'docker restart web'", "docker restart web"},
		{"salt-ssh '*' cmd.shell 'docker restart web'", "docker restart web"},
		{"salt '*' test.ping", "salt * test.ping"},
		// Terminals and sessions.
		{"tmux new -d 'docker restart web'", "docker restart web"},
		{"tmux new-window 'docker restart web'", "docker restart web"},
		{"tmux split-window -h 'docker restart web'", "docker restart web"},
		{"tmux run-shell 'docker restart web'", "docker restart web"},
		{"tmux send-keys 'docker restart web' Enter", "!?(tmux send-keys 'docker restart web' Enter)"},
		{"tmux ls", ""},
		{"screen -S x -dm docker restart web", "docker restart web"},
		{"screen -dmS x sh -c 'docker restart web'", "docker restart web"},
		{"script -q -c 'docker restart web' /dev/null", "docker restart web"},
		{"script --command='docker restart web'", "docker restart web"},
		{"sg docker 'docker restart web'", "docker restart web"},
		{"sg docker -c 'docker restart web'", "docker restart web"},
		{"at now <<< 'docker restart web'", "docker restart web"},
		{"echo 'docker restart web' | batch", "echo docker restart web; docker restart web"},
		{"busybox timeout 5 docker restart web", "docker restart web"},
		// git runs commands of its own.
		{"git bisect run docker restart web", "?*(docker restart web)"},
		{"git bisect run sh -c 'docker restart web'", "?*(docker restart web)"},
		{"git submodule foreach 'docker restart web'", "?*(docker restart web)"},
		{"git submodule --quiet foreach --recursive 'docker restart web'", "?*(docker restart web)"},
		{"git rebase -x 'docker restart web' main", "?*(docker restart web)"},
		{"git rebase --exec='docker restart web' main", "?*(docker restart web)"},
		{"git status", "git status"},
		{"git -C /srv pull", "git -C /srv pull"},
		// guard itself.
		{"guard run -- docker restart web", "docker restart web"},
		{"guard run --name x -c 'docker restart web'", "docker restart web"},
		{"guard run --command='docker restart web'", "docker restart web"},
		{"guard --config c.yaml run --timeout 5s -- docker restart web", "docker restart web"},
		{"guard status", "guard status"},
		{"guard cooldown run web restart -- docker restart web", "guard cooldown run web restart -- docker restart web"},
	})
}

// TestReadExpansion: Words are expanded as bash expands them: quotes, escapes, braces,
// variables the line sets (in the shell, a subshell, a function, local or
// exported), arrays, arithmetic and positional parameters; what needs what
// guard cannot know stays a word it cannot know (<...>).
func TestReadExpansion(t *testing.T) {
	runReadSteps(t, []struct{ line, runs string }{
		// Words expanded as bash does.
		{"docker restart 'web'", "docker restart web"},
		{"docker restart \"web\"", "docker restart web"},
		{"docker restart $'web'", "docker restart web"},
		{"docker restart $\"web\"", "docker restart web"},
		{"docker restart w'e'b", "docker restart web"},
		{"docker restart w\"e\"b", "docker restart web"},
		{"docker restart \\w\\e\\b", "docker restart web"},
		{"docker restart \\\nweb", "docker restart web"},
		{"docker restart $'\\x77\\x65\\x62'", "docker restart web"},
		{"docker restart $'\\167\\145\\142'", "docker restart web"},
		{"docker restart $'\\u0077eb'", "docker restart web"},
		{"docker restart {web,db}-1", "docker restart web-1 db-1"},
		{"docker restart {a..c}", "docker restart a b c"},
		{"docker restart {1..3..2}", "docker restart 1 3"},
		{"docker restart ~/web", "docker restart <~/web>"},
		{"docker restart web?", "docker restart <web?>"},
		{"docker restart [w]eb", "docker restart <[w]eb>"},
		{"S=web; docker restart $S", "docker restart web"},
		{"S=web; docker restart \"${S}\"", "docker restart web"},
		{"S=web; docker restart ${S}1", "docker restart web1"},
		{"S=web; docker restart ${S:-db}", "docker restart web"},
		{"docker restart ${S:-web}", "docker restart <${S:-web}>"},
		{"S=; docker restart ${S:-web}", "docker restart web"},
		{"S=web; docker restart ${S:+db}", "docker restart db"},
		{"S=web; docker restart ${#S}", "docker restart 3"},
		{"S=web; docker restart ${S^^}", "docker restart WEB"},
		{"S=web; docker restart ${S/w/W}", "docker restart Web"},
		{"S=web; docker restart ${S%b}", "docker restart we"},
		{"S=web; docker restart ${S#w}", "docker restart eb"},
		{"S=web; docker restart ${S:1}", "docker restart eb"},
		{"S=web; S+=1; docker restart $S", "docker restart web1"},
		{"S=(web db); docker restart ${S[0]}", "docker restart web"},
		{"S=(web db); docker restart ${S[@]}", "docker restart web db"},
		{"S=(web db); S+=(cache); docker restart \"${S[@]}\"", "docker restart web db cache"},
		{"declare -a S=(web db); docker restart \"${S[@]}\"", "docker restart web db"},
		{"S=web; unset S; docker restart $S", "docker restart"},
		{"S=web; S=$T; docker restart $S", "docker restart <$S>"},
		{"export S=web; bash -c 'docker restart $S'", "docker restart web"},
		{"S=web; export S; bash -c 'docker restart $S'", "docker restart web"},
		{"declare -x S=web; bash -c 'docker restart $S'", "docker restart web"},
		{"S=web bash -c 'docker restart $S'", "docker restart web"},
		{"S=web; bash -c 'docker restart $S'", "docker restart <$S>"},
		{"S=web; (S=db); docker restart $S", "docker restart web"},
		{"S=web; { S=db; }; docker restart $S", "docker restart db"},
		{"S=web; f() { S=db; }; f; docker restart $S", "docker restart db"},
		{"S=web; f() { local S=db; }; f; docker restart $S", "docker restart web"},
		{"read -r S < f; docker restart $S", "docker restart <$S>"},
		{"mapfile -t S < f; docker restart \"${S[@]}\"", "docker restart <\"${S[@]}\">"},
		{"S=$(echo web); docker restart $S", "echo web; docker restart web"},
		{"S=`echo web`; docker restart $S", "echo web; docker restart web"},
		{"S=$(cat f); docker restart $S", "cat f; docker restart <$S>"},
		{"docker restart $((1+2))", "docker restart 3"},
		{"i=0; docker restart web$((i+1))", "docker restart web1"},
		{"set -- web db; docker restart \"$@\"", "docker restart web db"},
		{"set -- web db; shift; docker restart $1", "docker restart db"},
		{"f() { shift; docker restart \"$@\"; }; f x web", "docker restart web"},
		{"docker restart \"$1\"", "docker restart <\"$1\">"},
		{"docker restart $0", "docker restart <$0>"},
		{"docker restart $$", "docker restart <$$>"},
		{"docker restart $?", "docker restart <$?>"},
		{"env --split-string='docker restart' web", "docker restart web"},
		{"fish --command='docker restart web'", "docker restart web"},
		{"bash -s web <<< 'docker restart $1'", "docker restart web"},
		{"printf '#!/bin/sh\\ndocker restart \"$1\"\\n' > x.sh; ./x.sh web", "printf #!/bin/sh\\ndocker restart \"$1\"\\n; docker restart web"},
		{"echo 'docker restart $1' > x.sh; bash x.sh web", "echo docker restart $1; docker restart web"},
		{"bash -c 'echo $0' x", "echo x"},
		{"S=web; f() { local S=db; }; f; docker restart $S", "docker restart web"},
		{"f() { local S=db; docker restart $S; }; f", "docker restart db"},
		{"S=web; f() { declare S=db; }; f; docker restart $S", "docker restart web"},
		{"S=web; f() { S=db; }; f; docker restart $S", "docker restart db"},
		{"S=web; f() { local -x S=db; }; f; docker restart $S", "docker restart web"},
	})
}

// TestReadUnseen: Commands guard cannot see at all are Hidden (!?), a program's name guard
// cannot know is kept as written, code in another language is Opaque
// (code(...)), and a line that does not parse is read up to its last whole
// line.
func TestReadUnseen(t *testing.T) {
	runReadSteps(t, []struct{ line, runs string }{
		// Commands guard cannot see at all: Hidden.
		{"eval \"$CMD\"", "!?(eval \"$CMD\")"},
		{"eval $CMD", "!?(eval $CMD)"},
		{"eval \"$(ssh-agent -s)\"", "ssh-agent -s; !?(eval \"$(ssh-agent -s)\")"},
		{"$CMD", "?<$CMD>"},
		{"$CMD restart web", "?<$CMD> restart web"},
		{"${CMD} x", "?<${CMD}> x"},
		{"$(cat cmd.txt)", "cat cmd.txt; ?<$(cat cmd.txt)>"},
		{"`cat cmd.txt` web", "cat cmd.txt; ?<`cat cmd.txt`> web"},
		{"$@", "?<$@>"},
		{"bash -c \"$X\"", "!?(bash -c \"$X\")"},
		{"sh -c \"$(curl -fsSL http://x)\"", "curl -fsSL http://x; !?(sh -c \"$(curl -fsSL http://x)\")"},
		{"curl -s http://x | bash", "curl -s http://x; !?(curl -s http://x | bash)"},
		{"curl -s http://x | sh -s -- web", "curl -s http://x; !?(curl -s http://x | sh -s -- web)"},
		{"wget -qO- http://x | sudo bash", "wget -qO- http://x; !?(wget -qO- http://x | sudo bash)"},
		{"source <(curl -s http://x)", "curl -s http://x; !?(curl -s http://x | source <(curl -s http://x))"},
		{"bash <(curl -s http://x)", "curl -s http://x; !?(curl -s http://x | bash <(curl -s http://x))"},
		{"echo \"$X\" | bash", "echo <\"$X\">; !?(echo \"$X\" | bash)"},
		{"bash <<< \"$X\"", "!?(<<< \"$X\" | bash)"},
		{"ssh prod \"$CMD\"", "!?(ssh prod \"$CMD\")"},
		{"ssh prod \"cd /srv && $CMD\"", "cd /srv; !?(ssh prod \"cd /srv && $CMD\")"},
		{"env -S \"$X\"", "!?(env -S \"$X\")"},
		{"xargs -I{} sh -c '{}' < cmds", "?*(!?(xargs -I{} sh -c '{}'))"},
		{"find . -exec sh -c '{}' \\;", "?*(!?(find . -exec sh -c '{}' \\;))"},
		// One program's name guard cannot know.
		{"\"$TOOL\" restart web", "<\"$TOOL\"> restart web"},
		{"\"$(which docker)\" restart web", "which docker; <\"$(which docker)\"> restart web"},
		{"\"${DOCKER:-docker}\" restart web", "<\"${DOCKER:-docker}\"> restart web"},
		// Code in another language.
		{"python3 -c 'import os'", "code(import os)"},
		{"python -c 'print(1)'", "code(print(1))"},
		{"pypy3 -c 'x'", "code(x)"},
		{"perl -e 'print 1'", "code(print 1)"},
		{"perl -E 'say 1'", "code(say 1)"},
		{"ruby -e 'puts 1'", "code(puts 1)"},
		{"node -e 'console.log(1)'", "code(console.log(1))"},
		{"node --eval 'x'", "code(x)"},
		{"php -r 'echo 1;'", "code(echo 1;)"},
		{"lua -e 'print(1)'", "code(print(1))"},
		{"pwsh -Command 'Get-Process'", "code(Get-Process)"},
		{"expect -c 'spawn ls'", "code(spawn ls)"},
		{"awk '{print $1}' f", "code({print $1}\nf)"},
		{"gawk -F: '/x/' f", "code(/x/\nf)"},
		{"awk -f prog.awk f", "awk -f prog.awk f"},
		{"sed -n 1p f", "sed -n 1p f"},
		{"sed 's/a/b/e' f", "code(s/a/b/e)"},
		{"sed -e 's/x/y/' -e '1e docker restart web' f", "code(s/x/y/; 1e docker restart web)"},
		// Lines that do not parse, and limits.
		{"docker restart web; if", "!(docker restart web; if)"},
		{"if", "!(if)"},
		{"echo 'unterminated", "!(echo 'unterminated)"},
	})
}

// TestReadStdinScripts: a shell, su, ssh or at reading its script from a
// here-document, a here-string, a literal pipe or a process substitution
// runs what it reads; from a pipe of commands whose output guard cannot
// tell, it runs commands guard cannot see (!?).
func TestReadStdinScripts(t *testing.T) {
	runReadSteps(t, []struct{ line, runs string }{
		// Scripts a shell reads from its stdin.
		{"sh <<< 'docker restart web'", "docker restart web"},
		{"bash <<< 'docker restart web; docker restart db'", "docker restart web; docker restart db"},
		{"S=web; bash <<< \"docker restart $S\"", "docker restart web"},
		{"echo 'docker restart web' | bash", "echo docker restart web; docker restart web"},
		{"echo 'docker restart web' | bash -s", "echo docker restart web; docker restart web"},
		{"printf '%s\\n' 'docker restart web' | sh", "printf %s\\n docker restart web; docker restart web"},
		{"cat <<< 'docker restart web' | bash", "cat; docker restart web"},
		{"echo 'docker restart web' | tee log | bash", "echo docker restart web; tee log; docker restart web"},
		{"echo 'docker restart web' | bash -x", "echo docker restart web; docker restart web"},
		{"echo 'docker restart web' | sudo sh", "echo docker restart web; docker restart web"},
		{"echo 'docker restart web' | su", "echo docker restart web; docker restart web"},
		{"echo 'docker restart web' | runuser -u ops", "echo docker restart web; docker restart web"},
		{"echo 'docker restart web' | ssh prod", "echo docker restart web; docker restart web"},
		{"echo 'docker restart web' | ssh prod bash", "echo docker restart web; docker restart web"},
		{"echo 'docker restart web' | ssh prod 'bash -s'", "echo docker restart web; docker restart web"},
		{"echo 'docker restart web' | at now", "echo docker restart web; docker restart web"},
		{"echo 'echo docker restart web' | bash | bash", "echo echo docker restart web; echo docker restart web; !?(echo 'echo docker restart web' | bash | bash)"},
		{"bash <(echo 'docker restart web')", "echo docker restart web; docker restart web"},
		{"bash <(printf 'docker restart web\\n')", "printf docker restart web\\n; docker restart web"},
		{"source /dev/stdin <<< 'docker restart web'", "docker restart web"},
		{". /dev/fd/0 <<< 'docker restart web'", "docker restart web"},
		{"bash /proc/self/fd/0 <<< 'docker restart web'", "docker restart web"},
		{"cat deploy.sh | bash", "cat deploy.sh; !?(cat deploy.sh | bash)"},
		{"bash < <(echo docker restart web)", "echo docker restart web; docker restart web"},
		{"echo docker restart web > >(bash)", "!?(bash); echo docker restart web"},
	})
}

// TestReadMarksWhatMayRun: a program guard does not know may run a command
// among its words (Node.MayRun), which the budgets read; one known to take
// its words as data, or one of the table whose commands Read reads itself,
// does not.
func TestReadMarksWhatMayRun(t *testing.T) {
	for i, st := range []struct {
		line   string
		mayRun bool
	}{
		// Programs guard does not know may run a command among their words.
		{"strace -f docker restart web", true},
		{"ltrace docker restart web", true},
		{"valgrind --tool=memcheck prog", true},
		{"chronic docker restart web", true},
		{"fakeroot make install", true},
		{"eatmydata apt-get upgrade", true},
		{"faketime '2020-01-01' date", true},
		{"numactl --cpunodebind=0 prog", true},
		{"cpulimit -l 50 prog", true},
		{"trickle -d 100 wget x", true},
		{"xvfb-run -a prog", true},
		{"proxychains4 curl x", true},
		{"torsocks ssh h", true},
		{"tsp prog", true},
		{"daemonize /usr/bin/prog", true},
		{"docker exec c prog", true},
		{"kubectl exec p -- prog", true},
		{"./deploy.sh web", true},
		{"/opt/bin/tool web", true},
		{"bash deploy.sh web", true},
		{"make docker", true},
		{"mytool web", true},
		{"sshpass -p x ssh h", true},
		{"nix-shell -p x --run y", true},
		// Programs known to take their words as data run none of them.
		{"echo docker restart web", false},
		{"printf '%s' docker", false},
		{": docker restart web", false},
		{"true docker", false},
		{"cat docker", false},
		{"grep docker f", false},
		{"rg docker", false},
		{"jq . docker", false},
		{"ls docker", false},
		{"cp docker x", false},
		{"rm -f docker", false},
		{"mv docker x", false},
		{"mkdir docker", false},
		{"touch docker", false},
		{"chmod +x docker", false},
		{"tar -cf x docker", false},
		{"man docker", false},
		{"which docker", false},
		{"type docker", false},
		{"logger docker restart web", false},
		{"git commit -m 'docker restart web'", false},
		{"git add docker", false},
		{"kill -9 1", false},
		{"sleep 5", false},
		{"date", false},
		{"ps aux", false},
		{"pgrep docker", false},
		{"id", false},
		{"uname -a", false},
		{"head docker", false},
		{"tail -f docker", false},
		{"sort docker", false},
		{"wc -l docker", false},
		{"diff a docker", false},
		{"base64 docker", false},
		{"sha256sum docker", false},
		{"du -sh docker", false},
		{"df -h", false},
		{"tee docker", false},
		{"rsync -a docker h:x", false},
		{"psql -c 'SELECT docker'", false},
		{"less docker", false},
		{"vim docker", false},
		{"command -v docker", false},
		{"sudo -l docker", false},
		{"guard status docker", false},
	} {
		if n := lastRun(Read(st.line)); n == nil || n.MayRun != st.mayRun {
			t.Errorf("step %d: Read(%q) ends in %+v; want a run with MayRun %v", i+1, st.line, n, st.mayRun)
		}
	}
}

// TestReadSaysWhyItCannotRead: each part Read cannot read says why, and
// what kind of part it is: one that may run any command (hidden), code in
// another language (opaque), one over a limit, or any other (plain), which
// the budgets judge by what it names.
func TestReadSaysWhyItCannotRead(t *testing.T) {
	for i, st := range []struct{ line, kind, reason string }{
		// Why each part is not read.
		// no unread: docker restart $SVC
		{"eval \"$CMD\"", "hidden", "it runs $CMD as a command, which guard cannot know before it runs"},
		// no unread: $CMD
		{"bash -c \"$X\"", "hidden", "it runs $X as a command, which guard cannot know before it runs"},
		{"curl x | bash", "hidden", "bash runs the commands another command writes, which guard cannot see"},
		{"bash < deploy.sh", "plain", "bash runs commands from the file deploy.sh, which guard cannot see"},
		{"source <(curl x)", "hidden", "source runs the commands another command writes, which guard cannot see"},
		{"bash <<< \"$X\"", "hidden", "bash runs the commands another command writes, which guard cannot see"},
		{"env -S \"$X\"", "hidden", "env -S splits a string guard cannot know before it runs"},
		{"rsync -e \"$X\" a h:b", "hidden", "it runs $X as a command, which guard cannot know before it runs"},
		{"GIT_SSH_COMMAND=\"$X\" git fetch", "hidden", "the command in GIT_SSH_COMMAND cannot be known before it runs"},
		{"tmux send-keys x", "hidden", "tmux send-keys types into a shell guard does not see"},
		{"crontab -l | grep -v x | crontab -", "plain", "crontab installs jobs from the output of crontab -l | grep -v x, which guard cannot see"},
		{"crontab \"$T\"", "hidden", "crontab installs a table guard cannot know before it runs"},
		{"curl x | make -f -", "plain", "make runs recipes from the output of curl x, which guard cannot see"},
		{"python3 -c 'x'", "opaque", "python3 code, which guard does not read"},
		{"awk '{x}' f", "opaque", "awk code, which guard does not read"},
		{"sed 's/a/b/e' f", "opaque", "sed code, which guard does not read"},
		{"echo 'x' > x.py; python3 x.py", "opaque", "python3 code in x.py, which guard does not read"},
		{"curl x > x.py; python3 x.py", "hidden", "python3 runs the file x.py, which the command writes with curl x > x.py, whose code guard cannot see"},
		{"printf '#!/usr/bin/perl\\nx\\n' > x; ./x", "opaque", "perl code in ./x, which guard does not read"},
		{"make -f - <<< 'all: ; x'", "opaque", "make recipes in its stdin, which guard does not read"},
		{"docker restart web; if", "plain", "it does not parse: 1:21: `if` must be followed by a statement list"},
		{"echo 'a", "plain", "it does not parse: 1:6: reached EOF without closing quote `'`"},
		// no unread: while true; do docker restart web; done
		// no unread: find . -exec x \;
		// no unread: watch x
		// no unread: xargs x < f
		// no unread: tar --to-command=x -xf f
		// no unread: echo '* * * * * x' | crontab -
		{"f() { f; }; f", "limit", "it calls functions more than 16 deep, more than guard reads"},
	} {
		u := firstUnread(Read(st.line))
		if u == nil {
			t.Errorf("step %d: Read(%q) reads it all; want a part it cannot read", i+1, st.line)
			continue
		}
		if kind := unreadKind(u); kind != st.kind || u.Reason != st.reason {
			t.Errorf("step %d: Read(%q) cannot read a %s part: %q; want a %s part: %q", i+1, st.line, kind, u.Reason, st.kind, st.reason)
		}
	}
}

// firstUnread returns the first part of n Read did not read.
func firstUnread(n *Node) *Node {
	if n == nil {
		return nil
	}
	if n.Kind == Unread {
		return n
	}
	for _, k := range n.Kids {
		if u := firstUnread(k); u != nil {
			return u
		}
	}
	return nil
}

// unreadKind names the kind of an Unread part.
func unreadKind(u *Node) string {
	switch {
	case u.Failed:
		return "failed"
	case u.Limit:
		return "limit"
	case u.Hidden:
		return "hidden"
	case u.Opaque:
		return "opaque"
	}
	return "plain"
}

// TestReadArgvSteps: a command exec runs directly (guard cooldown run's
// CMD) has literal words, no functions or builtins, and a stdin guard
// cannot see.
func TestReadArgvSteps(t *testing.T) {
	for i, st := range []struct {
		argv []string
		runs string
	}{
		{[]string{"docker", "restart", "web"}, "docker restart web"},
		{[]string{"docker", "restart", "$SVC"}, "docker restart $SVC"},
		{[]string{"sh", "-c", "docker"}, "docker"},
		{[]string{"sudo", "-u", "root", "docker", "restart", "web"}, "docker restart web"},
		{[]string{"timeout", "5", "docker", "restart", "web"}, "docker restart web"},
		{[]string{"env", "A=1", "docker", "restart", "web"}, "docker restart web"},
		{[]string{"ssh", "prod", "docker", "restart", "web"}, "docker restart web"},
		{[]string{"xargs", "docker", "restart"}, "?*(docker restart <{xargs input}>)"},
		{[]string{"find", ".", "-exec", "docker", "restart", "web", ";"}, "?*(docker restart web)"},
		{[]string{"watch", "docker", "restart", "web"}, "?*(docker restart web)"},
		{[]string{"bash"}, "!?(bash)"},
		{[]string{"bash", "-s"}, "!?(bash -s)"},
		{[]string{"sh", "-"}, "!?(sh -)"},
		{[]string{"python3", "-c", "x"}, "code(x)"},
		{[]string{"./deploy.sh", "web"}, "./deploy.sh web"},
		{[]string{"guard", "run", "--", "docker", "restart", "web"}, "docker restart web"},
		{[]string{"flock", "/tmp/l", "docker", "restart", "web"}, "docker restart web"},
		{[]string{"nice", "-n", "5", "setsid", "docker", "restart", "web"}, "docker restart web"},
		{[]string{"echo", "docker", "restart", "web"}, "echo docker restart web"},
	} {
		if got := show(ReadArgv(st.argv)); got != st.runs {
			t.Errorf("step %d: ReadArgv(%q) runs %q; want %q", i+1, st.argv, got, st.runs)
		}
	}
}

// TestReadHeredocsAndUsers: a here-document is expanded as bash expands it
// (not with a quoted delimiter), and what it feeds a shell runs; su, runuser,
// sudo -s and sudo -i run a shell of another user, on a string or on their
// stdin.
func TestReadHeredocsAndUsers(t *testing.T) {
	runReadSteps(t, []struct{ line, runs string }{
		{"bash <<EOF\ndocker restart web\nEOF", "docker restart web"},
		{"bash <<'EOF'\ndocker restart $S\nEOF", "docker restart <$S>"},
		{"S=web; bash <<EOF\ndocker restart $S\nEOF", "docker restart web"},
		{"S=web; bash <<'EOF'\ndocker restart $S\nEOF", "docker restart <$S>"},
		{"S=web; bash <<\"EOF\"\ndocker restart $S\nEOF", "docker restart <$S>"},
		{"bash <<EOF\ndocker restart $SVC\nEOF", "!?(<<docker restart $SVC\nEOF | bash)"},
		{"bash <<EOF\ndocker restart $(cat f)\nEOF", "cat f; !?(<<docker restart $(cat f)\nEOF | bash)"},
		{"bash <<-EOF\n\tdocker restart web\n\tEOF", "docker restart web"},
		{"bash <<EOF\ndocker restart \\$S\nEOF", "docker restart <$S>"},
		{"cat <<EOF > x.sh\ndocker restart web\nEOF\nbash x.sh", "cat; docker restart web"},
		{"cat > x.sh <<'EOF'\nS=web\ndocker restart $S\nEOF\nsh x.sh", "cat; docker restart web"},
		{"ssh prod <<EOF\ndocker restart web\nEOF", "docker restart web"},
		{"ssh prod bash <<'EOF'\nfor s in web db; do docker restart $s; done\nEOF", "docker restart web; docker restart db"},
		{"sudo -s <<< 'docker restart web'", "docker restart web"},
		{"sudo -i <<< 'docker restart web'", "docker restart web"},
		{"su -c 'docker restart web'", "docker restart web"},
		{"su ops -c 'docker restart web'", "docker restart web"},
		{"su - ops -c 'docker restart web'", "docker restart web"},
		{"su --command='docker restart web' ops", "docker restart web"},
		{"su -s /bin/bash -c 'docker restart web' ops", "docker restart web"},
		{"su ops <<< 'docker restart web'", "docker restart web"},
		{"su -c \"$X\"", "!?(su -c \"$X\")"},
		{"runuser -u ops docker restart web", "docker restart web"},
		{"runuser -u ops -- docker restart web", "docker restart web"},
		{"runuser ops -c 'docker restart web'", "docker restart web"},
		{"runuser -l ops -c 'docker restart web'", "docker restart web"},
		{"doas sh -c 'docker restart web'", "docker restart web"},
		{"pkexec sh -c 'docker restart web'", "docker restart web"},
		{"sudo -u ops -- sh -c 'docker restart web'", "docker restart web"},
		{"sudo -s -- 'docker restart web'", "docker restart web"},
	})
}

// TestReadCountsLoops: a for loop over words guard can read runs its body
// once for each, unrolled up to 256 words and counted past them; a loop
// whose count guard cannot tell (while, until, for over words it cannot
// read, a C-style for) runs it a number of times it cannot count (?).
func TestReadCountsLoops(t *testing.T) {
	runReadSteps(t, []struct{ line, runs string }{
		{"for s in a b c; do docker restart web; done", "docker restart web; docker restart web; docker restart web"},
		{"for s in $(seq 1 300); do docker restart web; done", "seq 1 300; ?*(docker restart web)"},
		{"for s in x ; do docker restart $s; done", "docker restart x"},
		{"for s in {1..300}; do docker restart web; done", "300*(docker restart web)"},
		{"for s in {1..300}; do docker restart $s; done", "300*(docker restart <$s>)"},
		{"for s in a b; do for t in c d; do docker restart $s$t; done; done", "docker restart ac; docker restart ad; docker restart bc; docker restart bd"},
		{"for s in a b; do while x; do docker restart $s; done; done", "?*(x; docker restart a); ?*(x; docker restart b)"},
		{"for s in a b; do if x; then docker restart $s; fi; done", "x; {docker restart a | }; x; {docker restart b | }"},
		{"while x; do for s in a b; do docker restart $s; done; done", "?*(x; docker restart a; docker restart b)"},
		{"for s in a b; do f() { docker restart $s; }; f; done", "docker restart a; docker restart b"},
		{"for s in *.yml; do docker compose -f $s up -d web; done", "?*(docker compose -f <$s> up -d web)"},
		{"for s in 'web db'; do docker restart $s; done", "docker restart web db"},
		{"for s in \"web db\"; do docker restart \"$s\"; done", "docker restart web db"},
		{"for s in web; do docker restart $s; done; docker restart $s", "docker restart web; docker restart web"},
		{"for i in 1 2 3; do :; done; echo $i", ":; :; :; echo 3"},
		{"seq 3 | while read i; do docker restart web; done", "seq 3; ?*(docker restart web)"},
		{"until false; do break; done", "?*(false; break)"},
		{"for ((i=0; i<3; i++)); do docker restart web$i; done", "?*(docker restart <web$i>)"},
	})
}

// TestReadEveryRunnerOfTheTable: every program of shell's Runner table
// that runs the words after its options (and the words it skips) is read
// through to its command, alone and behind every other: the table is the
// reader's as much as Program's (architecture-2 defect 1).
func TestReadEveryRunnerOfTheTable(t *testing.T) {
	var prefixes []string
	for _, name := range shell.RunnerNames() {
		rn, _ := shell.LookupRunner(name)
		if rn.Data || rn.Remote || rn.Own || name == "builtin" {
			continue
		}
		words := []string{name}
		for range rn.Skip {
			words = append(words, "x")
		}
		prefixes = append(prefixes, strings.Join(words, " "))
	}
	if len(prefixes) < 25 {
		t.Fatalf("the Runner table has %d programs that run their words; want the 25 or more it had", len(prefixes))
	}
	for _, p := range prefixes {
		if got := show(Read(p + " docker restart web")); got != "docker restart web" {
			t.Errorf("Read(%q) runs %q; want docker restart web", p+" docker restart web", got)
		}
	}
	all := strings.Join(prefixes, " ") + " docker restart web"
	if got := show(Read(all)); got != "docker restart web" {
		t.Errorf("Read(%q) runs %q; want docker restart web", all, got)
	}
}

// TestReadProgramsLanguages: programs that read their own language, from
// an option, a here-document or a pipe, run a command in a shell only
// after one of its escapes (psql's \!, sqlite3's .shell, gdb's shell, ed's
// !); the rest of what they read is theirs (SQL, a pager's keys).
func TestReadProgramsLanguages(t *testing.T) {
	runReadSteps(t, []struct{ line, runs string }{
		{"psql db <<'EOF'\n\\! docker restart web\nEOF", "psql db; docker restart web"},
		{"psql db <<< 'SELECT 1'", "psql db; code(SELECT 1\n)"},
		{"psql -f x.sql db", "psql -f x.sql db"},
		{"echo '\\! docker restart web' > x.sql; psql < x.sql", "echo \\! docker restart web; psql; docker restart web"},
		{"cat x.sql | psql", "cat x.sql; psql; !(cat x.sql | psql)"},
		{"mysql <<< 'system docker restart web'", "mysql; docker restart web"},
		{"mysql -e 'SELECT 1'", "mysql -e SELECT 1; code(SELECT 1)"},
		{"mariadb <<< '\\! docker restart web'", "mariadb; docker restart web"},
		{"sqlite3 db <<< '.system docker restart web'", "sqlite3 db; code(db); docker restart web"},
		{"sqlite3 db 'SELECT 1'", "sqlite3 db SELECT 1; code(db); code(SELECT 1)"},
		{"sqlite3 db .tables", "sqlite3 db .tables; code(db); code(.tables)"},
		{"gdb -batch -ex 'run' prog", "code(run); prog"},
		{"gdb prog <<< 'shell docker restart web'", "docker restart web; prog"},
		{"lftp -e '!docker restart web; quit' h", "lftp -e !docker restart web; quit h; docker restart web; quit"},
		{"lftp -c 'open h; ls'", "lftp -c open h; ls; code(open h; ls)"},
		{"ed f <<< 'p'", "ed f; code(p\n)"},
		{"printf '!docker restart web\\nq\\n' | ed f", "printf !docker restart web\\nq\\n; ed f; docker restart web; code(\nq\n)"},
		{"vi -es f <<< 'set nu'", "vi -es f; code(set nu\n)"},
		{"man -P cat ls", "man -P cat ls; cat"},
		{"man ls", "man ls"},
		{"less +F f", "less +F f; code(F)"},
		{"zip x.zip f", "zip x.zip f"},
		{"dpkg -i x.deb", "dpkg -i x.deb"},
		{"apt-get -o APT::Update::Post-Invoke-Success::='docker restart web' update", "apt-get -o APT::Update::Post-Invoke-Success::=docker restart web update; docker restart web"},
		{"tar -xf x.tar", "tar -xf x.tar"},
		{"rsync -avz a/ b/", "rsync -avz a/ b/"},
	})
}

// TestReadFilesTheLineWrites: every way the line writes a file (>, >|, &>,
// 1>, tee, cp, mv, install) and runs it (bash, sh, source, ., ./FILE,
// behind sudo, nohup or timeout, by xargs -a) is followed; the last write
// wins, an append adds to what is known, and a write guard cannot tell
// makes the file a script it cannot see.
func TestReadFilesTheLineWrites(t *testing.T) {
	runReadSteps(t, []struct{ line, runs string }{
		{"echo 'docker restart web' >| x.sh; bash x.sh", "echo docker restart web; docker restart web"},
		{"echo 'docker restart web' &> x.sh; bash x.sh", "echo docker restart web; docker restart web"},
		{"echo 'docker restart web' 1> x.sh; bash x.sh", "echo docker restart web; docker restart web"},
		{"echo 'docker restart web' > x.sh; echo ok > x.sh; bash x.sh", "echo docker restart web; echo ok; ok"},
		{"echo 'docker restart web' > x.sh; curl x > x.sh; bash x.sh", "echo docker restart web; curl x; !?(bash x.sh)"},
		{"curl x > x.sh; echo 'docker restart web' > x.sh; bash x.sh", "curl x; echo docker restart web; docker restart web"},
		{"echo 'docker restart web' > a.sh; bash ./a.sh; bash a.sh", "echo docker restart web; docker restart web; docker restart web"},
		{"echo 'docker restart $1' > a.sh; for s in web db; do bash a.sh $s; done", "echo docker restart $1; docker restart web; docker restart db"},
		{"echo 'docker restart web' > a.sh; xargs -a a.sh -I{} sh -c '{}'", "echo docker restart web; docker restart web"},
		{"S=x.sh; echo 'docker restart web' > $S; bash $S", "echo docker restart web; docker restart web"},
		{"echo 'docker restart web' > \"$F\"; bash \"$F\"", "echo docker restart web; !?(bash \"$F\")"},
		{"printf 'docker restart web' | tee x.sh | wc -l; bash x.sh", "printf docker restart web; tee x.sh; wc -l; docker restart web"},
		{"{ echo 'docker restart web'; echo 'docker restart db'; } > x.sh; bash x.sh", "echo docker restart web; echo docker restart db; !?(bash x.sh)"},
		{"(echo 'docker restart web') > x.sh; bash x.sh", "echo docker restart web; !?(bash x.sh)"},
		{"echo 'docker restart web' > x.sh; install -m 755 x.sh y.sh; ./y.sh", "echo docker restart web; install -m 755 x.sh y.sh; docker restart web"},
		{"echo 'docker restart web' > /tmp/x; sudo bash /tmp/x", "echo docker restart web; docker restart web"},
		{"echo 'docker restart web' > x; nohup sh x &", "echo docker restart web; docker restart web"},
		{"echo 'docker restart web' > x; timeout 5 bash x", "echo docker restart web; docker restart web"},
		{"echo 'S=web' > env.sh; . ./env.sh; docker restart $S", "echo S=web; docker restart web"},
		{"echo 'docker restart web' > x.sh; bash -n x.sh", "echo docker restart web; docker restart web"},
	})
}
