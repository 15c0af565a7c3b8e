#!/usr/bin/env python3
"""container_syscalls.py [SECONDS] - system calls per container, live, for
SECONDS (default 5) or until Ctrl-C: count, errors and latency of each
system call of each container (and of the host), from strobe's syscalls
analysis run on a live instance.  Needs root.

    sudo PYTHONPATH=build/python examples/container_syscalls.py 10
"""
import sys

import strobe


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 5.0
    with strobe.create_instance(tracing_on=False) as inst:
        strobe.enable_events(instance=inst, systems=["raw_syscalls", "sched"],
                             events=[["sys_enter", "sys_exit"],
                                     ["sched_process_fork", "sched_process_exec",
                                      "sched_process_exit"]])
        tables = strobe.analyze(inst, ["syscalls"], group_by="container", top=20,
                                timeout=seconds)
    if not any(tables.values()):
        print("no system call ended in %g s" % seconds)
        return 0
    for name, rows in tables.items():
        if not rows:
            continue
        print("== %s" % name)
        keys = list(rows[0])
        print("  ".join("%14s" % k for k in keys))
        for row in rows:
            print("  ".join("%14s" % row[k] for k in keys))
    return 0


if __name__ == "__main__":
    sys.exit(main())
