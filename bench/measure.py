#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Run one tracer the way a person would, and time it.

    measure.py [options] [-- TRACER ARGS...]

1. With --target CMD, start CMD (a bench/loop -wait program) and wait for
   its "ready" line; "{pid}" in TRACER ARGS becomes its PID.
2. Start TRACER (stdout and stderr merged into --log) and wait for a line
   matching --marker (in the file --marker-file, where a tracer whose
   stdout goes to a file prints it): the time from start to that line is
   the attach time.
3. With --target, send the target its start line and wait for its result
   ("... ns/call"); without, wait --hold seconds.
4. Send SIGINT to the tracer: the time until it exits is the detach time.

Prints one line of key=value pairs on stdout:
    attach_s  attach_cpu_s  detach_s  maxrss_kb  exit  ns_per_call  calls  pid
(calls: the calls the target says it made, "N calls, ..."; attach_cpu_s:
the tracer's user and system CPU seconds when it printed the marker, the
kernel's work for its system calls included).
A phase that takes longer than --timeout is reported as ">T" and the tracer
is killed (its exit may still take long in the kernel: every perf-event
uprobe it holds is closed one by one). maxrss_kb is the tracer's peak
resident set: ru_maxrss from wait4 when it exits in time, otherwise the
highest VmHWM seen in /proc while it ran. Without TRACER, only the target
runs (the untraced baseline).
"""
import argparse
import os
import re
import selectors
import shlex
import signal
import subprocess
import sys
import time


def die(msg):
    sys.exit("measure.py: " + msg)


def cpu_s(pid):
    """User and system CPU seconds PID has used so far, or None."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    # utime and stime: fields 14 and 15 of proc(5), 12 and 13 after comm
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def vm_hwm_kb(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def file_lines(path):
    try:
        with open(path, errors="replace") as f:
            return f.read().splitlines()
    except OSError:
        return []


class Tracer:
    """The traced tool: a child whose output is logged and scanned."""

    def __init__(self, argv, log):
        self.log = log
        self.start = time.monotonic()
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL)
        os.set_blocking(self.proc.stdout.fileno(), False)
        self.buf = b""
        self.eof = False
        self.status = None
        self.rusage = None
        self.hwm = 0
        self.marker_cpu = None

    def pump(self, wait):
        """Read what the tool printed within WAIT seconds; new lines."""
        sel = selectors.DefaultSelector()
        sel.register(self.proc.stdout, selectors.EVENT_READ)
        lines = []
        if not self.eof and sel.select(wait):
            data = self.proc.stdout.read()
            if data == b"":
                self.eof = True
            elif data:
                self.log.write(data)
                self.log.flush()
                self.buf += data
                *done, self.buf = self.buf.split(b"\n")
                lines = [l.decode(errors="replace") for l in done]
        elif self.eof:
            time.sleep(wait)
        sel.close()
        self.hwm = max(self.hwm, vm_hwm_kb(self.proc.pid))
        return lines

    def reap(self):
        """True once the tool has exited (reaped with its rusage)."""
        if self.status is None:
            pid, status, ru = os.wait4(self.proc.pid, os.WNOHANG)
            if pid:
                self.status = os.waitstatus_to_exitcode(status)
                self.rusage = ru
                self.proc.returncode = self.status
        return self.status is not None

    def wait_marker(self, marker, timeout, path=None):
        """Seconds from start until a line matches MARKER, in the tool's
        output or in the file PATH, or None."""
        while time.monotonic() - self.start < timeout:
            lines = self.pump(0.005)
            if path:
                lines = file_lines(path)
            for line in lines:
                if marker.search(line):
                    self.marker_cpu = cpu_s(self.proc.pid)
                    return time.monotonic() - self.start
            if self.eof and self.reap():
                return None
        return None

    def stop(self, timeout):
        """SIGINT; seconds until exit, or None after TIMEOUT (killed)."""
        t0 = time.monotonic()
        self.proc.send_signal(signal.SIGINT)
        while time.monotonic() - t0 < timeout:
            self.pump(0.005)
            if self.reap():
                return time.monotonic() - t0
        self.note_stuck()
        self.proc.kill()
        return None

    def note_stuck(self):
        """Log where in the kernel the tool is, before it is killed."""
        try:
            with open("/proc/%d/stack" % self.proc.pid) as f:
                stack = f.read()
        except OSError as e:
            stack = str(e) + "\n"
        self.log.write(b"measure.py: still running after the timeout; kernel stack:\n"
                       + stack.encode())
        self.log.flush()

    def maxrss_kb(self):
        if self.rusage is not None:
            return self.rusage.ru_maxrss
        return self.hwm


class Target:
    """The loop program, held at its handshake until released."""

    def __init__(self, cmd, timeout):
        self.timeout = timeout
        self.calls = "-"
        self.proc = subprocess.Popen(shlex.split(cmd), stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        if line.strip() != "ready":
            die("target did not say ready: %r" % line)

    def run(self):
        """Release the loop; its result in ns per call."""
        self.proc.stdin.write("go\n")
        self.proc.stdin.flush()
        out, _ = self.proc.communicate(timeout=self.timeout)
        m = re.search(r"([0-9.]+) ns/call", out)
        if not m or self.proc.returncode != 0:
            die("target failed (exit %s): %r" % (self.proc.returncode, out))
        c = re.search(r"^([0-9]+) calls", out, re.M)
        self.calls = c.group(1) if c else "-"
        return float(m.group(1))

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def fmt(seconds, timeout):
    return ">%g" % timeout if seconds is None else "%.3f" % seconds


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--marker", default=r"^Tracing ",
                    help="regex of the tool's 'attached' line")
    ap.add_argument("--marker-file",
                    help="look for the marker in this file (emptied first), "
                    "where the tracer's stdout goes, not in its output")
    ap.add_argument("--timeout", type=float, default=300,
                    help="seconds allowed for attach, and again for detach")
    ap.add_argument("--hold", type=float, default=0.2,
                    help="seconds to stay attached without --target")
    ap.add_argument("--target", help="loop command to run under the tracer")
    ap.add_argument("--log", default="/dev/null", help="the tool's output")
    ap.add_argument("tracer", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    argv = args.tracer[1:] if args.tracer[:1] == ["--"] else args.tracer

    target = Target(args.target, args.timeout) if args.target else None
    if not argv:
        if not target:
            die("nothing to run")
        ns = target.run()
        print("attach_s=- detach_s=- maxrss_kb=- exit=0 ns_per_call=%.3f "
              "calls=%s" % (ns, target.calls))
        return
    if target:
        argv = [a.replace("{pid}", str(target.proc.pid)) for a in argv]

    if args.marker_file:
        open(args.marker_file, "w").close()  # no marker of a run before
    with open(args.log, "ab") as log:
        tracer = Tracer(argv, log)
        attach = tracer.wait_marker(re.compile(args.marker), args.timeout,
                                    args.marker_file)
        ns = "-"
        if attach is None:
            status = "died" if tracer.reap() else "timeout"
            if status == "timeout":
                tracer.note_stuck()
                tracer.proc.kill()
            if target:
                target.kill()
            print("attach_s=%s detach_s=- maxrss_kb=%d exit=%s ns_per_call=- "
                  "pid=%d" % ("-" if status == "died" else fmt(None, args.timeout),
                              tracer.maxrss_kb(), status, tracer.proc.pid))
            return
        if target:
            try:
                ns = "%.3f" % target.run()
            except BaseException:
                tracer.proc.kill()  # do not leave it attached
                raise
        else:
            deadline = time.monotonic() + args.hold
            while time.monotonic() < deadline:
                tracer.pump(0.01)
        if tracer.reap():
            detach = "-"  # it ended by itself: nothing to time
        else:
            detach = fmt(tracer.stop(args.timeout), args.timeout)
        print("attach_s=%s attach_cpu_s=%s detach_s=%s maxrss_kb=%d exit=%s "
              "ns_per_call=%s calls=%s pid=%d"
              % (fmt(attach, args.timeout),
                 "-" if tracer.marker_cpu is None else
                 "%.2f" % tracer.marker_cpu, detach,
                 tracer.maxrss_kb(),
                 tracer.status if tracer.status is not None else "killed",
                 ns, target.calls if target else "-", tracer.proc.pid))


if __name__ == "__main__":
    main()
