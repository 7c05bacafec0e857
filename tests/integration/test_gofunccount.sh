#!/bin/bash
# gofunccount against ground truth: the count fixture counts its own calls
# and writes them to a file; gofunccount must agree to the unit, for every
# Go version and build form, gccgo, and real stripped third-party binaries.
source "$(dirname "$0")/lib.sh"
TOOL=$BUILD/gofunccount
PATTERN='^(main\..*|fmt\.Println)$'

# count_run NAME FIXTURE [TOOL OPTIONS...]: trace one run of the fixture
# with -c and compare every count.
count_run() {
	local name=$1 fixture=$2
	shift 2
	need_file "$fixture" || return
	local out="$TMP/$name.out" truth="$TMP/$name.truth"
	rm -f "$truth"
	if ! "$TOOL" "$@" -c "$fixture $truth" -r "$PATTERN" >"$out" 2>"$out.err"; then
		fail "$name" "gofunccount failed: $(head -3 "$out.err")"
		return
	fi
	if [[ ! -s $truth ]]; then
		fail "$name" "the fixture wrote no counts"
		return
	fi
	last_table "$out" >"$out.table"
	# gccgo's fmt.Println is in libgo.so, not in the binary: tested below.
	if [[ $name == *gccgo* ]]; then
		grep -v '^fmt\.' "$truth" >"$truth.main" && mv "$truth.main" "$truth"
	fi
	if compare_counts "$truth" "$out.table"; then
		pass "$name"
	else
		fail "$name" "counts differ from the fixture's own"
	fi
}

# count_fixture NAME: count_run of fixture NAME.
count_fixture() { count_run "$1" "$FIX/$1"; }

# A probe hit costs the fixture 1 to 20 us, 185,000 of them: seconds a run,
# as many at a time as there are CPUs (counts are exact whatever runs beside
# them).
forms=()
for v in 15 19 21 23 25 27; do
	for form in default stripped pie cgo; do
		forms+=("count-go1.$v-$form")
	done
done
in_parallel count_fixture "${forms[@]}" count-gccgo
# Without uprobe_multi: one perf-event uprobe per function, same counts.
GOTOOLS_NO_UPROBE_MULTI=1 count_run count-go1.21-single-uprobes "$FIX/count-go1.21-default"

# -p: attach to a running process that waits for us, then let it work.
test_pid() {
	local f=$FIX/count-go1.23-default out=$TMP/pid.out truth=$TMP/pid.truth
	need_file "$f" || return
	mkfifo "$TMP/pid.in"
	"$f" -wait "$truth" <"$TMP/pid.in" >"$TMP/pid.fixture" &
	local fpid=$!
	exec 7>"$TMP/pid.in"
	wait_exec "$fpid" "$f"
	"$TOOL" -p "$fpid" -r "$PATTERN" >"$out" 2>"$out.err" &
	local tpid=$!
	for _ in $(seq 100); do
		grep -q '^Tracing' "$out" 2>/dev/null && break
		sleep 0.1
	done
	echo go >&7
	exec 7>&-
	wait "$fpid"
	wait "$tpid"
	local rc=$?
	last_table "$out" >"$out.table"
	if [[ $rc -ne 1 ]] || ! grep -q "process $fpid exited" "$out.err"; then
		fail "pid: target exit reported" "exit $rc, stderr: $(cat "$out.err")"
	else
		pass "pid: target exit reported"
	fi
	if compare_counts "$truth" "$out.table"; then
		pass "pid: exact counts"
	else
		fail "pid: exact counts" "counts differ"
	fi
}
test_pid

# gccgo: fmt.Println lives in libgo.so, named the way bcc users know it.
test_gccgo_lib() {
	local f=$FIX/count-gccgo out=$TMP/go-lib.out
	need_file "$f" || return
	"$TOOL" -c "$f $TMP/go-lib.truth" 'go:fmt.Println' >"$out" 2>"$out.err"
	last_table "$out" >"$out.table"
	local want got
	want=$(awk '$1 == "fmt.Println" { print $2 }' "$TMP/go-lib.truth")
	got=$(awk '$1 == "fmt.Println" { print $2 }' "$out.table")
	if [[ -n $want && $want == "$got" ]]; then
		pass "gccgo go:fmt.Println"
	else
		fail "gccgo go:fmt.Println" "fixture $want, tool ${got:-nothing}: $(head -2 "$out.err")"
	fi
}
test_gccgo_lib

# Real stripped third-party binaries: main.main runs exactly once.
test_thirdparty() {
	local name=$1 f=$FIX/$1 out=$TMP/$1.out
	need_file "$f" || return
	"$TOOL" -c "$f --version" 'main.main' >"$out" 2>"$out.err"
	last_table "$out" >"$out.table"
	if grep -qx 'main.main 1' "$out.table"; then
		pass "$name main.main"
	else
		fail "$name main.main" "table: $(cat "$out.table") $(head -2 "$out.err")"
	fi
}
test_thirdparty esbuild-go1.15
test_thirdparty esbuild-latest

