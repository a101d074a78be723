#!/usr/bin/env bash
# The runner at the limit (issue 29): every row of its table, side by side
# in one run, with the ratios. `make bench-http` runs it.
#
#   1. 10,000 GETs of 1 KB, 64 at once, one nginx worker: promise-run
#      against `curl --parallel --parallel-max 64 --parallel-immediate -K`
#      (curl's fastest mode for 64 connections at once);
#   2. the same server under `wrk -t1 -c64 -d4s` (a load generator that
#      keeps nothing per request), against promise-run's rate in row 1 and
#      over 100,000 GETs;
#   3. 100,000 GETs with `expect status 200`: wall and peak memory;
#   4. 1,000 `true` at -j 8 against the C runner of Benchmarks/steps
#      (output captured, pidfds and pipes in epoll) and `xargs -P8 -I{}`;
#      beside them the same C runner with its starts on 4 threads;
#   5. a run of 50 steps that are all up to date (`sources`/`generates`)
#      against `make -s` on the same 50 rules, median of 30 (three rounds
#      of 10, the commands in turn), one fixed environment (`env -i`);
#   6. `--version` against make's no-op.
#
#   Benchmarks/runner/limit-bench.sh [runs]
#
# Prints the build kind, the commit and the machine first. Installs
# hyperfine, nginx, wrk and a C compiler from Debian when missing.
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../steps/common.sh"
runs="${1:-10}"
need hyperfine:hyperfine nginx:nginx curl:curl wrk:wrk gcc:gcc make:make

make -C "$repo" release >&2
bin="$(swift build -c release --package-path "$repo" --show-bin-path)/promise-run"
build_spawn_ceiling
start_nginx
cd "$work"

kind="release"
ldd "$bin" 2>/dev/null | grep -q libswiftCore && kind="release, shared Swift runtime" || kind="release, Swift runtime linked in (make release)"
echo "# The runner at the limit (issue 29)"
echo
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "- commit: $(git -C "$repo" rev-parse --short HEAD)$(git -C "$repo" diff --quiet HEAD -- Sources Package.swift || echo ' (with uncommitted changes)')"
echo "- build: $kind, $(swift --version 2>&1 | head -1)"
echo "- machine: $(machine)"
echo "- load before the run: $(cut -d' ' -f1-3 /proc/loadavg)"

# Mean and median wall seconds of a hyperfine JSON export's commands.
stat_of() { # file index field
    python3 - "$@" <<'PY'
import json, statistics, sys
r = json.load(open(sys.argv[1]))["results"][int(sys.argv[2])]
print(f'{statistics.median(r["times"]) if sys.argv[3] == "median" else r[sys.argv[3]]:.6f}')
PY
}
ratio() { python3 -c "import sys; print(f'{float(sys.argv[1]) / float(sys.argv[2]):.2f}')" "$@"; }

write_runner_workloads
python3 - <<'PY'
import os
# 50 steps that copy a source to a generated file: all up to date after
# the first run. The same 50 rules for make.
os.makedirs("noop/src", exist_ok=True)
os.makedirs("noop/out", exist_ok=True)
with open("noop/build.workflow", "w") as w, open("noop/Makefile", "w") as m:
    w.write('workflow "noop"\n')
    m.write("all:" + "".join(f" out/f{i}.o" for i in range(50)) + "\n")
    for i in range(50):
        with open(f"noop/src/f{i}.c", "w") as s:
            s.write(f"int f{i}(void) {{ return {i}; }}\n" * 40)
        w.write(f'sh "cp src/f{i}.c out/f{i}.o" {{\n  sources "src/f{i}.c"\n  generates "out/f{i}.o"\n}}\n')
        m.write(f"out/f{i}.o: src/f{i}.c\n\tcp src/f{i}.c out/f{i}.o\n")
PY

echo
echo "## 1. 10,000 GETs of 1 KB, 64 at once ($runs runs each)"
hyperfine --warmup 2 --runs "$runs" -N --export-json parallel.json --export-markdown parallel.md \
    -n "promise-run -q --http-connections 64 (foreach ... parallel limit 64)" "$bin -q --http-connections 64 fetch.workflow" \
    -n "curl -s --parallel --parallel-max 64 --parallel-immediate -K" "curl -s --parallel --parallel-max 64 --parallel-immediate -K curl.config" >&2
cat parallel.md
pr_mean="$(stat_of parallel.json 0 mean)"; curl_mean="$(stat_of parallel.json 1 mean)"
pr_rate="$(python3 -c "print(round(10000 / $pr_mean))")"
echo
echo "promise-run: $pr_rate requests/s; curl: $(python3 -c "print(round(10000 / $curl_mean))") requests/s"
echo "**ratio (curl time / promise-run time): $(ratio "$curl_mean" "$pr_mean")x** (goal ≥ 1.5x)"

