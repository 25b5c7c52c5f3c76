# git-uwf — build, test and install. Requires GNU make, Go and git.
#
#   make build     bin/git-uwf, bin/git-uwf-serve (the web viewer),
#                  bin/git-uwf-agent-supervisor and bin/git-uwf-llm (the
#                  model servers' HTTP client) (version from `git describe`)
#   make test      the test suite (the command the README names)
#   make test-agents  end-to-end tests with the real agent CLIs (npm, >1 GB cache)
#   make lint      gofmt, go vet, staticcheck (when installed)
#   make bench     Go benchmarks and the scale table (docs/performance.md)
#   make fuzz      every Fuzz target for $(FUZZTIME) each
#   make man       git-uwf.1
#   make install   the four programs and the man page under $(PREFIX)
#   make demo      build, then run `git-uwf demo`
#   make clean

GO       ?= go
PREFIX   ?= /usr/local
BINDIR   ?= $(PREFIX)/bin
MANDIR   ?= $(PREFIX)/share/man/man1
FUZZTIME ?= 10s

BIN       := bin/git-uwf
SERVE_BIN := bin/git-uwf-serve
SUPERVISOR_BIN := bin/git-uwf-agent-supervisor
LLM_BIN := bin/git-uwf-llm
MANPAGE := git-uwf.1
ifeq ($(origin VERSION),undefined)
VERSION := $(shell git describe --tags --always --dirty 2>/dev/null)
endif
LDFLAGS := $(if $(VERSION),-X github.com/git-uwf/git-uwf/cmd/git-uwf/root.version=$(VERSION))
# urfave_cli_no_docs leaves urfave/cli's markdown/man export (go-md2man,
# blackfriday) out of the binary: their package initialisation ran on every
# command. The man page has its own generator, cmd/git-uwf/genman.
GOTAGS  := urfave_cli_no_docs
# git-uwf calls no C. Without cgo the binary is static: no dynamic loader,
# no libc start-up, ~5 ms less per process on the bench machine (see
# docs/performance.md, start-up). DNS names resolve through Go's resolver.
CGO     := 0

.PHONY: all build install man test test-agents lint bench fuzz demo clean

all: build

# git uwf serve runs git-uwf-serve, a step that spawns an agent runs
# git-uwf-agent-supervisor, and the llm agent, LLM extraction and agent
# doctor run git-uwf-llm, from the directory git-uwf is in, so the four are
# built and installed side by side. The viewer is a program of its own so
# that every other command starts without initialising it, the supervisor
# so that it starts without git-uwf's runtime and packages, and git-uwf-llm
# so that git-uwf links no HTTP client or TLS (see docs/architecture.md,
# "Why a second binary").
build:
	CGO_ENABLED=$(CGO) $(GO) build -trimpath -tags '$(GOTAGS)' -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/git-uwf
	CGO_ENABLED=$(CGO) $(GO) build -trimpath -tags '$(GOTAGS)' -ldflags '$(LDFLAGS)' -o $(SERVE_BIN) ./cmd/git-uwf-serve
	CGO_ENABLED=$(CGO) $(GO) build -trimpath -o $(SUPERVISOR_BIN) ./cmd/git-uwf-agent-supervisor
	CGO_ENABLED=$(CGO) $(GO) build -trimpath -o $(LLM_BIN) ./cmd/git-uwf-llm

# Written by a generator of its own from the same command table the binary
# runs, so git-uwf does not carry it.
man:
	$(GO) run ./cmd/git-uwf/genman $(if $(VERSION),-version '$(VERSION)') -o $(MANPAGE).tmp
	mv $(MANPAGE).tmp $(MANPAGE)

# git turns `git uwf --help` into `man git-uwf`, so the page goes where man looks.
install: build man
	install -d '$(DESTDIR)$(BINDIR)' '$(DESTDIR)$(MANDIR)'
	install -m 0755 $(BIN) '$(DESTDIR)$(BINDIR)/git-uwf'
	install -m 0755 $(SERVE_BIN) '$(DESTDIR)$(BINDIR)/git-uwf-serve'
	install -m 0755 $(SUPERVISOR_BIN) '$(DESTDIR)$(BINDIR)/git-uwf-agent-supervisor'
	install -m 0755 $(LLM_BIN) '$(DESTDIR)$(BINDIR)/git-uwf-llm'
	install -m 0644 $(MANPAGE) '$(DESTDIR)$(MANDIR)/git-uwf.1'

test:
	$(GO) test -race -count=1 -timeout 30m ./...

# The real claude, codex, gemini, qwen and opencode CLIs, installed at pinned
# versions into $${XDG_CACHE_HOME:-~/.cache}/git-uwf/agent-clis by
# scripts/install-agent-clis.sh (reused when present), drive workflows
# against a local fake model server. Not part of `make test`. Prints one
# PASS/FAIL/SKIP line per CLI.
AGENT_TESTS_TIMEOUT ?= 20m
test-agents:
	@summary=$$(mktemp); \
	UWF_AGENT_SUMMARY="$$summary" $(GO) test -tags agents -count=1 -timeout $(AGENT_TESTS_TIMEOUT) ./test/agents/; rc=$$?; \
	echo "---- agent CLIs ----"; \
	if [ -s "$$summary" ]; then cat "$$summary"; else echo "agents: no summary (the test binary did not get that far)"; fi; \
	rm -f "$$summary"; exit $$rc

lint:
	@files=$$(find . -name '*.go' -not -path './.git/*' -not -path '*/testdata/*' -print0 | xargs -0 gofmt -l); \
	if [ -n "$$files" ]; then echo "gofmt -l reports unformatted files:"; echo "$$files"; exit 1; fi
	$(GO) vet ./...
	@sc=$$(command -v staticcheck || true); \
	if [ -z "$$sc" ] && [ -x "$$($(GO) env GOPATH)/bin/staticcheck" ]; then sc="$$($(GO) env GOPATH)/bin/staticcheck"; fi; \
	if [ -n "$$sc" ]; then echo "$$sc ./..."; "$$sc" ./...; else echo "staticcheck not installed: skipped"; fi

# Go benchmarks, then the scale driver (bench/): it builds fixtures in a temp
# directory and prints tables of medians with same-run baselines. -busy runs
# the start, step, list and read figures twice, idle and then beside one
# spinning process per core, and prints both side by side.
# BENCHFLAGS tunes the driver, e.g. BENCHFLAGS='-runs 9 -only list,step'.
# The 100,000-thread figure is not in the default set:
# BENCHFLAGS='-only scale100k' (see docs/performance.md).
BENCHFLAGS ?=
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...
	$(GO) run ./bench -busy $(BENCHFLAGS)

# Each Fuzz target runs on its own: go test -fuzz accepts one target at a time.
fuzz:
	@set -e; \
	for dir in $$(grep -rl --include='*_test.go' '^func Fuzz' . | xargs -r -n1 dirname | sort -u); do \
		list=$$($(GO) test -list '^Fuzz' "$$dir") || exit 1; \
		for target in $$(echo "$$list" | grep '^Fuzz'); do \
			echo "fuzz $$dir $$target ($(FUZZTIME))"; \
			$(GO) test -run '^$$' -fuzz "^$$target\$$" -fuzztime $(FUZZTIME) "$$dir"; \
		done; \
	done

demo:
	$(MAKE) build
	$(BIN) demo

clean:
	rm -rf bin $(MANPAGE) $(MANPAGE).tmp
