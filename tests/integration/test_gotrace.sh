#!/bin/bash
# gotrace against ground truth: the args fixture writes, for every call of
# its functions, "NAME ARGS... -> RESULTS..." with Go's own %v; gotrace's
# lines for the same calls must carry the same values, in the same order,
# on every Go version and build form (register ABI, ABI0 on Go 1.15) and
# gccgo (the C ABI). Types come from the format strings (no DWARF needed,
# so the stripped forms are traced the same way), and filters on goargN
# too; builds with DWARF are traced in the same run with probes that name
# parameters, select fields and print []byte, len/cap and %T. -U stacks
# are checked against the stacks the fixture records itself.
source "$(dirname "$0")/lib.sh"
# the Python the gotrace tests share (gotrace_lines.py)
export PYTHONPATH=$ROOT/tests/integration
TOOL=$BUILD/gotrace

# A missing tool fails the whole test, loudly.
if [[ ! -x $TOOL ]]; then
	fail "gotrace" "$TOOL does not exist (run make)"
	finish
	exit 1
fi

# The probes and their arguments (probes_for, probe_args), shared with
# test_arm64_qemu.sh.
source "$ROOT/tests/integration/gotrace_probes.sh"


# trace_run NAME FIXTURE ABI DWARF: trace one run of the fixture with every
# probe and compare value for value.
trace_run() {
	local name=$1 fixture=$2 abi=$3 dwarf=$4
	need_file "$fixture" || return
	local out="$TMP/$name.out" truth="$TMP/$name.truth" probes=()
	rm -f "$truth"
	mapfile -t probes < <(probe_args "$abi" "$dwarf")
	if ! timeout 120 "$TOOL" -c "$fixture $truth" "${probes[@]}" >"$out" 2>"$out.err"; then
		fail "$name" "gotrace failed: $(head -3 "$out.err")"
		return
	fi
	if [[ ! -s $truth ]]; then
		fail "$name" "the fixture wrote nothing"
		return
	fi
	if python3 "$ROOT/tests/integration/gotrace_compare.py" "$abi" "$truth" "$out" "$(probes_for "$abi" "$dwarf")" >"$out.cmp"; then
		pass "$name ($(tail -1 "$out.cmp" | sed 's/^ *//'))"
	else
		fail "$name" "values differ from the fixture's own"
		cat "$out.cmp"
	fi
}

# trace_fixture NAME: trace_run of fixture NAME (args-go1.N-FORM or
# args-gccgo), with its ABI and whether it has DWARF.
trace_fixture() {
	local abi=register dwarf=yes
	case $1 in
	*gccgo) abi=c ;;
	*go1.15-*) abi=stack ;;
	esac
	[[ $1 == *stripped ]] && dwarf=no
	trace_run "$1" "$FIX/$1" $abi $dwarf
}

# Values are the same whatever runs beside: as many at a time as there are
# CPUs.
in_parallel trace_fixture args-go1.{15,19,21,23,25,27}-{default,stripped,pie,cgo} args-gccgo

# -p: attach to a fixture that waits for us, then let it make its calls.
test_pid() {
	local f=$FIX/args-go1.23-default out=$TMP/pid.out truth=$TMP/pid.truth
	local probes='main.greet||%s %d|goarg1, goarg2
main.divmod|r|%d %d|goret1, goret2'
	need_file "$f" || return
	mkfifo "$TMP/pid.in"
	"$f" -wait "$truth" <"$TMP/pid.in" >"$TMP/pid.fixture" &
	local fpid=$!
	exec 7>"$TMP/pid.in"
	for _ in $(seq 100); do
		grep -q '^ready' "$TMP/pid.fixture" 2>/dev/null && break
		sleep 0.1
	done
	timeout 120 "$TOOL" -p "$fpid" 'main.greet "%s %d" goarg1, goarg2' \
		'r:main.divmod "%d %d" goret1, goret2' >"$out" 2>"$out.err" &
	local tpid=$!
	for _ in $(seq 100); do
		grep -q '^Tracing' "$out" 2>/dev/null && break
		sleep 0.1
	done
	echo go >&7
	exec 7>&-
	wait "$fpid"
	wait "$tpid"
	if python3 "$ROOT/tests/integration/gotrace_compare.py" register "$truth" "$out" "$probes" >"$out.cmp"; then
		pass "-p: attached to a running process"
	else
		fail "-p: attached to a running process" "$(head -3 "$out.err")"
		cat "$out.cmp"
	fi
}
test_pid

