#!/bin/bash
# gofunclatency against ground truth: the latency fixture times each of
# its traced calls itself and writes "NAME COUNT TOTAL_NS"; gofunclatency
# must count exactly the same calls and sum to within 2% of the same total,
# for every Go version and build form and for gccgo, and the fixture must
# print and exit the same with and without tracing.
source "$(dirname "$0")/lib.sh"
TOOL=$BUILD/gofunclatency
PATTERN='^main\.lat[A-Za-z]+$'

# Untraced runs: what the fixture prints and how it exits, once per binary.
untraced() {
	local f=$1 out=$2
	"$f" "$TMP/untraced.truth" >"$out" 2>&1
	echo "exit $?" >>"$out"
}

# latency_run NAME FIXTURE: trace one run under -p (so that the shell sees
# the fixture's own exit status) and compare with the fixture's numbers.
latency_run() {
	local name=$1 f=$2
	need_file "$f" || return
	local out=$TMP/$name.out truth=$TMP/$name.truth fout=$TMP/$name.fixture
	untraced "$f" "$TMP/$name.untraced"
	rm -f "$truth" "$TMP/lat.in"
	mkfifo "$TMP/lat.in"
	"$f" -wait "$truth" <"$TMP/lat.in" >"$fout" 2>&1 &
	local fpid=$!
	exec 7>"$TMP/lat.in"
	wait_exec "$fpid" "$f"
	"$TOOL" -j -F -r -p "$fpid" "$PATTERN" >"$out" 2>"$out.err" &
	local tpid=$!
	wait_tracing "$out.err"
	echo go >&7
	exec 7>&-
	wait "$fpid"
	echo "exit $?" >>"$fout"
	wait "$tpid"
	sed -i '/^ready$/d' "$fout"
	if ! grep -q '^Tracing' "$out.err"; then
		fail "$name" "gofunclatency did not attach: $(head -3 "$out.err")"
	elif ! cmp -s "$fout" "$TMP/$name.untraced"; then
		fail "$name" "output or exit status differs: $(tr '\n' ' ' <"$fout")"
	elif compare_latency "$truth" "$out"; then
		pass "$name"
	else
		fail "$name" "latencies differ from the fixture's own"
	fi
}

# wait_tracing FILE: until the tool says it is attached.
wait_tracing() {
	for _ in $(seq 200); do
		grep -q '^Tracing' "$1" 2>/dev/null && return
		sleep 0.1
	done
}

for v in 15 19 21 23 25 27; do
	for form in default stripped pie cgo; do
		latency_run "latency-go1.$v-$form" "$FIX/latency-go1.$v-$form"
	done
done
# gccgo: calls keyed by SP at entry, no goroutine layout.
latency_run latency-gccgo "$FIX/latency-gccgo"

