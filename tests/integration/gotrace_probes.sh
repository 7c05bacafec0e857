# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# gotrace's probes of the args fixture, sourced by test_gotrace.sh and
# test_arm64_qemu.sh: what each compares against the fixture's own lines
# (gotrace_compare.py).

# The probes, one per line: FUNCTION|r|FORMAT|ARGS. A function given as
# GC/GCCGO names it per compiler. F[*] matches the one shape instantiation
# of a generic function (after its hidden dictionary argument), which the
# fixture writes as F[...]. Fixture values in XMM registers (floats
# under the register and C ABIs) must print as <xmm>, never as a number.
PROBES='main.addInts||%d %d|goarg1, goarg2
main.addInts|r|%d|retval
main.widthI8||%hhd %hhd|goarg1, goarg2
main.widthI8|r|%hhd|retval
main.widthI16||%hd %hd|goarg1, goarg2
main.widthI16|r|%hd|retval
main.widthI32||%w32d %w32d|goarg1, goarg2
main.widthI32|r|%w32d|retval
main.widthI64||%d %d|goarg1, goarg2
main.widthI64|r|%d|retval
main.widthU8||%hhu %hhu|goarg1, goarg2
main.widthU8|r|%hhu|retval
main.widthU16||%hu %hu|goarg1, goarg2
main.widthU16|r|%hu|retval
main.widthU32||%w32u %w32u|goarg1, goarg2
main.widthU32|r|%w32u|retval
main.widthU64||%u %u|goarg1, goarg2
main.widthU64|r|%u|retval
main.mixedWidths||%hhd %hu %w32d %u %t|goarg1, goarg2, goarg3, goarg4, goarg5
main.mixedWidths|r|%d|retval
main.boolArgs||%t %t|goarg1, goarg2
main.boolArgs|r|%t|retval
main.greet||%s %d|goarg1, goarg2
main.greet|r|%s|retval
main.manyInts||%d %d %d %d %d %d %d %d %d %d %d|goarg1, goarg2, goarg3, goarg4, goarg5, goarg6, goarg7, goarg8, goarg9, goarg10, goarg11
main.manyInts|r|%d|retval
main.mixFloat||%d %f %d %w32f|goarg1, goarg2, goarg3, goarg4
main.mixFloat|r|%f|retval
main.celsius.toF||%d %d|goarg1, goarg2
main.celsius.toF|r|%d|retval
main.(*counter).add/main.counter.add||%p %d|goarg1, goarg2
main.(*counter).add/main.counter.add|r|%d|retval
main.sumVar||%d|goarg1
main.sumVar|r|%d|retval
main.divmod||%d %d|goarg1, goarg2
main.divmod|r|%d %d|goret1, goret2
main.describe||%s %d|goarg1, goarg2
main.describe|r|%s %d %t|goret1, goret2, goret3
main.maxOf[*]||%d %d|goarg1, goarg2
main.maxOf[*]|r|%d|retval
main.longer[*]||%s %s|goarg1, goarg2
main.longer[*]|r|%s|retval
main.(*box[*]).bump||%p %d %d|goarg1, goarg2, goarg3
main.(*box[*]).bump|r|%d|retval'

# Filters on goargN need no DWARF: every build runs these. Two more
# columns: FILTER, which gotrace takes in parentheses before the format,
# and PREDICATE, the same test in Python on the fixture's line (a: its
# arguments, r: its results, as strings), which must keep some lines and
# drop others. The first word of each format tells the probes apart.
PROBES_FILTER='main.addInts||gt5 %d %d|goarg1, goarg2|goarg1 > 5|int(a[0]) > 5
main.addInts||hexneg %d %d|goarg1, goarg2|goarg2 < -1 || goarg1 == 0x2a|int(a[1]) < -1 or int(a[0]) == 0x2a
main.addInts||andor %d %d|goarg1, goarg2|goarg1 > 5 && goarg2 < 0 || goarg2 == 1000|int(a[0]) > 5 and int(a[1]) < 0 or int(a[1]) == 1000
main.boolArgs||not %t %t|goarg1, goarg2|!goarg2|a[1] == "false"
main.boolArgs||both %t %t|goarg1, goarg2|goarg1 == true && goarg2|a[0] == "true" and a[1] == "true"'

