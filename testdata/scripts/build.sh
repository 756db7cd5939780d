#!/bin/bash
# build.sh OUT: dwprobe as one static binary (no libc, no interpreter) with
# its module version and VCS revision stamped in, a file to copy onto the
# machine being debugged. GOARCH from the environment cross-compiles
# (GOARCH=arm64). Used by `make build` and by the tests that run the binary.
set -euo pipefail
out=${1:?usage: build.sh OUT}
case $out in /*) ;; *) out=$PWD/$out ;; esac
cd "$(dirname "$0")/../.."
ldflags='-s -w'
# The toolchain stamps the revision itself, except in a git worktree.
if rev=$(git rev-parse HEAD 2>/dev/null); then
	dirty=false
	[ -z "$(git status --porcelain 2>/dev/null)" ] || dirty=true
	ldflags+=" -X main.buildRevision=$rev -X main.buildModified=$dirty"
fi
CGO_ENABLED=0 exec "${GO:-go}" build -buildvcs=auto -trimpath -ldflags="$ldflags" -o "$out" ./cmd/dwprobe
