#!/bin/bash
# SPDX-License-Identifier: MIT
# Benchmarks of gofunccount, gofunclatency, gotrace and gofuncgraph against bpftrace and
# against an empty BPF program, measured side by side in one run
# (`make bench`):
#
#   bench/run.sh [BUILD]      (BUILD defaults to build)
#
#   1. attach and detach time for 1, 100, 1000 and all functions of a large
#      stripped Go binary (bench/attach.sh)
#   2. cost per traced call of a small function (bench/percall.sh)
#   3. peak RSS of the tracers (bench/rss.sh)
#   4. gofunclatency: cost per timed call against bpftrace and an empty BPF
#      program, and its memory over a million calls (bench/latency.sh)
#   5. gotrace: cost per call printing an int and a string, against bpftrace
#      and an empty BPF program, and the events a second it prints with none
#      lost; the same for a %v of a struct (bench/trace.sh)
#   6. gofunclatency -S on a scheduler-heavy loop, against gofunclatency
#      without -S, the untraced loop and an empty BPF program at the
#      tracker's sites; gofuncgraph's cost per recorded call and roots a
#      second (bench/sched.sh)
#   7. --max-overhead 5 '*' on the stripped net/http fixture under
#      ApacheBench: each tool's 1-second windows from its "Tracing" against
#      untraced ones before and after, beside the loss its ledger predicts
#      and its costliest second; 7b, the model: --max-overhead 25 beside an
#      untraced control server, what the probes cost measured against the
#      ledger (bench/admission.sh)
#   8. --prometheus on the same server: its rate with a scrape every 100 ms
#      against its rate without, the tool's CPU, a scrape's time and size
#      (bench/metrics.sh)
#
# Absolute figures on a shared VM are noisy; compare the ratios. Knobs:
# BENCH_TIMEOUT (seconds a bpftrace attach or detach may take, default 120),
# BENCH_CALLS (calls per loop run, 200000), BENCH_ROUNDS (3), BENCH_BIN (the
# binary of section 1; default esbuild-latest, else the largest fixture),
# BENCH_SERVER (the server of section 1's whole-binary rows, caddy-2.6.2),
# BENCH_LAT_CALLS (calls of section 4b, 1000000), BENCH_TRACE_SECS (seconds
# of each paced run of section 5b, 2), BENCH_TRACE_RATE (its first rate,
# 10000 calls/s), BENCH_TRACE_BISECT (its bisection steps, 2),
# BENCH_SCHED_ITEMS (items of section 6a, 20000), BENCH_ADMIT_WINDOWS
# (windows a tool in section 7, 10), BENCH_METRICS_TURNS (turns of section
# 8, 3), BENCH_ONLY (the scripts to run, by name: "admission metrics" runs
# sections 7 and 8 alone; all by default).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
FIX=${GT_FIXTURES:-$BUILD/fixtures}

die() { echo "bench: $*" >&2; exit 1; }

export GOFUNCCOUNT=${GOFUNCCOUNT:-$BUILD/gofunccount}
export GOFUNCLATENCY=${GOFUNCLATENCY:-$BUILD/gofunclatency}
export GOTRACE=${GOTRACE:-$BUILD/gotrace}
export FLOOR=$BUILD/bench/uprobe_floor
export MEASURE=$ROOT/bench/measure.py
export BENCH_TIMEOUT=${BENCH_TIMEOUT:-120}
export BENCH_CALLS=${BENCH_CALLS:-200000}
export BENCH_ROUNDS=${BENCH_ROUNDS:-3}

[[ $(id -u) -eq 0 ]] || die "run as root (uprobes need CAP_BPF and CAP_PERFMON)"
for f in "$GOFUNCCOUNT" "$GOFUNCLATENCY" "$GOTRACE" "$FLOOR"; do
	[[ -x $f ]] || die "missing $f: run make all $BUILD/bench/uprobe_floor"
done
command -v bpftrace >/dev/null || die "bpftrace not installed"
command -v python3 >/dev/null || die "python3 not installed"
# bpftrace's uprobes go through tracefs, which is not mounted at boot here.
if ! mountpoint -q /sys/kernel/tracing; then
	mount -t tracefs nodev /sys/kernel/tracing ||
		die "cannot mount tracefs on /sys/kernel/tracing"
fi

# The loop program, built with the newest Go toolchain there is.
GOROOT=
for d in /usr/lib/go-1.19 $(ls -d /var/cache/gotools/go/1.* 2>/dev/null | sort -V); do
	[[ -x $d/bin/go ]] && GOROOT=$d
done
[[ -n $GOROOT ]] || die "no Go toolchain (run scripts/setup-deps.sh)"
export GO=$GOROOT/bin/go LOOP=$BUILD/bench/loop
export BENCH_WORK=$(mktemp -d /tmp/gotools-bench.XXXXXX)
mkdir -p "$BUILD/bench"
GOROOT=$GOROOT GOTOOLCHAIN=local GOFLAGS=-mod=mod GO111MODULE=auto \
	GOCACHE=$BENCH_WORK/gocache "$GO" build -o "$LOOP" "$ROOT/bench/loop/main.go" ||
	die "cannot build bench/loop with $GO"
export LOOP_GO=$("$GO" version | awk '{ print $3 }')

BIN=${BENCH_BIN:-$FIX/esbuild-latest}
if [[ ! -f $BIN ]]; then
	BIN=$(find "$FIX" -maxdepth 1 -type f -perm -u+x -printf '%s %p\n' \
		2>/dev/null | sort -rn | awk 'NR == 1 { print $2 }')
	[[ -f $BIN ]] || die "no fixtures in $FIX (run tests/fixtures/build.sh)"
fi
export BIN
export SERVER=${BENCH_SERVER:-$FIX/caddy-2.6.2}
export BENCH_HTTPD=$FIX/httpd-go1.27-stripped

echo "gotools benchmarks: $(uname -r), $(nproc) CPUs, $(bpftrace --version)," \
	"loop built with $LOOP_GO; logs in $BENCH_WORK"
echo "Absolute times on this shared VM are noisy: compare the ratios."

# Per-call costs first, then the RSS runs on the same loop program: a bpftrace
# that overran its timeout leaves the kernel closing its uprobes for minutes,
# so the attach runs, the longest of them last, come at the end.
# part NAME ARGS...: the script NAME of bench/, unless BENCH_ONLY leaves it out.
part() {
	[[ -z ${BENCH_ONLY:-} || " $BENCH_ONLY " == *" $1 "* ]] || return 0
	"$ROOT/bench/$1.sh" "${@:2}"
}

part percall
part rss
part latency
part trace
part sched
part admission
part metrics
part attach
part rss table

for s in 1 2 3 4a 4b 5a 5b 5c 6a 6b 7 7b 8; do
	[[ -f $BENCH_WORK/section$s.txt ]] || continue
	echo
	cat "$BENCH_WORK/section$s.txt"
done
