#!/usr/bin/env python3
"""summary.py FILE - what a trace.dat holds, without pandas: events per
type, the busiest processes and containers, and the time span, read with
strobe.read_trace (any trace-cmd v6/v7 file; strobe's own files also name
processes and containers).

    PYTHONPATH=build/python examples/summary.py trace.dat
"""
import collections
import sys

import strobe


def main():
    if len(sys.argv) != 2:
        print("usage: summary.py FILE", file=sys.stderr)
        return 2
    by_event = collections.Counter()
    by_process = collections.Counter()
    by_container = collections.Counter()
    first = last = None
    n = 0
    for ev in strobe.read_trace(sys.argv[1]):
        n += 1
        first = ev.ts if first is None else first
        last = ev.ts
        by_event["%s:%s" % (ev.system, ev.name)] += 1
        by_process["%s (%s)" % (ev.comm, ev.tgid if ev.tgid is not None else "?")] += 1
        by_container[ev.container or "host"] += 1
    if not n:
        print("no events")
        return 0
    print("%d events over %.3f s" % (n, (last - first) / 1e9))
    for title, c in (("events", by_event), ("processes", by_process),
                     ("containers", by_container)):
        print("\n%s:" % title)
        for k, v in c.most_common(10):
            print("  %10d  %s" % (v, k))
    return 0


if __name__ == "__main__":
    sys.exit(main())
