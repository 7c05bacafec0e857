# Helpers for integration tests: source this file, call `check` and `fail`,
# end with `finish`, which prints "N passed, N failed".
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${GT_BUILD:-$ROOT/build}
FIX=${GT_FIXTURES:-$BUILD/fixtures}
TMP=$(mktemp -d /tmp/gotools-test.XXXXXX)
chmod 755 "$TMP"
trap 'rm -rf "$TMP"' EXIT
t_passed=0
t_failed=0

pass() { t_passed=$((t_passed + 1)); echo "ok $1"; }
fail() { t_failed=$((t_failed + 1)); echo "not ok $1: $2"; }

# check NAME COMMAND...: passes when COMMAND succeeds.
check() {
	local name=$1
	shift
	if "$@"; then pass "$name"; else fail "$name" "$*"; fi
}

# prints RE COMMAND...: COMMAND printed (on stdout or stderr) a line that
# matches the extended regex RE. Not `COMMAND | grep -q RE`: under
# pipefail, grep's exit at the first match can kill COMMAND with SIGPIPE,
# and the pipeline then fails for the match it found.
prints() {
	local re=$1 out
	shift
	out=$("$@" 2>&1)
	grep -qE -- "$re" <<<"$out"
}

# need_file PATH: a missing fixture is a failure, never a skip.
need_file() {
	if [[ ! -e $1 ]]; then
		fail "fixture $1" "missing (run tests/fixtures/build.sh)"
		return 1
	fi
}

# wait_exec PID FILE: until process PID runs FILE. A fixture started as
# `FILE <fifo &` is a shell blocked opening the FIFO until a writer comes,
# and only then execs FILE: a tool given -p PID before that sees the shell.
wait_exec() {
	local want
	want=$(readlink -f "$2")
	for _ in $(seq 200); do
		[[ $(readlink -f "/proc/$1/exe" 2>/dev/null) == "$want" ]] && return 0
		sleep 0.05
	done
	return 1
}

# start_httpd FIXTURE OUT: start the HTTP fixture (tests/fixtures/httpd),
# its output in OUT.out; sets spid and addr (127.0.0.1:PORT), or returns 1
# when it did not say where it listens (and is gone).
start_httpd() {
	"$1" >"$2.out" 2>&1 &
	spid=$!
	for _ in $(seq 100); do
		addr=$(sed -n 's/^listening \(127\.0\.0\.1:[0-9]*\)$/\1/p' "$2.out")
		[[ -n $addr ]] && return 0
		sleep 0.1
	done
	kill "$spid" 2>/dev/null
	return 1
}

