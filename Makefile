# Locker: `make run` builds the default vault, `make test` runs every test.
# Both install the Debian packages they need when they are missing (as root, or through sudo).

SWIFT ?= swift
DEBIAN_PACKAGES := libcmark-gfm-dev libcmark-gfm-extensions-dev pkg-config git
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: run test deps build check bench clean record

run: build
	.build/debug/locker build content --out build

check: build
	.build/debug/locker check content

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test

build: deps
	$(SWIFT) build

# Re-records every golden file from the current output; review the diff before committing.
record: deps
	LOCKER_RECORD=1 $(SWIFT) test || true

bench: deps
	$(SWIFT) build -c release
	python3 Benchmarks/run.py

deps:
	@missing=""; \
	for package in $(DEBIAN_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$package 2>/dev/null | grep -q "ok installed" || missing="$$missing $$package"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

clean:
	rm -rf .build build
