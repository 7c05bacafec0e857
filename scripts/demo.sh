#!/bin/bash
# SPDX-License-Identifier: MIT
# Trace the bundled demo program (examples/demo) with gofunccount:
# build it, then start it under the tracer and print how often each of its
# functions was called.
#
#   scripts/demo.sh BUILDDIR      (make demo: BUILDDIR is build/)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[ $# -eq 1 ] || { echo "usage: demo.sh BUILDDIR" >&2; exit 2; }
BUILD=$1
[ -x "$BUILD/gofunccount" ] || { echo "demo.sh: no $BUILD/gofunccount (run make first)" >&2; exit 1; }

"$ROOT/tests/fixtures/build.sh" --demo "$BUILD/fixtures" >/dev/null
echo "demo.sh: $BUILD/gofunccount -c $BUILD/fixtures/demo 'main.*'"
exec "$BUILD/gofunccount" -c "$BUILD/fixtures/demo" 'main.*'
