#!/usr/bin/env bash
# Builds guard and the floor program and measures them (see bench/driver).
# Usage: bench/run.sh [-runs N] [-out FILE] ...   (flags go to the driver)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
# The release build: urfave_cli_no_docs leaves out urfave/cli's man-page
# generator, whose package set-up costs every run half a millisecond.
go build -tags urfave_cli_no_docs -o "$bin/guard" ./cmd/guard
go build -o "$bin/floor" ./bench/floor
go build -o "$bin/rss" ./bench/rss
go run ./bench/driver -guard "$bin/guard" -floor "$bin/floor" -rss "$bin/rss" "$@"
