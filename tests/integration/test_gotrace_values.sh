#!/bin/bash
# gotrace's %v and %+v against Go's fmt: the values fixture writes, for
# every call of its main.show* functions, "NAME|%v|%+v" of its argument
# (structs with strings, slices and pointers, arrays, interfaces holding
# ints, strings, structs and pointers, errors, nil); gotrace, printing
# "%v|%+v" of the same argument, must write the same lines byte for byte,
# pointer addresses included, in the same order, on every Go version the
# tests build (the stack ABI of Go 1.15, the register ABI after), PIE too.
# With a small byte budget or depth, what is cut prints "...", and what
# is printed is the fixture's value with parts left out, never another.
# Stripped builds print the same through conversions to the argument's
# type, (*main.person)(goarg1), typed by the binary's runtime type data.
source "$(dirname "$0")/lib.sh"
TOOL=$BUILD/gotrace
VERSIONS=(1.15 1.19 1.21 1.23 1.25 1.27)

if [[ ! -x $TOOL ]]; then
	fail "gotrace" "$TOOL does not exist (run make)"
	finish
	exit 1
fi

# trace_values FIXTURE OUT [OPTION...]: the fixture under gotrace, its own
# lines in OUT.truth, gotrace's as "FUNC|MESSAGE" in OUT.lines.
trace_values() {
	local f=$1 out=$2
	shift 2
	timeout 120 "$TOOL" "$@" -c "$f $out.truth" \
		'main.show* "%v|%+v" goarg1, goarg1' >"$out" 2>"$out.err"
	local rc=$?
	sed -nE 's/^[0-9]+ +[0-9]+ +[0-9-]+ +[^ ]+ +(main\.show[A-Za-z]*) +(.*)$/\1|\2/p' \
		"$out" >"$out.lines"
	# the fixture's lines of the functions traced
	grep '^main\.show' "$out.truth" >"$out.t" && mv "$out.t" "$out.truth"
	return $rc
}

test_values() {
	local v=$1 form=$2 f=$FIX/values-go$1-$2 out=$TMP/values-$1-$2 n
	need_file "$f" || return
	if ! trace_values "$f" "$out" --value-size 4096; then
		fail "%v go$v $form" "gotrace failed: $(head -3 "$out.err")"
		return
	fi
	n=$(grep -c . "$out.truth")
	if [[ $n -ge 30 ]] && diff "$out.truth" "$out.lines" >"$out.diff"; then
		pass "%v and %+v go$v $form: $n values as Go's fmt printed them"
	else
		fail "%v go$v $form" "$n lines; diff fixture gotrace: $(head -6 "$out.diff" | tr '\n' ' ')"
	fi
}

# A line of gotrace with "..." where it was cut, as an extended regular
# expression that the fixture's line must match whole.
cut_pattern() {
	sed -E 's/[][\.*^$(){}+?|]/\\&/g; s/\\\.\\\.\\\./.*/g; s/^/^/; s/$/$/'
}

# map_subset GOT WANT: GOT's maps cut short ("map[... ...]") hold entries
# of WANT's maps, in their order, and the rest of the line is WANT's: a map
# BPF could not read whole prints the entries it read, then "...".
map_subset() {
	python3 - "$1" "$2" <<'PY'
import re, sys
got, want = sys.argv[1], sys.argv[2]
cut = re.compile(r"map\[([^\[\]]*) \.\.\.\]")
wants = re.findall(r"map\[([^\[\]]*)\]", want)
ok = True
for m in cut.finditer(got):
    entries = m.group(1).split(" ")
    if not any(all(e in w.split(" ") for e in entries) and
               [x for x in w.split(" ") if x in entries] == entries for w in wants):
        ok = False
rest = cut.sub("map[CUT]", got)
pattern = re.escape(rest).replace(re.escape("map[CUT]"), r"map\[[^\]]*\]")
sys.exit(0 if ok and cut.search(got) and re.fullmatch(pattern, want) else 1)
PY
}

