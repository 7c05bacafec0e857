#!/bin/bash
# Seed the pcline fuzzer with the tables of real fixtures (all layouts),
# and with a cyclic inline tree spliced into its template.
set -eu
out=$1
fix=${GT_FIXTURES:-build/fixtures}
for f in "$fix"/count-go1.15-default "$fix"/count-go1.19-default \
	 "$fix"/count-go1.27-default; do
	[[ -e $f ]] || continue
	objcopy -O binary --only-section=.gopclntab "$f" "$out/$(basename "$f").pclntab"
done

source "$(dirname "${BASH_SOURCE[0]}")/splice_seed.sh"

# buf 1.75.0's semconv/v1.37.0.init: the inline-index table at 139 says
# 1 for 0x20, 0 for 0x10, -1 after; both parentPc (264, 280) 0.
seed cycle-at-entry 139 139=04 140=30 141=05 144=c0 146=d0 264=40 280=20
