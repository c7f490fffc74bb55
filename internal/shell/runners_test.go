package shell

import (
	"slices"
	"testing"
)

// TestRunnerUse: how each kind of program of the Runner table runs the
// command its words give: after its options (valued, clustered, joined
// with =, skipped words, assignments), as a string a shell runs or splits,
// in a shell of its own, or not at all.
func TestRunnerUse(t *testing.T) {
	for i, st := range []struct {
		line   string
		how    How
		at     int    // the word the command (or its string) starts at
		option string // the option that gave it
	}{
		{"sudo docker ps", Words, 1, ""},
		{"sudo -u root -g wheel docker ps", Words, 5, ""},
		{"sudo -uroot docker ps", Words, 2, ""},
		{"sudo --user=root docker ps", Words, 2, ""},
		{"sudo -E -H -- docker ps", Words, 4, ""},
		{"sudo A=1 B=2 docker ps", Words, 3, ""},
		{"sudo -l docker ps", Nothing, 0, "-l"},
		{"sudo -s docker ps", Shell, 2, ""},
		{"sudo -i", Shell, 2, ""},
		{"env -i A=1 - docker ps", Words, 4, ""},
		{"env -S 'docker ps' x", Split, 2, "-S"},
		{"env --split-string='docker ps' x", Split, 1, "--split-string"},
		// A string joined to its short option, or after a cluster that
		// ends in it (env -S"docker ps", env -vS 'docker ps').
		{"env -S'docker ps' x", Split, 1, "-S"},
		{"env -vS 'docker ps' x", Split, 2, "-S"},
		{"env -iS'docker ps'", Split, 1, "-S"},
		{"env -iu HOME docker ps", Words, 3, ""},
		{"flock -nc 'docker ps' /tmp/l", Script, 2, "-c"},
		{"timeout 5 docker ps", Words, 2, ""},
		{"timeout -k 5 -s KILL 10 docker ps", Words, 6, ""},
		{"timeout 5", Nothing, 0, ""},
		{"flock /tmp/l docker ps", Words, 2, ""},
		{"flock -w 5 /tmp/l docker ps", Words, 4, ""},
		{"flock /tmp/l -c 'docker ps'", Script, 3, "-c"},
		{"flock -c 'docker ps' /tmp/l", Script, 2, "-c"},
		{"flock --command='docker ps' /tmp/l", Script, 1, "--command"},
		{"ionice -c2 -n 7 docker ps", Words, 4, ""},
		{"ionice -P 1 docker ps", Words, 3, ""},
		{"chroot /srv docker ps", Words, 2, ""},
		{"chroot --userspec=u /srv docker ps", Words, 3, ""},
		{"nice", Nothing, 0, ""},
		{"command -v docker", Nothing, 0, "-v"},
		{"xargs -n 1 -P 4 docker ps", Words, 5, ""},
		{"setsid $X docker", Words, 1, ""},
	} {
		cs, err := Parse(st.line)
		if err != nil || len(cs) != 1 {
			t.Fatalf("step %d: Parse(%q) = %v, %v", i+1, st.line, cs, err)
		}
		rn, ok := LookupRunner(BaseName(cs[0].Words[0]))
		if !ok {
			t.Fatalf("step %d: %s is not in the Runner table", i+1, cs[0].Words[0])
		}
		u := rn.Use(cs[0].Words, cs[0].Literal)
		if u.How != st.how || u.How != Nothing && u.I != st.at || u.Option != st.option {
			t.Errorf("step %d: Use(%q) = %+v; want how %d at %d, option %q", i+1, st.line, u, st.how, st.at, st.option)
		}
		if (u.How == Split || u.How == Script) && u.Value(cs[0].Words) != "docker ps" {
			t.Errorf("step %d: Use(%q).Value = %q; want %q", i+1, st.line, u.Value(cs[0].Words), "docker ps")
		}
	}
}

