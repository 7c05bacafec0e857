#!/bin/bash
# gofunclatency -S against ground truth: the sched fixture's functions each
# spend their time in one place (on a CPU, asleep, waiting on a channel, in
# a system call, runnable behind a goroutine that holds the only P) and
# time their own calls. For every Go version, default, stripped and PIE:
# counts exact, totals within 2% of the fixture's, the parts of each
# function adding up to its total within 2%, and at least 80% of its time
# in the part it was built for.
source "$(dirname "$0")/lib.sh"
TOOL=$BUILD/gofunclatency
PATTERN='main.sched*'

# check_split TRUTH JSONOUT: the checks above.
check_split() {
	python3 - "$1" "$2" <<'PY'
import json, sys
want_part = {
    "main.schedSpin": ("on_cpu_ns", None),
    "main.schedSleep": ("parked_ns", "sleep"),
    "main.schedChan": ("parked_ns", "chan receive"),
    "main.schedSyscall": ("syscall_ns", None),
    "main.schedYield": ("runnable_ns", None),
}
parts = ("on_cpu_ns", "runnable_ns", "runnable_cpu_ns", "syscall_ns")
got = {}
for line in open(sys.argv[2]):
    if line.startswith("{") and "on_cpu_ns" in line:
        got[json.loads(line)["func"]] = json.loads(line)
ok = True
n = 0
for line in open(sys.argv[1]):
    name, count, total = line.split()
    count, total = int(count), int(total)
    n += 1
    j = got.get(name)
    if not j:
        print("  %s: no -S line" % name)
        ok = False
        continue
    t = j["total_ns"]
    s = sum(j[p] for p in parts) + sum(j["parked_ns"].values())
    key, reason = want_part[name]
    part = j[key] if reason is None else j["parked_ns"].get(reason, 0)
    if j["count"] != count or abs(t - total) > 0.02 * total or \
       abs(s - t) > 0.02 * t or part < 0.8 * t:
        print("  %s: fixture %d calls %d ns; tool %s" % (name, count, total,
              json.dumps(j)))
        ok = False
sys.exit(0 if ok and n == 5 else 1)
PY
}

# split_run NAME FIXTURE: a run checked; one whose split differs is run
# once more. The fixture's clock reads cannot bracket the probes exactly:
# when the machine is busy (other tests run beside this one) and the
# thread is off its CPU for 10 ms just after schedYield read the clock,
# the runtime preempts the goroutine there (asynchronously, at any
# instruction) and it waits behind the hog, a wait the probes count and
# the fixture does not (93 ms against 78.5 ms: twice in about ten CI runs).
# A split that is wrong fails both runs.
split_run() {
	local name=$1 f=$2 try rc said
	need_file "$f" || return
	local out=$TMP/$name.out truth=$TMP/$name.truth
	for try in 1 2; do
		rm -f "$truth"
		"$TOOL" -S -j -c "$f $truth" "$PATTERN" >"$out" 2>"$out.err"
		rc=$?
		if [[ $rc -ne 0 || ! -s $truth ]]; then
			fail "$name" "exit $rc: $(head -3 "$out.err")"
			return
		fi
		said=$(check_split "$truth" "$out") && break
		echo "$said"
		[[ $try -eq 2 ]] && {
			fail "$name" "the split differs from the fixture's own, twice"
			return
		}
	done
	if ((try == 2)); then
		pass "$name (on its second run)"
	else
		pass "$name"
	fi
}

for v in 15 19 21 23 25 27; do
	for form in default stripped pie; do
		split_run "split-go1.$v-$form" "$FIX/sched-go1.$v-$form"
	done
done

