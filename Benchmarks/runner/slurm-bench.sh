#!/usr/bin/env bash
# The Slurm executor (issue 16) on a one-node cluster started here
# (.ci/slurm-cluster): 200 `true` steps at --slurm-jobs 8 against
# `xargs -P 8 srun true`, side by side in one hyperfine run; then what
# 1,000 jobs in flight cost promise-run (resident memory per job, and the
# srun processes), and how long cancelling all of them with SIGTERM takes.
#
#   Benchmarks/runner/slurm-bench.sh [runs] [in-flight]
#
# Installs hyperfine from Debian when missing; needs slurm-wlm and munge
# (.ci/install-deps).
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../steps/common.sh"
need hyperfine:hyperfine
runs="${1:-3}"
inflight="${2:-1000}"

make -C "$repo" release >&2
bin="$(swift build -c release --package-path "$repo" --show-bin-path)/promise-run"
cluster="$work/cluster"
mkdir -p "$cluster"
conf=$("$repo/.ci/slurm-cluster" up "$cluster")
export "${conf?}"
trap '"$repo/.ci/slurm-cluster" down "$cluster" >/dev/null 2>&1 || true; cleanup' EXIT
cd "$work"
echo "# Slurm benchmark, $(machine), $(date -u "+%H:%M UTC"), $(srun --version)"

printf 'workflow "trues"\nexecutor slurm\nforeach n in range(1, 200) parallel {\n  sh "true"\n}\n' > trues.workflow
hyperfine --warmup 1 --runs "$runs" --export-markdown slurm.md \
    -n "promise-run --slurm-jobs 8, 200 true steps" "$bin -q --slurm-jobs 8 trues.workflow" \
    -n "seq 200 | xargs -P 8 -I{} srun true" "seq 200 | xargs -P 8 -I{} srun true" >&2
cat slurm.md

# Resident memory of promise-run with N jobs in flight, against 1.
rss() { awk '/^VmRSS/ { print $2 }' "/proc/$1/status"; }
ours() { squeue --noheader --format=%j | grep -c '^pr-' || true; }
measure() {
    local count="$1"
    printf 'workflow "sleepers"\nexecutor slurm\nforeach n in range(1, %d) parallel {\n  sh "sleep 300"\n}\n' "$count" > sleepers.workflow
    "$bin" -q --slurm-jobs "$count" sleepers.workflow > /dev/null 2>&1 &
    local pid=$!
    local waited=0
    while [ "$(ours)" -lt "$count" ] && [ "$waited" -lt 600 ]; do sleep 1; waited=$((waited + 1)); done
    sleep 2
    local memory; memory=$(rss "$pid")
    local sruns; sruns=$(pgrep -c -x srun || true)
    local srun_kb; srun_kb=$(ps -C srun -o rss= | awk '{ s += $1 } END { print s + 0 }')
    local queued; queued=$(ours)
    local start; start=$(date +%s.%N)
    kill -TERM "$pid"
    wait "$pid" || true
    local stopped; stopped=$(date +%s.%N)
    local left; left=$(ours)
    echo "$count $memory $queued $sruns $srun_kb $(echo "$stopped - $start" | bc) $left"
}
echo
echo "| jobs in flight | promise-run RSS (KiB) | jobs in the queue | srun processes | their RSS (KiB) | SIGTERM to exit (s) | jobs left after |"
echo "|---:|---:|---:|---:|---:|---:|---:|"
for count in 1 "$inflight"; do
    read -r n memory queued sruns srun_kb seconds left <<< "$(measure "$count")"
    echo "| $n | $memory | $queued | $sruns | $srun_kb | $seconds | $left |"
    [ "$n" = 1 ] && base="$memory"
done
echo
echo "promise-run's own memory per job in flight: (RSS at $inflight - RSS at 1) / $((inflight - 1)) KiB"
