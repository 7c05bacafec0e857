#!/bin/bash
# DWARF from a separate debug file. The args fixture (Go 1.27, with DWARF)
# is split as distributions split packages: `objcopy --only-keep-debug`
# makes the debug file, `objcopy --strip-debug` the binary without DWARF.
# gotrace reads a field through a pointer (which needs DWARF types) from
# that binary, finding the debug file through its .gnu_debuglink, under
# /usr/lib/debug/.build-id by its GNU build ID (as Debian's -dbgsym
# packages install it), or named by --debug-file; each time the values
# equal those the fixture printed itself. Without a debug file it cannot;
# a wrong or missing one is a one-line error.
source "$(dirname "$0")/lib.sh"

TOOL=$BUILD/gotrace
SRC=$FIX/args-go1.27-default
PROBE='main.handle "%s %s %d %d" r.Method, r.URL.Path, len(r.Body), r.ID'
BUILD_ID_DIR=/usr/lib/debug/.build-id
installed=

cleanup() { [[ -n $installed ]] && rm -f "$installed"; rm -rf "$TMP"; }
trap cleanup EXIT

# traced_like_fixture BINARY RUN NAME [OPTIONS...]: gotrace of PROBE on
# BINARY prints what the fixture printed for main.handle (RUN names the
# files of the run, NAME the test).
traced_like_fixture() {
	local bin=$1 out=$TMP/$2 name=$3 want got rc
	shift 3
	timeout 120 "$TOOL" "$@" -c "$bin $out.truth" "$PROBE" >"$out" 2>"$out.err"
	rc=$?
	want=$(sed -n 's/^main\.handle \(.*\) -> .*/\1/p' "$out.truth" 2>/dev/null)
	got=$(awk '$5 == "main.handle" { $1 = $2 = $3 = $4 = $5 = ""; sub(/^ +/, ""); print }' "$out")
	if [[ $rc -eq 0 && -n $want && $got == "$want" ]]; then
		pass "$name: main.handle's fields read through DWARF from the debug file ($(wc -l <<<"$got") calls, equal to the fixture's)"
	else
		fail "$name" "exit $rc; fixture: $(tr '\n' ';' <<<"$want"); gotrace: $(tr '\n' ';' <<<"$got") $(head -2 "$out.err")"
	fi
}

need_file "$SRC" || { finish; exit; }
id=$(readelf -n "$SRC" | sed -n 's/.*Build ID: \([0-9a-f]*\)$/\1/p' | head -1)
objcopy --only-keep-debug "$SRC" "$TMP/args.debug"
# with a .gnu_debuglink to args.debug, in the same directory
objcopy --strip-debug --add-gnu-debuglink="$TMP/args.debug" "$SRC" "$TMP/args-link"
# with nothing that names it: the build ID only
mkdir -p "$TMP/bare"
objcopy --strip-debug "$SRC" "$TMP/bare/args"
if prints '\.debug_info' readelf -S "$TMP/bare/args"; then
	fail "the stripped copy" "still has .debug_info"
fi

traced_like_fixture "$TMP/args-link" debuglink ".gnu_debuglink"
traced_like_fixture "$TMP/bare/args" named "--debug-file" --debug-file "$TMP/args.debug"

# no debug file anywhere: the fields cannot be read, and gotrace says why,
# at once: no debuginfod server is asked (192.0.2.1 is TEST-NET-1, where a
# connection would hang)
start=$SECONDS
DEBUGINFOD_URLS=http://192.0.2.1/ timeout 60 "$TOOL" -c "$TMP/bare/args $TMP/none.truth" \
	"$PROBE" >"$TMP/none" 2>"$TMP/none.err"
rc=$?
if [[ $rc -ne 0 && $rc -ne 124 && $((SECONDS - start)) -lt 10 &&
	$(grep -c . "$TMP/none.err") -eq 1 ]] && grep -q 'DWARF' "$TMP/none.err"; then
	pass "no debug file: one line, exit $rc, no debuginfod server asked ($(cat "$TMP/none.err"))"
else
	fail "no debug file" "exit $rc: $(head -3 "$TMP/none.err")"
fi

if [[ -z $id ]]; then
	fail "build ID" "$SRC has no GNU build ID"
else
	installed=$BUILD_ID_DIR/${id:0:2}/${id:2}.debug
	if [[ -e $installed ]]; then
		fail "build ID" "$installed exists already: not ours to replace"
		installed=
	else
		mkdir -p "$(dirname "$installed")"
		cp "$TMP/args.debug" "$installed"
		traced_like_fixture "$TMP/bare/args" build-id "build ID, $BUILD_ID_DIR/${id:0:2}/${id:2}.debug"
		rm -f "$installed"
		installed=
	fi
fi

# a debug file of another binary: their build IDs differ
objcopy --only-keep-debug "$FIX/args-go1.27-cgo" "$TMP/other.debug"
"$TOOL" --debug-file "$TMP/other.debug" -c "$TMP/bare/args $TMP/x.truth" "$PROBE" \
	>/dev/null 2>"$TMP/other.err"
rc=$?
check "--debug-file of another binary: one line naming it, exit $rc" \
	bash -c "[[ $rc -ne 0 && \$(grep -c . '$TMP/other.err') -eq 1 ]] && grep -q 'build IDs differ' '$TMP/other.err'"
"$TOOL" --debug-file "$TMP/nosuch.debug" -c "$TMP/bare/args $TMP/x.truth" "$PROBE" \
	>/dev/null 2>"$TMP/missing.err"
rc=$?
check "--debug-file that does not exist: one line naming it, exit $rc" \
	bash -c "[[ $rc -ne 0 && \$(grep -c . '$TMP/missing.err') -eq 1 ]] && grep -q 'nosuch.debug' '$TMP/missing.err'"

check "no probe left attached" no_links_left
finish