# -j: one JSON object per event, with the same values: in "msg" as the
# text prints them, and each in "values" as a typed JSON value that must
# say what msg says.
test_json() {
	local f=$FIX/args-go1.25-default out=$TMP/json.out truth=$TMP/json.truth
	local probes='main.greet||%s %d|goarg1, goarg2
main.divmod|r|%d %d|goret1, goret2'
	need_file "$f" || return
	timeout 120 "$TOOL" -j -c "$f $truth" 'main.greet "%s %d" goarg1, goarg2' \
		'r:main.divmod "%d %d" goret1, goret2' \
		'main.boolArgs "%t %t" goarg1, goarg2' \
		'main.addInts "%x %u" goarg1, goarg2' \
		'main.ifaces "%T %T" goarg1, goarg2' \
		'main.mixFloat "%d %f" goarg1, goarg2' >"$out" 2>"$out.err"
	# As columns, for gotrace_compare.py; a line that is not JSON fails here, and
	# so do values that do not say what msg says.
	if python3 -c '
import json, re, sys
convs = {"main.greet": "sd", "main.divmod": "dd", "main.boolArgs": "tt",
         "main.addInts": "xu", "main.ifaces": "TT", "main.mixFloat": "df"}
def text(v, c):
    if v is None:  # nil, or a value that could not be read
        return "(<[a-z ]+>)"
    if c in "du":
        assert type(v) is int, v
        return re.escape(str(v))
    if c == "x":
        assert type(v) is int, v
        return "%x" % v
    if c == "t":
        assert type(v) is bool, v
        return "true" if v else "false"
    if c == "f":
        assert type(v) in (int, float), v
        return "[-+0-9.e]+"
    assert type(v) is str, v
    return re.escape(v)
seen = set()
for l in open(sys.argv[1]):
    if not l.startswith("{"):
        continue
    e = json.loads(l)
    c, vals = convs[e["func"]], e["values"]
    assert len(vals) == len(c), l
    want = " ".join(text(v, k) for v, k in zip(vals, c))
    assert re.fullmatch(want, e["msg"]), (want, e["msg"])
    seen.add(e["func"])
    if e["func"] in ("main.greet", "main.divmod"):
        print(e["pid"], e["tid"], e["goid"], e["comm"], e["func"], e["msg"])
assert seen == set(convs), seen' \
		"$out" >"$out.cols" &&
		python3 "$ROOT/tests/integration/gotrace_compare.py" register "$truth" "$out.cols" "$probes" >"$out.cmp"; then
		pass "-j: JSON lines with the fixture's values, typed in values"
	else
		fail "-j: JSON lines" "$(head -3 "$out.err")"
		cat "$out.cmp" 2>/dev/null
	fi
}
test_json

# -U against the stacks the fixture writes itself: main.stackLeaf records,
# with runtime.CallersFrames, the frames it was called through (STACK N
# ENTRY FRAME...), inlined calls as frames of their own. gotrace's first
# frame must be main.stackLeaf at ENTRY (where the entry probe sits), the
# rest the fixture's frames: name, file, line and (inlined) mark each. gc
# stacks follow the frame pointers to runtime.goexit, so they must match
# all of them. gccgo code keeps no frame pointer, so gotrace reads only the
# PC and the return address at SP: its frames must be the first ones of the
# fixture's, at least the caller (frame 2). stack.py saves each stack as
# "FUNC FILE-BASE:LINE [inlined]" lines for comparing builds.
cat >"$TMP/stack.py" <<'PY'
import json, os, sys
compiler, form, truth, out, save = sys.argv[1:6]

