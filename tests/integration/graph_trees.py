# SPDX-License-Identifier: MIT
"""graph_trees.py TRUTH OUT MODE [ARG]: gofuncgraph's JSON trees (OUT)
against the graph fixture's own (TRUTH's TREE lines), as MODE asks: exact
(the same trees, as a multiset, waits where the fixture waited), nowaits,
gccgo, threshold (-t ARG ns), depth (-D ARG), caller and stack (-U), cut
(-M ARG). Prints what differs, then a summary line; exits 1 on a
difference. Shared by test_gofuncgraph.sh and test_arm64_qemu.sh."""
import json, sys
truth_file, out_file, mode = sys.argv[1:4]
arg = float(sys.argv[4]) if len(sys.argv) > 4 else 0

def calls(n):
    return [c for c in n["calls"] if "func" in c]

def waits(n):
    return [c for c in n["calls"] if "event" in c]

def ser(n):
    return n["func"] + "(" + " ".join(ser(c) for c in calls(n)) + ")"

def depth(n):
    return 1 + max([depth(c) for c in calls(n)] or [0])

def all_waits(n, out):
    for w in waits(n):
        out.append((n["func"], w))
    for c in calls(n):
        all_waits(c, out)

def check_waits(r, bad):
    ws = []
    all_waits(r, ws)
    for f, w in ws:
        if w["event"] not in ("parked", "runnable", "syscall") or \
           (w["event"] == "runnable" and w["reason"] not in ("P", "CPU")):
            bad.append("a wait of %s: %s" % (f, w))
    # time.Sleep reads the clock before it parks: a thread descheduled in
    # between parks for less than the 2 ms asked (1.87 ms seen under load;
    # the call itself takes 2 ms or more, checked below), never for less
    # than most of it
    slept = [w["dur_ns"] for f, w in ws if f == "main.sleeper" and w["reason"] == "sleep"]
    if "main.sleeper" in ser(r) and (len(slept) != 1 or slept[0] < 1500000):
        bad.append("main.sleeper parked for sleep: %s, not once 1.5 ms or more" % slept)
    # a receive parks unless the value is there already (the sender
    # sleeps 1 ms first, so it nearly always does)
    chan = [w for f, w in ws if f == "main.waiter" and w["reason"] == "chan receive"]
    if len(chan) > 1:
        bad.append("main.waiter parked for chan receive %d times" % len(chan))
    return len(ws), len(chan)

def nested(n, bad):
    for c in n["calls"]:
        if c.get("dur_ns") is not None and n.get("dur_ns") is not None and c["dur_ns"] > n["dur_ns"]:
            bad.append("%s (%d ns) longer than %s (%d ns)" % (c["func"], c["dur_ns"], n["func"], n["dur_ns"]))
        if "func" in c:
            nested(c, bad)

def unwound(n, out):
    if n.get("unwound"):
        out.append(n["func"])
    for c in calls(n):
        unwound(c, out)

def inlined(n, out):
    out.append((n["func"], n.get("inlined", False)))
    for c in calls(n):
        inlined(c, out)

truth = []
for line in open(truth_file):
    t = line.split()
    if t and t[0] == "TREE":
        truth.append((" ".join(t[1:-1]), int(t[-1])))
