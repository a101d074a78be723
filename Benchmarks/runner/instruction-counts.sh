#!/usr/bin/env bash
# Instruction counts as a regression guard (issue 42), as NIO guards its
# allocation counts: four fixed workloads run under valgrind (cachegrind,
# no cache simulation: the total instructions executed, Ir, by the
# promise-run process and all its threads, not its children), each count
# compared with its limit in Benchmarks/instruction-limits.txt:
#
#   trues  1,000 `sh "true"` steps, a parallel foreach at -j 8
#   gets   2,000 GETs of /hello, 64 at once, against the tests' HTTP server
#          (Tests/Fixtures/http-test-server.py) on 127.0.0.1
#   check  `promise-run check` of a generated workflow of 10,000 steps
#          (LanguageBench's generator: groups, retries, http, foreach, if,
#          catch, ensure)
#   noop   50 up-to-date steps (`sources`/`generates`), the no-op shown
#          from its record (docs/language.md, "A no-op remembers itself")
#
#   Benchmarks/runner/instruction-counts.sh [--scratch-path DIR | --binary PATH KIND] [--runs N] [--update]
#
# A count more than 5% over its limit fails (exit 1); one more than 5%
# under it passes, with a word to lower the limit (--update). Without
# --binary it builds and measures the release binary (`make release`, in
# DIR with --scratch-path, as CI does beside its other builds);
# limits are kept per kind of build (KIND: a word, "release" for make's).
# Not the debug build: valgrind 3.19 (Debian 12's) dies in it on any run
# of a step (SIGSEGV inside valgrind, at an address in the shared
# libdispatch, the main thread in rt_sigsuspend under dispatch_main;
# Benchmarks/README.md).
# --runs N runs each workload N times: the median is compared, and the
# spread (max - min over the median) is printed. --update rewrites this
# kind's limits with the counts measured (the date and commit beside them).
#
# Counts move with the toolchain, glibc and valgrind too: after such a
# change, --update on the machine CI runs on. Valgrind runs a stripped copy
# of the binary (it cannot read the compressed debug sections the Swift
# toolchain's linker writes); for a profile of a workload, run
# `valgrind --tool=callgrind` on the same copy.
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../steps/common.sh"
need valgrind:valgrind python3:python3

limits="$repo/Benchmarks/instruction-limits.txt"
update=""
runs=1
kind=release
bin=""
scratch=""
while [ $# -gt 0 ]; do
    case "$1" in
        --update) update=1 ;;
        --runs) runs="$2"; shift ;;
        --binary) bin="$(realpath "$2")"; kind="$3"; shift 2 ;;
        --scratch-path) scratch="$(realpath -m "$2")"; shift ;;
        *) echo "usage: $0 [--scratch-path DIR | --binary PATH KIND] [--runs N] [--update]" >&2; exit 2 ;;
    esac
    shift
done
started=$SECONDS

if [ -z "$bin" ]; then
    make -C "$repo" release ${scratch:+SCRATCH="$scratch"} >&2
    bin="$(swift build -c release --package-path "$repo" ${scratch:+--scratch-path "$scratch"} --show-bin-path)/promise-run"
fi
cd "$work"
strip -o "$work/promise-run" "$bin"
valgrind="$(command -v valgrind)"
commit="$(git -C "$repo" rev-parse --short HEAD)$(git -C "$repo" diff --quiet HEAD -- Sources Package.swift || echo '+changes')"
echo "# instruction counts, $kind build of $commit, $(date -u '+%Y-%m-%d %H:%M UTC'), $($valgrind --version), $(machine)"

# The tests' HTTP server, on 127.0.0.1 (a free port); it exits with us.
python3 "$repo/Tests/Fixtures/http-test-server.py" "$work/port" &
server_pid=$!
trap 'kill "$server_pid" 2>/dev/null || true; cleanup' EXIT
for _ in $(seq 400); do [ -s "$work/port" ] && break; sleep 0.05; done
[ -s "$work/port" ] || { echo "the HTTP server (Tests/Fixtures/http-test-server.py) did not start in 20 s" >&2; exit 1; }
port="$(cat "$work/port")"

