# axt: `make` lists the targets; `make ready` runs exactly what CI runs.

CARGO ?= cargo

.PHONY: help
help: ## List the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-z][a-z-]*:.*## / {printf "  make %-12s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

# INSTA_REQUIRE_FULL_MATCH: a snapshot whose header names a moved harness or fixture fails
# too, so the golden tree never points at paths that are gone.
.PHONY: test
test: ## Run every test (unit, integration, golden snapshots, doc examples)
	INSTA_UPDATE=no INSTA_REQUIRE_FULL_MATCH=1 $(CARGO) test --locked

# Coverage: the test suite (unit, integration, golden; not the doc examples) instrumented by
# cargo-llvm-cov (`cargo install cargo-llvm-cov`, `rustup component add llvm-tools-preview`),
# line coverage per module, and the library's total on the last line; under 85% it fails.
.PHONY: coverage
coverage: ## Line coverage per module; ends with `line coverage: NN.N%` (the library's), fails under 85%
	mkdir -p target/llvm-cov
	INSTA_UPDATE=no INSTA_REQUIRE_FULL_MATCH=1 $(CARGO) llvm-cov --locked --json --summary-only \
	  --output-path target/llvm-cov/summary.json
	python3 scripts/coverage.py target/llvm-cov/summary.json 85

.PHONY: test-race
test-race: ## The concurrent tests under ThreadSanitizer (nightly + rust-src; skipped with a message without)
	bash scripts/test-race.sh

.PHONY: man
man: ## Write the manual pages (axt.1 and one per command) to target/man
	$(CARGO) run --locked --quiet -- man --out target/man

.PHONY: completions
completions: ## Write shell completions to target/completions (bash, zsh, fish, elvish, powershell)
	mkdir -p target/completions
	set -e; for shell in bash zsh fish elvish powershell; do \
	  $(CARGO) run --locked --quiet -- completions $$shell > target/completions/axt.$$shell; \
	done

.PHONY: validate-agentlog
validate-agentlog: ## Validate every AgentLog export snapshot against ../shared/agentlog's schema
	python3 scripts/validate-agentlog.py

.PHONY: validate-genai
validate-genai: ## Validate the OTLP snapshots' message attributes against the GenAI schemas (../shared/otel-genai)
	python3 scripts/validate-genai-messages.py

# The HTML viewer's page (src/export/html/page/): ESLint and playwright-core, pinned by
# scripts/web/package-lock.json, installed once into target/web; the browser tests in
# `make test` (tests/axt/view.rs) use them with Debian's Chromium, and say SKIPPED without.
.PHONY: web-tools
web-tools: ## Install ESLint and playwright-core into target/web (the page's lint and browser tests)
	bash scripts/web-tools.sh

.PHONY: lint-js
lint-js: ## ESLint over the HTML viewer's page and its browser test driver (installs target/web once)
	bash scripts/web-tools.sh lint

.PHONY: view-size
view-size: ## axt view's page for a 100 MB transcript and for 1,000 runs: size and load time in Chromium
	bash scripts/view-size.sh

.PHONY: lint
lint: ## cargo fmt --check, clippy and rustdoc with warnings denied
	$(CARGO) fmt --all --check
	$(CARGO) clippy --locked --all-targets -- -D warnings
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --locked --no-deps --quiet

.PHONY: fmt
fmt: ## Format the code
	$(CARGO) fmt --all

# Some fixtures are written by a generator (byte-exact framing, sizes, invalid UTF-8) and
# are committed too; re-running every generator must reproduce them exactly, with no file
# added or changed.
.PHONY: fixtures
fixtures: ## Re-run every corpus/**/make-*.py; fail unless corpus/ is unchanged (no new files either)
	set -e; for generator in $$(find corpus -name 'make-*.py' | sort); do \
	  echo "python3 $$generator"; python3 "$$generator" >/dev/null; \
	done
	git diff --exit-code --stat -- corpus/
	@untracked=$$(git ls-files --others --exclude-standard -- corpus/); \
	if [ -n "$$untracked" ]; then echo "untracked files in corpus/:"; echo "$$untracked"; exit 1; fi

.PHONY: golden
golden: ## Regenerate the golden snapshots; review them with git diff before committing
	INSTA_UPDATE=always INSTA_FORCE_PASS=1 $(CARGO) test --locked --test axt
	@git status --short golden/ 2>/dev/null || true

