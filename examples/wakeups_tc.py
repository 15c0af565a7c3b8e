#!/usr/bin/env python3
"""wakeups_tc.py PID - the wake-up watcher as a trace-cruncher script: only
its imports changed (tracecruncher.* -> strobe.compat.*).  Prints every
sched_wakeup of PID and its children until Ctrl-C.  Needs root."""
import sys

import strobe.compat.ftracepy as ft
import strobe.compat.ft_utils as tc

tep = tc.local_tep()
wakeup = tc.event('sched', 'sched_wakeup')


def callback(event, record):
    print(event.name, tep.print_process(event, record), tep.print_info(event, record),
          flush=True)


if __name__ == '__main__':
    inst = ft.create_instance(tracing_on=False)
    wakeup.enable(instance=inst)
    wakeup.set_filter(instance=inst, filter='prio < 140')
    ft.hook2pid(instance=inst, pid=int(sys.argv[1]), fork=True)
    ft.tracing_ON(instance=inst)
    print('Ready to trace ...', flush=True)
    ft.iterate_trace(instance=inst, callback='callback')
