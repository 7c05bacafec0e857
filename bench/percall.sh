#!/bin/bash
# SPDX-License-Identifier: MIT
# Section 2: what one traced call of main.f (bench/loop) costs.
#
# The loop runs BENCH_CALLS calls after attach and times itself; each round
# runs it untraced, under gofunccount -p, under the empty BPF program at the
# site gofunccount chose and at the entry byte, and under bpftrace (which
# probes the entry byte). The overhead of a tracer is its loop's ns/call
# minus the untraced one (medians over BENCH_ROUNDS rounds, run interleaved
# so that load on the machine hits every configuration alike).
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

W=$BENCH_WORK/percall
mkdir -p "$W"
N=$BENCH_CALLS
TARGET="$LOOP -wait -n $N"

# Where gofunccount puts its probe: "probe main.f at 0xADDR (KIND, file
# offset 0xOFF)" from -v. The entry byte is at the same distance from it
# in the file as in memory.
measure --log "$W/site.log" --target "$LOOP -wait -n 1000" -- \
	"$GOFUNCCOUNT" -v -p '{pid}' main.f >/dev/null
read -r site_addr site_kind site_off < <(sed -nE \
	's/^probe main\.f at (0x[0-9a-f]+) \(([a-z-]+), file offset (0x[0-9a-f]+)\)$/\1 \2 \3/p' \
	"$W/site.log") || die "gofunccount -v printed no probe for main.f: $W/site.log"
entry_addr=0x$("$GO" tool nm "$LOOP" | awk '$3 == "main.f" { print $1 }')
[[ $entry_addr != 0x ]] || die "no main.f in $LOOP"
entry_off=$(printf '0x%x' $((entry_addr + site_off - site_addr)))
note "main.f: entry $entry_addr (file offset $entry_off); gofunccount probes $site_addr ($site_kind, file offset $site_off)"

BT_PROG="BEGIN { printf(\"attached\\n\"); } uprobe:$LOOP:main.f { @ = count(); }"

# run CONFIG ARGS...: one loop run; appends "CONFIG NS MAXRSS" to results.
run() {
	local cfg=$1 out ns log=$W/$1.log
	shift
	: >"$log"
	out=$(measure --log "$log" --target "$TARGET" "$@")
	ns=$(kv ns_per_call "$out")
	[[ $ns != - && -n $ns ]] || die "$cfg: no result ($out); see $log"
	case $cfg in
	gofunccount)
		[[ $(table_count "$log" main.f) -eq $N ]] ||
			die "gofunccount counted $(table_count "$log" main.f) calls of main.f, not $N: $log" ;;
	bpftrace)
		local c
		c=$(sed -nE 's/^@: ([0-9]+)$/\1/p' "$log")
		[[ -n $c && $c -ge $N ]] || die "bpftrace counted '${c}' calls of main.f, not $N: $log" ;;
	esac
	echo "$cfg $ns $(kv maxrss_kb "$out")" >>"$W/results"
	note "$(printf '%-12s %10s ns/call' "$cfg" "$ns")"
}

: >"$W/results"
for round in $(seq "$BENCH_ROUNDS"); do
	note "[per call] round $round/$BENCH_ROUNDS, $N calls"
	run untraced
	run gofunccount -- "$GOFUNCCOUNT" -p '{pid}' main.f
	run floor-site --marker '^Attached' -- "$FLOOR" -p '{pid}' "$LOOP" "$site_off"
	run floor-entry --marker '^Attached' -- "$FLOOR" -p '{pid}' "$LOOP" "$entry_off"
	run bpftrace --marker '^attached' -- "${BPFTRACE[@]}" -p '{pid}' -e "$BT_PROG"
done

med() { awk -v c="$1" '$1 == c { print $2 }' "$W/results" | median; }
runs() { awk -v c="$1" '$1 == c { printf "%s%s", sep, $2; sep = " " }' "$W/results"; }
# overhead CONFIG: microseconds per call above the untraced loop.
overhead() {
	awk -v t="$(med "$1")" -v u="$(med untraced)" \
		'BEGIN { printf "%.3f\n", (t - u) / 1000 }'
}

g=$(overhead gofunccount)
fs=$(overhead floor-site)
fe=$(overhead floor-entry)
bt=$(overhead bpftrace)
{
	echo "== 2. Cost per traced call: main.f of bench/loop ($LOOP_GO), $N calls a run, median of $BENCH_ROUNDS runs"
	printf '%-30s %-28s %10s %12s  %s\n' TRACER "PROBED INSTRUCTION" NS/CALL "OVERHEAD us" "RUNS (ns/call)"
	row() { printf '%-30s %-28s %10s %12s  %s\n' "$1" "$2" "$(med "$3")" "$4" "$(runs "$3")"; }
	row "untraced" "-" untraced "-"
	row "gofunccount -p" "$site_addr ($site_kind)" gofunccount "$g"
	row "floor: empty BPF, same site" "$site_addr ($site_kind)" floor-site "$fs"
	row "floor: empty BPF, entry byte" "$entry_addr (entry)" floor-entry "$fe"
	row "bpftrace -p, count()" "$entry_addr (entry)" bpftrace "$bt"
	echo
	echo "gofunccount / floor at its site:   $(ratio "$g" "$fs")  (its BPF program's share)"
	echo "floor entry byte / floor its site: $(ratio "$fe" "$fs")  (what the site choice saves)"
	echo "gofunccount / bpftrace:            $(ratio "$g" "$bt")"
	echo "bpftrace / gofunccount:            $(ratio "$bt" "$g")"
	if awk -v g="$g" 'BEGIN { exit !(g <= 1.5) }'; then
		echo "Goal gofunccount <= 1.5 us per call: MET ($g us)"
	else
		echo "Goal gofunccount <= 1.5 us per call: NOT MET ($g us)"
	fi
} >"$BENCH_WORK/section2.txt"

# Peak RSS of the tracers in these runs, for section 3.
peak() { awk -v c="$1" '$1 == c && $3 > m { m = $3 } END { print m + 0 }' "$W/results"; }
echo "main.f of bench/loop, -p PID (section 2)|$(peak gofunccount)|0|$(peak bpftrace)|0" \
	>>"$BENCH_WORK/rss_rows"
