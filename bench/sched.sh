#!/bin/bash
# SPDX-License-Identifier: MIT
# Section 6: what following goroutines costs.
#
# 6a. gofunclatency -S on a scheduler-heavy loop: bench/schedloop hands
#     BENCH_SCHED_ITEMS items (20000) through 8 goroutines over unbuffered
#     channels, one main.handoff call per item and stage, each parking on
#     its receive or send. Each round runs it untraced; under gofunclatency
#     -p main.handoff; under gofunclatency -S -p main.handoff; under
#     gofunclatency -S -p main.never, a function never called (the
#     tracker's probes on, no goroutine tracked: what -S costs the
#     goroutines that have no traced call in flight); and under the empty
#     BPF program at the tracker's sites (runtime.casgstatus and
#     runtime.preemptPark), the floor of any probe there. Costs are per
#     handoff, medians over BENCH_ROUNDS rounds minus the untraced median.
# 6b. gofuncgraph: main.f of bench/loop as the root, with main.leaf under
#     it (two recorded calls, four events, a root): its cost per recorded
#     call against the empty BPF program at the same sites
#     (BENCH_GRAPH_ROOTS roots a run, 40000), and the roots a second it
#     records with no event lost, paced by bench/traceloop (-t 1s: no tree
#     printed, each one still built).
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

GOFUNCLATENCY=${GOFUNCLATENCY:-$(dirname "$GOFUNCCOUNT")/gofunclatency}
GOFUNCGRAPH=${GOFUNCGRAPH:-$(dirname "$GOFUNCCOUNT")/gofuncgraph}
for f in "$GOFUNCLATENCY" "$GOFUNCGRAPH"; do
	[[ -x $f ]] || die "missing $f: run make all"
done
SCHEDLOOP=$(dirname "$LOOP")/schedloop
W=$BENCH_WORK/sched
mkdir -p "$W"
ITEMS=${BENCH_SCHED_ITEMS:-20000}
HANDOFFS=$((ITEMS * 8))
N=$BENCH_CALLS

GOROOT=$(dirname "$(dirname "$GO")") GOTOOLCHAIN=local GOFLAGS=-mod=mod \
	GO111MODULE=auto GOCACHE=$BENCH_WORK/gocache \
	"$GO" build -o "$SCHEDLOOP" "$(dirname "${BASH_SOURCE[0]}")/schedloop/main.go" ||
	die "cannot build bench/schedloop with $GO"

# entry_offset BIN SYMBOL: the file offset of a function's entry.
entry_offset() {
	local addr
	addr=$("$GO" tool nm "$1" | awk -v s="$2" '$3 == s { print $1 }')
	[[ -n $addr ]] || die "no $2 in $1"
	file_offset "$1" "0x$addr"
}

hist_count() { sed -nE 's/.*, count: ([0-9]+)$/\1/p' "$1" | tail -1; }

# run RESULTS TARGET CONFIG ARGS...: one run; appends "CONFIG NS" to RESULTS.
run() {
	local results=$1 target=$2 cfg=$3 out ns log
	shift 3
	log=$W/$cfg.log
	: >"$log"
	out=$(measure --log "$log" --target "$target" "$@")
	ns=$(kv ns_per_call "$out")
	[[ $ns != - && -n $ns ]] || die "$cfg: no result ($out); see $log"
	case $cfg in
	latency|split)
		# the 8 last calls see the closed channel
		[[ $(hist_count "$log") == $((HANDOFFS + 8)) ]] ||
			die "$cfg timed $(hist_count "$log") calls of main.handoff, not $((HANDOFFS + 8)): $log" ;;
	graph)
		! grep -q 'events lost' "$log" || die "gofuncgraph lost events: $log" ;;
	esac
	echo "$cfg $ns" >>"$results"
	note "$(printf '%-14s %10s ns/call' "$cfg" "$ns")"
}

