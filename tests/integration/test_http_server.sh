#!/bin/bash
# A real net/http server (a stripped Go 1.27 build) under a real load
# generator (ApacheBench, on loopback, a bounded number of requests),
# traced with '*': every function of the server. The server counts the
# requests its handler served; gofunccount's count of that handler must be
# the number of requests ApacheBench sent and completed, and the server
# must serve every request, traced or not.
source "$(dirname "$0")/lib.sh"

TOOL=$BUILD/gofunccount
REQUESTS=300

# ab_run NAME URL: REQUESTS requests, 4 at a time, bounded in time; the
# completed and failed counts and the rate, as "COMPLETE FAILED RATE".
ab_run() {
	timeout 300 ab -q -s 30 -n "$REQUESTS" -c 4 "$2" >"$TMP/$1.ab" 2>&1
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

test_http_server
check "no probe left attached" no_links_left
finish
