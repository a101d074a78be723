#!/usr/bin/env bash
# The cost of watching a run (issue 45, spec §21), against one local nginx
# worker serving 1 KB, the release build:
#
#   1. CPU: `repeat for 20s parallel limit 64 rate 5000/s` of one GET,
#      plain, with --metrics-listen scraped once a second (curl, as a
#      Prometheus with a 1 s interval would), with --events to a file, and
#      with both: user + system CPU seconds of promise-run (from
#      /proc/PID/stat when it ends, children not counted) and the ratio to
#      the plain run of the same round (the goal: at most 1.05), the four
#      cases in turn in each round, the first case turning round by round;
#   2. memory: 3,000,000 requests (`repeat for 600s ... rate 5000/s`) with
#      --metrics-listen (scraped each second) and --events to a file, the
#      resident memory sampled every 10 s: peak, and flat after the first
#      minute.
#
#   Benchmarks/runner/metrics-bench.sh [cpu|memory|all] [runs] [soak seconds]
#   (default: all, 5 rounds of the CPU cases, a soak of 600 s)
#
# Every address is 127.0.0.1. Installs nginx and curl from Debian when
# missing.
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../steps/common.sh"
need nginx:nginx curl:curl
what="${1:-all}"
runs="${2:-5}"
soak_seconds="${3:-600}"
start_http_runner_bench
metrics_port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
echo "# metrics and events benchmarks, $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git -C "$repo" rev-parse --short HEAD), release build, $(machine)"

workload() {
    printf 'workflow "load"\nrepeat for %ss parallel limit 64 rate 5000/s {\n  get: http GET "%s"\n}\n' "$1" "$url" > load.workflow
}

# Scrapes /metrics once a second while $1 (a pid) lives; the bytes of the
# last exposition into scrape.size.
scrape() {
    while kill -0 "$1" 2>/dev/null; do
        curl -s -o last.metrics "http://127.0.0.1:$metrics_port/metrics" && wc -c < last.metrics > scrape.size
        sleep 1
    done
}

# Runs promise-run with the extra arguments; prints its CPU seconds (user +
# system, its own), read from /proc just before it is reaped.
cpu_of() {
    "$bin" -q --http-connections 64 --report json=r.json "$@" load.workflow > run.out 2>&1 &
    local pid=$! last=""
    local scraper=""
    case " $* " in *" --metrics-listen "*) scrape "$pid" & scraper=$! ;; esac
    while kill -0 "$pid" 2>/dev/null; do
        last="$(cut -d' ' -f14,15 "/proc/$pid/stat" 2>/dev/null || echo "$last")"
        sleep 0.2
    done
    wait "$pid" || true
    [ -z "$scraper" ] || wait "$scraper"
    python3 -c "import os, sys; u, s = map(int, sys.argv[1].split()); print(f'{(u + s) / os.sysconf(\"SC_CLK_TCK\"):.2f}')" "$last"
}

if [ "$what" = all ] || [ "$what" = cpu ]; then
    echo
    echo "## CPU at 5,000 requests/s for 20 s (medians of $runs rounds; each round runs the four cases in turn)"
    echo
    workload 20
    echo "| case | CPU seconds (median) | each round | ratio to plain (median of the rounds' ratios) |"
    echo "|---|---:|---|---:|"
    # Rounds, not a case's runs in a row: a drift of the machine's speed
    # hits every case of a round alike, and each round gives its own
    # ratios to its own plain run.
    : > rounds.txt
    # The order turns each round (plain first, then metrics first, ...):
    # a drift within a round (the machine, nginx's sockets) falls on each
    # case in turn, not always on the last.
    for round in $(seq "$runs"); do
        for step in 0 1 2 3; do
            case $(( (step + round - 1) % 4 )) in
                0) echo "plain $(cpu_of)" >> rounds.txt ;;
                1) echo "metrics $(cpu_of --metrics-listen "127.0.0.1:$metrics_port")" >> rounds.txt ;;
                2) echo "events $(cpu_of --events events.jsonl)" >> rounds.txt ;;
                3) echo "both $(cpu_of --metrics-listen "127.0.0.1:$metrics_port" --events events.jsonl)" >> rounds.txt ;;
            esac
        done
    done
    python3 - <<'PY'
import statistics
cases = {}
for line in open("rounds.txt"):
    name, seconds = line.split()
    cases.setdefault(name, []).append(float(seconds))
for name in ["plain", "metrics", "events", "both"]:
    # Round by round: the k-th of each case is of the k-th round.
    ratios = [c / p for c, p in zip(cases[name], cases["plain"])]
    print(f"| {name} | {statistics.median(cases[name]):.2f} | {' '.join(f'{c:.2f}' for c in cases[name])} | {statistics.median(ratios):.3f} |")
PY
    echo
    echo "events written: $(wc -l < events.jsonl) lines, $(du -h events.jsonl | cut -f1); last exposition $(cat scrape.size 2>/dev/null || echo '?') bytes"
fi

if [ "$what" = all ] || [ "$what" = memory ]; then
    echo
    echo "## Memory: repeat for ${soak_seconds}s at 5,000/s with --metrics-listen (scraped each second) and --events"
    echo
    workload "$soak_seconds"
    "$bin" -q --http-connections 64 --report json=r.json --metrics-listen "127.0.0.1:$metrics_port" --events events.jsonl \
        load.workflow > soak.out 2>&1 &
    pid=$!
    scrape "$pid" &
    scraper=$!
    sample_rss "$pid"
    # Not a bare `wait`: nginx is a child of this shell too.
    wait "$scraper"
    python3 - <<'PY'
import json
s = json.load(open("r.json"))["stats"]["get"]
samples = [tuple(map(int, line.split())) for line in open("rss.txt") if len(line.split()) == 3]
start = samples[0][0]
peak = max(hwm for _, _, hwm in samples) / 1024
after_minute = [rss / 1024 for t, rss, _ in samples if t - start >= 60]
events = sum(1 for _ in open("events.jsonl"))
print(f"{s['count']:,} requests at {s['ratePerSecond']:.1f}/s; {events:,} event lines")
print(f"peak resident memory {peak:.1f} MiB; after the first minute, resident memory between {min(after_minute):.1f} and {max(after_minute):.1f} MiB"
      if after_minute else f"peak resident memory {peak:.1f} MiB")
print("resident MiB every 10 s: " + " ".join(f"{rss / 1024:.0f}" for _, rss, _ in samples))
PY
fi