# ---- 6a
cas=$(entry_offset "$SCHEDLOOP" runtime.casgstatus)
park=$(entry_offset "$SCHEDLOOP" runtime.preemptPark)
R=$W/results-6a
: >"$R"
T="$SCHEDLOOP -wait -n $ITEMS"
for round in $(seq "$BENCH_ROUNDS"); do
	note "[scheduler loop] round $round/$BENCH_ROUNDS, $HANDOFFS handoffs"
	run "$R" "$T" untraced
	run "$R" "$T" latency -- "$GOFUNCLATENCY" -p '{pid}' main.handoff
	run "$R" "$T" split -- "$GOFUNCLATENCY" -S -p '{pid}' main.handoff
	run "$R" "$T" tracker -- "$GOFUNCLATENCY" -S -p '{pid}' main.never
	run "$R" "$T" floor-sched --marker '^Attached' -- "$FLOOR" -p '{pid}' "$SCHEDLOOP" "$cas" "$park"
done

med() { awk -v c="$2" '$1 == c { print $2 }' "$1" | median; }
runs() { awk -v c="$2" '$1 == c { printf "%s%s", sep, $2; sep = " " }' "$1"; }
overhead() {
	awk -v t="$(med "$1" "$2")" -v u="$(med "$1" untraced)" \
		'BEGIN { printf "%.3f\n", (t - u) / 1000 }'
}
lat=$(overhead "$R" latency)
split=$(overhead "$R" split)
tracker=$(overhead "$R" tracker)
floor=$(overhead "$R" floor-sched)
{
	echo "== 6a. gofunclatency -S on a scheduler-heavy loop: bench/schedloop ($LOOP_GO), $HANDOFFS channel handoffs by 8 goroutines a run, median of $BENCH_ROUNDS runs"
	printf '%-46s %12s %14s  %s\n' TRACER NS/HANDOFF "OVERHEAD us" "RUNS (ns/handoff)"
	row() { printf '%-46s %12s %14s  %s\n' "$1" "$(med "$R" "$2")" "$3" "$(runs "$R" "$2")"; }
	row "untraced" untraced "-"
	row "gofunclatency -p main.handoff" latency "$lat"
	row "gofunclatency -S -p main.handoff" split "$split"
	row "gofunclatency -S -p main.never (no call)" tracker "$tracker"
	row "floor: empty BPF at casgstatus, preemptPark" floor-sched "$floor"
	echo
	echo "-S / without -S (overhead per handoff):          $(ratio "$split" "$lat")"
	echo "-S, no call in flight / empty BPF at its sites:  $(ratio "$tracker" "$floor")  (its BPF's share for untracked goroutines)"
	echo "-S / untraced loop (time):                       $(ratio "$(med "$R" split)" "$(med "$R" untraced)")"
} >"$BENCH_WORK/section6a.txt"

# ---- 6b
# The cost runs: few enough roots that the ring buffer (8 MiB) holds all
# their events whatever the reader's pace, so none is dropped (a dropped
# event costs less than a recorded one).
GN=${BENCH_GRAPH_ROOTS:-40000}
measure --log "$W/graph-site.log" --target "$LOOP -wait -n 1000" -- \
	"$GOFUNCGRAPH" -v -t 1s -p '{pid}' main.f main.leaf >/dev/null
addrs=$(sed -nE 's/^probe main\.(f|leaf) (entry|exit) at (0x[0-9a-f]+) .*/\3/p' "$W/graph-site.log")
[[ $(wc -w <<<"$addrs") -ge 4 ]] || die "gofuncgraph -v printed no probes of main.f and main.leaf: $W/graph-site.log"
offs=()
for a in $addrs; do
	offs+=("$(file_offset "$LOOP" "$a")")
done
R=$W/results-6b
: >"$R"
T="$LOOP -wait -n $GN"
for round in $(seq "$BENCH_ROUNDS"); do
	note "[gofuncgraph] round $round/$BENCH_ROUNDS, $GN roots"
	run "$R" "$T" untraced
	run "$R" "$T" graph -- "$GOFUNCGRAPH" -t 1s -p '{pid}' main.f main.leaf
	run "$R" "$T" floor-graph --marker '^Attached' -- "$FLOOR" -p '{pid}' "$LOOP" "${offs[@]}"
