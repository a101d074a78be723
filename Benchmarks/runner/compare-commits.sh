#!/usr/bin/env bash
# Two commits of promise-run side by side, in one hyperfine run per row, on
# the work every other benchmark here measures against other tools: is a
# change a regression? Each commit is built (release, the Swift runtime
# linked in, as `make release`) in a worktree of its own under /tmp.
#
#   Benchmarks/runner/compare-commits.sh BASE [OTHER] [runs]
#
# OTHER defaults to HEAD. Rows: checking a 100,000-step workflow (the
# language), 10,000 `log` steps (the executor's per-step cost), 1,000
# `sh "true"` at -j 8 (processes), 10,000 GETs of 1 KB at 64 from one local
# nginx (HTTP), and `--version` (start-up). Nothing else should run
# meanwhile: this machine's speed drifts, so only ratios within a row mean
# anything. Installs hyperfine and nginx from Debian when missing.
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../steps/common.sh"
base="${1:?usage: compare-commits.sh BASE [OTHER] [runs]}"
other="${2:-HEAD}"
runs="${3:-10}"
need hyperfine:hyperfine nginx:nginx curl:curl

# A worktree already at the commit is reused (and its build with it).
build_commit() {
    local commit full tree
    commit="$1"
    full="$(git -C "$repo" rev-parse "$commit")"
    tree="$(git -C "$repo" worktree list --porcelain | awk -v sha="$full" '
        /^worktree / { path = substr($0, 10) } /^HEAD / { if ($2 == sha) { print path; exit } }')"
    if [ -z "$tree" ] || [ "$tree" = "$repo" ]; then
        tree="/tmp/promise-run-compare-$commit"
        [ -d "$tree" ] || git -C "$repo" worktree add -f "$tree" "$commit" -q >&2
    fi
    make -C "$tree" release >&2  # each commit as its own Makefile builds its release
    echo "$(swift build -c release --static-swift-stdlib --package-path "$tree" --show-bin-path)/promise-run"
}

base_sha="$(git -C "$repo" rev-parse --short "$base")"
other_sha="$(git -C "$repo" rev-parse --short "$other")"
a="$(build_commit "$base_sha")"
b="$(build_commit "$other_sha")"
start_nginx
cd "$work"
echo "# $base_sha against $other_sha, $(date -u +%Y-%m-%dT%H:%MZ), $(machine), release --static-swift-stdlib"

write_runner_workloads
python3 - <<'PY'
with open("big.workflow", "w") as f:
    f.write('workflow "big"\n')
    for i in range(100000):
        f.write(f's{i}: sh "echo {i}" {{\n  retry 2\n}}\n')
PY

row() {
    local name="$1"; shift
    echo "## $name"
    hyperfine -N -w 2 -r "$runs" --export-markdown "$work/row.md" \
        -n "$base_sha" "$a $*" -n "$other_sha" "$b $*" >/dev/null
    cat "$work/row.md"
}

row "check: 100,000 steps" check big.workflow
row "10,000 log steps" -q logs.workflow
row "1,000 sh true at -j 8" -q -j 8 trues.workflow
row "10,000 GETs of 1 KB at 64" -q --http-connections 64 fetch.workflow
row "--version" --version
