#!/bin/bash
# --prometheus on gofunccount and gofunclatency, against a real Prometheus
# (Debian's, with its promtool) and against the fixtures' own counts. The
# tools trace BINARY:PATTERN (every process of a private copy of the
# fixture), -q, and serve /metrics on loopback; Prometheus scrapes them
# every second, and PromQL must give back exactly the calls the fixture
# counted (gofunclatency: exact calls, sums within test_gofunclatency's 2%,
# and with -S the parts adding up to the sums). With -p, every sample is
# labelled with the process too; what --max-overhead detaches is said.
# Bad input is one line on stderr, the documented exit status, no probe
# left. A hostile scraper (1000 half requests that never read, a 1 MB
# header) neither stalls the metrics nor the tracing, nor grows the tool.
source "$(dirname "$0")/lib.sh"

COUNT=$BUILD/gofunccount
LAT=$BUILD/gofunclatency
CFIX=$FIX/count-go1.27-default
HFIX=$FIX/hotcold-go1.27-default
LFIX=$FIX/latency-go1.27-default
# test_gofunclatency's selection: main.lat*, not their closures.
LAT_PATTERN='^main\.lat[A-Za-z]+$'
TEXT_TYPE='text/plain; version=0.0.4; charset=utf-8'
OM_TYPE='application/openmetrics-text; version=1.0.0; charset=utf-8'

# What this test started and has not stopped yet: stopped on every path.
started=()

# alive PID: PID runs (a zombie child does not).
alive() {
	[[ -e /proc/$1 ]] && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null
}

# stop PID [SIGNAL]: SIGNAL (TERM), up to 10 s to end, then SIGKILL; returns
# the process's exit status.
stop() {
	local pid=$1 rc
	kill -"${2:-TERM}" "$pid" 2>/dev/null
	for _ in $(seq 100); do
		alive "$pid" || break
		sleep 0.1
	done
	alive "$pid" && kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	rc=$?
	forget "$pid"
	return $rc
}

# forget PID: PID ended and was waited for.
forget() {
	local p keep=()
	for p in "${started[@]}"; do
		[[ $p == "$1" ]] || keep+=("$p")
	done
	started=("${keep[@]}")
}