mkdir -p trues gets check noop/src noop/out
python3 - "$port" <<'PY'
import sys
port = sys.argv[1]
with open("trues/trues.workflow", "w") as f:
    f.write('workflow "trues"\nforeach n in range(1, 1000) parallel {\n  sh "true"\n}\n')
with open("gets/gets.workflow", "w") as f:
    f.write(f'workflow "gets"\nforeach n in range(1, 2000) parallel limit 64 {{\n  http GET "http://127.0.0.1:{port}/hello"\n}}\n')
# LanguageBench's generator (Benchmarks/Sources/LanguageBench/main.swift):
# 1,000 blocks of ten steps each.
with open("check/big.workflow", "w") as f:
    f.write('workflow "bench"\ntimeout 1h\nvar base = "http://127.0.0.1:8080"\nvar mode = "debug"\n\n')
    for i in range(1000):
        f.write(f'''g{i}: sequence {{
  timeout 5m
  s{i}a: sh "make part{i} MODE={{{{mode}}}}" {{
    timeout 30s
    retry 1 delay 100ms
    expect exit 0
  }}
  s{i}b: exec "tool" "--in" "{{{{s{i}a.stdout}}}}"
  parallel limit 4 {{
    h{i}a: http GET "{{{{base}}}}/items/{i}" {{
      expect status 200
      expect json ".items[0].id" == {i}
      capture tok = json ".token"
    }}
    h{i}b: http POST "{{{{base}}}}/items" {{
      needs h{i}a
      header "Authorization" "Bearer {{{{h{i}a.tok}}}}"
      json "{{\\"n\\": {i}}}"
    }}
    f{i}: file write "out/{i}.txt" "{{{{s{i}b.stdout | trim}}}}"
  }}
  foreach x in ["a", "b"] {{
    l{i}: log "{{{{x}}}} {{{{h{i}b.status}}}}"
  }}
  if "{{{{s{i}a.exit}}}}" == "0" {{
    log "ok {i}"
  }} else {{
    fail "bad {i}"
  }}
  catch {{
    log "{{{{error.message}}}}"
  }}
  ensure {{
    sleep 1ms
  }}
}}

''')
# limit-bench.sh's no-op: 50 steps copying a source to a generated file.
with open("noop/build.workflow", "w") as w:
    w.write('workflow "noop"\n')
    for i in range(50):
        with open(f"noop/src/f{i}.c", "w") as s:
            s.write(f"int f{i}(void) {{ return {i}; }}\n" * 40)
        w.write(f'sh "cp src/f{i}.c out/f{i}.o" {{\n  sources "src/f{i}.c"\n  generates "out/f{i}.o"\n}}\n')
PY

