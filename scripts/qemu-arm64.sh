#!/bin/bash
# SPDX-License-Identifier: MIT
# What tests/arm64/qemu_run.sh needs to run arm64 programs under a real
# arm64 Linux kernel, emulated on this x86-64 machine (issue 25):
#
#   qemu-system-arm       Debian's (installed with apt like setup-deps.sh's
#                         packages: the libraries qemu needs), and cpio to
#                         build the guest's initramfs
#   ${GT_CACHE:-/var/cache/gotools}/qemu-arm64/
#     qemu-system-aarch64 qemu 10 or later: the system's, linked, if it is
#                         that new, else the one of this release's
#                         backports (bookworm-backports: 10.0; its
#                         libraries are the release's own)
#     Image               Debian trixie's arm64 kernel (the package
#                         linux-image-arm64 depends on), uncompressed
#     config              its configuration (boot/config-*)
#     busybox             trixie's busybox-static for arm64: the guest's
#                         shell and tools
#     .gotools-built      the marker: the versions, one line each
#
# The kernel is the one Debian ships to arm64 machines, and it has what
# the tools need built in (checked here, in its config): BPF with BTF
# (/sys/kernel/btf/vmlinux), uprobes and uprobe events, uprobe_multi links
# (Linux 6.6 and later), tracefs, and, for a guest without modules, the
# PL011 serial console of qemu's virt machine, devtmpfs and a gzip
# initramfs. The two arm64 packages are fetched like the Go toolchains
# (scripts/debian-archive.sh: apt-get download through a private apt state,
# here with trixie's arm64 index, then dpkg-deb -x); nothing of them is
# installed on the system. Idempotent: once the marker is there and qemu
# installed, nothing is fetched again. Run by tests/integration/
# test_arm64_qemu.sh itself (on demand: no other test needs it); as root
# when something is missing.
set -euo pipefail

SUITE=trixie
ARCH=arm64
# The marker's first line: a cache of another layout is fetched again.
LAYOUT="layout 2: qemu-system-aarch64 Image config busybox"
die() { echo "qemu-arm64.sh: $*" >&2; exit 1; }

missing=()
for pkg in qemu-system-arm cpio; do
	status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
	[ "$status" = installed ] || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
	[ "$(id -u)" = 0 ] || die "must run as root to install ${missing[*]}"
	echo "qemu-arm64.sh: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get -q=2 -o DPkg::Lock::Timeout=300 update
	apt-get -q=2 -o DPkg::Lock::Timeout=300 install -y --no-install-recommends \
		"${missing[@]}" >/dev/null
fi
command -v qemu-system-aarch64 >/dev/null || die "no qemu-system-aarch64 after installing qemu-system-arm"

# qemu before 10 will not do: 7.2's multi-threaded TCG (bookworm's) runs
# stale code in the slots where the kernel steps a probed instruction out
# of line. A Go program with plain tracefs uprobes (no BPF) on two
# SP-relative loads, at the entry and the end of an inlined call, read the
# other slot's load back in a fifth to a quarter of its 3,000 calls in five
# runs of six: its time.Time came out garbage. With 7.2 under
# -accel tcg,thread=single or -smp 1, and with 10.0, none did, in 18,000
# calls each. Real hardware has no cache of translated code.
QEMU_MIN_MAJOR=10

# shellcheck disable=SC2034 # read by debian_archive_init
DEBIAN_FOREIGN=$ARCH:$SUITE
. "$(dirname "${BASH_SOURCE[0]}")/debian-archive.sh"
# Nothing to do once fetched (exits 0); else one installer at a time:
# DEST, MARKER, STAGE.
debian_archive_build_begin qemu-arm64 "" "$LAYOUT"

# The kernel package linux-image-arm64 (a metapackage) depends on:
# linux-image-6.N.M+debNN-arm64.
depends=$(apt-cache "${APT_OPTS[@]}" show --no-all-versions "linux-image-$ARCH:$ARCH" 2>/dev/null |
	sed -n 's/^Depends: //p' | head -n1)
kpkg=$(tr ',|' '\n\n' <<<"$depends" | sed -n 's/^ *\(linux-image-[0-9][^ ]*-'"$ARCH"'\)\( .*\)*$/\1/p' | head -n1)
[ -n "$kpkg" ] || die "cannot tell which kernel linux-image-$ARCH of $SUITE depends on (Depends: ${depends:-none})"

mkdir "$STAGE/kernel" "$STAGE/busybox" "$STAGE/out"
# major_of QEMU: the major version qemu-system-aarch64 QEMU says it is.
major_of() {
	"$1" --version 2>/dev/null | sed -n 's/^QEMU emulator version \([0-9]*\)\..*/\1/p'
}
system_qemu=$(command -v qemu-system-aarch64)
qmajor=$(major_of "$system_qemu")
if [ "${qmajor:-0}" -ge "$QEMU_MIN_MAJOR" ]; then
	ln -s "$system_qemu" "$STAGE/out/qemu-system-aarch64"
	qline="qemu: $system_qemu (the system's, $qmajor)"
