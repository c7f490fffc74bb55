package bash

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// The tests of what a word's expansion assigns as it runs: a variable whose
// value guard reads wrong lets a restart dodge its budget (hostile-user-3
// M4's class, issue 35). Each row's bash reading is in its comment where it
// differs from guard's: guard may read a variable as unknown, never as a
// value bash does not give it.

// TestReadLetWords: let evaluates each word's text as arithmetic, quoted
// or not (review of db27263: let "N=2" was read as assigning nothing, and
// N=1; let "N=2"; docker restart web$N read as web1 where bash restarts
// web2).
func TestReadLetWords(t *testing.T) {
	runReadSteps(t, []struct{ line, runs string }{
		{`N=1; let "N=2"; docker restart web$N`, "docker restart <web$N>"},
		{`N=1; let 'N+=1'; docker restart web$N`, "docker restart <web$N>"},
		{`N=1; let "M=1, N++"; docker restart web$N`, "docker restart <web$N>"},
		{`N=1; let N\=2; docker restart web$N`, "docker restart <web$N>"},
		{`N=1; E=N=2; let "$E"; docker restart web$N`, "docker restart <web$N>"},
		{`N=1; let "a[N=2]=1"; docker restart web$N`, "docker restart <web$N>"},
		// Text that is not arithmetic guard can parse: what it names.
		{`N=1; let "N=2 +"; docker restart web$N`, "docker restart <web$N>"},
		// A word guard cannot expand may assign any variable
		// (echo N=2 > f; let "$(cat f)").
		{`N=1; echo N=2 > f; let "$(cat f)"; docker restart web$N`, "echo N=2; cat f; docker restart <web$N>"},
		{`N=1; let "$X"; docker restart web$N`, "docker restart <web$N>"},
		// A let that only reads leaves what it reads known.
		{`N=1; let "N > 0" && docker restart web$N`, "docker restart web1"},
		{`N=1; M=1; let "M=2"; docker restart web$N`, "docker restart web1"},
	})
}

// TestReadWordAssignsBeforeLaterWords: a word's $((N=2)) assigns N before
// bash expands the words after it (review of db27263: N=1; docker restart
// $((N=2)) web$N read as web1, bash restarts 2 and web2), and in an
// assignment, a declaration or a redirection as in a command's words.
func TestReadWordAssignsBeforeLaterWords(t *testing.T) {
	runReadSteps(t, []struct{ line, runs string }{
		{"N=1; docker restart $((N=2)) web$N", "docker restart <$((N=2))> <web$N>"},
		{"N=1; docker restart $((N++)) web$N", "docker restart <$((N++))> <web$N>"},
		{"N=1; x=$((N=2)); docker restart web$N", "docker restart <web$N>"},
		{"N=1; x=$((N=2)) y=$N; docker restart web$y", "docker restart <web$y>"},
		{"N=1; x=$((N=2)) docker restart web$N", "docker restart <web$N>"},
		{"N=1; declare x=$((N=2)); docker restart web$N", "docker restart <web$N>"},
		{"N=1; echo > $((N=2)); docker restart web$N", "echo; docker restart <web$N>"},
		{"N=1; alias d=docker; d restart $((N=2)) web$N", "{docker restart <$((N=2))> <web$N> | d restart <$((N=2))> <web$N>}"},
	})
}

// TestReadParamAssigns: ${N:=W} and ${N=W} assign N (review: unset N;
// x=${N:=3}; docker restart web$N read as web, bash restarts web3).
func TestReadParamAssigns(t *testing.T) {
	runReadSteps(t, []struct{ line, runs string }{
		{"unset N; x=${N:=3}; docker restart web$N", "docker restart <web$N>"},
		{"unset N; x=${N=3}; docker restart web$N", "docker restart <web$N>"},
		{"N=; echo ${N:=3}; docker restart web$N", "echo <${N:=3}>; docker restart <web$N>"},
		{"unset N; docker restart ${N:=3} web$N", "docker restart <${N:=3}> <web$N>"},
		{"unset N; : ${N:=3}; docker restart web$N", ": <${N:=3}>; docker restart <web$N>"},
		{"unset N; [[ ${N:=3} ]]; docker restart web$N", "docker restart <web$N>"},
		{"unset N; for x in ${N:=3}; do :; done; docker restart web$N", "?*(:); docker restart <web$N>"},
		{"unset N; case ${N:=3} in *) ;; esac; docker restart web$N", "docker restart <web$N>"},
		{"unset N; cat <<EOF\n${N:=3}\nEOF\ndocker restart web$N", "cat; docker restart <web$N>"},
		// ${!R=W} assigns the variable R names.
		{"unset N; R=N; : ${!R=2}; docker restart web$N", ": <${!R=2}>; docker restart <web$N>"},
		// The other operators only read.
		{"N=1; x=${N:-3}${N:+4}; docker restart web$N$x", "docker restart web114"},
	})
}

