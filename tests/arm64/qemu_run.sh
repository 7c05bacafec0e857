#!/bin/bash
# SPDX-License-Identifier: MIT
# Run a shell script under a real arm64 Linux kernel (issue 25): qemu's
# virt machine, emulated (TCG: no KVM), booted from Debian trixie's arm64
# kernel with an initramfs of busybox and the caller's files.
#
#   tests/arm64/qemu_run.sh [-t SECONDS] [-l LOG] DIR SCRIPT
#
# DIR's files (static arm64 programs, data) are in the guest's /files,
# the script's working directory; SCRIPT runs there as root under busybox
# sh, its standard input /dev/null, with proc, sysfs, devtmpfs, tracefs
# (/sys/kernel/tracing), debugfs, bpffs (/sys/fs/bpf), cgroup2 and a tmpfs
# /tmp mounted, RLIMIT_MEMLOCK unlimited and lo up. Its output (standard
# output and error together) is this script's standard output, and its exit
# status this script's; its standard error gets one line
# 'GUEST_BOOTED SECONDS (qemu ran N s, -cpu CPU)', SECONDS the guest's
# uptime when the script started: what the boot took.
#
# A guest whose kernel panics, oopses or warns (it prints messages of level
# warning and above: loglevel=5), that does not report the script's exit
# status (it hung, /init died) or outlives SECONDS (default 600) fails
# loudly: a message on stderr with the end of the console's log, exit
# status 125. -l LOG keeps the whole console log (kernel messages
# included) in LOG. GT_QEMU_APPEND adds to the kernel's command line,
# GT_QEMU_CPU replaces -cpu's max,pauth-impdef=on.
#
# scripts/qemu-arm64.sh installs qemu (10 or later: 7.2 runs stale code in
# the slots where uprobes step instructions) and fetches the kernel and
# busybox into ${GT_CACHE:-/var/cache/gotools}/qemu-arm64; this script runs
# it (which does nothing once they are there).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
QDIR=${GT_CACHE:-/var/cache/gotools}/qemu-arm64
TIMEOUT=600
LOG=
HARNESS_FAILED=125

die() { echo "qemu_run.sh: $*" >&2; exit $HARNESS_FAILED; }
usage() { die "usage: qemu_run.sh [-t SECONDS] [-l LOG] DIR SCRIPT"; }

while getopts t:l: opt; do
	case $opt in
	t) TIMEOUT=$OPTARG ;;
	l) LOG=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 2 ] || usage
[ -d "$1" ] || die "$1 is not a directory"
[ -f "$2" ] || die "$2 is not a file"
[[ $TIMEOUT =~ ^[0-9]+$ ]] || die "-t takes seconds, not $TIMEOUT"

"$ROOT/scripts/qemu-arm64.sh" >&2 || die "scripts/qemu-arm64.sh failed"
for f in qemu-system-aarch64 Image busybox; do
	[ -f "$QDIR/$f" ] || die "no $QDIR/$f (scripts/qemu-arm64.sh)"
done

work=$(mktemp -d /tmp/qemu-arm64.XXXXXX)
trap 'rm -rf "$work"' EXIT
# What marks the script's end in the console's output: nothing the script
# prints, nor the kernel, can say it by chance.
mark=GOTOOLS-QEMU-$(od -An -tx1 -N8 /dev/urandom | tr -d ' \n')

