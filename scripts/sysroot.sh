#!/bin/bash
# SPDX-License-Identifier: MIT
# Unpack another architecture's builds of the libraries the tools link, for
# the cross build (make ARCH=arm64, issue 25), into
# ${GT_CACHE:-/var/cache/gotools}/ARCH/sysroot:
#
#   scripts/sysroot.sh ARCH         (a Debian architecture: arm64)
#
#   usr/include/                    their headers: the Makefile puts them
#                                   after capstone's and libmicrohttpd's
#                                   (the cross compiler's own C library and
#                                   kernel headers come from Debian's
#                                   libc6-dev-ARCH-cross, as its gcc finds
#                                   them)
#   usr/lib/<multiarch>/*.a         their static libraries alone (the .so
#                                   links, whose targets are not unpacked,
#                                   are removed): the cross build always
#                                   links statically
#   usr/share/doc/                  the packages' copyrights and changelogs
#
# The packages are the -dev packages of the libraries the machine's own
# build links (setup-deps.sh installs them): libbpf, libelf and libdw, and
# the compression libraries libdw and libelf use, from the machine's own
# release (bookworm), each of the version installed here or, when the
# archive no longer has it (a point release replaced it: liblzma-dev
# 5.4.1-1 by 5.4.1-1+deb12u1), of the release's own of the same upstream
# version. They are
# fetched the way capstone.sh fetches capstone's (scripts/debian-archive.sh:
# apt-get download through a private apt state, to which ARCH is added,
# then dpkg-deb -x): nothing is installed, dpkg is not told of ARCH (no dpkg
# --add-architecture), and the tools link them statically, so no host they
# run on needs them. Once the marker file exists, and names the versions
# installed here, nothing is fetched again; after an upgrade of the
# machine's own packages, the new versions are.
set -euo pipefail

PACKAGES=(libbpf-dev libelf-dev libdw-dev
	zlib1g-dev libzstd-dev liblzma-dev libbz2-dev)
# What each of them must leave in usr/lib/<multiarch>.
LIBS=(libbpf libelf libdw libz libzstd liblzma libbz2)
die() { echo "sysroot.sh: $*" >&2; exit 1; }

[ $# -eq 1 ] || die "usage: sysroot.sh ARCH (a Debian architecture: arm64)"
. "$(dirname "${BASH_SOURCE[0]}")/debian-archive.sh"
debian_archive_target "$1"
[ -n "$TARGET_DIR" ] ||
	die "$TARGET_ARCH is this machine's own architecture: scripts/setup-deps.sh installs its packages"

# NAME=VERSION, the version of each installed here.
installed=()
for pkg in "${PACKAGES[@]}"; do
	version=$(dpkg-query -W -f='${db:Status-Status} ${Version}' "$pkg" 2>/dev/null || true)
	[ "${version%% *}" = installed ] ||
		die "$pkg is not installed here: run scripts/setup-deps.sh first"
	installed+=("$pkg=${version#* }")
done

# Nothing to do once unpacked (for those versions); else one installer at
# a time: DEST, MARKER, STAGE. No source package is wanted; the release's
# TARGET_ARCH index is.
# shellcheck disable=SC2034 # read by debian_archive_init
DEBIAN_FOREIGN=$TARGET_ARCH:$DEBIAN_CODENAME
debian_archive_build_begin "${TARGET_DIR}sysroot" "" "installed: ${installed[*]}"
out=$STAGE/out
mkdir "$out"
got=()
for spec in "${installed[@]}"; do
	pkg=${spec%%=*} version=${spec#*=}
	if ! debian_archive_unpack "$pkg:$TARGET_ARCH=$version" "$out"; then
		debian_archive_unpack "$pkg:$TARGET_ARCH/$DEBIAN_CODENAME" "$out" ||
			die "cannot fetch $pkg for $TARGET_ARCH from $DEBIAN_CODENAME ($DEBIAN_MIRROR; see $APTDIR/download.log)"
		# upstream versions alike: the Debian revisions alone differ
		[ "${DEB_VERSION%-*}" = "${version%-*}" ] ||
			die "$DEBIAN_CODENAME has $pkg $DEB_VERSION for $TARGET_ARCH, but $version here (and not for $TARGET_ARCH): upgrade the machine's $pkg"
	fi
	got+=("$pkg=$DEB_VERSION")
done

libdir=$out/usr/lib/$TARGET
for lib in "${LIBS[@]}"; do
	[ -f "$libdir/$lib.a" ] || die "no $lib.a for $TARGET_ARCH in ${PACKAGES[*]}"
done
find "$out/usr/lib" -name '*.so' -type l -delete

rm -rf "$DEST"
mv "$out" "$DEST"
printf '%s\n' "$TARGET_ARCH builds of the machine's own -dev packages (Debian $DEBIAN_CODENAME), static libraries" \
	"installed: ${installed[*]}" "unpacked: ${got[*]}" > "$MARKER"
debian_archive_forget "${PACKAGES[@]}"
echo "sysroot.sh: unpacked ${PACKAGES[*]} for $TARGET_ARCH into $DEST"
