#!/bin/bash
# SPDX-License-Identifier: MIT
# Section 4: gofunclatency.
#
# 4a. What one timed call of main.f (bench/loop) costs. Each round runs the
#     loop untraced; under gofunclatency -p; under bpftrace timing it the
#     way bpftrace users do (a uprobe on the entry byte storing nsecs by
#     tid, a uprobe on each RET taking the delta into a hist(); never a
#     uretprobe, which breaks Go); and under the empty BPF program
#     (build/bench/uprobe_floor) at gofunclatency's own sites and at the
#     entry byte + RETs. Overheads are medians over BENCH_ROUNDS rounds
#     minus the untraced median, as in section 2. The sites come from
#     gofunclatency -v, which prints virtual addresses; the RETs go to
#     bpftrace as file offsets with --unsafe, because bpftrace 0.17 as
#     Debian builds it cannot check an offset inside a symbol and refuses
#     main.f+OFF.
# 4b. 8 goroutines call main.f of bench/latloop BENCH_LAT_CALLS times in
#     all (1000000), in 4 phases. Between phases, when no call is in
#     flight, and once 0.5 s into each phase, the entries of gofunclatency's
#     pairing map and the memlock of its maps are read (their ids from
#     /proc/PID/fdinfo); its VmRSS is sampled every 0.2 s all along.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

GOFUNCLATENCY=${GOFUNCLATENCY:-$(dirname "$GOFUNCCOUNT")/gofunclatency}
[[ -x $GOFUNCLATENCY ]] || die "missing $GOFUNCLATENCY: run make all"
LATLOOP=$(dirname "$LOOP")/latloop
W=$BENCH_WORK/latency
mkdir -p "$W"
N=$BENCH_CALLS
N2=${BENCH_LAT_CALLS:-1000000}
PHASES=4

GOROOT=$(dirname "$(dirname "$GO")") GOTOOLCHAIN=local GOFLAGS=-mod=mod \
	GO111MODULE=auto GOCACHE=$BENCH_WORK/gocache \
	"$GO" build -o "$LATLOOP" "$(dirname "${BASH_SOURCE[0]}")/latloop/main.go" ||
	die "cannot build bench/latloop with $GO"

# ---- 4a. per call
measure --log "$W/site.log" --target "$LOOP -wait -n 1000" -- \
	"$GOFUNCLATENCY" -v -p '{pid}' main.f >/dev/null
read -r site_addr site_kind < <(sed -nE \
	's/^probe main\.f entry at (0x[0-9a-f]+) \(([a-z-]+)\), g from .*/\1 \2/p' \
	"$W/site.log") || die "gofunclatency -v printed no entry probe for main.f: $W/site.log"
rets=$(sed -nE 's/^probe main\.f exit at (0x[0-9a-f]+) \(ret\)$/\1/p' "$W/site.log")
[[ -n $rets ]] || die "gofunclatency -v printed no RET of main.f: $W/site.log"
! grep -q '^probe main\.f exit at .*(tail jmp)' "$W/site.log" ||
	die "main.f has a tail jmp exit; bpftrace's script here only probes RETs: $W/site.log"
entry_addr=0x$("$GO" tool nm "$LOOP" | awk '$3 == "main.f" { print $1 }')
[[ $entry_addr != 0x ]] || die "no main.f in $LOOP"
site_off=$(file_offset "$LOOP" "$site_addr")
entry_off=$(file_offset "$LOOP" "$entry_addr")
ret_offs=()
for r in $rets; do
	ret_offs+=("$(file_offset "$LOOP" "$r")")
done
nrets=${#ret_offs[@]}
note "main.f: entry $entry_addr; gofunclatency probes $site_addr ($site_kind) and $nrets RET(s): ${rets//$'\n'/ }"

BT_PROG="BEGIN { printf(\"attached\\n\"); }
uprobe:$LOOP:main.f { @start[tid] = nsecs; }
$(printf "uprobe:$LOOP:%s,\n" "${ret_offs[@]}" | sed '$ s/,$//')
/@start[tid]/ { @ns = hist(nsecs - @start[tid]); delete(@start[tid]); }"
echo "$BT_PROG" >"$W/latency.bt"

# hist_count LOG: the calls in the last histogram gofunclatency printed.
hist_count() { sed -nE 's/.*, count: ([0-9]+)$/\1/p' "$1" | tail -1; }
# bt_hist_count LOG: the sum of bpftrace's @ns histogram.
bt_hist_count() {
	awk '/^@ns:/ { on = 1; next } on && /^\[/ { c += $3 } END { print c + 0 }' "$1"
}

run() {
	local cfg=$1 out ns c log=$W/$1.log
	shift
	: >"$log"
	out=$(measure --log "$log" --target "$LOOP -wait -n $N" "$@")
	ns=$(kv ns_per_call "$out")
	[[ $ns != - && -n $ns ]] || die "$cfg: no result ($out); see $log"
	case $cfg in
	gofunclatency)
		c=$(hist_count "$log")
		[[ $c == "$N" ]] || die "gofunclatency timed '${c}' calls of main.f, not $N: $log" ;;
	bpftrace)
		# Keyed by thread: a call whose goroutine moved is lost, so a
		# few missing calls are the method's, not a failure.
		c=$(bt_hist_count "$log")
		[[ $c -gt $((N * 9 / 10)) ]] || die "bpftrace timed $c calls of main.f, not about $N: $log"
		echo "$c" >>"$W/bt_counts" ;;
	esac
	echo "$cfg $ns" >>"$W/results"
	note "$(printf '%-14s %10s ns/call' "$cfg" "$ns")"
}

