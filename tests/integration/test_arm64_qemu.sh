#!/bin/bash
# arm64 under a real arm64 kernel (issue 25): tests/arm64/qemu_run.sh boots
# Debian trixie's arm64 kernel in qemu (TCG, no KVM) and runs a script in
# it. One boot checks that the guest is what the tools will be tested in:
# an aarch64 kernel, 6.6 or later (uprobe_multi), with BTF; that an arm64
# Go program (the count fixture built for arm64) runs there and reports
# its own counts; that uprobes fire on arm64 Go code, through tracefs's
# uprobe_events: one on main.add's second instruction hits as often as the
# fixture says it called main.add, and so does one on its entry when Go's
# asynchronous preemption is off (when it is on, the entry's ADRP is
# executed again whenever a preemption lands on the LDR after it: the
# assembler made the pair of `MOVD sym(SB), R2`, and Go restarts such a
# pair from its start, so an entry probe there counts some calls twice);
# and that BPF runs on a uprobe_multi link there: the uprobemulti fixture
# counts its own functions' calls with one. It also says how long the
# boot and the fixture took. Nothing here is skipped: what cannot run
# fails.
source "$(dirname "$0")/lib.sh"
GO=1.27
BIN=$FIX/count-go$GO-arm64
FUNC=main.add

UM=$FIX/uprobemulti-go$GO-arm64
UM_CALLS=1000

need_file "$BIN" || { finish; exit 1; }
need_file "$UM" || { finish; exit 1; }