# --split-hists: a histogram per function and part, of the calls that
# spent time there: each of the five calls of schedSleep parked, of
# schedSpin ran; the buckets count them.
test_split_hists() {
	local f=$FIX/sched-go1.25-stripped out=$TMP/hists.out
	need_file "$f" || return
	"$TOOL" --split-hists -j -c "$f $TMP/hists.truth" "$PATTERN" >"$out" 2>&1
	check "--split-hists: a parked histogram of main.schedSleep's 5 calls, an on-CPU one of main.schedSpin's" \
		python3 - "$out" <<'PY'
import json, sys
got = {}
for line in open(sys.argv[1]):
    if line.startswith("{") and "hists" in line:
        j = json.loads(line)
        got[j["func"]] = {k: sum(b["count"] for b in h["buckets"]) for k, h in j["hists"].items()}
ok = got.get("main.schedSleep", {}).get("parked_ns") == 5 and \
     got.get("main.schedSpin", {}).get("on_cpu_ns") == 5 and \
     got.get("main.schedSyscall", {}).get("syscall_ns") == 5
if not ok:
    print(got)
sys.exit(0 if ok else 1)
PY
}
test_split_hists

# The text: a table per function after the histogram, each part named.
test_text() {
	local f=$FIX/sched-go1.27-default out=$TMP/text.out
	need_file "$f" || return
	"$TOOL" -S -m -c "$f $TMP/text.truth" "$PATTERN" >"$out" 2>&1
	check "split text: header" grep -q '^Where the time went:$' "$out"
	check "split text: sleep" grep -qE '^main\.schedSleep: 5 calls, total [0-9]+ msecs$' "$out"
	check "split text: parked part" grep -qE '^    parked: sleep +[0-9]+ +[0-9.]+% +[0-9]+$' "$out"
	check "split text: syscall part" grep -qE '^    syscall +[0-9]+ +[0-9.]+% +[0-9]+$' "$out"
	check "split text: runnable part" grep -qE '^    runnable \(P\) +[0-9]+ +[0-9.]+% +[0-9]+$' "$out"
	"$TOOL" --split-hists -m -c "$f $TMP/text.truth" main.schedSleep >"$out" 2>&1
	check "split text: a part's histogram" grep -qE '^main\.schedSleep, parked: 5 of its calls$' "$out"
}
test_text

# Only goroutines with a traced call in flight are tracked: under -S
# main.cold (one goroutine, a call every 10 ms) the tracker's map holds one
# goroutine at most; under -S of a function never called, none, while the
# other goroutine of the program switches all along.
tracked_max() {
	local max=0 n
	# main.cold is in flight about a tenth of the time (it sleeps 1 ms
	# every 10 ms): 15 reads missed it in a CI run; 60 leave a miss about
	# 0.9^60, a thousandth, if reads were independent
	for _ in $(seq 60); do
		# distinct goroutines; an entry deleted while bpftool walks
		# the keys shows as "<no entry>", and may come back
		n=$(bpftool map dump name gstates 2>/dev/null |
			grep -oE '"g": [0-9]+' | sort -u | wc -l)
		[[ -n $n && $n -gt $max ]] && max=$n
		sleep 0.05
	done
	echo "$max"
}
test_tracked() {
	local f=$FIX/hotcold-go1.27-default func=$1 want=$2 out=$TMP/tracked.out
	need_file "$f" || return
	"$f" 8 "$TMP/tracked.truth" &
	local fpid=$!
	wait_exec "$fpid" "$f"
	"$TOOL" -S -p "$fpid" "$func" >"$out" 2>&1 &
	local tpid=$!
	sleep 1
	local max
	max=$(tracked_max)
	kill -INT "$tpid"
	wait "$tpid"
	kill "$fpid"
	wait "$fpid" 2>/dev/null
	check "tracked goroutines under -S $func: at most $want ($max)" test "$max" -le "$want"
	[[ $func == main.cold ]] && check "tracked goroutines under -S main.cold: one while a call is in flight" test "$max" -eq 1
}
test_tracked main.cold 1
test_tracked main.hot 1
test_tracked fmt.Fprintln 0

# gccgo: refused in one line, nothing attached.
test_gccgo() {
	local f=$FIX/latency-gccgo out=$TMP/gccgo.out rc
	need_file "$f" || return
	"$TOOL" -S -c "$f $TMP/gccgo.truth" 'main.lat*' >"$out" 2>&1
	rc=$?
	check "split gccgo: refused" test "$rc" -ne 0
	check "split gccgo: one line naming gccgo" \
		bash -c "[[ \$(wc -l <'$out') -eq 1 ]] && grep -q '^gofunclatency: .*gccgo' '$out'"
	check "split gccgo: nothing left attached" no_links_left
}
test_gccgo

finish
