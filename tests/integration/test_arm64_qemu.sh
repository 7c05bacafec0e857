#!/bin/bash
# The four tools on arm64 (issue 25), under a real arm64 kernel:
# tests/arm64/qemu_run.sh boots Debian trixie's arm64 kernel in qemu (TCG,
# no KVM) with the tools make ARCH=arm64 built and the arm64 fixtures, and
# runs them all in one boot; their output comes back here and is held to
# the fixtures' own ground truth by the same checks as on x86-64:
#
#   gofunccount   exact counts (compare_counts), Go 1.15 (ABI0), 1.19, 1.23
#                 and 1.27, stripped, PIE and cgo (Go 1.19 and 1.27, linked
#                 by the cross compiler to glibc, which the guest loads),
#                 and gccgo (its fmt.Println is libgo's: counted with
#                 go:fmt.Println); a call that async preemption interrupts
#                 in a restartable sequence (main.add's ADRP and LDR of a
#                 global) is still counted once;
#   gofunclatency exact counts, and totals within LATENCY_PCT% of the
#                 fixture's own (compare_latency), gc and gccgo (calls
#                 keyed by SP, LR at entry and exit): under emulation a probe
#                 hit costs tens of microseconds instead of one, inside
#                 the fixture's timing and outside the tool's, so the 2%
#                 of x86-64 is widened; the fixture's calls last a
#                 millisecond or more; Go 1.19 and 1.27, and 1.27's cgo
#                 build;
#   gotrace       every argument and result of the args fixture as the
#                 fixture prints them with Go's %v (gotrace_compare.py),
#                 Go's arm64 register ABI (R0-R15, F0-F15), Go 1.15's
#                 stack ABI and gccgo's AAPCS64 (results in memory through
#                 X8 kept at entry); bare probes ('main.*' 'r:main.*'), every
#                 argument named from DWARF (gc and gccgo), or in a stripped build the
#                 words the morestack tail spills (gotrace_bare_compare.py);
#   gofuncgraph   the graph fixture's call trees, inlined copies, unwound
#                 frames and waits (graph_trees.py); Go 1.19 and 1.27, and
#                 1.27's cgo build; a gccgo program refused in one line (no
#                 split stacks on arm64).
#
# The cgo and gccgo fixtures load the C library (and libgo.so.21): those
# of Debian's cross compiler (/usr/aarch64-linux-gnu/lib), with the
# loader, in the guest's /lib.
#
# And the guest is what they need: an aarch64 kernel, 6.6 or later
# (uprobe_multi), with BTF. Emulation is slow: durations say nothing about
# real arm64 hardware, and no cost is measured here. Nothing is skipped:
# what cannot run fails.
source "$(dirname "$0")/lib.sh"
export PYTHONPATH=$ROOT/tests/integration
source "$ROOT/tests/integration/gotrace_probes.sh"
ARM64=${GT_BUILD_ARM64:-$ROOT/build-arm64}
COUNT_PATTERN='^(main\..*|fmt\.Println)$'
LATENCY_PATTERN='^main\.lat[A-Za-z]+$'
LATENCY_PCT=10
GRAPH_FUNCS='^main\.(root|a|b|c|inl|join|joiner|rec|thrower|middle|catcher|sleeper|waiter|grow|deep)$'

COUNTS=(count-go1.15-arm64 count-go1.19-arm64 count-go1.23-arm64 count-go1.27-arm64
	count-go1.27-arm64-stripped count-go1.27-arm64-pie
	count-go1.19-arm64-cgo count-go1.27-arm64-cgo count-gccgo-arm64)
LATENCIES=(latency-go1.19-arm64 latency-go1.27-arm64 latency-go1.27-arm64-cgo
	latency-gccgo-arm64)
TRACES=(args-go1.15-arm64 args-go1.19-arm64 args-go1.27-arm64 args-gccgo-arm64)
BARES=(args-go1.27-arm64 args-go1.27-arm64-stripped args-gccgo-arm64)
GRAPHS=(graph-go1.19-arm64 graph-go1.27-arm64 graph-go1.27-arm64-cgo)

guest=$TMP/guest
mkdir "$guest"
for tool in gofunccount gofunclatency gotrace gofuncgraph; do
	if [[ ! -x $ARM64/$tool ]]; then
		fail "arm64 $tool" "$ARM64/$tool does not exist (make ARCH=arm64)"
		finish
		exit 1
	fi
	cp "$ARM64/$tool" "$guest/"
done
for f in "${COUNTS[@]}" "${LATENCIES[@]}" "${TRACES[@]}" "${BARES[@]}" "${GRAPHS[@]}"; do
	need_file "$FIX/$f" || { finish; exit 1; }
	cp "$FIX/$f" "$guest/"
