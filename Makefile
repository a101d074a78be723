# promise-run: common tasks. `make test` is what CI runs (see .ci/run).
PREFIX ?= /usr/local
SWIFT ?= swift
SHELL := /bin/bash

.PHONY: build release test test-tsan install uninstall bench bench-http clean

build:
	$(SWIFT) build

# The release binary carries the Swift runtime (--static-swift-stdlib): it
# runs on a machine without a Swift toolchain and starts in about 2 ms.
# It needs no libcurl at build time: HTTPS loads libcurl.so.4 when a run
# first needs it. `make release STATIC=` builds the shared-library kind.
STATIC ?= --static-swift-stdlib

# With the Swift runtime linked in, C++'s runtime (which the Swift runtime
# uses) is linked in as well when gcc has its archive: the dynamic loader
# then binds about 1,700 fewer symbols at every start (--version 2.8 ms ->
# 2.3 ms, Benchmarks/README.md). Swift's static-stdlib-args.lnk says
# -lstdc++; a folder holding only the archive, searched first, makes that
# the static library. Without the archive the link is as before.
STDCXX_ARCHIVE := $(wildcard $(shell gcc -print-file-name=libstdc++.a 2>/dev/null))
STDCXX_FOLDER := $(CURDIR)/.build/static-libstdc++
LINK_STDCXX := $(if $(and $(STATIC),$(STDCXX_ARCHIVE)),-Xlinker -L$(STDCXX_FOLDER))

# `make release SCRATCH=.build-release` builds in a folder of its own (the
# binary the suite runs end to end and CI's instruction-count guard counts,
# apart from the debug build in .build).
SCRATCH ?=

release:
	$(if $(LINK_STDCXX),@mkdir -p $(STDCXX_FOLDER) && ln -sf $(STDCXX_ARCHIVE) $(STDCXX_FOLDER)/libstdc++.a)
	$(SWIFT) build -c release $(STATIC) $(LINK_STDCXX) $(if $(SCRATCH),--scratch-path $(SCRATCH)) --product promise-run

# The whole suite: unit, end-to-end (the built binary on real workflows
# against real processes, files and a local HTTP server). Warnings are
# errors. The project is its own first user: this builds the binary, then
# runs the target `test` of ci.workflow (the debug build with the tests, the
# release binary in .build-release, which the end-to-end tests run, then
# the suite through .ci/suite, which repeats the failing tests' lines last,
# where a CI log's tail shows them).
test:
	$(SWIFT) build --build-tests -Xswiftc -warnings-as-errors
	"$$($(SWIFT) build --show-bin-path)/promise-run" ci.workflow test

# The engine's concurrency stress tests under ThreadSanitizer.
test-tsan:
	$(SWIFT) test --sanitize=thread --scratch-path .build-tsan --filter Stress

install: release
	install -d "$(DESTDIR)$(PREFIX)/bin" "$(DESTDIR)$(PREFIX)/share/man/man1" \
		"$(DESTDIR)$(PREFIX)/share/bash-completion/completions" "$(DESTDIR)$(PREFIX)/share/zsh/site-functions" \
		"$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d"
	install -m 0755 "$$($(SWIFT) build -c release $(STATIC) --show-bin-path)/promise-run" "$(DESTDIR)$(PREFIX)/bin/promise-run"
	install -m 0644 docs/promise-run.1 "$(DESTDIR)$(PREFIX)/share/man/man1/promise-run.1"
	"$(DESTDIR)$(PREFIX)/bin/promise-run" completions bash > "$(DESTDIR)$(PREFIX)/share/bash-completion/completions/promise-run"
	"$(DESTDIR)$(PREFIX)/bin/promise-run" completions zsh > "$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_promise-run"
	"$(DESTDIR)$(PREFIX)/bin/promise-run" completions fish > "$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/promise-run.fish"

uninstall:
	rm -f "$(DESTDIR)$(PREFIX)/bin/promise-run" "$(DESTDIR)$(PREFIX)/share/man/man1/promise-run.1" \
		"$(DESTDIR)$(PREFIX)/share/bash-completion/completions/promise-run" "$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_promise-run" \
		"$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/promise-run.fish"

# Benchmarks: the engine against swift-nio (a package of its own, using the
# PromiseEngine product), and the language's parse + check + lower.
bench:
	cd Benchmarks && $(SWIFT) run -c release EngineBench
	$(SWIFT) run -c release LanguageBench

# The runner at the limit (issue 29): HTTP against curl --parallel and
# wrk, memory, processes against the C runner, a no-op run against make;
# every row side by side in one run, with the ratios.
bench-http:
	bash Benchmarks/runner/limit-bench.sh

clean:
	rm -rf .build .build-tsan Benchmarks/.build
