#!/bin/bash
# Do no harm: a busy net/http server (tests/fixtures/httpd: deadlines,
# timers, goroutines, a garbage collector kept running, data it checks
# itself), stripped, built with Go 1.19, 1.21 and 1.27, under ApacheBench
# on loopback, traced by every tool with entry and exit probes on
# 'runtime.*' and on '*': gotrace's entries and r: probes, gofuncgraph with
# and without waits, gofunclatency -S with the scheduler's probes, and
# --max-overhead, which replaces links while the server runs. In every case
# the server must stay alive, answer every request ApacheBench sent it with
# 200, count each in its handler, print nothing but its own lines (a
# corrupt list it built prints "corrupt: ..."), and exit 0 when told to;
# the tool must exit 0 and leave no link behind, also when it is killed
# (each tool, with SIGKILL).
#
# Before the kernel's xchg-as-nop was avoided (lib/x86/uprobe_insn.c),
# every Go 1.19 case that probes entries at the entry byte (all but
# gofunccount's) killed this server within a second or two of attaching:
# 8 of 8 with 3 s of load each, the default (GT_NO_HARM_SECONDS).
source "$(dirname "$0")/lib.sh"

VERSIONS=(1.19 1.21 1.27)
LOAD_SECONDS=${GT_NO_HARM_SECONDS:-3}
# A case marked "slow" gets this long: every function's entry and exit
# probed and no budget slow the server a thousandfold, its requests take
# 3 to 9 s, and 3 s of load saw none complete (Go 1.27, 2 CPUs).
SLOW_SECONDS=$((LOAD_SECONDS < 15 ? 15 : LOAD_SECONDS))

# The cases: a name, then the tool and its arguments (-p PID is added);
# "slow " before the tool marks one that gets SLOW_SECONDS of load.
ROOT_FN='net/http.(*conn).serve'
CASES=(
	"gofunccount *"
	"gofunclatency runtime.*"
	"slow gofunclatency *"
	"gofunclatency -S runtime.*"
	"gofunclatency --max-overhead 5 *"
	"gotrace runtime.* r:runtime.*"
	"gotrace --max-overhead 5 * r:*"
	"gofuncgraph $ROOT_FN runtime.* net/http.*"
	"gofuncgraph --no-waits --max-overhead 5 $ROOT_FN *"
)

