#!/usr/bin/env bash
# The runner end to end (issue 5): what promise-run itself costs per step,
# process steps against xargs and GNU parallel in one hyperfine run, and a
# 100,000-item parallel foreach over URLs from a local nginx, for memory.
#
#   Benchmarks/runner/runner-bench.sh
#
# Installs hyperfine, nginx and GNU parallel from Debian when missing.
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../steps/common.sh"
need hyperfine:hyperfine nginx:nginx parallel:parallel curl:curl gcc:gcc curl-config:libcurl4-openssl-dev

# The binary `make install` installs: the Swift runtime linked in.
make -C "$repo" release >&2
bin="$(swift build -c release --package-path "$repo" --show-bin-path)/promise-run"
build_spawn_ceiling
cd "$work"
echo "# runner benchmarks, $(date -u +%Y-%m-%d), $(machine)"


# 1. Per-step overhead: 10,000 log steps against an empty workflow.
write_runner_workloads
python3 - <<'PY'
with open("empty.workflow", "w") as f:
    f.write('workflow "empty"\n')
with open("sh-trues.workflow", "w") as f:
    f.write('workflow "sh-trues"\nforeach n in range(1, 1000) parallel {\n  sh "true;"\n}\n')
PY
echo
echo "## 10,000 log steps (per-step overhead = difference / 10,000)"
hyperfine --warmup 2 --runs 10 -N --export-markdown logs.md \
    -n "empty workflow" "$bin -q empty.workflow" \
    -n "10,000 log steps" "$bin -q logs.workflow" >&2
cat logs.md

# 2. 1,000 process steps at concurrency 8, side by side.
echo
echo "## 1,000 true process steps, concurrency 8"
seq 1000 > numbers
hyperfine --warmup 3 --runs 20 --export-markdown processes.md \
    -n "C clone loop, as promise-run spawns (no runner: the ceiling)" "$spawn_ceiling 1000 8" \
    -n "C runner: output captured, pipes and pidfds in epoll (one starting thread)" "$spawn_ceiling 1000 8 capture" \
    -n "C posix_spawn loop" "$spawn_ceiling 1000 8 posix" \
    -n "promise-run -j 8 (sh \"true\": exec'd directly)" "$bin -q -j 8 trues.workflow" \
    -n "promise-run -j 8 (sh \"true;\": through /bin/sh)" "$bin -q -j 8 sh-trues.workflow" \
    -n "xargs -P 8 -n 1 sh -c true" "xargs -P 8 -n 1 sh -c true < numbers" \
    -n "xargs -P 8 -I{} true (true with no argument, as promise-run runs it)" "xargs -P 8 -I{} true < numbers" \
    -n "xargs -P 8 -n 1 true (true N: coreutils then sets up its locale)" "xargs -P 8 -n 1 true < numbers" \
    -n "parallel -j 8 sh -c true" "parallel -j 8 sh -c true :::: numbers" >&2
cat processes.md

# 3. 100,000-item parallel foreach over a URL list, limit 64, from nginx.
echo
echo "## 100,000 HTTP GETs: foreach ... parallel limit 64, against nginx"
start_nginx
# Now with the server's port: the HTTP workloads too (fetch100k.workflow).
write_runner_workloads
say_peak "$bin" -q --http-connections 64 fetch100k.workflow
