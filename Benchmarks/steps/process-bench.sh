#!/usr/bin/env bash
# 1,000 `true` process steps at concurrency 8, side by side in one hyperfine
# run with `xargs -P 8 -n 1 sh -c true` and GNU parallel; then the peak
# memory of one step printing 400 MB of output.
#
#   bash Benchmarks/steps/process-bench.sh [runs]
source "$(dirname "$0")/common.sh"
runs="${1:-10}"
need hyperfine:hyperfine parallel:parallel gcc:gcc
build_stepsbench
build_spawn_ceiling
seq 1000 > "$work/items"
echo "## process spawns: $(machine)"
hyperfine --warmup 2 --runs "$runs" -N --export-markdown "$work/spawn.md" \
    -n 'C clone loop, as promise-run spawns (no runner: the ceiling)' "$spawn_ceiling 1000 8" \
    -n 'C runner: output captured, pipes and pidfds in epoll' "$spawn_ceiling 1000 8 capture" \
    -n 'C posix_spawn loop' "$spawn_ceiling 1000 8 posix" \
    -n 'StepsBench: 1000 sh "true" steps, 8 at once' "$stepsbench spawn 1000 8 sh" \
    -n 'StepsBench: 1000 exec "true" steps, 8 at once' "$stepsbench spawn 1000 8 exec" \
    -n 'xargs -P 8 -n 1 sh -c true' "bash -c 'xargs -P 8 -n 1 sh -c true < $work/items'" \
    -n 'xargs -P 8 -I{} true' "bash -c 'xargs -P 8 -I{} true < $work/items'" \
    -n 'xargs -P 8 -n 1 true' "bash -c 'xargs -P 8 -n 1 true < $work/items'" \
    -n 'GNU parallel -j 8 sh -c true' "bash -c 'parallel -j 8 sh -c true < $work/items'"
cat "$work/spawn.md"
echo
echo "## one step printing 400 MB (lines to a sink, 1 MiB tail kept)"
"$stepsbench" output 400000000
"$stepsbench" spawn 1000 8 sh
"$stepsbench" spawn 1000 8 exec
