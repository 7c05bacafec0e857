#!/bin/bash
# Seed the build-info fuzzer with the .go.buildinfo sections of fixtures
# (both formats: pointers before Go 1.18, inline strings after).
set -eu
out=$1

source "$(dirname "${BASH_SOURCE[0]}")/fixture_seed.sh"

section_seeds .go.buildinfo buildinfo count-go1.15-default count-go1.27-default
