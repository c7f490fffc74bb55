#!/usr/bin/env bash
# Measures guard against the figures in DESIGN.md section 8 and writes
# BENCHMARKS.md: whole-process costs against a floor program (bench/driver),
# the Go benchmarks of the hot paths, PostgreSQL against the file
# (bench/pgcost) and the dashboard (bench/dashboard).
#
#   bench/run.sh                  # 200 runs of each scenario, 16 x 200 in parallel
#   bench/run.sh -runs 50 -out '' # quicker, print only
#   bench/run.sh --stress         # then the long fault-injection runs
#
# Other flags go to the driver (go run ./bench/driver -h).
set -euo pipefail
cd "$(dirname "$0")/.."
stress=false
args=()
for a in "$@"; do
	if [ "$a" = --stress ]; then stress=true; else args+=("$a"); fi
done
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
# The build make install makes (see Makefile): static, without urfave/cli's
# man-page generator.
make --no-print-directory build >/dev/null
mv guard guard-pg guard-web "$bin/"
go build -o "$bin/floor" ./bench/floor
CGO_ENABLED=0 go build -o "$bin/goflock" ./bench/goflock
go build -o "$bin/rss" ./bench/rss
echo "go test -bench (breaker, statefile, hookstate, config)..." >&2
go test -run '^$' -bench . -benchmem ./breaker ./statefile ./internal/store/hookstate ./config | awk '/^Benchmark/ || (/^(goos|goarch|cpu):/ && !seen[$0]++)' >"$bin/gobench.txt"
go run ./bench/driver -guard "$bin/guard" -guard-pg "$bin/guard-pg" -floor "$bin/floor" -goflock "$bin/goflock" -rss "$bin/rss" -gobench "$bin/gobench.txt" ${args[@]+"${args[@]}"}
# PostgreSQL against the file, side by side (a throwaway cluster on
# 127.0.0.1; skipped with a note if there are no server programs).
if [ -f BENCHMARKS.md ] && [[ " ${args[*]-} " != *" -out "* ]]; then
	echo "PostgreSQL vs file..." >&2
	{
		echo
		echo "## PostgreSQL"
		echo
		echo 'A closed `guard run -- /bin/true` with its state in PostgreSQL (`bench/pgcost`: a throwaway cluster on 127.0.0.1, over TCP, trust authentication) against the JSON file, interleaved, 200 runs each; `guard` hands the call over to `guard-pg` (one more exec), and `guard-pg` called directly (a hook that names it) skips that:'
		echo
		go run ./bench/pgcost -guard "$bin/guard" -runs 200 || echo "(not measured: no PostgreSQL server programs here)"
		echo
		cat bench/pgcost/ROUNDTRIPS.md
	} >>BENCHMARKS.md
fi
# The dashboard: the page of 1,000 keys and 100,000 events, and the serve
# loop against the log's age (bench/dashboard).
if [ -f BENCHMARKS.md ] && [[ " ${args[*]-} " != *" -out "* ]]; then
	echo "dashboard..." >&2
	go run ./bench/dashboard -guard "$bin/guard" >>BENCHMARKS.md
fi
if $stress; then
	echo "== long fault injection: SIGKILL loop (100 rounds), failpoints, fuzzing (1m each)" >&2
	go test -count=1 -tags stress -run 'SIGKILL' ./tests
	go test -count=1 -tags failpoints -run 'Crash' ./statefile
	FUZZTIME=1m .ci/fuzz
fi