# Benchmarks: each is a `harness = false` target or a script printing its own report with
# ratios to a baseline measured in the same run, and writing the targets of issue 31 it
# measured to target/bench/<bench>.tsv; `bench` runs every bench-* target, then prints all
# the targets in one table (scripts/bench-table.py), each met or not met.
.PHONY: bench
bench: ## Run every benchmark, then the table of targets (AXT_BENCH_MB=20 for a quick run)
	rm -rf target/bench
	-$(MAKE) bench-normalize bench-read bench-recorder bench-batch bench-peers bench-stats-memory bench-python bench-export
	@echo; python3 scripts/bench-table.py

.PHONY: bench-table
bench-table: ## The table of targets the last benchmarks measured (target/bench/*.tsv)
	@python3 scripts/bench-table.py

.PHONY: bench-batch
bench-batch: ## normalize, import, stats, export over a directory: 2 cores vs 1 (taskset), same run
	python3 scripts/bench-cli.py batch

.PHONY: bench-peers
bench-peers: ## axt import vs the peers that read each store (ccusage, tokscale, agentsview: into target/peers) on a 198 MiB session and 100 of 2 MiB
	python3 scripts/bench-cli.py peers

.PHONY: bench-stats-memory
bench-stats-memory: ## axt stats peak RSS on 1,000, 16,000 and 32,000 transcripts (the growth from 16,000 to 32,000)
	python3 scripts/bench-cli.py stats-memory

.PHONY: bench-normalize
bench-normalize: ## Normalize per provider vs simd-json / serde_json parse (AXT_BENCH_PROVIDERS=claude,codex)
	AXT_BENCH_PROFILE='bench = dist (fat LTO, 1 codegen unit)' $(CARGO) bench --locked --bench normalize

.PHONY: bench-read
bench-read: ## Reading a transcript (Reader) vs decode alone, validate and the strict writer, same run
	AXT_BENCH_PROFILE='bench = dist (fat LTO, 1 codegen unit)' $(CARGO) bench --locked --bench read

.PHONY: bench-export
bench-export: ## Parquet export vs axt stats on a ~1 GB corpus: MB/s, peak memory, dataset size (AXT_BENCH_MB=1024)
	bash scripts/export-bench.sh

.PHONY: bench-proxy
bench-proxy: ## Latency axt proxy adds per chunk of a stream: median and p99, direct vs proxied, interleaved (release build)
	$(CARGO) build --locked --release
	python3 scripts/proxy-latency.py target/release/axt $(or $(PROXY_EVENTS),500) $(or $(PROXY_ROUNDS),10)

.PHONY: bench-recorder
bench-recorder: ## Recorder append vs a raw write(2) loop, per durability policy
	AXT_BENCH_PROFILE='bench = dist (fat LTO, 1 codegen unit)' $(CARGO) bench --locked --bench recorder

.PHONY: soak
soak: ## Crash soak: SIGKILL a recorder, an exec'd agent, axt exec and axt normalize --out; then a disk that fills and frees (SOAK_KILLS=1000)
	bash scripts/soak.sh

# The Python package (python/): its wheel is built once per run into target/python/wheels
# and installed into a fresh virtualenv, target/python/venv, as a user's `pip install` would.
PYTHON ?= python3
PY_VENV := target/python/venv

.PHONY: python-wheel
python-wheel: ## Build the Python wheel (python/) once and install it in a fresh virtualenv, target/python/venv
	rm -rf $(PY_VENV) target/python/wheels
	$(PYTHON) -m venv $(PY_VENV)
	$(PY_VENV)/bin/pip install -q pytest
	$(PY_VENV)/bin/pip wheel -q --no-deps -w target/python/wheels ./python
	$(PY_VENV)/bin/pip install -q target/python/wheels/axt-*.whl

.PHONY: python-test
# pytest runs from python/tests, so that `import axt` finds the installed wheel and never the
# source folder python/axt (which has no compiled module in a clean clone).
python-test: python-wheel ## Build the wheel into a fresh virtualenv and run the pytest suite (python/tests)
	cd python/tests && ../../$(PY_VENV)/bin/python -m pytest -q -c ../pyproject.toml --rootdir .. .