# With a budget of BYTES (and a depth of DEPTH), every line is the
# fixture's with parts cut, and some are cut.
test_cut() {
	local bytes=$1 depth=$2 f=$FIX/values-go1.27-default out=$TMP/cut-$1-$2
	local wrong=0 cut line want i=0
	need_file "$f" || return
	if ! trace_values "$f" "$out" --value-size "$bytes" --value-depth "$depth"; then
		fail "%v cut at $bytes bytes, depth $depth" "gotrace failed: $(head -3 "$out.err")"
		return
	fi
	cut=$(grep -c '\.\.\.' "$out.lines")
	while IFS= read -r line; do
		i=$((i + 1))
		want=$(sed -n "${i}p" "$out.truth")
		if ! grep -qE "$(cut_pattern <<<"$line")" <<<"$want" &&
			! map_subset "$line" "$want"; then
			wrong=$((wrong + 1))
			echo "  gotrace: $line"
			echo "  fixture: $want"
		fi
	done <"$out.lines"
	if [[ $wrong -eq 0 && $cut -gt 0 && $i -eq $(grep -c . "$out.truth") ]]; then
		pass "%v cut at $bytes bytes, depth $depth: $cut of $i lines cut, every one the fixture's with parts left out"
	else
		fail "%v cut at $bytes bytes, depth $depth" "$wrong lines differ, $cut cut, $i of $(grep -c . "$out.truth") lines"
	fi
}

# -j "values": the same value as JSON (objects, arrays, strings, numbers,
# null), which printed back as %+v prints is the fixture's %+v (but for
# the & of a pointer at the top, which JSON has no word for).
test_json_values() {
	local f=$FIX/values-go$1-default out=$TMP/json-values-$1
	need_file "$f" || return
	timeout 120 "$TOOL" -j --value-size 4096 -c "$f $out.truth" 'main.show* "%+v" goarg1' \
		>"$out" 2>"$out.err"
	if python3 - "$out.truth" "$out" >"$out.cmp" <<'PY'; then
import json, sys

def render(v):
    if v is None:
        return "<nil>"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, dict):
        return "{" + " ".join(k + ":" + render(x) for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + " ".join(render(x) for x in v) + "]"
    return v  # strings, and numbers kept as their JSON text

truth = [l.rstrip("\n").split("|") for l in open(sys.argv[1])
         if l.startswith("main.show")]
got = []
for line in open(sys.argv[2]):
    if line.startswith("{"):
        e = json.loads(line, parse_int=str, parse_float=str)
        got.append((e["func"], render(e["values"][0])))
def fmt_map(text):
    # map[k:v ...] of keys and values without spaces or colons
    inner = text[len("map["):-1]
    return dict(kv.split(":", 1) for kv in inner.split()) if inner else {}

bad = 0
for (name, _, plus), (func, text) in zip(truth, got):
    want = plus[1:] if plus.startswith("&") else plus
    if name == "main.showCounts" and name == func:
        # a map is an object too: compared as one
        e = fmt_map(plus) if plus != "map[]" else {}
        text = "map[]" if text in ("<nil>", "{}") else text
        if plus != "map[]" and render(dict(e)) != text:
            bad += 1
            print("%s: JSON %s, fixture %s" % (name, text, plus))
        continue
    if "map[" in plus:
        continue  # maps in other values: the text test checks them
    if name != func or text != want:
        bad += 1
        print("%s: JSON %s, fixture %s" % (name, text, plus))
print("%d values, %d differ" % (len(got), bad))
sys.exit(1 if bad or len(got) != len(truth) or not got else 0)
PY
		pass "-j values of %+v go$1: $(tail -1 "$out.cmp"), as JSON"
	else
		fail "-j values of %+v go$1" "$(head -3 "$out.cmp" | tr '\n' ' ') $(head -2 "$out.err")"
	fi
}

# -j: the message is the same text.
test_json() {
	local f=$FIX/values-go1.23-default out=$TMP/json n
	need_file "$f" || return
	timeout 120 "$TOOL" -j -c "$f $out.truth" 'main.showPersonPtr "%+v" goarg1' \
		>"$out" 2>"$out.err"
	grep '^{' "$out" | sed -E 's/.*"msg":"([^"]*)".*/main.showPersonPtr|\1/' >"$out.lines"
	grep '^main.showPersonPtr|' "$out.truth" | cut -d'|' -f1,3 >"$out.want"
	if [[ -s $out.want ]] && diff -q "$out.want" "$out.lines" >/dev/null; then
		pass "-j %+v: the message as Go's fmt printed it ($(grep -c . "$out.want") calls)"
	else
		fail "-j %+v" "$(head -2 "$out.lines" | tr '\n' ' ') vs $(head -2 "$out.want" | tr '\n' ' ')"
	fi
}

for v in "${VERSIONS[@]}"; do
	for form in default pie; do
		test_values "$v" "$form"
	done
done
test_cut 200 4
test_cut 1024 1
test_cut 1024 4
test_json
test_json_values 1.15
test_json_values 1.27