# gccgo split stacks. The latency fixture never outgrows a goroutine's
# first segment (megabytes with gccgo-12), so this program recurses
# thousands of 1 KiB frames deep: many calls then run on segments that
# __morestack adds, leave it through their own RET into __morestack, and
# are paired at the RET after `call __morestack`. It checks itself that
# some call ran on a new segment (exit 3 otherwise) and times its calls.
# No panic unwinds the split frames here: gccgo-12's libgo itself faults
# now and then doing that on a busy machine, traced or not.
test_gccgo_split() {
	local src=$TMP/split.go bin=$TMP/split truth=$TMP/split.truth out=$TMP/split.out
	cat >"$src" <<'GO'
package main

import (
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

var count, total, segments int64

//go:noinline
func splitRec(n int, parent uintptr) int64 {
	t0 := time.Now()
	var buf [128]int64
	buf[n%128] = int64(n)
	// On one segment each level sits a frame below its caller.
	here := uintptr(unsafe.Pointer(&buf[0]))
	if parent != 0 && parent-here > 4096 {
		atomic.AddInt64(&segments, 1)
	}
	var r int64
	if n == 0 {
		time.Sleep(time.Millisecond)
	} else {
		r = splitRec(n-1, here) + buf[(n*7)%128]
	}
	atomic.AddInt64(&total, int64(time.Since(t0)))
	atomic.AddInt64(&count, 1)
	return r
}

func main() {
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for k := 0; k < 3; k++ {
				splitRec(6000+i, 0)
			}
		}(i)
	}
	wg.Wait()
	if segments == 0 {
		os.Stderr.WriteString("split: no call ran on a new stack segment\n")
		os.Exit(3)
	}
	f, err := os.Create(os.Args[1])
	if err == nil {
		fmt.Fprintf(f, "main.splitRec %d %d\n", count, total)
		err = f.Close()
	}
	if err != nil {
		os.Exit(1)
	}
}
GO
	if ! (cd "$TMP" && gccgo-12 -g -o "$bin" "$src") >"$out.build" 2>&1; then
		fail "gccgo split stacks" "gccgo-12 failed: $(head -3 "$out.build")"
		return
	fi
	"$TOOL" -j -F -c "$bin $truth" 'main.splitRec' >"$out" 2>"$out.err"
	local rc=$?
	if [[ $rc -ne 0 || ! -s $truth ]]; then
		fail "gccgo split stacks" "exit $rc: $(grep -v '^{' "$out" | head -3) $(head -3 "$out.err")"
	elif compare_latency "$truth" "$out" 1; then
		pass "gccgo split stacks: calls on new segments paired once"
	else
		fail "gccgo split stacks" "latencies differ from the program's own"
	fi
}
test_gccgo_split

