#!/bin/bash
# Every function of real third-party binaries (stripped esbuild built with
# Go 1.26, stripped buf built with Go 1.27): gofunclatency '*' and gotrace
# 'r:*' attach to all of them, leave out with one summary line what cannot
# be traced, and the program runs as it runs untraced: `--version` from
# its start (-c), and buf's language server attached to (-p) while it
# answers two requests. Every address they probe (-v) is the start of an
# instruction, and every exit a RET or a JMP, according to binutils'
# objdump.
source "$(dirname "$0")/lib.sh"

LAT=$BUILD/gofunclatency
TRACE=$BUILD/gotrace

# check_sites BINARY NAME LOG [NAME LOG]...: the entry and exit probes -v
# printed in each LOG against objdump's listing of BINARY (one listing:
# buf's takes seconds).
check_sites() {
	local bin=$1 res name
	shift
	while IFS= read -r res; do
		name=$1
		shift 2
		if [[ $res =~ ^([0-9]+)\ entries\ ([0-9]+)\ exits\ 0\ bad$ ]] &&
			((BASH_REMATCH[1] + BASH_REMATCH[2] > 1000)); then
			pass "$name: every probed address is an instruction ($res)"
		else
			fail "$name: probed addresses" "$res"
		fi
	done < <(objdump -d --no-show-raw-insn "$bin" | python3 -c '
import re, sys
insns = {}
for line in sys.stdin:
	m = re.match(r"\s*([0-9a-f]+):\t(\S+)(?:\s+(\S+))?", line)
	if m:
		mn = m.group(2)
		if mn in ("bnd", "notrack", "rep", "repz", "lock") and m.group(3):
			mn = m.group(3)
		insns[int(m.group(1), 16)] = mn
for log in sys.argv[2::2]:
	entries = exits = bad = 0
	why = []
	for line in open(log):
		m = re.match(r"probe (?:r:)?\S.* (entry |exit )?at (0x[0-9a-f]+) \(([a-z -]+)\)", line)
		if not m:
			continue
		addr, kind = int(m.group(2), 16), m.group(3)
		mn = insns.get(addr)
		if kind in ("ret", "tail jmp"):
			exits += 1
			ok = mn in (("ret", "retq") if kind == "ret" else ("jmp", "jmpq"))
		else:
			entries += 1
			ok = mn is not None
		if not ok:
			bad += 1
			if bad <= 5:
				why.append("not an instruction objdump agrees with: %s (objdump: %s)" % (line.strip(), mn))
	print("%d entries %d exits %d bad%s" % (entries, exits, bad, "".join("; " + w for w in why)))
' "$@")
}

# lat_summary NAME ERR: never-returning functions (runtime.goexit...) are
# left out, said in one summary line.
lat_summary() {
	if [[ $(grep -c '^gofunclatency: [0-9]* left out: .*never return' "$2") -eq 1 ]] &&
		grep -q '^left out: runtime.goexit.*: no return instruction$' "$2"; then
		pass "$1: gofunclatency '*': one summary line for what is left out"
	else
		fail "$1: gofunclatency summary" "$(grep -v '^probe ' "$2" | head -3)"
	fi
}

# lat_run NAME BINARY: gofunclatency on '*' of BINARY --version, from its
# start (-c) to its end, into $TMP/NAME.tool and .tool.err.
lat_run() {
	local name=$1 bin=$2 out=$TMP/$1 want rc
	want=$("$bin" --version 2>&1)
	timeout 300 "$LAT" -v -j -c "$bin --version" '*' >"$out.tool" 2>"$out.tool.err"
	rc=$?
	if [[ $rc -eq 0 ]] && grep -qxF -- "$want" "$out.tool" &&
		grep -q '^{"time"' "$out.tool"; then
		pass "$name: gofunclatency '*': exit 0, the program's output unchanged"
	else
		fail "$name: gofunclatency '*'" "exit $rc: $(grep -v '^probe \|^left out' "$out.tool.err" | head -3)"
	fi
	lat_summary "$name" "$out.tool.err"
}

# lsp_send FD BODY: one message of the language server protocol.
lsp_send() {
	printf 'Content-Length: %d\r\n\r\n%s' "${#2}" "$2" >&"$1"
}

# lsp_answered OUT ID: until OUT holds the answer to request ID (60 s at
# most: traced, a request takes thousands of single-stepped returns).
lsp_answered() {
	for _ in $(seq 600); do
		grep -q "\"id\":$2[,}]" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# lsp_session BINARY OUT [TOOL ARGS...]: BINARY's language server (buf lsp
# serve) asked to initialize and to shut down, its answers into OUT.out,
# its standard error into OUT.err, its exit status (it ends at the end of
# its input) into OUT.rc; with TOOL, TOOL ARGS -p PID traces it from before
# the first request to after the last, into OUT.tool and OUT.tool.err, its
# exit status into OUT.tool.rc.
lsp_session() {
	local bin=$1 out=$2 pid tpid fd
	shift 2
	mkfifo "$out.in"
	"$bin" lsp serve <"$out.in" >"$out.out" 2>"$out.err" &
	pid=$!
	exec {fd}>"$out.in"
	if (($#)); then
		wait_exec "$pid" "$bin"
		"$@" -p "$pid" >"$out.tool" 2>"$out.tool.err" &
		tpid=$!
		wait_tracing "$out.tool.err"	# -j: its messages on stderr
	fi
	lsp_send "$fd" '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":null,"capabilities":{}}}'
	lsp_answered "$out.out" 1
	lsp_send "$fd" '{"jsonrpc":"2.0","id":2,"method":"shutdown"}'
	lsp_answered "$out.out" 2
	if (($#)); then
		kill -INT "$tpid" 2>/dev/null
		wait "$tpid"
		echo $? >"$out.tool.rc"
	fi
	exec {fd}>&-
	wait "$pid"
	echo $? >"$out.rc"
}

# lat_attached NAME BINARY: gofunclatency on '*' of BINARY's language
# server (-p), while it answers two requests, against a session of it
# untraced; into $TMP/NAME.tool and .tool.err. (From its start, -c, gofunclatency's entries and single-
# stepped returns took buf's initialization, 5.4 million calls, two
# minutes on these VMs: gotrace's returns below go through all of it.)
lat_attached() {
	local name=$1 bin=$2 out=$TMP/$1 calls
	lsp_session "$bin" "$out.untraced"
	lsp_session "$bin" "$out" timeout 300 "$LAT" -v -j '*'
	calls=$(grep -o '"count":[0-9]*}$' "$out.tool" | tr -dc '0-9\n' |
		awk '{ s += $1 } END { print s + 0 }')
	if [[ $(cat "$out.tool.rc") == 0 && $calls -gt 0 ]] &&
		cmp -s "$out.out" "$out.untraced.out" &&
		[[ $(cat "$out.rc") == $(cat "$out.untraced.rc") ]] &&
		[[ $(tail -1 "$out.err") == $(tail -1 "$out.untraced.err") ]]; then
		pass "$name: gofunclatency -p '*' on its language server: exit 0, $calls calls timed, its answers and end as untraced"
	else
		fail "$name: gofunclatency -p '*' on its language server" "exit $(cat "$out.tool.rc"), $calls calls; answers $(wc -c <"$out.out") bytes against $(wc -c <"$out.untraced.out") untraced, exit $(cat "$out.rc") against $(cat "$out.untraced.rc"): $(grep -v '^probe \|^left out' "$out.tool.err" | head -3)"
	fi
	lat_summary "$name" "$out.tool.err"
}

# trace_run NAME BINARY: gotrace on 'r:*' of BINARY --version, from its
# start (-c) to its end.
trace_run() {
	local name=$1 bin=$2 out=$TMP/$1 want rc
	want=$("$bin" --version 2>&1)
	# The program writes to a file of its own: on a shared stdout its
	# line can land in the middle of one of gotrace's, which stdio writes
	# out in blocks. sh execs it: the traced process stays the same.
	timeout 300 "$TRACE" -v -c "sh -c 'exec $bin --version >$out.prog'" "r:$bin:*" \
		>"$out.trace" 2>"$out.trace.err"
	rc=$?
	if [[ $rc -eq 0 ]] && [[ $(cat "$out.prog") == "$want" ]] &&
		[[ $(grep -c ' runtime\.' "$out.trace") -gt 100 ]]; then
		pass "$name: gotrace 'r:*': exit 0, the program's output unchanged"
	else
		fail "$name: gotrace 'r:*'" "exit $rc: $(grep -v '^probe \|^left out' "$out.trace.err" | head -3)"
	fi
}

# whole NAME BINARY [attached]: both tools on '*' of BINARY: gofunclatency
# from the start of BINARY --version, or attached to its language server.
whole() {
	local name=$1 bin=$FIX/$2 out=$TMP/$1
	need_file "$bin" || return
	if [[ ${3:-} == attached ]]; then
		lat_attached "$name" "$bin"
	else
		lat_run "$name" "$bin"
	fi
	trace_run "$name" "$bin"
	check_sites "$bin" "$name gofunclatency" "$out.tool.err" "$name gotrace" "$out.trace.err"
}

whole esbuild esbuild-latest
whole buf buf-1.75.0 attached
no_links=0
no_links_left || no_links=1
check "no probe left attached" test $no_links -eq 0

finish
