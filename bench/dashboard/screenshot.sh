#!/usr/bin/env bash
# Makes docs/dashboard.png: the example state of bench/dashboard -example
# (a week of a few hooks on two hosts), drawn by guard report --format
# html and photographed by headless Chromium.
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
make --no-print-directory build >/dev/null
mv guard guard-pg guard-web "$dir/"
env $(go run ./bench/dashboard -example "$dir/state") "$dir/guard" report --format html --output "$dir/page.html"
chromium --headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update \
	--disable-sync --no-first-run --user-data-dir="$dir/chromium" --hide-scrollbars --window-size=1280,1240 \
	--screenshot=docs/dashboard.png "file://$dir/page.html" 2>/dev/null
echo "wrote docs/dashboard.png" >&2
