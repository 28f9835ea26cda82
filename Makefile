# agx: `make` lists the targets; `make ready` runs exactly what CI runs.

CARGO ?= cargo

.PHONY: help
help: ## List the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-z][a-z-]*:.*## / {printf "  make %-8s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

.PHONY: test
test: ## Run every test (unit, integration, golden snapshots, doc examples)
	INSTA_UPDATE=no $(CARGO) test --locked

.PHONY: lint
lint: ## cargo fmt --check and clippy with warnings denied
	$(CARGO) fmt --all --check
	$(CARGO) clippy --locked --all-targets -- -D warnings

.PHONY: fmt
fmt: ## Format the code
	$(CARGO) fmt --all

# Each bench is a `harness = false` target printing its own report; add new ones to BENCHES.
BENCHES ?= recorder

.PHONY: bench
bench: ## Run the benchmarks (release build; figures on stdout)
	@for bench in $(BENCHES); do $(CARGO) bench --locked --bench $$bench || exit 1; done

.PHONY: golden
golden: ## Regenerate the golden snapshots; review them with git diff before committing
	INSTA_UPDATE=always INSTA_FORCE_PASS=1 $(CARGO) test --locked --test agx
	@git status --short golden/ 2>/dev/null || true

.PHONY: ready
ready: ## Run what CI runs (.ci/run)
	bash .ci/run
