#!/bin/bash
# A real net/http server (a stripped Go 1.27 build) under a real load
# generator (ApacheBench, on loopback, a bounded number of requests),
# traced with '*': every function of the server. The server counts the
# requests its handler served; gofunccount's count of that handler must be
# the number of requests ApacheBench sent and completed, and the server
# must serve every request, traced or not. With --max-overhead 5, once the
# tool has tried its probes under the load and left out or detached what it
# must, the server serves at 90% or more of its untraced rate.
source "$(dirname "$0")/lib.sh"

TOOL=$BUILD/gofunccount
REQUESTS=100
# Enough for a rate: about half a second untraced.
RATE_REQUESTS=6000

# ab_run NAME URL [N]: N (REQUESTS) requests, 4 at a time, bounded in time;
# the completed and failed counts and the rate, as "COMPLETE FAILED RATE".
ab_run() {
	timeout 300 ab -q -s 30 -n "${3:-$REQUESTS}" -c 4 "$2" >"$TMP/$1.ab" 2>&1
	awk '/^Complete requests:/ { c = $3 } /^Failed requests:/ { f = $3 }
	     /^Requests per second:/ { r = $4 }
	     END { print c + 0, f + 0, r + 0 }' "$TMP/$1.ab"
}

# start_server NAME OUT: start the fixture, its output in OUT.out; sets
# spid and addr, or fails test NAME and returns 1.
start_server() {
	start_httpd "$FIX/httpd-go1.27-stripped" "$2" && return 0
	fail "$1" "the server did not start: $(head -2 "$2.out")"
	return 1
}

test_http_server() {
	local f=$FIX/httpd-go1.27-stripped out=$TMP/httpd spid addr tpid
	local untraced traced served count
	need_file "$f" || return
	if ! command -v ab >/dev/null; then
		fail "http server" "ab (ApacheBench) is missing: scripts/setup-deps.sh installs apache2-utils"
		return
	fi
	start_server "http server" "$out" || return
	untraced=$(ab_run untraced "http://$addr/")

	"$TOOL" -p "$spid" '*' >"$out.count" 2>"$out.err" &
	tpid=$!
	wait_tracing "$out.count"
	traced=$(ab_run traced "http://$addr/")
	kill -INT "$tpid"
	wait "$tpid"
	local rc=$?
	kill -TERM "$spid"
	wait "$spid"
	served=$(sed -n 's/^served \([0-9]*\)$/\1/p' "$out.out")
	count=$(awk '$1 == "main.handle" { print $2 }' "$out.count")

	if [[ $untraced == "$REQUESTS 0 "* && $traced == "$REQUESTS 0 "* ]]; then
		pass "ApacheBench: $REQUESTS of $REQUESTS requests, untraced and traced (req/s untraced ${untraced##* }, traced with '*' ${traced##* })"
	else
		fail "ApacheBench" "completed, failed, req/s: untraced $untraced, traced $traced"
	fi
	if [[ $rc -eq 0 && $served == $((2 * REQUESTS)) && $count == "$REQUESTS" ]]; then
		pass "gofunccount '*' on the server: main.handle $count = the requests sent, the server served $served"
	else
		fail "gofunccount '*' on the server" "exit $rc, main.handle ${count:-none}, served ${served:-?}: $(head -3 "$out.err")"
	fi
}

# rates NAME URL N: the rates of N runs of RATE_REQUESTS, one a line.
rates() {
	local i r
	for i in $(seq "$3"); do
		r=$(ab_run "$1-$i" "$2" "$RATE_REQUESTS")
		echo "${r##* }"
	done
}

# median: of the numbers on stdin.
median() {
	sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}

# limit_trial URL SPID OUT: one trial of --max-overhead 5 on the server:
# untraced rates, the tool attached and settled, traced rates, the tool
# gone, untraced rates again. Prints "EXIT TRACED UNTRACED ROUNDS"
# (medians, in requests per second).
limit_trial() {
	local url=$1 spid=$2 out=$3 tpid rounds before rc traced untraced
	rates untraced-before "$url" 4 >"$out.untraced"
	"$TOOL" --max-overhead 5 -p "$spid" '*' >"$out.count" 2>"$out.err" &
	tpid=$!
	wait_tracing "$out.count"
	# Load until its trials are over (it says what it did not attach: on
	# a loaded server, the hot functions) and a run of requests makes the
	# tool detach nothing more.
	for rounds in $(seq 10); do
		before=$(grep -c 'detached\|not attached' "$out.err")
		ab_run settle "$url" "$RATE_REQUESTS" >/dev/null
		grep -q 'probed functions\? not attached' "$out.err" &&
			[[ $(grep -c 'detached\|not attached' "$out.err") == "$before" ]] && break
	done
	traced=$(rates traced "$url" 7 | median)
	kill -INT "$tpid"
	wait "$tpid"
	rc=$?
	rates untraced-after "$url" 4 >>"$out.untraced"
	untraced=$(median <"$out.untraced")
	echo "$rc $traced $untraced $rounds"
}