def frame(func, where, inlined):
    file, _, line = where.rpartition(":")
    return (func, file, int(line), inlined)

want = []
for line in open(truth):
    if not line.startswith("STACK "):
        continue
    t = line.split()
    frames = [frame("main.stackLeaf", t[2], False)]
    i = 3
    while i < len(t):
        inlined = t[i + 1] == "(inlined)"
        frames.append(frame(t[i], t[i + 2 if inlined else i + 1], inlined))
        i += 3 if inlined else 2
    want.append((t[1], frames))

got = []
for line in open(out, errors="replace"):
    if form == "json":
        if line.startswith("{"):
            e = json.loads(line)
            got.append((e["msg"], [frame(f["func"], "%s:%d" % (f["file"], f["line"]),
                                         f["inlined"]) if "func" in f else (f["addr"],)
                                   for f in e["stack"]]))
    elif line[:1].isdigit():
        f = line.split(None, 5)
        got.append((f[5].strip() if len(f) > 5 else "", []))
    elif line.startswith("        ") and got:
        f = line.split()
        if len(f) == 3 and f[1] == "(inlined)":
            got[-1][1].append(frame(f[0], f[2], True))
        elif len(f) == 2:
            got[-1][1].append(frame(f[0].rpartition("+0x")[0], f[1], False))
        else:
            got[-1][1].append(tuple(f))

def show(frames):
    return " | ".join(" ".join(map(str, f)) for f in frames) or "nothing"

bad = nframes = 0
if not want:
    print("  the fixture wrote no STACK line")
    bad += 1
if len(got) != len(want):
    print("  %d stacks from gotrace, %d calls of main.stackLeaf" % (len(got), len(want)))
    bad += 1
for (n, w), (msg, g) in zip(want, got):
    short = compiler == "gccgo" and 2 <= len(g) < len(w)
    if msg != n:
        print("  stackLeaf(%s): gotrace printed goarg1 %s" % (n, msg))
        bad += 1
    elif g != (w[:len(g)] if short else w):
        print("  stackLeaf(%s): fixture %s" % (n, show(w)))
        print("    gotrace %s" % show(g))
        bad += 1
    nframes += len(g)
with open(save, "w") as f:
    for n, g in got:
        f.write("stackLeaf(%s)\n" % n)
        for fr in g:
            fr = (fr[0], "%s:%d" % (os.path.basename(fr[1]), fr[2]),
                  "inlined" if fr[3] else "") if len(fr) == 4 else fr
            f.write(" ".join(fr).rstrip() + "\n")
print("  %d stacks, %d frames compared" % (len(got), nframes))
sys.exit(1 if bad else 0)
PY

# stack_run NAME FORM [OPTION]: trace main.stackLeaf with -U (and OPTION)
# in fixture NAME, whose output is text or json (FORM), and compare.
stack_run() {
	local name=$1 form=$2 f=$FIX/$1 out=$TMP/stack-$1-$2.out truth=$TMP/stack-$1.truth
	local compiler=gc
	shift 2
	[[ $name == *gccgo ]] && compiler=gccgo
	need_file "$f" || return
	rm -f "$truth"
	if ! timeout 120 "$TOOL" -U "$@" -c "$f $truth" 'main.stackLeaf "%d" goarg1' \
		>"$out" 2>"$out.err"; then
		fail "-U $name" "gotrace failed: $(head -3 "$out.err")"
	elif python3 "$TMP/stack.py" $compiler "$form" "$truth" "$out" "$TMP/$name.$form.frames" \
		>"$out.cmp"; then
		pass "-U${1:+ $1} $name: the fixture's own frames ($(tail -1 "$out.cmp" | sed 's/^ *//'))"
	else
		fail "-U${1:+ $1} $name" "stacks differ from the fixture's own"
		cat "$out.cmp"
	fi
}

