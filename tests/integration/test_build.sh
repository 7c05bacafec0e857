#!/bin/bash
# The build's promises: `make STATIC=1` gives self-contained tools that
# still count right and serve --prometheus (libmicrohttpd linked in, and
# glibc's getaddrinfo in a static binary), `make ARCH=arm64` cross-builds
# them for arm64, statically, and `make install` honours PREFIX and
# DESTDIR. Capstone 5 is linked into every tool, and without it
# make refuses.
source "$(dirname "$0")/lib.sh"

if [[ -x $BUILD/gofunccount ]] && ldd "$BUILD/gofunccount" >"$TMP/ldd" 2>&1 &&
	! grep -q libcapstone "$TMP/ldd"; then
	pass "gofunccount links capstone statically"
else
	fail "gofunccount links capstone statically" "$(grep capstone "$TMP/ldd")"
fi
# One line saying what to run, before any C object is built.
if ! make -C "$ROOT" -s GT_CACHE="$TMP/nocache" OUTPUT="$TMP/nocs" all \
	>"$TMP/nocs.log" 2>&1 &&
	grep -q '^capstone 5 is missing from .*: run make deps' "$TMP/nocs.log" &&
	! compgen -G "$TMP/nocs/lib/*/*.o" >/dev/null; then
	pass "make without capstone 5 says to run make deps"
else
	fail "make without capstone 5" "$(head -3 "$TMP/nocs.log")"
fi

static=$TMP/static
if make -C "$ROOT" -s -j"$(nproc)" STATIC=1 OUTPUT="$static" all >"$TMP/static.log" 2>&1; then
	pass "make STATIC=1"
else
	fail "make STATIC=1" "$(tail -5 "$TMP/static.log")"
fi
if [[ -x $static/gofunccount ]] && ! ldd "$static/gofunccount" >/dev/null 2>&1; then
	pass "static gofunccount has no dynamic dependencies"
else
	fail "static gofunccount has no dynamic dependencies" "$(ldd "$static/gofunccount" 2>&1 | head -3)"
fi
f=$FIX/count-go1.25-stripped
if need_file "$f"; then
	"$static/gofunccount" -c "$f $TMP/truth" 'main.add' >"$TMP/out" 2>&1
	want=$(awk '$1 == "main.add" { print $2 }' "$TMP/truth")
	if [[ -n $want ]] && grep -qE "^main\.add +$want$" "$TMP/out"; then
		pass "static gofunccount counts"
	else
		fail "static gofunccount counts" "$(tail -3 "$TMP/out")"
	fi
	# the same count on /metrics, while the tool still runs (until
	# Ctrl-C: a -d would race the fixture, which is slow under probes)
	"$static/gofunccount" -q --prometheus 0 "$f:main.add" \
		>"$TMP/prom.out" 2>"$TMP/prom.err" &
	tpid=$!
	for _ in $(seq 50); do
		url=$(sed -n 's/^gofunccount: serving metrics on //p' "$TMP/prom.err")
		[[ -n $url ]] && grep -q '^Tracing' "$TMP/prom.out" && break
		sleep 0.1
	done
	"$f" "$TMP/truth2" >/dev/null
	got=$(curl -s --max-time 5 "$url" | sed -n 's/^gofunccount_calls_total{.*function="main.add".*} //p')
	kill -INT "$tpid"
	wait "$tpid"
	want=$(awk '$1 == "main.add" { print $2 }' "$TMP/truth2")
	if [[ -n $want && $got == "$want" ]]; then
		pass "static gofunccount --prometheus serves the count"
	else
		fail "static gofunccount --prometheus serves the count" "got '$got' for $want at '$url': $(tail -2 "$TMP/prom.err")"
	fi
fi

# make ARCH=arm64 (issue 25): on an x86-64 machine, every tool cross-built
# for arm64 (by make test, into GT_BUILD_ARM64), statically linked, with its
# BPF programs built for arm64 (their BTF has arm64's user_pt_regs, which
# x86's have not) embedded.
if [[ $(uname -m) == x86_64 ]]; then
	arm64=${GT_BUILD_ARM64:-$ROOT/build-arm64}
	for tool in gofunccount gofunclatency gotrace gofuncgraph; do
		bin=$arm64/$tool
		if [[ -f $bin ]] &&
			prints '^ +Machine: +AArch64$' readelf -h "$bin" &&
			prints '^ +Type: +EXEC ' readelf -h "$bin" &&
			! prints INTERP readelf -l "$bin" &&
			prints 'no dynamic section' readelf -d "$bin"; then
			pass "arm64 $tool is a static AArch64 executable"
		else
			fail "arm64 $tool is a static AArch64 executable" "$(file "$bin" 2>&1)"
		fi
		obj=$arm64/$tool.bpf.o
		if prints "STRUCT 'user_pt_regs'" bpftool btf dump file "$obj" &&
			python3 -c 'import sys; sys.exit(open(sys.argv[2], "rb").read().find(open(sys.argv[1], "rb").read()) < 0)' \
				"$obj" "$bin" 2>/dev/null; then
			pass "arm64 $tool embeds its BPF programs built for arm64"
		else
			fail "arm64 $tool embeds its BPF programs built for arm64" "$(bpftool btf dump file "$obj" 2>&1 | grep -m2 pt_regs)"
		fi
	done
fi

dest=$TMP/root
if make -C "$ROOT" -s OUTPUT="$static" PREFIX=/opt/gt DESTDIR="$dest" install \
	>"$TMP/install.log" 2>&1 && [[ -x $dest/opt/gt/bin/gofunccount ]] &&
	[[ -f $dest/opt/gt/share/man/man8/gofunccount.8 ]]; then
	pass "make install PREFIX DESTDIR"
else
	fail "make install PREFIX DESTDIR" "$(tail -3 "$TMP/install.log")"
fi
finish
