#!/bin/bash
# gofuncgraph against ground truth: the graph fixture runs twelve root
# calls (main.root) on four goroutines at a time, each recording its own
# call tree (recursion, a panic recovered two frames up, a sleep, a channel
# wait, stack growth) and writing it when the root returns. gofuncgraph's
# trees of the same functions must be the fixture's, as a multiset, on
# every Go version the tests build, stripped, PIE and cgo (linked
# externally) too; main.inl, which gc inlines into main.root, is in them
# from its copy's first instruction to its end, marked inlined, and so is
# main.join, inlined into main.joiner, which then runs code its way that
# skips the copy joins (gc 1.19 and later: the copy's end is there); the
# frames the panic unwound are marked; durations nest (no call longer than its caller) and
# a root that slept 2 ms took at least that. Where the goroutines waited
# is in the trees: main.sleeper parked for "sleep" at least the 2 ms it
# asked for, main.waiter parked for "chan receive", each wait within its
# call (--no-waits: none). -U: each root's stack, main.root called by the
# goroutine main started. -t prints only the roots at least that long; -D
# cuts the depth; -M cuts the roots and says so.
source "$(dirname "$0")/lib.sh"
TOOL=$BUILD/gofuncgraph
VERSIONS=(1.15 1.19 1.21 1.23 1.25 1.27)
FUNCS='^main\.(root|a|b|c|inl|join|joiner|rec|thrower|middle|catcher|sleeper|waiter|grow|deep)$'

if [[ ! -x $TOOL ]]; then
	fail "gofuncgraph" "$TOOL does not exist (run make)"
	finish
	exit 1
fi


# graph_run NAME FIXTURE MODE ARG [OPTIONS...]: gofuncgraph -j on FIXTURE
# (run with $GRAPH_ARGS), its trees checked by graph_trees.py MODE.
graph_run() {
	local name=$1 f=$FIX/$2 mode=$3 arg=$4 out=$TMP/$2-$3
	shift 4
	need_file "$f" || return
	if ! timeout 120 "$TOOL" -j -r "$@" -c "$f ${GRAPH_ARGS:-}$out.truth" '^main\.root$' "$FUNCS" \
		>"$out" 2>"$out.err"; then
		fail "$name" "gofuncgraph failed: $(head -3 "$out.err")"
	elif python3 "$ROOT/tests/integration/graph_trees.py" "$out.truth" "$out" "$mode" "$arg" >"$out.cmp"; then
		pass "$name: $(tail -1 "$out.cmp")"
	else
		fail "$name" "$(head -5 "$out.cmp" | tr '\n' ' ')"
	fi
}

for v in "${VERSIONS[@]}"; do
	graph_run "trees go$v" "graph-go$v-default" exact 0
	graph_run "trees go$v stripped" "graph-go$v-stripped" exact 0
	graph_run "trees go$v PIE" "graph-go$v-pie" exact 0
	graph_run "trees go$v cgo" "graph-go$v-cgo" exact 0
done
# gccgo: goroutines told apart by their split stacks, the deep root's
# frames on a new stack segment each; a goroutine that starts on the stack
# of one a panic left inside a root has trees of its own; no goroutine
# ids, no waits.
GRAPH_ARGS="-deep -reuse " graph_run "trees gccgo, split stacks" graph-gccgo gccgo 0
graph_run "-U gccgo" graph-gccgo caller 0 -U
graph_run "--no-waits" graph-go1.25-default nowaits 0 --no-waits
graph_run "-U" graph-go1.15-default stack 0 -U
graph_run "-U PIE" graph-go1.27-pie stack 0 -U
graph_run "-U stripped" graph-go1.21-stripped stack 0 -U
graph_run "-t 1900us" graph-go1.27-default threshold 1900000 -t 1900us
graph_run "-D 2" graph-go1.27-default depth 2 -D 2
graph_run "-M 10" graph-go1.27-default cut 10 -M 10

