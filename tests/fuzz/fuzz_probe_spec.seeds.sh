#!/bin/bash
# Seed the probe-spec fuzzer: "SPEC\0NAME" pairs from Go's naming rules.
set -eu
out=$1
i=0
while IFS='|' read -r spec name; do
	printf '%s\0%s' "$spec" "$name" >"$out/seed$i"
	i=$((i + 1))
done <<'SEEDS'
main.(*T).M|main.(*T).M
main.(*T).*|main.(*T).Foo
go:fmt.*|fmt.Println
/bin/x:net/http.(*conn).*|net/http.(*conn).serve
main.F[go.shape.int]|main.F[go.shape.int]
type:eq.main.T|type:eq.main.T
*a*a*a*a*b|aaaaaaaaaaaaaaaaaaaaaaaaaaaaaac
SEEDS
