#!/bin/bash
# SPDX-License-Identifier: MIT
# Section 5: gotrace, printing the int and the string main.f of
# bench/traceloop takes ('main.f "%d %s" goarg1, goarg2').
#
# 5a. What one traced call costs. Each round runs the loop untraced; under
#     gotrace -p, its output to a file; under the empty BPF program
#     (build/bench/uprobe_floor) at gotrace's site (from gotrace -v) and at
#     the entry byte; and under bpftrace printing the same values from the
#     entry byte, where Go 1.17+ passes them: RAX, then the string's pointer
#     and length in RBX and RCX. Overheads are medians over BENCH_ROUNDS
#     rounds minus the untraced median, as in section 2. Both tools write to
#     a file, never to measure.py's pipe, which nobody reads while the loop
#     runs; bpftrace's -o file takes everything it prints, so its "attached"
#     goes to stderr through system() (hence --unsafe).
# 5b. How many events a second reach the output with none lost. The loop
#     runs BENCH_TRACE_SECS seconds (2) at BENCH_TRACE_RATE calls a second
#     (10000 to start), doubled until gotrace reports lost events or the
#     loop cannot keep the rate under the probe; then the rate is bisected
#     BENCH_TRACE_BISECT times (2) between the last rate without loss and the
#     first with. The events in gotrace's output are checked against the
#     calls the loop says it made. Then one run at full speed
#     (BENCH_CALLS calls): printed + lost must equal the calls made.
# 5c. %v: 'main.g "%v" goarg1', a pointer to a struct of a string, a
#     pointer and an int (traceloop -value), printed as Go prints it
#     (&{alpha 0xc000010018 0}): the cost per call against the untraced
#     loop and the empty BPF program at gotrace's site, as in 5a (bpftrace
#     has no %v), and the events a second with none lost, as in 5b.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

GOTRACE=${GOTRACE:-$(dirname "$GOFUNCCOUNT")/gotrace}
[[ -x $GOTRACE ]] || die "missing $GOTRACE: run make all"
TRACELOOP=$(dirname "$LOOP")/traceloop
W=$BENCH_WORK/trace
mkdir -p "$W"
N=$BENCH_CALLS
SECS=${BENCH_TRACE_SECS:-2}
RATE0=${BENCH_TRACE_RATE:-10000}
BISECT=${BENCH_TRACE_BISECT:-2}
PROBE='main.f "%d %s" goarg1, goarg2'
VPROBE='main.g "%v" goarg1'

GOROOT=$(dirname "$(dirname "$GO")") GOTOOLCHAIN=local GOFLAGS=-mod=mod \
	GO111MODULE=auto GOCACHE=$BENCH_WORK/gocache \
	"$GO" build -o "$TRACELOOP" "$(dirname "${BASH_SOURCE[0]}")/traceloop/main.go" ||
	die "cannot build bench/traceloop with $GO"

# "${TO_FILE[@]}" FILE CMD...: CMD with its stdout in FILE; its stderr,
# where gotrace says "N events lost", stays with measure.py. gotrace says
# "Tracing" on stdout: measure.py --marker-file FILE finds it there.
TO_FILE=(sh -c 'out=$1; shift; exec "$@" >"$out"' sh)

# events FILE [FUNC]: the lines gotrace printed for FUNC (main.f).
events() { awk -v f="${2:-main.f}" '$5 == f { n++ } END { print n + 0 }' "$1"; }
# lost LOG: the events gotrace said it lost.
lost() { sed -nE 's/^([0-9]+) events lost$/\1/p' "$1" | awk '{ n += $1 } END { print n + 0 }'; }

# ---- 5a. per call

