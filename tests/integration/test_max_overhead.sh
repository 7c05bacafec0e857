#!/bin/bash
# --max-overhead: the hotcold fixture calls main.hot as fast as a loop can
# (millions a second) and main.cold every 10 ms, counting both itself.
# Traced with a 5% limit, every tool detaches main.hot, marks what it has of
# it as partial (in the table and in -j: "detached after N calls", N no more
# than the fixture's own count), and keeps main.cold, whose numbers stay
# exactly the fixture's (gofuncgraph: every main.cold root, the trees after
# the detach marked partial). Both with uprobe_multi and without.
source "$(dirname "$0")/lib.sh"

FIXTURE=$FIX/hotcold-go1.27-default
SECONDS_RUN=2

# truth_of FILE NAME: the fixture's own count of NAME.
truth_of() { awk -v n="$2" '$1 == n { print $2 }' "$1"; }

test_gofunccount() {
	local mode=$1 out=$TMP/count-$1 hot cold hot_truth cold_truth rc
	"$BUILD/gofunccount" --max-overhead 5 \
		-c "$FIXTURE $SECONDS_RUN $out.truth" 'main.*' >"$out" 2>"$out.err"
	rc=$?
	hot_truth=$(truth_of "$out.truth" main.hot)
	cold_truth=$(truth_of "$out.truth" main.cold)
	hot=$(awk '$1 == "main.hot" && /partial: detached after/ {
		n = $2; a = $6; if (n == a) print n }' "$out")
	cold=$(awk '$1 == "main.cold" && !/partial/ { print $2 }' "$out")
	if [[ $rc -eq 0 && -n $hot && $hot -gt 0 && $hot -le ${hot_truth:-0} &&
		$cold == "$cold_truth" ]] &&
		grep -q "over --max-overhead 5%: 1 probed function detached, the most costly main.hot detached after $hot calls" "$out.err"; then
		pass "gofunccount --max-overhead 5 ($mode): main.hot partial, $hot of $hot_truth calls; main.cold exact, $cold"
	else
		fail "gofunccount --max-overhead 5 ($mode)" "exit $rc, fixture hot $hot_truth cold $cold_truth; table: $(grep -E 'main\.(hot|cold)' "$out" | tr '\n' ';') $(head -3 "$out.err")"
	fi
}

test_gofunccount_json() {
	local out=$TMP/count-json hot cold
	"$BUILD/gofunccount" -j --max-overhead 5 \
		-c "$FIXTURE $SECONDS_RUN $out.truth" 'main.*' >"$out" 2>"$out.err"
	hot=$(grep '"func":"main.hot"' "$out" |
		sed -n 's/.*"count":\([0-9]*\),"partial":true,"detached_after":\([0-9]*\),"detached_rate":[0-9]*}$/\1 \2/p')
	cold=$(grep '"func":"main.cold"' "$out" | grep -v partial |
		sed -n 's/.*"count":\([0-9]*\)}$/\1/p')
	if [[ -n $hot && ${hot% *} == "${hot#* }" &&
		${hot% *} -le $(truth_of "$out.truth" main.hot) &&
		$cold == "$(truth_of "$out.truth" main.cold)" ]]; then
		pass "gofunccount -j --max-overhead: main.hot partial with detached_after ${hot#* }, main.cold exact"
	else
		fail "gofunccount -j --max-overhead" "$(grep -E 'main\.(hot|cold)' "$out" | tr '\n' ' ')"
	fi
}

