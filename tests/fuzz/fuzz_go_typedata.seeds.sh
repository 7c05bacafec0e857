#!/bin/bash
# Seed the type-data fuzzer with the type data of real fixtures (Go 1.15,
# 1.21, 1.27), each pointed at a few of their types: the header of
# fuzz_go_typedata.c, then runtime.types .. runtime.etypes.
set -eu
out=$1
fix=${GT_FIXTURES:-build/fixtures}
for v in 15 21 27; do
	f=$fix/values-go1.$v-default
	[[ -e $f ]] || continue
	python3 - "$f" "$v" "$out" <<'PY'
import struct, subprocess, sys
path, minor, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
syms = {}
for line in subprocess.check_output(["nm", path]).decode().splitlines():
    p = line.split()
    if len(p) == 3 and p[2] in ("runtime.types", "runtime.etypes"):
        syms[p[2]] = int(p[0], 16)
start, end = syms["runtime.types"], syms["runtime.etypes"]
data = open(path, "rb").read()
segs = []
for line in subprocess.check_output(["readelf", "-lW", path]).decode().splitlines():
    p = line.split()
    if p and p[0] == "LOAD":
        segs.append((int(p[1], 16), int(p[2], 16), int(p[4], 16)))
for off, va, fsz in segs:
    if va <= start and end <= va + fsz:
        body = data[off + start - va:off + end - va]
        break
# DWARF's runtime types are what test_go_typedata checks; here a spread
# of offsets past the first pages.
for i, at in enumerate(range(0x1000, min(len(body), 0x9000), 0x1000)):
    at -= at % 8
    hdr = struct.pack("<BQI", minor, start, at)
    open("%s/go1.%d-%d" % (out, minor, i), "wb").write(hdr + body)
PY
done
