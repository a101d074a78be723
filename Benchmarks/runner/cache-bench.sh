#!/usr/bin/env bash
# The shared cache (issue 31, spec §17), against nginx with WebDAV on
# 127.0.0.1:
#
#   1. a build of 200 steps that each compile a C file: the first
#      machine's cold run (which stores), a second machine (a clean
#      checkout in another folder) restoring from the cache, and a local
#      up-to-date run; bytes sent to the store;
#   2. 1,000 generated files of 10 KB restored from nginx;
#   3. SHA-256 throughput: the key of a step whose source is a 1 GB file
#      (`--dry-run --cache`, which hashes and asks) against `sha256sum`.
#
#   Benchmarks/runner/cache-bench.sh [runs]
#
# Installs hyperfine, nginx and a C compiler from Debian when missing.
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../steps/common.sh"
runs="${1:-5}"
need hyperfine:hyperfine nginx:nginx curl:curl gcc:gcc

make -C "$repo" release >&2
bin="$(swift build -c release --package-path "$repo" --show-bin-path)/promise-run"
cd "$work"

# nginx with WebDAV, logging each request's method and length.
mkdir -p dav/www/cache dav/logs dav/tmp
chmod 755 "$work" dav dav/www   # nginx's worker (nobody) reads the store
chmod 777 dav/www/cache dav/tmp
dav_port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
cat > dav/nginx.conf <<CONF
daemon off;
worker_processes 1;
pid $work/dav/nginx.pid;
error_log $work/dav/logs/error.log warn;
events { worker_connections 1024; }
http {
    log_format sizes '\$request_method \$request_length \$bytes_sent';
    access_log $work/dav/logs/access.log sizes;
    client_body_temp_path $work/dav/tmp;
    keepalive_requests 1000000;
    server {
        listen 127.0.0.1:$dav_port;
        root $work/dav/www;
        client_max_body_size 0;
        location /cache/ { dav_methods PUT; create_full_put_path on; dav_access user:rw group:r all:r; }
    }
}
CONF
nginx -c "$work/dav/nginx.conf" -p "$work/dav" &
nginx_pid=$!
for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$dav_port/" && break; sleep 0.05; done
cache="http://127.0.0.1:$dav_port/cache"

echo "# Shared cache benchmarks, $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git -C "$repo" rev-parse --short HEAD), $(machine)"
echo "SHA-256: $( [ -e /usr/lib/x86_64-linux-gnu/libcrypto.so.3 ] && echo "libcrypto.so.3" || echo "the portable implementation")"

python3 - <<'PY'
import os
# 1. 200 C files, a step each.
os.makedirs("build200/src", exist_ok=True)
with open("build200/build.workflow", "w") as w:
    w.write('workflow "build200"\nforeach n in range(0, 199) parallel {\n'
            '  sh "mkdir -p obj && cc -O2 -c src/f{{n}}.c -o obj/f{{n}}.o" {\n'
            '    sources "src/f{{n}}.c"\n    generates "obj/f{{n}}.o"\n  }\n}\n')
for i in range(200):
    with open(f"build200/src/f{i}.c", "w") as f:
        for j in range(20):
            f.write(f"int f{i}_{j}(int x) {{ int s = 0; for (int k = 0; k < x; k++) s += k * {j + 1} ^ (s >> 3); return s + {i}; }}\n")
# 2. One step that makes 1,000 files of 10 KB.
os.makedirs("many/src", exist_ok=True)
with open("many/src/seed.txt", "w") as f:
    f.write("seed\n")
with open("many/build.workflow", "w") as w:
    w.write('workflow "many"\nsh "mkdir -p out && for i in $(seq 1000); do head -c 10240 /dev/urandom > out/f$i.bin; done" {\n'
            '  sources "src/seed.txt"\n  generates "out/*.bin"\n}\n')
# 3. A step whose source is a 1 GB file.
os.makedirs("big", exist_ok=True)
with open("big/build.workflow", "w") as w:
    w.write('workflow "big"\nsh "true" {\n  sources "data.bin"\n}\n')
PY
head -c 1073741824 /dev/urandom > big/data.bin

sent() { awk '$1 == "PUT" { n += $2; c++ } END { printf "%.2f MB in %d PUTs", n / 1e6, c }' dav/logs/access.log; }

echo
echo "## 1. 200 compile steps (-j 2)"
start=$(date +%s.%N)
"$bin" -q -j 2 --cache "$cache" build200/build.workflow
cold=$(python3 -c "import time; print(f'{time.time() - $start:.2f}')")
echo "first machine, cold (compiles and stores): $cold s; sent $(sent)"
cp -r build200 second && rm -rf second/obj second/.promise-run
hyperfine --runs "$runs" -N --export-markdown restore200.md \
    --prepare "rm -rf $work/second/obj $work/second/.promise-run" \
    -n "second machine: restore 200 steps from the cache" "$bin -q -j 2 --cache $cache $work/second/build.workflow" >&2
"$bin" -q -j 2 --cache "$cache" second/build.workflow
hyperfine --runs "$runs" -N --export-markdown local200.md \
    -n "second machine again: all up to date locally" "$bin -q -j 2 second/build.workflow" >&2
rm -rf second/obj second/.promise-run
hyperfine --runs 2 --export-markdown cold200.md --prepare "rm -rf $work/second/obj $work/second/.promise-run" \
    -n "the same build without a cache (compiles)" "$bin -q -j 2 $work/second/build.workflow" >&2
cat restore200.md; tail -n 1 local200.md; tail -n 1 cold200.md

echo
echo "## 2. 1,000 files of 10 KB restored from nginx"
: > dav/logs/access.log
"$bin" -q --cache "$cache" many/build.workflow
echo "stored: $(sent)"
cp -r many many2 && rm -rf many2/out many2/.promise-run
hyperfine --runs "$runs" -N --export-markdown many.md \
    --prepare "rm -rf $work/many2/out $work/many2/.promise-run" \
    -n "restore 1,000 files of 10 KB" "$bin -q --cache $cache $work/many2/build.workflow" >&2
cat many.md
[ "$(ls many2/out | wc -l)" = 1000 ] && cmp -s many/out/f500.bin many2/out/f500.bin && echo "(checked: 1,000 files, identical)"

echo
echo "## 3. SHA-256 of a 1 GB source, warm page cache"
cat big/data.bin > /dev/null
hyperfine --warmup 1 --runs "$runs" -N --export-markdown hash.md \
    -n "promise-run --dry-run --cache (the key: SHA-256 of 1 GB, one HEAD)" "$bin --dry-run --cache $cache big/build.workflow" \
    -n "sha256sum" "sha256sum big/data.bin" >&2
cat hash.md