# One workload under cachegrind in FOLDER, a fixed environment; prints the
# instructions of the promise-run process (its threads included).
# SWIFT_DETERMINISTIC_HASHING: Swift seeds each process's hashing at
# random, so a Set's or Dictionary's probes (and so the count) would move
# from run to run.
count() {
    local folder="$1"; shift
    local out="$work/cachegrind.out"
    rm -f "$out"
    if ! (cd "$work/$folder" && env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$work" LANG=C.UTF-8 SWIFT_DETERMINISTIC_HASHING=1 \
        "$valgrind" --tool=cachegrind --cache-sim=no --trace-children=no --cachegrind-out-file="$out" \
        --log-file="$work/valgrind.log" "$work/promise-run" "$@" >"$work/run.log" 2>&1); then
        echo "promise-run $* failed in $folder under valgrind:" >&2
        tail -n 20 "$work/run.log" "$work/valgrind.log" >&2
        exit 1
    fi
    awk '/^summary:/ {print $2}' "$out"
}

# The no-op: the build, then the tree made a minute older (the racily-clean
# rule: a path changed within the second before a run leaves no record),
# then one full no-op that leaves the record the measured runs are shown
# from. Under valgrind as well: the record keeps the environment (valgrind
# adds LD_PRELOAD).
count noop -q build.workflow >/dev/null
find noop -type f -exec touch -d '-1 min' {} +
sleep 1.1
count noop -q build.workflow >/dev/null
[ -n "$(ls noop/.promise-run/noop 2>/dev/null)" ] || { echo "the no-op left no record in noop/.promise-run/noop" >&2; exit 1; }

: > counts.txt
# WORKLOAD ARGUMENTS...: a line "WORKLOAD INSTRUCTIONS SECONDS" in counts.txt.
measure() {
    local name="$1" began=$SECONDS instructions; shift
    instructions="$(count "$name" "$@")"
    echo "$name $instructions $(( SECONDS - began ))" >> counts.txt
}
for run in $(seq "$runs"); do
    measure trues -q -j 8 trues.workflow
    measure gets -q gets.workflow
    measure check check big.workflow
    measure noop -q build.workflow
done

python3 - "$limits" "$kind" "$commit" "$update" "$(( SECONDS - started ))" <<'PY'
import statistics, sys, time
limits_path, kind, commit, update, seconds = sys.argv[1:]
order = ["trues", "gets", "check", "noop"]
counts, seconds_of = {}, {}
for line in open("counts.txt"):
    name, value, taken = line.split()
    counts.setdefault(name, []).append(int(value))
    seconds_of.setdefault(name, []).append(int(taken))
medians = {name: int(statistics.median(values)) for name, values in counts.items()}
lines = open(limits_path).read().splitlines()
limits = {}
for line in lines:
    fields = line.split()
    if fields and not line.startswith("#") and fields[0] == kind:
        limits[fields[1]] = (int(fields[2]), " ".join(fields[3:]))

failed, lower = [], []
print(f"| workload | instructions | runs' spread | limit ({kind}) | change | seconds a run |")
print("|:---|---:|---:|---:|---:|---:|")
for name in order:
    values = counts[name]
    spread = (max(values) - min(values)) / medians[name] * 100
    spread_text = f"{spread:.2f}% ({len(values)} runs)" if len(values) > 1 else "1 run"
    if name in limits:
        limit, taken = limits[name]
        change = (medians[name] - limit) / limit * 100
        print(f"| {name} | {medians[name]:,} | {spread_text} | {limit:,} ({taken}) | {change:+.2f}% | {statistics.median(seconds_of[name]):.0f} |")
        if change > 5:
            failed.append(f"{name}: {medians[name]:,} instructions, {change:+.1f}% over its limit of {limit:,} ({taken})")
        elif change < -5:
            lower.append(f"{name}: {medians[name]:,} instructions, {change:+.1f}% under its limit of {limit:,}")
    else:
        print(f"| {name} | {medians[name]:,} | {spread_text} | none | — | {statistics.median(seconds_of[name]):.0f} |")
        if not update:
            failed.append(f"{name}: no {kind} limit in {limits_path}")
print(f"\nall {seconds} s (the builds and preparation included); min-max instructions: "
      + ", ".join(f"{n} {min(counts[n]):,}-{max(counts[n]):,}" for n in order))

if update:
    stamp = time.strftime("%Y-%m-%d", time.gmtime())
    kept = [l for l in lines if l.startswith("#") or not l.split() or l.split()[0] != kind]
    kept += [f"{kind} {name} {medians[name]} {stamp} {commit}" for name in order]
    open(limits_path, "w").write("\n".join(kept) + "\n")
    print(f"wrote the {kind} limits to {limits_path}")
    sys.exit(0)
for message in lower:
    print(f"note: {message}; lower the limit (Benchmarks/runner/instruction-counts.sh --update)")
if failed:
    for message in failed:
        print(f"FAIL: {message}")
    print("A change that costs more than 5% more instructions in a workload fails this guard. If the cost is"
          " meant, say why in the commit and raise the limit with --update.")
    sys.exit(1)
print(f"every count within 5% of its {kind} limit")
PY
