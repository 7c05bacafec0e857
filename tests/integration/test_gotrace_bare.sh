#!/bin/bash
# gotrace's probes without a format print every argument, and r: every
# result, as the args fixture's own lines say its calls were made: for
# each call of its functions, "NAME ARGS -> RESULTS" written with Go's %v
# (tests/fixtures/args). Under 'main.*' and 'r:main.*' each call's entry
# must print "(name=V, ...)" with the fixture's values and its return
# "=> (V, ...)" with its results, in the fixture's order, on every Go
# version the tests build (the stack ABI of Go 1.15, the register ABI
# after), PIE, and gccgo. What BPF cannot read says so: floats in XMM
# registers print <xmm>. Stripped binaries print the methods their
# receiver's method table types (main.celsius.toF, (*counter).add)
# unnamed; under the register ABI the other functions print the raw words
# their morestack tail spills, "(raw: 0x2a, 0xd)", each at its width, as
# the fixture's values are in two's complement; else "(<no types>)",
# never a guess.
# -j carries "args" and "results" by name; --no-values prints none.
source "$(dirname "$0")/lib.sh"
# the Python the gotrace tests share (gotrace_lines.py)
export PYTHONPATH=$ROOT/tests/integration
TOOL=$BUILD/gotrace
VERSIONS=(1.15 1.19 1.21 1.23 1.25 1.27)

if [[ ! -x $TOOL ]]; then
	fail "gotrace" "$TOOL does not exist (run make)"
	finish
	exit 1
fi


# test_fixture NAME ABI DWARF: 'main.*' and 'r:main.*' on the fixture NAME.
test_fixture() {
	local name=$1 abi=$2 dwarf=$3 f=$FIX/$1 out=$TMP/bare-$1 res
	need_file "$f" || return
	if ! timeout 120 "$TOOL" -c "$f $out.truth" 'main.*' 'r:main.*' \
		>"$out" 2>"$out.err"; then
		fail "$name: bare probes" "gotrace failed: $(head -3 "$out.err")"
		return
	fi
	if res=$(python3 "$ROOT/tests/integration/gotrace_bare_compare.py" "$out.truth" "$out" "$abi" "$dwarf"); then
		pass "$name: 'main.*' 'r:main.*' without a format: every argument and result as the fixture's own lines ($(head -1 <<<"$res"))"
	else
		fail "$name: bare probes" "$(tr '\n' ';' <<<"$res")"
	fi
}

for v in "${VERSIONS[@]}"; do
	abi=reg
	[[ $v == 1.15 ]] && abi=stack
	for form in default pie stripped; do
		dwarf=dwarf
		[[ $form == stripped ]] && dwarf=none
		test_fixture "args-go$v-$form" $abi $dwarf
	done
done
test_fixture args-gccgo reg dwarf

# -j: "args" and "results" by name (goretN for an unnamed result), as the
# fixture wrote them; named results by their names.
test_json() {
	local f=$FIX/args-go1.27-default out=$TMP/bare-json
	need_file "$f" || return
	if ! timeout 120 "$TOOL" -j -c "$f $out.truth" 'main.greet' \
		'r:main.describe' 'r:main.minMax' >"$out" 2>"$out.err"; then
		fail "-j args and results" "gotrace failed: $(head -3 "$out.err")"
		return
	fi
	if python3 - "$out.truth" "$out" <<'PY'; then
import json, sys
truth = [l.split() for l in open(sys.argv[1]) if l.startswith("main.")]
want = []
for t in truth:
    arrow = t.index("->")
    if t[0] == "main.greet":
        want.append(("main.greet", "args", {"name": t[1], "n": int(t[2])}))
    elif t[0] == "main.describe":
        r = t[arrow + 1:]
        want.append(("main.describe", "results",
                     {"goret1": r[0], "goret2": int(r[1]), "goret3": r[2] == "true"}))
    elif t[0] == "main.minMax":
        r = t[arrow + 1:]
        want.append(("main.minMax", "results", {"lo": int(r[0]), "hi": int(r[1])}))
got = []
for line in open(sys.argv[2]):
    e = json.loads(line)
    key = "args" if "args" in e else "results"
    got.append((e["func"], key, e.get(key)))
    assert len(e["values"]) == len(e[key]), line
print(len(want), "calls")
sys.exit(0 if got == want and len(want) == 10 else 1)
PY
		pass "-j: \"args\" and \"results\" by name (goretN unnamed), as the fixture's calls"
	else
		fail "-j args and results" "$(head -3 "$out")"
	fi
}
test_json

