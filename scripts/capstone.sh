#!/bin/bash
# SPDX-License-Identifier: MIT
# Install capstone 5 from Debian trixie into ${GT_CACHE:-/var/cache/gotools}/capstone:
#
#   include/capstone/*.h    the Makefile puts it before the system's headers
#   lib/libcapstone.a       and links every tool, test and fuzzer with it
#   share/doc/              the packages' copyright and changelogs
#
# Bookworm's capstone 4.0.2 cannot decode AVX-512 (vpternlogd on zmm
# registers, kmovq to memory, vpermb), which Go 1.27's runtime and common
# modules carry. Trixie's libcapstone-dev and libcapstone5 are fetched the
# way go-toolchains.sh fetches Go (scripts/debian-archive.sh: apt-get
# download through a private apt state, dpkg-deb -x); nothing is installed
# on the system, and the tools link it statically, so no host they run on
# needs it. Once its marker file exists, nothing is fetched again.
set -euo pipefail

SUITE=trixie
PACKAGES=(libcapstone-dev libcapstone5)
CACHE=${GT_CACHE:-/var/cache/gotools}
DEST=$CACHE/capstone
MARKER=.gotools-installed

die() { echo "capstone.sh: $*" >&2; exit 1; }

[ -f "$DEST/$MARKER" ] && exit 0
# One installer at a time; another may have finished while we waited.
mkdir -p "$CACHE"
exec 9>"$CACHE/.capstone.lock"
flock 9
[ -f "$DEST/$MARKER" ] && exit 0

. "$(dirname "${BASH_SOURCE[0]}")/debian-archive.sh"
debian_archive_init

stage=$(mktemp -d "$CACHE/.capstone-stage.XXXXXX")
trap 'rm -rf "$stage"' EXIT
mkdir "$stage/deb"
for pkg in "${PACKAGES[@]}"; do
	debian_archive_unpack "$pkg/$SUITE" "$stage/deb" ||
		die "cannot fetch $pkg from $SUITE ($DEBIAN_MIRROR; see $APTDIR/download.log)"
done
version=$DEB_VERSION

# usr/lib/<multiarch> and usr/include, flattened to lib and include.
lib=$(find "$stage/deb/usr/lib" -name libcapstone.a -printf '%h\n' | head -n1)
[ -n "$lib" ] || die "no libcapstone.a in libcapstone-dev $version"
grep -q '^#define CS_API_MAJOR 5$' "$stage/deb/usr/include/capstone/capstone.h" ||
	die "libcapstone-dev $version is not capstone 5"
mkdir -p "$stage/out/share"
mv "$stage/deb/usr/include" "$stage/out/include"
mv "$lib" "$stage/out/lib"
mv "$stage/deb/usr/share/doc" "$stage/out/share/doc"
# Its prefix is /usr: it would name the system's capstone.
rm -rf "$stage/out/lib/pkgconfig"

rm -rf "$DEST"
mv "$stage/out" "$DEST"
echo "capstone $version (Debian $SUITE)" > "$DEST/$MARKER"
debian_archive_forget "${PACKAGES[@]}"
echo "capstone.sh: installed capstone $version into $DEST"
