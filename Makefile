# dwprobe: perf probe, from DWARF, in Go.
# `make demo` and `make test` work on a fresh machine with Go and apt; every
# dependency is installed here, idempotently.

SHELL     := /bin/bash
GO        ?= go
BIN       := bin/dwprobe
CORPUS    ?= $(or $(DWPROBE_CORPUS),$(HOME)/.cache/dwprobe-corpus)
VMLINUX   := $(CORPUS)/amd64/vmlinux
SRC       := $(CORPUS)/linux
MODDIR     = $(firstword $(wildcard $(CORPUS)/amd64/dbg/usr/lib/debug/lib/modules/*/kernel))
STATICCHECK_VERSION := v0.8.2
GOBIN     := $(shell $(GO) env GOPATH)/bin
SUDO      := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
APT_PKGS  := clang linux-perf binutils time qemu-system-x86 qemu-system-arm qemu-system-ppc qemu-system-misc opensbi strace util-linux zsh libc6-dbg kmod systemtap-sdt-dev python3.11 g++ dwz debuginfod elfutils lz4 llvm libtraceevent1 libxml2-utils gcc-powerpc64le-linux-gnu gcc-s390x-linux-gnu gcc-riscv64-linux-gnu
PREFIX    ?= /usr/local
DESTDIR   ?=

export DWPROBE_CORPUS := $(CORPUS)

# GENS are the Debian kernel generations after 6.1 in the corpus, each a
# row of testdata/scripts/corpusgen.sh's table and a corpus-GEN target.
GENS      := 6.12 7.3

.PHONY: all build docs install deps langtools corpus $(GENS:%=corpus-%) corpus-gens fixtures test unit race fuzz lint conformance conformance-scan golden bench bench-base demo clean

all: build

# build makes one static binary (CGO_ENABLED=0), to copy onto the machine
# being debugged; the guest tests build theirs with the same script.
build:
	bash testdata/scripts/build.sh $(BIN)

# docs generates the man page and the shell completions from the flag
# definitions (dwprobe --man, --completion).
docs: build
	$(BIN) --man > bin/dwprobe.1
	$(BIN) --completion bash > bin/dwprobe.bash
	$(BIN) --completion zsh > bin/_dwprobe

install: docs
	install -D -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/dwprobe
	install -D -m 644 bin/dwprobe.1 $(DESTDIR)$(PREFIX)/share/man/man1/dwprobe.1
	install -D -m 644 bin/dwprobe.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/dwprobe
	install -D -m 644 bin/_dwprobe $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_dwprobe

# deps installs the packages the tests use (clang for fixtures, perf as the
# reference, qemu to boot the corpus kernels, zsh to check the completion,
# glibc's debuginfo for -F on a library, the cross compilers of the
# ppc64el, s390x and riscv64 fixtures) and staticcheck; nothing is
# installed twice.
deps:
	@missing=""; for p in $(APT_PKGS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		$(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing >/dev/null; \
	fi
	@[ -x $(GOBIN)/staticcheck ] && $(GOBIN)/staticcheck -version | grep -q $(STATICCHECK_VERSION:v%=%) || \
		$(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

# langtools checks the compilers of the C++, Rust and Go fixtures (issue
# 15; testdata/scripts/langfixtures.sh) and names any that is missing.
# rustc is not a Debian package recent enough here: it comes from rustup.
RUSTC ?= $(or $(shell command -v rustc),$(HOME)/.cargo/bin/rustc)
langtools:
	@missing=""; \
	for t in g++ clang++ $(GO); do command -v $$t >/dev/null || missing="$$missing $$t"; done; \
	[ -x "$(RUSTC)" ] || missing="$$missing rustc (install rustup from https://rustup.rs, or set RUSTC)"; \
	if [ -n "$$missing" ]; then echo "langtools: missing:$$missing" >&2; exit 1; fi

# corpus fetches the Debian cloud kernels (amd64, arm64) and their source.
corpus:
	bash testdata/scripts/corpus.sh

# corpus-GEN adds a later kernel generation (corpusgen.sh's table): 6.12
# from trixie with perf 6.12 from bookworm-backports, 7.3 from
# trixie-backports with perf 7.3 run through trixie's C library; both
# machines, the source, through an apt configuration of the corpus's own
# that takes the archive's address from the machine's apt sources. make
# test needs them (corpus-gens), make demo does not.
$(GENS:%=corpus-%): corpus
	bash testdata/scripts/corpusgen.sh $(@:corpus-%=%)

corpus-gens: $(GENS:%=corpus-%)

lint: deps
	@bad=$$(gofmt -l $$(git ls-files '*.go')); [ -z "$$bad" ] || { echo "gofmt: $$bad"; exit 1; }
	$(GO) vet ./...
	$(GOBIN)/staticcheck ./...

unit:
	$(GO) test -count=1 ./...

# race runs, under the race detector, the tests that resolve specs on
# several goroutines at once over one File (spec files, ResolveAll).
race:
	$(GO) test -race -count=1 -run '^(TestSpecFileConcurrent|TestLibraryBatchConcurrent)$$' ./cmd/dwprobe ./probegen

# fuzz runs each fuzz target briefly. The budget is a count, not a duration:
# Go 1.26's fuzz coordinator can fail a duration run at its deadline with
# "context deadline exceeded" (golang/go#75804). Longer: FUZZTIME=2000000x.
# Minimizing each new interesting input is bounded too: by default it may
# take a minute, and for FuzzDebuginfodResponse (a 40 KB ELF seed, files
# written per run) that made the target take 400 s instead of 30.
# Targets whose every run parses a whole built file (an index, an ELF
# binary) take FUZZSLOWTIME: at 100000x runs they took 67 s and 29 s of make
# test's 20 minutes.
FUZZTIME ?= 60000x
FUZZSLOW ?= FuzzIndexWellFormed FuzzBinary
FUZZSLOWTIME ?= 20000x
FUZZMINIMIZE ?= 1000x
fuzz:
	@for pkg in $$($(GO) list ./lazymatch/... ./probegen/... ./dwarfres/... ./tracefs/...); do \
		for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
			echo "fuzz $$pkg $$f"; \
			n=$(FUZZTIME); case " $(FUZZSLOW) " in *" $$f "*) n=$(FUZZSLOWTIME);; esac; \
			$(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $$n -fuzzminimizetime $(FUZZMINIMIZE) $$pkg > .fuzz.log 2>&1 || { cat .fuzz.log; rm -f .fuzz.log; exit 1; }; \
			tail -n 1 .fuzz.log; rm -f .fuzz.log; \
		done; \
	done

# conformance compares dwprobe with perf probe's recorded answers (perf 6.1
# on 6.1, perf 6.12 on 6.12, perf 7.3 on 7.3) on the amd64 and arm64 vmlinux of every kernel
# and on the module lists of each (perf -m), and prints matched/total per
# kind and list. It runs with the debuginfo index
# (built in a temporary directory); conformance-scan runs the same without
# it (DWPROBE_INDEX=off) on every sixth spec of each list
# (DWPROBE_CONFORMANCE_EVERY=1 for all): the answers must be the same both
# ways.
conformance: deps corpus corpus-gens
	$(GO) test -count=1 -timeout 40m -run '^TestConformance(Modules)?$$' ./cmd/dwprobe -v 2>&1 | grep -vE '^(=== RUN|    --- PASS)' ; \
		exit $${PIPESTATUS[0]}

conformance-scan:
	DWPROBE_INDEX=off DWPROBE_CONFORMANCE_EVERY=$${DWPROBE_CONFORMANCE_EVERY:-6} $(MAKE) --no-print-directory conformance

# golden regenerates perf's answers for the conformance specs of every
# kernel and architecture, the vmlinux lists and the module lists: perf 6.1
# on 6.1, the corpus's perf GEN on each later generation GEN.
golden: deps corpus corpus-gens
	bash testdata/scripts/golden.sh $(VMLINUX) $(SRC)
	bash testdata/scripts/golden.sh $(CORPUS)/arm64/vmlinux $(SRC)
	bash testdata/scripts/golden.sh --modules $(VMLINUX) $(SRC)
	bash testdata/scripts/golden.sh --modules $(CORPUS)/arm64/vmlinux $(SRC)
	@set -e; for g in $(GENS); do for a in amd64 arm64; do for m in "" --modules; do \
		echo "PERF=$(CORPUS)/perf-$$g/perf golden.sh $$m $(CORPUS)/$$g/$$a/vmlinux $(CORPUS)/linux-$$g"; \
		PERF=$(CORPUS)/perf-$$g/perf bash testdata/scripts/golden.sh $$m $(CORPUS)/$$g/$$a/vmlinux $(CORPUS)/linux-$$g; \
	done; done; done
	@# The other machines' 6.12 kernels (corpusgen.sh's MACHINES): perf 7.3
	@# answers for them (perf 6.12 has no riscv register table).
	@set -e; for a in ppc64el s390x riscv64; do for m in "" --modules; do \
		echo "PERF=$(CORPUS)/perf-7.3/perf golden.sh $$m $(CORPUS)/6.12/$$a/vmlinux $(CORPUS)/linux-6.12"; \
		PERF=$(CORPUS)/perf-7.3/perf bash testdata/scripts/golden.sh $$m $(CORPUS)/6.12/$$a/vmlinux $(CORPUS)/linux-6.12; \
	done; done

test: deps langtools corpus corpus-gens lint
	DWPROBE_REQUIRE_ALL=1 RUSTC=$(RUSTC) $(GO) test -count=1 -timeout 25m -skip '^TestConformance(Modules)?$$' ./...
	DWPROBE_REQUIRE_ALL=1 $(MAKE) --no-print-directory race
	DWPROBE_REQUIRE_ALL=1 $(MAKE) --no-print-directory conformance
	DWPROBE_REQUIRE_ALL=1 $(MAKE) --no-print-directory conformance-scan
	$(MAKE) --no-print-directory fuzz

# bench times dwprobe against perf probe 6.1 on the 6.1 amd64 and arm64
# vmlinux, and against perf 6.12 on the 6.12 ones (RUNS, MODES, CASES,
# DROP: see the script; cold runs drop the page cache); then dwprobe
# trace's cost per hit and to attach 1,000 points against the tracefs
# events of the same definitions (bench-trace.sh, on this host's uprobes).
bench: deps corpus corpus-gens build
	KERNEL=6.1 bash testdata/scripts/bench.sh $(BIN) $(VMLINUX) $(SRC) $(CORPUS)/arm64/vmlinux
	KERNEL=6.12 MANY=kmalloc_noprof PERF=$(CORPUS)/perf-6.12/perf bash testdata/scripts/bench.sh $(BIN) \
		$(CORPUS)/6.12/amd64/vmlinux $(CORPUS)/linux-6.12 $(CORPUS)/6.12/arm64/vmlinux
	bash testdata/scripts/bench-trace.sh $(BIN)

# bench-base times this build against BASE, an earlier commit (default
# HEAD~1) built in a temporary worktree: the same cases, modes and kernels
# as bench, with BASE in perf's columns (bench.sh's BASE), so a change is
# measured before and after on the same machine.
BASE ?= HEAD~1
bench-base: deps corpus corpus-gens build
	@set -e; d=$$(mktemp -d); trap 'git worktree remove --force "$$d/src" >/dev/null 2>&1; rm -rf "$$d"' EXIT; \
	git worktree add -q --detach "$$d/src" $(BASE); \
	(cd "$$d/src" && $(GO) build -o "$$d/dwprobe-base" ./cmd/dwprobe); \
	BASE="$$d/dwprobe-base" KERNEL=6.1 bash testdata/scripts/bench.sh $(BIN) $(VMLINUX) $(SRC) $(CORPUS)/arm64/vmlinux; \
	BASE="$$d/dwprobe-base" KERNEL=6.12 MANY=kmalloc_noprof bash testdata/scripts/bench.sh $(BIN) \
		$(CORPUS)/6.12/amd64/vmlinux $(CORPUS)/linux-6.12 $(CORPUS)/6.12/arm64/vmlinux

demo: deps corpus build
	@echo '$$ dwprobe -k vmlinux -s linux -L vfs_read'
	@$(BIN) -k $(VMLINUX) -s $(SRC) -L vfs_read
	@echo
	@echo "$$ dwprobe -k vmlinux -F 'vfs_read*'"
	@$(BIN) -k $(VMLINUX) -F 'vfs_read*'
	@echo
	@echo "$$ dwprobe -k vmlinux -D vfs_read -D 'vfs_read:12' -D 'vfs_read%return' -D getname_flags -D t_show"
	@$(BIN) -k $(VMLINUX) -D vfs_read -D 'vfs_read:12' -D 'vfs_read%return' -D getname_flags -D t_show
	@echo
	@echo "$$ dwprobe -k vmlinux -D 'vfs_read+3'   # perf accepts this; the kernel would reject it"
	@$(BIN) -k $(VMLINUX) -D 'vfs_read+3' || true
	@echo
	@echo "$$ dwprobe -k vmlinux -s linux -D 'vfs_read;ret=rw_verify_area*' -D 'fs/read_write.c;ret=rw_verify_area*'"
	@$(BIN) -k $(VMLINUX) -s $(SRC) -D 'vfs_read;ret=rw_verify_area*' -D 'fs/read_write.c;ret=rw_verify_area*'
	@echo
	@echo "$$ dwprobe -k vmlinux -V vfs_read:12"
	@$(BIN) -k $(VMLINUX) -V vfs_read:12
	@echo
	@echo "$$ dwprobe -k vmlinux -D 'vfs_read:12 file->f_mode buf count' -D 'do_sys_openat2 filename:ustring how->flags' -D 'ksys_read%return \$$retval:s64'"
	@$(BIN) -k $(VMLINUX) -D 'vfs_read:12 file->f_mode buf count' -D 'do_sys_openat2 filename:ustring how->flags' -D 'ksys_read%return $$retval:s64'
	@echo
	@echo "$$ dwprobe -k vmlinux -D 'do_fault vmf->address vmf->vma->vm_flags' -D 'vfs_read jiffies init_task.comm:string'   # perf 6.1 fails on both"
	@$(BIN) -k $(VMLINUX) -D 'do_fault vmf->address vmf->vma->vm_flags' -D 'vfs_read jiffies init_task.comm:string'
	@echo
	@echo "$$ dwprobe -k arm64/vmlinux -D 'vfs_read:12 file->f_mode buf count'   # arm64 definitions from an x86_64 host"
	@$(BIN) -k $(CORPUS)/arm64/vmlinux -D 'vfs_read:12 file->f_mode buf count'
	@echo
	@echo "$$ dwprobe -k vmlinux -m overlay.ko -D 'ovl_lookup:8 dentry->d_name.name:string'   # a kernel module"
	@$(BIN) -k $(VMLINUX) -m $(MODDIR)/fs/overlayfs/overlay.ko -D 'ovl_lookup:8 dentry->d_name.name:string'
	@echo
	@echo "$$ dwprobe --btf vmlinux -D 'vfs_read file->f_path.dentry->d_name.name:string count'   # no DWARF: BTF"
	@$(BIN) --btf $(VMLINUX) -D 'vfs_read file->f_path.dentry->d_name.name:string count'

clean:
	rm -rf bin