# Stripped: each function's argument converted to its type, spelled as
# %T spells it, which the binary's type data describes (or, for a pointer,
# slice or array type it has no descriptor of, its element): the same
# lines as the fixture's, interfaces' dynamic types from the type data. A
# method called through an interface needs no conversion: its receiver
# type's method table types its parameters.
STRIPPED_PROBES=(
	'main.showPerson "%v|%+v" (main.person)(goarg1), (main.person)(goarg1)'
	'main.showPersonPtr "%v|%+v" (*main.person)(goarg1), (*main.person)(goarg1)'
	'main.showPoint "%v|%+v" (main.point)(goarg1), (main.point)(goarg1)'
	'main.showSmall "%v|%+v" (main.small)(goarg1), (main.small)(goarg1)'
	'main.showInts "%v|%+v" ([]int)(goarg1), ([]int)(goarg1)'
	'main.showStrings "%v|%+v" ([]string)(goarg1), ([]string)(goarg1)'
	'main.showArray "%v|%+v" ([3]string)(goarg1), ([3]string)(goarg1)'
	'main.showBytes "%v|%+v" ([]uint8)(goarg1), ([]uint8)(goarg1)'
	'main.showAny "%v|%+v" (interface {})(goarg1), (interface {})(goarg1)'
	'main.showErr "%v|%+v" (error)(goarg1), (error)(goarg1)'
	'main.showNodes "%v|%+v" ([]main.node)(goarg1), ([]main.node)(goarg1)'
	'main.showAnys "%v|%+v" ([]interface {})(goarg1), ([]interface {})(goarg1)'
	'main.showIntPtr "%v|%+v" (*int)(goarg1), (*int)(goarg1)'
	'main.showCounts "%v|%+v" (map[string]int)(goarg1), (map[string]int)(goarg1)'
	'main.showGrid "%v|%+v" (map[main.point]string)(goarg1), (map[main.point]string)(goarg1)'
	'main.showInventory "%v|%+v" (*main.inventory)(goarg1), (*main.inventory)(goarg1)'
	'main.showMixed "%v|%+v" (*main.mixed)(goarg1), (*main.mixed)(goarg1)'
	# no conversion: the method table of *main.english types it
	'main.(*english).Greet "%v|%+v" goarg2, goarg2'
)

test_stripped() {
	local v=$1 f=$FIX/values-go$1-stripped out=$TMP/stripped-$1 n
	need_file "$f" || return
	timeout 120 "$TOOL" --value-size 4096 -c "$f $out.truth" "${STRIPPED_PROBES[@]}" \
		>"$out" 2>"$out.err"
	local rc=$?
	sed -nE 's/^[0-9]+ +[0-9]+ +[0-9-]+ +[^ ]+ +(main\.[A-Za-z(*)]*[.A-Za-z]*) +(.*)$/\1|\2/p' \
		"$out" >"$out.lines"
	grep -v '^main\.add|' "$out.truth" >"$out.t" && mv "$out.t" "$out.truth"
	n=$(grep -c . "$out.truth")
	if [[ $rc -eq 0 && $n -ge 30 ]] && diff "$out.truth" "$out.lines" >"$out.diff"; then
		pass "%v through conversions, stripped go$v: $n values as Go's fmt printed them"
	else
		fail "%v through conversions, stripped go$v" "exit $rc, $n lines: $(head -2 "$out.err" | tr '\n' ' ') $(head -4 "$out.diff" | tr '\n' ' ')"
	fi
}

for v in "${VERSIONS[@]}"; do
	test_stripped "$v"
done

# filtered NAME FIXTURE FUNC WANT PROBE: gotrace PROBE (a filtered one) on
# FIXTURE prints, for FUNC, the two values WANT once ("A B;").
filtered() {
	local out=$TMP/filtered-$3 got col
	timeout 120 "$TOOL" -c "$FIX/$2 $out.truth" "$5" >"$out" 2>"$out.err"
	# an inlined copy's FUNC column is followed by [inlined]
	col=$(awk -v f="$3" '$5 == f { print ($6 == "[inlined]" ? 7 : 6); exit }' "$out")
	got=$(awk -v f="$3" -v c="${col:-6}" '$5 == f { print $c, $(c + 1) }' "$out" | tr '\n' ';')
	if [[ $got == "$4" ]]; then
		pass "$1 (${4%;}, once)"
	else
		fail "$1" "'$got': $(head -2 "$out.err")"
	fi
}

# A field through a conversion, and a filter on it, stripped.
filtered "stripped: a field through a conversion, filtered in BPF" values-go1.27-stripped \
	main.showPersonPtr "alice 30;" \
	'main.showPersonPtr ((*main.person)(goarg1).Age == 30) "%s %d" (*main.person)(goarg1).Name, (*main.person)(goarg1).Age'

