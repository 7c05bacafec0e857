# Sourced by the seed scripts of the fuzzers that splice their input into
# the hand-built pclntab of tests/unit/fake_pclntab.h (pclntab_input.h):
# byte 0 of an input is where the rest goes, byte 1 how much to cut.
#
# seed NAME AT OFF=BYTE...: into $out/NAME, XOR each BYTE (hex) into the
# template at OFF, the input starting at AT (a byte: at most 255).
seed() {
	local name=$1 at=$2 len=0 i bytes=()
	shift 2
	if ((at > 255)); then
		echo "seed $name: $at does not fit in byte 0" >&2
		return 1
	fi
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

# Cyclic inline trees, which the decoders must reject. In the template
# the inline-index table is at 139 (-1 for 0x10, 1 for 0x10, 0 for 0x10,
# -1 for 0xd0), inl.a's parentPc (0x40) at 256, inl.b's (0x20) at 272.
cycle_seeds() {
	# buf 1.75.0's semconv/v1.37.0.init: inlined code at the entry
	# (index 1 for 0x20, 0 for 0x10, -1 after), every parentPc 0: inl.b
	# is its own call site.
	seed cycle-at-entry 139 139=04 140=30 141=05 144=c0 146=d0 256=40 272=20
	# inl.b's call site in inl.b
	seed cycle-self 248 272=30
	# inl.a's call site in inl.b, inl.b's in inl.a
	seed cycle-two 248 256=50
}
