#!/usr/bin/env bash
# HTTP through the whole runner (issue 11), side by side with the tools a
# user would otherwise pick, against one local nginx on 127.0.0.1:
#
#   1. 10,000 GETs of a 1 KB file, 64 at once: promise-run (a parallel
#      foreach over a URL file) against `curl --parallel --parallel-max 64
#      -K` (a config file of the same URLs) and `xargs -P 64 curl`;
#   2. the transport alone (StepsBench): CPU per request;
#   3. 100,000 GETs through the runner: peak memory;
#   4. a 1 GB download: `save` against `curl -o` (and `curl -o` + sync,
#      since save flushes the file to disk before it renames it);
#   5. start-up (`--version`) and the binary's size.
#
#   Benchmarks/runner/http-bench.sh [runs]
#
# Installs hyperfine and nginx from Debian when missing.
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../steps/common.sh"
runs="${1:-10}"
need hyperfine:hyperfine nginx:nginx curl:curl

make -C "$repo" release >&2
bin="$(swift build -c release --package-path "$repo" --show-bin-path)/promise-run"
build_stepsbench
start_nginx
cd "$work"
echo "# HTTP benchmarks, $(machine)"


write_runner_workloads
truncate -s 1G www/big.bin
python3 - "$port" <<'PY'
import sys
port = sys.argv[1]
with open("save.workflow", "w") as f:
    f.write(f'workflow "save"\nhttp GET "http://127.0.0.1:{port}/big.bin" {{\n  save "downloads/big.bin"\n}}\n')
PY

echo
echo "## 1. 10,000 GETs of 1 KB, 64 at once ($runs runs; xargs 3)"
hyperfine --warmup 2 --runs "$runs" -N --export-markdown parallel.md \
    -n "promise-run -q --http-connections 64 (foreach ... parallel limit 64)" "$bin -q --http-connections 64 fetch.workflow" \
    -n "curl --parallel --parallel-max 64 -K (one process)" "curl -s --parallel --parallel-max 64 -K curl.config" >&2
cat parallel.md
hyperfine --runs 3 --export-markdown xargs.md \
    -n "xargs -P 64 curl (a process per request)" "xargs -P 64 -n 1 curl -s -o /dev/null < urls.txt" >&2
cat xargs.md
echo
echo "CPU, one run each (user + system):"
/usr/bin/time -f "promise-run: %U + %S s" "$bin" -q --http-connections 64 fetch.workflow 2>&1 >/dev/null
/usr/bin/time -f "curl --parallel: %U + %S s" curl -s --parallel --parallel-max 64 -K curl.config 2>&1 >/dev/null

echo
echo "## 2. The transport alone (StepsBench: SystemStepRunner, no executor)"
for _ in 1 2 3; do "$stepsbench" http "http://127.0.0.1:$port/small.txt" 10000 64; done

echo
echo "## 3. 100,000 GETs through the runner"
say_peak "$bin" -q --http-connections 64 fetch100k.workflow
say_peak "$bin" -q --http-connections 64 fetch100k.workflow

echo
echo "## 4. 1 GB download"
mkdir -p downloads
hyperfine --warmup 1 --runs 8 --export-markdown save.md \
    --prepare "rm -f downloads/big.bin downloads/curl.bin" \
    -n "promise-run: save (temporary file, fsync, rename)" "$bin -q save.workflow" \
    -n "curl -o" "curl -s -o downloads/curl.bin http://127.0.0.1:$port/big.bin" \
    -n "curl -o, then sync the file" "sh -c 'curl -s -o downloads/curl.bin http://127.0.0.1:$port/big.bin && sync downloads/curl.bin'" >&2
cat save.md
rm -f downloads/big.bin
say_peak "$bin" -q save.workflow
rm -f downloads/*
/usr/bin/time -f "curl -o: peak %M KiB" curl -s -o downloads/curl.bin "http://127.0.0.1:$port/big.bin" 2>&1
rm -f downloads/*

echo
echo "## 5. Start-up and size"
hyperfine --warmup 5 --runs 50 -N --export-markdown start.md -n "promise-run --version" "$bin --version" >&2
cat start.md
ls -l "$bin" | awk '{print "binary: " $5 " bytes"}'
