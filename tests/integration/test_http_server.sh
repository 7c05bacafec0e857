#!/bin/bash
# A real net/http server (a stripped Go 1.27 build) under a real load
# generator (ApacheBench, on loopback, a bounded number of requests),
# traced with '*': every function of the server. The server counts the
# requests its handler served; gofunccount's count of that handler must be
# the number of requests ApacheBench sent and completed, and the server
# must serve every request, traced or not. With --max-overhead 5, once the
# tool has detached what it must, the server serves at 90% or more of its
# untraced rate.
source "$(dirname "$0")/lib.sh"

TOOL=$BUILD/gofunccount
REQUESTS=300
# Enough for a rate: about half a second untraced.
RATE_REQUESTS=4000

# ab_run NAME URL [N]: N (REQUESTS) requests, 4 at a time, bounded in time;
# the completed and failed counts and the rate, as "COMPLETE FAILED RATE".
ab_run() {
	timeout 300 ab -q -s 30 -n "${3:-$REQUESTS}" -c 4 "$2" >"$TMP/$1.ab" 2>&1
	awk '/^Complete requests:/ { c = $3 } /^Failed requests:/ { f = $3 }
	     /^Requests per second:/ { r = $4 }
	     END { print c + 0, f + 0, r + 0 }' "$TMP/$1.ab"
}

test_http_server() {
	local f=$FIX/httpd-go1.27-stripped out=$TMP/httpd spid addr tpid
	local untraced traced served count
	need_file "$f" || return
	if ! command -v ab >/dev/null; then
		fail "http server" "ab (ApacheBench) is missing: scripts/setup-deps.sh installs apache2-utils"
		return
	fi
	"$f" >"$out.out" 2>&1 &
	spid=$!
	for _ in $(seq 100); do
		addr=$(sed -n 's/^listening \(127\.0\.0\.1:[0-9]*\)$/\1/p' "$out.out")
		[[ -n $addr ]] && break
		sleep 0.1
	done
	if [[ -z $addr ]]; then
		fail "http server" "the server did not start: $(head -2 "$out.out")"
		kill "$spid" 2>/dev/null
		return
	fi
	untraced=$(ab_run untraced "http://$addr/")

	"$TOOL" -p "$spid" '*' >"$out.count" 2>"$out.err" &
	tpid=$!
	for _ in $(seq 300); do
		grep -q '^Tracing' "$out.count" 2>/dev/null && break
		sleep 0.1
	done
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

# best_rate NAME URL: the better rate of two runs of RATE_REQUESTS.
best_rate() {
	local a b
	a=$(ab_run "$1-1" "$2" "$RATE_REQUESTS")
	b=$(ab_run "$1-2" "$2" "$RATE_REQUESTS")
	awk -v a="${a##* }" -v b="${b##* }" 'BEGIN { print (a > b ? a : b) }'
}

test_max_overhead() {
	local f=$FIX/httpd-go1.27-stripped out=$TMP/httpd-limit spid addr tpid
	local untraced traced rounds before rc
	need_file "$f" || return
	"$f" >"$out.out" 2>&1 &
	spid=$!
	for _ in $(seq 100); do
		addr=$(sed -n 's/^listening \(127\.0\.0\.1:[0-9]*\)$/\1/p' "$out.out")
		[[ -n $addr ]] && break
		sleep 0.1
	done
	if [[ -z $addr ]]; then
		fail "http server --max-overhead" "the server did not start"
		kill "$spid" 2>/dev/null
		return
	fi
	untraced=$(best_rate untraced "http://$addr/")
	"$TOOL" --max-overhead 5 -p "$spid" '*' >"$out.count" 2>"$out.err" &
	tpid=$!
	for _ in $(seq 300); do
		grep -q '^Tracing' "$out.count" 2>/dev/null && break
		sleep 0.1
	done
	# Load until a run of requests makes the tool detach nothing more.
	for rounds in $(seq 10); do
		before=$(grep -c 'detached' "$out.err")
		ab_run settle "http://$addr/" "$RATE_REQUESTS" >/dev/null
		[[ $(grep -c 'detached' "$out.err") == "$before" ]] && break
	done
	traced=$(best_rate traced "http://$addr/")
	kill -INT "$tpid"
	wait "$tpid"
	rc=$?
	kill -TERM "$spid"
	wait "$spid"
	if [[ $rc -eq 0 ]] && grep -q 'over --max-overhead 5%: [0-9]* probed functions detached' "$out.err" &&
		awk -v t="$traced" -v u="$untraced" 'BEGIN { exit !(t >= 0.9 * u) }'; then
		pass "gofunccount --max-overhead 5 '*' on the server: $traced req/s, untraced $untraced (settled after $rounds runs of $RATE_REQUESTS requests)"
	else
		fail "gofunccount --max-overhead 5 '*' on the server" "exit $rc, $traced req/s traced, $untraced untraced: $(grep -v '^gofunccount: [0-9]* left out' "$out.err" | head -3)"
	fi
}

test_http_server
test_max_overhead
check "no probe left attached" no_links_left
finish