# wait_tracing OUT PID: until the tool printed "Tracing", or exited.
wait_tracing() {
	for _ in $(seq 600); do
		grep -q '^Tracing' "$1.tool" "$1.err" 2>/dev/null && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# load OUT [SECONDS]: ApacheBench for SECONDS (LOAD_SECONDS), 8 at a
# time, bounded in time; prints "COMPLETE FAILED NON2XX".
load() {
	local seconds=${2:-$LOAD_SECONDS}
	timeout $((seconds + 60)) ab -q -s 30 -t "$seconds" -n 10000000 \
		-c 8 "http://$addr/" >"$1.ab" 2>&1
	awk '/^Complete requests:/ { c = $3 } /^Failed requests:/ { f = $3 }
	     /^Non-2xx responses:/ { n = $3 }
	     END { print c + 0, f + 0, n + 0 }' "$1.ab"
}

# stop_server: SIGTERM to the server; its exit status into src.
stop_server() {
	kill -TERM "$spid"
	wait "$spid"
	src=$?
}

# harmless NAME OUT COMPLETE FAILED NON2XX TOOLRC: the verdict of one case.
harmless() {
	local name=$1 out=$2 complete=$3 failed=$4 non2xx=$5 trc=$6 served extra why=
	served=$(sed -n 's/^served \([0-9]*\)$/\1/p' "$out.out")
	extra=$(grep -vE '^(listening 127\.0\.0\.1:[0-9]+|served [0-9]+)$' "$out.out" | head -3)
	[[ $src == 0 ]] || why+="server exit $src; "
	[[ -n $extra ]] && why+="server said: $extra; "
	[[ $complete -gt 0 && $failed == 0 && $non2xx == 0 ]] ||
		why+="ab: $complete complete, $failed failed, $non2xx not 2xx; "
	# the requests still in flight when ab's time ran out were served,
	# and not counted by ab: at most its 8 connections
	[[ -n $served && $served -ge $complete && $served -le $((complete + 8)) ]] ||
		why+="served ${served:-?}, ab completed $complete; "
	[[ $trc == 0 ]] || why+="tool exit $trc: $(grep -v 'left out' "$out.err" | head -2); "
	if [[ -z $why ]]; then
		pass "$name: alive, $complete requests all answered 200 and served"
	else
		fail "$name" "${why%; }"
	fi
}

# start_traced NAME VERSION OUT TOOL ARGS...: the server of Go VERSION,
# traced by TOOL ARGS -p PID; sets spid, addr and tpid, or fails NAME
# (the server stopped) and returns 1.
start_traced() {
	local name=$1 v=$2 out=$3 tool=$4
	shift 4
	if ! start_httpd "$FIX/httpd-go$v-stripped" "$out"; then
		fail "$name" "the server did not start: $(head -2 "$out.out")"
		return 1
	fi
	"$BUILD/$tool" -p "$spid" "$@" >"$out.tool" 2>"$out.err" &
	tpid=$!
	wait_tracing "$out" "$tpid" && return 0
	kill -INT "$tpid" 2>/dev/null
	wait "$tpid"
	stop_server
	fail "$name" "the tool did not start: $(head -3 "$out.err")"
	return 1
}

# one_case VERSION CASE: trace the server under load, then judge.
one_case() {
	local v=$1 c=$2 seconds=$LOAD_SECONDS args name out tpid trc result src spid addr
	if [[ $c == "slow "* ]]; then
		c=${c#slow }
		seconds=$SLOW_SECONDS
	fi
	read -r -a args <<<"$c"
	name="go$v: $c"
	out=$TMP/$(tr -c 'a-zA-Z0-9.' _ <<<"$v-$c")
	start_traced "$name" "$v" "$out" "${args[@]}" || return
	result=$(load "$out" "$seconds")
	kill -INT "$tpid"
	wait "$tpid"
	trc=$?
	stop_server
	harmless "$name" "$out" $result "$trc"
	check "$name: no link left" no_links_left
}

# Each tool killed with SIGKILL while it traces: the kernel takes its
# links away with it, the server goes on.
KILLED=(
	"gofunccount *"
	"gofunclatency -S runtime.*"
	"gotrace runtime.* r:runtime.*"
	"gofuncgraph $ROOT_FN runtime.*"
)
killed_case() {
	local args name out tpid result src spid addr
	read -r -a args <<<"$1"
	name="go1.19: $1, killed (SIGKILL)"
	out=$TMP/killed-${args[0]}
	start_traced "$name" 1.19 "$out" "${args[@]}" || return
	(sleep 2; kill -KILL "$tpid") &
	result=$(load "$out")
	{ wait "$tpid"; } 2>/dev/null	# "Killed": what it was meant to be
	check "$name: no link left" no_links_left
	stop_server
	harmless "$name" "$out" $result 0
}

# The kernel's xchg-as-nop itself (tests/integration/kernel/xchg_r8.c),
# through a tracefs uprobe, no tool of ours: on Linux up to 6.18 every
# probed exchange is lost. And the function of Go 1.19 that begins with
# one is left out, by name, with the summary line.
kernel_case() {
	local tfs=/sys/kernel/tracing prog=$TMP/xchg_r8 off got major minor
	local event=gotools_xchg_r8_$$
	if ! cc -O2 -o "$prog" "$ROOT/tests/integration/kernel/xchg_r8.c"; then
		fail "xchg %rax,%r8 under a uprobe" "cannot build the reproducer"
		return
	fi
	[[ -e $tfs/uprobe_events ]] || mount -t tracefs nodev "$tfs" ||
		{ fail "xchg %rax,%r8 under a uprobe" "cannot mount tracefs"; return; }
	off=$(nm "$prog" | awk '$3 == "xchg_r8_site" { print $1 }')
	if echo "p:uprobes/$event $prog:0x$off" >>"$tfs/uprobe_events" &&
	   echo 1 >"$tfs/events/uprobes/$event/enable"; then
		got=$("$prog" 100000)
		echo 0 >"$tfs/events/uprobes/$event/enable"
	fi
	echo "-:uprobes/$event" >>"$tfs/uprobe_events"
	IFS=. read -r major minor _ <<<"$(uname -r)"
	if ((major < 6 || (major == 6 && minor <= 18))); then
		check "Linux $major.$minor loses a probed xchg %rax,%r8 (${got:-no result})" \
			test "$got" == "100000 calls, 100000 without the exchange"
	else
		pass "Linux $major.$minor, a probed xchg %rax,%r8: ${got:-no result} (fixed after 6.18)"
	fi
	"$BUILD/gofunclatency" -v -d 1 -c "$FIX/httpd-go1.19-stripped" 'runtime.gcWriteBarrier*' \
		>"$TMP/wb.out" 2>"$TMP/wb.err"
	check "go1.19: gofunclatency leaves runtime.gcWriteBarrierR8 out" \
		grep -q '^left out: runtime.gcWriteBarrierR8: the kernel cannot probe the instruction at 0x' "$TMP/wb.err"
	check "go1.19: and says so in its summary line" \
		grep -q '^gofunclatency: 1 left out.*1 call site the kernel cannot probe' "$TMP/wb.err"
}

kernel_case
command -v ab >/dev/null ||
	fail "ApacheBench" "ab is missing: scripts/setup-deps.sh installs apache2-utils"
for v in "${VERSIONS[@]}"; do
	need_file "$FIX/httpd-go$v-stripped" || continue
	for c in "${CASES[@]}"; do
		one_case "$v" "$c"
	done
done
for c in "${KILLED[@]}"; do
	killed_case "$c"
done
finish