done
# per recorded call: two a root
g=$(awk -v o="$(overhead "$R" graph)" 'BEGIN { printf "%.3f\n", o / 2 }')
fg=$(awk -v o="$(overhead "$R" floor-graph)" 'BEGIN { printf "%.3f\n", o / 2 }')

# Roots a second with none lost: bench/traceloop's f (calling leaf) paced
# at a rate doubled from 20000 roots/s until events are lost or the loop
# cannot keep the rate, then bisected twice; 2 s a run.
TRACELOOP=$(dirname "$LOOP")/traceloop
[[ -x $TRACELOOP ]] || die "missing $TRACELOOP (bench/trace.sh builds it)"
# paced RATE: sets lost and made (the rate the loop kept).
paced() {
	local n=$(($1 * 2)) log=$W/graph-rate-$1.log out
	out=$(measure --log "$log" --target "$TRACELOOP -wait -n $n -rate $1" -- \
		"$GOFUNCGRAPH" -t 1s -p '{pid}' main.f main.leaf)
	[[ $(kv ns_per_call "$out") != - ]] || die "gofuncgraph at $1 roots/s: no result ($out); see $log"
	lost=$(sed -nE 's/^([0-9]+) events lost.*/\1/p' "$log")
	lost=${lost:-0}
	made=$(awk -v t="$(kv ns_per_call "$out")" 'BEGIN { printf "%.0f\n", 1e9 / t }')
	note "[gofuncgraph rate] $1 roots/s asked, ${made} made: $lost events lost"
	echo "$1 ${made} $lost" >>"$W/graph-rates"
}
: >"$W/graph-rates"
good=0 bad=0 rate=20000 why=
# ok: nothing lost, and the loop kept (90% of) the rate it was asked
ok() { ((lost == 0 && made >= rate * 9 / 10)); }
while ((rate <= 2000000)); do
	paced "$rate"
	if ok; then
		good=$rate
		rate=$((rate * 2))
	else
		bad=$rate
		break
	fi
done
for _ in 1 2; do
	((bad > 0)) || break
	rate=$(((good + bad) / 2))
	paced "$rate"
	if ok; then good=$rate; else bad=$rate; fi
done
if awk '$3 > 0 { l = 1 } END { exit !l }' "$W/graph-rates"; then
	why="events were lost at $(awk '$3 > 0 { print $1; exit }' "$W/graph-rates") roots/s"
else
	why="no event lost at any rate: the loop's own top speed under the probes"
fi
{
	echo "== 6b. gofuncgraph: root main.f with main.leaf under it (bench/loop, $LOOP_GO), $GN roots a run, median of $BENCH_ROUNDS runs"
	printf '%-46s %12s %14s  %s\n' TRACER NS/ROOT "us/CALL" "RUNS (ns/root)"
	printf '%-46s %12s %14s  %s\n' "untraced" "$(med "$R" untraced)" "-" "$(runs "$R" untraced)"
	printf '%-46s %12s %14s  %s\n' "gofuncgraph -t 1s -p main.f main.leaf" "$(med "$R" graph)" "$g" "$(runs "$R" graph)"
	printf '%-46s %12s %14s  %s\n' "floor: empty BPF, same sites" "$(med "$R" floor-graph)" "$fg" "$(runs "$R" floor-graph)"
	echo
	echo "gofuncgraph / floor at its sites, per recorded call: $(ratio "$g" "$fg")"
	echo "paced runs (bench/traceloop main.f, 2 s): ROOTS/S ASKED, MADE, EVENTS LOST"
	sed 's/^/    /' "$W/graph-rates"
	echo "roots a second recorded with none lost: $(awk '$3 == 0 && $2 > m { m = $2 } END { print m + 0 }' "$W/graph-rates") ($why)"
} >"$BENCH_WORK/section6b.txt"