// TestReadIntegerVariables: after declare -i N (typeset -i, local -i),
// bash evaluates what is assigned to N as arithmetic (review: N=1; declare
// -i N; N+=1; docker restart web$N read as web11, bash restarts web2).
func TestReadIntegerVariables(t *testing.T) {
	runReadSteps(t, []struct{ line, runs string }{
		{"N=1; declare -i N; N+=1; docker restart web$N", "docker restart <web$N>"},
		{"declare -i N=1+1; docker restart web$N", "docker restart <web$N>"},
		{"typeset -i N; N=1+1; docker restart web$N", "docker restart <web$N>"},
		{"declare -ix N; N=M; M=3; docker restart web$N", "docker restart <web$N>"},
		{"f() { local -i N; N=1+1; docker restart web$N; }; f", "docker restart <web$N>"},
		{"declare -i N; for N in 1+1; do docker restart web$N; done", "docker restart <web$N>"},
		{"declare -ai a; a=(1+1); docker restart web${a[0]}", "docker restart <web${a[0]}>"},
		{"true && declare -i N; N=1+1; docker restart web$N", "true; docker restart <web$N>"},
		{"declare $F N; N=1+1; docker restart web$N", "docker restart <web$N>"},
		// A plain decimal is what it says.
		{"declare -i N=2; docker restart web$N", "docker restart web2"},
		{"declare -i N; N=12; docker restart web$N", "docker restart web12"},
		{"declare -i N; N=012; docker restart web$N", "docker restart <web$N>"},
		// Without -i, + appends text.
		{"N=1; declare -x N; N+=1; docker restart web$N", "docker restart web11"},
	})
}

// TestReadIndexAssigns: an array index is arithmetic, which may assign
// (review: N=1; a[N=2]=x; docker restart web$N read as web1, bash
// restarts web2), and an element's assignment or unset changes the array.
func TestReadIndexAssigns(t *testing.T) {
	runReadSteps(t, []struct{ line, runs string }{
		{"N=1; a[N=2]=x; docker restart web$N", "docker restart <web$N>"},
		{"N=1; declare a[N=2]=x; docker restart web$N", "docker restart <web$N>"},
		{"N=1; a=(x y z); echo ${a[N=2]}; docker restart web$N", "echo <${a[N=2]}>; docker restart <web$N>"},
		{"N=1; a=(x y z); unset a[N=2]; docker restart web$N", "docker restart <web$N>"},
		{"N=1; a=(x y z); unset 'a[N=2]'; docker restart web$N", "docker restart <web$N>"},
		{"a=(web db); unset 'a[0]'; docker restart ${a[0]}", "docker restart <${a[0]}>"},
		{"a=(web db); (( a[0]=5 )); docker restart ${a[0]}", "docker restart <${a[0]}>"},
		{"N=1; (( a[N=2] )); docker restart web$N", "docker restart <web$N>"},
		{"a=(web db); read 'a[0]'; docker restart ${a[0]}", "docker restart <${a[0]}>"},
		{"N=1; read 'a[N=2]'; docker restart web$N", "docker restart <web$N>"},
		{"a=(web db); printf -v 'a[0]' x; docker restart ${a[0]}", "printf -v a[0] x; docker restart <${a[0]}>"},
		// An index that only reads leaves the variables known.
		{"N=1; a=(x web); docker restart ${a[N]}$N", "docker restart web1"},
	})
}

