# SPDX-License-Identifier: MIT
# Helpers for the bench/ scripts, which bench/run.sh runs with its
# environment (GOFUNCCOUNT, FLOOR, MEASURE, LOOP, BIN, BENCH_*).
set -euo pipefail
: "${BENCH_WORK:?run bench/run.sh, not this script}"

die() { echo "bench: $*" >&2; exit 1; }
note() { echo "  $*" >&2; }

# measure ARGS...: bench/measure.py with the run's timeout; its key=value line.
measure() { python3 "$MEASURE" --timeout "$BENCH_TIMEOUT" "$@"; }

# kv KEY LINE: the value of KEY in a measure.py line.
kv() { sed -nE "s/(^|.* )$1=([^ ]*).*/\\2/p" <<<"$2"; }

# median: the median of the numbers on stdin, one a line.
median() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "-"; exit }
		print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# ratio A B: A/B with two decimals; ">X" when A is a lower bound (">120"),
# "-" when either is not a number.
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		gt = sub(/^>/, "", a)
		if (a !~ /^[0-9.]+$/ || b !~ /^[0-9.]+$/ || b + 0 == 0) print "-"
		else printf "%s%.2f\n", gt ? ">" : "", a / b }'
}

# probe_count LOG: the function count gofunccount printed ("Tracing N ...").
probe_count() { sed -nE 's/^Tracing ([0-9]+) functions.*/\1/p' "$1" | head -1; }

# table_count LOG NAME: NAME's count in gofunccount's last table.
table_count() {
	awk -v n="$2" '$1 == n && NF == 2 { c = $2 } END { print c + 0 }' "$1"
}

# file_offset BIN ADDR: the file offset of virtual address ADDR (hex).
file_offset() {
	local type off va fsz rest a=$(($2))
	while read -r type off va _ fsz rest; do
		[[ $type == LOAD ]] || continue
		if ((a >= va && a < va + fsz)); then
			printf '0x%x\n' $((a - va + off))
			return
		fi
	done < <(readelf -lW "$1")
	die "$2 is not in a loaded segment of $1"
}

# bpftrace runs: uprobes on stripped binaries (by file offset) need --unsafe;
# the default limits refuse more than 512 probes and programs.
export BPFTRACE_MAX_PROBES=1000000 BPFTRACE_MAX_BPF_PROGS=1000000
BPFTRACE=(bpftrace -B line)

# The httpd fixture under ApacheBench (sections 7 and 8).

# start_httpd LOG: the stripped net/http fixture ($BENCH_HTTPD) started,
# its output in LOG; sets spid and addr (127.0.0.1:PORT).
start_httpd() {
	[[ -x ${BENCH_HTTPD:-} ]] || die "missing ${BENCH_HTTPD:-the httpd fixture} (run tests/fixtures/build.sh)"
	command -v ab >/dev/null || die "ab (ApacheBench) is missing: scripts/setup-deps.sh installs apache2-utils"
	"$BENCH_HTTPD" >"$1" 2>&1 &
	spid=$!
	addr=
	for _ in $(seq 100); do
		addr=$(sed -n 's/^listening \(127\.0\.0\.1:[0-9]*\)$/\1/p' "$1")
		[[ -n $addr ]] && return 0
		sleep 0.1
	done
	die "the httpd fixture did not start: $(head -2 "$1")"
}

# window ADDR: the requests ab completes in one second, 8 at a time.
window() {
	timeout 10 ab -q -s 5 -t 1 -n 10000000 -c 8 "http://$1/" 2>/dev/null |
		awk '/^Complete requests:/ { c = $3 } END { print c + 0 }'
}

# cpu_ticks PID: its user and system time, in clock ticks.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