test_max_overhead() {
	local f=$FIX/httpd-go1.27-stripped out=$TMP/httpd-limit spid addr
	local trial result rc traced untraced rounds tried=
	need_file "$f" || return
	start_server "http server --max-overhead" "$out" || return
	# A shared 2-CPU VM: a rate varies by 20% from run to run, more when
	# a neighbour is busy, and the server gets faster as it warms up (over
	# some 30,000 requests). So: a warm-up, medians of runs of 6000
	# requests (7 traced, 8 untraced taken before and after them), and up
	# to three trials when one falls short (in clean-clone CI runs whole
	# trials fell to 77-90% with the same probes as passing ones; a tool
	# that detached too little would cost the server most of its rate in
	# all three).
	rates warmup "http://$addr/" 8 >/dev/null
	for trial in 1 2 3; do
		result=$(limit_trial "http://$addr/" "$spid" "$out")
		read -r rc traced untraced rounds <<<"$result"
		tried+="trial $trial: exit $rc, $traced req/s traced, $untraced untraced, $(grep -o '[0-9]* \(of [0-9]* \)\?probed functions\? \(not attached\|detached\)' "$out.err" | tr '\n' ' '); "
		[[ $rc -eq 0 ]] && grep -q 'over --max-overhead 5%: [0-9]* \(of [0-9]* \)\?probed functions\? \(not attached\|detached\)' "$out.err" &&
			awk -v t="$traced" -v u="$untraced" 'BEGIN { exit !(t >= 0.9 * u) }' && break
		rc=fail
	done
	kill -TERM "$spid"
	wait "$spid"
	if [[ $rc == 0 ]]; then
		pass "gofunccount --max-overhead 5 '*' on the server: $traced req/s, untraced $untraced (medians; settled after $rounds runs of $RATE_REQUESTS requests; ${tried%; })"
	else
		fail "gofunccount --max-overhead 5 '*' on the server" "$tried $(grep -v '^gofunccount: [0-9]* left out' "$out.err" | head -3)"
	fi
}

# gofunclatency -S and gofuncgraph's waits follow every change of a
# goroutine's status (a probe on runtime.casgstatus...): under load, what
# that tracker costs the server (a quarter of a CPU here) is counted by
# --max-overhead with the rest and said apart in the line at the end; over
# the budget for 100 ms it is detached, said at once, and what is printed
# after says it is partial. Once detached it costs nothing: its average is
# under the budget, and under its rate when it was detached, over the
# 1.5 s or more of load. Meanwhile the functions are checked too: all the
# probes cost under twice the budget in the costliest second
# (gofuncgraph's cost 17% to 23% of a CPU at 5%, until the functions that
# turned hot as the load came were no longer left to run for the 100 ms
# the tracker took to be detached). gofuncgraph's trees under main.handle at 5% check that (its
# functions cost more than the tracker: the root is detached first, and no
# tree follows); its root alone at 15%, which pays for the root (about 13%
# of a CPU) but not for the tracker, that the trees that follow are
# partial.
#
# tracker_detached TOOL PCT THEN PARTIAL ARGS...: TOOL --max-overhead PCT
# ARGS on the server under load says the tracker was detached, THEN, and
# prints a line matching PARTIAL (when not empty).
tracker_detached() {
	local tool=$1 pct=$2 then=$3 partial=$4 out=$TMP/tracker-$1
	local spid addr tpid rc total tracker over worst
	shift 4
	start_server "$tool --max-overhead, the tracker" "$out" || return
	"$BUILD/$tool" --max-overhead "$pct" -p "$spid" "$@" >"$out.txt" 2>"$out.err" &
	tpid=$!
	wait_tracing "$out.txt"
	ab_run "tracker-$tool" "http://$addr/" "$RATE_REQUESTS" >/dev/null
	kill -INT "$tpid"
	wait "$tpid"
	rc=$?
	kill -TERM "$spid"
	wait "$spid"
	total=$(sed -n 's/.*cost the target \([0-9.]*\)% of a CPU on average.*/\1/p' "$out.err")
	tracker=$(sed -n 's/.*, \([0-9.]*\)% the goroutine-state tracker).*/\1/p' "$out.err")
	worst=$(sed -n 's/.*, \([0-9.]*\)% in the costliest second.*/\1/p' "$out.err")
	over=$(sed -n "s/^$tool: over --max-overhead $pct%: the goroutine-state tracker detached at \\([0-9.]*\\)% of a CPU: $then\$/\\1/p" "$out.err")
	if [[ $rc -eq 0 && -n $total && -n $tracker && -n $over && -n $worst ]] &&
		awk -v t="$total" -v k="$tracker" -v o="$over" -v b="$pct" -v w="$worst" \
			'BEGIN { exit !(k >= 0.1 && t >= k && w < 2 * b && o > b && k < o && k < b) }' &&
		{ [[ -z $partial ]] || grep -q -- "$partial" "$out.txt"; }; then
		pass "$tool --max-overhead $pct $* on the server under load: the goroutine-state tracker counted ($tracker% of a CPU on average of the probes' $total%, $worst% in the costliest second), detached at $over% of a CPU${partial:+, what follows marked partial}"
	else
		fail "$tool --max-overhead $pct $* on the server, the tracker" "exit $rc: $(grep -v "^$tool: [0-9]* left out" "$out.err" | tail -2)"
	fi
}

test_http_server
test_max_overhead
tracker_detached gofunclatency 5 "-S splits no call that ends from now on" \
	'^    partial: the goroutine-state tracker was detached over --max-overhead: calls that ended after are not split$' \
	-S main.handle
tracker_detached gofuncgraph 5 "the trees have no waits from now on" '' \
	main.handle
tracker_detached gofuncgraph 15 "the trees have no waits from now on" \
	' (partial: waits stopped over --max-overhead)$' \
	main.handle main.handle
check "no probe left attached" no_links_left
finish
