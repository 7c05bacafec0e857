#!/bin/bash
# SPDX-License-Identifier: MIT
# Trace the bundled demo program (examples/demo): build it, start it under
# gofunccount and print how often each of its functions was called, then
# start it under gotrace and print the first calls of store.add that
# record the word "fox" (a filter evaluated in BPF), with the word and the
# store's total read through the receiver pointer.
#
#   scripts/demo.sh BUILDDIR      (make demo: BUILDDIR is build/)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[ $# -eq 1 ] || { echo "usage: demo.sh BUILDDIR" >&2; exit 2; }
BUILD=$1
for tool in gofunccount gotrace; do
	[ -x "$BUILD/$tool" ] || { echo "demo.sh: no $BUILD/$tool (run make first)" >&2; exit 1; }
done

"$ROOT/tests/fixtures/build.sh" --demo "$BUILD/fixtures" >/dev/null
echo "demo.sh: $BUILD/gofunccount -c $BUILD/fixtures/demo 'main.*'"
"$BUILD/gofunccount" -c "$BUILD/fixtures/demo" 'main.*'
probe='main.(*store).add (word == "fox") "%s total=%d" word, s.total'
echo
echo "demo.sh: $BUILD/gotrace -M 10 -c $BUILD/fixtures/demo '$probe'"
exec "$BUILD/gotrace" -M 10 -c "$BUILD/fixtures/demo" "$probe"