done
# The PIE fixtures' interpreter, and the libraries the cgo and gccgo
# fixtures load, transitively: the cross compiler's, Debian's
# libc6-arm64-cross and libgo21-arm64-cross, into the guest's /lib.
CROSS_LIB=/usr/aarch64-linux-gnu/lib
mkdir "$guest/lib"
want=(ld-linux-aarch64.so.1)
for f in "${COUNTS[@]}" "${LATENCIES[@]}" "${TRACES[@]}" "${GRAPHS[@]}"; do
	[[ $f == *-gccgo-* || $f == *-cgo ]] || continue
	want+=($(readelf -d "$FIX/$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'))
done
while ((${#want[@]})); do
	lib=${want[0]}
	want=("${want[@]:1}")
	[[ -e $guest/lib/$lib ]] && continue
	need_file "$CROSS_LIB/$lib" || { finish; exit 1; }
	# without their DWARF (libgo's is 18 MB of the initramfs), which
	# nothing reads in the guest
	aarch64-linux-gnu-strip --strip-debug -o "$guest/lib/$lib" "$CROSS_LIB/$lib"
	want+=($(readelf -d "$CROSS_LIB/$lib" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'))
done
# abi FIXTURE: the ABI gotrace_probes.sh knows it by.
abi() {
	case $1 in
	*-go1.15-*) echo stack ;;
	*-gccgo-*) echo aapcs64 ;;
	*) echo register ;;
	esac
}
# gotrace's probes per ABI, one argument a line (the guest's shell reads
# them back into its arguments)
for a in register stack aapcs64; do
	probe_args $a yes >"$guest/probes.$a"
done

# The guest's script (busybox sh): each run's output, standard error and
# exit status, and the fixture's ground truth, into /tmp/out, then every
# file there behind a line "@@@ NAME".
cat >"$TMP/run.sh" <<EOF
mkdir /tmp/out
ln -s /files/lib /lib
cd /files
echo "machine \$(uname -m)" >/tmp/out/guest
echo "release \$(uname -r)" >>/tmp/out/guest
[ -r /sys/kernel/btf/vmlinux ] && echo "btf \$(wc -c </sys/kernel/btf/vmlinux)" >>/tmp/out/guest

# run NAME COMMAND...: NAME.out, NAME.err, NAME.rc
run() {
	name=\$1
	shift
	t0=\$(cut -d' ' -f1 /proc/uptime)
	timeout 300 "\$@" >/tmp/out/\$name.out 2>/tmp/out/\$name.err
	echo \$? >/tmp/out/\$name.rc
	echo "\$name \$t0 \$(cut -d' ' -f1 /proc/uptime)" >>/tmp/out/times
}
# two runs at a time where what is checked holds whatever runs beside
# (counts, values; not times): the guest has 2 CPUs, qemu a host thread
# for each, and one run at a time kept one busy
n=0
pair() {
	n=\$((n + 1))
	if [ \$((n % 2)) = 0 ]; then wait; fi
}
for f in ${COUNTS[*]}; do
	run \$f ./gofunccount -c "./\$f /tmp/out/\$f.truth" -r '$COUNT_PATTERN' &
	pair
done
wait
# gccgo's libgo by its short name: fmt.Println there
run go-count-gccgo ./gofunccount -c "./count-gccgo-arm64 /tmp/out/go-count-gccgo.truth" 'go:fmt.Println'
for f in ${LATENCIES[*]}; do
	run \$f ./gofunclatency -j -F -r -c "./\$f /tmp/out/\$f.truth" '$LATENCY_PATTERN'
done
# trace FIXTURE ABI: gotrace with the probes for ABI
trace() {
	f=\$1
	probes=probes.\$2
	set --
	while IFS= read -r p; do set -- "\$@" "\$p"; done <\$probes
	run \$f ./gotrace -c "./\$f /tmp/out/\$f.truth" "\$@"
}
$(for f in "${TRACES[@]}"; do echo "trace $f $(abi "$f") & pair"; done)
wait
for f in ${BARES[*]}; do
	run bare-\$f ./gotrace -c "./\$f /tmp/out/bare-\$f.truth" 'main.*' 'r:main.*'
done
for f in ${GRAPHS[*]}; do
	run \$f ./gofuncgraph -j -r -c "./\$f /tmp/out/\$f.truth" '^main\.root\$' '$GRAPH_FUNCS'
done
run graph-gccgo ./gofuncgraph -c "./count-gccgo-arm64 /tmp/out/graph-gccgo.truth" main.main
for f in /tmp/out/*; do
	echo "@@@ \${f#/tmp/out/}"
	cat "\$f"
done
EOF

start=$SECONDS
if ! bash "$ROOT/tests/arm64/qemu_run.sh" -t 1200 -l "$TMP/console.log" \
	"$guest" "$TMP/run.sh" >"$TMP/guest.out" 2>"$TMP/qemu_run.err"; then
	fail "guest ran the tools" "$(tail -n 30 "$TMP/qemu_run.err") $(tail -n 20 "$TMP/guest.out")"
	finish
	exit 1
fi
pass "guest ran the tools ($((SECONDS - start)) s in all: $(grep '^GUEST_BOOTED' "$TMP/qemu_run.err"))"
out=$TMP/out
mkdir "$out"
awk -v d="$out" '/^@@@ / { f = d "/" $2; printf "" >f; next } f { print >f }' "$TMP/guest.out"

val() { sed -n "s/^$1 //p" "$out/guest" | head -n1; }
check "guest is aarch64" test "$(val machine)" = aarch64
release=$(val release)
IFS=. read -r major minor _ <<<"$release"
check "guest's kernel $release is 6.6 or later (uprobe_multi)" \
	test $((major * 1000 + minor)) -ge 6006
check "guest has /sys/kernel/btf/vmlinux ($(val btf) bytes)" test "$(val btf)" -gt 0

# ran NAME TOOL: the run exited 0 and the fixture wrote its truth; else
# fail NAME with the tool's first error lines.
ran() {
	local rc
	rc=$(cat "$out/$1.rc" 2>/dev/null)
	if [[ $rc != 0 ]]; then
		fail "$1" "$2 exited ${rc:-nothing}: $(head -3 "$out/$1.err" 2>/dev/null)"
		return 1
	fi
	if [[ ! -s $out/$1.truth ]]; then
		fail "$1" "the fixture wrote nothing under $2"
		return 1
	fi
}
took() { awk -v n="$1" '$1 == n { printf "%.1f s", $3 - $2 }' "$out/times"; }

for f in "${COUNTS[@]}"; do
	ran "$f" gofunccount || continue
	last_table "$out/$f.out" >"$out/$f.table"
	# gccgo's fmt.Println is libgo's, not the fixture's
	if [[ $f == *-gccgo-* ]]; then
		grep -v '^fmt\.' "$out/$f.truth" >"$out/$f.truth.main"
		mv "$out/$f.truth.main" "$out/$f.truth"
	fi
	if compare_counts "$out/$f.truth" "$out/$f.table"; then
		pass "gofunccount $f: exact counts ($(took "$f"))"
	else
		fail "gofunccount $f" "counts differ from the fixture's own"
	fi
done
if ran go-count-gccgo gofunccount; then
	want=$(awk '$1 == "fmt.Println" { print $2 }' "$out/go-count-gccgo.truth")
	got=$(last_table "$out/go-count-gccgo.out" | awk '$1 == "fmt.Println" { print $2 }')
	check "gofunccount go:fmt.Println in libgo.so.21, gccgo: $got calls, the fixture's $want" \
		test -n "$want" -a "$want" = "$got"
fi
for f in "${LATENCIES[@]}"; do
	ran "$f" gofunclatency || continue
	if compare_latency "$out/$f.truth" "$out/$f.out" 9 $LATENCY_PCT >"$out/$f.cmp"; then
		pass "gofunclatency $f: exact counts, totals within $LATENCY_PCT% ($(took "$f"))"
	else
		fail "gofunclatency $f" "latencies differ from the fixture's own:$(tr '\n' ';' <"$out/$f.cmp")"
	fi
done
for f in "${TRACES[@]}"; do
	ran "$f" gotrace || continue
	if python3 "$ROOT/tests/integration/gotrace_compare.py" "$(abi "$f")" \
		"$out/$f.truth" "$out/$f.out" "$(probes_for "$(abi "$f")" yes)" >"$out/$f.cmp"; then
		pass "gotrace $f: $(tail -1 "$out/$f.cmp" | sed 's/^ *//') ($(took "$f"))"
	else
		fail "gotrace $f" "values differ from the fixture's own: $(head -5 "$out/$f.cmp" | tr '\n' ' ')"
	fi
done
for f in "${BARES[@]}"; do
	ran "bare-$f" gotrace || continue
	dwarf=dwarf
	[[ $f == *-stripped ]] && dwarf=none
	if python3 "$ROOT/tests/integration/gotrace_bare_compare.py" "$out/bare-$f.truth" \
		"$out/bare-$f.out" reg $dwarf arm64 >"$out/bare-$f.cmp"; then
		pass "gotrace $f, bare probes: $(head -1 "$out/bare-$f.cmp") ($(took "bare-$f"))"
	else
		fail "gotrace $f, bare probes" "$(tr '\n' ';' <"$out/bare-$f.cmp")"
	fi
done
for f in "${GRAPHS[@]}"; do
	ran "$f" gofuncgraph || continue
	if python3 "$ROOT/tests/integration/graph_trees.py" "$out/$f.truth" "$out/$f.out" exact \
		>"$out/$f.cmp"; then
		pass "gofuncgraph $f: $(tail -1 "$out/$f.cmp") ($(took "$f"))"
	else
		fail "gofuncgraph $f" "$(head -5 "$out/$f.cmp" | tr '\n' ' ')"
	fi
done
# gccgo on arm64 runs goroutines on fixed stacks that nothing names: one
# line says so, and the fixture never ran
check "gofuncgraph refuses gccgo on arm64 in one line: $(head -1 "$out/graph-gccgo.err")" \
	bash -c "[[ \$(cat '$out/graph-gccgo.rc') != 0 && \$(wc -l <'$out/graph-gccgo.err') == 1 &&
		! -s '$out/graph-gccgo.out' && ! -e '$out/graph-gccgo.truth' ]] &&
		grep -q '^gofuncgraph: .*no split stacks on arm64' '$out/graph-gccgo.err'"

finish
