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
main.Sum|main.Sum[go.shape.int_0]
main.(*Box).Get|main.(*Box[go.shape.int]).Get
main.Map.func1|main.Map[go.shape.string,go.shape.[]int].func1
main.F|main.F[go.shape.struct { A int "json:\"a]\"" }]
main.S*m|main.Sum[...]
type:eq.main.T|type:eq.main.T
*a*a*a*a*b|aaaaaaaaaaaaaaaaaaaaaaaaaaaaaac
SEEDS
