#!/bin/bash
# Seed the trace-probe fuzzer with probes of every part of the syntax:
# formats, arguments, selectors, len/cap, filters with every operator and
# constant, escapes.
set -eu
out=$1
i=0
while IFS= read -r probe; do
	printf '%s' "$probe" >"$out/seed$i"
	i=$((i + 1))
done <<'SEEDS'
main.add "%d %d" goarg1, goarg2
r:main.f "%s %w32d %t" goret1, goret2, goret3
main.(*T).Get (goarg1 > 100 && goarg2 != -3 || !ok) "%hhd %x" goarg1, goarg2
main.h (r.URL.Path == "/a\"b" || len(r.Body) >= 0x10) "%s %d %T" r.Method, cap(b), err
/bin/x:os.OpenFile "%s %lx %c %p %%" goarg1, goarg2, goarg3, goarg4
main.f (err != nil) "%f %w32f\n\t" goarg1, goarg2
main.h "%v %+v|%v" req, req.URL, xs[1]
SEEDS