# wait_tracing FILE: until a tool's output FILE says "Tracing" (30 s at
# most).
wait_tracing() {
	for _ in $(seq 300); do
		grep -q '^Tracing' "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# in_parallel FUNCTION ARG...: FUNCTION ARG for each ARG, as many at a
# time as there are CPUs, for checks that hold whatever runs beside them
# (exact counts, not times); their lines printed in the order of the ARGs,
# their passes and failures counted.
in_parallel() {
	local fn=$1 i out=$TMP/in_parallel pids=() p f
	shift
	for ((i = 1; i <= $#; i++)); do
		# a job's tally file is its last act: those without one run
		while ((i - 1 - $(compgen -G "$out.*.tally" | wc -l) >= $(nproc))) &&
			[[ -n $(jobs -rp) ]]; do
			wait -n
		done
		(
			t_passed=0 t_failed=0
			"$fn" "${!i}"
			echo "$t_passed $t_failed" >"$out.$i.tally"
		) >"$out.$i" 2>&1 &
		pids+=($!)
	done
	wait "${pids[@]}"
	for ((i = 1; i <= $#; i++)); do
		cat "$out.$i"
		if { read -r p f <"$out.$i.tally"; } 2>/dev/null; then
			t_passed=$((t_passed + p))
			t_failed=$((t_failed + f))
		else
			fail "$fn ${!i}" "ended without a verdict"
		fi
	done
	rm -f "$out".*
}

finish() {
	echo "$t_passed passed, $t_failed failed"
	[[ $t_failed -eq 0 ]]
}

# The table gofunccount printed last (lines after the last FUNC header and
# before "Detaching..."), as "NAME COUNT" with " [inlined]" rows folded into
# their function.
last_table() {
	awk '/^FUNC +COUNT$/ { n = 0; delete rows; intable = 1; next }
	     /^Detaching/ { intable = 0 }
	     intable && NF >= 2 { rows[++n] = $0 }
	     END { for (i = 1; i <= n; i++) print rows[i] }' "$1" |
	sed -E 's/ \[inlined\]//' |
	awk '{ c = $NF; $NF = ""; sub(/ +$/, ""); sum[$0] += c }
	     END { for (k in sum) print k, sum[k] }' | sort
}

# compare_counts TRUTH TABLE: every function the fixture counted itself
# must have exactly its count in TABLE ("main.Sum[...]" sums instantiations,
# "main.(*Box[...]).Get" those of a method: whatever is in the brackets).
compare_counts() {
	local truth=$1 table=$2 name want got ok=0
	while read -r name want; do
		if [[ $name == *'[...]'* ]]; then
			got=$(awk -v p="${name%%'[...]'*}[" -v q="]${name#*'[...]'}" '{
				c = $NF; $NF = ""; sub(/ +$/, "")
				n = length($0) - length(q)
				if (index($0, p) == 1 && n >= length(p) &&
				    substr($0, n + 1) == q) s += c
				} END { print s + 0 }' "$table")
		else
			got=$(awk -v n="$name" '{ c = $NF; $NF = ""; sub(/ +$/, "");
				if ($0 == n) s += c } END { print s + 0 }' "$table")
		fi
		if [[ $got != "$want" ]]; then
			echo "  $name: fixture counted $want, tool counted $got"
			ok=1
		fi
	done <"$truth"
	return $ok
}

# Our BPF programs, by name: every function of bpf/ under a SEC().
our_progs() {
	grep -h -A1 '^SEC("' "$ROOT"/bpf/*.bpf.c "$ROOT"/bpf/*.h |
		sed -n -e 's/^int BPF_PROG(\([a-z_0-9]*\),.*/\1/p' \
		       -e 's/^int \([a-z_0-9]*\)(.*/\1/p' | sort -u
}

# No link of ours may survive a tool: no uprobe_multi link at all (bpftool
# 7.1 calls the type 12), no other link (a perf event, the scheduler's
# tracepoint) running one of our programs. A bpftool that cannot list
# links fails the check, loudly. Links belong to the machine, not to a
# process bpftool 7.1 names: the check takes no other tracer to run
# meanwhile (as in CI; not beside another test run).
no_links_left() {
	local links progs left
	if ! links=$(bpftool -j link list 2>&1) || ! progs=$(bpftool -j prog list 2>&1); then
		echo "  bpftool cannot list links or programs: ${links:0:200} ${progs:0:200}" >&2
		return 1
	fi
	left=$(python3 -c '
import json, sys
links, progs, ours = json.loads(sys.argv[1]), json.loads(sys.argv[2]), set(sys.argv[3].split())
names = {p["id"]: p.get("name", "") for p in progs}
for l in links:
    name = names.get(l.get("prog_id"), "")
    if l.get("type") in (12, "uprobe_multi") or name in ours:
        print(l.get("id"), l.get("type"), name)
' "$links" "$progs" "$(our_progs)") || { echo "  cannot read bpftool's lists" >&2; return 1; }
	[[ -z $left ]] && return 0
	echo "  links left: $left" >&2
	return 1
}

# compare_latency TRUTH JSONOUT [MIN [PCT]]: gofunclatency -j against the
# latency fixture's own "NAME COUNT TOTAL_NS": counts equal, totals within
# PCT% (default 2), for each of the (at least MIN, default 9) functions of
# TRUTH.
compare_latency() {
	python3 - "$1" "$2" "${3:-9}" "${4:-2}" <<'PY'
import json, sys
got = {}
for line in open(sys.argv[2]):
    if line.startswith("{"):
        j = json.loads(line)
        c, t = got.get(j["func"], (0, 0))
        got[j["func"]] = (c + j["count"], t + j["total_ns"])
ok = True
n = 0
for line in open(sys.argv[1]):
    name, count, total = line.split()
    count, total = int(count), int(total)
    c, t = got.get(name, (0, 0))
    n += 1
    if c != count or abs(t - total) > float(sys.argv[4]) / 100 * total:
        print("  %s: fixture %d calls %d ns, tool %d calls %d ns"
              % (name, count, total, c, t))
        ok = False
sys.exit(0 if ok and n >= int(sys.argv[3]) else 1)
PY
}

# drop_count_lines FILE: the count fixture's own "count: line N of 7"
# lines out of FILE, where its standard output, which it shares with the
# tool that started it (-c), may have written them into the middle of the
# tool's lines.
drop_count_lines() {
	python3 -c 'import re, sys
p = sys.argv[1]
s = open(p).read()
open(p, "w").write(re.sub(r"count: line [0-9]+ of 7\n", "", s))' "$1"
}
