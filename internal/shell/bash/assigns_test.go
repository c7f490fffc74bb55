package bash

import "testing"

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
