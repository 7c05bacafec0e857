#!/bin/bash
# Seed the pclntab fuzzer with the tables of real fixtures (all layouts).
set -eu
out=$1

source "$(dirname "${BASH_SOURCE[0]}")/fixture_seed.sh"

section_seeds .gopclntab pclntab count-go1.15-default count-go1.19-default \
	count-go1.27-default