else
	backports=$DEBIAN_CODENAME-backports
	mkdir "$STAGE/qemu"
	debian_archive_unpack "qemu-system-arm/$backports" "$STAGE/qemu" ||
		die "qemu-system-aarch64 is $qmajor, $QEMU_MIN_MAJOR or later is needed, and qemu-system-arm of $backports cannot be fetched ($DEBIAN_MIRROR; see $APTDIR/download.log)"
	qversion=$DEB_VERSION
	mv "$STAGE/qemu/usr/bin/qemu-system-aarch64" "$STAGE/out/"
	missing_libs=$(ldd "$STAGE/out/qemu-system-aarch64" | grep 'not found' || true)
	[ -z "$missing_libs" ] || die "qemu-system-arm $qversion of $backports lacks libraries here: $missing_libs"
	qmajor=$(major_of "$STAGE/out/qemu-system-aarch64")
	[ "${qmajor:-0}" -ge "$QEMU_MIN_MAJOR" ] ||
		die "qemu-system-arm $qversion of $backports is qemu ${qmajor:-nothing}: $QEMU_MIN_MAJOR or later is needed"
	qline="qemu: qemu-system-arm $qversion (Debian $backports, $(dpkg --print-architecture))"
fi
debian_archive_unpack "$kpkg:$ARCH/$SUITE" "$STAGE/kernel" ||
	die "cannot fetch $kpkg ($ARCH) from $SUITE ($DEBIAN_MIRROR; see $APTDIR/download.log)"
kversion=$DEB_VERSION
debian_archive_unpack "busybox-static:$ARCH/$SUITE" "$STAGE/busybox" ||
	die "cannot fetch busybox-static ($ARCH) from $SUITE ($DEBIAN_MIRROR; see $APTDIR/download.log)"
bversion=$DEB_VERSION

config=$(ls "$STAGE"/kernel/boot/config-* 2>/dev/null | head -n1)
vmlinuz=$(ls "$STAGE"/kernel/boot/vmlinuz-* 2>/dev/null | head -n1)
[ -f "$config" ] && [ -f "$vmlinuz" ] || die "no boot/config-* or boot/vmlinuz-* in $kpkg $kversion"
release=${config##*/config-}

# Linux 6.6 or later: uprobe_multi links.
IFS=. read -r major minor _ <<<"$release"
[ "$major" -gt 6 ] || { [ "$major" = 6 ] && [ "$minor" -ge 6 ]; } ||
	die "$kpkg is Linux $release: uprobe_multi needs 6.6 or later"
# What must be built in (=y): a module would need a loader in the guest.
for opt in BPF BPF_SYSCALL BPF_JIT BPF_EVENTS DEBUG_INFO_BTF \
	UPROBES UPROBE_EVENTS FTRACE TRACING PERF_EVENTS \
	SERIAL_AMBA_PL011 SERIAL_AMBA_PL011_CONSOLE ARM_PSCI_FW \
	BLK_DEV_INITRD RD_GZIP DEVTMPFS TMPFS BINFMT_ELF PROC_FS SYSFS; do
	grep -qx "CONFIG_$opt=y" "$config" ||
		die "$kpkg $kversion lacks CONFIG_$opt=y (it has: $(grep "CONFIG_${opt}[= ]" "$config" || echo nothing))"
done

# qemu -kernel takes arm64's Image, which Debian's vmlinuz is, gzipped or
# not: kept uncompressed, as any qemu boots that.
if [ "$(od -An -tx1 -N2 "$vmlinuz" | tr -d ' ')" = 1f8b ]; then
	gzip -dc "$vmlinuz" >"$STAGE/out/Image"
else
	cp "$vmlinuz" "$STAGE/out/Image"
fi
# An arm64 Image has the magic "ARM\x64" at offset 56.
[ "$(od -An -tx1 -j56 -N4 "$STAGE/out/Image" | tr -d ' ')" = 41524d64 ] ||
	die "$vmlinuz of $kpkg is not an arm64 Image"
cp "$config" "$STAGE/out/config"

busybox=
for f in "$STAGE"/busybox/bin/busybox "$STAGE"/busybox/usr/bin/busybox; do
	[ -f "$f" ] && busybox=$f
done
[ -n "$busybox" ] || die "no busybox in busybox-static $bversion"
cp "$busybox" "$STAGE/out/busybox"
file_arch=$(od -An -tx1 -j18 -N2 "$STAGE/out/busybox" | tr -d ' ')
[ "$file_arch" = b700 ] || die "busybox-static $bversion is not an arm64 ELF (e_machine $file_arch)"

rm -rf "$DEST"
mv "$STAGE/out" "$DEST"
printf '%s\n' "$LAYOUT" \
	"kernel: $kpkg $kversion (Debian $SUITE, $ARCH), Linux $release" \
	"busybox: busybox-static $bversion (Debian $SUITE, $ARCH)" "$qline" > "$MARKER"
debian_archive_forget "$kpkg" busybox-static qemu-system-arm
echo "qemu-arm64.sh: Linux $release ($kpkg $kversion), busybox $bversion for $ARCH and ${qline#qemu: } in $DEST"