# The initramfs: busybox, its applets linked on boot, /init, /run.sh and
# /files. The kernel's own initramfs (built in) already has /dev/console.
root=$work/root
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,files}
cp "$QDIR/busybox" "$root/bin/busybox"
cp -a "$1/." "$root/files/"
cp "$2" "$root/run.sh"
cat >"$root/init" <<EOF
#!/bin/busybox sh
/bin/busybox --install -s
export PATH=/bin:/sbin:/usr/bin:/usr/sbin HOME=/root TERM=dumb
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
exec 0</dev/null 1>/dev/console 2>&1
mount -t tracefs tracefs /sys/kernel/tracing
mount -t debugfs debugfs /sys/kernel/debug
mount -t bpf bpf /sys/fs/bpf
mount -t cgroup2 cgroup2 /sys/fs/cgroup
mount -t tmpfs tmpfs /tmp
mkdir -p /root /run
ulimit -l unlimited
ip link set lo up
echo "$mark BOOTED \$(cut -d' ' -f1 /proc/uptime)"
cd /files
sh /run.sh >/tmp/.run.out 2>&1 </dev/null
rc=\$?
echo "$mark BEGIN"
cat /tmp/.run.out
echo "$mark EXIT \$rc"
poweroff -f
EOF
chmod 755 "$root/init" "$root/run.sh"
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) |
	gzip -1 >"$work/initrd.gz"

# -cpu max with the implementation-defined pointer authentication: the
# architected one (QARMA) is much slower to emulate, and the kernel signs
# every return address with it.
cpu=${GT_QEMU_CPU:-max,pauth-impdef=on}

console=$work/console.log
start=$SECONDS
rc=0
# qemu's loadable modules (audio, display) are none of the guest's
# business, nor are the system's, of another qemu version.
mkdir "$work/modules"
QEMU_MODULE_DIR=$work/modules timeout -k 10 "$TIMEOUT" "$QDIR/qemu-system-aarch64" -M virt -cpu "$cpu" -smp 2 -m 2048 \
	-nographic -nic none -no-reboot -kernel "$QDIR/Image" -initrd "$work/initrd.gz" \
	-append "console=ttyAMA0 panic=-1 loglevel=5 ${GT_QEMU_APPEND:-}" \
	</dev/null >"$console" 2>"$work/qemu.err" || rc=$?
took=$((SECONDS - start))
tr -d '\r' <"$console" >"$work/console"
[ -z "$LOG" ] || cp "$work/console" "$LOG"

# fail_guest MESSAGE: the end of the console's log with MESSAGE.
fail_guest() {
	{
		echo "qemu_run.sh: $1 (after $took s; console log's end:)"
		tail -n 40 "$work/console" | sed 's/^/  | /'
		[ -s "$work/qemu.err" ] && sed 's/^/  qemu: /' "$work/qemu.err"
	} >&2
	exit $HARNESS_FAILED
}

if [ $rc = 124 ] || [ $rc = 137 ]; then
	fail_guest "the guest outlived ${TIMEOUT} s: killed"
fi
# The kernel's messages: the console's lines but the script's output.
awk -v begin="$mark BEGIN" -v end="$mark EXIT " '
	$0 == begin { on = 1; next }
	on && index($0, end) { on = 0; next }
	!on' "$work/console" >"$work/kernel"
if grep -q 'Kernel panic' "$work/kernel"; then
	fail_guest "the guest's kernel panicked"
fi
if grep -qE 'Internal error: Oops|BUG: |Unable to handle kernel|WARNING: CPU: ' "$work/kernel"; then
	fail_guest "the guest's kernel oopsed or warned: $(grep -m1 -E 'Internal error: Oops|BUG: |Unable to handle kernel|WARNING: CPU: ' "$work/kernel")"
fi
[ $rc = 0 ] || fail_guest "qemu-system-aarch64 exited with status $rc"
status=$(sed -n "s/.*$mark EXIT \([0-9]*\)\$/\1/p" "$work/console")
[ -n "$status" ] || fail_guest "the guest did not report the script's exit status"
grep -q "^$mark BEGIN\$" "$work/console" || fail_guest "the guest's output has no beginning"
booted=$(sed -n "s/^$mark BOOTED //p" "$work/console")
echo "GUEST_BOOTED ${booted:-?} (qemu ran $took s, -cpu $cpu)" >&2

# The script's output: after BEGIN, up to EXIT (which may end its last
# line, when that has no newline).
awk -v begin="$mark BEGIN" -v end="$mark EXIT " '
	!on && $0 == begin { on = 1; next }
	on {
		i = index($0, end)
		if (i) { printf "%s", substr($0, 1, i - 1); exit }
		print
	}' "$work/console"
exit "$status"