# --no-values: a line per call, no value read.
test_no_values() {
	local f=$FIX/args-go1.27-default out=$TMP/bare-none calls lines
	need_file "$f" || return
	if ! timeout 120 "$TOOL" --no-values -c "$f $out.truth" 'main.greet' \
		'r:main.greet' >"$out" 2>"$out.err"; then
		fail "--no-values" "gotrace failed: $(head -3 "$out.err")"
		return
	fi
	calls=$(grep -c '^main.greet ' "$out.truth")
	lines=$(grep -cE '^[0-9]+ +[0-9]+ +[0-9]+ +[^ ]+ +main\.greet *$' "$out")
	if [[ $calls -eq 4 && $lines -eq $((2 * calls)) ]]; then
		pass "--no-values: $lines lines for $calls calls, none with a value"
	else
		fail "--no-values" "$lines bare lines for $calls calls: $(sed -n 3p "$out")"
	fi
}
test_no_values

# An inlined copy prints the argument where DWARF's location lists place
# it at the copy's start, else <optimized out>: stackMiddle(n) calls
# stackLeaf(n + 1), whose own n is the fixture's STACK line.
test_inlined() {
	local f=$FIX/args-go1.27-default out=$TMP/bare-inlined
	need_file "$f" || return
	if ! timeout 120 "$TOOL" -c "$f $out.truth" 'main.stackMiddle' \
		'main.stackLeaf' >"$out" 2>"$out.err"; then
		fail "inlined copies" "gotrace failed: $(head -3 "$out.err")"
		return
	fi
	local want got copies
	want=$(awk '/^STACK /{print "(n=" $2 ")"}' "$out.truth" | tr '\n' ' ')
	got=$(awk '$5 == "main.stackLeaf" {print $6}' "$out" | tr '\n' ' ')
	copies=$(grep -cE ' main\.stackMiddle \[inlined\] \(n=(<optimized out>|-?[0-9]+)\)$' "$out")
	if [[ -n $want && $got == "$want" && $copies -eq 3 ]]; then
		pass "inlined copies: $copies print (n=...), stackLeaf's n as the fixture's ($want)"
	else
		fail "inlined copies" "stackLeaf '$got', fixture '$want', $copies copies: $(sed -n 3p "$out")"
	fi
}
test_inlined

# %v of a type parameter's value prints by its shape, said first as
# <TYPE> when its type argument has a String method, as fmt would call it:
# kindOf(x) of the fixture records %T of x and x + 1; main.tempC has one.
test_type_arg_marks() {
	local v=$1 f=$FIX/args-go$1-default out=$TMP/bare-marks-$1 want got
	need_file "$f" || return
	if ! timeout 120 "$TOOL" -c "$f $out.truth" 'main.kindOf' >"$out" 2>"$out.err"; then
		fail "go$v: type argument marks" "gotrace failed: $(head -3 "$out.err")"
		return
	fi
	want=$(awk '$1 == "main.kindOf[...]" { x = $4 - 1
		print ($2 == "main.tempC" ? "(x=<main.tempC>" x ")" : "(x=" x ")") }' \
		"$out.truth" | tr '\n' ' ')
	got=$(sed -nE 's/^[0-9]+ +[0-9]+ +[0-9-]+ +[^ ]+ +main\.kindOf[^ ]* +(.*)$/\1/p' \
		"$out" | tr '\n' ' ')
	if [[ $want == *'<main.tempC>'* && $got == "$want" ]]; then
		pass "go$v: %v of a type parameter's value: $got"
	else
		fail "go$v: type argument marks" "got '$got', the fixture's '$want'"
	fi
}
test_type_arg_marks 1.19
test_type_arg_marks 1.27

no_links=0
no_links_left || no_links=1
check "no probe left attached" test $no_links -eq 0

finish
