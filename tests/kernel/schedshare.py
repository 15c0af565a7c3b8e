#!/usr/bin/env python3
"""schedshare.py - a task's CPU share as the kernel counts it, over any
window of trace time, to check a live view's figure of one refresh against
the kernel's own measure of the same second (75-top.sh, 56-docker.sh).

  schedshare.py sample PID OUT
      until PID exits (or SIGTERM/SIGINT), every few milliseconds: PID's
      CPU time (the first field of /proc/PID/schedstat, sum_exec_runtime,
      which includes the slice it is running) between two readings of the
      trace clock "local" (the ring buffer's clock as
      per_cpu/cpu0/stats prints it: "now ts", to the microsecond), one line
      "LO HI CPU_NS" per sample, LO and HI in trace nanoseconds
  schedshare.py share OUT BEGIN END
      "LOW HIGH": the bounds of PID's CPU share (percent of one CPU) over
      [BEGIN, END] (trace nanoseconds, e.g. a refresh's begin and end):
      the CPU time of the last sample read wholly before a window edge and
      of the first read wholly after it bound the CPU time at that edge,
      however late a loaded machine ran the sampler; exit 1 with the
      reason if no sample brackets an edge
  schedshare.py shares OUT TOP_JSON [TRACE PID]
      the same for each refresh of `strobe top --json` (one document a
      line, with "begin" and "end"): one word per refresh on one line,
      "LOW:HIGH", or the reason with ':' for spaces; with top's recording
      of the same run (-o TRACE) and the task's PID, "LOW:HIGH:UNSEEN",
      UNSEEN the percent of the refresh in which PID may have run without
      the trace saying so (below), and STEAL, the percent of one CPU the
      hypervisor took from this VM's CPUs over the refresh (the "steal"
      of /proc/stat's cpu line between the samples around it: an upper
      bound): the kernel does not count stolen time as the task's
      runtime, while the trace shows no switch then, so a live view may
      show the task running through it (a spinner at 100.0% in a second
      the kernel counted 90.93-92.46%, seen)

What a trace cannot show: on this VM no event is recorded while the
sandbox's own agent (PID 1, process_api, threads "tokio-rt-worker") runs,
so its switch back to the task it preempted is missing, and the trace
shows that task running again only at its next event, which a spinner
makes only when it is preempted again: once 115 ms later under load.
strobe charges that interval to no one (cputop: never more than the
evidence), while the kernel counts it to the spinner.  UNSEEN is the sum,
over the refresh, of every interval that starts with a recorded switch to
a task T on a CPU and ends at that CPU's next event when that event is in
PID's context and T never left by a recorded switch.

Why the trace clock: a refresh's begin and end are event timestamps
(strobe's sessions use "local", sched_clock, which drifts from
CLOCK_MONOTONIC), so the samples are stamped with the very clock the
events are.  Exit 2 if the top-level trace clock is not "local".
"""
import os
import signal
import sys
import time

TRACEFS = "/sys/kernel/tracing"


def now_ts(f):
    f.seek(0)
    for line in f.read().decode().splitlines():
        if line.startswith("now ts:"):
            s, _, us = line.split()[2].partition(".")
            return int(s) * 10**9 + int(us) * 1000
    raise RuntimeError("no 'now ts' in per_cpu/cpu0/stats")


def sample(pid, out):
    with open(TRACEFS + "/trace_clock") as f:
        if "[local]" not in f.read():
            print("schedshare: the top-level trace clock is not local", file=sys.stderr)
            sys.exit(2)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    stats = open(TRACEFS + "/per_cpu/cpu0/stats", "rb", buffering=0)
    ss = open("/proc/%d/schedstat" % pid, "rb", buffering=0)
    pstat = open("/proc/stat", "rb", buffering=0)
    tick_ns = 10**9 // os.sysconf("SC_CLK_TCK")
    with open(out, "w") as o:
        try:
            while True:
                lo = now_ts(stats)
                ss.seek(0)
                cpu = int(ss.read().split()[0])
                pstat.seek(0)
                steal = int(pstat.readline().split()[8]) * tick_ns	# "cpu" line
                hi = now_ts(stats) + 1000	# the stamp is cut to the microsecond
                o.write("%d %d %d %d\n" % (lo, hi, cpu, steal))
                o.flush()
                time.sleep(0.005)
        except (OSError, ValueError, IndexError, KeyboardInterrupt):
            pass	# the task is gone