echo
echo "## 2. wrk -t1 -c64 -d4s on the same server"
wrk_rate="$(wrk -t1 -c64 -d4s "http://127.0.0.1:$port/small.txt" | awk '/Requests\/sec/ {print $2}')"
echo "wrk: $wrk_rate requests/s"
echo "promise-run (row 1) / wrk: **$(ratio "$pr_rate" "$wrk_rate")x** (moonshot ≥ 0.8x)"

echo
echo "## 3. 100,000 GETs with expect status 200 (two runs)"
for n in 1 2; do
    read -r code wall mib < <(peak "$bin" -q --http-connections 64 fetch100k.workflow)
    echo "run $n: exit $code, wall $wall s ($(python3 -c "print(round(100000 / $wall))") requests/s, $(ratio "$(python3 -c "print(100000 / $wall)")" "$wrk_rate")x wrk), peak **$mib MiB** (goal ≤ 95.4 MiB = 100 MB)"
done

echo
echo "## 4. 1,000 true at -j 8 ($((runs * 2)) runs each)"
seq 1000 > numbers
hyperfine --warmup 3 --runs $((runs * 2)) -N --export-json spawn.json --export-markdown spawn.md \
    -n "C runner: output captured, pidfds and pipes in epoll" "$spawn_ceiling 1000 8 capture" \
    -n "promise-run -q -j 8" "$bin -q -j 8 trues.workflow" \
    -n "C runner, children started by 4 threads (promise-run's design)" "$spawn_ceiling 1000 8 capture-threads 4" >&2
hyperfine --warmup 3 --runs $((runs * 2)) --export-markdown xargs.md \
    -n "xargs -P 8 -I{} true" "xargs -P 8 -I{} true < numbers" >&2
cat spawn.md; tail -n 1 xargs.md
echo
echo "**ratio (promise-run / C runner): $(ratio "$(stat_of spawn.json 1 mean)" "$(stat_of spawn.json 0 mean)")x** by means, $(ratio "$(stat_of spawn.json 1 median)" "$(stat_of spawn.json 0 median)")x by medians (goal ≤ 1.05x)"
echo "promise-run / the C runner with 4 starting threads (the floor for its design): $(ratio "$(stat_of spawn.json 1 mean)" "$(stat_of spawn.json 2 mean)")x by means"

echo
echo "## 5. 50 up-to-date steps against make -s (30 runs each: 3 rounds of 10, taken in turn; env -i)"
fixed=(env -i "PATH=/usr/local/bin:/usr/bin:/bin" "HOME=$work")
(cd noop && "${fixed[@]}" "$bin" -q build.workflow >/dev/null && "${fixed[@]}" make -s >/dev/null)
# Runs of a few milliseconds move with the machine's state (the rows
# before leave it warm or busy): the commands take turns in three rounds,
# so that a drift reaches each of them alike; the medians are over all 30.
for round in 1 2 3; do
    hyperfine --warmup 3 --runs 10 -N --export-json "noop$round.json" \
        -n "promise-run -q build.workflow (50 up to date)" "env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=$work $bin -q noop/build.workflow" \
        -n "make -s -C noop (50 up to date)" "env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=$work make -s -C noop" \
        -n "promise-run --version" "env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=$work $bin --version" >&2
done
python3 - <<'PY'
import json, statistics
rounds = [json.load(open(f"noop{r}.json"))["results"] for r in (1, 2, 3)]
merged = []
for index, first in enumerate(rounds[0]):
    times = [t for results in rounds for t in results[index]["times"]]
    merged.append({"command": first["command"], "times": times, "mean": statistics.mean(times)})
json.dump({"results": merged}, open("noop.json", "w"))
print("| Command | Median [ms] | Mean [ms] | Min [ms] | Max [ms] |")
print("|:---|---:|---:|---:|---:|")
for row in merged:
    t = row["times"]
    print(f"| `{row['command']}` | {statistics.median(t) * 1000:.2f} | {statistics.mean(t) * 1000:.2f} | {min(t) * 1000:.2f} | {max(t) * 1000:.2f} |")
PY
echo
echo "medians: promise-run $(python3 -c "print(f'{$(stat_of noop.json 0 median) * 1000:.2f}')") ms, make $(python3 -c "print(f'{$(stat_of noop.json 1 median) * 1000:.2f}')") ms, --version $(python3 -c "print(f'{$(stat_of noop.json 2 median) * 1000:.2f}')") ms"
echo "**no-op ratio (promise-run / make, medians): $(ratio "$(stat_of noop.json 0 median)" "$(stat_of noop.json 1 median)")x** (goal ≤ 2x)"
echo "--version / make's no-op: $(ratio "$(stat_of noop.json 2 median)" "$(stat_of noop.json 1 median)")x (keep ≈ 1.2x)"
