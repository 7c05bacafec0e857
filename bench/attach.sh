#!/bin/bash
# SPDX-License-Identifier: MIT
# Section 1: attach and detach time for 1, 100, 1000 and all functions of
# BIN (a large stripped Go binary), gofunccount against bpftrace on the same
# probes; and, measured first, each tool (gofunccount, gofunclatency,
# gotrace r:) on one function and on the whole binary, and on the whole of SERVER (Debian's
# caddy: the 45,810-function HTTP server whose start-up issue 9 bounds),
# with the CPU the tool used until it was ready. No process runs BIN or
# SERVER: the tools attach to the file.
#
# The functions are the first N that `gofunccount -v BIN:'*'` lists (the
# order of the binary's function table). gofunccount gets them as
# -r '^(f1|f2|...)$'; bpftrace gets the file offsets gofunccount -v printed
# for them (BIN is stripped: bpftrace cannot look names up, it takes
# offsets with --unsafe), one probe each, counting per probe like
# gofunccount does. Attach is the time from start to "Tracing ..." (for
# bpftrace, to the output of its BEGIN probe, which runs once every probe is
# attached); detach the time from SIGINT to exit.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

W=$BENCH_WORK/attach
mkdir -p "$W"

note "[attach] listing the functions of $BIN"
out=$(measure --log "$W/list.log" --hold 0 -- "$GOFUNCCOUNT" -v "$BIN:*")
[[ $(kv exit "$out") == 0 ]] ||
	die "gofunccount -v '$BIN:*' failed ($out): $(head -3 "$W/list.log")"
# NAME<TAB>OFFSET for every probe; NAME without " [inlined]".
sed -nE 's/^probe (.*) at 0x[0-9a-f]+ \([a-z-]+, file offset (0x[0-9a-f]+)\)$/\1\t\2/p' \
	"$W/list.log" | sed -E 's/ \[inlined\]\t/\t/' >"$W/probes.tsv"
cut -f1 "$W/probes.tsv" | awk '!seen[$0]++' >"$W/names.txt"
total=$(wc -l <"$W/names.txt")
[[ $total -gt 0 ]] || die "gofunccount -v listed no probes: $W/list.log"
note "$total functions, $(wc -l <"$W/probes.tsv") probes"

