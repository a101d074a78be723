#!/usr/bin/env bash
# Real builds (issue 41, spec §19), side by side in one run: a generated C
# project of 64 sources and 16 headers compiled with gcc -MMD into one
# object each, a static library and a program, written four ways (a
# Makefile with -include of the depfiles, a build.ninja with deps = gcc, a
# Taskfile, and a workflow with foreach, depfile and generates). Measures:
#   1. the no-op (everything up to date);
#   2. the no-op after one header changed (the compiles that include it);
#   3. the cold build with two jobs (-j2), from a clean tree;
#   4. the no-op of one step over a 2,000-file, 200 MB tree (sources "tree"
#      against a make rule and a ninja edge that list the 2,000 files).
#
#   Benchmarks/runner/cbuild-bench.sh
#
# Installs hyperfine and make from Debian, ninja and go-task from PyPI
# wheels, when missing. Run it alone: a build beside it measures the build.
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../steps/common.sh"
need hyperfine:hyperfine make:make gcc:gcc
command -v ninja >/dev/null 2>&1 || python3 -m pip install -q ninja >&2
command -v task >/dev/null 2>&1 || python3 -m pip install -q go-task-bin >&2
# The binaries themselves, not pyenv's shell shims (a shim costs more than
# a no-op): put their folder first.
for tool in ninja task; do
    real="$(command -v pyenv >/dev/null 2>&1 && pyenv which "$tool" 2>/dev/null || command -v "$tool")"
    PATH="$(dirname "$real"):$PATH"
done
export PATH

make -C "$repo" release >&2
bin="$(swift build -c release --package-path "$repo" --show-bin-path)/promise-run"
cd "$work"
echo "# C build benchmark, $(machine), $(date -u "+%H:%M UTC"), $(git -C "$repo" rev-parse --short HEAD)"
echo "make $(make --version | head -1 | awk '{print $3}'), ninja $(ninja --version), task $(task --version 2>&1 | awk '{print $NF}'), gcc $(gcc -dumpversion)"

# The project: src/fNN.c includes three of the 16 headers.
mkdir -p project/src project/include
python3 - <<'PY'
for h in range(16):
    with open(f"project/include/h{h:02}.h", "w") as f:
        f.write(f"#pragma once\nstatic inline int h{h:02}(int x) {{ return x * {h + 1} + {h}; }}\n")
for i in range(64):
    with open(f"project/src/f{i:02}.c", "w") as f:
        for h in (i % 16, (i * 3 + 1) % 16, (i * 7 + 5) % 16):
            f.write(f'#include "h{h:02}.h"\n')
        f.write(f"int f{i:02}(int x) {{ int s = 0; for (int k = 0; k < x; k++) s += h{i % 16:02}(k) ^ {i}; return s; }}\n")
        if i == 0:
            f.write("int main(void) { return f00(3) < 0; }\n")