# Stripped builds name their frames from the pclntab: the same names,
# files and lines as the build with symbols and DWARF.
same_stacks() {
	local a=$TMP/$1.text.frames b=$TMP/$2.text.frames
	if [[ -s $a ]] && diff -u "$a" "$b" >"$TMP/$2.frames.diff"; then
		pass "-U $2: the same frames as $1"
	else
		fail "-U $2" "frames differ from $1's"
		head -20 "$TMP/$2.frames.diff"
	fi
}

for v in 15 21 27; do
	stack_run "args-go1.$v-default" text
	stack_run "args-go1.$v-stripped" text
	same_stacks "args-go1.$v-default" "args-go1.$v-stripped"
done
stack_run args-go1.23-pie text
stack_run args-go1.25-cgo text
stack_run args-gccgo text
stack_run args-go1.19-default json -j

# Inlined copies: main.stackMiddle is inlined into both of its callers. An
# entry probe on it fires at each copy, FUNC is marked inlined, its
# argument (no place recorded) is <optimized out>, and -U's stack is the
# fixture's own from the inlined frame on: STACK lines that go through
# main.stackMiddle (inlined), one per call.
cat >"$TMP/inlined.py" <<'PY'
import json, sys
truth, out = sys.argv[1:3]
want = []
for line in open(truth):
    t = line.split()
    if not t or t[0] != "STACK" or "main.stackMiddle" not in t:
        continue
    frames, i = [], t.index("main.stackMiddle")
    while i < len(t):
        inlined = t[i + 1] == "(inlined)"
        where = t[i + 2 if inlined else i + 1]
        frames.append((t[i], where.rpartition(":")[2], inlined))
        i += 3 if inlined else 2
    want.append(frames)
got = []
for line in open(out):
    e = json.loads(line)
    if e.get("inlined") is not True or e["msg"] != "<optimized out>":
        print("  not an inlined copy's event:", line.strip())
        sys.exit(1)
    got.append([(f.get("func"), str(f.get("line")), f.get("inlined")) for f in e["stack"]])
if not want or sorted(got) != sorted(want):
    print("  fixture:", want)
    print("  gotrace:", got)
    sys.exit(1)
print("  %d calls through inlined copies" % len(got))
PY
# checked_run NAME FIXTURE CHECK [GOTRACE ARGS...]: gotrace with ARGS on
# FIXTURE (given its truth file), then $TMP/CHECK.py on the truth and the
# output; NAME says what passed.
checked_run() {
	local name=$1 fix=$2 check=$3 f=$FIX/$2
	local out=$TMP/$3-$2.out truth=$TMP/$3-$2.truth
	shift 3
	need_file "$f" || return
	if ! timeout 120 "$TOOL" -c "$f $truth" "$@" >"$out" 2>"$out.err"; then
		fail "$check $fix" "gotrace failed: $(head -3 "$out.err")"
	elif python3 "$TMP/$check.py" "$truth" "$out" >"$out.cmp"; then
		pass "$check $fix: $name ($(tail -1 "$out.cmp" | sed 's/^ *//'))"
	else
		fail "$check $fix" "$(cat "$out.cmp")"
	fi
}
for fix in args-go1.{15,21,27}-{default,stripped} args-go1.23-pie; do
	checked_run "main.stackMiddle [inlined] at each copy, <optimized out>, the fixture's stacks" \
		"$fix" inlined -j -U 'main.stackMiddle "%d" goarg1'
done

