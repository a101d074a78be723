#!/usr/bin/env bash
# Spawn cost (issue 19): 1,000 `true` process steps, 8 at once, against the
# C runner (`spawn-ceiling.c capture`) in one hyperfine run; with a second
# binary, the same workflow through it too (an A/B of a change).
#
#   Benchmarks/runner/spawn-bench.sh [OTHER-PROMISE-RUN [runs]]
#
# Installs hyperfine from Debian when missing.
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../steps/common.sh"
need hyperfine:hyperfine gcc:gcc

make -C "$repo" release >&2
bin="$(swift build -c release --package-path "$repo" --show-bin-path)/promise-run"
other="${1:-}"
runs="${2:-30}"
build_spawn_ceiling
cd "$work"
echo "# spawn benchmark, $(machine), $(date -u "+%H:%M UTC")"
printf 'workflow "trues"\nforeach n in range(1, 1000) parallel {\n  sh "true"\n}\n' > trues.workflow
arguments=(
    -n "C runner: output captured, pipes and pidfds in epoll" "$spawn_ceiling 1000 8 capture"
    -n "promise-run -j 8 (this build)" "$bin -q -j 8 trues.workflow"
)
if [ -n "$other" ]; then
    arguments+=(-n "promise-run -j 8 ($other)" "$other -q -j 8 trues.workflow")
fi
hyperfine --warmup 3 --runs "$runs" --export-markdown spawns.md --export-json spawns.json "${arguments[@]}" >&2
cat spawns.md
python3 - <<'PY'
import json
results = json.load(open("spawns.json"))["results"]
base = results[0]
print()
print("| Command | median wall [ms] | vs C | CPU user+sys [ms] | vs C |")
print("|:---|---:|---:|---:|---:|")
for r in results:
    cpu = (r["user"] + r["system"]) * 1000
    base_cpu = (base["user"] + base["system"]) * 1000
    print(f"| {r['command']} | {r['median']*1000:.1f} | {r['median']/base['median']:.2f} | {cpu:.0f} | {cpu/base_cpu:.2f} |")
PY
