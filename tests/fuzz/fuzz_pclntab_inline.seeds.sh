#!/bin/bash
# Seed the inline-tree fuzzer with cyclic trees, spliced into its template
# (fuzz_pclntab_inline.c: byte 0 is where the rest is XORed in, byte 1
# how much to cut; the inline-index table is at 97, inl.a's parentPc at
# 232, inl.b's at 248).
set -eu
out=$1

source "$(dirname "${BASH_SOURCE[0]}")/splice_seed.sh"

# buf 1.75.0's semconv/v1.37.0.init: inlined code at the entry (index 1
# for 0x20, 0 for 0x10, -1 after), every parentPc 0: inl.b is its own
# call site.
seed cycle-at-entry 97 97=04 98=30 99=05 102=c0 104=d0 248=20
# inl.b's call site in inl.b
seed cycle-self 248 248=30
# inl.a's call site in inl.b, inl.b's in inl.a
seed cycle-two 232 232=10