// TestReadValueBackslashes: an assignment's value loses its unquoted
// backslashes as a command's words do (review of 2d10b5f: S=we\b; docker
// restart $S read as we\b, bash restarts web); in double quotes a
// backslash goes only before $ ` " \, and in single quotes it stays.
func TestReadValueBackslashes(t *testing.T) {
	runReadSteps(t, []struct{ line, runs string }{
		{`S=we\b; docker restart $S`, "docker restart web"},
		{`S=w\e\b; docker restart "$S"`, "docker restart web"},
		{`S=we\\b; docker restart "$S"`, `docker restart we\b`},
		{`S=\~x; docker restart "$S"`, "docker restart ~x"},
		{`S="we\b"; docker restart "$S"`, `docker restart we\b`},
		{`S="w\$\"\\b"; docker restart "$S"`, `docker restart w$"\b`},
		{`S='we\b'; docker restart "$S"`, `docker restart we\b`},
		{`export S=we\b; sh -c 'docker restart $S'`, "docker restart web"},
		{`docker restart we\b "w\e\$b"`, `docker restart web w\e$b`},
		// A string run as a script: its words as bash splits them.
		{`sh -c docker\ restart\ we\\b`, `docker restart web`},
	})
}

// TestReadNamerefs: assigning to a nameref assigns what it refers to
// (review of 2d10b5f: N=1; declare -n R=N; R=2; docker restart web$N read
// as web1, bash restarts web2); a nameref reads what it refers to.
func TestReadNamerefs(t *testing.T) {
	runReadSteps(t, []struct{ line, runs string }{
		{"N=1; declare -n R=N; R=2; docker restart web$N", "docker restart <web$N>"},
		{"N=1; declare -n R=N; docker restart web$R", "docker restart <web$R>"}, // bash: web1
		{"N=1; typeset -n R=N; R+=2; docker restart web$N", "docker restart <web$N>"},
		{"N=1; f() { local -n R=$1; R=2; }; f N; docker restart web$N", "docker restart <web$N>"},
		{"N=1; declare -n R; R=N; R=2; docker restart web$N", "docker restart <web$N>"},
		{"N=1; declare -n R=N; for R in 2; do :; done; docker restart web$N", ":; docker restart <web$N>"},
		{"N=1; declare -n R=N; read R; docker restart web$N", "docker restart <web$N>"},
		{"N=1; declare -n R=N; (( R=2 )); docker restart web$N", "docker restart <web$N>"},
		{"N=1; declare -n R=N; unset R; docker restart web$N", "docker restart <web$N>"},
		{"N=1; declare -n A=B; declare -n B=N; A=2; docker restart web$N", "docker restart <web$N>"},
		{"N=1; true && declare -n R=N; R=2; docker restart web$N", "true; docker restart <web$N>"},
		// Options guard cannot read, or code it cannot read, may make any
		// variable a nameref (X='declare -n R=N').
		{"N=1; declare $O R=N; R=2; docker restart web$N", "docker restart <web$N>"},
		{`eval "$X"; N=1; R=2; docker restart web$N`, `!?(eval "$X"); docker restart <web$N>`},
		// Another variable is what it was.
		{"N=1; declare -n R=N; M=2; docker restart web$N", "docker restart web1"},
		{"N=1; declare -n R=N; unset -n R; R=2; docker restart web$N$R", "docker restart web12"},
	})
}

// TestReadArithmeticText: bash evaluates the text arithmetic expands to,
// and a variable's value arithmetic reads, as arithmetic, which may assign
// (review of 2d10b5f: N=1; (( $X )); docker restart web$N read as web1,
// bash restarts web2 with X='N=2'). A value guard does not know makes
// every variable unknown, unless it is known to be a number: arithmetic
// assigned it, as (( i++ )) in a loop.
func TestReadArithmeticText(t *testing.T) {
	runReadSteps(t, []struct{ line, runs string }{
		{"N=1; (( $(cat f) )); docker restart web$N", "cat f; docker restart <web$N>"},
		{"N=1; (( $X )); docker restart web$N", "docker restart <web$N>"},
		{"N=1; x=$(( $X )); docker restart web$N", "docker restart <web$N>"},
		{"N=1; x=$(( X )); docker restart web$N", "docker restart <web$N>"},
		{"N=1; (( X )); docker restart web$N", "docker restart <web$N>"},
		{"N=1; X='N=2'; (( X )); docker restart web$N", "docker restart <web$N>"},
		{"N=1; X='N=2'; (( $X )); docker restart web$N", "docker restart <web$N>"},
		{"N=1; X=Y; Y='N=2'; (( X )); docker restart web$N", "docker restart <web$N>"},
		{"N=1; X='N=2'; let X; docker restart web$N", "docker restart <web$N>"},
		{"N=1; [[ $X -eq 1 ]]; docker restart web$N", "docker restart <web$N>"},
		{"N=1; [[ X -lt 1 ]]; docker restart web$N", "docker restart <web$N>"},
		{"N=1; for (( i=0; i<X; i++ )); do :; done; docker restart web$N", "?*(:); docker restart <web$N>"},
		{"N=1; echo ${S:X}; docker restart web$N", "echo <${S:X}>; docker restart <web$N>"},
		{"N=1; declare -i M; M='N=2'; docker restart web$N", "docker restart <web$N>"},
		// Numbers, and variables arithmetic assigned, assign nothing.
		{"N=1; X=5; (( $X + X )); docker restart web$N", "docker restart web1"},
		{"N=1; i=0; while (( i < 3 )); do (( i++ )); done; (( i++ )); docker restart web$N", "docker restart web1"},
		{"N=1; for ((i=0; i<3; i++)); do :; done; (( i++ )); docker restart web$N", "?*(:); docker restart web1"},
		{"N=1; i=0; while [ $i -lt 3 ]; do i=$((i+1)); done; echo $((i+1)); docker restart web$N", "?*([ 0 -lt 3 ]); echo <$((i+1))>; docker restart web1"},
		{"N=1; (( RANDOM % 2 )); docker restart web$N", "docker restart web1"},
		// What came from outside the line may be any text.
		{"N=1; read i; (( i++ )); docker restart web$N", "docker restart <web$N>"},
	})
}

