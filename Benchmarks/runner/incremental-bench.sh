#!/usr/bin/env bash
# Incremental steps (issue 14): fingerprinting 10,000 source files of 10 KB
# (warm and cold page cache), hash throughput on one 1 GB file, a no-change
# re-run against make's no-op side by side, and --watch's time from a save
# to the next run.
#
#   Benchmarks/runner/incremental-bench.sh
#
# Installs hyperfine from Debian when missing. Drops the page cache for the
# cold figure when run as root.
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../steps/common.sh"
need hyperfine:hyperfine make:make gcc:gcc

make -C "$repo" release >&2
bin="$(swift build -c release --package-path "$repo" --show-bin-path)/promise-run"
cd "$work"
echo "# incremental benchmark, $(machine), $(date -u "+%H:%M UTC")"

# 1. 10,000 files of 10 KB in 100 folders.
python3 - <<'PY'
import os
for folder in range(100):
    os.makedirs(f"tree/d{folder}", exist_ok=True)
    for index in range(100):
        with open(f"tree/d{folder}/f{index}.c", "wb") as f:
            f.write(os.urandom(10240))
PY
printf 'fp: sh "true" {\n  sources "tree/**/*.c"\n}\n' > fingerprint.workflow
"$bin" -q fingerprint.workflow > /dev/null
echo
echo "## 10,000 files of 10 KB (100 MB): a no-change run (glob + read + hash + compare)"
hyperfine --warmup 2 --runs 10 -N --export-markdown warm.md "$bin -q fingerprint.workflow" >&2
cat warm.md
if [ "$(id -u)" -eq 0 ]; then
    cold=()
    for _ in 1 2 3; do
        sync; echo 3 > /proc/sys/vm/drop_caches
        start=$(date +%s%N); "$bin" -q fingerprint.workflow > /dev/null; end=$(date +%s%N)
        cold+=("$(( (end - start) / 1000000 )) ms")
    done
    echo
    echo "cold page cache (drop_caches before each): ${cold[*]}"
fi

# 2. Throughput: one 1 GB file.
head -c 1073741824 /dev/urandom > big.bin
printf 'fp: sh "true" {\n  sources "big.bin"\n}\n' > big.workflow
"$bin" -q big.workflow > /dev/null
echo
echo "## one 1 GB file (page cache warm): hash throughput"
hyperfine --warmup 1 --runs 5 -N --export-markdown big.md "$bin -q big.workflow" "cat big.bin" >&2
cat big.md
rm -f big.bin

# 3. A no-change re-run of the example CI project's build, against make's no-op.
cp -r "$repo/workflows/ci-project" ci-project
make -C ci-project BUILD=build > /dev/null
cat > build.workflow <<'WF'
build: sh "make -C ci-project BUILD=build" {
  sources "ci-project/src/*.c" "ci-project/src/*.h" "ci-project/Makefile"
  generates "ci-project/build/greet"
}
WF
"$bin" -q build.workflow > /dev/null
echo
echo "## a no-change build: promise-run (up-to-date, make not started) against make's own no-op"
hyperfine --warmup 3 --runs 30 -N --export-markdown noop.md \
    "$bin -q build.workflow" "make -C ci-project BUILD=build" >&2
cat noop.md
