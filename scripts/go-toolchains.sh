#!/bin/bash
# SPDX-License-Identifier: MIT
# Install the Go toolchains the tests build their fixtures with into
# ${GT_CACHE:-/var/cache/gotools}/go/1.NN (each directory is a GOROOT).
#
#   scripts/go-toolchains.sh [1.NN ...]     (default: every version below)
#
# Debian's archive carries golang-1.NN-go for many releases and the
# packages run here when simply unpacked, so each toolchain is fetched with
# `apt-get download` through a private sources list and private apt state
# (the machine's own apt configuration is never touched), then unpacked with
# dpkg-deb -x (scripts/debian-archive.sh). A toolchain whose marker file
# exists is not fetched again.
set -euo pipefail

VERSIONS=(1.15 1.19 1.21 1.23 1.25 1.27)
CACHE=${GT_CACHE:-/var/cache/gotools}
MARKER=.gotools-installed

die() { echo "go-toolchains.sh: $*" >&2; exit 1; }

[ $# -gt 0 ] && VERSIONS=("$@")

find_missing() {
	missing=()
	for v in "${VERSIONS[@]}"; do
		[[ $v =~ ^1\.[0-9]+$ ]] || die "not a Go version: $v"
		[ -f "$CACHE/go/$v/$MARKER" ] || missing+=("$v")
	done
}
find_missing
[ ${#missing[@]} -eq 0 ] && exit 0
# One installer at a time; another may have finished while we waited.
mkdir -p "$CACHE/go"
exec 9>"$CACHE/go/.lock"
flock 9
find_missing
[ ${#missing[@]} -eq 0 ] && exit 0

. "$(dirname "${BASH_SOURCE[0]}")/debian-archive.sh"
debian_archive_init

# install_one 1.NN: download, unpack and check one toolchain.
install_one() {
	local v=$1 dest=$CACHE/go/$1 stage pkg link target got
	stage=$(mktemp -d "$CACHE/go/.stage-$v.XXXXXX")
	for pkg in "golang-$v-go" "golang-$v-src"; do
		debian_archive_unpack "$pkg" "$stage" || { rm -rf "$stage"; return 1; }
	done
	# /usr/lib/go-1.NN links src, api, pkg/include... into /usr/share/go-1.NN
	# with relative links: replace each such link by the directory it names,
	# so the GOROOT is one self-contained tree.
	local lib=$stage/usr/lib/go-$v
	[ -x "$lib/bin/go" ] || { rm -rf "$stage"; return 1; }
	while IFS= read -r link; do
		target=$(realpath -m "$(dirname "$link")/$(readlink "$link")")
		case $target in
		"$stage"/*)
			[ -e "$target" ] || continue
			rm "$link"
			mv "$target" "$link"
			;;
		esac
	done < <(find "$lib" -type l)
	rm -rf "$dest"
	mv "$lib" "$dest"
	rm -rf "$stage"
	got=$(GOROOT=$dest GOTOOLCHAIN=local GOFLAGS= "$dest/bin/go" version) || return 1
	case $got in
	"go version go$v"*) ;;
	*) return 1 ;;
	esac
	echo "$got" > "$dest/$MARKER"
	debian_archive_forget "golang-$v-go" "golang-$v-src"
	echo "go-toolchains.sh: installed $got into $dest"
}

failed=()
for v in "${missing[@]}"; do
	install_one "$v" || failed+=("$v")
done
for v in "${failed[@]}"; do
	echo "go-toolchains.sh: cannot install Go $v (golang-$v-go from $DEBIAN_MIRROR; see $APTDIR/download.log)" >&2
done
[ ${#failed[@]} -eq 0 ]
