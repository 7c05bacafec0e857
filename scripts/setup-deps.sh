#!/bin/bash
# SPDX-License-Identifier: MIT
# Install what gotools needs to build and test, on Debian 12, as root:
# the Debian packages below, then capstone 5 built from Debian trixie's
# source (scripts/capstone.sh), libmicrohttpd without HTTPS built from
# bookworm's (scripts/microhttpd.sh) and the Go toolchains
# (scripts/go-toolchains.sh), all into ${GT_CACHE:-/var/cache/gotools};
# on any machine but an arm64 one, what the cross build for arm64 needs
# (make ARCH=arm64, issue 25): Debian's cross compiler, the arm64 builds
# of the libraries the tools link (scripts/sysroot.sh), capstone 5's and
# libmicrohttpd's built with that compiler (the same scripts, given arm64),
# into ${GT_CACHE:-/var/cache/gotools}/arm64.
# Idempotent: apt is only run when a package is missing, so a second run
# downloads nothing.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

PACKAGES=(
	# build: the BPF programs, the tools, the static link (make STATIC=1
	# needs the .a files of libbpf, libdw, libelf and of the compression
	# libraries libdw and libelf use; capstone's is always linked, and
	# comes from scripts/capstone.sh, not from bookworm's 4.0; so is
	# libmicrohttpd's, from scripts/microhttpd.sh, as bookworm's needs
	# gnutls, of which Debian has no .a)
	make gcc libc6-dev clang llvm libclang-rt-14-dev bpftool pkg-config
	libbpf-dev libelf-dev libdw-dev
	zlib1g-dev libzstd-dev liblzma-dev libbz2-dev
	# fetching capstone 5, libmicrohttpd and the Go toolchains (apt-get
	# download and source, dpkg-deb, dpkg-source; dpkg-buildflags and nm
	# for libmicrohttpd's build, which needs nothing else beyond gcc and
	# make); tests: gccgo fixtures, bpftrace for comparisons,
	# taskset/nsenter
	dpkg-dev gccgo-12 bpftrace util-linux debian-archive-keyring ca-certificates
	binutils coreutils procps python3
	# ground truth of unit tests: the runtime's wait reason strings, the
	# TLS offsets the loader chose (gdb)
	gdb
	# the HTTP server test's load generator (ApacheBench)
	apache2-utils
	# the --prometheus test: a real Prometheus scrapes the tools, and its
	# promtool checks their exposition format; curl scrapes them directly
	prometheus curl
)
# npm fetches the third-party Go binaries; keep a node/npm already there.
command -v npm >/dev/null || PACKAGES+=(npm)
# The architectures make builds for besides the machine's own (make
# ARCH=arm64): their cross compiler, and its C library, which the compiler
# only recommends; tests/fixtures/build.sh's arm64 cgo fixtures are built
# and linked by them too, and run in qemu with that C library; and the
# cross gccgo of the arm64 gccgo fixtures (with libgo, which the qemu test
# ships into its guest).
CROSS_ARCHS=()
if [ "$(dpkg --print-architecture)" != arm64 ]; then
	CROSS_ARCHS+=(arm64)
	PACKAGES+=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross gccgo-12-aarch64-linux-gnu)
fi

[ "$(id -u)" = 0 ] || { echo "setup-deps.sh: must run as root" >&2; exit 1; }

missing=()
for pkg in "${PACKAGES[@]}"; do
	status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
	[ "$status" = installed ] || missing+=("$pkg")
done

if [ ${#missing[@]} -gt 0 ]; then
	echo "setup-deps.sh: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get -q=2 update
	apt-get -q=2 install -y --no-install-recommends "${missing[@]}" >/dev/null
fi

"$ROOT/scripts/capstone.sh"
"$ROOT/scripts/microhttpd.sh"
for arch in "${CROSS_ARCHS[@]}"; do
	"$ROOT/scripts/sysroot.sh" "$arch"
	"$ROOT/scripts/capstone.sh" "$arch"
	"$ROOT/scripts/microhttpd.sh" "$arch"
done
"$ROOT/scripts/go-toolchains.sh"
