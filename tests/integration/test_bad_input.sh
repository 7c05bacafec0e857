#!/bin/bash
# Bad input: each case must end with exactly one line on stderr that names
# the problem, a non-zero exit, no crash, and no probe left attached.
source "$(dirname "$0")/lib.sh"
TOOL=$BUILD/gofunccount
GOBIN=$FIX/count-go1.21-default

# expect_error NAME REGEX ARGS...
expect_error() {
	local name=$1 want=$2 rc lines
	shift 2
	"$TOOL" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null
	rc=$?
	lines=$(wc -l <"$TMP/err")
	if [[ $rc -ne 0 && $rc -lt 128 && $lines -eq 1 ]] &&
		grep -qiE "$want" "$TMP/err"; then
		pass "$name"
	else
		fail "$name" "exit $rc, stderr ($lines lines): $(head -3 "$TMP/err")"
	fi
}

need_file "$GOBIN"
printf 'hello\n' >"$TMP/text"
: >"$TMP/empty"
head -c 3000 "$GOBIN" >"$TMP/truncated"
cp "$GOBIN" "$TMP/noexec" && chmod 644 "$TMP/noexec"
# A 32-bit ELF header (ELFCLASS32, x86), enough for any ELF reader to say so.
printf '\x7fELF\x01\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x03\x00\x01\x00\x00\x00' >"$TMP/elf32"
head -c 4096 /dev/zero >>"$TMP/elf32"

expect_error "missing binary" 'no such file' "$TMP/nonexistent:main.*"
expect_error "not ELF" 'not an ELF' "$TMP/text:main.*"
expect_error "empty file" 'not an ELF|empty' "$TMP/empty:main.*"
expect_error "non-Go ELF" 'not a Go binary' /bin/true:'main.*'
expect_error "32-bit ELF" '32-bit' "$TMP/elf32:main.*"
expect_error "truncated Go binary" 'truncated|corrupt|not a Go|invalid' "$TMP/truncated:main.*"
expect_error "no such function" "no functions match 'main.nosuchfunc'" "$GOBIN:main.nosuchfunc"
expect_error "pattern matches nothing" 'no functions match' "$GOBIN:zzz*"
expect_error "bad regex" 'regular expression|regex' -r "$GOBIN:main.(("
expect_error "no binary" 'binary|-p|-c' 'main.*'
expect_error "empty pattern" 'pattern' "$GOBIN:"
expect_error "dead PID" 'no such process' -p 999999 'main.*'
expect_error "command not executable" 'not an executable|permission' -c "$TMP/noexec" 'main.*'
expect_error "command not found" 'not found|no such file' -c "$TMP/nonexistent" 'main.*'
expect_error "bad interval" 'interval' -i x "$GOBIN:main.*"

# Another machine's code (an arm64 build, which an emulator could be
# running): no tool writes a breakpoint into it.
ARM64=$FIX/count-go1.27-arm64
if need_file "$ARM64"; then
	for t in gofunccount gofunclatency gofuncgraph gotrace; do
		TOOL=$BUILD/$t expect_error "$t: an arm64 binary" \
			'arm64 code, and this build of gotools traces x86-64 code only' "$ARM64:main.main"
	done
fi

# No privilege: an unprivileged user cannot load BPF programs.
if command -v setpriv >/dev/null; then
	cp "$GOBIN" "$TMP/gobin" && chmod 755 "$TMP/gobin"
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$TOOL" "$TMP/gobin:main.add" >"$TMP/out" 2>"$TMP/err" </dev/null
	rc=$?
	if [[ $rc -ne 0 && $(wc -l <"$TMP/err") -eq 1 ]] &&
		grep -qi 'permission' "$TMP/err"; then
		pass "no privilege"
	else
		fail "no privilege" "exit $rc: $(head -3 "$TMP/err")"
	fi
else
	fail "no privilege" "setpriv (util-linux) is missing"
fi

# A target that exits while traced: counts so far, then an error.
# The fixture waits for a line on stdin that never comes.
sleep 30 | "$GOBIN" -wait "$TMP/truth" >/dev/null &
pid=$!
sleep 0.3
"$TOOL" -p "$pid" 'main.add' >"$TMP/out" 2>"$TMP/err" &
tpid=$!
sleep 1
kill "$pid"
wait "$tpid"
rc=$?
if [[ $rc -eq 1 ]] && grep -q "process $pid exited" "$TMP/err"; then
	pass "target exits while traced"
else
	fail "target exits while traced" "exit $rc: $(cat "$TMP/err")"
fi

check "no probe left attached" no_links_left
finish