# site_of FUNC PROBE [LOOP ARGS...]: where gotrace probes FUNC, "probe FUNC
# at 0xADDR (KIND)" from -v, into site_addr, site_off (in the file) and
# site_insn (as Go's disassembler names it); FUNC's entry into entry_addr
# and entry_off, at the same distance from it in the file as in memory.
site_of() {
	local fn=$1 probe=$2 type off va fsz
	shift 2
	measure --log "$W/site.log" --target "$TRACELOOP -wait -n 1000 $*" \
		--marker-file "$W/site.out" -- \
		"${TO_FILE[@]}" "$W/site.out" "$GOTRACE" -v -p '{pid}' "$probe" >/dev/null
	site_addr=$(sed -nE "s/^probe ${fn//./\\.} at (0x[0-9a-f]+) \([a-z-]+\)$/\1/p" "$W/site.log")
	[[ -n $site_addr ]] || die "gotrace -v printed no probe for $fn: $W/site.log"
	site_off=
	while read -r type off va _ fsz _; do
		if [[ $type == LOAD ]] && ((site_addr >= va && site_addr < va + fsz)); then
			site_off=$(printf '0x%x' $((site_addr - va + off)))
		fi
	done < <(readelf -lW "$TRACELOOP")
	[[ -n $site_off ]] || die "address $site_addr is not in a loaded segment of $TRACELOOP"
	entry_addr=0x$("$GO" tool nm "$TRACELOOP" | awk -v f="$fn" '$3 == f { print $1 }')
	[[ $entry_addr != 0x ]] || die "no $fn in $TRACELOOP"
	entry_off=$(printf '0x%x' $((entry_addr + site_off - site_addr)))
	site_insn=$("$GO" tool objdump -s "^${fn//./\\.}\$" "$TRACELOOP" |
		awk -v a="$site_addr" '$2 == a { print $4; exit }')
}

site_of main.f "$PROBE"
note "main.f: entry $entry_addr (file offset $entry_off); gotrace probes $site_addr (${site_insn:-?}, file offset $site_off)"

BT_PROG="BEGIN { system(\"echo attached >&2\"); }
uprobe:$TRACELOOP:main.f { printf(\"%d %s\\n\", reg(\"ax\"), str(reg(\"bx\"), reg(\"cx\"))); }"

# bt_events FILE: the value lines bpftrace printed; bt_lost FILE: its
# "Lost N events" lines, summed.
bt_events() { grep -cE '^[0-9]+ (alpha|bravo|charlie|delta)$' "$1" || true; }
bt_lost() { sed -nE 's/^Lost ([0-9]+) events$/\1/p' "$1" | awk '{ n += $1 } END { print n + 0 }'; }

# run CONFIG ARGS...: one loop run (with LOOP_ARGS); appends "CONFIG NS
# EVENTS LOST CALLS" to results (CALLS: what the loop says it made).
LOOP_ARGS=
run() {
	local cfg=$1 out ns ev=- lo=- log=$W/$1.log
	shift
	: >"$log"
	out=$(measure --log "$log" --target "$TRACELOOP -wait -n $N $LOOP_ARGS" "$@")
	ns=$(kv ns_per_call "$out")
	[[ $ns != - && -n $ns ]] || die "$cfg: no result ($out); see $log"
	case $cfg in
	gotrace)
		ev=$(events "$W/gotrace.out")
		lo=$(lost "$log") ;;
	vgotrace)
		ev=$(events "$W/vgotrace.out" main.g)
		lo=$(lost "$log") ;;
	bpftrace)
		ev=$(bt_events "$W/bpftrace.out")
		lo=$(bt_lost "$W/bpftrace.out") ;;
	esac
	echo "$cfg $ns $ev $lo $(kv calls "$out")" >>"$W/results"
	note "$(printf '%-12s %10s ns/call  events %s, lost %s' "$cfg" "$ns" "$ev" "$lo")"
}

: >"$W/results"
for round in $(seq "$BENCH_ROUNDS"); do
	note "[trace per call] round $round/$BENCH_ROUNDS, $N calls"
	run untraced
	run gotrace --marker-file "$W/gotrace.out" -- \
		"${TO_FILE[@]}" "$W/gotrace.out" "$GOTRACE" -p '{pid}' "$PROBE"
	run floor-site --marker '^Attached' -- "$FLOOR" -p '{pid}' "$TRACELOOP" "$site_off"
	run floor-entry --marker '^Attached' -- "$FLOOR" -p '{pid}' "$TRACELOOP" "$entry_off"
	run bpftrace --marker '^attached' -- "${BPFTRACE[@]}" --unsafe \
		-o "$W/bpftrace.out" -p '{pid}' -e "$BT_PROG"
done

