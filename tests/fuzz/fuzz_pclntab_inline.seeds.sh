#!/bin/bash
# Seed the inline-tree fuzzer with cyclic trees, spliced into its template.
set -eu
out=$1

source "$(dirname "${BASH_SOURCE[0]}")/splice_seed.sh"

cycle_seeds