: >"$W/results"
: >"$W/bt_counts"
for round in $(seq "$BENCH_ROUNDS"); do
	note "[latency per call] round $round/$BENCH_ROUNDS, $N calls"
	run untraced
	run gofunclatency -- "$GOFUNCLATENCY" -p '{pid}' main.f
	run floor-site --marker '^Attached' -- "$FLOOR" -p '{pid}' "$LOOP" "$site_off" "${ret_offs[@]}"
	run floor-entry --marker '^Attached' -- "$FLOOR" -p '{pid}' "$LOOP" "$entry_off" "${ret_offs[@]}"
	run bpftrace --marker '^attached' -- "${BPFTRACE[@]}" --unsafe -p '{pid}' "$W/latency.bt"
done

med() { awk -v c="$1" '$1 == c { print $2 }' "$W/results" | median; }
runs() { awk -v c="$1" '$1 == c { printf "%s%s", sep, $2; sep = " " }' "$W/results"; }
overhead() {
	awk -v t="$(med "$1")" -v u="$(med untraced)" \
		'BEGIN { printf "%.3f\n", (t - u) / 1000 }'
}
g=$(overhead gofunclatency)
fs=$(overhead floor-site)
fe=$(overhead floor-entry)
bt=$(overhead bpftrace)
goal=$(ratio "$g" "$bt")
{
	echo "== 4a. Cost per timed call: main.f of bench/loop ($LOOP_GO), $N calls a run, median of $BENCH_ROUNDS runs"
	printf '%-36s %-30s %10s %12s  %s\n' TRACER "PROBED INSTRUCTIONS" NS/CALL "OVERHEAD us" "RUNS (ns/call)"
	row() { printf '%-36s %-30s %10s %12s  %s\n' "$1" "$2" "$(med "$3")" "$4" "$(runs "$3")"; }
	row "untraced" "-" untraced "-"
	row "gofunclatency -p" "$site_addr ($site_kind) + $nrets ret" gofunclatency "$g"
	row "floor: empty BPF, same sites" "$site_addr ($site_kind) + $nrets ret" floor-site "$fs"
	row "floor: empty BPF, entry byte + RET" "$entry_addr (entry) + $nrets ret" floor-entry "$fe"
	row "bpftrace -p, @start[tid] + hist()" "$entry_addr (entry) + $nrets ret" bpftrace "$bt"
	echo
	echo "gofunclatency / bpftrace (entry byte + RET):       $goal"
	echo "gofunclatency / empty BPF at entry byte + RET:     $(ratio "$g" "$fe")"
	echo "gofunclatency / floor at its sites:                $(ratio "$g" "$fs")  (its BPF programs' share)"
	echo "calls bpftrace timed (keyed by thread), per run:   $(paste -sd' ' "$W/bt_counts") of $N"
	if awk -v r="$goal" 'BEGIN { exit !(r ~ /^[0-9.]+$/ && r <= 0.6) }'; then
		echo "Goal gofunclatency <= 0.6 x the entry byte + RET pair (bpftrace): MET ($goal)"
	else
		echo "Goal gofunclatency <= 0.6 x the entry byte + RET pair (bpftrace): NOT MET ($goal)"
	fi
} >"$BENCH_WORK/section4a.txt"

# ---- 4b. memory over a million calls under 8 goroutines

# wait_line FILE REGEX SECONDS: wait until a line of FILE matches REGEX.
wait_line() {
	local i
	for ((i = 0; i < $3 * 20; i++)); do
		grep -qE "$2" "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}

# tool_maps PID: "ID TYPE MEMLOCK" for each BPF map PID holds.
tool_maps() {
	local fd
	for fd in /proc/"$1"/fd/*; do
		[[ $(readlink "$fd") == anon_inode:bpf-map ]] || continue
		awk '$1 == "map_id:" { id = $2 } $1 == "map_type:" { t = $2 }
			$1 == "memlock:" { m = $2 } END { print id, t, m }' \
			"/proc/$1/fdinfo/${fd##*/}"
	done
}