med() { awk -v c="$1" '$1 == c { print $2 }' "$W/results" | median; }
runs() { awk -v c="$1" '$1 == c { printf "%s%s", sep, $2; sep = " " }' "$W/results"; }
# counts CONFIG: "EVENTS+LOST" of each run.
counts() { awk -v c="$1" '$1 == c { printf "%s%s+%s", sep, $3, $4; sep = " " }' "$W/results"; }
overhead() {
	awk -v t="$(med "$1")" -v u="$(med untraced)" \
		'BEGIN { printf "%.3f\n", (t - u) / 1000 }'
}
g=$(overhead gotrace)
fs=$(overhead floor-site)
fe=$(overhead floor-entry)
bt=$(overhead bpftrace)
{
	echo "== 5a. Cost per traced call: gotrace '$PROBE' on bench/traceloop ($LOOP_GO), $N calls a run, median of $BENCH_ROUNDS runs"
	printf '%-34s %-22s %10s %12s  %s\n' TRACER "PROBED INSTRUCTION" NS/CALL "OVERHEAD us" "RUNS (ns/call)"
	row() { printf '%-34s %-22s %10s %12s  %s\n' "$1" "$2" "$(med "$3")" "$4" "$(runs "$3")"; }
	row "untraced" "-" untraced "-"
	row "gotrace -p, to a file" "$site_addr (${site_insn:-?})" gotrace "$g"
	row "floor: empty BPF, same site" "$site_addr (${site_insn:-?})" floor-site "$fs"
	row "floor: empty BPF, entry byte" "$entry_addr (entry)" floor-entry "$fe"
	row "bpftrace -p, printf(), to a file" "$entry_addr (entry)" bpftrace "$bt"
	echo
	echo "gotrace / floor at its site:        $(ratio "$g" "$fs")  (what its BPF program and ring buffer add)"
	echo "gotrace / bpftrace:                 $(ratio "$g" "$bt")"
	echo "bpftrace / floor at the entry byte: $(ratio "$bt" "$fe")"
	echo "events printed+lost per run, of $N calls: gotrace $(counts gotrace); bpftrace $(counts bpftrace)"
	echo "(bpftrace's entry byte also fires when morestack restarts main.f: a few more than $N)"
	awk '$1 == "gotrace" && $3 + $4 != $5 { bad = 1 }
		END { if (bad) print "MISMATCH: gotrace printed + lost differs from the calls made" }' "$W/results"
} >"$BENCH_WORK/section5a.txt"

# ---- 5b. events a second with none lost

# paced PROBE FUNC TAG RATE: one run of SECS seconds at RATE calls a second
# (with LOOP_ARGS); sets calls (the loop's count), made (its rate), ev and
# lo, and appends a row to rate_rows-TAG.
paced() {
	local probe=$1 fn=$2 tag=$3 rate=$4 n out log=$W/rate-$3-$4.log
	n=$((rate * SECS))
	: >"$log"
	out=$(measure --log "$log" --target "$TRACELOOP -wait -n $n -rate $rate $LOOP_ARGS" \
		--marker-file "$W/rate.out" -- \
		"${TO_FILE[@]}" "$W/rate.out" "$GOTRACE" -p '{pid}' "$probe")
	[[ $(kv ns_per_call "$out") != - ]] || die "gotrace at $rate calls/s: no result ($out); see $log"
	calls=$(kv calls "$out")
	made=$(awk -v t="$(kv ns_per_call "$out")" 'BEGIN { printf "%.0f\n", 1e9 / t }')
	ev=$(events "$W/rate.out" "$fn")
	lo=$(lost "$log")
	printf '%12s %14s %12s %12s %12s%s\n' "$rate" "$made" "$calls" "$ev" "$lo" \
		"$( ((ev + lo == calls)) || echo "  MISMATCH")" >>"$W/rate_rows-$tag"
	note "[trace rate $tag] $rate calls/s asked, $made made: $calls calls, $ev events, $lo lost"
}

# ok RATE: the last paced run lost nothing and kept (95% of) RATE.
ok() { ((lo == 0 && ev == calls && made * 100 >= $1 * 95)); }

# rate_search PROBE FUNC TAG: doubled from RATE0 until events are lost or
# the loop cannot keep the rate, then bisected; sets good, bad and limit.
rate_search() {
	local i rate=$RATE0
	: >"$W/rate_rows-$3"
	good=0 bad= limit=
	while :; do
		paced "$@" "$rate"
		if ok "$rate"; then
			good=$rate
		elif ((lo == 0 && ev == calls)); then
			limit=$made	# the loop's own top speed under the probe, no loss
			break
		else
			bad=$rate
			break
		fi
		rate=$((rate * 2))
	done
	for ((i = 0; i < BISECT && ${bad:-0} > 0 && bad - good > 1; i++)); do
		rate=$(((good + bad) / 2))
		paced "$@" "$rate"
		if ok "$rate"; then
			good=$rate
		elif ((lo == 0 && ev == calls)); then
			limit=$made
			break
		else
			bad=$rate
		fi
	done
}

