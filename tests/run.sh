#!/bin/bash
# Run every test: unit tests (plain and under ASan/UBSan), fuzzers for a
# bounded time, and the integration tests that trace real Go programs with
# real BPF. Ends with "N passed, N failed"; exits non-zero on any failure.
set -uo pipefail
BUILD=${1:-build}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "$BUILD" && pwd)
export GT_BUILD=$BUILD
export GT_FIXTURES=${GT_FIXTURES:-$BUILD/fixtures}
FUZZ_SECONDS=${GT_FUZZ_SECONDS:-10}
# The fuzzers' corpora persist: each run goes on from what the last found.
FUZZ_CORPORA=${GT_CACHE:-/var/cache/gotools}/fuzz-corpus
passed=0
failed=0
failures=()

# Add the "N passed, N failed" line of one suite to the totals.
tally() {
	local name=$1 log=$2 rc=$3 line p f
	line=$(grep -E '[0-9]+ passed, [0-9]+ failed' "$log" | tail -1)
	if [[ -z $line ]]; then
		echo "FAIL $name: no result line (exit $rc)"
		tail -20 "$log"
		failed=$((failed + 1))
		failures+=("$name")
		return
	fi
	p=$(grep -oE '[0-9]+ passed' <<<"$line" | grep -oE '[0-9]+')
	f=$(grep -oE '[0-9]+ failed' <<<"$line" | grep -oE '[0-9]+')
	passed=$((passed + p))
	failed=$((failed + f))
	if [[ $f -ne 0 || $rc -ne 0 ]]; then
		[[ $f -eq 0 ]] && failed=$((failed + 1))
		failures+=("$name")
		echo "FAIL $name ($line, exit $rc)"
		grep -vE '^(ok|PASS) ' "$log" | tail -40
	else
		echo "ok   $name ($line)"
	fi
}

run_suite() {
	local name=$1
	shift
	local log="$BUILD/logs/$name.log" start=$SECONDS rc
	"$@" >"$log" 2>&1
	rc=$?
	echo "     $name took $((SECONDS - start)) s" >>"$BUILD/logs/times.log"
	tally "$name" "$log" $rc
}

mkdir -p "$BUILD/logs"
: >"$BUILD/logs/times.log"

# start_suite NAME COMMAND...: run_suite in the background, its exit
# status into its log's .rc file, for tally_started.
start_suite() {
	local name=$1
	shift
	rm -f "$BUILD/logs/$name.log.rc"
	(
		local log="$BUILD/logs/$name.log" start=$SECONDS
		"$@" >"$log" 2>&1
		echo $? >"$log.rc"
		echo "     $name took $((SECONDS - start)) s" >>"$BUILD/logs/times.log"
	) &
}

tally_started() {
	local name log
	for name in "$@"; do
		log="$BUILD/logs/$name.log"
		tally "$name" "$log" "$(cat "$log.rc" 2>/dev/null || echo 1)"
	done
}

# Wait until fewer than JOBS jobs run: as many as there are CPUs.
JOBS=$(nproc)
wait_for_slot() {
	while (($(jobs -rp | wc -l) >= JOBS)); do
		wait -n
	done
}

# Unit tests that time what they measure, or trace: alone, after the others.
ALONE=(test_hit_cost test_overhead_limit test_buf_inline test_probe_spec
	test_percpu_map test_target test_go_map test_cpu_samples
	test_overhead_load)
alone() {
	local a
	for a in "${ALONE[@]}"; do
		[[ $1 == "$a" ]] && return 0
	done
	return 1
}

# The unit tests' listings of fixtures (tests/unit/cached_output.h) stay
# while they are read: those of fixtures rebuilt since (another inode) are
# never read again.
find "${GT_CACHE:-/var/cache/gotools}/listings" -type f -atime +14 -delete 2>/dev/null

echo "== unit tests ($JOBS at a time; those that time or trace alone)"
started=()
for t in "$BUILD"/tests/test_* "$BUILD"/tests-san/test_*; do
	[[ -x $t ]] && ! alone "$(basename "$t")" || continue
	name="$(basename "$(dirname "$t")")-$(basename "$t")"
	wait_for_slot
	start_suite "$name" "$t"
	started+=("$name")
done
wait
tally_started "${started[@]}"
for t in "$BUILD"/tests/test_* "$BUILD"/tests-san/test_*; do
	[[ -x $t ]] && alone "$(basename "$t")" || continue
	run_suite "$(basename "$(dirname "$t")")-$(basename "$t")" "$t"
done

# One fuzzer for FUZZ_SECONDS, its exit status into its log's .rc file.
fuzz_one() {
	local fz=$1 name corpus seeds log
	name=$(basename "$fz")
	corpus="$FUZZ_CORPORA/$name"
	log="$BUILD/logs/$name.log"
	mkdir -p "$corpus"
	seeds="$ROOT/tests/fuzz/$name.seeds.sh"
	[[ -x $seeds ]] && "$seeds" "$corpus" >/dev/null 2>&1
	"$fz" -max_total_time="$FUZZ_SECONDS" -timeout=10 -rss_limit_mb=4096 \
		-artifact_prefix="$BUILD/logs/$name-" "$corpus" >"$log" 2>&1
	echo $? >"$log.rc"
}

# The fuzzers use a CPU each and nothing else.
echo "== fuzzers (${FUZZ_SECONDS}s each, $JOBS at a time)"
for fz in "$BUILD"/fuzz/fuzz_*; do
	[[ -x $fz ]] || continue
	wait_for_slot
	rm -f "$BUILD/logs/$(basename "$fz").log.rc"
	fuzz_one "$fz" &
done
wait
for fz in "$BUILD"/fuzz/fuzz_*; do
	[[ -x $fz ]] || continue
	name=$(basename "$fz")
	log="$BUILD/logs/$name.log"
	if [[ $(cat "$log.rc" 2>/dev/null) == 0 ]]; then
		echo "ok   $name"
		passed=$((passed + 1))
	else
		echo "FAIL $name (exit $(cat "$log.rc" 2>/dev/null || echo none))"
		tail -30 "$log"
		failed=$((failed + 1))
		failures+=("$name")
	fi
done

echo "== integration tests"
for t in "$ROOT"/tests/integration/test_*.sh; do
	run_suite "$(basename "$t" .sh)" bash "$t"
done

echo
cat "$BUILD/logs/times.log"
if ((${#failures[@]})); then
	echo "failed suites: ${failures[*]}"
fi
echo "TOTAL: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