cleanup() {
	local p
	for p in "${started[@]}"; do
		stop "$p"
	done
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# free_port: a TCP port of 127.0.0.1 nobody listens on.
free_port() {
	python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

# start_tool NAME OUT TOOL ARGS...: start TOOL ARGS (stdout in OUT, stderr
# in OUT.err); sets tpid and port once it said where it serves (one line,
# 127.0.0.1, a real port) and is attached (its "Tracing" line, or its
# functions gauge says it traces some). Fails NAME and returns 1 otherwise.
start_tool() {
	local name=$1 out=$2 tool=$3 tname lines
	shift 3
	tname=$(basename "$tool")
	"$tool" "$@" >"$out" 2>"$out.err" </dev/null &
	tpid=$!
	started+=("$tpid")
	port=
	for _ in $(seq 300); do
		port=$(sed -nE "s|^$tname: serving metrics on http://127\.0\.0\.1:([0-9]+)/metrics\$|\1|p" "$out.err")
		[[ -n $port ]] && break
		alive "$tpid" || break
		sleep 0.1
	done
	lines=$(grep -c 'serving metrics' "$out.err")
	if [[ -z $port || $port == 0 || $lines -ne 1 ]]; then
		fail "$name" "no single '$tname: serving metrics on http://127.0.0.1:PORT/metrics' line: $(head -3 "$out.err")"
		stop "$tpid" INT
		return 1
	fi
	for _ in $(seq 600); do
		grep -q '^Tracing' "$out" "$out.err" 2>/dev/null && return 0
		curl -sS --max-time 5 "http://127.0.0.1:$port/metrics" 2>/dev/null |
			grep -qE "^${tname}_functions\{[^}]*state=\"traced\"[^}]*\} +[1-9]" && return 0
		alive "$tpid" || break
		sleep 0.1
	done
	fail "$name" "not attached after 60 s: $(head -3 "$out.err")"
	stop "$tpid" INT
	return 1
}

# start_prometheus NAME OUT TARGET_PORT: a Prometheus of our own (config
# and storage in TMP) scraping 127.0.0.1:TARGET_PORT every second as job
# "gotools"; sets ppid and pport once it is ready and has scraped the
# target with success (up == 1). Fails NAME and returns 1 otherwise.
start_prometheus() {
	local name=$1 out=$2 target=$3 up=
	if [[ ! -x /usr/bin/prometheus ]]; then
		fail "$name" "/usr/bin/prometheus is missing: scripts/setup-deps.sh installs prometheus"
		return 1
	fi
	pport=$(free_port)
	cat >"$out.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: gotools
    static_configs:
      - targets: ['127.0.0.1:$target']
EOF
	/usr/bin/prometheus --config.file="$out.yml" --storage.tsdb.path="$out.tsdb" \
		--web.listen-address="127.0.0.1:$pport" >"$out.log" 2>&1 </dev/null &
	ppid=$!
	started+=("$ppid")
	for _ in $(seq 300); do
		curl -sf --max-time 2 "http://127.0.0.1:$pport/-/ready" >/dev/null && break
		alive "$ppid" || break
		sleep 0.1
	done
	# Its discovery hands the target over after about 5 s.
	for _ in $(seq 60); do
		up=$(promql "$pport" 'up{job="gotools"}' job)
		[[ $up == "gotools 1" ]] && break
		alive "$ppid" || break
		sleep 0.5
	done
	if [[ $up == "gotools 1" ]]; then
		pass "$name: Prometheus scrapes the tool (up == 1)"
		return 0
	fi
	fail "$name: Prometheus scrapes the tool" "up is '${up:-nothing}' after 30 s: $(grep -i 'level=error\|level=warn' "$out.log" | head -3)"
	stop "$ppid"
	return 1
}

# promql PPORT QUERY LABEL: an instant query of the Prometheus at PPORT;
# prints "VALUE_OF_LABEL VALUE" for each series ("-" for LABEL: the whole
# label set, as JSON). Returns 1 when the query fails.
promql() {
	curl -sS --max-time 5 -o "$TMP/promql.json" "http://127.0.0.1:$1/api/v1/query" \
		--data-urlencode "query=$2" 2>/dev/null || return 1
	python3 - "$3" "$TMP/promql.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[2]))
if j.get("status") != "success":
    sys.exit(1)
d = j["data"]
if d["resultType"] == "scalar":
    print("-", d["result"][1])
    sys.exit(0)
for s in d["result"]:
    m = s["metric"]
    key = json.dumps(m, sort_keys=True) if sys.argv[1] == "-" else m.get(sys.argv[1], "")
    print(key, s["value"][1])
PY
}

# sum_calls FILE: gofunccount_calls_total of a text-format scrape in FILE
# summed by function (inlined or not), as "NAME COUNT" lines.
sum_calls() {
	python3 - "$1" <<'PY'
import re, sys
label = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')
sums = {}
for line in open(sys.argv[1]):
    m = re.match(r"gofunccount_calls_total\{(.*)\} (\S+)", line)
    if m:
        f = dict(label.findall(m.group(1))).get("function")
        sums[f] = sums.get(f, 0) + int(float(m.group(2)))
for f, c in sums.items():
    print(f, c)
PY
}

# scrape PORT OUT [CURL OPTIONS...]: GET /metrics into OUT, its headers in
# OUT.hdr; prints the HTTP status.
scrape() {
	local port=$1 out=$2
	shift 2
	curl -sS --max-time 5 -D "$out.hdr" -o "$out" -w '%{http_code}' "$@" \
		"http://127.0.0.1:$port/metrics" 2>"$out.curlerr"
}

# content_type HDRFILE: the value of its Content-Type header.
content_type() {
	sed -nE 's/^[Cc]ontent-[Tt]ype: *(.*)\r?$/\1/p' "$1" | tr -d '\r' | tail -1
}

# check_formats NAME PORT: the text format (its content type, promtool
# check metrics clean), OpenMetrics when asked for (its content type, "#
# EOF" last), and 404 off /metrics.
check_formats() {
	local name=$1 port=$2 out=$TMP/scrape-$1 code ct lint
	code=$(scrape "$port" "$out.txt")
	ct=$(content_type "$out.txt.hdr")
	if [[ $code == 200 && $ct == "$TEXT_TYPE" ]] &&
		lint=$(promtool check metrics <"$out.txt" 2>&1); then
		pass "$name: text format 0.0.4, promtool check metrics clean"
	else
		fail "$name: text format" "HTTP ${code:-?}, Content-Type '$ct', promtool: $(head -5 <<<"${lint:-not run}") $(cat "$out.txt.curlerr")"
	fi
	code=$(scrape "$port" "$out.om" -H 'Accept: application/openmetrics-text;version=1.0.0')
	ct=$(content_type "$out.om.hdr")
	if [[ $code == 200 && $ct == "$OM_TYPE" && $(tail -n 1 "$out.om") == '# EOF' ]]; then
		pass "$name: OpenMetrics 1.0.0 when asked for, ending in # EOF"
	else
		fail "$name: OpenMetrics" "HTTP ${code:-?}, Content-Type '$ct', last line '$(tail -n 1 "$out.om" 2>/dev/null)'"
	fi
	code=$(curl -sS --max-time 5 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/nosuch" 2>/dev/null)
	if [[ $code == 404 ]]; then
		pass "$name: 404 off /metrics"
	else
		fail "$name: 404 off /metrics" "HTTP ${code:-none} for /nosuch"
	fi
}

# check_labels NAME PPORT METRIC BINARY: every series of METRIC has
# binary="BINARY" and no pid label (BINARY mode).
check_labels() {
	local name=$1 series
	series=$(promql "$2" "$3" -)
	if [[ -n $series ]] && python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line.rsplit(" ", 1)[0])
    if m.get("binary") != sys.argv[1] or "pid" in m:
        sys.exit(1)' "$4" <<<"$series"; then
		pass "$name: binary=\"$4\", no pid label"
	else
		fail "$name: labels" "$(head -3 <<<"${series:-no series}")"
	fi
}

# end_case NAME TOOL OUT QUIET WHAT: TOOL's formats checked on its port
# (check_formats), Prometheus and TOOL stopped; TOOL exits 0 on SIGINT,
# and -q kept WHAT (lines matching QUIET) off its stdout (OUT).
end_case() {
	local name=$1 tool=$2 out=$3 quiet=$4 what=$5 rc
	check_formats "$tool" "$port"
	stop "$ppid"
	stop "$tpid" INT
	rc=$?
	if [[ $rc -eq 0 ]] && ! grep -qE "$quiet" "$out"; then
		pass "$name: -q: no $what on stdout, exit 0 on SIGINT"
	else
		fail "$name: -q and SIGINT" "exit $rc, stdout: $(grep -E "$quiet" "$out" | head -3) $(grep -v 'serving metrics' "$out.err" | head -3)"
	fi
}

# Private copies of the fixtures: BINARY mode sees only this test's runs.
cbin='' lbin=''
if need_file "$CFIX" && cp "$CFIX" "$TMP/count-bin"; then
	cbin=$(readlink -f "$TMP/count-bin")
fi
if need_file "$LFIX" && cp "$LFIX" "$TMP/latency-bin"; then
	lbin=$(readlink -f "$TMP/latency-bin")
fi

# 1. gofunccount -q --prometheus 0 BINARY:main.*, scraped by Prometheus:
# sum by (function) of the calls is the fixture's count of each function.
test_count() {
	local name="gofunccount --prometheus" out=$TMP/count truth=$TMP/count.truth
	local rc table=$TMP/count.table
	[[ -n $cbin ]] || return
	start_tool "$name" "$out" "$COUNT" -q --prometheus 0 "$cbin:main.*" || return
	pass "$name: one line says where it serves (port $port)"
	if ! start_prometheus "$name" "$TMP/prom-count" "$port"; then
		stop "$tpid" INT
		return
	fi
	timeout 120 "$cbin" "$truth" >"$out.fixture" 2>&1
	rc=$?
	# main.* only: fmt.Println is not traced.
	grep '^main\.' "$truth" >"$truth.main" 2>/dev/null
	if [[ $rc -ne 0 || ! -s $truth.main ]]; then
		fail "$name: the fixture" "exit $rc, no counts: $(head -3 "$out.fixture")"
	else
		for _ in $(seq 20); do
			promql "$pport" 'sum by (function) (gofunccount_calls_total)' function >"$table"
			compare_counts "$truth.main" "$table" >/dev/null && break
			sleep 0.5
		done
		if compare_counts "$truth.main" "$table"; then
			pass "$name: PromQL sum by (function) = the fixture's counts ($(wc -l <"$truth.main") functions)"
		else
			fail "$name: PromQL counts" "differ from the fixture's (10 s after its end)"
		fi
		check_labels "$name" "$pport" gofunccount_calls_total "$cbin"
	fi
	if [[ $(promql "$pport" 'sum(gofunccount_functions{state="traced"})' '') =~ ^\ ([1-9][0-9]*)$ ]]; then
		pass "$name: gofunccount_functions{state=\"traced\"} ${BASH_REMATCH[1]}"
	else
		fail "$name: gofunccount_functions" "no traced functions: $(promql "$pport" gofunccount_functions -)"
	fi
	end_case "$name" gofunccount "$out" '^(FUNC|main\.)' counts
}

# 2. gofunclatency -F -q --prometheus 0: the histogram of each function
# through PromQL against the fixture's own calls and times.
test_latency() {
	local name="gofunclatency --prometheus" out=$TMP/lat truth=$TMP/lat.truth
	local rc counts=$TMP/lat.counts sums=$TMP/lat.sums infs=$TMP/lat.inf q avg
	[[ -n $lbin ]] || return
	start_tool "$name" "$out" "$LAT" -F -S -q -r --prometheus 0 "$lbin:$LAT_PATTERN" || return
	pass "$name: one line says where it serves (port $port)"
	if ! start_prometheus "$name" "$TMP/prom-lat" "$port"; then
		stop "$tpid" INT
		return
	fi
	timeout 120 "$lbin" "$truth" >"$out.fixture" 2>&1
	rc=$?
	if [[ $rc -ne 0 || ! -s $truth ]]; then
		fail "$name: the fixture" "exit $rc, no times: $(head -3 "$out.fixture")"
	else
		# _count settled to the fixture's calls, then the rest of the same
		# (final) state.
		awk '{ print $1, $2 }' "$truth" >"$truth.counts"
		for _ in $(seq 20); do
			promql "$pport" gofunclatency_call_duration_seconds_count function >"$counts"
			compare_counts "$truth.counts" "$counts" >/dev/null && break
			sleep 0.5
		done
		if compare_counts "$truth.counts" "$counts"; then
			pass "$name: _count{function} = the fixture's calls ($(wc -l <"$truth") functions)"
		else
			fail "$name: _count" "differs from the fixture's calls (10 s after its end)"
		fi
		promql "$pport" gofunclatency_call_duration_seconds_sum function >"$sums"
		if python3 -c '
import sys
got = dict(l.split() for l in open(sys.argv[2]))
ok = True
for line in open(sys.argv[1]):
    name, count, total = line.split()
    s = float(got.get(name, "nan")) * 1e9
    if not abs(s - int(total)) <= 0.02 * int(total):
        print("  %s: fixture %s ns, _sum %s s" % (name, total, got.get(name)))
        ok = False
sys.exit(0 if ok else 1)' "$truth" "$sums"; then
			pass "$name: _sum{function} within 2% of the fixture's total"
		else
			fail "$name: _sum" "differs from the fixture's totals by more than 2%"
		fi
		promql "$pport" 'gofunclatency_call_duration_seconds_bucket{le="+Inf"}' function >"$infs"
		if [[ -s $infs ]] && cmp -s <(sort "$infs") <(sort "$counts"); then
			pass "$name: the +Inf bucket = _count"
		else
			fail "$name: +Inf bucket" "$(sort "$infs" | tr '\n' ';') against _count $(sort "$counts" | tr '\n' ';')"
		fi
		# main.latSleep asks for 1 ms (3000 calls) and 1 to 3 ms (3000), and
		# time.Sleep never sleeps less: the 99th percentile is at least
		# 2.94 ms, in a bucket from 2^21 ns (2.1 ms) up. How much longer
		# 3000 goroutines waking at once take depends on the machine (on 2
		# busy CPUs the fixture measures itself 12 ms on average, the 99th
		# percentile near 60 ms, traced or not): at most 100 times the
		# fixture's own average (Markov), and the estimate at most twice
		# that (the top of its bucket).
		q=$(promql "$pport" 'histogram_quantile(0.99, gofunclatency_call_duration_seconds_bucket{function="main.latSleep"})' function)
		q=${q#main.latSleep }
		avg=$(awk '$1 == "main.latSleep" && $2 > 0 { printf "%.6f", $3 / $2 / 1e9 }' "$truth")
		if [[ $q =~ ^[0-9.e+-]+$ && -n $avg ]] && python3 -c '
import math, sys
q, avg = float(sys.argv[1]), float(sys.argv[2])
sys.exit(0 if math.isfinite(q) and 0.002 <= q <= 200 * avg else 1)' "$q" "$avg"; then
			pass "$name: histogram_quantile(0.99) of main.latSleep $q s (1-3 ms asked, $avg s on average)"
		else
			fail "$name: histogram_quantile(0.99) of main.latSleep" "'${q:-nothing}' s, want 0.002 s to 200 times the fixture's average ${avg:-?} s"
		fi
		check_labels "$name" "$pport" gofunclatency_call_duration_seconds_count "$lbin"
		check_split "$name" "$pport" "$sums"
	fi
	end_case "$name" gofunclatency "$out" '^(Function|avg|.*: count +distribution)' histograms
}

# check_split NAME PPORT SUMS: -S's parts of each function add up to its
# _sum (SUMS, "NAME SECONDS" lines), and its parked seconds by reason to
# its parked part (the same nanoseconds, summed apart: a float's error).
check_split() {
	local name=$1 parts=$TMP/split.parts parked=$TMP/split.parked
	local reasons=$TMP/split.reasons
	promql "$2" 'sum by (function) (gofunclatency_split_seconds_total)' function >"$parts"
	promql "$2" 'gofunclatency_split_seconds_total{part="parked"}' function >"$parked"
	promql "$2" 'sum by (function) (gofunclatency_parked_seconds_total)' function >"$reasons"
	if python3 -c '
import sys
load = lambda f: {k: float(v) for k, v in (l.split() for l in open(f))}
sums, parts, parked, reasons = (load(f) for f in sys.argv[1:5])
ok = len(sums) > 0 and set(parts) == set(sums)
for f, s in sums.items():
    if abs(parts.get(f, -1) - s) > 1e-6 * max(s, 1):
        print("  %s: parts %s s, _sum %s s" % (f, parts.get(f), s)); ok = False
    if abs(reasons.get(f, 0) - parked.get(f, 0)) > 1e-6 * max(parked.get(f, 0), 1):
        print("  %s: parked by reason %s s, parked %s s" % (f, reasons.get(f), parked.get(f))); ok = False
sys.exit(0 if ok else 1)' "$3" "$parts" "$parked" "$reasons"; then
		pass "$name: -S: the parts of each function add up to its _sum, its wait reasons to its parked part"
	else
		fail "$name: -S" "parts or reasons do not add up: $(head -3 "$parts") / $(head -3 "$3")"
	fi
}

# 1b. -p PID: every sample also has pid="PID" (the fixture waits for us,
# so the tool attaches to its executable; its functions gauge is there
# before any call).
test_pid_label() {
	local name="gofunccount --prometheus -p" out=$TMP/pid truth=$TMP/pid.truth
	local fpid series
	[[ -n $cbin ]] || return
	rm -f "$TMP/pid.in"
	mkfifo "$TMP/pid.in"
	"$cbin" -wait "$truth" <"$TMP/pid.in" >"$out.fixture" &
	fpid=$!
	started+=("$fpid")
	exec 7>"$TMP/pid.in"
	if ! wait_exec "$fpid" "$cbin"; then
		fail "$name" "the fixture did not start"
		exec 7>&-
		stop "$fpid"
		return
	fi
	if start_tool "$name" "$out" "$COUNT" -q --prometheus 0 -p "$fpid" 'main.*'; then
		scrape "$port" "$out.txt" >/dev/null
		series=$(grep '^gofunccount_functions{' "$out.txt" | head -1)
		if [[ $series == *"binary=\"$cbin\""* && $series == *"pid=\"$fpid\""* ]]; then
			pass "$name: binary=\"$cbin\", pid=\"$fpid\""
		else
			fail "$name: labels" "${series:-no gofunccount_functions}"
		fi
	fi
	# a line lets the fixture work (the tool holds the FIFO open too), and
	# exit; so does the tool
	echo go >&7
	exec 7>&-
	wait "$fpid"
	forget "$fpid"
	[[ -n $tpid ]] && stop "$tpid" INT
}

# 1c. --max-overhead: the hotcold fixture's main.hot (millions of calls a
# second) is detached, and /metrics says so (its series stops growing,
# and a gauge says why), main.cold stays exact, and the probes' cost is a
# counter.
test_overhead() {
	local name="gofunccount --prometheus --max-overhead" out=$TMP/over
	local truth=$TMP/over.truth hbin page=$TMP/over.txt hot cold want
	need_file "$HFIX" && cp "$HFIX" "$TMP/hotcold-bin" || return
	hbin=$(readlink -f "$TMP/hotcold-bin")
	start_tool "$name" "$out" "$COUNT" -q --max-overhead 5 --prometheus 0 "$hbin:main.*" || return
	timeout 60 "$hbin" 2 "$truth" >"$out.fixture" 2>&1
	scrape "$port" "$page" >/dev/null
	hot=$(sed -nE 's/^gofunccount_calls_total\{.*function="main\.hot".*\} ([0-9]+)$/\1/p' "$page")
	cold=$(sed -nE 's/^gofunccount_calls_total\{.*function="main\.cold".*\} ([0-9]+)$/\1/p' "$page")
	want=$(awk '$1 == "main.cold" { print $2 }' "$truth" 2>/dev/null)
	if grep -qE '^gofunccount_function_detached\{.*function="main\.hot".*\} 1$' "$page" &&
		grep -qE '^gofunccount_functions\{.*state="detached"\} [1-9]' "$page" &&
		grep -qE '^gofunccount_probe_cost_seconds_total\{[^}]*\} (0\.[0-9]*[1-9]|[1-9][0-9]*\.[0-9]+)$' "$page" &&
		[[ -n $hot && $hot -le $(awk '$1 == "main.hot" { print $2 }' "$truth") &&
		   -n $want && $cold == "$want" ]]; then
		pass "$name: main.hot detached after $hot calls and said so, main.cold exact ($cold), the probes' cost a counter"
	else
		fail "$name" "hot '$hot' cold '$cold' (fixture $want): $(grep -E '^gofunccount_(function_detached|functions|probe_cost)' "$page" | tr '\n' ';')"
	fi
	stop "$tpid" INT
}

# expect_bad NAME RC WANT TOOL ARGS...: TOOL ARGS exits RC with one line on
# stderr containing WANT (a fixed string).
expect_bad() {
	local name=$1 want_rc=$2 want=$3 tool=$4 rc lines
	shift 4
	timeout 30 "$tool" "$@" >"$TMP/bad.out" 2>"$TMP/bad.err" </dev/null
	rc=$?
	lines=$(wc -l <"$TMP/bad.err")
	if [[ $rc -eq $want_rc && $lines -eq 1 ]] && grep -qF -- "$want" "$TMP/bad.err"; then
		pass "$name"
	else
		fail "$name" "exit $rc (want $want_rc), stderr ($lines lines): $(head -3 "$TMP/bad.err")"
	fi
}

# 3. Bad input, for both tools: before any probe is attached.
test_bad_input() {
	local lport lpid tool bin tname unpriv
	[[ -n $cbin && -n $lbin ]] || return
	python3 -c 'import socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(1)
print(s.getsockname()[1], flush=True)
time.sleep(120)' >"$TMP/listener" 2>&1 </dev/null &
	lpid=$!
	started+=("$lpid")
	for _ in $(seq 100); do
		lport=$(head -1 "$TMP/listener")
		[[ $lport =~ ^[0-9]+$ ]] && break
		sleep 0.1
	done
	unpriv=$(cat /proc/sys/net/ipv4/ip_unprivileged_port_start)
	for tool in "$COUNT" "$LAT"; do
		tname=$(basename "$tool")
		if [[ $tool == "$COUNT" ]]; then bin=$cbin:main.add; else bin=$lbin:main.latSleep; fi
		if [[ $lport =~ ^[0-9]+$ ]]; then
			expect_bad "$tname: port in use" 1 "cannot listen on 127.0.0.1:$lport: Address already in use" \
				"$tool" --prometheus "$lport" "$bin"
		else
			fail "$tname: port in use" "the python3 listener did not start: $(head -2 "$TMP/listener")"
		fi
		expect_bad "$tname: bad address nohost.invalid:x" 2 "--prometheus: " \
			"$tool" --prometheus 'nohost.invalid:x' "$bin"
		expect_bad "$tname: port 99999" 2 "--prometheus: " "$tool" --prometheus 99999 "$bin"
		if [[ $unpriv -gt 81 ]]; then
			expect_bad "$tname: port 81 without CAP_NET_BIND_SERVICE" 1 \
				"cannot listen on 127.0.0.1:81: Permission denied" \
				setpriv --bounding-set=-net_bind_service "$tool" --prometheus 81 "$bin"
		else
			fail "$tname: port 81 without CAP_NET_BIND_SERVICE" "cannot test: net.ipv4.ip_unprivileged_port_start is $unpriv"
		fi
		timeout 30 "$tool" -q "$bin" >"$TMP/bad.out" 2>"$TMP/bad.err" </dev/null
		local rc=$?
		if [[ $rc -eq 2 ]]; then
			pass "$tname: -q without --prometheus: usage error"
		else
			fail "$tname: -q without --prometheus" "exit $rc: $(head -2 "$TMP/bad.err")"
		fi
	done
	stop "$lpid"
	check "bad input: no probe left attached" no_links_left
}

# 4. A hostile scraper: 1000 connections with half a request that never
# read, one with a 1 MB header. Meanwhile /metrics answers within 5 s, the
# counts stay exact, and the tool's peak RSS stays under 200 MB.
test_hostile() {
	local name="gofunccount --prometheus, hostile scraper" out=$TMP/hostile
	local truth=$TMP/hostile.truth hpid fpid rc code hwm table=$TMP/hostile.table
	[[ -n $cbin ]] || return
	start_tool "$name" "$out" "$COUNT" -q --prometheus 0 "$cbin:main.*" || return
	timeout 60 python3 - "$port" "$out.hostile" >"$out.hostile.log" 2>&1 <<'PY' &
import resource, selectors, socket, sys, time
port, status = int(sys.argv[1]), open(sys.argv[2], "w", buffering=1)
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
want = 4096 if hard == resource.RLIM_INFINITY else min(hard, 4096)
resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, want), hard))
half = b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: half"
sel = selectors.DefaultSelector()
socks = []
for _ in range(1000):
    s = socket.socket()
    s.setblocking(False)
    s.connect_ex(("127.0.0.1", port))
    sel.register(s, selectors.EVENT_WRITE)
    socks.append(s)
connected, deadline = 0, time.time() + 10
while len(sel.get_map()) and time.time() < deadline:
    for key, _ in sel.select(timeout=max(0.0, deadline - time.time())):
        s = key.fileobj
        sel.unregister(s)
        if s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0:
            try:
                s.send(half)
                connected += 1
            except OSError:
                pass
status.write("half requests on %d of 1000 connections\n" % connected)
sent, deadline = 0, time.time() + 10
big = b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"a" * (1 << 20) + b"\r\n\r\n"
try:
    b = socket.create_connection(("127.0.0.1", port), timeout=5)
    socks.append(b)
    while sent < len(big) and time.time() < deadline:
        sent += b.send(big[sent:sent + 65536])
    status.write("1 MB header: sent %d bytes\n" % sent)
except OSError as e:
    status.write("1 MB header: sent %d bytes, then %s\n" % (sent, e))
status.write("ready\n")
time.sleep(50)
PY
	hpid=$!
	started+=("$hpid")
	for _ in $(seq 300); do
		grep -q '^ready' "$out.hostile" 2>/dev/null && break
		alive "$hpid" || break
		sleep 0.1
	done
	if ! grep -q '^ready' "$out.hostile" 2>/dev/null; then
		fail "$name: the hostile client" "did not get ready: $(cat "$out.hostile" "$out.hostile.log" 2>/dev/null | head -3)"
		stop "$hpid"
		stop "$tpid" INT
		return
	fi
	timeout 120 "$cbin" "$truth" >"$out.fixture" 2>&1 &
	fpid=$!
	started+=("$fpid")
	code=$(scrape "$port" "$out.during")
	if [[ $code == 200 ]] && grep -q '^gofunccount_functions' "$out.during"; then
		pass "$name: /metrics answers within 5 s ($(head -2 "$out.hostile" | tr '\n' ';'))"
	else
		fail "$name: /metrics within 5 s" "HTTP ${code:-none}: $(cat "$out.during.curlerr") ($(head -2 "$out.hostile" | tr '\n' ';'))"
	fi
	wait "$fpid" # bounded by its timeout
	rc=$?
	forget "$fpid"
	grep '^main\.' "$truth" >"$truth.main" 2>/dev/null
	if [[ $rc -ne 0 || ! -s $truth.main ]]; then
		fail "$name: the fixture" "exit $rc, no counts: $(head -3 "$out.fixture")"
	else
		for _ in $(seq 20); do
			scrape "$port" "$out.after" >/dev/null
			sum_calls "$out.after" >"$table" 2>/dev/null
			compare_counts "$truth.main" "$table" >/dev/null && break
			sleep 0.5
		done
		if compare_counts "$truth.main" "$table"; then
			pass "$name: /metrics counts = the fixture's ($(wc -l <"$truth.main") functions)"
		else
			fail "$name: counts" "differ from the fixture's"
		fi
	fi
	hwm=$(awk '/^VmHWM:/ { print $2 }' "/proc/$tpid/status" 2>/dev/null)
	if [[ -n $hwm && $hwm -lt $((200 * 1024)) ]]; then
		pass "$name: VmHWM $((hwm / 1024)) MB < 200 MB"
	else
		fail "$name: VmHWM" "${hwm:-unknown (the tool is gone)} kB"
	fi
	stop "$hpid"
	stop "$tpid" INT
	rc=$?
	if [[ $rc -eq 0 ]]; then
		pass "$name: exit 0 on SIGINT"
	else
		fail "$name: exit on SIGINT" "exit $rc: $(grep -v 'serving metrics' "$out.err" | head -3)"
	fi
}

for tool in "$COUNT" "$LAT"; do
	[[ -x $tool ]] || fail "$(basename "$tool")" "$tool is missing (make)"
done
for cmd in promtool curl python3 setpriv; do
	command -v "$cmd" >/dev/null || fail "$cmd" "missing (scripts/setup-deps.sh)"
done
test_count
test_pid_label
test_overhead
test_latency
test_bad_input
test_hostile
check "no probe left attached" no_links_left
finish