# full_speed PROBE FUNC: one run at full speed (BENCH_CALLS calls); sets
# full_ns, full_calls, full_ev, full_lo, full_rate.
full_speed() {
	local log=$W/full.log out
	: >"$log"
	out=$(measure --log "$log" --target "$TRACELOOP -wait -n $N $LOOP_ARGS" \
		--marker-file "$W/full.out" -- \
		"${TO_FILE[@]}" "$W/full.out" "$GOTRACE" -p '{pid}' "$1")
	full_ns=$(kv ns_per_call "$out")
	full_calls=$(kv calls "$out")
	[[ $full_ns != - ]] || die "gotrace at full speed: no result ($out); see $log"
	full_ev=$(events "$W/full.out" "$2")
	full_lo=$(lost "$log")
	full_rate=$(awk -v t="$full_ns" 'BEGIN { printf "%.0f\n", 1e9 / t }')
	note "[trace rate] full speed, $full_rate calls/s: $full_calls calls, $full_ev events, $full_lo lost"
}

# rate_report TITLE TAG: the rows, the highest rate, the full-speed run.
rate_report() {
	echo "$1"
	printf '%12s %14s %12s %12s %12s\n' "CALLS/S ASKED" "CALLS/S MADE" CALLS EVENTS LOST
	cat "$W/rate_rows-$2"
	echo
	if [[ -n $limit ]]; then
		echo "highest rate with no loss: $limit calls/s, the loop's own top speed under the probe (nothing lost at any rate)"
	elif ((good > 0)); then
		echo "highest rate with no loss: $good calls/s (events lost at $bad calls/s)"
	else
		echo "highest rate with no loss: none measured (events lost at $bad calls/s, the first rate)"
	fi
	echo "full speed, $full_rate calls/s: $full_calls calls made, $full_ev events printed, $full_lo lost;" \
		"printed + lost = $((full_ev + full_lo)) $( ((full_ev + full_lo == full_calls)) && echo "= calls made" || echo "!= calls made: MISMATCH")"
}

rate_search "$PROBE" main.f f
full_speed "$PROBE" main.f
rate_report "== 5b. Events a second gotrace prints with none lost: '$PROBE', $SECS s a rate, output to a file" f \
	>"$BENCH_WORK/section5b.txt"

# ---- 5c. %v

LOOP_ARGS=-value
site_of main.g "$VPROBE" -value
note "main.g: gotrace probes $site_addr (${site_insn:-?}, file offset $site_off)"
: >"$W/results"
for round in $(seq "$BENCH_ROUNDS"); do
	note "[trace %v per call] round $round/$BENCH_ROUNDS, $N calls"
	run untraced
	run vgotrace --marker-file "$W/vgotrace.out" -- \
		"${TO_FILE[@]}" "$W/vgotrace.out" "$GOTRACE" -p '{pid}' "$VPROBE"
	run floor-site --marker '^Attached' -- "$FLOOR" -p '{pid}' "$TRACELOOP" "$site_off"
done
v=$(overhead vgotrace)
fs=$(overhead floor-site)
sample=$(awk '$5 == "main.g" { $1 = $2 = $3 = $4 = $5 = ""; sub(/^ +/, ""); print; exit }' "$W/vgotrace.out")
rate_search "$VPROBE" main.g v
full_speed "$VPROBE" main.g
{
	echo "== 5c. %v: gotrace '$VPROBE' on bench/traceloop -value ($LOOP_GO), printing \"$sample\", $N calls a run, median of $BENCH_ROUNDS runs"
	printf '%-34s %-22s %10s %12s  %s\n' TRACER "PROBED INSTRUCTION" NS/CALL "OVERHEAD us" "RUNS (ns/call)"
	row() { printf '%-34s %-22s %10s %12s  %s\n' "$1" "$2" "$(med "$3")" "$4" "$(runs "$3")"; }
	row "untraced" "-" untraced "-"
	row "gotrace -p %v, to a file" "$site_addr (${site_insn:-?})" vgotrace "$v"
	row "floor: empty BPF, same site" "$site_addr (${site_insn:-?})" floor-site "$fs"
	echo
	echo "gotrace %v / floor at its site:     $(ratio "$v" "$fs")  (what its BPF program, the value's reads and the ring buffer add)"
	echo "events printed+lost per run, of $N calls: $(counts vgotrace)"
	awk '$1 == "vgotrace" && $3 + $4 != $5 { bad = 1 }
		END { if (bad) print "MISMATCH: gotrace printed + lost differs from the calls made" }' "$W/results"
	echo
	rate_report "Events a second with none lost: '$VPROBE', $SECS s a rate" v
} >"$BENCH_WORK/section5c.txt"
