#!/usr/bin/env bash
# 10,000 GETs of a small file from a local nginx, 64 at once: StepsBench
# (SystemStepRunner, one URLSession) side by side in one hyperfine run with
# `xargs -P 64 curl` (a process per request) and `curl --parallel`; then
# wrk for the server's limit, and the peak memory of a 1 GB `save`.
#
#   bash Benchmarks/steps/http-bench.sh [runs]
source "$(dirname "$0")/common.sh"
runs="${1:-3}"
need hyperfine:hyperfine nginx:nginx wrk:wrk curl:curl
build_stepsbench
start_nginx
head -c 1024 /dev/urandom | base64 -w 0 | head -c 1024 > "$work/www/small.txt"
truncate -s 1G "$work/www/big.bin"
url="http://127.0.0.1:$port/small.txt"
seq 10000 | sed "s|.*|$url|" > "$work/urls"
seq 10000 | sed "s|.*|url = \"$url\"\noutput = \"/dev/null\"|" > "$work/curl.config"

echo "## 10,000 GETs, 64 at once: $(machine)"
hyperfine --warmup 1 --runs "$runs" -N --export-markdown "$work/http.md" \
    -n 'StepsBench: 10000 http GET steps, 64 at once' "$stepsbench http $url 10000 64" \
    -n 'curl --parallel --parallel-max 64' "curl -s --parallel --parallel-max 64 -K $work/curl.config" \
    -n 'xargs -P 64 curl (a process per request)' "bash -c 'xargs -P 64 -n 1 curl -s -o /dev/null < $work/urls'"
cat "$work/http.md"
echo
echo "## wrk, 64 connections, 2 threads, 10 s"
wrk -t 2 -c 64 -d 10s "$url" | grep -E "Requests/sec|Latency|requests in"
echo
echo "## StepsBench runs (rate, CPU per request, peak memory)"
"$stepsbench" http "$url" 10000 64
"$stepsbench" http "$url" 10000 64
echo
echo "## 1 GB save"
mkdir -p "$work/downloads"
"$stepsbench" save "http://127.0.0.1:$port/big.bin" "$work/downloads/big.bin"
ls -l "$work/downloads"
