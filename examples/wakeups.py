#!/usr/bin/env python3
"""wakeups.py PID [SECONDS] - who wakes process PID (and the children it
starts from now on) up, live: one line per sched_wakeup with the waker,
the woken task, their containers and the CPU it will run on.  Until Ctrl-C
or SECONDS.  Needs root.

The first thing one asks of a slow service in a container: is it waiting
to be woken, and by whom?

    sudo PYTHONPATH=build/python examples/wakeups.py $(pidof nginx)
"""
import sys

import strobe


def show(ev):
    print("%.6f %s-%d (%s) wakes %s-%d on CPU %d" % (
        ev.ts / 1e9, ev.comm or "<...>", ev.pid, ev.container or "host",
        ev["comm"], ev["pid"], ev["target_cpu"]), flush=True)


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 2
    timeout = float(sys.argv[2]) if len(sys.argv) > 2 else None
    with strobe.create_instance(tracing_on=False) as inst:
        strobe.enable_event(instance=inst, system="sched", event="sched_wakeup")
        strobe.hook2pid(instance=inst, pid=int(sys.argv[1]), fork=True)
        strobe.iterate_trace(instance=inst, callback=show, timeout=timeout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
