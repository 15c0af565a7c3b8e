"""Linux kernel tracing of processes and containers, from Python.

A thin layer over libstrobe (the C library behind the `strobe` command):
tracing instances, events and kernel filters, following a process and its
children or a container, live events into a Python callback, trace.dat
files, and strobe's analyses returning Python objects.

Live tracing (root), with trace-cruncher's verbs and keyword names:

    import strobe

    def callback(ev):
        print(ev.comm, ev.pid, ev.container, ev["target_cpu"])

    with strobe.create_instance() as inst:
        strobe.enable_event(instance=inst, system="sched", event="sched_wakeup")
        strobe.set_event_filter(instance=inst, system="sched",
                                event="sched_wakeup", filter="prio < 120")
        strobe.hook2pid(instance=inst, pid=1234, fork=True)
        strobe.iterate_trace(instance=inst, callback=callback, timeout=10)

A command traced from its first instruction:

    status = strobe.trace_process(["make", "-j2"], callback,
                                  events=["syscalls:sys_enter_openat"])

Files and analyses:

    for ev in strobe.read_trace("trace.dat"):
        ...
    strobe.analyze("trace.dat", ["syscalls"], group_by="container")
        -> {"syscalls.top": [{"container": "web", "syscall": "read", ...}, ...]}

SQL over a trace, as `strobe sql` (safe=True for a query you did not
write: read-only, no ATTACH or file writes, bounded memory and time):

    strobe.sql("trace.dat", "SELECT comm, count(*) AS n FROM events "
               "GROUP BY comm ORDER BY n DESC LIMIT 3", safe=True)
        -> [{"comm": "make", "n": 81234}, ...]

The same figures per interval (a second of trace time here), from an
Analysis fed the events one by one:

    an = strobe.Analysis(["cputop", "syscalls"], group_by="container")
    end = None
    for ev in strobe.read_trace("trace.dat"):
        end = end or ev.ts + 10**9
        while ev.ts > end:
            print(an.snapshot(end))     # the tables of [end - 1 s, end]
            an.reset(end)               # what is in flight carries over
            end += 10**9
        an.feed(ev)
    print(an.finish())                  # the last interval

A flight recorder (strobe record --flight-recorder): the recent past kept
in memory on a thread of its own, a snapshot file when the program says
something went wrong:

    with strobe.FlightRecorder("web.dat", "16M", containers=["web"]) as rec:
        ...
        if took > 0.5:
            rec.trigger("request %d took %.3f s" % (n, took))
    print(rec.snapshots)    # [{"path": "web.001-...-python.dat", ...}]

Events (strobe.Event): name, system, ts (ns), cpu, pid (the thread ID),
tgid, comm, container (name or short ID; None on the host), ev["field"]
and ev.fields (a dict).  Fields are decoded only when read.  An event is
valid after the callback returns (keep it if you like: only events nobody
kept are reused).

A callback returns strobe.STOP to end the iteration; an exception in it
stops tracing and propagates; Ctrl-C ends the iteration without raising.

Errors: OSError with the errno (PermissionError without root,
ProcessLookupError for a process or container that is gone) and the
library's message; ValueError for an unknown event (naming close ones) or
a filter the kernel refused (with the kernel's error_log text).

Damaged data (strobe-damage(7)) is skipped, as every strobe command
skips it: a reader's diagnostics list what and where, and each diagnostic
is a warning (strobe.DamagedDataWarning for damage, strobe.TraceWarning
for lost events and the like).  strict=True (read_trace, analyze,
iterate_trace, trace_process) raises strobe.DamagedDataError instead:

    import warnings
    reader = strobe.read_trace("trace.dat")
    with warnings.catch_warnings(record=True) as said:
        n = sum(1 for _ in reader)
    print(n, reader.errors, reader.diagnostics)

Instances made by this module are removed when the Instance is destroyed,
leaves a with block, or Python exits, unless created with a name and
detach=True; strobe never changes the top-level tracing instance.

trace-cruncher's modules, for scripts written for it: strobe.compat.ftracepy
and strobe.compat.ft_utils.  `python3 -m strobe --help` lists a few
command-line helpers.
"""
import atexit as _atexit

from . import _strobe
from ._strobe import (
    STOP,
    Analysis,
    DamagedDataError,
    DamagedDataWarning,
    Event,
    FlightRecorder,
    Instance,
    TraceReader,
    TraceWarning,
    analysis_names,
    analyze,
    available_events,
    clear_event_filter,
    create_instance,
    destroy_instance,
    disable_event,
    disable_events,
    enable_event,
    enable_events,
    find_instance,
    hook2container,
    hook2pid,
    is_tracing_ON,
    iterate_trace,
    profile,
    read_trace,
    record,
    set_event_filter,
    sql,
    trace_process,
    tracing_OFF,
    tracing_ON,
)

__version__ = _strobe.version

__all__ = [
    "STOP", "Analysis", "DamagedDataError", "DamagedDataWarning", "Event",
    "FlightRecorder", "Instance",
    "TraceReader", "TraceWarning", "analysis_names", "analyze",
    "available_events", "clear_event_filter", "create_instance",
    "destroy_instance", "disable_event", "disable_events", "enable_event",
    "enable_events", "find_instance", "hook2container", "hook2pid",
    "is_tracing_ON", "iterate_trace", "profile", "read_trace", "record", "set_event_filter",
    "sql",
    "trace_process", "tracing_OFF", "tracing_ON",
]

# Instances this module made go when Python exits (unless detached).
_atexit.register(_strobe._cleanup)
