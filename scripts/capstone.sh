#!/bin/bash
# SPDX-License-Identifier: MIT
# Build capstone 5 from Debian trixie's source into
# ${GT_CACHE:-/var/cache/gotools}/capstone, or, for another architecture
# (the cross build, make ARCH=arm64: issue 25), with its cross compiler
# into ${GT_CACHE:-/var/cache/gotools}/ARCH/capstone:
#
#   scripts/capstone.sh [ARCH]      (a Debian architecture: arm64; the
#                                   machine's own by default)
#
#   include/capstone/*.h    the Makefile puts it before the system's headers
#   lib/libcapstone.a       diet, x86 and AArch64 (ARCHS): links every
#                           tool and fuzzer; lib/arm64 decodes arm64 Go
#                           code with it (issue 25)
#   lib/full/libcapstone.a  Debian's own build (libcapstone-dev): links the
#                           unit test that holds lib/x86 to what diet
#                           capstone leaves out (instruction groups,
#                           registers read and written); the machine's own
#                           architecture only, as unit tests are not
#                           cross-built
#   share/doc/              the package's copyright and changelog
#
# Bookworm's capstone 4.0.2 cannot decode AVX-512 (vpternlogd on zmm
# registers, kmovq to memory, vpermb), which Go 1.27's runtime and common
# modules carry. Diet capstone (CAPSTONE_DIET) formats no mnemonic and no
# operand string, which a full build does for every instruction even when
# nobody reads them: it decodes a whole binary in about two thirds of the
# time (and -O3, capstone's own default, instead of Debian's -O2). It keeps
# ids, sizes, bytes and operands (type, register, immediate, memory), which
# is all lib/x86 and lib/arm64 read; it drops groups, access and the
# registers an instruction reads and writes, which they do not use.
#
# Trixie's source package and libcapstone-dev (of the same version) are
# fetched the way go-toolchains.sh fetches Go (scripts/debian-archive.sh:
# apt-get through a private apt state, dpkg-source -x and dpkg-deb -x);
# nothing is installed on the system, and the tools link it statically, so
# no host they run on needs it. Once its marker file exists, and names the
# architectures the diet build decodes (a line "archs: ARCHS"), nothing is
# fetched or built again; a cache whose marker names others (an x86-only
# build) is built again.
set -euo pipefail

SUITE=trixie
SOURCE=capstone
PACKAGE=libcapstone-dev
# What the diet build decodes (capstone's CAPSTONE_ARCHS names).
ARCHS="x86 aarch64"
die() { echo "capstone.sh: $*" >&2; exit 1; }

. "$(dirname "${BASH_SOURCE[0]}")/debian-archive.sh"
# Nothing to do once built; else one installer at a time: DEST, MARKER,
# STAGE. (A cache of an older layout has another marker; one of other
# architectures, another archs line.)
# TARGET_ARCH, TARGET_TOOL (the cross compiler's prefix), TARGET_DIR.
debian_archive_target "${1:-}"
debian_archive_build_begin "${TARGET_DIR}capstone" "$SUITE" "archs: $ARCHS"
stage=$STAGE
mkdir "$stage/deb" "$stage/out"
debian_archive_source "$SOURCE/$SUITE" "$stage/src" ||
	die "cannot fetch the source of $SOURCE from $SUITE ($DEBIAN_MIRROR; see $APTDIR/download.log)"
version=$DEB_VERSION
if [ -z "$TARGET_DIR" ]; then
	debian_archive_unpack "$PACKAGE/$SUITE" "$stage/deb" ||
		die "cannot fetch $PACKAGE from $SUITE ($DEBIAN_MIRROR; see $APTDIR/download.log)"
	[ "$DEB_VERSION" = "$version" ] ||
		die "$SUITE has $SOURCE $version but $PACKAGE $DEB_VERSION"
fi
grep -q '^#define CS_API_MAJOR 5$' "$stage/src/include/capstone/capstone.h" ||
	die "$SOURCE $version is not capstone 5"

# Its Makefile takes CFLAGS from the environment, and adds the diet's
# define; CROSS is the prefix of its gcc, ar and ranlib (none: cc's).
CFLAGS=-O3 make -C "$stage/src" -j"$(nproc)" CAPSTONE_ARCHS="$ARCHS" \
	CAPSTONE_DIET=yes CAPSTONE_STATIC=yes CAPSTONE_SHARED=no \
	CROSS="$TARGET_TOOL" >"$stage/build.log" 2>&1 || {
	cp "$stage/build.log" "$CACHE/${TARGET_DIR}capstone-build.log"
	die "building $SOURCE $version failed (see $CACHE/${TARGET_DIR}capstone-build.log)"
}

mkdir -p "$stage/out/include" "$stage/out/lib" "$stage/out/share/doc/capstone"
mv "$stage/src/include/capstone" "$stage/out/include/capstone"
mv "$stage/src/libcapstone.a" "$stage/out/lib/libcapstone.a"
cp "$stage/src/debian/copyright" "$stage/src/debian/changelog" \
	"$stage/out/share/doc/capstone/"
built="diet build and Debian's"
if [ -z "$TARGET_DIR" ]; then
	# usr/lib/<multiarch>/libcapstone.a, flattened to lib/full.
	full=$(find "$stage/deb/usr/lib" -name libcapstone.a | head -n1)
	[ -n "$full" ] || die "no libcapstone.a in $PACKAGE $version"
	mkdir "$stage/out/lib/full"
	mv "$full" "$stage/out/lib/full/libcapstone.a"
else
	built="diet build for $TARGET_ARCH"
fi

rm -rf "$DEST"
mv "$stage/out" "$DEST"
printf '%s\n' "capstone $version (Debian $SUITE), $built" \
	"archs: $ARCHS" > "$MARKER"
rm -f "$CACHE/${TARGET_DIR}capstone-build.log"
debian_archive_forget "$SOURCE" "$PACKAGE"
echo "capstone.sh: built capstone $version into $DEST"
