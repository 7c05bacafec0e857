#!/bin/bash
# Seed the pcline fuzzer with the tables of real fixtures (all layouts).
set -eu
out=$1
fix=${GT_FIXTURES:-build/fixtures}
for f in "$fix"/count-go1.15-default "$fix"/count-go1.19-default \
	 "$fix"/count-go1.27-default; do
	[[ -e $f ]] || continue
	objcopy -O binary --only-section=.gopclntab "$f" "$out/$(basename "$f").pclntab"
done