# Every tool on one function and on the whole binary, then on the whole
# server: gofunclatency and gotrace r: put a probe on each exit too (RETs
# and tail JMPs found by disassembling every function), and leave out what
# cannot be traced. attach CPU: the tool's user and system time when it
# printed "Tracing", the kernel's attaching and verifying included. Before
# the bpftrace runs, whose killed processes go on closing their perf events
# in the kernel for minutes, slowing every attach meanwhile.
ONE=runtime.mallocgc
: >"$W/tools"
for tool in gofunccount gofunclatency gotrace; do
	for which in "1:$BIN" "all:$BIN" "all:$SERVER"; do
		n=${which%%:*} bin=${which#*:}
		[[ -f $bin ]] || die "missing $bin (run tests/fixtures/build.sh)"
		pat=$ONE
		[[ $n == all ]] && pat='*'
		case $tool in
		gofunccount) args=("$GOFUNCCOUNT" "$bin:$pat") ;;
		gofunclatency) args=("$GOFUNCLATENCY" "$bin:$pat") ;;
		gotrace) args=("$GOTRACE" "r:$bin:$pat") ;;
		esac
		log=$W/t-$tool-$n-${bin##*/}.log
		note "[attach] $tool, $n: ${args[*]:1}"
		t=$(measure --log "$log" --hold 0 -- "${args[@]}")
		note "$t"
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$tool" "${args[*]:1}" \
			"$(probe_count "$log")" "$(kv attach_s "$t")" \
			"$(kv attach_cpu_s "$t")" "$(kv detach_s "$t")" \
			"$(kv exit "$t")" >>"$W/tools"
	done
done

# ERE-escape each name and join them: ^(a|b|...)$
regex() { sed 's/[][\.*^$(){}+?|]/\\&/g' "$1" | paste -sd'|' | sed 's/.*/^(&)$/'; }

# bpftrace program for the probes of the names in FILE.
bt_program() {
	echo 'BEGIN { printf("attached\n"); }'
	awk -F'\t' -v bin="$BIN" 'NR == FNR { want[$0] = 1; next }
		$1 in want && !dup[$2]++ {
			printf "%suprobe:%s:%s", n++ ? ",\n" : "", bin, $2 }
		END { print "" }' "$1" "$W/probes.tsv"
	echo '{ @[probe] = count(); }'
}

: >"$W/rows"
lingering=()
for n in 1 100 1000 all; do
	if [[ $n != all ]]; then
		[[ $n -lt $total ]] || continue
		head -n "$n" "$W/names.txt" >"$W/names$n.txt"
		gargs=(-r "$BIN:$(regex "$W/names$n.txt")")
	else
		cp "$W/names.txt" "$W/names$n.txt"
		gargs=("$BIN:*")
	fi
	bt_program "$W/names$n.txt" >"$W/bt$n.bt"
	nprobes=$(grep -c '^uprobe:' "$W/bt$n.bt")

	note "[attach] $n functions ($nprobes probes): gofunccount"
	g=$(measure --log "$W/g$n.log" -- "$GOFUNCCOUNT" "${gargs[@]}")
	note "$g"
	gn=$(probe_count "$W/g$n.log")
	if [[ $(kv exit "$g") == 0 && $n != all && $gn != "$n" ]]; then
		die "gofunccount traced ${gn:-no} functions, not $n: $W/g$n.log"
	fi

	note "[attach] $n functions ($nprobes probes): bpftrace (timeout $BENCH_TIMEOUT s a phase)"
	b=$(measure --log "$W/b$n.log" --marker '^attached' -- \
		"${BPFTRACE[@]}" --unsafe "$W/bt$n.bt")
	note "$b"
	[[ $(kv exit "$b") != killed && $(kv exit "$b") != timeout ]] ||
		lingering+=("$(kv pid "$b")")

	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "${n/all/all ($total)}" "$nprobes" \
		"$(kv attach_s "$g")" "$(kv detach_s "$g")" "$(kv exit "$g")" \
		"$(kv attach_s "$b")" "$(kv detach_s "$b")" "$(kv exit "$b")" >>"$W/rows"
	echo "${BIN##*/}, $n functions (section 1)|$(kv maxrss_kb "$g")|$(kv exit "$g")|$(kv maxrss_kb "$b")|$(kv exit "$b")" \
		>>"$BENCH_WORK/rss_rows"
done

{
	echo "== 1. Attach and detach time, seconds: gofunccount vs bpftrace on the same probes of"
	echo "     $BIN ($total functions; bpftrace: one perf event per probe, timeout $BENCH_TIMEOUT s a phase)"
	printf '%-12s %7s | %-24s | %-24s | %s\n' "" "" "gofunccount" "bpftrace" "bpftrace/gofunccount"
	printf '%-12s %7s | %10s %13s | %10s %13s | %10s %9s\n' FUNCTIONS PROBES \
		attach detach attach detach attach detach
	while IFS=$'\t' read -r n np ga gd ge ba bd be; do
		[[ $ge == 0 ]] || { ga="failed:$ge"; gd=-; }
		[[ $be == 0 || $be == killed || $be == timeout ]] || { ba="failed:$be"; bd=-; }
		printf '%-12s %7s | %10s %13s | %10s %13s | %10s %9s\n' "$n" "$np" \
			"$ga" "$gd" "$ba" "$bd" "$(ratio "$ba" "$ga")" "$(ratio "$bd" "$gd")"
	done <"$W/rows"
	for n in 1 100 1000 all; do
		[[ ! -s $W/g$n.log ]] || grep -q '^Tracing' "$W/g$n.log" ||
			echo "gofunccount, $n functions, FAILED: $(head -c 200 "$W/g$n.log" | head -1)..."
	done
	echo
	echo "     each tool on one function and on all of them (whole binary), and on all of"
	echo "     SERVER, $SERVER; attach CPU: the tool's CPU seconds until ready"
	printf '%-14s %-40s %9s | %10s %10s %13s\n' TOOL PROBES FUNCTIONS attach \
		"attach CPU" detach
	while IFS=$'\t' read -r tool what nf ta tc td te; do
		[[ $te == 0 ]] || { ta="failed:$te"; tc=-; td=-; }
		what=${what/$BIN/BIN}
		printf '%-14s %-40s %9s | %10s %10s %13s\n' "$tool" \
			"${what/$SERVER/SERVER}" "${nf:--}" "$ta" "$tc" "$td"
	done <"$W/tools"
	for pid in "${lingering[@]}"; do
		[[ -d /proc/$pid ]] && echo "(bpftrace $pid, killed after the timeout, is still closing its perf events in the kernel)"
	done
	true
} >"$BENCH_WORK/section1.txt"