test_gofunclatency() {
	local out=$TMP/lat hot cold rc
	"$BUILD/gofunclatency" -F -j --max-overhead 5 \
		-c "$FIXTURE $SECONDS_RUN $out.truth" -r '^main\.(hot|cold)$' \
		>"$out" 2>"$out.err"
	rc=$?
	# -F -j: a line per function; main.cold sleeps 1 ms a call
	hot=$(grep '"func":"main.hot"' "$out" |
		sed -n 's/.*"count":\([0-9]*\),"partial":true,"detached_after":\([0-9]*\),.*/\1 \2/p')
	cold=$(grep '"func":"main.cold"' "$out" | grep -v partial |
		sed -n 's/.*"avg":\([0-9]*\),.*"count":\([0-9]*\)}$/\1 \2/p')
	if [[ $rc -eq 0 && -n $hot && ${hot% *} -le ${hot#* } &&
		${hot#* } -le $(truth_of "$out.truth" main.hot) &&
		${cold#* } == "$(truth_of "$out.truth" main.cold)" &&
		${cold% *} -ge 1000000 ]]; then
		pass "gofunclatency -F --max-overhead: main.hot partial (${hot% *} calls timed of ${hot#* } entered), main.cold exact (${cold#* } calls, avg ${cold% *} ns)"
	else
		fail "gofunclatency -F --max-overhead" "exit $rc: $(cut -c1-300 "$out") $(head -3 "$out.err")"
	fi
}

test_gotrace() {
	local out=$TMP/trace cold rc detached
	"$BUILD/gotrace" -j --max-overhead 5 \
		-c "$FIXTURE $SECONDS_RUN $out.truth" 'main.hot' 'main.cold' \
		>"$out" 2>"$out.err"
	rc=$?
	detached=$(grep -c '^{"func":"main.hot","ret":false,"partial":true,"detached_after":[0-9]*,' "$out")
	cold=$(grep -c '^{"pid":.*"func":"main.cold"' "$out")
	if [[ $rc -eq 0 && $detached == 1 &&
		$cold == "$(truth_of "$out.truth" main.cold)" ]] &&
		! grep -q 'main.cold.*partial' "$out"; then
		pass "gotrace -j --max-overhead: main.hot detached (said once), main.cold's $cold events all there"
	else
		fail "gotrace -j --max-overhead" "exit $rc, detached lines $detached, cold events $cold of $(truth_of "$out.truth" main.cold): $(head -3 "$out.err")"
	fi
}

# gofuncgraph: main.hot and main.cold as roots; main.hot detached and said
# so, every main.cold root still recorded (as many as the fixture's calls),
# the trees after the detach marked partial.
test_gofuncgraph() {
	local out=$TMP/graph cold partial rc
	"$BUILD/gofuncgraph" -j --max-overhead 5 \
		-c "$FIXTURE $SECONDS_RUN $out.truth" -r '^main\.(hot|cold)$' \
		>"$out" 2>"$out.err"
	rc=$?
	cold=$(grep -c '"func":"main.cold","start_ns"' "$out")
	partial=$(grep -c '"func":"main.cold".*"partial":true,"detached":1' "$out")
	if [[ $rc -eq 0 && $cold == "$(truth_of "$out.truth" main.cold)" &&
		$partial -gt 0 ]] &&
		grep -q "over --max-overhead 5%: 1 probed function detached, the most costly main.hot detached after" "$out.err"; then
		pass "gofuncgraph -j --max-overhead: main.hot detached, all $cold main.cold roots recorded, $partial after the detach marked partial"
	else
		fail "gofuncgraph -j --max-overhead" "exit $rc, cold roots $cold of $(truth_of "$out.truth" main.cold), $partial partial: $(head -3 "$out.err")"
	fi
}

# '*' is admitted in batches, after half a second of CPU samples of the
# target: the fixture's CPU goes to its loop calling main.hot, which -v
# names as the most sampled, to be tried last. The fixture ends (2 s)
# before all are tried: the trace ends as it does, with what was kept
# counted (main.cold no more than the fixture's count).
test_sampled_last() {
	local out=$TMP/sampled cold rc
	"$BUILD/gofunccount" -v --max-overhead 5 \
		-c "$FIXTURE $SECONDS_RUN $out.truth" '*' >"$out" 2>"$out.err"
	rc=$?
	cold=$(awk '$1 == "main.cold" { print $2 }' "$out")
	if [[ $rc -eq 0 && ${cold:-0} -le $(truth_of "$out.truth" main.cold) ]] &&
		grep -qE '^gofunccount: [0-9]+ CPU samples of the target \(at [0-9]+ Hz, [0-9.]+ us each\): [0-9]+ of [0-9]+ probed functions are in them and are tried last, the most sampled (main\.hot|main\.main\.func1) \([0-9]+\), (main\.hot|main\.main\.func1) ' "$out.err" &&
		grep -q "not tried (the trace ended first)" "$out.err"; then
		pass "gofunccount -v --max-overhead 5 '*': the fixture's loop sampled most, tried last; the trace ends with the fixture (main.cold $cold of $(truth_of "$out.truth" main.cold) from when it was kept)"
	else
		fail "gofunccount -v --max-overhead 5 '*'" "exit $rc, main.cold ${cold:-none}: $(grep -v '^probe\|^left out\|not attached' "$out.err" | head -5)"
	fi
}

test_bad_values() {
	local v ok=0
	for v in 0 -5 abc 5x; do
		"$BUILD/gofunccount" --max-overhead "$v" -c true 'main.*' \
			>/dev/null 2>"$TMP/bad.err"
		[[ $? -eq 2 ]] && grep -q "invalid --max-overhead: $v" "$TMP/bad.err" || ok=1
	done
	check "--max-overhead 0, -5, abc, 5x: a usage error naming it" test $ok -eq 0
}

need_file "$FIXTURE" || { finish; exit; }
test_gofunccount uprobe_multi
GOTOOLS_NO_UPROBE_MULTI=1 test_gofunccount one-uprobe-per-site
test_gofunccount_json
test_gofunclatency
test_gotrace
test_gofuncgraph
test_sampled_last
test_bad_values
check "no probe left attached" no_links_left
finish
