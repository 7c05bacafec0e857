#!/bin/bash
# --max-overhead from the first second: each tool with '*' (every function
# of the stripped net/http fixture, thousands of them hot under load) and
# --max-overhead 5, on the server while ApacheBench loads it (8 at a time,
# on loopback): its throughput in 1-second windows from the moment the tool
# says "Tracing" (its probes are tried from then on; its start before is
# its own work, not theirs), against untraced windows of the same run.
# Probes are tried in batches before they are kept
# (lib/cli/overhead_limit.h), so no window may stall: when every probe was
# attached at once and the costly ones detached in rounds afterwards, the
# first windows served 13% to 18% of the untraced rate. The tool must say
# what was not attached and what the probes cost, exit 0, leave no link;
# the server must answer every request. Stopped while it still tries, a
# tool says how many functions it did not try.
#
# The goal (issue 22): every window 85% of the untraced rate or more, their
# median 90% or more. On these 2-CPU virtual machines the untraced rate
# itself moves by a fifth from one ten seconds to the next and its lowest
# window is 75% to 96% of its median, so each attempt brackets the tool's
# windows with untraced ones, before and after, and a window must serve
# MIN_PCT% of the lowest untraced window, their median MEDIAN_PCT% of the
# untraced median: the goal's thresholds. Up to ATTEMPTS attempts absorb
# noise; a systematic miss does not pass: the windows of all attempts
# together must keep a median of ALL_MEDIAN_PCT% or more. Until admission
# paid from half the budget with its trials' closing counted, and the
# checks took a function that turns hot at three times the budget at once
# (lib/cli/overhead_limit.h), one attempt in ten or so kept a median near
# 78% in all its windows and the test asked for 80% and 85%; since, 18 of
# 20 first attempts (five runs of 2026-11-27) met the goal, the other two
# at medians of 87% and 92.5%, and in a sixth run one tool met it in its
# second attempt, one in its third (its medians 89%, 86.5%, 95.5%): so
# four attempts.
#
# Load in phases (ab for 2 s, idle for 1 s, as a real server's load comes
# and goes): a function tried while the server idles is not what it costs
# under load. gofunclatency -S '*' (its goroutine-state tracker too) must
# keep what the ledger says the probes cost under the budget on average
# and under PHASED_WORST times it in the costliest second. Until admission
# waited for load to try functions, it kept those of the requests' path
# in the idle second, and each return of the load cost 300 to 500 ms:
# 12% to 16% of a CPU on average, 34% to 44% in the costliest second
# (three runs on 2026-11-29); since, 2.1% and 5.6% to 6.3%.
#
# The model (issue 22): what the probes cost the server measured against
# what the ledger says (the same as the throughput lost per CPU-second
# against the loss predicted), gofunccount's and gofunclatency's, within
# 1.5 x either way, with --max-overhead 25, beside an untraced control
# server (model_case says why).
source "$(dirname "$0")/lib.sh"

FIXTURE=$FIX/httpd-go1.27-stripped
MIN_PCT=85
MEDIAN_PCT=90
WINDOWS=10
UNTRACED_WINDOWS=5
ATTEMPTS=4
ALL_MEDIAN_PCT=85
BUDGET=5
MODEL_BUDGET=25
MODEL_FACTOR=1.5
MODEL_ATTEMPTS=3
PROBE_COST=$ROOT/tests/fixtures/httpd/probe_cost.awk
PHASES=5
PHASED_SECS=10
PHASED_WORST=3
PHASED_ATTEMPTS=2

# window ADDR: the requests ab completes in one second, 8 at a time, and
# its failed requests, as "COMPLETE FAILED".
window() {
	timeout 10 ab -q -s 5 -t 1 -n 10000000 -c 8 "http://$1/" 2>/dev/null |
		awk '/^Complete requests:/ { c = $3 } /^Failed requests:/ { f = $3 }
		     END { print c + 0, f + 0 }'
}