// TestReadUnknownNames: a declaration or unset whose word guard cannot
// read may assign or unset any variable (review of 2d10b5f: N=1; declare
// "$X"; docker restart web$N read as web1, bash restarts web2 with
// X=N=2).
func TestReadUnknownNames(t *testing.T) {
	runReadSteps(t, []struct{ line, runs string }{
		{`N=1; declare "$X"; docker restart web$N`, "docker restart <web$N>"},
		{`N=1; export "$X"; docker restart web$N`, "docker restart <web$N>"},
		{`N=1; f() { local $X; }; f; docker restart web$N`, "docker restart <web$N>"},
		{`N=1; readonly $X; docker restart web$N`, "docker restart <web$N>"},
		{`N=1; unset $V; docker restart web$N`, "docker restart <web$N>"},
		{`N=1; unset "$V"; docker restart web$N`, "docker restart <web$N>"},
		{`N=1; read $V; docker restart web$N`, "docker restart <web$N>"},
		{`N=1; printf -v "$V" 2; docker restart web$N`, `printf -v <"$V"> 2; docker restart <web$N>`},
		// A quoted word guard can read is an assignment, as bash reads it.
		{`N=1; declare "N=2"; docker restart web$N`, "docker restart web2"},
		{`N=1; export "N=2"; docker restart web$N`, "docker restart web2"},
		{`N=1; declare "N+=2"; docker restart web$N`, "docker restart <web$N>"},
		// local N is a new variable, unset (the caller's, with localvar_inherit).
		{`N=1; f() { local N; docker restart web$N; }; f`, "docker restart <web$N>"},
		{`N=1; unset M; docker restart web$N`, "docker restart web1"},
	})
}