# What needs DWARF (parameters by name, field selectors, []byte, len/cap,
# %T): builds with DWARF only, in the same run. A named ARG prints the
# fixture's value at its own position among the probe's ARGs (arguments
# at the entry, results in r:); ARG@N picks the Nth value instead,
# ARG@N.M the Mth field or element of that value (a struct written
# {F1 F2 ...}, an array [E1 E2 ...]), ARG@N.M.K an element of that...
PROBES_DWARF='main.greet||%s %d|name, n
main.greet||bob %s %d|name, n|name == "bob"|a[0] == "bob"
main.(*counter).add/main.counter.add||%p %d|c, goarg2
main.splitStruct||%d %s %d|p.a@1.1, p.s@1.2, k@2
main.stackStruct||%d %d %d %d|r.pts[0]@1.1.1, r.pts[1]@1.1.2, r.w@1.2, k@2
main.stackArray||%d %d %d %d|v[0]@1.1, v[2]@1.3, k@2, v[1]@1.2
main.handle||%s %s %d %d|r.Method, r.URL.Path, len(r.Body), r.ID
main.handle||some %d|r.ID@4|r.ID >= 2 && len(r.Body) > 0|int(a[3]) >= 2 and int(a[2]) > 0
main.lookup||%s %d %p %s|key, len(key), u, u.Host
main.lookup||set %s|key|u != nil|a[2] != "0x0"
main.handle||idx %s|r.URL.Path@2|r.URL.Path == "/index.html"|a[1] == "/index.html"
main.lookup||gk %s|key|key == "gamma-key"|a[0] == "gamma-key"
main.lookup||gz %s|key|key == "gamma-kez" || key == "alpha"|a[0] == "gamma-kez" or a[0] == "alpha"
main.sendBytes||%s %d %d|b, len(b), n
main.sendBytes||ping %s %d|b, n@3|b == "ping"|a[0] == "ping"
main.sumInts||%d %d %d|len(xs), cap(xs), k
main.ifaces||%T %T|e, err
main.minMax||%d|len(xs)
main.minMax|r|%d %d|lo, hi
main.kindOf[*]||%T|x
main.kindOf[*]|r|%d|retval
main.nameOf[*]||%T|x'

# probes_for ABI DWARF: the probe lines for a build under ABI (register,
# stack, or gccgo's C ABI: c on x86-64, aapcs64 on arm64), with DWARF (yes)
# or not, that this version of gotrace can
# trace. What it cannot do yet, as it says itself: results under the
# stack ABI (Go <= 1.16).
probes_for() {
	local abi=$1 dwarf=$2 fn ret fmt args
	while IFS='|' read -r fn ret fmt args; do
		[[ -z $fn ]] && continue
		[[ $abi != register && $fn == *'[*]'* ]] && continue # no generics
		echo "$fn|$ret|$fmt|$args"
	done < <(echo "$PROBES"
		echo "$PROBES_FILTER"
		[[ $dwarf == yes ]] && echo "$PROBES_DWARF")
}

# probe_args ABI DWARF: the probes as gotrace arguments, one per line.
probe_args() {
	local fn ret fmt rest args filter
	while IFS='|' read -r fn ret fmt rest; do
		if [[ $fn == */* ]]; then
			[[ $1 == c || $1 == aapcs64 ]] && fn=${fn#*/} || fn=${fn%/*}
		fi
		args=${rest%%|*}
		filter=
		[[ $rest == *'|'* ]] && filter=${rest#*|} && filter=${filter%|*}
		echo "${ret:+r:}$fn${filter:+ ($filter)} \"$fmt\" $(sed -E 's/@[0-9.]+//g' <<<"$args")"
	done < <(probes_for "$@")
}
