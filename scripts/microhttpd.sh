#!/bin/bash
# SPDX-License-Identifier: MIT
# Build libmicrohttpd from Debian bookworm's source, without HTTPS, into
# ${GT_CACHE:-/var/cache/gotools}/microhttpd, or, for another architecture
# (the cross build, make ARCH=arm64: issue 25), with its cross compiler
# into ${GT_CACHE:-/var/cache/gotools}/ARCH/microhttpd:
#
#   scripts/microhttpd.sh [ARCH]    (a Debian architecture: arm64; the
#                                   machine's own by default)
#
#   include/microhttpd.h    the Makefile puts it before the system's headers
#   libmicrohttpd.a in lib  static only: links every tool (--prometheus
#                           serves /metrics with it)
#   share/doc/              the package's copyright and changelog
#
# Bookworm's libmicrohttpd-dev ships a libmicrohttpd.a built with HTTPS: it
# references gnutls, which Debian has no static library of, so make STATIC=1
# could not link it. The tools serve /metrics over plain HTTP, so this
# build leaves HTTPS (and with it gnutls and libgcrypt) out, and the
# documentation, examples and the tests' curl; it keeps the internal
# polling threads, epoll and the rest of the HTTP server.
#
# The source package is fetched the way capstone.sh fetches capstone's
# (scripts/debian-archive.sh: apt-get source through a private apt state,
# dpkg-source -x); nothing is installed on the system, the system's own
# libmicrohttpd-dev, if any, is neither used nor in the way, and the tools
# link this one statically, so no host they run on needs it. Once its
# marker file exists, nothing is fetched or built again.
set -euo pipefail

SUITE=bookworm
SOURCE=libmicrohttpd
die() { echo "microhttpd.sh: $*" >&2; exit 1; }

. "$(dirname "${BASH_SOURCE[0]}")/debian-archive.sh"
# Nothing to do once built; else one installer at a time: DEST, MARKER,
# STAGE.
# TARGET_ARCH, TARGET (its GNU type), TARGET_TOOL (the cross compiler's
# prefix) and TARGET_DIR.
debian_archive_target "${1:-}"
debian_archive_build_begin "${TARGET_DIR}microhttpd" "$SUITE"
stage=$STAGE
mkdir "$stage/out"
debian_archive_source "$SOURCE/$SUITE" "$stage/src" ||
	die "cannot fetch the source of $SOURCE from $SUITE ($DEBIAN_MIRROR; see $APTDIR/download.log)"
version=$DEB_VERSION
grep -q '^#define MHD_VERSION 0x0009' "$stage/src/src/include/microhttpd.h" ||
	die "$SOURCE $version is not libmicrohttpd 0.9"

# failed STEP: keep the log where the stage's removal does not reach it,
# show its end and stop.
failed() {
	cp "$stage/build.log" "$CACHE/${TARGET_DIR}microhttpd-build.log"
	tail -n 30 "$stage/build.log" >&2
	die "$1 $SOURCE $version failed (see $CACHE/${TARGET_DIR}microhttpd-build.log)"
}

# Debian's own compiler flags, all hardening included as its package has
# them (it handles what the network sends), of the target architecture,
# and PIC objects, which the tools' PIE link needs. For another
# architecture, configure cross-compiles with its gcc (and libtool uses its
# ar and ranlib). --disable-https skips configure's search for
# gnutls and libgcrypt altogether, even where libgnutls28-dev is installed;
# --without-gnutls says so once more. --enable-epoll fails rather than
# build without it. Only the library is built, not its tests and tools;
# configure takes an option it does not know for a warning, so an option
# misspelt (or gone in another version) stops here instead.
cross=()
[ -z "$TARGET_DIR" ] ||
	cross=(--build="$(dpkg-architecture -qDEB_BUILD_GNU_TYPE 2>/dev/null)"
		--host="$TARGET" CC="${TARGET_TOOL}gcc")
(
	cd "$stage/src"
	export DEB_BUILD_MAINT_OPTIONS=hardening=+all DEB_HOST_ARCH=$TARGET_ARCH
	CFLAGS=$(dpkg-buildflags --get CFLAGS) \
	CPPFLAGS=$(dpkg-buildflags --get CPPFLAGS) \
	./configure "${cross[@]}" --enable-static --disable-shared --with-pic \
		--disable-https --without-gnutls --disable-curl --disable-doc \
		--disable-examples --disable-nls --enable-epoll \
		--with-threads=posix
) >"$stage/build.log" 2>&1 || failed configuring
grep -q 'unrecognized options' "$stage/build.log" && failed configuring
grep -q '^checking whether to support HTTPS\.\.\. no (disabled)$' "$stage/build.log" ||
	failed configuring
make -C "$stage/src/src/microhttpd" -j"$(nproc)" >>"$stage/build.log" 2>&1 ||
	failed building

lib=$stage/src/src/microhttpd/.libs/libmicrohttpd.a
[ -f "$lib" ] || die "no libmicrohttpd.a in the build of $SOURCE $version"
# The point of this build: nothing of gnutls (or libgcrypt) left to link.
nm=${TARGET_TOOL}nm
if "$nm" -u "$lib" | grep -Eiq 'gnutls|gcry'; then
	die "$SOURCE $version still references gnutls: $("$nm" -u "$lib" | grep -Ei 'gnutls|gcry' | sort -u | head -n3 | tr -s ' \n' ' ')"
fi

mkdir -p "$stage/out/include" "$stage/out/lib" "$stage/out/share/doc/microhttpd"
mv "$stage/src/src/include/microhttpd.h" "$stage/out/include/"
mv "$lib" "$stage/out/lib/"
cp "$stage/src/debian/copyright" "$stage/src/debian/changelog" \
	"$stage/out/share/doc/microhttpd/"

rm -rf "$DEST"
mv "$stage/out" "$DEST"
echo "libmicrohttpd $version (Debian $SUITE), static, without HTTPS${TARGET_DIR:+, for $TARGET_ARCH}" > "$MARKER"
rm -f "$CACHE/${TARGET_DIR}microhttpd-build.log"
debian_archive_forget "$SOURCE"
echo "microhttpd.sh: built libmicrohttpd $version into $DEST"
