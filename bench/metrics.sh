#!/bin/bash
# SPDX-License-Identifier: MIT
# Section 8: what --prometheus costs a busy server. gofunccount
# --max-overhead 5 -q --prometheus '*' on the stripped net/http fixture
# (tests/fixtures/httpd) under ApacheBench (8 at a time, on loopback), once
# its trials are over: 1-second windows without scrapes and with a scrape
# every 100 ms on a kept-alive connection (ten a second, a hundred and
# fifty times Prometheus' usual 15 s), in turns, side by side: the server's rate with scrapes over its
# rate without, the tool's own CPU in each, and a scrape's time and size
# (a series for each function called: hundreds on this server).
# BENCH_METRICS_TURNS (3) turns of 3 windows each way.
source "$(dirname "$0")/lib.sh"

TURNS=${BENCH_METRICS_TURNS:-3}
out=$BENCH_WORK/section8.txt
log=$BENCH_WORK/metrics
hz=$(getconf CLK_TCK)

start_httpd "$log.httpd"

# load LOOPFLAG: windows one after another while LOOPFLAG exists.
load() {
	while [[ -e $1 ]]; do
		window "$addr" >/dev/null
	done
}

"$GOFUNCCOUNT" --max-overhead 5 -q --prometheus 0 -p "$spid" '*' \
	>"$log.out" 2>"$log.err" &
tpid=$!
# the trials run under load, until it says what it left out
: >"$log.loading"
load "$log.loading" &
lpid=$!
url=
for _ in $(seq 300); do
	url=$(sed -n 's/^gofunccount: serving metrics on //p' "$log.err")
	[[ -n $url ]] && grep -q 'probed functions\? not attached' "$log.err" && break
	kill -0 "$tpid" 2>/dev/null || break
	sleep 0.1
done
rm -f "$log.loading"
wait "$lpid"
kill -0 "$tpid" 2>/dev/null || die "gofunccount exited: $(tail -2 "$log.err")"
[[ -n $url ]] || die "gofunccount said nowhere it serves: $(head -2 "$log.err")"

# scrape_loop FLAG: a scrape every 100 ms while FLAG exists, on one
# kept-alive connection as Prometheus scrapes, its time and size added to
# the log.
scrape_loop() {
	python3 - "$url" "$1" >>"$log.scrapes" <<'PY'
import http.client, os, sys, time, urllib.parse
u = urllib.parse.urlsplit(sys.argv[1])
c = http.client.HTTPConnection(u.hostname, u.port, timeout=5)
while os.path.exists(sys.argv[2]):
    t0 = time.monotonic()
    c.request("GET", u.path)
    body = c.getresponse().read()
    print("%.6f %d" % (time.monotonic() - t0, len(body)), flush=True)
    time.sleep(0.1)
PY
}

# phase SCRAPE: 3 windows, scraped every 100 ms when SCRAPE is 1; their
# rates added to RATES[SCRAPE] and the tool's CPU ticks and the seconds
# they took to TICKS[SCRAPE] and SECS[SCRAPE].
rates=("" "") ticks=(0 0) secs=(0 0)
phase() {
	local t0 c0 w cpid=
	if [[ $1 == 1 ]]; then
		: >"$log.scraping"
		scrape_loop "$log.scraping" &
		cpid=$!
	fi
	t0=$(date +%s.%N)
	c0=$(cpu_ticks "$tpid")
	for _ in 1 2 3; do
		w=$(window "$addr")
		rates[$1]+=" $w"
	done
	ticks[$1]=$((ticks[$1] + $(cpu_ticks "$tpid") - c0))
	secs[$1]=$(awk -v s="${secs[$1]}" -v t0="$t0" -v t1="$(date +%s.%N)" 'BEGIN { print s + t1 - t0 }')
	if [[ -n $cpid ]]; then
		rm -f "$log.scraping"
		wait "$cpid"
	fi
}

: >"$log.scrapes"
for _ in $(seq "$TURNS"); do
	phase 0
	phase 1
done
series=$(curl -s --max-time 5 "$url" | grep -c '^gofunccount_calls_total{')
kill -INT "$tpid"
wait "$tpid" || die "gofunccount exited with an error: $(tail -2 "$log.err")"
kill -TERM "$spid"
wait "$spid" || true

quiet=$(tr ' ' '\n' <<<"${rates[0]}" | grep . | median)
scraped=$(tr ' ' '\n' <<<"${rates[1]}" | grep . | median)
nscrapes=$(wc -l <"$log.scrapes")
scrape_ms=$(awk '{ print $1 * 1000 }' "$log.scrapes" | median)
bytes=$(awk '{ print $2 }' "$log.scrapes" | median)
cpu() { awk -v c="$1" -v hz="$hz" -v s="$2" 'BEGIN { printf "%.1f%%", 100 * c / hz / s }'; }
{
	echo "8. --prometheus on the stripped net/http fixture under ab -c 8 (loopback):"
	echo "   gofunccount --max-overhead 5 -q --prometheus '*', after its trials;"
	echo "   $TURNS turns of 3 1-second windows without scrapes and 3 with a scrape"
	echo "   every 100 ms: median req/s without and with, their ratio; the"
	echo "   tool's CPU without and with; $nscrapes scrapes: median time and size,"
	echo "   series of calls"
	printf '   %-9s %-9s %6s %-9s %-9s %-9s %-9s %s\n' without with ratio \
		"CPU w/o" "CPU with" "scrape" "page" series
	printf '   %-9s %-9s %6s %-9s %-9s %-9s %-9s %s\n' "$quiet" "$scraped" \
		"$(ratio "$scraped" "$quiet")" "$(cpu "${ticks[0]}" "${secs[0]}")" \
		"$(cpu "${ticks[1]}" "${secs[1]}")" "$(printf '%.1f ms' "$scrape_ms")" \
		"$((bytes / 1024)) KiB" "$series"
} >"$out"
note "section 8 done"
