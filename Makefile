# benchforge — `make help` lists the targets.
GO      ?= go
BIN     := bin/benchforge
PKGS    := ./...
FUZZTIME ?= 30s

.DEFAULT_GOAL := help

# The full benchmark copies some tests need (testdata/README.md); a sibling
# ../shared/data is used when present, and the tests skip, saying so,
# when neither it nor an explicit BENCHFORGE_SHARED_DATA is there.
BENCHFORGE_SHARED_DATA ?= $(abspath $(wildcard ../shared/data))
export BENCHFORGE_SHARED_DATA

.PHONY: help
help: ## Show this help
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z_-]+:.*## / {printf "  %-10s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

.PHONY: build
build: ## Build bin/benchforge
	$(GO) build -o $(BIN) ./cmd/benchforge

.PHONY: demo
demo: build ## Run the demo: both jobs offline, report in out/demo/report.html (no API key)
	@echo "== benchforge metrics testdata/demo/* =="
	@$(BIN) metrics testdata/demo/Buggy.java testdata/demo/Fixed.java testdata/demo/buggy.py testdata/demo/fixed.py
	@echo
	@echo "== benchforge diff methods (Java) =="
	@$(BIN) diff methods --old testdata/demo/Buggy.java --new testdata/demo/Fixed.java
	@echo
	@echo "== benchforge diff methods (Python) =="
	@$(BIN) diff methods --old testdata/demo/buggy.py --new testdata/demo/fixed.py
	@echo
	@echo "== benchforge demo --out out/demo =="
	@$(BIN) demo --out out/demo

.PHONY: test
test: ## Run vet, format and module checks, then all tests
	$(GO) vet $(PKGS)
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) mod tidy -diff
	$(GO) test -count=1 $(PKGS)

.PHONY: bench
bench: ## Print each hot path's cost as a ratio to its floor (scripts/bench.sh)
	GO=$(GO) bash scripts/bench.sh

.PHONY: bench-all
bench-all: ## Run every benchmark (figures quoted in the issue notes)
	$(GO) test -run='^$$' -bench=. -benchtime=3x $(PKGS)

.PHONY: fuzz
fuzz: ## Run every fuzz target for FUZZTIME (default 30s) each
	@for pkg in $$($(GO) list $(PKGS)); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg 2>/dev/null | grep '^Fuzz'); do \
	    echo "== $$pkg $$f"; $(GO) test -run='^$$' -fuzz="^$$f$$" -fuzztime=$(FUZZTIME) $$pkg || exit 1; \
	  done; \
	done

.PHONY: fmt
fmt: ## Format the code and tidy go.mod
	gofmt -w $$(git ls-files '*.go')
	$(GO) mod tidy

.PHONY: clean
clean: ## Remove build outputs
	rm -rf bin