# The ends of inlined copies (issue 23): main.callme of the count fixture
# recurses, and Go 1.25+ inlines it into itself, so most of its 3,300 calls
# are inlined copies, which have no RET of their own. A bare r: probe
# must fire once per call the fixture counted itself: 3,300, at RETs and
# at the copies' ends; a copy's result is <optimized out> (Go records
# none), an out-of-line call's is 100 (stripped, both are <no types>:
# nothing types the function); nothing is left out.
callme_returns() {
	local fix=$1 out=$TMP/callme-$1.out truth=$TMP/callme-$1.truth
	need_file "$FIX/$fix" || return
	rm -f "$truth"
	if ! "$TOOL" -c "$FIX/$fix $truth" 'r:main.callme' >"$out" 2>"$out.err"; then
		fail "r: inlined ends $fix" "gotrace failed: $(head -3 "$out.err")"
		return
	fi
	drop_count_lines "$out"
	local want got inlined other copy=optimized.out call=100
	[[ $fix == *stripped ]] && copy='no.types' call='<no.types>'
	want=$(awk '$1 == "main.callme" { print $2 }' "$truth")
	got=$(grep -c ' main\.callme ' "$out")
	inlined=$(grep -c " main\\.callme \\[inlined\\] => (<$copy>)\$" "$out")
	other=$(grep ' main\.callme ' "$out" |
		grep -vc -e "\\[inlined\\] => (<$copy>)\$" -e " main\\.callme *=> ($call)\$")
	if [[ -z $want || $got != "$want" || $other != 0 ]] ||
	   grep -q 'left out' "$out.err"; then
		fail "r: inlined ends $fix" "$got returns ($inlined of inlined copies, $other unexpected) of ${want:-no} calls counted by the fixture; $(grep 'left out' "$out.err")"
	elif [[ $fix == *go1.2[57]* && $inlined == 0 ]]; then
		fail "r: inlined ends $fix" "no end of an inlined copy fired"
	else
		pass "r: inlined ends $fix: $got returns of $want calls, $inlined at inlined copies' ends"
	fi
}
in_parallel callme_returns count-go1.{15,19,21,23,25,27}-{default,stripped,pie,cgo} count-gccgo

# Indexes of slices and strings, checked against the length in BPF: b[0]
# and b[6] of sendBytes' []byte ("ping", "ping!", "x=1&y=2"), name[0] of
# greet's string; past the length <out of range>, never memory past the
# end; a filter on an element is false where it is out of range. The
# expected values come from the arguments the fixture printed itself.
cat >"$TMP/index.py" <<'PY'
import sys
truth, out = sys.argv[1:3]
want = []
for line in open(truth):
    t = line.split()
    if t[:1] == ["main.sendBytes"]:
        b, n = t[1], t[3]
        want.append("main.sendBytes %s %s %s" % (ord(b[0]), ord(b[6]) if len(b) > 6 else "<out of range>", n))
        if b[0] == "x":
            want.append("main.sendBytes x %s" % b)
    elif t[:1] == ["main.greet"]:
        want.append("main.greet %d %s" % (ord(t[1][0]), t[2]))
got = []
for line in open(out):
    f = line.split(None, 5)
    if len(f) > 5 and f[0].isdigit():
        got.append(f[4] + " " + f[5].strip())
if not want or sorted(got) != sorted(want):
    print("  fixture:", sorted(want))
    print("  gotrace:", sorted(got))
    sys.exit(1)
print("  %d events" % len(got))
PY
for fix in args-go1.{15,21,27}-default args-go1.23-pie args-go1.25-cgo; do
	checked_run "b[0], b[6], name[0] as the fixture's arguments, <out of range> past the length, filters on elements" \
		"$fix" index 'main.sendBytes "%d %d %d" b[0], b[6], n' \
		'main.sendBytes (b[0] == 0x78 && b[6] == 0x32) "x %s" b' \
		'main.greet "%d %d" name[0], n'
done