// TestReadAssignVariants: more forms of each class above, as a check of
// the class rather than the example (review of 2d10b5f).
func TestReadAssignVariants(t *testing.T) {
	runReadSteps(t, []struct{ line, runs string }{
		// Backslashes: in a value, a declaration's, an environment's, a
		// here-string's and a redirection's name.
		{`declare S=we\b; docker restart $S`, "docker restart web"},
		{`local S=we\b 2>/dev/null; docker restart $S`, "docker restart web"},
		{`S=we\b docker restart "$S"`, "docker restart <\"$S\">"},
		{`S=w\eb; T=${S}\2; docker restart $T`, "docker restart web2"},
		{`S=we\b; S+=\1; docker restart $S`, "docker restart web1"},
		{`a=(we\b d\b); docker restart ${a[0]} ${a[1]}`, "docker restart web db"},
		{`for S in we\b; do docker restart $S; done`, "docker restart web"},
		{`bash <<< docker\ restart\ we\b`, "docker restart web"},
		{`echo docker restart we\\\\b > x.sh; bash x.sh`, `echo docker restart we\\b; docker restart we\b`},
		{"S=\"we\\`\"; docker restart \"$S\"", "docker restart we`"},
		{`S=$'we\b'; docker restart "$S"`, "docker restart we\b"},
		{`S=we\ b; docker restart "$S"`, "docker restart we b"},
		// Namerefs through local, typeset and a function's argument.
		{"S=web; f() { local -n R=$1; R=db; }; f S; docker restart $S", "docker restart <$S>"},
		{"S=web; typeset -n R=S; R=db; docker restart $S", "docker restart <$S>"},
		{"S=web; declare -n R=S; R=(db); docker restart $S", "docker restart <$S>"},
		{"S=web; declare -n R=S; declare R=db; docker restart $S", "docker restart <$S>"},
		{"S=web; declare -n R=S; : ${R:=db}; docker restart $S", ": <${R:=db}>; docker restart <$S>"},
		{"S=web; declare -n R=S; printf -v R db; docker restart $S", "printf -v R db; docker restart <$S>"},
		{"S=web; declare -n R='a[0]'; R=db; docker restart $S", "docker restart web"},
		{"S=web; declare -n R=$X; R=db; docker restart $S", "docker restart <$S>"},
		{"S=web; (declare -n R=S; R=db); docker restart $S", "docker restart web"},
		{"S=web; if true; then declare -n R=S; fi; R=db; docker restart $S", "true; docker restart <$S>"},
		{"S=web; source ./env.sh; S=web; R=db; docker restart $S", "source ./env.sh; docker restart <$S>"},
		// Arithmetic text: in a C-style for, let, an index and a slice.
		{"N=1; for (( i=$X; i<3; i++ )); do :; done; docker restart web$N", "?*(:); docker restart <web$N>"},
		{"N=1; let i=$X; docker restart web$N", "docker restart <web$N>"},
		{"N=1; a=(x y); echo ${a[$X]}; docker restart web$N", "echo <${a[$X]}>; docker restart <web$N>"},
		{"N=1; a=(x y); echo ${a[X]}; docker restart web$N", "echo <${a[X]}>; docker restart <web$N>"},
		{"N=1; S=abc; echo ${S:$X:1}; docker restart web$N", "echo <${S:$X:1}>; docker restart <web$N>"},
		{"N=1; a[X]=1; docker restart web$N", "docker restart <web$N>"},
		{"N=1; X='M=1, N=2'; (( X )); docker restart web$N", "docker restart <web$N>"},
		{"N=1; a=('N=2'); (( a[0] )); docker restart web$N", "docker restart <web$N>"},
		{"N=1; X='N=2 +'; (( X )); docker restart web$N", "docker restart <web$N>"},
		{"N=1; X=X; (( X )); docker restart web$N", "docker restart <web$N>"},
		{"N=1; (( $(echo M=2) )); docker restart web$N", "echo M=2; docker restart <web$N>"},
		// Numbers: known, or left by arithmetic in each branch.
		{"N=1; X=3; (( X > 2 )) && docker restart web$N", "docker restart web1"},
		{"N=1; X=-3; (( $X < 2 )) && docker restart web$N", "docker restart web1"},
		{"N=1; (( i = 5 )); (( i++ )); docker restart web$N", "docker restart web1"},
		{"N=1; (( i = 5 )); echo $(( $i + 1 )); docker restart web$N", "echo <$(( $i + 1 ))>; docker restart web1"},
		{"N=1; if true; then i=1; else i=2; fi; (( i++ )); docker restart web$N", "true; docker restart web1"},
		{"N=1; if true; then i=1; else i=x; fi; (( i++ )); docker restart web$N", "true; docker restart <web$N>"},
		{"N=1; f() { local i; (( i++ )); }; f; (( i++ )); docker restart web$N", "docker restart <web$N>"},
		{"N=1; [[ 3 -gt 2 ]] && docker restart web$N", "docker restart web1"},
		// Unknown words in declarations and unset.
		{`N=1; typeset $X; docker restart web$N`, "docker restart <web$N>"},
		{`N=1; declare -x "$X"; docker restart web$N`, "docker restart <web$N>"},
		{`N=1; declare "$X"; N=1; R=2; docker restart web$N`, "docker restart <web$N>"},
		{`N=1; declare "$X"; N=1; docker restart web$N`, "docker restart web1"},
		{`N=1; unset -v "$V"; docker restart web$N`, "docker restart <web$N>"},
		{`N=1; unset $(cat f); docker restart web$N`, "cat f; docker restart <web$N>"},
		{`N=1; mapfile "$V" < f; docker restart web$N`, "docker restart <web$N>"},
		{`N=1; declare "M=2"; docker restart web$N$M`, "docker restart web12"},
		{`N=1; declare "a[N=2]=x"; docker restart web$N`, "docker restart <web$N>"},
		{`N=1; f() { local "N=2"; }; f; docker restart web$N`, "docker restart web1"},
		{`N=1; f() { local "N"; N=2; }; f; docker restart web$N`, "docker restart web1"},
		{`N=1; f() { declare -p N; docker restart web$N; }; f`, "docker restart web1"},
	})
}

