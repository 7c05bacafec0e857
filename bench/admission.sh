#!/bin/bash
# SPDX-License-Identifier: MIT
# Section 7: --max-overhead 5 '*' on a busy server, each tool in turn: the
# stripped net/http fixture (tests/fixtures/httpd) under ApacheBench (8 at
# a time, on loopback), its throughput in 1-second windows from the tool's
# "Tracing" against the median of 5 untraced windows just before and 5
# just after (the untraced rate of a shared VM moves by a fifth within
# tens of seconds), beside what the tool's model says: the ledger's cost
# (% of a CPU on average, said at the end) over the CPU the server used
# untraced is the share of its throughput the probes should take. Also the
# ledger's costliest second and the tool's own CPU from "Tracing" on.
# Section 7b, the model's check: each tool with --max-overhead 25, where
# the cost is above the noise, beside a control server (a second one,
# untraced, loaded the same way in the same seconds): what the probes cost
# the server measured (tests/fixtures/httpd/probe_cost.awk) against the
# ledger's cost. BENCH_ADMIT_WINDOWS (10) windows a tool.
source "$(dirname "$0")/lib.sh"

TOOLS=$(dirname "$GOFUNCCOUNT")
WINDOWS=${BENCH_ADMIT_WINDOWS:-10}
PROBE_COST=$(dirname "$0")/../tests/fixtures/httpd/probe_cost.awk
out=$BENCH_WORK/section7.txt
out_b=$BENCH_WORK/section7b.txt
hz=$(getconf CLK_TCK)

# windows N: N windows on the server (spid, addr), and on the control at
# the same time when there is one (cpid, caddr): the server's counts into
# W; its requests, its CPU ticks, the control's requests and its ticks
# into REQ, TICKS, CREQ and CTICKS; the seconds they took into SECS.
windows() {
	local t0 c0 cc0 wpid
	t0=$(date +%s.%N)
	c0=$(cpu_ticks "$spid")
	[[ -z $cpid ]] || cc0=$(cpu_ticks "$cpid")
	W=() REQ=0 CREQ=0 CTICKS=0
	for _ in $(seq "$1"); do
		if [[ -n $cpid ]]; then
			window "$caddr" >"$BENCH_WORK/control.window" &
			wpid=$!
		fi
		W+=("$(window "$addr")")
		REQ=$((REQ + W[-1]))
		if [[ -n $cpid ]]; then
			wait "$wpid"
			CREQ=$((CREQ + $(<"$BENCH_WORK/control.window")))
		fi
	done
	TICKS=$(($(cpu_ticks "$spid") - c0))
	[[ -z $cpid ]] || CTICKS=$(($(cpu_ticks "$cpid") - cc0))
	SECS=$(awk -v t0="$t0" -v t1="$(date +%s.%N)" 'BEGIN { print t1 - t0 }')
}

# run_tool TOOL BUDGET: 5 untraced windows, the tool's WINDOWS from its
# "Tracing", 5 untraced again once it is gone. Sets REQ, TICKS, CREQ,
# CTICKS and SECS of the untraced windows together, T_REQ, T_TICKS,
# T_CREQ, T_CTICKS and T_SECS of the tool's (windows), PCTS (the tool's
# windows, % of the untraced median), UNTRACED (that median), LEDGER and
# WORST (the ledger's average and costliest second), TOOL_CPU.
run_tool() {
	local tool=$1 budget=$2 log=$BENCH_WORK/admit-$1 args=('*') tpid c0 c u
	[[ $tool == gofuncgraph ]] && args=(--no-waits 'net/http.(*conn).serve' '*')
	windows 5
	u=("${W[@]}")
	local req=$REQ ticks=$TICKS creq=$CREQ cticks=$CTICKS secs=$SECS
	"$TOOLS/$tool" --max-overhead "$budget" -p "$spid" "${args[@]}" >"$log.out" 2>"$log.err" &
	tpid=$!
	for _ in $(seq 300); do
		grep -q '^Tracing' "$log.out" || ! kill -0 "$tpid" 2>/dev/null && break
		sleep 0.1
	done
	c0=$(cpu_ticks "$tpid")
	windows "$WINDOWS"
	T_REQ=$REQ T_TICKS=$TICKS T_CREQ=$CREQ T_CTICKS=$CTICKS T_SECS=$SECS
	local counts=("${W[@]}")
	TOOL_CPU=$(awk -v c="$(($(cpu_ticks "$tpid") - c0))" -v hz="$hz" -v s="$SECS" \
		'BEGIN { printf "%.1f%%", 100 * c / hz / s }')
	kill -INT "$tpid"
	wait "$tpid" || die "$tool exited with an error: $(tail -2 "$log.err")"
	windows 5
	u+=("${W[@]}")
	REQ=$((req + REQ)) TICKS=$((ticks + TICKS))
	CREQ=$((creq + CREQ)) CTICKS=$((cticks + CTICKS))
	SECS=$(awk -v a="$secs" -v b="$SECS" 'BEGIN { print a + b }')
	UNTRACED=$(printf '%s\n' "${u[@]}" | median)
	PCTS=()
	for c in "${counts[@]}"; do
		PCTS+=("$(awk -v c="$c" -v u="$UNTRACED" 'BEGIN { printf "%.0f", 100 * c / u }')")
	done
	LEDGER=$(sed -n 's/.*probes cost the target \([0-9.]*\)% of a CPU on average.*/\1/p' "$log.err")
	WORST=$(sed -n 's/.*, \([0-9.]*\)% in the costliest second.*/\1/p' "$log.err")
	[[ -n $LEDGER && -n $WORST ]] || die "$tool said nothing of what the probes cost: $(tail -2 "$log.err")"
}

