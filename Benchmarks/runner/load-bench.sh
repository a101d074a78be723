#!/usr/bin/env bash
# HTTP under load (issue 30, spec §16): `repeat N parallel limit 64 rate
# R/s` against one local nginx worker for 10 s at several rates: the rate
# achieved (the JSON report's `stats`), the latency percentiles from the
# schedule, wall time and peak memory.
#
#   Benchmarks/runner/load-bench.sh [rates...]   (default: 5000 10000 20000)
#
# Installs nginx from Debian when missing.
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../steps/common.sh"
need nginx:nginx curl:curl
make -C "$repo" release >&2
bin="$(swift build -c release --package-path "$repo" --show-bin-path)/promise-run"
start_nginx
cd "$work"
write_runner_workloads
echo "# load benchmarks, $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git -C "$repo" rev-parse --short HEAD), $(machine)"
echo
echo "| target | requests | achieved /s | p50 | p99 | p99.9 | max | wall | peak memory |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for rate in "${@:-5000 10000 20000}"; do
    for r in $rate; do
        count=$((r * 10))
        printf 'workflow "load"\nrepeat %d parallel limit 64 rate %d/s {\n  get: http GET "http://127.0.0.1:%s/small.txt"\n}\n' \
            "$count" "$r" "$port" > load.workflow
        read -r code wall mib < <(peak "$bin" -q --http-connections 64 --report json=r.json load.workflow)
        python3 - "$r" "$wall" "$mib" <<'PY'
import json, sys
rate, wall, mib = sys.argv[1:]
s = json.load(open("r.json"))["stats"]["get"]
l = s["latency"]
ms = lambda v: f"{v * 1000:.2f} ms"
print(f"| {rate}/s | {s['count']} | {s['ratePerSecond']:.1f} | {ms(l['p50'])} | {ms(l['p99'])} | {ms(l['p999'])} | {ms(l['max'])} | {float(wall):.2f} s | {mib} MiB |")
PY
    done
done
