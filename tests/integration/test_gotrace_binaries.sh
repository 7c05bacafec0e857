#!/bin/bash
# gotrace with probes in two binaries at once: a gccgo program and its
# libgo. The args fixture formats each argument and result of every call
# with fmt.Sprintf("%v", ...) (its record/format functions), so each
# main.addInts event must be followed by its three Sprintf calls in libgo,
# whose format argument is "%v", and addInts' own values must be the
# fixture's.
source "$(dirname "$0")/lib.sh"
TOOL=$BUILD/gotrace

if [[ ! -x $TOOL ]]; then
	fail "gotrace" "$TOOL does not exist (run make)"
	finish
	exit 1
fi

test_program_and_libgo() {
	local f=$FIX/args-gccgo out=$TMP/multi.out truth=$TMP/multi.truth
	need_file "$f" || return
	if ! timeout 120 "$TOOL" -c "$f $truth" 'main.addInts "%d %d" goarg1, goarg2' \
		'go:fmt.Sprintf "%s" goarg1' >"$out" 2>"$out.err"; then
		fail "program and libgo" "gotrace failed: $(head -3 "$out.err")"
		return
	fi
	local check
	check=$(python3 - "$truth" "$out" <<'PY'
import sys
truth, out = sys.argv[1:3]
want = [l.split()[1:3] for l in open(truth) if l.startswith("main.addInts ")]
events = []
for l in open(out, errors="replace"):
    f = l.split(None, 5)
    if len(f) >= 5 and f[0].isdigit():
        events.append((f[4], (f[5] if len(f) > 5 else "").split()))
got, i = [], 0
while i < len(events):
    fn, vals = events[i]
    if fn == "main.addInts":
        after = [v for f, v in events[i + 1:i + 4] if f == "fmt.Sprintf"]
        if after != [["%v"]] * 3:
            print("addInts %s is followed by %s, not three Sprintf %%v" % (vals, events[i + 1:i + 4]))
            sys.exit(1)
        got.append(vals)
    i += 1
if not want or got != want:
    print("addInts: fixture %s, gotrace %s" % (want, got))
    sys.exit(1)
n = sum(1 for f, _ in events if f == "fmt.Sprintf")
print("%d addInts calls, %d Sprintf calls in libgo" % (len(got), n))
PY
	)
	if [[ $? -eq 0 ]]; then
		pass "program and libgo in one trace: $check"
	else
		fail "program and libgo in one trace" "$check"
	fi
}
test_program_and_libgo

check "no probe left attached" no_links_left
finish