# gccgo's libgo through a library short name, with -c and with -p. The
# count fixture calls fmt.Println 7 times (it says so in its own counts);
# the latency fixture calls fmt.Sprint once per explode(): 300 in
# latRecover, 300 in latRecoverSelf, 300 in latPanic. (The simpler count
# fixture for -c: gccgo-12's scheduler itself sometimes dies with
# "spinning with local work" under the latency fixture's 3000 goroutines.)
test_gccgo_libgo() {
	local f=$FIX/latency-gccgo out=$TMP/libgo.out want
	need_file "$f" || return
	need_file "$FIX/count-gccgo" || return
	"$TOOL" -c "$FIX/count-gccgo $TMP/libgo.counts" 'go:fmt.Println' \
		>"$out" 2>"$out.err"
	local rc=$?
	want=$(awk '$1 == "fmt.Println" { print $2 }' "$TMP/libgo.counts")
	if [[ $rc -eq 0 && -n $want ]] &&
		grep -qE "^avg = [0-9]+ nsecs, total: [0-9]+ nsecs, count: $want\$" "$out"; then
		pass "gccgo libgo -c: go:fmt.Println"
	else
		fail "gccgo libgo -c" "exit $rc: $(grep '^avg' "$out") $(head -2 "$out.err")"
	fi
	rm -f "$TMP/libgo.in"
	mkfifo "$TMP/libgo.in"
	"$f" -wait "$TMP/libgo.truth" <"$TMP/libgo.in" >/dev/null 2>&1 &
	local fpid=$!
	exec 7>"$TMP/libgo.in"
	wait_exec "$fpid" "$f"
	"$TOOL" -j -p "$fpid" 'go:fmt.Sprint' >"$out" 2>"$out.err" &
	local tpid=$!
	wait_tracing "$out.err"
	echo go >&7
	exec 7>&-
	wait "$fpid"
	wait "$tpid"
	local got
	got=$(python3 -c 'import json, sys
print(sum(json.loads(l)["count"] for l in open(sys.argv[1]) if l.startswith("{")))' "$out")
	if [[ $got == 900 ]]; then
		pass "gccgo libgo -p: go:fmt.Sprint"
	else
		fail "gccgo libgo -p" "count ${got:-?}, want 900: $(head -2 "$out.err")"
	fi
}
test_gccgo_libgo

# -c: the histogram, bcc's avg line, and the count of one function.
test_command() {
	local f=$FIX/latency-go1.23-default out=$TMP/cmd.out truth=$TMP/cmd.truth
	need_file "$f" || return
	"$TOOL" -c "$f $truth" 'main.latSleep' >"$out" 2>"$out.err"
	local rc=$? want
	want=$(awk '$1 == "main.latSleep" { print $2 }' "$truth" 2>/dev/null)
	if [[ $rc -eq 0 && -n $want ]] &&
		grep -q '^Tracing 1 functions for "main.latSleep"... Hit Ctrl-C to end.$' "$out" &&
		grep -qE '^ +nsecs +: count +distribution$' "$out" &&
		grep -qE "^avg = [0-9]+ nsecs, total: [0-9]+ nsecs, count: $want\$" "$out" &&
		grep -q '^Detaching...$' "$out"; then
		pass "-c: histogram and avg line"
	else
		fail "-c" "exit $rc, want count ${want:-?}: $(tail -4 "$out") $(head -2 "$out.err")"
	fi
}
test_command

# -F with several functions: "Function = NAME" before each histogram.
test_per_function() {
	local f=$FIX/latency-go1.21-pie out=$TMP/F.out
	need_file "$f" || return
	"$TOOL" -F -r -c "$f $TMP/F.truth" '^main\.lat(Sleep|Chan)$' >"$out" 2>"$out.err"
	if [[ $(grep -c '^Function = main\.lat\(Sleep\|Chan\)$' "$out") -eq 2 &&
		$(grep -c '^avg = ' "$out") -eq 2 ]]; then
		pass "-F: one histogram per function"
	else
		fail "-F" "$(grep -E '^(Function|avg)' "$out") $(head -2 "$out.err")"
	fi
}
test_per_function

# -u and -m: the unit label, and the average in that unit, against the
# fixture's own average (2% and rounding).
test_units() {
	local f=$FIX/latency-go1.19-default flag unit div out truth avg want
	need_file "$f" || return
	for flag in u m; do
		if [[ $flag == u ]]; then unit=usecs div=1000; else unit=msecs div=1000000; fi
		out=$TMP/unit-$flag.out truth=$TMP/unit-$flag.truth
		"$TOOL" -$flag -c "$f $truth" 'main.latSleep' >"$out" 2>"$out.err"
		avg=$(sed -nE "s/^avg = ([0-9]+) $unit, total: [0-9]+ $unit, count: 6000\$/\\1/p" "$out")
		want=$(awk -v d=$div '$1 == "main.latSleep" { print $3 / $2 / d }' "$truth" 2>/dev/null)
		if grep -qE "^ +$unit +: count" "$out" && [[ -n $avg && -n $want ]] &&
			awk -v a="$avg" -v w="$want" 'BEGIN { exit !(a >= w * 0.98 - 1 && a <= w * 1.02 + 1) }'; then
			pass "-$flag: $unit"
		else
			fail "-$flag" "fixture avg ${want:-?} $unit: $(grep -E '^(avg| +[um]?secs)' "$out") $(head -2 "$out.err")"
		fi
	done
}
test_units

# -i and -d with -T: one timestamped histogram per interval.
test_interval() {
	local f=$FIX/latency-go1.25-default out=$TMP/int.out
	need_file "$f" || return
	rm -f "$TMP/int.in"
	mkfifo "$TMP/int.in"
	"$f" -wait "$TMP/int.truth" <"$TMP/int.in" >/dev/null &
	local fpid=$!
	exec 7>"$TMP/int.in"
	wait_exec "$fpid" "$f"
	"$TOOL" -T -i 1 -d 3 -p "$fpid" 'main.latSleep' >"$out" 2>"$out.err"
	local rc=$?
	exec 7>&-
	wait "$fpid" 2>/dev/null
	local stamps
	stamps=$(grep -cE '^[0-9]{2}:[0-9]{2}:[0-9]{2} *$' "$out")
	if [[ $rc -eq 0 && $stamps -eq 3 ]]; then
		pass "-i 1 -d 3 -T"
	else
		fail "-i 1 -d 3 -T" "exit $rc, $stamps stamps: $(head -2 "$out.err")"
	fi
}
test_interval

# bad_input NAME WANT TOOL-ARGS...: exits non-zero with one line on stderr
# that matches WANT.
bad_input() {
	local name=$1 want=$2
	shift 2
	"$TOOL" "$@" >"$TMP/bad.out" 2>"$TMP/bad.err"
	local rc=$?
	if [[ $rc -ne 0 && $(wc -l <"$TMP/bad.err") -eq 1 ]] &&
		grep -qE -e "$want" "$TMP/bad.err"; then
		pass "bad input: $name"
	else
		fail "bad input: $name" "exit $rc: $(cat "$TMP/bad.err")"
	fi
}
bad_input "no pattern" 'no pattern given' -p 1
bad_input "-u with -m" '-u and -m' -u -m -p 1 'main.x'
bad_input "bad interval" 'invalid interval' -i x -p 1 'main.x'
bad_input "no such pid" 'no such process' -p 999999999 'main.x'
bad_input "no match" "no functions match 'main.nothing'" \
	-c "$FIX/latency-go1.27-default $TMP/x" 'main.nothing'
bad_input "not a Go binary" 'gofunclatency: .*' -c "/bin/true" 'main.x'
# A function that never returns is left out, in the summary; with nothing
# left, the list says why, then an error.
test_no_return() {
	local f=$FIX/latency-go1.27-default
	need_file "$f" || return
	"$TOOL" -c "$f $TMP/x" 'runtime.goexit' >"$TMP/nr.out" 2>"$TMP/nr.err"
	local rc=$?
	if [[ $rc -ne 0 ]] && grep -q '^left out: runtime.goexit: no return instruction$' "$TMP/nr.err" &&
		grep -q '^gofunclatency: 1 left out: 1 function that never returns$' "$TMP/nr.err" &&
		grep -q "^gofunclatency: no function matching 'runtime.goexit' can be timed$" "$TMP/nr.err" &&
		[[ $(grep -c '^gofunclatency: ' "$TMP/nr.err") -eq 2 ]]; then
		pass "no return: reported"
	else
		fail "no return" "exit $rc: $(cat "$TMP/nr.err")"
	fi
}
test_no_return

# Go 1.27's AVX-512 assembly (kmovq to memory, vpermb: capstone 4 decodes
# neither) is timed like any function: an entry probe, and an exit probe
# on each RET objdump sees.
test_avx512() {
	local f=$FIX/latency-go1.27-default fn want got rc
	need_file "$f" || return
	for fn in runtime.asyncPreempt internal/runtime/gc/scan.scanSpanPackedAVX512; do
		want=$(objdump -d --no-show-raw-insn --disassemble="$fn.abi0" "$f" |
			awk '$2 ~ /^retq?$/ { sub(/:$/, "", $1); print "0x" $1 }')
		"$TOOL" -v -d 1 "$f:$fn" >"$TMP/avx.out" 2>"$TMP/avx.err"
		rc=$?
		got=$(awk -v fn="$fn" '$1 == "probe" && $2 == fn && $3 == "exit" &&
			$6 == "(ret)" { print $5 }' "$TMP/avx.err")
		if [[ $rc -eq 0 && -n $want && $got == "$want" ]] &&
			grep -qF "probe $fn entry at " "$TMP/avx.err"; then
			pass "AVX-512: $fn"
		else
			fail "AVX-512: $fn" "exit $rc, RET ${got:-none}, objdump ${want:-none}: $(head -2 "$TMP/avx.err")"
		fi
	done
}
test_avx512

no_latency_links_left() {
	! prints 'uprobe_multi|perf_event.*call_(entry|exit)' bpftool link list
}
check "no probe left attached" no_latency_links_left
finish