.PHONY: bench-python
bench-python: ## axt.normalize(...).jsonl() vs axt normalize on a 50 MB Claude stream, same run (after python-wheel)
	test -x $(PY_VENV)/bin/axt || $(MAKE) python-wheel
	AXT_BENCH_MB=50 AXT_BENCH_REPS=1 AXT_BENCH_PROVIDERS=claude AXT_BENCH_SAVE=target/bench-streams \
	  AXT_BENCH_TARGETS=target/bench-streams/ignored $(CARGO) bench --locked --profile release --bench normalize >/dev/null
	$(PY_VENV)/bin/python python/bench/normalize.py target/bench-streams/claude.jsonl

# Release artifacts built here, as the release workflow (.github/workflows/release.yml)
# builds them for every platform: the CLI for this machine's target as a tarball (binary,
# manual pages, shell completions, README) and the Python package as an abi3 wheel, both
# with the fat-LTO dist profile, into target/dist/ (beside cargo's own output for that
# profile). maturin comes from PyPI through pip's build isolation, as for `pip install`.
DIST := target/dist

.PHONY: dist
dist: ## Build the CLI tarball and the abi3 wheel for this machine into target/dist/ (dist profile: fat LTO)
	$(CARGO) build --locked --profile dist
	bash scripts/dist-tarball.sh $(DIST)
	MATURIN_PEP517_ARGS="--profile dist" $(PYTHON) -m pip wheel --no-deps -w $(DIST) ./python
	@ls -l $(DIST)/*.tar.gz $(DIST)/*.whl

.PHONY: fresh-clone-times
fresh-clone-times: ## Time the README's install, quick start and pip install from a fresh clone, cold target/ (COMMIT=HEAD)
	bash scripts/fresh-clone-times.sh $(or $(COMMIT),HEAD)

.PHONY: read-memory
read-memory: ## Max RSS of axt check and stats on a ~1 GB transcript (AXT_READ_MB=1024; limit 64 MiB)
	bash scripts/read-memory.sh

.PHONY: memory-bounds
memory-bounds: ## Max RSS of axt tree (512 MiB transcript), kept unknown records (600 MiB) and exec --redact of a 512 MiB line (limit 160 MiB each)
	bash scripts/memory-bounds.sh

.PHONY: import-memory
import-memory: ## Time and max RSS of axt import on a ~50 MB session with 4,000 sidechains (limit 100 MiB)
	bash scripts/import-memory.sh

# Fuzzing (cargo-fuzz, nightly): fuzz/ is its own workspace; see fuzz/README.md. The targets
# are built with overflow checks and debug assertions (-a), without AddressSanitizer (axt has
# no unsafe code; ASan made claude_chunked 15x slower) and without trace-compares (twice the
# speed and more coverage in the same time, with the dictionaries standing in): the figures
# are in fuzz/README.md. FUZZ_BUILD_FLAGS= (empty) builds cargo-fuzz's default, ASan and all.
# Every target in fuzz/fuzz_targets/, so a new one (a provider's <provider>_chunked) needs no
# edit here.
FUZZ_TARGETS := $(sort $(basename $(notdir $(wildcard fuzz/fuzz_targets/*.rs))))
FUZZ_SECONDS ?= 60
FUZZ_BUILD_FLAGS ?= --sanitizer none --debug-assertions --no-trace-compares

.PHONY: fuzz-build
fuzz-build: ## Build the fuzz targets (needs nightly and cargo-fuzz)
	cd fuzz && $(CARGO) +nightly fuzz build $(FUZZ_BUILD_FLAGS)

.PHONY: fuzz
fuzz: fuzz-build ## Run every fuzz target for FUZZ_SECONDS (60) each, one at a time, seeded from corpus/
	bash fuzz/init-corpus.sh
	bash fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)

.PHONY: fuzz-speed
fuzz-speed: fuzz-build ## Run each fuzz target 60 s from its seeds; print `TARGET exec/s N` per target
	bash fuzz/init-corpus.sh >/dev/null
	bash fuzz/run.sh --speed 60 $(FUZZ_TARGETS)

.PHONY: fuzz-dicts
fuzz-dicts: ## Rewrite the fuzz dictionaries (fuzz/dict/*.dict) from the corpus
	python3 fuzz/make-dicts.py

.PHONY: fuzz-repro
fuzz-repro: ## Replay saved fuzz crashes and the corpus through the fuzz checks, on stable
	$(CARGO) test --locked --test axt fuzz_regressions

.PHONY: ready
ready: ## Run what CI runs (.ci/run)
	bash .ci/run