// TestUnescaped: unescaped leaves a word without unquoted backslashes as
// it is, and single-quotes what each unquoted backslash quotes.
func TestUnescaped(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`web`, `web`},
		{`we\b`, `we'b'`},
		{`\$X"\b"`, `'$'X"\b"`},
		{`\~x\ y`, `'~'x' 'y`},
	} {
		f, err := syntax.NewParser().Parse(strings.NewReader("x "+tc.in), "")
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, p := range unescaped(f.Stmts[0].Cmd.(*syntax.CallExpr).Args[1]).Parts {
			switch p := p.(type) {
			case *syntax.Lit:
				b.WriteString(p.Value)
			case *syntax.SglQuoted:
				b.WriteString("'" + p.Value + "'")
			case *syntax.DblQuoted:
				b.WriteString(`"` + p.Parts[0].(*syntax.Lit).Value + `"`)
			}
		}
		if got := b.String(); got != tc.want {
			t.Errorf("unescaped(%s) = %s; want %s", tc.in, got, tc.want)
		}
	}
}

// TestReadArithmeticValues: arithmetic reads a variable's value as
// arithmetic in turn, and puts the text of $X into the expression before
// it parses it, where mvdan.cc/sh's expand reads a value that is not a
// number as 0 (hostile-user-3 M4's class, issue 35: X=1+1; docker
// restart web$((X)) read as web0, bash restarts web2). Guard expands
// arithmetic only when each operand is a number both read alike.
func TestReadArithmeticValues(t *testing.T) {
	runReadSteps(t, []struct{ line, runs string }{
		// bash: web2.
		{`X=1+1; docker restart web$((X))`, "docker restart <web$((X))>"},
		// bash: web3 ($X is text: 1+1 * 2).
		{`X=1+1; docker restart web$(( $X * 2 ))`, "docker restart <web$(( $X * 2 ))>"},
		{`X=1+1; docker restart "web$[X]"`, `docker restart <"web$[X]">`},
		// bash: db.
		{`a=(web db); i=1+0; docker restart ${a[i]}`, "docker restart <${a[i]}>"},
		{`a=(web db); i=1+0; docker restart ${a[$i]}`, "docker restart <${a[$i]}>"},
		{`a=(web 1+0); b=(web db); docker restart ${b[a[1]]}`, "docker restart <${b[a[1]]}>"},
		// bash: weC (offset 2).
		{`s=webCD; X=1+1; docker restart ${s:0:2}${s:X:1}`, "docker restart <${s:0:2}${s:X:1}>"},
		{`s=webCD; X=1+1; docker restart ${s:0:$X}`, "docker restart <${s:0:$X}>"},
		// A value that names a variable is read through it (bash: web4).
		{`X=Y; Y=1+3; docker restart web$((X))`, "docker restart <web$((X))>"},
		{`X=Y; Y=4; docker restart web$((X)) web$(($X))`, "docker restart web4 web4"},
		// Text bash reads as an error, or guard cannot tell is read
		// alike, is unknown.
		{`X=08; docker restart web$((X))`, "docker restart <web$((X))>"},
		{`X='3 4'; docker restart web$((X))`, "docker restart <web$((X))>"},
		{`docker restart web$((08))`, "docker restart <web$((08))>"},
		{`X=-3; docker restart web$((1-$X))`, "docker restart <web$((1-$X))>"},
		{`docker restart web$(( $(echo 1+1) ))`, "echo 1+1; docker restart <web$(( $(echo 1+1) ))>"},
		{`docker restart web$(( $(echo 2) ))`, "echo 2; docker restart web2"},
		// bash shifts modulo 64 (1<<64 is 1): a count outside 0 to 63, or
		// one not written as a number, is unknown.
		{`docker restart web$((1<<64))`, "docker restart <web$((1<<64))>"},
		{`docker restart web$((1<<-1))`, "docker restart <web$((1<<-1))>"},
		{`N=64; docker restart web$((1<<N))`, "docker restart <web$((1<<N))>"},
		{`docker restart web$((256>>70))`, "docker restart <web$((256>>70))>"},
		{`docker restart web$((1<<3)) web$((256>>4))`, "docker restart web8 web16"},
		// Numbers both read alike.
		{`X=; docker restart web$((X))`, "docker restart web0"},
		{`unset X; docker restart web$((X))`, "docker restart web0"},
		{`X='  3 '; docker restart web$((X)) web$(( $X ))`, "docker restart web3 web3"},
		{`X=0x10; docker restart web$((X)) web$(($X))`, "docker restart web16 web16"},
		{`X=010; docker restart web$((X))`, "docker restart web8"},
		{`X=2#101; docker restart web$((X)) web$(($X))`, "docker restart web5 web5"},
		{`X=-3; docker restart web$((X)) web$((2*X))`, "docker restart web-3 web-6"},
		{`a=(web db); i=1; docker restart ${a[i]} ${a[-1]} ${a[@]}`, "docker restart db db web db"},
		{`s=webCD; X=2; docker restart ${s:0:3}${s:X+1:1}`, "docker restart webC"},
		// Arithmetic in a word of ${...}, a case word, an assignment.
		{`X=1+1; docker restart ${U:-web$((X))}`, "docker restart <${U:-web$((X))}>"},
		{`X=1+1; s=webX; docker restart ${s/X/$((X))}`, "docker restart <${s/X/$((X))}>"},
		{`X=2; s=webX; U=; docker restart ${s/X/$((X))} ${U:-db$((X))}`, "docker restart web2 db2"},
		{`X=1+1; S=web$((X)); docker restart $S`, "docker restart <$S>"},
		{`X=1+1; Y=$((X)); docker restart web$Y`, "docker restart <web$Y>"},
		{"X=1+1; case $((X)) in 2) docker restart web;; esac", "{ | docker restart web}"},
		// Deeper than guard follows.
		{`A=B B=C C=D D=E E=F F=G G=H H=I I=J J=K K=3; docker restart web$((A))`, "docker restart <web$((A))>"},
		{`A=B B=3; docker restart web$((A))`, "docker restart web3"},
		// Loops stay precise.
		{`i=0; i=$((i+1)); i=$((i+1)); docker restart web$i`, "docker restart web2"},
		{`i=1+1; [[ i -eq 2 ]] && docker restart web`, "docker restart web"},
		// A here-document and sh -c's words.
		{"X=1+1; cat <<E | sh\ndocker restart web$((X))\nE", "cat; !?(cat <<E | sh\ndocker restart web$((X))\nE | sh)"},
		{`X=1+1; sh -c "docker restart web$((X))"`, `!?(sh -c "docker restart web$((X))")`},
		{`sh -c "docker restart web$((N))"`, `!?(sh -c "docker restart web$((N))")`},
		{`X=4; sh -c "docker restart web$((X))"`, "docker restart web4"},
	})
}