PY
cat > project/Makefile <<'MK'
SRC := $(wildcard src/*.c)
OBJ := $(SRC:src/%.c=obj/%.o)
CFLAGS := -O2 -Iinclude
bin/app: obj/libdemo.a
	@mkdir -p bin
	gcc -o $@ obj/f00.o obj/libdemo.a
obj/libdemo.a: $(OBJ)
	ar rcs $@ $^
obj/%.o: src/%.c
	@mkdir -p obj
	gcc $(CFLAGS) -MMD -MF obj/$*.d -c -o $@ $<
-include $(OBJ:.o=.d)
MK
python3 - <<'PY'
objs = " ".join(f"obj/f{i:02}.o" for i in range(64))
with open("project/build.ninja", "w") as f:
    f.write("rule cc\n  command = gcc -O2 -Iinclude -MMD -MF $out.d -c -o $out $in\n  deps = gcc\n  depfile = $out.d\n")
    f.write("rule ar\n  command = rm -f $out && ar rcs $out $in\n")
    f.write("rule link\n  command = gcc -o $out $in\n")
    for i in range(64):
        f.write(f"build obj/f{i:02}.o: cc src/f{i:02}.c\n")
    f.write(f"build obj/libdemo.a: ar {objs}\n")
    f.write("build bin/app: link obj/f00.o obj/libdemo.a\n")
PY
cat > project/Taskfile.yml <<'TF'
version: '3'
tasks:
  objects:
    sources: ['src/*.c', 'include/*.h']
    generates: ['obj/*.o']
    cmds:
      - mkdir -p obj
      - for f in src/*.c; do n=$(basename $f .c); gcc -O2 -Iinclude -c -o obj/$n.o $f; done
  default:
    deps: [objects]
    sources: ['obj/*.o']
    generates: ['bin/app']
    cmds:
      - ar rcs obj/libdemo.a obj/*.o
      - mkdir -p bin && gcc -o bin/app obj/f00.o obj/libdemo.a
TF
cat > project/build.workflow <<'WF'
foreach f in glob("src/*.c") parallel {
  cc: sh "mkdir -p obj && gcc -O2 -Iinclude -MMD -MF obj/{{f|stem}}.d -c -o obj/{{f|stem}}.o {{f}}" {
    sources "{{f}}"
    generates "obj/{{f|stem}}.o"
    depfile "obj/{{f|stem}}.d"
  }
}
lib: sh "rm -f obj/libdemo.a && ar rcs obj/libdemo.a obj/f*.o" {
  sources "obj/f*.o"
  generates "obj/libdemo.a"
}
link: sh "mkdir -p bin && gcc -o bin/app obj/f00.o obj/libdemo.a" {
  sources "obj/f00.o" "obj/libdemo.a"
  generates "bin/app"
}
WF
for tool in make ninja task promise-run; do cp -r project "$tool"; done
# Each tree built once, then made older than now (as a no-op minutes
# after a build finds it: the stat cache trusts files older than the
# second it hashed them), then once more so every tool has its state.
make -s -C make -j2 >/dev/null
ninja -C ninja -j2 >/dev/null
(cd task && task -s >/dev/null 2>&1)
(cd promise-run && "$bin" -q -j 2 build.workflow >/dev/null)
find make ninja task promise-run -type f -exec touch -d '-1 min' {} +
make -s -C make >/dev/null; ninja -C ninja >/dev/null; (cd task && task -s >/dev/null 2>&1)
(cd promise-run && "$bin" -q build.workflow >/dev/null)
# The touch changed every file's change time (no call sets it back): a
# second later they are as a build minutes ago left them, and the no-op
# leaves its record (docs/language.md: the racily-clean rule).
sleep 1.1

echo
echo "## 1. no-op: 64 objects with depfiles, a library, a program; all up to date"
hyperfine --warmup 5 --runs 40 -N --export-markdown noop.md \
    -n make "make -s -C make" -n ninja "ninja -C ninja" -n go-task "task -d task -s" \
    -n promise-run "$bin -q promise-run/build.workflow" >&2
cat noop.md

echo
echo "## 2. one header changed (include/h03.h: the compiles that include it, the library, the link)"
hyperfine --warmup 1 --runs 10 -N --export-markdown header.md \
    --prepare "sh -c 'for t in make ninja task promise-run; do echo \"/* \$RANDOM */\" >> \$t/include/h03.h; done'" \
    -n make "make -s -C make -j2" -n ninja "ninja -C ninja -j2" -n promise-run "$bin -q -j 2 promise-run/build.workflow" >&2
cat header.md

echo
echo "## 3. cold build with two jobs (the trees cleaned before each run)"
hyperfine --warmup 1 --runs 5 -N --export-markdown cold.md \
    --prepare "rm -rf make/obj make/bin ninja/obj ninja/bin ninja/.ninja_log ninja/.ninja_deps promise-run/obj promise-run/bin promise-run/.promise-run" \
    -n "make -j2" "make -s -C make -j2" -n "ninja -j2" "ninja -C ninja -j2" -n "promise-run -j 2" "$bin -q -j 2 promise-run/build.workflow" >&2
cat cold.md

echo
echo "## 4. no-op over a 2,000-file, 200 MB tree (one step whose sources are the tree)"
mkdir -p big
python3 - <<'PY'
import os
for d in range(20):
    os.makedirs(f"big/tree/d{d:02}", exist_ok=True)
    for i in range(100):
        with open(f"big/tree/d{d:02}/f{i:03}.dat", "wb") as f:
            f.write(os.urandom(100 * 1024))
files = " ".join(f"tree/d{d:02}/f{i:03}.dat" for d in range(20) for i in range(100))
with open("big/Makefile", "w") as f:
    f.write("FILES := $(wildcard tree/*/*.dat)\nstamp: $(FILES)\n\ttouch stamp\n")
with open("big/build.ninja", "w") as f:
    f.write("rule stamp\n  command = touch $out\n")
    f.write(f"build stamp: stamp {files}\n")
with open("big/build.workflow", "w") as f:
    f.write('stamp: sh "touch stamp.p" {\n  sources "tree"\n  generates "stamp.p"\n}\n')
PY
make -s -C big >/dev/null; ninja -C big >/dev/null; (cd big && "$bin" -q build.workflow >/dev/null)
find big -type f -exec touch -d '-1 min' {} +
make -s -C big >/dev/null; ninja -C big >/dev/null; (cd big && "$bin" -q build.workflow >/dev/null)
sleep 1.1
hyperfine --warmup 3 --runs 30 -N --export-markdown big.md \
    -n make "make -s -C big" -n ninja "ninja -C big" -n promise-run "$bin -q big/build.workflow" >&2
cat big.md