// TestRunnerCommands: the commands a program's options hand a shell, in
// each form an option takes its value (hostile-user-3 M4), and none from
// options or keys that hold data.
func TestRunnerCommands(t *testing.T) {
	for i, st := range []struct {
		line string
		cmds []string
	}{
		{"rsync -e 'ssh -p 22' a h:b", []string{"ssh -p 22"}},
		{"rsync -essh a h:b", []string{"ssh"}},
		{"rsync --rsh='ssh -i k' a h:b", []string{"ssh -i k"}},
		{"rsync --rsync-path='sudo rsync' a h:b", []string{"sudo rsync"}},
		{"rsync -av a b", nil},
		{"ssh -o ProxyCommand='nc %h %p' h", []string{"nc %h %p"}},
		{"ssh -oProxyCommand='nc %h %p' h", []string{"nc %h %p"}},
		{"ssh -o proxycommand='nc %h %p' h", []string{"nc %h %p"}},
		{"ssh -o 'LocalCommand=touch x' h", []string{"touch x"}},
		{"ssh -o StrictHostKeyChecking=no h", nil},
		// ssh_config's own form: the key, blanks, the value.
		{"ssh -o 'ProxyCommand nc %h %p' h", []string{"nc %h %p"}},
		{"ssh -o 'ProxyCommand = nc %h %p' h", []string{"nc %h %p"}},
		{"ssh -o 'ProxyCommand\tnc %h %p' h", []string{"nc %h %p"}},
		{"ssh -o 'StrictHostKeyChecking no' h", nil},
		{"scp -S my-ssh a h:b", []string{"my-ssh"}},
		{"tar --to-command='cat' -xf x", []string{"cat"}},
		{"tar --to-command cat -xf x", []string{"cat"}},
		{"tar -I zstd -cf x y", []string{"zstd"}},
		{"tar --checkpoint-action=exec='date' -cf x y", []string{"date"}},
		{"tar --checkpoint-action=dot -cf x y", nil},
		{"git -c alias.x='!date' x", []string{"date"}},
		{"git -c alias.x='log -1' x", nil},
		{"git -c core.sshCommand='ssh -i k' fetch", []string{"ssh -i k"}},
		{"git -c credential.helper='!pass git' push", []string{"pass git"}},
		{"git -c credential.helper=store push", nil},
		{"git -c user.name=x commit", nil},
		{"git clone --upload-pack='sudo git-upload-pack' h:r", []string{"sudo git-upload-pack"}},
		{"vim -c '!date' f", []string{"date"}},
		{"vim -c ':silent !date' f", []string{"date"}},
		{"vim '+!date' f", []string{"date"}},
		{"vim +42 f", nil},
		{"vim -c 'set nu' f", nil},
		{"less '+!date' f", []string{"date"}},
		{"man -P cat ls", []string{"cat"}},
		{`psql -c '\! date'`, []string{"date"}},
		{"psql -c 'SELECT 1'", nil},
		{"mysql -e 'system date'", []string{"date"}},
		{"sqlite3 db '.shell date' '.system id'", []string{"date", "id"}},
		{"gdb -ex 'shell date' -ex '!id' prog", []string{"date", "id"}},
		{"lftp -c '!date'", []string{"date"}},
		{"zip -TT 'unzip -t' x.zip f", []string{"unzip -t"}},
		{"dpkg --pre-invoke='date' -i x", []string{"date"}},
		{"apt-get -o APT::Update::Pre-Invoke::='date' update", []string{"date"}},
		{"apt-get -o 'dpkg::post-invoke::=date' install x", []string{"date"}},
		{"apt-get -o Acquire::Retries=3 update", nil},
	} {
		cs, err := Parse(st.line)
		if err != nil || len(cs) != 1 {
			t.Fatalf("step %d: Parse(%q) = %v, %v", i+1, st.line, cs, err)
		}
		rn, _ := LookupRunner(BaseName(cs[0].Words[0]))
		var got []string
		for _, f := range rn.Commands(cs[0].Words, cs[0].Literal) {
			if !f.Code {
				got = append(got, f.Command)
			}
		}
		if !slices.Equal(got, st.cmds) {
			t.Errorf("step %d: Commands(%q) = %q; want %q", i+1, st.line, got, st.cmds)
		}
	}
}

// TestRunnerCode: a value in a program's own language (vim -c, psql -c,
// gdb -ex, sqlite3's words) is given to the caller as code too, with the
// commands after its escapes taken out: the language runs commands in
// ways no escape shows (vim's system(), psql's \o |CMD), which the caller
// searches for budgeted programs as it searches python -c's code (TC's
// variants of hostile-user-3 M4: vim -c 'call system("docker restart
// web")' was allowed with web's budget spent).
func TestRunnerCode(t *testing.T) {
	for i, st := range []struct {
		line string
		code []string
	}{
		{`vim -c 'call system("date")' -c q f`, []string{`call system("date")`, "q"}},
		{"vim -c '!date' f", nil},
		{"vim -c ':silent !date' f", []string{":silent "}},
		{"nvim +'lua os.execute(\"date\")' f", []string{`lua os.execute("date")`}},
		{`psql -c '\o |date'`, []string{`\o |date`}},
		{`psql -c '\! date'`, nil},
		{"gdb -ex 'call system(\"date\")' prog", []string{`call system("date")`}},
		{"rsync -e 'ssh -p 22' a h:b", nil},
		{"git -c alias.x='!date' x", nil},
	} {
		cs, err := Parse(st.line)
		if err != nil || len(cs) != 1 {
			t.Fatalf("step %d: Parse(%q) = %v, %v", i+1, st.line, cs, err)
		}
		rn, _ := LookupRunner(BaseName(cs[0].Words[0]))
		var got []string
		for _, f := range rn.Commands(cs[0].Words, cs[0].Literal) {
			if f.Code {
				got = append(got, f.Command)
			}
		}
		if !slices.Equal(got, st.code) {
			t.Errorf("step %d: code of %q = %q; want %q", i+1, st.line, got, st.code)
		}
	}
	rn, _ := LookupRunner("psql")
	if got := rn.StdinCode("SELECT 1;\n\\! date\n\\o |id\n"); got != "SELECT 1;\n\n\\o |id\n" {
		t.Errorf("psql's StdinCode = %q", got)
	}
}

// TestCommandVar: the variables whose value a program runs, or whose file
// a shell sources.
func TestCommandVar(t *testing.T) {
	for _, st := range []struct{ name, how string }{
		{"GIT_SSH_COMMAND", "command"}, {"EDITOR", "command"}, {"PAGER", "command"}, {"LESSOPEN", "command"},
		{"BASH_ENV", "file"}, {"ENV", "file"}, {"HOME", ""}, {"PATH", ""}, {"GIT_DIR", ""},
	} {
		if got := CommandVar(st.name); got != st.how {
			t.Errorf("CommandVar(%s) = %q; want %q", st.name, got, st.how)
		}
	}
}
