#!/bin/bash
# Seed the inline-tree fuzzer with cyclic trees, spliced into its template
# (fuzz_pclntab_inline.c: byte 0 is where the rest is XORed in, byte 1
# how much to cut; the inline-index table is at 97, inl.a's parentPc at
# 232, inl.b's at 248).
set -eu
out=$1

# seed NAME AT OFF=BYTE...: XOR each BYTE (hex) into the template at OFF.
seed() {
	local name=$1 at=$2 len=0 i bytes=()
	shift 2
	for kv in "$@"; do
		i=$((${kv%=*} - at))
		((i + 1 > len)) && len=$((i + 1))
		bytes[i]=${kv#*=}
	done
	{
		printf %b "\\x$(printf %02x "$at")\\x00"
		for ((i = 0; i < len; i++)); do
			printf %b "\\x${bytes[i]:-00}"
		done
	} >"$out/$name"
}

# buf 1.75.0's semconv/v1.37.0.init: inlined code at the entry (index 1
# for 0x20, 0 for 0x10, -1 after), every parentPc 0: inl.b is its own
# call site.
seed cycle-at-entry 97 97=04 98=30 99=05 102=c0 104=d0 248=20
# inl.b's call site in inl.b
seed cycle-self 248 248=30
# inl.a's call site in inl.b, inl.b's in inl.a
seed cycle-two 232 232=10
