# Sourced by fuzz seed scripts whose fuzzer splices its input into a
# template: byte 0 of an input is where the rest goes, byte 1 how much to
# cut (see the fuzzer).
#
# seed NAME AT OFF=BYTE...: into $out/NAME, XOR each BYTE (hex) into the
# template at OFF.
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