def samples(path):
    """[(LO, HI, CPU_NS, STEAL_NS)] (STEAL_NS 0 in a file of three columns)"""
    return [tuple(map(int, (line.split() + ["0"])[:4])) for line in open(path)
            if len(line.split()) in (3, 4)]


def steal_of(rows, begin, end):
    """Percent of one CPU stolen from the VM's CPUs over [begin, end], at
    most (the samples around it); ValueError with the reason."""
    before = [st for lo, hi, cpu, st in rows if hi <= begin]
    after = [st for lo, hi, cpu, st in rows if lo >= end]
    if not before or not after:
        raise ValueError("schedshare: no sample around [%d, %d]" % (begin, end))
    return 100.0 * (min(after) - max(before)) / float(end - begin)


def share_of(rows, begin, end):
    """(LOW, HIGH) percent over [begin, end]; ValueError with the reason."""
    def bounds(t):
        before = [cpu for lo, hi, cpu, st in rows if hi <= t]
        after = [cpu for lo, hi, cpu, st in rows if lo >= t]
        if not before or not after:
            raise ValueError("schedshare: no sample on each side of %d (%d samples)" %
                             (t, len(rows)))
        return max(before), min(after)

    b_lo, b_hi = bounds(begin)
    e_lo, e_hi = bounds(end)
    span = float(end - begin)
    return 100.0 * (e_lo - b_hi) / span, 100.0 * (e_hi - b_lo) / span


def share(path, begin, end):
    try:
        print("%.2f %.2f" % share_of(samples(path), begin, end))
    except ValueError as e:
        print(e, file=sys.stderr)
        sys.exit(1)


def unseen_intervals(trace, pid):
    """[(begin, end)] of the intervals PID may have run unrecorded (see the
    head), from `strobe report -t` of the trace."""
    import re
    import subprocess
    strobe = os.environ.get("STROBE") or os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "build", "strobe")
    out = subprocess.run([strobe, "report", "-t", "-i", trace], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, check=True).stdout.decode(errors="replace")
    line_re = re.compile(r"^\s*.*?-(\d+)\s+\[(\d+)\]\s+(\d+)\.(\d{9}):\s+(\S+):(.*)$")
    next_re = re.compile(r"==> .*:(\d+) \[\d+\]\s*$")
    pending = {}    # cpu -> (ts of the switch to T, T) not yet confirmed
    found = []
    for line in out.splitlines():
        m = line_re.match(line)
        if not m:
            continue
        cur, cpu = int(m.group(1)), int(m.group(2))
        ts = int(m.group(3)) * 10**9 + int(m.group(4))
        p = pending.pop(cpu, None)
        if p and cur != p[1] and cur == pid:
            found.append((p[0], ts))
        if m.group(5) == "sched_switch":
            n = next_re.search(m.group(6))
            if n:
                pending[cpu] = (ts, int(n.group(1)))
    return found


def shares(path, top_json, trace=None, pid=None):
    import json
    rows = samples(path)
    gaps = unseen_intervals(trace, pid) if trace else None
    words = []
    for line in open(top_json):
        d = json.loads(line)
        try:
            w = "%.2f:%.2f" % share_of(rows, d["begin"], d["end"])
            if gaps is not None:
                ns = sum(max(0, min(e, d["end"]) - max(b, d["begin"])) for b, e in gaps)
                w += ":%.2f:%.2f" % (100.0 * ns / (d["end"] - d["begin"]),
                                     steal_of(rows, d["begin"], d["end"]))
            words.append(w)
        except ValueError as e:
            words.append(str(e).replace(" ", ":"))
    print(" ".join(words))


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "sample":
        sample(int(sys.argv[2]), sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == "shares":
        shares(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 6 and sys.argv[1] == "shares":
        shares(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]))
    elif len(sys.argv) == 5 and sys.argv[1] == "share":
        share(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    else:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        sys.exit(2)
