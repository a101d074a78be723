# Shared by the Steps benchmark scripts: installs what they need from
# Debian when it is missing, builds StepsBench in release mode, and starts
# nginx on a loopback port with a config of its own in a temporary folder.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
work="$(mktemp -d /tmp/steps-bench-XXXXXX)"

cleanup() {
    if [ -n "${nginx_pid:-}" ]; then kill "$nginx_pid" 2>/dev/null || true; wait "$nginx_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

need() {
    local missing=()
    for pair in "$@"; do
        local command="${pair%%:*}" package="${pair##*:}"
        command -v "$command" >/dev/null 2>&1 || missing+=("$package")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        echo "installing: ${missing[*]}" >&2
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2
    fi
}

# Builds StepsBench (a target of the root package: it drives the runner's
# `package` APIs), in release mode.
build_stepsbench() {
    swift build -c release --product StepsBench --package-path "$repo" >&2
    stepsbench="$(swift build -c release --package-path "$repo" --show-bin-path)/StepsBench"
}

# Builds the C spawn loop that is the ceiling for process steps
# (spawn-ceiling.c); sets $spawn_ceiling.
build_spawn_ceiling() {
    spawn_ceiling="$work/spawn-ceiling"
    cc -O2 -I "$repo/Sources/CSystemShims/include" -o "$spawn_ceiling" \
        "$here/spawn-ceiling.c" "$repo/Sources/CSystemShims/shims.c" -lpthread
}

# Starts nginx on 127.0.0.1 (a free port) serving $work/www; sets $port.
start_nginx() {
    mkdir -p "$work/www" "$work/nginx/logs" "$work/nginx/tmp"
    port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
    cat > "$work/nginx/nginx.conf" <<CONF
daemon off;
worker_processes 1;
user root;
pid $work/nginx/nginx.pid;
error_log $work/nginx/logs/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 1000000;
    keepalive_timeout 60s;
    client_body_temp_path $work/nginx/tmp;
    proxy_temp_path $work/nginx/tmp;
    fastcgi_temp_path $work/nginx/tmp;
    uwsgi_temp_path $work/nginx/tmp;
    scgi_temp_path $work/nginx/tmp;
    default_type application/octet-stream;
    server {
        listen 127.0.0.1:$port;
        root $work/www;
    }
}
CONF
    nginx -c "$work/nginx/nginx.conf" -p "$work/nginx" &
    nginx_pid=$!
    for _ in $(seq 100); do
        curl -s -o /dev/null "http://127.0.0.1:$port/" && return 0
        sleep 0.05
    done
    echo "nginx did not start" >&2
    cat "$work/nginx/logs/error.log" >&2
    exit 1
}

# Peak resident memory of a command: prints "EXIT WALL_SECONDS PEAK_MIB".
peak() {
    python3 - "$@" <<'PY'
import resource, subprocess, sys, time
start = time.monotonic()
code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode
wall = time.monotonic() - start
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(f"{code} {wall:.3f} {peak:.1f}")
PY
}

# The same, as a sentence: "exit 0, wall 2.400 s, peak 110.1 MiB".
say_peak() {
    local code wall mib
    read -r code wall mib < <(peak "$@")
    echo "exit $code, wall $wall s, peak $mib MiB"
}

# Samples the resident memory of PID every 10 s until it ends, into
# rss.txt (`SECONDS RSS-KiB PEAK-KiB` lines), then waits for it.
sample_rss() {
    local pid="$1" rss hwm
    : > rss.txt
    while kill -0 "$pid" 2>/dev/null; do
        rss="$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)"
        hwm="$(awk '/^VmHWM/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)"
        [ -n "$rss" ] && echo "$SECONDS $rss $hwm" >> rss.txt
        sleep 10
    done
    wait "$pid" || true
}

machine() {
    echo "$(date -u +%Y-%m-%d) on $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), $(uname -r), $(swift --version 2>&1 | head -1)"
}

# The host's steal: on a virtual machine, the time the hypervisor gave
# this machine's CPUs to others. `steal_mark` notes the counter;
# `steal_since MARK SECONDS` prints the share of the CPUs' time stolen
# since (as "3.1%"). A schedule's lateness follows it: a run with a tenth
# of its CPU time stolen starts iterations milliseconds late, whatever
# runs them (Benchmarks/README.md).
steal_mark() { awk '/^cpu / { print $9 }' /proc/stat; }
steal_since() {
    local now ticks
    now="$(steal_mark)"
    ticks="$(getconf CLK_TCK)"
    python3 -c "import sys; print(f'{(int(sys.argv[1]) - int(sys.argv[2])) / int(sys.argv[3]) / (float(sys.argv[4]) * int(sys.argv[5])) * 100:.1f}%')" \
        "$now" "$1" "$ticks" "$2" "$(nproc)"
}

# The runner benchmarks' shared workloads, written into the current folder:
# logs.workflow (10,000 `log` steps), trues.workflow (1,000 `sh "true"` in
# a parallel foreach), and, for the nginx of start_nginx, small.txt (1 KB)
# with urls.txt (10,000 URLs of it), fetch.workflow (a GET of each, 64
# at once), curl.config (the same URLs for `curl -K`), and urls100k.txt
# with fetch100k.workflow (100,000 GETs of small.txt, `expect status 200`).
write_runner_workloads() {
    mkdir -p www
    head -c 1024 /dev/urandom | base64 -w 0 | head -c 1024 > www/small.txt
    python3 - "${port:-}" <<'PY'
import sys
port = sys.argv[1]
with open("logs.workflow", "w") as f:
    f.write('workflow "logs"\n')
    for i in range(10000):
        f.write(f'log "line {i}"\n')
with open("trues.workflow", "w") as f:
    f.write('workflow "trues"\nforeach n in range(1, 1000) parallel {\n  sh "true"\n}\n')
if port:
    with open("urls.txt", "w") as f:
        for i in range(10000):
            f.write(f"http://127.0.0.1:{port}/small.txt?n={i}\n")
    with open("fetch.workflow", "w") as f:
        f.write('workflow "fetch"\nforeach u in lines("urls.txt") parallel limit 64 {\n  http GET "{{u}}"\n}\n')
    with open("urls.txt") as f, open("curl.config", "w") as c:
        for url in f.read().split():
            c.write(f'url = "{url}"\noutput = "/dev/null"\n')
    with open("urls100k.txt", "w") as f:
        for i in range(100000):
            f.write(f"http://127.0.0.1:{port}/small.txt?n={i}\n")
    with open("fetch100k.workflow", "w") as f:
        f.write('workflow "fetch"\nforeach url in lines("urls100k.txt") parallel limit 64 {\n'
                '  http GET "{{url}}" {\n    expect status 200\n  }\n}\n')
PY
}

# The HTTP runner benchmarks' start (load-bench.sh, metrics-bench.sh): the
# release binary in $bin, nginx started, the runner's workloads written in
# $work (the current folder), and $url a 1 KB file nginx serves.
start_http_runner_bench() {
    make -C "$repo" release >&2
    bin="$(swift build -c release --package-path "$repo" --show-bin-path)/promise-run"
    start_nginx
    cd "$work"
    write_runner_workloads
    url="http://127.0.0.1:$port/small.txt"
}