# snapshot LABEL: the pairing map's entries, the maps' memlock, VmRSS.
snapshot() {
	local maps starts entries mem rss
	maps=$(tool_maps "$tp")
	# The pairing map: the tool's LRU hash (BPF_MAP_TYPE_LRU_HASH, 9)
	# named starts.
	starts=$(for id in $(awk '$2 == 9 { print $1 }' <<<"$maps"); do
		bpftool -j map show id "$id" |
			python3 -c 'import json, sys; m = json.load(sys.stdin); print(m["id"] if m["name"] == "starts" else "")'
	done)
	[[ $(wc -w <<<"$starts") -eq 1 ]] || die "no single LRU hash map named starts in gofunclatency $tp: $maps"
	entries=$(bpftool -j map dump id "$starts" |
		python3 -c 'import json, sys; print(len(json.load(sys.stdin)))') ||
		die "cannot dump map $starts"
	mem=$(awk '{ s += $3 } END { print s }' <<<"$maps")
	rss=$(awk '$1 == "VmRSS:" { print $2 }' "/proc/$tp/status")
	printf '%-24s %16s %20s %14s\n' "$1" "$entries" "$mem" "$rss" >>"$W/mem_rows"
	note "[latency memory] $1: $entries calls in flight, maps $mem B, VmRSS $rss kB"
}

note "[latency memory] $N2 calls of main.f under 8 goroutines, $PHASES phases"
rm -f "$W/ctl"
mkfifo "$W/ctl"
"$LATLOOP" -wait -n "$N2" -g 8 -phases "$PHASES" <"$W/ctl" >"$W/latloop.out" 2>&1 &
lp=$!
exec {ctl}>"$W/ctl"
cleanup() {
	[[ -z ${sp:-} ]] || kill "$sp" 2>/dev/null || true
	[[ -z ${tp:-} ]] || kill "$tp" 2>/dev/null || true
	kill "$lp" 2>/dev/null || true
}
trap cleanup EXIT
wait_line "$W/latloop.out" '^ready$' 30 || die "latloop did not start: $W/latloop.out"
"$GOFUNCLATENCY" -p "$lp" main.f >"$W/memory.log" 2>&1 &
tp=$!
wait_line "$W/memory.log" '^Tracing ' 60 || die "gofunclatency did not attach: $W/memory.log"
( while [[ -r /proc/$tp/status ]]; do
	awk '$1 == "VmRSS:" { print $2 }' "/proc/$tp/status" 2>/dev/null
	sleep 0.2
done ) >"$W/rss_samples" &
sp=$!
: >"$W/mem_rows"
snapshot "attached, 0 calls"
t0=$(date +%s.%N)
for p in $(seq "$PHASES"); do
	echo go >&"$ctl"
	# Once while calls run, to see the entries of calls in flight.
	sleep 0.5
	if grep -q "^phase $p/$PHASES: " "$W/latloop.out"; then
		snapshot "phase $p (over at 0.5 s)"
	else
		snapshot "phase $p, running"
	fi
	wait_line "$W/latloop.out" "^phase $p/$PHASES: " 600 ||
		die "latloop did not finish phase $p: $W/latloop.out"
	snapshot "after $(sed -nE "s,^phase $p/$PHASES: ([0-9]+) calls$,\\1,p" "$W/latloop.out") calls"
done
t1=$(date +%s.%N)
kill -INT "$tp"
wait "$tp" || die "gofunclatency failed: $(tail -3 "$W/memory.log")"
tp=
wait "$sp" || true
sp=
exec {ctl}>&-
wait "$lp" || die "latloop failed: $W/latloop.out"
got=$(hist_count "$W/memory.log")
read -r first max last nsamples < <(awk 'NR == 1 { f = $1 } $1 > m { m = $1 } { l = $1 }
	END { print f, m, l, NR }' "$W/rss_samples")
{
	echo "== 4b. gofunclatency over $N2 calls of main.f under 8 goroutines (bench/latloop, GOMAXPROCS $(nproc)), $PHASES phases"
	printf '%-24s %16s %20s %14s\n' WHEN "PAIRING ENTRIES" "BPF MAPS MEMLOCK B" "VmRSS kB"
	cat "$W/mem_rows"
	echo "(PAIRING ENTRIES: calls in flight in the map that pairs entries with returns)"
	echo
	echo "calls timed: $got of $N2 in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"
	echo "gofunclatency VmRSS, $nsamples samples every 0.2 s: first $first kB, max $max kB, last $last kB"
	[[ $got == "$N2" ]] || echo "MISMATCH: gofunclatency timed $got calls, the program made $N2"
} >"$BENCH_WORK/section4b.txt"