# The text output: the root line, a leaf line, a closing brace.
out=$TMP/text
timeout 120 "$TOOL" -c "$FIX/graph-go1.21-default $out.truth" main.root >"$out" 2>"$out.err"
if grep -qE '^main\.root goid=[0-9]+ pid=[0-9]+ tid=[0-9]+ start=[0-9:.]+ dur=[0-9.]+ us$' "$out" &&
   grep -qE '^ +\|    main\.a\(\) \{$' "$out" &&
   grep -qE '^ +[0-9]+\.[0-9]{3} us \|      main\.\(\*tree\)\.enter\(\);$' "$out" &&
   grep -qE '^ +[0-9]+\.[0-9]{3} us \|  \}$' "$out" &&
   grep -qE '^ +[0-9]+\.[0-9]{3} us \|      /\* parked: sleep \*/$' "$out"; then
	pass "text: root lines, calls, waits and closing braces as function_graph prints them ($(grep -c '^main\.root' "$out") roots)"
else
	fail "text output" "$(head -5 "$out" | tr '\n' ' ') $(head -2 "$out.err")"
fi

# A root still in flight when tracing ends (the demo's main.main, traced
# for a second) is not printed, and stderr says so.
out=$TMP/unfinished
timeout 60 "$TOOL" -d 1 -c "$FIX/demo" main.main >"$out" 2>"$out.err"
check "a root in flight at the end: said, not printed" \
	bash -c "grep -qx 'gofuncgraph: 1 root call still in flight at the end, not printed' '$out.err' && ! grep -q '^main\.main goid=' '$out'"

# A root in libgo, with -c: the program's executable gives the TLS slot,
# from .dynsym when it is stripped.
strip -o "$TMP/graph-gccgo-stripped" "$FIX/graph-gccgo"
for prog in "$FIX/graph-gccgo" "$TMP/graph-gccgo-stripped"; do
	out=$TMP/libgo-root-${prog##*/}
	timeout 60 "$TOOL" -c "$prog $out.truth" 'go:fmt.Fprintf' >"$out" 2>"$out.err"
	check "gccgo: a root in libgo (go:fmt.Fprintf), with -c on ${prog##*/}: one tree per root the fixture wrote" \
		bash -c "[[ \$(grep -c '^fmt\.Fprintf goid=- ' '$out') -eq \$(grep -c '^TREE ' '$out.truth') && -s '$out.truth' ]] && grep -qE '^ +([0-9.]+ us )?\|    fmt\.' '$out'"
done

# Bad input: one line, non-zero exit (BAD_SAYS: and saying that).
bad() {
	local name=$1 out=$TMP/bad
	shift
	timeout 60 "$TOOL" "$@" >"$out" 2>"$out.err"
	local rc=$?
	if [[ $rc -ne 0 && $(grep -c . "$out.err") -eq 1 ]] &&
	   grep -q -- "${BAD_SAYS:-}" "$out.err"; then
		pass "bad input: $name ($(cat "$out.err"))"
	else
		fail "bad input: $name" "exit $rc: $(head -3 "$out.err")"
	fi
}
bad "no such root" -c "$FIX/graph-go1.27-default $TMP/x" main.nosuch
bad "a bad threshold" -t 5parsecs -c "$FIX/graph-go1.27-default $TMP/x" main.root
bad "a missing binary" -c /nonexistent main.root
libgo=$(cat "$FIX/libgo.path")
BAD_SAYS="is a library" bad "gccgo's libgo without -p or -c" "$libgo:fmt.Fprintf"
BAD_SAYS="not built by gccgo" bad "libgo in a gc program" -c "$FIX/graph-go1.27-default $TMP/x" "$libgo:fmt.Fprintf"
bad "--max-overhead 0" --max-overhead 0 -c "$FIX/graph-go1.27-default $TMP/x" main.root

check "no probe left attached" no_links_left
finish
