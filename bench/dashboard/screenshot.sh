#!/usr/bin/env bash
# Makes docs/dashboard.png and docs/dashboard-400.png: the example state of
# bench/dashboard -example (a week of a few hooks on two hosts, with a
# policy hook that blocks, a key in observe mode and a disabled one), drawn
# by guard report --format html and photographed by headless Chromium
# through the tests' own tooling (internal/chromium, Page.captureScreenshot)
# at 1400 and 400 px.
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
make --no-print-directory build >/dev/null
mv guard guard-cli guard-pg guard-web "$dir/"
go run ./bench/dashboard -guard "$dir/guard" -screenshot docs