# A real stripped third-party binary: esbuild writing its version to its
# stdout (a file), os.(*File).Write's receiver converted to *os.File to
# print the file's name (a field of its embedded *file; Go's os package
# names its stdout "/dev/stdout") and the bytes written: what the file
# holds.
test_thirdparty() {
	local f=$FIX/$1 out=$TMP/tp-$1 want got
	need_file "$f" || return
	timeout 120 "$TOOL" -c "sh -c 'exec $f --version >$out.prog'" \
		"$f:os.(*File).Write \"%s|%v\" (*os.File)(goarg1).file.name, ([]uint8)(goarg2)" \
		>"$out" 2>"$out.err"
	want="/dev/stdout|[$(od -An -tu1 -v "$out.prog" | xargs)]"
	got=$(awk '$5 == "os.(*File).Write" { $1 = $2 = $3 = $4 = $5 = ""; sub(/^ +/, ""); print }' "$out")
	if [[ -s $out.prog && $got == "$want" ]]; then
		pass "stripped $1: a field and a []byte through conversions: $got"
	else
		fail "stripped $1 through conversions" "'$got', want '$want': $(head -2 "$out.err")"
	fi
}
test_thirdparty esbuild-latest
test_thirdparty esbuild-go1.15

# The stripped net/http server fixture under ApacheBench (loopback, 3
# requests): the handler's request method and path, typed by
# net/http.HandlerFunc's method table, no DWARF and no conversion, as
# the server got them (ApacheBench sends GET and the path it is given).
test_serve_http() {
	local f=$FIX/httpd-go1.27-stripped out=$TMP/serve spid gpid addr got
	need_file "$f" || return
	if ! start_httpd "$f" "$out"; then
		fail "stripped net/http server" "it did not start: $(head -2 "$out.out")"
		return
	fi
	"$TOOL" -p "$spid" 'net/http.HandlerFunc.ServeHTTP "%s %s" goarg3.Method, goarg3.URL.Path' \
		>"$out" 2>"$out.err" &
	gpid=$!
	for _ in $(seq 300); do
		grep -q '^Tracing' "$out" 2>/dev/null && break
		sleep 0.1
	done
	timeout 60 ab -q -s 10 -n 3 -c 1 "http://$addr/some/path?x=1" >/dev/null 2>&1
	sleep 0.3
	kill -INT "$gpid"
	wait "$gpid"
	kill -TERM "$spid"
	wait "$spid"
	got=$(awk '$5 == "net/http.HandlerFunc.ServeHTTP" { print $6, $7 }' "$out" | sort | uniq -c | xargs)
	if [[ $got == "3 GET /some/path" ]]; then
		pass "stripped net/http server: each request's method and path, typed by the method table ($got)"
	else
		fail "stripped net/http server: ServeHTTP's request" "'$got': $(head -3 "$out.err")"
	fi
}
test_serve_http

