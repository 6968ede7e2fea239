# Developer entry points; every target that needs PostgreSQL goes through
# scripts/test, which starts (and removes) a throwaway server.

export PATH := /usr/local/go/bin:$(PATH)
export GOTOOLCHAIN ?= local

.PHONY: test lint bench perf build

## test: go vet + every test with -race, against a throwaway PostgreSQL
test:
	scripts/test

## lint: gofmt must list no file; go vet must be clean
lint:
	@unformatted="$$(gofmt -l .)"; \
	if [ -n "$$unformatted" ]; then echo "gofmt -l: these files need gofmt -w:"; echo "$$unformatted"; exit 1; fi
	go vet ./...

## bench: every benchmark (no race detector, no tests), against a throwaway PostgreSQL
bench:
	SLOTD_VET=0 scripts/test -race=false -run '^$$' -bench . -benchmem ./...

## perf: the figures of docs/performance.md (slotd rush against a durable PostgreSQL and SQLite)
perf:
	scripts/perf

## build: a static binary in bin/slotd
build:
	CGO_ENABLED=0 go build -o bin/slotd ./cmd/slotd