# More than 1000 functions in one go.
test_runtime_star() {
	local f=$FIX/count-go1.27-default out=$TMP/rt.out n
	need_file "$f" || return
	"$TOOL" -c "$f $TMP/rt.truth" 'runtime.*' >"$out" 2>"$out.err"
	n=$(sed -nE 's/^Tracing ([0-9]+) functions.*/\1/p' "$out")
	if [[ ${n:-0} -gt 1000 ]] && grep -q '^Detaching' "$out" &&
		grep -qE '^runtime\.main +1$' "$out"; then
		pass "runtime.* ($n functions)"
	else
		fail "runtime.*" "traced ${n:-0}: $(head -2 "$out.err")"
	fi
}
test_runtime_star

# JSON lines: one object per function, counts as in the table.
test_json() {
	local f=$FIX/count-go1.25-default out=$TMP/json.out
	need_file "$f" || return
	"$TOOL" -j -c "$f $TMP/json.truth" 'main.add' >"$out" 2>"$out.err"
	if python3 -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
want = [l.split() for l in open(sys.argv[2]) if l.startswith("main.add ")][0][1]
ok = len(rows) == 1 and rows[0]["func"] == "main.add" and rows[0]["count"] == int(want)
sys.exit(0 if ok else 1)' "$out" "$TMP/json.truth"; then
		pass "json"
	else
		fail "json" "$(cat "$out")"
	fi
}
test_json

# generic_run FIXTURE PATTERN COUNTED: PATTERN names a generic function or
# method as its source writes it ('main.Sum', 'main.(*Box).Get'): every
# instantiation is counted, under the binary's own name
# (main.Sum[go.shape.int], main.Sum[go.shape.int_0] in Go 1.19,
# main.Sum[...] when stripped), as the fixture counted COUNTED
# ("main.Sum[...]"), and nothing else: not main.SumAll, main.(*Boxer).Get
# or main.(*MyBox).Get, which the fixture counts differently.
generic_run() {
	local fixture=$1 pattern=$2 counted=$3 f=$FIX/$1
	local out=$TMP/generic.out truth=$TMP/generic.truth want total
	need_file "$f" || return
	rm -f "$truth"
	if ! "$TOOL" -c "$f $truth" "$pattern" >"$out" 2>"$out.err"; then
		fail "$fixture '$pattern'" "gofunccount failed: $(head -3 "$out.err")"
		return
	fi
	last_table "$out" >"$out.table"
	awk -v n="$counted" '$1 == n' "$truth" >"$truth.one"
	want=$(awk '{ print $2 }' "$truth.one")
	total=$(awk '{ s += $NF } END { print s + 0 }' "$out.table")
	if [[ -n $want && $total == "$want" ]] && compare_counts "$truth.one" "$out.table"; then
		pass "$fixture '$pattern'"
	else
		fail "$fixture '$pattern'" "fixture ${want:-nothing} for $counted, table: $(tr '\n' ';' <"$out.table")"
	fi
}

for fixture in count-go1.{19,21,23,25,27}-default count-go1.{19,27}-stripped; do
	generic_run "$fixture" 'main.Sum' 'main.Sum[...]'
	generic_run "$fixture" 'main.(*Box).Get' 'main.(*Box[...]).Get'
done

# gofunclatency and gotrace select functions through the same matcher: both
# instantiations of main.Sum, each call once.
test_generic_tools() {
	local fixture=$1 f=$FIX/$1 tool out n calls want
	need_file "$f" || return
	for tool in gofunclatency gotrace; do
		out=$TMP/generic-$tool.out
		rm -f "$TMP/generic-$tool.truth"
		"$BUILD/$tool" -c "$f $TMP/generic-$tool.truth" 'main.Sum' >"$out" 2>"$out.err"
		want=$(awk '$1 == "main.Sum[...]" { print $2 }' "$TMP/generic-$tool.truth")
		n=$(sed -nE 's/^Tracing ([0-9]+) functions.*/\1/p' "$out")
		if [[ $tool == gofunclatency ]]; then
			calls=$(sed -nE 's/^avg = .* count: ([0-9]+)$/\1/p' "$out")
		else
			calls=$(grep -c ' main\.Sum\[go\.shape\.' "$out")
		fi
		if [[ $n == 2 && -n $want && $calls == "$want" ]]; then
			pass "$tool $fixture 'main.Sum'"
		else
			fail "$tool $fixture 'main.Sum'" "${n:-no} functions, $calls calls of ${want:-?}: $(head -2 "$out.err")"
		fi
	done
}
test_generic_tools count-go1.19-default
test_generic_tools count-go1.27-default

# start_waiting FIXTURE TRUTH [WRAPPER...]: start a fixture that waits for
# a line on fd 7 before its workload; sets FIXTURE_PID.
start_waiting() {
	local fixture=$1 truth=$2
	shift 2
	rm -f "$TMP/wait.in"
	mkfifo "$TMP/wait.in"
	"$@" "$fixture" -wait "$truth" <"$TMP/wait.in" >"$TMP/wait.out" &
	FIXTURE_PID=$!
	exec 7>"$TMP/wait.in"
	for _ in $(seq 100); do
		grep -q '^ready' "$TMP/wait.out" 2>/dev/null && return
		sleep 0.1
	done
}