# The inlined main.add (no out-of-line copy is left, as in the post): its
# arguments at each copy's first instruction, from DWARF's location lists,
# are the fixture's; where Go recorded no place for one (Go 1.15's second,
# every one in a stripped build) it prints <optimized out>, never another
# value. From Go 1.19 on, DWARF builds place both.
test_inlined_add() {
	local v=$1 form=$2 f=$FIX/values-go$1-$2 out=$TMP/add-$1-$2 res
	need_file "$f" || return
	timeout 120 "$TOOL" -c "$f $out.truth" 'main.add "%d %d" goarg1, goarg2' \
		>"$out" 2>"$out.err"
	grep '^main\.add|' "$out.truth" | cut -d'|' -f2 >"$out.want"
	awk '$5 == "main.add" && $6 == "[inlined]" { $1 = $2 = $3 = $4 = $5 = $6 = ""; sub(/^ +/, ""); print }' \
		"$out" >"$out.got"
	res=$(paste -d'|' "$out.want" "$out.got" | awk -F'|' -v all="$3" '
		{ n++; split($1, w, " "); m = split($2, g, " ")
		  got = $2; gsub(/<optimized out>/, "O", got); split(got, g, " ")
		  for (i = 1; i <= 2; i++) {
			if (g[i] == "O") { opt++; if (all) bad++ }
			else if (g[i] != w[i]) bad++
			else real++ } }
		END { printf "%d %d %d %d", n, real, opt, bad }')
	read -r n real opt bad <<<"$res"
	if [[ $n -eq 3 && $(grep -c . "$out.got") -eq 3 && $bad -eq 0 && $real -gt 0 ]] ||
	   [[ $n -eq 3 && $(grep -c . "$out.got") -eq 3 && $bad -eq 0 && $form == stripped ]]; then
		pass "inlined main.add go$v $form: 3 copies' calls, $real values the fixture's, $opt <optimized out>"
	else
		fail "inlined main.add go$v $form" "calls $n, printed $(grep -c . "$out.got"), real $real, optimized out $opt, wrong $bad: $(head -3 "$out.got" | tr '\n' ';') $(head -2 "$out.err")"
	fi
}
for v in "${VERSIONS[@]}"; do
	all=1
	[[ $v == 1.15 ]] && all=
	test_inlined_add "$v" default "$all"
	test_inlined_add "$v" pie "$all"
done
# stripped: every value <optimized out> (no real one expected)
for v in 1.15 1.27; do
	f=$FIX/values-go$v-stripped out=$TMP/add-strip-$v
	timeout 120 "$TOOL" -c "$f $out.truth" 'main.add "%d %d" goarg1, goarg2' >"$out" 2>"$out.err"
	got=$(awk '$5 == "main.add" && $6 == "[inlined]" { n++ } $7 $8 $9 $10 != "<optimizedout><optimizedout>" && $5 == "main.add" { bad++ }
		END { print n + 0, bad + 0 }' "$out")
	if [[ $got == "3 0" ]]; then
		pass "inlined main.add go$v stripped: 3 calls, values <optimized out>"
	else
		fail "inlined main.add go$v stripped" "calls, not optimized out: $got: $(head -2 "$out.err")"
	fi
done

# A filter on the inlined copy's recorded argument, in BPF.
filtered "a filter on an inlined copy's argument: main.add (goarg1 == 1)" \
	values-go1.27-default main.add "1 8;" 'main.add (goarg1 == 1) "%d %d" goarg1, goarg2'

# gccgo (its C ABI, its DWARF): what DWARF types whole prints as gc's fmt
# does; an interface's dynamic type (gccgo's descriptors are not gc's)
# prints <type ADDR>, a map (whose key and element gccgo's DWARF does not
# say) map[...], in place of the value: every line is the fixture's, or
# it with those markers in the place of values (18 of 37 are whole).
test_gccgo() {
	local f=$FIX/values-gccgo out=$TMP/values-gccgo
	need_file "$f" || return
	trace_values "$f" "$out" --value-size 4096
	if python3 - "$out.truth" "$out.lines" >"$out.cmp" <<'PY'; then
import re, sys
truth = [l.rstrip("\n") for l in open(sys.argv[1])]
got = [l.rstrip("\n") for l in open(sys.argv[2])]
whole = marked = bad = 0
for want, line in zip(truth, got):
    if line == want:
        whole += 1
        continue
    pat = "".join(".*" if re.fullmatch(r"<type 0x[0-9a-f]+>|map\[\.\.\.\]", p) else re.escape(p)
                  for p in re.split(r"(<type 0x[0-9a-f]+>|map\[\.\.\.\])", line))
    if re.fullmatch(pat, want):
        marked += 1
    else:
        bad += 1
        print("gotrace %s\nfixture %s" % (line, want))
print("%d whole, %d with markers, %d wrong" % (whole, marked, bad))
sys.exit(1 if bad or len(got) != len(truth) or whole < 15 else 0)
PY
		pass "%v on gccgo: $(tail -1 "$out.cmp")"
	else
		fail "%v on gccgo" "$(head -4 "$out.cmp" | tr '\n' ' ') $(head -2 "$out.err")"
	fi
}
test_gccgo

# A type the binary does not hold: a one-line error naming it.
out=$TMP/nosuch
timeout 60 "$TOOL" -c "$FIX/values-go1.27-stripped $out.truth" \
	'main.showPoint "%v" (*main.nosuch)(goarg1)' >"$out" 2>"$out.err"
rc=$?
if [[ $rc -ne 0 && $(grep -c . "$out.err") -eq 1 ]] && grep -q 'no type \*\?main.nosuch' "$out.err"; then
	pass "a type the binary does not hold: $(cat "$out.err")"
else
	fail "a type the binary does not hold" "exit $rc: $(head -3 "$out.err")"
fi

# Without DWARF or a conversion there are no types to print: a one-line error.
out=$TMP/stripped
timeout 60 "$TOOL" -c "$FIX/args-go1.27-stripped $out.truth" 'main.greet "%v" goarg1' \
	>"$out" 2>"$out.err"
rc=$?
if [[ $rc -ne 0 && $(grep -c . "$out.err") -eq 1 ]] && grep -q 'needs DWARF' "$out.err"; then
	pass "%v without DWARF or a conversion: $(cat "$out.err")"
else
	fail "%v without DWARF or a conversion" "exit $rc: $(head -3 "$out.err")"
fi

check "no probe left attached" no_links_left
finish
