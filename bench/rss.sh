#!/bin/bash
# SPDX-License-Identifier: MIT
# Section 3: peak resident set (ru_maxrss, from bench/measure.py) of
# gofunccount and bpftrace.
#
#   bench/rss.sh          count every runtime.* function of bench/loop, per
#                         function, with both tools
#   bench/rss.sh table    print the table: these runs, and the runs of
#                         sections 1 and 2, which add rows to rss_rows
#
# rss_rows lines: LABEL|GOFUNCCOUNT_KB|GOFUNCCOUNT_EXIT|BPFTRACE_KB|BPFTRACE_EXIT
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ROWS=$BENCH_WORK/rss_rows

table() {
	cell() {
		awk -v k="$1" -v e="$2" 'BEGIN {
			if (k !~ /^[0-9]+$/) { print "-"; exit }
			printf "%.1f%s\n", k / 1024, e == "0" ? "" : " (" e ")" }'
	}
	echo "== 3. Peak RSS of the tracer process, MB"
	echo "     (died: the tool failed, see the notes; timeout/killed: stopped after the timeout)"
	printf '%-44s %16s %16s %22s\n' RUN gofunccount bpftrace "bpftrace/gofunccount"
	while IFS='|' read -r label gk ge bk be; do
		# A ratio only between two runs that did the whole job.
		r=-
		[[ $ge != 0 || $be != 0 ]] || r=$(ratio "$bk" "$gk")
		printf '%-44s %16s %16s %22s\n' "$label" "$(cell "$gk" "$ge")" \
			"$(cell "$bk" "$be")" "$r"
	done <"$ROWS"
	[[ ! -s $BENCH_WORK/rss_notes ]] || { echo; cat "$BENCH_WORK/rss_notes"; }
}

if [[ ${1:-} == table ]]; then
	table >"$BENCH_WORK/section3.txt"
	exit 0
fi

W=$BENCH_WORK/rss
mkdir -p "$W"
TARGET="$LOOP -wait -n 1000"

note "[rss] gofunccount -p PID 'runtime.*'"
g=$(measure --log "$W/gofunccount.log" --target "$TARGET" -- \
	"$GOFUNCCOUNT" -p '{pid}' 'runtime.*')
note "$g"
note "[rss] bpftrace -p PID 'uprobe:$LOOP:runtime.* { @[probe] = count(); }'"
b=$(measure --log "$W/bpftrace.log" --marker '^attached' --target "$TARGET" -- \
	"${BPFTRACE[@]}" -p '{pid}' -e "BEGIN { printf(\"attached\\n\"); } uprobe:$LOOP:runtime.* { @[probe] = count(); }")
note "$b"

echo "runtime.* of bench/loop, -p PID|$(kv maxrss_kb "$g")|$(kv exit "$g")|$(kv maxrss_kb "$b")|$(kv exit "$b")" >>"$ROWS"
# A tool that failed is reported with its own message, not left out.
{
	if [[ $(kv exit "$g") == 0 ]]; then
		echo "runtime.*: gofunccount: $(head -1 "$W/gofunccount.log"); attach $(kv attach_s "$g") s, detach $(kv detach_s "$g") s"
	else
		echo "runtime.*: gofunccount FAILED: $(grep -m1 -v '^$' "$W/gofunccount.log")"
	fi
	if [[ $(kv exit "$b") == 0 ]]; then
		echo "runtime.*: bpftrace: $(grep -m1 '^Attaching' "$W/bpftrace.log") attach $(kv attach_s "$b") s, detach $(kv detach_s "$b") s"
	else
		echo "runtime.*: bpftrace FAILED ($(kv exit "$b")): $(grep '^ERROR' "$W/bpftrace.log" |
			grep -v RLIMIT_MEMLOCK | head -1 || true)"
	fi
} >>"$BENCH_WORK/rss_notes"