{
	echo "7. --max-overhead 5 '*' on the stripped net/http fixture under ab -c 8 (loopback),"
	echo "   each tool between 5 untraced windows before and 5 after (their median, req/s,"
	echo "   and the CPU the server used): $WINDOWS 1-second windows from the tool's"
	echo "   \"Tracing\", % of that median; the loss measured (1 - their mean) and"
	echo "   predicted (the ledger's average cost over the server's CPU), their ratio,"
	echo "   the ledger's costliest second and the tool's own CPU from \"Tracing\" on"
	printf '   %-16s %9s %6s %-40s %6s %8s %6s %9s %6s %9s %8s\n' tool untraced server \
		windows median measured ledger predicted ratio costliest "tool CPU"
} >"$out"
{
	echo "7b. The model: --max-overhead 25 '*' on the same server beside a control (a second"
	echo "   one, untraced, under ab -c 8 in the same seconds), the windows as in 7: what"
	echo "   the probes cost the server measured (its CPU in the tool's windows beyond what"
	echo "   their requests took at its CPU per request untraced, scaled by the control's"
	echo "   change: tests/fixtures/httpd/probe_cost.awk) and what the ledger says, % of a"
	echo "   CPU, their ratio; the server's CPU in the tool's windows, the ledger's costliest"
	echo "   second and the tool's own CPU"
	printf '   %-16s %9s %-40s %6s %8s %6s %6s %6s %9s %8s\n' tool untraced \
		windows median measured ledger ratio server costliest "tool CPU"
} >"$out_b"

start_httpd "$BENCH_WORK/httpd.out"
cpid= caddr=
for tool in gofunccount gofunclatency gotrace gofuncgraph; do
	run_tool "$tool" 5
	server_cpu=$(awk -v c="$TICKS" -v hz="$hz" -v s="$SECS" 'BEGIN { printf "%.0f", 100 * c / hz / s }')
	med=$(printf '%s\n' "${PCTS[@]}" | median)
	measured=$(printf '%s\n' "${PCTS[@]}" | awk '{ s += $1 } END { printf "%.1f", 100 - s / NR }')
	predicted=$(awk -v l="$LEDGER" -v s="$server_cpu" 'BEGIN { printf "%.1f", 100 * l / s }')
	printf '   %-16s %9s %5s%% %-40s %5s%% %7s%% %5s%% %8s%% %6s %8s%% %8s\n' \
		"$tool 5%" "$UNTRACED" "$server_cpu" "${PCTS[*]}" \
		"$med" "$measured" "$LEDGER" "$predicted" \
		"$(ratio "$measured" "$predicted")" "$WORST" "$TOOL_CPU" >>"$out"
	note "section 7: $tool at 5% done"
done

s=$spid a=$addr
start_httpd "$BENCH_WORK/control.out"
cpid=$spid caddr=$addr spid=$s addr=$a
# as warm as the traced server (a Go server serves faster after some
# 30,000 requests)
timeout 60 ab -q -s 5 -n 30000 -c 8 "http://$caddr/" >/dev/null 2>&1 || true
for tool in gofunccount gofunclatency gotrace gofuncgraph; do
	run_tool "$tool" 25
	read -r measured server_cpu < <(awk -v hz="$hz" \
		-v req="$REQ" -v ticks="$TICKS" -v creq="$CREQ" -v cticks="$CTICKS" \
		-v treq="$T_REQ" -v tticks="$T_TICKS" -v tcreq="$T_CREQ" \
		-v tcticks="$T_CTICKS" -v secs="$T_SECS" -f "$PROBE_COST") ||
		die "section 7b: no cost measured for $tool"
	med=$(printf '%s\n' "${PCTS[@]}" | median)
	printf '   %-16s %9s %-40s %5s%% %7s%% %5s%% %6s %5s%% %8s%% %8s\n' \
		"$tool 25%" "$UNTRACED" "${PCTS[*]}" "$med" "$measured" "$LEDGER" \
		"$(ratio "$measured" "$LEDGER")" "$server_cpu" "$WORST" "$TOOL_CPU" >>"$out_b"
	note "section 7b: $tool at 25% done"
done
kill -TERM "$spid" "$cpid"
wait "$spid" || true
wait "$cpid" || true
