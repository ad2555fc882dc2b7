# The two commands of the README: `make up` and `make test`.
SHELL := /bin/bash
.DEFAULT_GOAL := help

STAMP := node_modules/.install-stamp

# The Node.js of every target: the machine's when it is 24 or newer, else the
# pinned runtime scripts/runtime.sh installs into .runtime/ (one line says so).
# It goes first on PATH, so npm and npx (#!/usr/bin/env node) run on it too.
NODE_GOALS := up build deps test bench held-client readme
ifneq ($(filter $(NODE_GOALS),$(MAKECMDGOALS)),)
RUNTIME_BIN := $(shell bash scripts/runtime.sh)
ifneq ($(.SHELLSTATUS),0)
$(error no usable Node.js runtime (see the line above))
endif
ifneq ($(RUNTIME_BIN),)
export PATH := $(RUNTIME_BIN):$(PATH)
endif
endif

# What the build compiles: a build is skipped while dist/ is newer than all of it.
BUILD_INPUTS := services shared proxy scripts bench tests tsconfig.json package.json package-lock.json

.PHONY: help up down ports stack-tools test build deps tools held-client bench clean readme

# make up DETACH=1 runs the stack in the background (output and PID in RUN_DIR); make down stops it.
RUN_DIR ?= .run
export RUN_DIR
ifeq ($(filter-out 0,$(DETACH)),)
UP_COMMAND := node dist/services/main.js
else
UP_COMMAND := bash scripts/up-detached.sh
endif

help:
	@echo "make up     install, build and run the stack: HAProxy on :8080 in front of Redis and 2 replicas of each"
	@echo "            service when haproxy and redis-server are installed, else chaos :8081, control :8082,"
	@echo "            bots :8083 (STACK=full installs them as root; STACK=embedded forces the direct ports)"
	@echo "            DETACH=1 runs it in the background (output in .run/make-up.log); make down stops it"
	@echo "make down   stop the stack make up DETACH=1 started, letting in-flight responses finish"
	@echo "make test   install what the tests need and run every test"
	@echo "make bench  run the benchmarks in bench/ (not part of make test)"

$(STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

deps: $(STAMP)

# Builds into a fresh directory and swaps it in, so a running stack's files are never removed mid-run;
# skipped when dist/ is newer than every input (its stamp is taken when the build starts).
build: deps
	@if bash scripts/build-fresh.sh dist/.build-stamp $(BUILD_INPUTS); then echo "dist/ is newer than every source: build skipped"; else \
	  rm -rf dist.next && mkdir dist.next && touch dist.next/.build-stamp && \
	  echo "npx tsc -p tsconfig.json --outDir dist.next" && npx tsc -p tsconfig.json --outDir dist.next && \
	  rm -rf dist.old && { [ ! -d dist ] || mv dist dist.old; } && mv dist.next dist && rm -rf dist.old; fi

# System tools the tests drive: curl checks the headline lies as a user sees them;
# redis-server backs the shared-store tests (they start their own on a free port);
# haproxy is the front door the stack tests start; chromium runs the browser tests;
# promtool (prometheus) checks the Prometheus configurations; cc (gcc) compiles the
# benchmark's C client in its test; nghttp (nghttp2-client, also h2load for bench/http2.ts) and
# httpx with h2 (python3-httpx, python3-h2) are HTTP/2 client cells; wget, golang-go,
# default-jdk-headless and Debian's python3-requests, python3-httpx, python3-aiohttp are clients of
# the exam runners (scripts/exam/).
tools:
	@bash scripts/ensure-tools.sh curl:curl redis-server:redis-server haproxy:haproxy chromium:chromium promtool:prometheus cc:gcc py.websockets:python3-websockets certutil:libnss3-tools openssl:openssl python3:python3 nghttp:nghttp2-client py.httpx:python3-httpx py.h2:python3-h2 wget:wget go:golang-go javac:default-jdk-headless py.requests:python3-requests py.aiohttp:python3-aiohttp

# Ports first (before anything is built), then the build, then the tools the
# full stack needs when STACK=full asks for it (installed as root, or named).
# TLS_DIR: where `make up` keeps the TLS chaos test root (docs/tls.md); TLS_DIR= (empty) turns TLS off.
# CONTROL_TLS_PORT: control's twins over TLS, control.tls.localhost (docs/http2.md); CONTROL_TLS_PORT= turns it off.
up: ports build stack-tools
	@# A descriptor per connection: the soft open-files limit up to the hard one, as the image does.
	ulimit -n "$$(ulimit -Hn)" 2>/dev/null || true; TLS_DIR="$${TLS_DIR-$(CURDIR)/.tls}" CONTROL_TLS_PORT="$${CONTROL_TLS_PORT-8445}" $(UP_COMMAND)

# Stops the stack make up DETACH=1 started, waiting for its drain (a clear line when none runs).
down:
	@bash scripts/down.sh

ports:
	@bash scripts/check-ports.sh

stack-tools:
	@if [ "$${STACK:-}" = full ]; then bash scripts/ensure-tools.sh haproxy:haproxy $$([ -n "$${REDIS_URL:-}" ] || echo redis-server:redis-server); fi

test: build tools
	@bash scripts/test.sh

# The held-responses client in C (bench/held-client.c), beside the compiled benchmarks:
# built after every build, which replaces dist/ (the flags are HELD_CLIENT_CFLAGS in bench/streams.ts).
held-client: build
	@bash scripts/ensure-tools.sh cc:gcc
	cc -O2 -Wall -Wextra -std=c11 -D_GNU_SOURCE -o dist/bench/held-client bench/held-client.c

# wrk drives the throughput benchmarks (pinned with taskset, from util-linux);
# redis-server backs the Redis row (the front-door part runs when haproxy is there);
# nginx (Debian's) is the TLS benchmark's third server, with the same certificate.
bench: held-client
	@bash scripts/ensure-tools.sh wrk:wrk taskset:util-linux redis-server:redis-server nginx:nginx
	@bash bench/run.sh

clean:
	rm -rf dist dist.next dist.old .tap node_modules .runtime

# Regenerates README.md's endpoint tables and docs/fault-injection.md's /mix fault table from the registries,
# and docs/exam.md's runner table from the exam runners' list.
readme: build
	node dist/scripts/readme-tables.js --write
	node dist/scripts/mix-faults-table.js --write
	node dist/scripts/exam/runner-table.js --write
