# SPDX-License-Identifier: MIT
"""gotrace_compare.py ABI TRUTH OUT PROBES: the fixture's lines, turned
into the messages the probes must print, against gotrace's event lines
(PID TID GOID COMM FUNC MESSAGE), in order. The events of one call at one place (entry or
return) may come in any order. Integers compare by value (pointers: Go's %p
and gotrace's %p may differ in spelling only; Go's 0x0 is gotrace's <nil>).

Shared by test_gotrace.sh and test_arm64_qemu.sh."""
import itertools, re, sys
from gotrace_lines import shapes_collapsed
abi, truth, out, probe_lines = sys.argv[1:5]
# gccgo's C ABI: System V on x86-64, AAPCS64 on arm64
gccgo = abi in ("c", "aapcs64")

def tokens(s):
    """Blank-separated values; [..] and {..} stay whole."""
    vals, cur, depth = [], "", 0
    for c in s:
        if c == " " and depth == 0:
            if cur:
                vals.append(cur)
            cur = ""
            continue
        depth += (c in "[{") - (c in "]}")
        cur += c
    if cur:
        vals.append(cur)
    return vals

probes = []
for line in probe_lines.splitlines():
    fn, ret, fmt, rest = line.split("|", 3)
    args, _, rest = rest.partition("|")
    filt, _, pred = rest.rpartition("|")
    if "/" in fn:
        fn = fn.split("/")[1] if gccgo else fn.split("/")[0]
    fn = fn.replace("[*]", "[...]")
    refs = [a.strip() for a in args.split(",")]
    convs = re.findall(r"%[a-zA-Z0-9]+", fmt)
    assert len(convs) == len(refs), line
    probes.append({"fn": fn, "ret": ret == "r", "fmt": fmt, "refs": refs,
                   "convs": convs, "filter": filt, "pred": pred, "kept": 0, "dropped": 0})

def value(p, i, args, res):
    conv, r = p["convs"][i], p["refs"][i]
    if r == "retval":
        v = res[0]
    elif r.startswith("goret"):
        v = res[int(r[5:]) - 1]
    elif r.startswith("goarg"):
        v = args[int(r[5:]) - 1]
    else:
        vals = res if p["ret"] else args
        at = r.partition("@")[2]
        if not at:
            v = vals[i]
        else:
            path = [int(k) for k in at.split(".")]
            v = vals[path[0] - 1]
            for m in path[1:]:
                v = tokens(v[1:-1])[m - 1]
    # Floats travel in XMM registers except under ABI0.
    if conv.endswith("f") and abi != "stack":
        v = "<xmm>"
    if conv == "%p" and v == "0x0":
        v = "<nil>"
    return v

# want: one group per call and place, [(name, ret, tokens), ...].
want, used = [], set()
for line in open(truth):
    name, rest = line.rstrip("\n").split(" ", 1)
    args, _, res = rest.partition(" ->")
    args, res = tokens(args), tokens(res)
    groups = {False: [], True: []}
    for p in probes:
        if p["fn"] != name:
            continue
        used.add((p["fn"], p["ret"]))
        if p["pred"]:
            if not eval(p["pred"], {"a": args, "r": res}):
                p["dropped"] += 1
                continue
            p["kept"] += 1
        vals = iter([value(p, i, args, res) for i in range(len(p["refs"]))])
        msg = re.sub(r"%[a-zA-Z0-9]+", lambda m: next(vals), p["fmt"])
        groups[p["ret"]].append((name, p["ret"], msg.split()))
    want += [g for g in (groups[False], groups[True]) if g]
got, goids = [], set()
for line in open(out, errors="replace"):
    f = shapes_collapsed(line).split(None, 5)
    if len(f) < 5 or not (f[0].isdigit() and f[1].isdigit()):
        continue
    goids.add(f[2])
    # type arguments, of a function or of a method's receiver type
    fn = re.sub(r"\[.*\](?=\)\.|\.[^.\]]*$|$)", "[...]", f[4])
    if fn.startswith("r:"):
        fn = fn[2:]
    got.append((fn, (f[5] if len(f) > 5 else "").split()))

def show(vals):
    return "".join(c if c.isprintable() else "?" for c in " ".join(vals))

def same(a, b):
    if a == b:
        return True
    try:
        return int(a, 0) == int(b, 0)
    except ValueError:
        return False

def matches(group, events):
    for perm in itertools.permutations(events):
        if all(gn == wn and len(gv) == len(wv) and all(same(x, y) for x, y in zip(wv, gv))
               for (wn, _, wv), (gn, gv) in zip(group, perm)):
            return True
    return False

bad = 0
# A probe no fixture line answers would compare nothing; a filter that
# keeps every line or none would prove nothing.
for p in probes:
    r = "r:" if p["ret"] else ""
    if (p["fn"], p["ret"]) not in used:
        print("  the fixture wrote no line for %s%s" % (r, p["fn"]))
        bad += 1
    elif p["pred"] and not (p["kept"] and p["dropped"]):
        print("  filter (%s) of %s%s keeps %d lines, drops %d: it tests nothing"
              % (p["filter"], r, p["fn"], p["kept"], p["dropped"]))
        bad += 1
i = nwant = 0
for group in want:
    nwant += len(group)
    ev = got[i:i + len(group)]
    i += len(group)
    if len(ev) < len(group):
        for wn, wr, wv in group[len(ev):]:
            print("  missing from gotrace: %s%s %s" % ("r:" if wr else "", wn, show(wv)))
        bad += 1
    elif not matches(group, ev):
        print("  call at event %d: %s%s: fixture %s; gotrace %s" % (
            i - len(group) + 1, "r:" if group[0][1] else "", group[0][0],
            " | ".join(show(wv) for _, _, wv in group),
            " | ".join("%s %s" % (gn, show(gv)) for gn, gv in ev)))
        bad += 1
    if bad >= 5:
        print("  ...")
        break
if bad < 5 and i < len(got):
    print("  extra in gotrace: %s %s" % (got[i][0], show(got[i][1])))
    bad += 1
# Every call runs on the main goroutine. gotrace prints no goroutine id
# ("-") for gccgo programs yet.
if gccgo and goids == {"-"}:
    pass
elif len(goids) != 1 or not all(g.isdigit() and int(g) > 0 for g in goids):
    print("  goroutine ids: %s, want one non-zero id" % sorted(goids))
    bad += 1
print("  %d events compared" % nwant)
sys.exit(1 if bad else 0)
