#!/bin/bash
# What gotrace cannot read prints a marker, never a number: main.addInts
# of the args fixture takes two ints, which a probe here reads as a Go
# string (pointer 42, length 13, and so on): user memory at those
# addresses is not mapped, so every value prints <fault>, and the traced
# program runs to its end undisturbed (its own output is complete).
source "$(dirname "$0")/lib.sh"
TOOL=$BUILD/gotrace

if [[ ! -x $TOOL ]]; then
	fail "gotrace" "$TOOL does not exist (run make)"
	finish
	exit 1
fi

test_unmapped() {
	local f=$FIX/args-go1.23-stripped out=$TMP/fault.out truth=$TMP/fault.truth
	need_file "$f" || return
	if ! timeout 120 "$TOOL" -c "$f $truth" 'main.addInts "%s|" goarg1' \
		>"$out" 2>"$out.err"; then
		fail "unmapped memory" "gotrace failed: $(head -3 "$out.err")"
		return
	fi
	local calls events faults
	calls=$(grep -c '^main.addInts ' "$truth")
	events=$(grep -c ' main\.addInts ' "$out")
	faults=$(grep -c ' main\.addInts *<fault>|$' "$out")
	if [[ $calls -eq 3 && $events -eq $calls && $faults -eq $calls ]] &&
		grep -q '^main.describe ' "$truth"; then
		pass "unmapped memory prints <fault> ($faults of $calls calls), the program runs on"
	else
		fail "unmapped memory" "$calls calls, $events events, $faults <fault>: $(grep addInts "$out" | head -3)"
	fi
}
test_unmapped

check "no probe left attached" no_links_left
finish