roots = [json.loads(l) for l in open(out_file) if l.startswith("{")]
got = sorted(ser(r) for r in roots)
bad = []
nwaits = nchan = 0
if mode in ("exact", "nowaits", "gccgo"):
    want = sorted(t for t, _ in truth)
    if got != want:
        bad.append("trees differ:\n  fixture %s\n  gofuncgraph %s" % (want, got))
    for r in roots:
        nested(r, bad)
        if mode == "exact":
            n, c = check_waits(r, bad)
            nwaits += n
            nchan += c
        else:
            w = []
            all_waits(r, w)
            if w:
                bad.append("waits with --no-waits: %s" % w)
        u = []
        unwound(r, u)
        # main.inl is inlined into main.root, main.join into main.joiner
        # (gccgo may keep them out of line): marked inlined, and nothing
        # else is
        marks = []
        inlined(r, marks)
        copies = ("main.inl", "main.join")
        if any(f not in copies for f, m in marks if m) or \
           (mode != "gccgo" and any(not m for f, m in marks if f in copies)):
            bad.append("inlined marks %s: main.inl's and main.join's copies alone" % marks)
        if "main.catcher" in ser(r) and sorted(u) != ["main.middle", "main.thrower"]:
            bad.append("unwound frames %s, not main.middle and main.thrower" % u)
        if "main.sleeper" in ser(r) and r["dur_ns"] < 2000000:
            bad.append("a root that slept 2 ms took %d ns" % r["dur_ns"])
    if mode == "exact" and not nchan:
        bad.append("no main.waiter parked for chan receive")
    goids = {r["goid"] for r in roots}
    if mode == "gccgo" and goids != {None}:
        bad.append("goroutine ids %s: gccgo's are out of reach (null)" % goids)
    elif mode != "gccgo" and len(goids) != len(roots):
        bad.append("%d goroutine ids for %d roots" % (len(goids), len(roots)))
    deep = sum(1 for r in roots if "main.deep" in ser(r))
    if mode == "gccgo" and not deep:
        bad.append("no main.deep root (the fixture runs them with -deep)")
    summary = "%d trees as the fixture's%s, %d goroutine ids, durations nested, %d waits (%d chan receive)" % (len(roots), " (%d 5 MB deep)" % deep if deep else "", len(goids), nwaits, nchan)
elif mode == "threshold":
    slept = sum(1 for t, s in truth if s >= arg)
    printed_sleepers = sum(1 for r in roots if "main.sleeper" in ser(r))
    short = [r["dur_ns"] for r in roots if r["dur_ns"] < arg]
    if printed_sleepers != slept or short or len(roots) > len(truth):
        bad.append("%d roots printed (%d that slept %d ns, of %d), below the threshold: %s" % (len(roots), printed_sleepers, arg, slept, short))
    summary = "%d roots at least %d ns, every one that slept that long" % (len(roots), arg)
elif mode == "depth":
    deep = [depth(r) for r in roots if depth(r) > arg]
    if deep or len(roots) != len(truth):
        bad.append("%d roots, depths over %d: %s" % (len(roots), arg, deep))
    summary = "%d roots, none deeper than %d" % (len(roots), arg)
elif mode == "caller":
    # gccgo keeps no frame pointers: the PC and its caller, the function
    # main starts each root's goroutine with
    bad_stacks = [[f.get("func", f.get("addr")) for f in r.get("stack", [])] for r in roots
                  if len(r.get("stack", [])) != 2 or r["stack"][0].get("func") != "main.root"
                  or not r["stack"][1].get("func", "").startswith("main.main.")]
    if bad_stacks or len(roots) != len(truth):
        bad.append("%d roots, stacks not main.root <- main.main.*: %s" % (len(roots), bad_stacks[:2]))
    summary = "%d roots, each stack main.root <- main.main.*" % len(roots)
elif mode == "stack":
    # each root is called by the goroutine main starts (main.main.func1),
    # which runtime.goexit began
    bad_stacks = [[f.get("func", f.get("addr")) for f in r.get("stack", [])] for r in roots
                  if not r.get("stack") or r["stack"][0].get("func") != "main.root"
                  or not any(f.get("func", "").startswith("main.main.func") for f in r["stack"])
                  or r["stack"][-1].get("func") != "runtime.goexit"]
    if bad_stacks or len(roots) != len(truth):
        bad.append("%d roots, stacks not main.root <- main.main.func* <- ... runtime.goexit: %s" % (len(roots), bad_stacks[:2]))
    summary = "%d roots, each stack main.root <- main.main.func* ... <- runtime.goexit" % len(roots)
else:  # cut
    cut = [r for r in roots if r.get("cut")]
    if not cut or len(roots) != len(truth):
        bad.append("%d roots, %d marked cut" % (len(roots), len(cut)))
    summary = "%d roots, %d over %d events marked cut" % (len(roots), len(cut), arg)
for b in bad:
    print(b)
print(summary)
sys.exit(1 if bad or not roots else 0)