# Real stripped third-party binaries: esbuild opens its input read-only
# and its output with O_WRONLY|O_CREAT|O_TRUNC (0x241), and (register ABI)
# os.(*File).Write returns the output file's size.
test_thirdparty() {
	local name=$1 abi=$2 f=$FIX/$1 out=$TMP/$1.out in=$TMP/in.js js=$TMP/$1.js
	need_file "$f" || return
	echo 'let x = 1 + 2; console.log(x)' >"$in"
	local probes=('os.OpenFile "%s %x" goarg1, goarg2')
	[[ $abi == register ]] && probes+=('r:os.(*File).Write "%d" retval')
	timeout 120 "$TOOL" -c "$f $in --outfile=$js" "${probes[@]}" >"$out" 2>"$out.err"
	local size=
	[[ $abi == register ]] && size=$(stat -c %s "$js" 2>/dev/null)
	if ! grep -qE "^[0-9]+ .* os\.OpenFile +$in 0\$" "$out" ||
		! grep -qE "^[0-9]+ .* os\.OpenFile +$js 241\$" "$out"; then
		fail "$name os.OpenFile" "$(grep -a OpenFile "$out" | head -5) $(head -2 "$out.err")"
	elif [[ $abi == register ]] && ! grep -qE "^[0-9]+ .* os\.\(\*File\)\.Write +${size:-none}\$" "$out"; then
		fail "$name os.(*File).Write" "no write of ${size:-?} bytes: $(grep -a Write "$out" | head -5)"
	else
		pass "$name: os.OpenFile paths and flags${size:+, a write of $size bytes}"
	fi
}
test_thirdparty esbuild-go1.15 stack
test_thirdparty esbuild-latest register

# bad_probe NAME PROBE...: a one-line error (that says $BAD_SAYS, when
# set), a non-zero exit, no events,
# on the fixture $BAD_FIXTURE (args-go1.23-default, which has DWARF).
bad_probe() {
	local name=$1 f=$FIX/${BAD_FIXTURE:-args-go1.23-default} out=$TMP/bad.out
	shift
	need_file "$f" || return
	timeout 120 "$TOOL" -c "$f $TMP/bad.truth" "$@" >"$out" 2>"$out.err"
	local rc=$? lines
	lines=$(grep -c . "$out.err")
	if [[ $rc -ne 0 && $lines -eq 1 ]] && ! grep -qE '^[0-9]+ +[0-9]+ +[0-9]+ ' "$out" &&
	   grep -qF -- "${BAD_SAYS:-}" "$out.err"; then
		pass "bad input: $name ($(cat "$out.err"))"
	else
		fail "bad input: $name" "exit $rc, $lines stderr lines: $(head -3 "$out.err")"
	fi
}
bad_probe "malformed probe" 'main.addInts "%d %d goarg1, goarg2'
bad_probe "malformed format" 'main.addInts "%d %q" goarg1, goarg2'
bad_probe "unknown function" 'main.noSuchFunction "%d" goarg1'
bad_probe "more args than the format has" 'main.addInts "%d" goarg1, goarg2'
bad_probe "goretN at the entry" 'main.addInts "%d" goret1'
bad_probe "a name that is no parameter" 'main.greet "%s" nosuch'
bad_probe "a field that does not exist" 'main.handle "%s" r.Nope'
bad_probe "%T of a non-interface" 'main.greet "%T" n'
bad_probe "a filter with a bad operator" 'main.addInts (goarg1 <> 5) "%d" goarg1'
BAD_FIXTURE=args-go1.23-stripped bad_probe "a name without DWARF" 'main.greet "%s %d" name, n'
# a stripped binary keeps no dictionary names, and its dictionaries' words
# do not say the type arguments: said, not guessed
for v in 19 27; do
	BAD_FIXTURE=args-go1.$v-stripped BAD_SAYS="whose symbol the stripped binary does not keep" \
		bad_probe "%T of a type parameter, stripped go1.$v" 'main.kindOf "%T" goarg1'
done

# Live: a slow trickle of events (main.cold, 100 a second) is printed
# while the program runs, within the tool's 100 ms polls, not only once a
# quarter of the ring buffer has filled or at the end.
test_live() {
	local f=$FIX/hotcold-go1.27-default out=$TMP/live.out n
	need_file "$f" || return
	"$f" 4 "$TMP/live.truth" &
	local fpid=$!
	wait_exec "$fpid" "$f"
	"$TOOL" -p "$fpid" main.cold >"$out" 2>&1 &
	local tpid=$!
	sleep 2
	n=$(grep -c 'main.cold' "$out")
	kill -INT "$tpid"
	wait "$tpid"
	wait "$fpid"
	check "live: events printed while the program runs ($n after 2 s)" test "$n" -ge 50
}
test_live

check "no probe left attached" no_links_left
finish
