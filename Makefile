# The build guard is measured with (BENCHMARKS.md): static (no cgo, so no
# dynamic loader at each start: about 1.5 ms a call for guard-pg, whose
# driver brings in the net package), without urfave/cli's man-page
# generator (its set-up costs every start), and with the VCS revision in
# the build info, which guard --version shows.
GOBIN ?= $(HOME)/.local/bin
GOFLAGS_GUARD = -trimpath -buildvcs=auto -tags urfave_cli_no_docs
export CGO_ENABLED = 0

.PHONY: install install-pg build test bench release

# warn_path warns, with the line to add, when $(GOBIN) is not on PATH: the
# next command the README gives, guard install, would be "command not
# found" (newcomer-and-mission #12).
define warn_path
	@case ":$$PATH:" in *":$(GOBIN):"*|*":$(GOBIN)/:"*) ;; *) \
	  echo "warning: $(GOBIN) is not on your PATH, so your shell will not find guard there" >&2; \
	  echo "hint: add this line to ~/.profile (or ~/.bashrc, ~/.zshrc), then open a new shell:" >&2; \
	  echo "  export PATH=\"$(GOBIN):\$$PATH\"" >&2; \
	  echo "hint: in fish: fish_add_path $(GOBIN)" >&2;; esac
endef

# guard runs hooks (guard run) and hands every other command to guard-cli,
# installed beside it, so that no hook call pays for the start-up of the
# command-line parser, the YAML library and the shell parser. guard-pg is
# guard-cli with the PostgreSQL driver, which guard hands database states
# to; guard-web is the dashboard (guard report --format html, guard serve),
# which guard-cli and guard-pg hand over to: kept apart so that no other
# call pays for a web server's packages.
install:
	GOBIN=$(GOBIN) go install $(GOFLAGS_GUARD) ./cmd/guard ./cmd/guard-cli ./cmd/guard-pg ./cmd/guard-web
	@echo "installed guard, guard-cli, guard-pg and guard-web in $(GOBIN)"
	$(warn_path)

# For hosts whose state is in PostgreSQL: guard-pg installed as guard, one
# binary with the driver and every command, so that no call is handed over
# (about 3 ms less a call; more for a call on a file, which then pays for
# the driver's and guard-cli's start-up).
install-pg:
	mkdir -p $(GOBIN)
	go build $(GOFLAGS_GUARD) -o $(GOBIN)/guard ./cmd/guard-pg
	go build $(GOFLAGS_GUARD) -o $(GOBIN)/guard-web ./cmd/guard-web
	@echo "installed guard, with the PostgreSQL driver, and guard-web in $(GOBIN)"
	$(warn_path)

build:
	go build $(GOFLAGS_GUARD) -o guard ./cmd/guard
	go build $(GOFLAGS_GUARD) -o guard-cli ./cmd/guard-cli
	go build $(GOFLAGS_GUARD) -o guard-pg ./cmd/guard-pg
	go build $(GOFLAGS_GUARD) -o guard-web ./cmd/guard-web

test:
	go test ./...

bench:
	bench/run.sh

# Release archives: guard, guard-cli, guard-pg and guard-web built with the flags
# above, and VERSION stamped (guard --version says it), for each of TARGETS, with the README and the example config, as
# $(DIST)/guard_VERSION_GOOS_GOARCH.tar.gz (.zip for Windows, made with
# python3's zipfile, as no zip(1) may be installed), and their
# SHA256SUMS. Cross-compiled here (CGO_ENABLED=0 needs no C toolchain);
# docs/platforms.md says what each platform keeps and how it is tested.
#   make release                     all five targets, VERSION from git
#   make release TARGETS=darwin/arm64 VERSION=v1.2.0
TARGETS ?= linux/amd64 linux/arm64 darwin/arm64 darwin/amd64 windows/amd64
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
DIST ?= dist

release:
	rm -rf $(DIST) && mkdir -p $(DIST)
	set -e; for t in $(TARGETS); do \
		os=$${t%/*}; arch=$${t#*/}; ext=; [ $$os = windows ] && ext=.exe; \
		name=guard_$(VERSION)_$${os}_$${arch}; dir=$(DIST)/$$name; mkdir -p $$dir; \
		for b in guard guard-cli guard-pg guard-web; do \
			GOOS=$$os GOARCH=$$arch go build $(GOFLAGS_GUARD) -ldflags "-X guard/cmd/guard/cli.version=$(VERSION)" -o $$dir/$$b$$ext ./cmd/$$b; \
		done; \
		cp README.md guardrails.example.yaml $$dir/; \
		if [ $$os = windows ]; then \
			python3 -c 'import shutil,sys; shutil.make_archive(sys.argv[1], "zip", sys.argv[2], sys.argv[3])' \
				$(DIST)/$$name $(DIST) $$name; \
		else \
			tar -C $(DIST) -czf $(DIST)/$$name.tar.gz $$name; \
		fi; \
		rm -rf $$dir; \
	done
	cd $(DIST) && sha256sum guard_* > SHA256SUMS
	@echo "release archives in $(DIST):" && ls $(DIST)
