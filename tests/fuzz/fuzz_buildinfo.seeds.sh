#!/bin/bash
# Seed the build-info fuzzer with the .go.buildinfo sections of fixtures
# (both formats: pointers before Go 1.18, inline strings after).
set -eu
out=$1
fix=${GT_FIXTURES:-build/fixtures}
for f in "$fix"/count-go1.15-default "$fix"/count-go1.27-default; do
	[[ -e $f ]] || continue
	objcopy -O binary --only-section=.go.buildinfo "$f" "$out/$(basename "$f").buildinfo"
done