# file_offset ELF SYMBOL: SYMBOL's offset in ELF's file, which is what a
# uprobe takes: its address less its LOAD segment's, plus the segment's
# offset.
file_offset() {
	local addr type off va size _
	addr=$(readelf -sW "$1" | awk -v s="$2" '$8 == s && $4 == "FUNC" { print $2; exit }')
	[[ -n $addr ]] || return 1
	addr=$((16#$addr))
	while read -r type off va _ size _; do
		[[ $type == LOAD ]] || continue
		if ((addr >= va && addr < va + size)); then
			printf '0x%x\n' $((addr - va + off))
			return 0
		fi
	done < <(readelf -lW "$1")
	return 1
}

if ! offset=$(file_offset "$BIN" "$FUNC"); then
	fail "offset of $FUNC" "not found in $BIN's symbols and segments"
	finish
	exit 1
fi
second=$(printf '0x%x' $((offset + 4)))

guest=$TMP/guest
mkdir "$guest"
cp "$BIN" "$guest/count"
cp "$UM" "$guest/uprobemulti"
# The guest's script: facts as "KEY VALUE" lines, the fixture's output
# and counts prefixed with what they are.
cat >"$TMP/run.sh" <<EOF
echo "machine \$(uname -m)"
echo "release \$(uname -r)"
[ -r /sys/kernel/btf/vmlinux ] && echo "btf \$(wc -c </sys/kernel/btf/vmlinux)"
echo "booted \$(cut -d' ' -f1 /proc/uptime)"

# The fixture alone: what it costs under TCG.
t0=\$(cut -d' ' -f1 /proc/uptime)
./count /tmp/plain.counts >/tmp/plain.out 2>&1
echo "plain_exit \$?"
echo "plain_took \$t0 \$(cut -d' ' -f1 /proc/uptime)"
sed 's/^/plain_out /' /tmp/plain.out
sed 's/^/plain_count /' /tmp/plain.counts

# Again, with uprobes on $FUNC's first and second instructions: probed
# RUN [VAR=VALUE...], each probe's hits as RUN_profile lines.
T=/sys/kernel/tracing
probed() {
	run=\$1
	shift
	echo 0 >\$T/events/gotools/enable 2>/dev/null
	echo >\$T/uprobe_events
	echo 'p:gotools/entry /files/count:$offset' >>\$T/uprobe_events &&
		echo 'p:gotools/second /files/count:$second' >>\$T/uprobe_events &&
		echo 1 >\$T/events/gotools/enable && echo "\${run}_enabled yes"
	t0=\$(cut -d' ' -f1 /proc/uptime)
	env "\$@" ./count /tmp/\$run.counts >/tmp/\$run.out 2>&1
	echo "\${run}_exit \$?"
	echo "\${run}_took \$t0 \$(cut -d' ' -f1 /proc/uptime)"
	echo 0 >\$T/events/gotools/enable
	sed "s/^/\${run}_out /" /tmp/\$run.out
	sed "s/^/\${run}_count /" /tmp/\$run.counts
	sed "s/^/\${run}_profile /" \$T/uprobe_profile
}
probed probed
probed nopreempt GODEBUG=asyncpreemptoff=1

# A BPF program on a uprobe_multi link.
./uprobemulti $UM_CALLS >/tmp/um.out 2>&1
echo "um_exit \$?"
sed 's/^/um_out /' /tmp/um.out
EOF

start=$SECONDS
out=$TMP/guest.out
if ! bash "$ROOT/tests/arm64/qemu_run.sh" -t 900 -l "$TMP/console.log" \
	"$guest" "$TMP/run.sh" >"$out" 2>"$TMP/qemu_run.err"; then
	fail "guest ran the script" "$(tail -n 50 "$TMP/qemu_run.err") $(tail -n 20 "$out")"
	finish
	exit 1
fi
pass "guest ran the script ($((SECONDS - start)) s in all: $(grep '^GUEST_BOOTED' "$TMP/qemu_run.err"))"

# val KEY: the rest of the first line that starts with KEY.
val() { sed -n "s/^$1 //p" "$out" | head -n1; }

check "guest is aarch64" test "$(val machine)" = aarch64
release=$(val release)
IFS=. read -r major minor _ <<<"$release"
check "guest's kernel $release is 6.6 or later (uprobe_multi)" \
	test $((major * 1000 + minor)) -ge 6006
check "guest has /sys/kernel/btf/vmlinux ($(val btf) bytes)" test "$(val btf)" -gt 0

# fixture_ok RUN: the fixture exited 0, printed its 7 lines, and counted
# FUNC's 100000 calls.
fixture_ok() {
	local want
	want=$(for i in 1 2 3 4 5 6 7; do echo "count: line $i of 7"; done)
	[[ $(val "$1_exit") == 0 ]] || { echo "  exit $(val "$1_exit")"; return 1; }
	[[ $(sed -n "s/^$1_out //p" "$out") == "$want" ]] || { echo "  printed: $(sed -n "s/^$1_out //p" "$out")"; return 1; }
	[[ $(val "$1_count $FUNC") == 100000 ]] || { echo "  $FUNC counted $(val "$1_count $FUNC")"; return 1; }
}
took() { awk '{ printf "%.2f", $2 - $1 }' <<<"$(val "$1_took")"; }
check "count-go$GO-arm64 runs in the guest ($(took plain) s)" fixture_ok plain

# hits RUN EVENT: EVENT's hits in RUN (uprobe_profile: "FILE EVENT HITS",
# EVENT without its group).
hits() { sed -n "s/^$1_profile //p" "$out" | awk -v e="$2" '$2 == e { print $3 }'; }
for run in probed nopreempt; do
	check "uprobes on $FUNC (offsets $offset, $second) registered and enabled ($run)" \
		test "$(val "${run}_enabled")" = yes
	check "count-go$GO-arm64 runs with them ($run, $(took $run) s)" fixture_ok $run
done
want=$(val "probed_count $FUNC")
got=$(hits probed second)
check "uprobe hits on $FUNC's second instruction ($got) = the fixture's own count ($want)" \
	test "${got:-x}" = "${want:-y}"
want=$(val "nopreempt_count $FUNC")
got=$(hits nopreempt entry)
check "uprobe hits on $FUNC's entry, asyncpreemptoff=1 ($got) = the fixture's own count ($want)" \
	test "${got:-x}" = "${want:-y}"
want=$(val "probed_count $FUNC")
got=$(hits probed entry)
check "uprobe hits on $FUNC's entry, preemption on ($got) >= the fixture's own count ($want)" \
	test "${got:-0}" -ge "${want:-1}"
um_ok() {
	[[ $(val um_exit) == 0 ]] &&
		[[ $(val "um_out uprobe_multi main.first") == "$UM_CALLS of $UM_CALLS calls" ]] &&
		[[ $(val "um_out uprobe_multi main.second") == "$((2 * UM_CALLS)) of $((2 * UM_CALLS)) calls" ]] ||
		{ sed -n 's/^um_out /  /p' "$out"; echo "  exit $(val um_exit)"; return 1; }
}
check "a BPF program on a uprobe_multi link counts every call ($(sed -n 's/^um_out uprobe_multi //p' "$out" | paste -sd ';'))" \
	um_ok
echo "# guest: Linux $release; booted at $(val booted) s of guest uptime;" \
	"count took $(took plain) s alone, $(took probed) s with $(hits probed entry)" \
	"+ $(hits probed second) uprobe hits, $(took nopreempt) s with" \
	"$(hits nopreempt entry) + $(hits nopreempt second) (asyncpreemptoff=1)"

finish
