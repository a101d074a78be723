#!/usr/bin/env bash
# The HTML report at scale (issue 15): a run of 10,000 steps (a foreach of
# `log` steps, and one of 10,000 `sh "echo"` steps with output), the page's
# size, and when its load event fires in headless Chromium (the page
# records `performance.now()` at load in `data-load-ms`), 5 loads each.
#
#   Benchmarks/runner/html-report-bench.sh
#
# Installs chromium from Debian when missing.
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../steps/common.sh"
need chromium:chromium

make -C "$repo" release >&2
bin="$(swift build -c release --package-path "$repo" --show-bin-path)/promise-run"
cd "$work"
echo "# HTML report benchmark, $(machine), $(date -u "+%H:%M UTC")"
printf 'workflow "logs"\nitems: foreach n in range(1, 10000) parallel limit 64 {\n  log "item {{n}}"\n}\n' > logs.workflow
printf 'workflow "echoes"\nitems: foreach n in range(1, 10000) parallel limit 8 {\n  sh "echo item {{n}}; echo warning {{n}} >&2"\n}\n' > echoes.workflow
echo
echo "| run | page size | load event (5 loads, ms) |"
echo "|---|---:|---|"
for name in logs echoes; do
    "$bin" -q --report "html=$name.html" "$name.workflow" > /dev/null
    size=$(stat -c %s "$name.html")
    loads=()
    for _ in 1 2 3 4 5; do
        ms=$(chromium --headless --no-sandbox --disable-gpu --user-data-dir="$work/profile" --virtual-time-budget=20000 \
            --dump-dom "file://$work/$name.html" 2>/dev/null | grep -o 'data-load-ms="[0-9]*"' | grep -o '[0-9]*')
        loads+=("$ms")
    done
    echo "| 10,000 steps ($name) | $(( size / 1024 )) KiB | ${loads[*]} |"
done