# median N...: the median of the numbers given.
median() {
	printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# windows N: N windows on the running server, their requests into W,
# their failed requests added to FAILED.
windows() {
	local w
	W=()
	for _ in $(seq "$1"); do
		w=$(window "$addr")
		W+=("${w% *}")
		failed=$((failed + ${w#* }))
	done
}

# cpu_ticks PID: its user and system time, in clock ticks.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# start_tool TOOL PCT ARGS...: TOOL --max-overhead PCT on the server, its
# output in OUT.out and OUT.err; returns once it says "Tracing" (or is
# gone, or after 30 s), its pid in the caller's tpid.
start_tool() {
	"$BUILD/$1" --max-overhead "$2" -p "$spid" "${@:3}" >"$out.out" 2>"$out.err" &
	tpid=$!
	for _ in $(seq 300); do
		grep -q '^Tracing' "$out.out" || ! kill -0 "$tpid" 2>/dev/null && break
		sleep 0.1
	done
}

# admit_try TOOL ARGS...: one attempt with --max-overhead $BUDGET:
# untraced windows, the tool's from its "Tracing", untraced again once it
# is gone; the tool's as % of the median of the untraced (before and
# after: the rate of this VM moves by a fifth from one ten seconds to the
# next, untraced) into PCTS, the untraced into UNTRACED, the tool's own
# CPU (% of one, from its "Tracing" to Ctrl-C) into TOOL_CPU. Sets RC,
# the tool's exit status.
admit_try() {
	local tool=$1 tpid before c traced tc0 t0
	shift
	windows "$UNTRACED_WINDOWS"
	before=("${W[@]}")
	start_tool "$tool" "$BUDGET" "$@"
	tc0=$(cpu_ticks "$tpid") t0=$EPOCHREALTIME
	windows "$WINDOWS"
	traced=("${W[@]}")
	TOOL_CPU=$(awk -v c="$(($(cpu_ticks "$tpid") - tc0))" \
		-v hz="$(getconf CLK_TCK)" -v t0="$t0" -v t1="$EPOCHREALTIME" \
		'BEGIN { printf "%.2f", 100 * c / hz / (t1 - t0) }')
	kill -INT "$tpid" 2>/dev/null
	wait "$tpid"
	RC=$?
	windows "$UNTRACED_WINDOWS"
	UNTRACED=("${before[@]}" "${W[@]}")
	untraced=$(median "${UNTRACED[@]}")
	PCTS=()
	for c in "${traced[@]}"; do
		PCTS+=($((100 * c / (untraced ? untraced : 1))))
	done
}

# own_cpu_said ERR: the tool's own CPU it said in ERR at the end (into
# own), beside attaching and detaching (into work), against what /proc
# said of it from "Tracing" to Ctrl-C (TOOL_CPU): they cover about the
# same time (its start before "Tracing" is not in either).
own_cpu_said() {
	own=$(sed -n 's/.*: its own CPU, .*, \([0-9.]*\)% of a CPU on average (not counted above.*/\1/p' "$1")
	work=$(sed -n 's/.*probes cost the target .*(\([0-9.]*\)% attaching and detaching them.*/\1/p' "$1")
	[[ -n $own && -n $work ]] &&
		awk -v own="$own" -v work="$work" -v m="$TOOL_CPU" \
			'BEGIN { d = own + work - m; exit !(d * d <= (1 + m / 4) ^ 2) }'
}

# detached_said OUT TOOL: what the tool said it detached, a line per round
# ("N probed functions detached", SAID their sum), adds up to the detached
# of its last line (DETACHED); gofunccount's table marks as many partial
# (its rows with "detached after", ROWS). The checks between trials
# detach too: until 2026-11-28 what they detached was only counted.
detached_said() {
	DETACHED=$(sed -n 's/.* functions\? not attached, \([0-9]*\) detached.*/\1/p' "$1.err")
	SAID=$(sed -n 's/.*over --max-overhead [0-9.]*%: \([0-9]*\) probed functions\? detached.*/\1/p' "$1.err" |
		awk '{ s += $1 } END { print s + 0 }')
	ROWS=
	[[ -n $DETACHED && $SAID -eq $DETACHED ]] || return 1
	[[ $2 == gofunccount ]] || return 0
	ROWS=$(grep -c 'partial: detached after' "$1.out")
	((ROWS == DETACHED))
}

# admit_case NAME TOOL ARGS...: the tool on the running server (spid,
# addr), up to ATTEMPTS times until one meets the goal; the windows of all
# attempts must meet the median's goal together (a miss that noise does
# not explain fails every attempt, or their median).
admit_case() {
	local name=$1 tool=$2 out=$TMP/admit-$2 failed=0 all=() said= try
	local printed lost min med low untraced met=
	shift 2
	for try in $(seq "$ATTEMPTS"); do
		admit_try "$tool" "$@"
		all+=("${PCTS[@]}")
		min=$(printf '%s\n' "${PCTS[@]}" | sort -n | head -1)
		med=$(median "${PCTS[@]}")
		low=$(printf '%s\n' "${UNTRACED[@]}" | sort -n | head -1)
		low=$((100 * low / untraced))
		said+="${said:+; }windows ${PCTS[*]} (% of $untraced req/s untraced, of ${UNTRACED[*]})"
		[[ $RC -ne 0 || $failed -ne 0 ]] && break
		if ((100 * min >= MIN_PCT * low && med >= MEDIAN_PCT)); then
			met=$try
			break
		fi
	done
	med=$(median "${all[@]}")
	if [[ $RC -ne 0 ]]; then
		fail "$name" "exit $RC: $(head -3 "$out.err")"
	elif [[ $failed -ne 0 ]]; then
		fail "$name" "$failed requests failed; $said"
	elif ! grep -q "probes cost the target [0-9.]*% of a CPU on average ([0-9.]*% attaching and detaching them\(, [0-9.]*% sampling where it runs\)\?), [0-9.]*% in the costliest second; [0-9]* functions\? not attached, [0-9]* detached" "$out.err"; then
		fail "$name" "no line of what the probes cost: $(tail -2 "$out.err")"
	elif ! own_cpu_said "$out.err"; then
		fail "$name" "its own CPU said $own%, measured $TOOL_CPU% from \"Tracing\" on (of which $work% attaching and detaching)"
	elif ! grep -q "over --max-overhead 5%: [0-9]* of [0-9]* probed functions not attached" "$out.err"; then
		fail "$name" "nothing said not attached on a server this busy: $(tail -2 "$out.err")"
	elif ! detached_said "$out" "$tool"; then
		fail "$name" "${DETACHED:-no count of the} detached at the end, $SAID said detached${ROWS:+, $ROWS rows marked so}"
	elif [[ -z $met ]]; then
		fail "$name" "$said: a window under $MIN_PCT% of the lowest untraced or a median under $MEDIAN_PCT% in each of $ATTEMPTS attempts"
	elif ((med < ALL_MEDIAN_PCT)); then
		fail "$name" "$said: the median of all $try attempts' windows $med%, under $ALL_MEDIAN_PCT%"
	elif ! events_kept "$out"; then
		fail "$name" "$lost events lost, $printed lines printed: the events of the probes kept are not read while the others are tried"
	else
		pass "$name: attempt $met of $ATTEMPTS: $said; $(grep -o 'probes cost.*' "$out.err"), each said${ROWS:+ and marked}; its own CPU $own% ($TOOL_CPU% measured)${printed:+; $printed lines printed, $lost events lost}"
	fi
}

# failed_run NAME OUT: fail NAME and return 0 when the tool's last
# attempt exited non-zero (RC; what OUT.err began with said) or a request
# failed (FAILED).
failed_run() {
	if [[ $RC -ne 0 ]]; then
		fail "$1" "exit $RC: $(head -3 "$2.err")"
	elif [[ $failed -ne 0 ]]; then
		fail "$1" "$failed requests failed"
	else
		return 1
	fi
}

# phased_try: one attempt of phased_case: PHASES phases of load, the tool
# from the first one's 0.3 s for PHASED_SECS from its "Tracing"; the
# failed requests added to FAILED, RC the tool's exit status, AVERAGE and
# WORST what the ledger said the probes cost (% of a CPU).
phased_try() {
	local tpid lpid
	for _ in $(seq "$PHASES"); do
		timeout 10 ab -q -s 5 -t 2 -n 10000000 -c 8 "http://$addr/" 2>/dev/null |
			sed -n 's/^Failed requests: *//p'
		sleep 1
	done >"$out.failed" &
	lpid=$!
	sleep 0.3
	start_tool gofunclatency "$BUDGET" -S '*'
	sleep "$PHASED_SECS"
	kill -INT "$tpid" 2>/dev/null
	wait "$tpid"
	RC=$?
	wait "$lpid"
	failed=$((failed + $(awk '{ s += $1 } END { print s + 0 }' "$out.failed")))
	AVERAGE=$(sed -n 's/.*probes cost the target \([0-9.]*\)% of a CPU on average.*/\1/p' "$out.err")
	WORST=$(sed -n 's/.*, \([0-9.]*\)% in the costliest second.*/\1/p' "$out.err")
}

# phased_case: gofunclatency -S --max-overhead BUDGET '*' under load in
# phases: the probes' cost, as the ledger says it, under the budget on
# average and under PHASED_WORST times it in the costliest second, in one
# of PHASED_ATTEMPTS attempts.
phased_case() {
	local name="gofunclatency -S --max-overhead $BUDGET '*', load in phases"
	local out=$TMP/phased failed=0 said= met= try
	for try in $(seq "$PHASED_ATTEMPTS"); do
		phased_try
		[[ $RC -ne 0 || $failed -ne 0 || -z $AVERAGE || -z $WORST ]] && break
		said+="${said:+; }$AVERAGE% on average, $WORST% in the costliest second"
		if awk -v a="$AVERAGE" -v w="$WORST" -v b="$BUDGET" -v x="$PHASED_WORST" \
			'BEGIN { exit !(a <= b && w <= x * b) }'; then
			met=$try
			break
		fi
	done
	failed_run "$name" "$out" && return
	if [[ -z $AVERAGE || -z $WORST ]]; then
		fail "$name" "no line of what the probes cost: $(tail -2 "$out.err")"
	elif [[ -z $met ]]; then
		fail "$name" "$said: over $BUDGET% on average or $((PHASED_WORST * BUDGET))% in the costliest second in each of $PHASED_ATTEMPTS attempts"
	else
		pass "$name: attempt $met of $PHASED_ATTEMPTS: $said"
	fi
}

# paired_windows N: N windows at once on the traced server (spid, addr)
# and on the control (cpid, caddr): the requests each completed into REQ
# and CREQ, their CPU ticks into TICKS and CTICKS, the seconds taken into
# SECS; the traced server's failed requests added to FAILED.
paired_windows() {
	local w c a0 c0 t0=$EPOCHREALTIME wpid
	REQ=0 CREQ=0
	a0=$(cpu_ticks "$spid") c0=$(cpu_ticks "$cpid")
	for _ in $(seq "$1"); do
		window "$caddr" >"$TMP/control.window" &
		wpid=$!
		w=$(window "$addr")
		wait "$wpid"
		c=$(<"$TMP/control.window")
		REQ=$((REQ + ${w% *})) CREQ=$((CREQ + ${c% *}))
		failed=$((failed + ${w#* }))
	done
	TICKS=$(($(cpu_ticks "$spid") - a0)) CTICKS=$(($(cpu_ticks "$cpid") - c0))
	SECS=$(awk -v t0="$t0" -v t1="$EPOCHREALTIME" 'BEGIN { print t1 - t0 }')
}

# model_try TOOL ARGS...: one attempt of the model's check with
# --max-overhead MODEL_BUDGET: paired windows untraced, the tool's from
# its "Tracing", untraced again once it is gone. What the probes cost the
# server, measured beside the control (% of a CPU, into MEASURED; see
# PROBE_COST), and its CPU in the tool's windows (SERVER_CPU); RC, the
# tool's exit status.
model_try() {
	local tool=$1 tpid req ticks creq cticks
	shift
	paired_windows "$UNTRACED_WINDOWS"
	req=$REQ ticks=$TICKS creq=$CREQ cticks=$CTICKS
	start_tool "$tool" "$MODEL_BUDGET" "$@"
	paired_windows "$WINDOWS"
	local treq=$REQ tticks=$TICKS tcreq=$CREQ tcticks=$CTICKS tsecs=$SECS
	kill -INT "$tpid" 2>/dev/null
	wait "$tpid"
	RC=$?
	paired_windows "$UNTRACED_WINDOWS"
	req=$((req + REQ)) ticks=$((ticks + TICKS))
	creq=$((creq + CREQ)) cticks=$((cticks + CTICKS))
	MEASURED= SERVER_CPU=
	read -r MEASURED SERVER_CPU < <(awk -v hz="$(getconf CLK_TCK)" \
		-v req="$req" -v ticks="$ticks" -v creq="$creq" -v cticks="$cticks" \
		-v treq="$treq" -v tticks="$tticks" -v tcreq="$tcreq" \
		-v tcticks="$tcticks" -v secs="$tsecs" -f "$PROBE_COST")
}

# model_case NAME TOOL ARGS...: issue 22's check of the model: what the
# probes cost the server, measured beside a control server (model_try),
# against what the ledger says they cost on average (% of a CPU), within
# a factor of MODEL_FACTOR either way in one of MODEL_ATTEMPTS attempts;
# the same as the share of its throughput per CPU-second lost, measured
# against predicted. Measured against the server's untraced windows alone
# (the loss of its rate against the ledger's cost over its CPU untraced),
# the ratio came out -0.88 to 1.53 in twelve attempts on 2026-11-28 (two
# CI runs failed on it); beside a control, 0.92 to 1.30 in 16 of 17
# attempts that evening, 0.58 in one.
# With --max-overhead MODEL_BUDGET: at 5% the cost is near what the mean
# of ten windows moves by.
model_case() {
	local name=$1 tool=$2 out=$TMP/model-$2 failed=0 said= try
	local ledger ratio met=
	shift 2
	for try in $(seq "$MODEL_ATTEMPTS"); do
		model_try "$tool" "$@"
		[[ $RC -ne 0 || $failed -ne 0 ]] && break
		ledger=$(sed -n 's/.*probes cost the target \([0-9.]*\)% of a CPU on average.*/\1/p' "$out.err")
		[[ -n $ledger && -n $MEASURED ]] || break
		ratio=$(awk -v m="$MEASURED" -v l="$ledger" 'BEGIN { printf "%.2f", (l > 0 ? m / l : 99) }')
		said+="${said:+; }$MEASURED% of a CPU measured, $ledger% said (a loss of $(awk -v m="$MEASURED" -v l="$ledger" -v c="$SERVER_CPU" 'BEGIN { printf "%.1f%% against %.1f%%", 100 * m / c, 100 * l / c }') of the throughput per CPU-second, the server at $SERVER_CPU%): $ratio"
		if awk -v r="$ratio" -v f="$MODEL_FACTOR" 'BEGIN { exit !(r * f >= 1 && r <= f) }'; then
			met=$try
			break
		fi
	done
	failed_run "$name" "$out" && return
	if [[ -z $ledger ]]; then
		fail "$name" "no line of what the probes cost: $(tail -2 "$out.err")"
	elif [[ -z $MEASURED ]]; then
		fail "$name" "a server served no request in a window"
	elif [[ -z $met ]]; then
		fail "$name" "$said: not within $MODEL_FACTOR x in $MODEL_ATTEMPTS attempts"
	else
		pass "$name: attempt $met of $MODEL_ATTEMPTS: $said"
	fi
}

# model_cases: the model's checks, beside a control server (model_case),
# warmed up first as the traced one was by the cases before (a Go server
# serves faster after some 30,000 requests).
model_cases() {
	local s=$spid a=$addr cpid caddr
	start_httpd "$FIXTURE" "$TMP/control" || {
		fail "the model" "the control server did not start: $(head -2 "$TMP/control.out")"
		return
	}
	cpid=$spid caddr=$addr spid=$s addr=$a
	timeout 60 ab -q -s 5 -n 30000 -c 8 "http://$caddr/" >/dev/null 2>&1
	model_case "gofunccount --max-overhead $MODEL_BUDGET '*': the model" gofunccount '*'
	model_case "gofunclatency --max-overhead $MODEL_BUDGET '*': the model" gofunclatency '*'
	kill -TERM "$cpid"
	wait "$cpid"
}

# events_kept OUT: gotrace reads its events while probes are tried: what
# the kept probes see is printed, a tenth or less lost (nobody read them
# until all were tried, and 120,000 to 290,000 were lost in ten seconds,
# more than were printed; 0 to 3% since, read between trials). Sets
# PRINTED and LOST. (gofuncgraph reads its own the same
# way, but its root here, the connection's serve, is not kept.)
events_kept() {
	printed= lost=
	[[ $tool == gotrace ]] || return 0
	printed=$(wc -l <"$1.out")
	lost=$(sed -n 's/^\([0-9]*\) events lost.*/\1/p' "$1.err")
	lost=${lost:-0}
	((printed > 100 && lost * 10 <= printed))
}

# interrupted_case: gofunccount '*' stopped (SIGINT) a quarter of a second
# into the load, mostly before all functions are tried: when it had not
# said what it left out yet (at the end of its trials), its last line must
# say how many were not tried, and those and the not attached add up to no
# more than the functions probed; when it had, it must not say so.
interrupted_case() {
	local name="gofunccount --max-overhead 5 '*', interrupted" tried=
	local out=$TMP/admit-interrupted tpid apid rc untried refused probed
	"$BUILD/gofunccount" --max-overhead 5 -p "$spid" '*' >"$out.out" 2>"$out.err" &
	tpid=$!
	window "$addr" >"$out.ab" &
	apid=$!
	sleep 0.25
	grep -q 'probed functions\? not attached' "$out.err" && tried=all
	kill -INT "$tpid" 2>/dev/null
	wait "$tpid"
	rc=$?
	wait "$apid"
	untried=$(sed -n 's/.* detached, \([0-9]*\) not tried (the trace ended first)$/\1/p' "$out.err")
	refused=$(sed -n 's/.*; \([0-9]*\) functions\? not attached, .*/\1/p' "$out.err")
	probed=$(sed -n 's/.* of \([0-9]*\) probed functions not attached.*/\1/p' "$out.err" | head -1)
	if [[ $rc -ne 0 ]]; then
		fail "$name" "exit $rc: $(head -3 "$out.err")"
	elif [[ -n $tried && -n $untried ]]; then
		fail "$name" "all were tried, yet: $(tail -1 "$out.err")"
	elif [[ -z $tried && ( -z $untried || $untried -eq 0 ) ]]; then
		fail "$name" "stopped while trying, no count of functions not tried: $(tail -1 "$out.err")"
	elif [[ -n $probed && -n $untried ]] && ((untried + refused > probed)); then
		fail "$name" "$untried not tried and $refused not attached of $probed"
	else
		pass "$name ${tried:+after all were tried}${tried:-while trying}: $(grep -o '[0-9]* functions\? not attached, [0-9]* detached.*' "$out.err")${probed:+, of $probed}"
	fi
}

test_admission() {
	local out=$TMP/httpd w u=()
	need_file "$FIXTURE" || return
	if ! command -v ab >/dev/null; then
		fail "admission" "ab (ApacheBench) is missing: scripts/setup-deps.sh installs apache2-utils"
		return
	fi
	start_httpd "$FIXTURE" "$out" || {
		fail "admission" "the server did not start: $(head -2 "$out.out")"
		return
	}
	for _ in 1 2; do
		w=$(window "$addr")
		u+=("${w% *}")
	done
	if (($(median "${u[@]}") < 100)); then
		fail "admission" "the server untraced served ${u[*]} requests a second"
	else
		interrupted_case
		admit_case "gofunccount --max-overhead 5 '*'" gofunccount '*'
		admit_case "gofunclatency --max-overhead 5 '*'" gofunclatency '*'
		# bare, gotrace prints the raw words of every function it keeps:
		# its own CPU, on the 2 CPUs the server and ab share, took the
		# first window to 60-65% in three runs (issue 22's notes)
		admit_case "gotrace --max-overhead 5 --no-values '*'" gotrace --no-values '*'
		admit_case "gofuncgraph --max-overhead 5 --no-waits net/http.(*conn).serve '*'" \
			gofuncgraph --no-waits 'net/http.(*conn).serve' '*'
		phased_case
		model_cases
	fi
	kill -TERM "$spid"
	wait "$spid"
	if ! grep -q '^served [0-9]*$' "$out.out"; then
		fail "admission: the server" "did not exit as told: $(tail -2 "$out.out")"
	fi
}

test_admission
no_links_left
finish
