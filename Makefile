# telecom-etl — the two commands of the quick start are `make demo` and `make test`.
# Every target installs what is missing and skips what is up to date (stamps in .make/).
SHELL := /bin/bash
.DEFAULT_GOAL := help
.SUFFIXES:

STAMPS  := .make
VENV    := .venv
PYTHON  ?= python3
CLI     := node dist/src/cli/bin.js
# Node's name for this machine's processor (x64, arm64, ...), known without a node installed.
ARCH    := $(patsubst x86_64,x64,$(patsubst aarch64,arm64,$(shell uname -m)))
node_bin = $(STAMPS)/node$(1)/node_modules/node-linux-$(ARCH)/bin/node
# Node 22.12 is the minimum (JSON.parse hands a reviver each number's source text: exact money;
# pg-boss, the distributed load's queue, needs 22.12). A machine whose node is older (or missing)
# gets the newest Node 22 from the npm registry (the `node` package's binary for this platform,
# `node-linux-<arch>`) in .make/node22/, first on PATH for every recipe.
SYSTEM_NODE_MAJOR := $(shell node -p "process.versions.node.split('.')[0]" 2>/dev/null || echo 0)
SYSTEM_NODE_OK    := $(shell node -p "const [a, b] = process.versions.node.split('.').map(Number); a > 22 || (a === 22 && b >= 12) ? 'yes' : 'no'" 2>/dev/null)
ifeq ($(SYSTEM_NODE_OK),yes)
RUNTIME_NODE :=
NODE_MAJOR   := $(SYSTEM_NODE_MAJOR)
else
RUNTIME_NODE := $(call node_bin,22)
NODE_MAJOR   := 22
export PATH  := $(abspath $(STAMPS)/node22/node_modules/node-linux-$(ARCH)/bin):$(PATH)
endif
# The majors the engines claim (22 and 24) that the build does not already run on: checked by other-nodes.
OTHER_NODES := $(filter-out $(NODE_MAJOR),22 24)
# Biome ships one binary package per platform and this registry serves only some of them, which
# `npm ci` refuses in a lock file; so the pinned linter is installed beside the project instead.
BIOME_VERSION := 2.6.8
BIOME   := $(STAMPS)/biome/node_modules/@biomejs/biome/bin/biome
SOURCES := $(shell find src bench sql packages/*/src -type f 2>/dev/null) packages/*/package.json packages/*/tsconfig.json \
           tsconfig.json tsconfig.base.json tsconfig.build.json
# The report's test opens the page in a real headless Chromium: Debian's `chromium` package.
CHROMIUM ?= /usr/bin/chromium

.PHONY: help setup demo check unit test test-load test-marts typecheck lint format docs db-types pack other-nodes chromium bench bench-gate clean python-lock seeds

help:
	@echo "make demo   set up, then load the sandbox into the embedded warehouse and build the marts"
	@echo "make check  typecheck, lint and the unit tests (no Postgres, no dbt): the tier to run while editing"
	@echo "make test   set up, then typecheck, lint, unit + integration tests (real Postgres, sandbox, dbt, headless Chromium), Node 22/24 checks"
	@echo "make test-load   the integration tests of the loader, sandbox, CLI and warehouse (real Postgres, sandbox): after a change to src/"
	@echo "make test-marts  the integration tests of the dbt models and marts (real Postgres, sandbox, dbt): after a change to dbt/"
	@echo "make bench  set up, then run the benchmarks and print their figures"
	@echo "make docs   write docs/reference/'s generated blocks (streams, commands' help, config keys, exit codes, etl tables) from the code"
	@echo "make db-types  write the etl tables' Kysely types from the migrated schema (npm run db:types)"
	@echo "make pack   build, then npm pack the product (telecom-etl-<version>.tgz: no sandbox, no benchmarks)"
	@echo "make bench-gate  the load gate make test ends with: backfill vs plain COPY, requests vs the floor (bench/load-gate-thresholds.json)"

$(STAMPS)/npm: package.json package-lock.json $(RUNTIME_NODE)
	@mkdir -p $(STAMPS)
	npm ci --no-audit --no-fund
	@touch $@

# dbt and every package it pulls in, pinned with their hashes (dbt/requirements.lock, like
# package-lock.json): pip refuses anything else. `make python-lock` regenerates the lock after
# dbt/requirements.txt (the direct pins) changed.
$(VENV)/.installed: dbt/requirements.lock
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check --require-hashes -r dbt/requirements.lock
	@touch $@

python-lock:
	rm -rf $(STAMPS)/pip-tools && $(PYTHON) -m venv $(STAMPS)/pip-tools
	$(STAMPS)/pip-tools/bin/pip install --quiet --disable-pip-version-check pip-tools
	cd dbt && ../$(STAMPS)/pip-tools/bin/pip-compile --quiet --generate-hashes --allow-unsafe --no-strip-extras \
	  --no-emit-index-url --no-emit-find-links --output-file requirements.lock requirements.txt

$(STAMPS)/build: $(STAMPS)/npm $(SOURCES)
	npm run build
	@chmod +x dist/src/cli/bin.js
	@touch $@

$(BIOME):
	@mkdir -p $(STAMPS)/biome
	npm install --prefix $(STAMPS)/biome --no-save --no-audit --no-fund --no-package-lock @biomejs/biome@$(BIOME_VERSION)

$(STAMPS)/node%/node_modules/node-linux-$(ARCH)/bin/node:
	@mkdir -p $(STAMPS)/node$*
	npm install --prefix $(STAMPS)/node$* --no-save --no-audit --no-fund --no-package-lock node-linux-$(ARCH)@$*
	@$@ --version

setup: $(STAMPS)/npm $(VENV)/.installed $(STAMPS)/build

# Installs Debian's chromium when it is missing (as root, with apt, no prompt: a fresh CI machine or
# container); otherwise says what to install. Checked on every `make test` (a file test, instant).
chromium:
	@if [ ! -x "$(CHROMIUM)" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing Debian's chromium (the report test opens the page in it)"; \
	    export DEBIAN_FRONTEND=noninteractive; \
	    apt-get update -qq </dev/null && \
	    apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core </dev/null; \
	  else \
	    echo "make test needs Chromium at $(CHROMIUM): install it (sudo apt-get install chromium) or set CHROMIUM=/path/to/chromium" >&2; \
	    exit 1; \
	  fi; \
	fi

demo: setup
	$(CLI) demo

# The fast tier, to run while editing: typecheck (incremental), lint and the unit tests; no
# Postgres, dbt, build or Chromium. `make -j3 check` runs the three side by side.
check: typecheck lint unit

unit: $(STAMPS)/npm
	npx vitest run --project unit --reporter=dot

typecheck: $(STAMPS)/npm
	npm run --silent typecheck

# Biome, then no function of the loader over 80 lines (scripts/check-function-length.mjs), then
# the layers: no import cycle, no upward import (.dependency-cruiser.cjs; known ones listed).
lint: $(BIOME) $(STAMPS)/npm
	$(BIOME) check .
	node scripts/check-function-length.mjs
	npm run --silent lint:layers

format: $(BIOME)
	$(BIOME) check --write .

# The product as a tarball (package.json "files"): npm install -g ./telecom-etl-<version>.tgz.
pack: $(STAMPS)/build
	npm pack

# The generated blocks of docs/reference/: the table of streams from the registry
# (test/unit/streams-readme-table.test.ts fails while it differs), every command's --help, every
# config key, the exit codes and the etl tables' columns (test/unit/docs-generated.test.ts fails
# while one differs): run after changing a stream, a command, a setting, an exit code or a migration.
docs: $(STAMPS)/build
	node scripts/stream-table.mjs
	node scripts/reference-docs.mjs

# The etl tables' Kysely types (src/warehouse/connection/etl-tables.generated.ts) from the migrated
# schema: a throwaway embedded Postgres, the migrations, kysely-codegen as .kysely-codegenrc.yaml
# says, biome (test/integration/etl-tables-generated.test.ts fails while the file differs): run
# after adding a migration or changing the config.
db-types: $(STAMPS)/build $(BIOME)
	node scripts/db-types.mjs

# The engines claim: the unit suite and a CLI smoke test under the majors (22, 24) the build does not run on.
other-nodes: $(foreach v,$(OTHER_NODES),$(call node_bin,$(v))) $(STAMPS)/build
	@set -e; for v in $(OTHER_NODES); do \
	  bin="$(STAMPS)/node$$v/node_modules/node-linux-$(ARCH)/bin/node"; \
	  echo "== unit suite under $$($$bin --version)"; \
	  $$bin node_modules/vitest/vitest.mjs run --project unit --reporter=dot; \
	  NODE_BIN="$$PWD/$$bin" bash scripts/cli-smoke.sh; \
	done

# The load gate runs after the suite, on a machine the suite no longer keeps busy; it exits 1 (and
# so fails `make test` and CI) when a figure is beyond its threshold in bench/load-gate-thresholds.json.
LOAD_GATE := node dist/bench/load-gate.js

test: setup typecheck lint other-nodes chromium
	CHROMIUM_PATH=$(CHROMIUM) bash scripts/run-tests.sh
	$(LOAD_GATE)

# The two integration tiers, each a part of what `make test` runs (README, "Tests and benchmarks"):
# the marts tier is the files named for the marts, dbt and the semantic layer, the load tier every
# other integration file (a few of its CLI tests run a nightly, whose dbt build is part of it).
MARTS_TESTS := marts- dbt- semantic-layer-
INTEGRATION := npx vitest run --project integration

test-load: setup chromium
	CHROMIUM_PATH=$(CHROMIUM) $(INTEGRATION) $(foreach p,$(MARTS_TESTS),--exclude 'test/integration/$(p)*')

test-marts: setup
	$(INTEGRATION) $(foreach p,$(MARTS_TESTS),test/integration/$(p))

bench: setup
	npm run --silent bench

bench-gate: setup
	$(LOAD_GATE)

# The reference seeds generated from public libraries (dbt/seeds/_seeds.yml names them): the latest
# `phonenumbers` from PyPI in a throwaway venv, the latest `mcc-mnc-list` from npm in a temporary
# folder; neither becomes a dependency of the project. Commit the regenerated CSVs after a review
# of their diff (the versions are printed and noted in _seeds.yml).
SEEDS_TMP ?= $(STAMPS)/seeds
seeds: $(RUNTIME_NODE)
	rm -rf $(SEEDS_TMP) && mkdir -p $(SEEDS_TMP)
	$(PYTHON) -m venv $(SEEDS_TMP)/venv
	$(SEEDS_TMP)/venv/bin/pip install --quiet --disable-pip-version-check phonenumbers
	$(SEEDS_TMP)/venv/bin/python scripts/seeds/numbering_plan.py
	npm install --prefix $(SEEDS_TMP)/npm --no-save --no-audit --no-fund --no-package-lock mcc-mnc-list
	node scripts/seeds/mcc-mnc.mjs $(SEEDS_TMP)/npm/node_modules/mcc-mnc-list
	rm -rf $(SEEDS_TMP)

clean:
	rm -rf dist packages/*/dist $(STAMPS)