# wait_tracing OUT: until the tool says it is attached.
wait_tracing() {
	for _ in $(seq 100); do
		grep -q '^Tracing' "$1" 2>/dev/null && return
		sleep 0.1
	done
}

# -i and -d: a table per interval, each with a timestamp (-T).
test_interval() {
	local f=$FIX/count-go1.27-default out=$TMP/interval.out
	need_file "$f" || return
	start_waiting "$f" "$TMP/interval.truth"
	"$TOOL" -T -i 1 -d 3 -p "$FIXTURE_PID" 'main.add' >"$out" 2>"$out.err"
	local rc=$? tables stamps
	exec 7>&-
	kill "$FIXTURE_PID" 2>/dev/null
	wait "$FIXTURE_PID" 2>/dev/null
	tables=$(grep -c '^FUNC' "$out")
	stamps=$(grep -cE '^[0-9]{2}:[0-9]{2}:[0-9]{2} *$' "$out")
	if [[ $rc -eq 0 && $tables -eq 3 && $stamps -eq 3 ]]; then
		pass "-i 1 -d 3 -T: three timestamped tables"
	else
		fail "-i 1 -d 3 -T" "exit $rc, $tables tables, $stamps stamps"
	fi
}
test_interval

# A process in another mount namespace (a container): its executable is not
# at the path it was started from, as seen from here.
test_container() {
	local f=$FIX/count-go1.23-stripped out=$TMP/ns.out truth=$TMP/ns.truth why
	need_file "$f" || return
	# Where no mount namespace can be made (inside a chroot: "cannot change
	# root filesystem propagation"), say so and go on with the suite.
	if ! why=$(unshare --mount --propagation private --fork true 2>&1); then
		fail "process in another mount namespace" "cannot set one up: $why"
		return
	fi
	mkdir -p "$TMP/ns"
	cp "$f" "$TMP/ns/app"
	rm -f "$TMP/wait.in"
	mkfifo "$TMP/wait.in"
	unshare --mount --propagation private --fork sh -c '
		mount -t tmpfs none /mnt && cp "$1/app" /mnt/app &&
		exec /mnt/app -wait "$2"' sh "$TMP/ns" "$TMP/ns-truth-inner" 		<"$TMP/wait.in" >"$TMP/ns.fixture" &
	local upid=$!
	exec 7>"$TMP/wait.in"
	local app_pid=
	for _ in $(seq 100); do
		app_pid=$(pgrep -f '^/mnt/app -wait' | head -1)
		[[ -n $app_pid ]] && grep -q '^ready' "$TMP/ns.fixture" && break
		sleep 0.1
	done
	"$TOOL" -p "$app_pid" 'main.add' >"$out" 2>"$out.err" &
	local tpid=$!
	wait_tracing "$out"
	echo go >&7
	exec 7>&-
	wait "$upid"
	wait "$tpid"
	if [[ ! -e /mnt/app ]] && grep -qE '^main\.add +100000$' "$out"; then
		pass "process in another mount namespace"
	else
		fail "process in another mount namespace" "pid ${app_pid:-none}: $(tail -3 "$out") $(head -2 "$out.err")"
	fi
}
test_container

# gccgo under -p: libgo is found through the process's own maps.
test_gccgo_pid() {
	local f=$FIX/count-gccgo out=$TMP/gccgo-pid.out
	need_file "$f" || return
	start_waiting "$f" "$TMP/gccgo-pid.truth"
	"$TOOL" -p "$FIXTURE_PID" 'go:fmt.Println' >"$out" 2>"$out.err" &
	local tpid=$!
	wait_tracing "$out"
	echo go >&7
	exec 7>&-
	wait "$FIXTURE_PID"
	wait "$tpid"
	if grep -qE '^fmt\.Println +7$' "$out"; then
		pass "gccgo -p go:fmt.Println"
	else
		fail "gccgo -p go:fmt.Println" "$(tail -3 "$out") $(head -2 "$out.err")"
	fi
}
test_gccgo_pid

# runtime.* on a live process: the kernel checks each instruction as it
# plants the probes, so one site it refuses would fail the whole attach.
test_runtime_pid() {
	local f=$FIX/count-go1.25-default out=$TMP/rt-pid.out
	need_file "$f" || return
	start_waiting "$f" "$TMP/rt-pid.truth"
	"$TOOL" -p "$FIXTURE_PID" 'runtime.*' >"$out" 2>"$out.err" &
	local tpid=$!
	wait_tracing "$out"
	echo go >&7
	exec 7>&-
	wait "$FIXTURE_PID"
	wait "$tpid"
	if grep -qE '^runtime\.newproc +' "$out" && grep -q '^Detaching' "$out"; then
		pass "runtime.* on a running process"
	else
		fail "runtime.* on a running process" "$(tail -3 "$out") $(head -2 "$out.err")"
	fi
}
test_runtime_pid

check "no probe left attached" no_links_left
finish
