# SPDX-License-Identifier: MIT
"""gotrace_bare_compare.py TRUTH OUT ABI DWARF [MACHINE]: gotrace's
entries and returns in OUT against the fixture's lines in TRUTH, call by
call (ABI stack or reg; DWARF dwarf or none; MACHINE x86, the default, or
arm64). Prints what differs; exit 1 then. Shared by test_gotrace_bare.sh and
test_arm64_qemu.sh."""
import re, sys
from gotrace_lines import shapes_collapsed
truth_path, out_path = sys.argv[1], sys.argv[2]
stack_abi, dwarf = sys.argv[3] == "stack", sys.argv[4] == "dwarf"
machine = sys.argv[5] if len(sys.argv) > 5 else "x86"
# these record what test_gotrace.sh's probes print, not their arguments:
# only their results are compared
DWARF_PART = {"main.handle", "main.lookup", "main.sendBytes", "main.sumInts",
              "main.ifaces", "main.minMax", "main.kindOf[...]",
              "main.nameOf[...]"}
# the fixture writes these receivers with %p; %v prints &{n}
POINTER_RECV = {"main.(*counter).add", "main.counter.add", "main.(*box[...]).bump"}

# stripped, register ABI: the words the morestack tail spills, at their
# widths (None: a float, in an XMM register); manyInts' last two go on the
# stack on x86-64, which is not spilled
RAW_WIDTHS = {"main.addInts": [8, 8], "main.widthI8": [1, 1],
              "main.widthI16": [2, 2], "main.widthI32": [4, 4],
              "main.widthI64": [8, 8], "main.widthU8": [1, 1],
              "main.widthU16": [2, 2], "main.widthU32": [4, 4],
              "main.widthU64": [8, 8], "main.mixedWidths": [1, 2, 4, 8, 1],
              "main.boolArgs": [1, 1], "main.divmod": [8, 8],
              "main.manyInts": [8] * 9, "main.mixFloat": [8, None, 8, None]}
# arm64 passes 16 integers in registers: all eleven of manyInts
if machine == "arm64":
    RAW_WIDTHS["main.manyInts"] = [8] * 11
RAW = re.compile(r"^\(raw: ((0x[0-9a-f]+|<xmm>)(, (0x[0-9a-f]+|<xmm>))*|none in registers)\)$")

def raw_words(args, widths):
    words = []
    for a, w in zip(args.split(" "), widths):
        if w is None:
            words.append("<xmm>")
        else:
            n = {"true": 1, "false": 0}.get(a)
            n = int(a) if n is None else n
            words.append(hex(n & ((1 << (8 * w)) - 1)))
    return ", ".join(words)

def norm(name):
    # main.maxOf[go.shape.int] is the fixture's main.maxOf[...]
    return re.sub(r"\[[^\]]*\]", "[...]", name)

def values(inner):
    # "x=42, y=13" -> "42 13": the fixture's spacing
    return " ".join(re.sub(r"^[A-Za-z_][A-Za-z0-9_]*=", "", v)
                    for v in inner.split(", ")) if inner else ""

calls, pending, bad = [], {}, []
for line in open(out_path):
    tok = shapes_collapsed(line.rstrip("\n")).split(None, 5)
    if len(tok) < 6 or not tok[0].isdigit() or " [inlined] " in line:
        continue
    fn, msg = norm(tok[4]), tok[5]
    if msg.startswith("=> (") and msg.endswith(")"):
        if fn in pending:
            calls.append((fn, pending.pop(fn), values(msg[4:-1]), msg))
    elif msg.startswith("(") and msg.endswith(")"):
        pending[fn] = (values(msg[1:-1]), msg)
    else:
        bad.append(line.strip())

want = []
for line in open(truth_path):
    head, sep, res = line.rstrip("\n").partition(" ->")
    if not line.startswith("main.") or not sep:
        continue
    name, _, args = head.partition(" ")
    want.append((name, args, res.strip()))

names = {w[0] for w in want}
got = [c for c in calls if c[0] in names]
errors = []
if len(got) != len(want):
    errors.append("%d calls of the fixture's functions traced, %d made" %
                  (len(got), len(want)))
prev, named, untyped, raw, checked = {}, 0, 0, 0, 0
for (fn, args, res), (gfn, (gargs, gmsg), gres, rmsg) in zip(want, got):
    if fn != gfn:
        errors.append("the fixture's call of %s traced as %s" % (fn, gfn))
        break
    named += "=" in gmsg
    if not dwarf and (gmsg == "(<no types>)" or RAW.match(gmsg)):
        untyped += 1
        if rmsg != "=> (<no types>)":
            errors.append("%s: %s at its return" % (fn, rmsg))
        if gmsg == "(<no types>)":
            continue
        raw += 1
        if fn in RAW_WIDTHS:
            want_raw = "(raw: %s)" % raw_words(args, RAW_WIDTHS[fn])
            checked += 1
            if gmsg != want_raw:
                errors.append("%s: %s, the fixture's %s" % (fn, gmsg, want_raw))
        continue
    if fn in POINTER_RECV:
        # the counter as the previous call left it
        first, _, rest = args.partition(" ")
        args = "&{%s} %s" % (prev.get(fn, "0"), rest)
        prev[fn] = res
    if fn == "main.mixFloat" and not stack_abi:
        a = args.split(" ")
        a[1] = a[3] = "<xmm>"
        args, res = " ".join(a), "<xmm>"
    if fn not in DWARF_PART and gargs != args:
        errors.append("%s: %s, the fixture's %s" % (fn, gmsg, args))
    if gres != res:
        errors.append("%s: %s, the fixture's %s" % (fn, rmsg, res))
if dwarf and named < len(want) // 2:
    errors.append("only %d calls with named arguments" % named)
if not dwarf and (named or len(got) - untyped < 6):
    errors.append("%d calls typed by method tables, %d named" %
                  (len(got) - untyped, named))
if not dwarf and not stack_abi and (raw < untyped // 2 or checked < 30):
    errors.append("%d calls of untyped functions printed raw words, %d checked, of %d" %
                  (raw, checked, untyped))
if not dwarf and stack_abi and raw:
    errors.append("raw words under the stack ABI")
if bad:
    errors.append("a line neither (...) nor => (...): %s" % bad[0])
print("%d calls (%d untyped, %d raw words, %d checked)" % (len(got), untyped, raw, checked))
for e in errors[:5]:
    print(e)
sys.exit(1 if errors else 0)