// TestBashNumber: the integer constants bash and mvdan.cc/sh's expand read
// alike; any other text arithmetic reads is unknown.
func TestBashNumber(t *testing.T) {
	for _, c := range []struct {
		s      string
		signed bool
		want   bool
	}{
		{"0", false, true},
		{"7", false, true},
		{"  3 ", false, true},
		{"\t3\n", false, true},
		{"-3", true, true},
		{"+3", true, true},
		{"-3", false, false},
		{"--3", true, false},
		{"0x10", false, true},
		{"0XfF", false, true},
		{"0x", false, false},
		{"0xg", false, false},
		{"010", false, true},
		{"08", false, false},
		{"2#101", false, true},
		{"36#zZ", false, true},
		{"2#102", false, false},
		{"1#0", false, false},
		{"64#_", false, false}, // expand reads bases over 36 as bash does, but guard need not
		{"2#", false, false},
		{"#1", false, false},
		{"2#-1", false, false},
		{"1+1", false, false},
		{"3 4", false, false},
		{"1e3", false, false},
		{"1_000", false, false},
		{"", false, false},
		{"-", true, false},
		{"999999999999999999", false, true},
		{"9999999999999999999", false, false}, // overflows
		{"X", false, false},
	} {
		if got := bashNumber(c.s, c.signed); got != c.want {
			t.Errorf("bashNumber(%q, %v) = %v; want %v", c.s, c.signed, got, c.want)
		}
	}
}
