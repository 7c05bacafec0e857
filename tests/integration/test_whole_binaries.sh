#!/bin/bash
# Every function of real third-party binaries (stripped esbuild built with
# Go 1.26, stripped buf built with Go 1.27): gofunclatency '*' and gotrace
# 'r:*' attach to all of them, leave out with one summary line what cannot
# be traced, and the program runs as it runs untraced. Every address they
# probe (-v) is the start of an instruction, and every exit a RET or a JMP,
# according to binutils' objdump.
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

# whole NAME BINARY: both tools on '*' of BINARY --version.
whole() {
	local name=$1 bin=$FIX/$2 want out=$TMP/$1 rc
	need_file "$bin" || return
	want=$("$bin" --version 2>&1)

	timeout 300 "$LAT" -v -j -c "$bin --version" '*' >"$out.lat" 2>"$out.lat.err"
	rc=$?
	if [[ $rc -eq 0 ]] && grep -qxF -- "$want" "$out.lat" &&
		grep -q '^{"time"' "$out.lat"; then
		pass "$name: gofunclatency '*': exit 0, the program's output unchanged"
	else
		fail "$name: gofunclatency '*'" "exit $rc: $(grep -v '^probe \|^left out' "$out.lat.err" | head -3)"
	fi
	# never-returning functions (runtime.goexit...) are left out, said once
	if [[ $(grep -c '^gofunclatency: [0-9]* left out: .*never return' "$out.lat.err") -eq 1 ]] &&
		grep -q '^left out: runtime.goexit.*: no return instruction$' "$out.lat.err"; then
		pass "$name: gofunclatency '*': one summary line for what is left out"
	else
		fail "$name: gofunclatency summary" "$(grep -v '^probe ' "$out.lat.err" | head -3)"
	fi

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
	check_sites "$bin" "$name gofunclatency" "$out.lat.err" "$name gotrace" "$out.trace.err"
}

whole esbuild esbuild-latest
whole buf buf-1.75.0
no_links=0
no_links_left || no_links=1
check "no probe left attached" test $no_links -eq 0

finish
