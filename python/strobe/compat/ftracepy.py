"""strobe.compat.ftracepy - trace-cruncher's `ftracepy` verbs on strobe.

The verbs keep trace-cruncher's names and keywords and go to strobe's own
(create_instance, enable_event, set_event_filter, hook2pid, tracing_ON,
iterate_trace ...).  Differences: an instance is always needed (strobe never
changes the top-level instance), kprobes and the other tracers are not
offered, and iterate_trace's callback may be given by name, looked up in
__main__, and is called as callback(event, record) like trace-cruncher's:
`event` describes the event type (id(), name, system, parse_record_field(),
get_pid()), `record` is the strobe.Event itself.  Event ids are strobe's
(equal for equal "system:name"), not the kernel's.
"""
import sys as _sys
import zlib as _zlib

import strobe as _strobe
from strobe import (  # noqa: F401  (re-exported under trace-cruncher's names)
    STOP,
    clear_event_filter,
    destroy_instance,
    disable_event,
    disable_events,
    enable_event,
    enable_events,
    find_instance,
    hook2container,
    hook2pid,
    is_tracing_ON,
    set_event_filter,
    tracing_OFF,
    tracing_ON,
)


def event_id(system, name):
    """strobe's id of an event: the same number for the same system:name."""
    return _zlib.crc32(("%s:%s" % (system, name)).encode()) & 0x7FFFFFFF


def create_instance(name=None, tracing_on=True, detach=False):
    """create_instance(name=None, tracing_on=True, detach=False) -> instance"""
    return _strobe.create_instance(name=name, tracing_on=tracing_on, detach=detach)


def dir():  # noqa: A001  (trace-cruncher's name)
    """The tracefs mount point."""
    return "/sys/kernel/tracing"


class tep_event:
    """One event type, as trace-cruncher hands it to callbacks."""

    def __init__(self, system, name):
        self.system = system
        self.name = name
        self._id = event_id(system, name)

    def id(self):
        return self._id

    def parse_record_field(self, record, field):
        """A field's value in record (a strobe.Event)."""
        return record[field]

    def get_pid(self, record):
        return record.pid

    def get_cpu(self, record):
        return record.cpu

    def __str__(self):
        return "%s/%s" % (self.system, self.name)

    __repr__ = __str__


_types = {}


def _tep_event(ev):
    key = (ev.system, ev.name)
    t = _types.get(key)
    if t is None:
        t = _types[key] = tep_event(ev.system, ev.name)
    return t


class tep_handle:
    """trace-cruncher's event-format handle: formats come with the events."""

    def init_local(self, dir=None, systems=None):  # noqa: A002
        pass

    def get_event(self, system, name):
        return tep_event(system, name)

    def print_process(self, event, record):
        """"comm-pid", as report prints it."""
        return "%s-%d" % (record.comm or "<...>", record.pid)

    def print_info(self, event, record):
        """The event's fields, "name=value ..."."""
        return " ".join("%s=%s" % kv for kv in record.fields.items())


def iterate_trace(instance=None, callback="callback", callback_args=None, timeout=None):
    """iterate_trace(instance, callback='callback') - callback(event, record)
    for every event until Ctrl-C (or the callback returns strobe.STOP)."""
    if isinstance(callback, str):
        main = _sys.modules["__main__"]
        fn = getattr(main, callback, None)
        if fn is None:
            raise ValueError("no function '%s' in __main__" % callback)
    elif callable(callback):
        fn = callback
    else:
        raise TypeError("iterate_trace() argument 'callback' must be callable or the name "
                        "of a function in __main__, not %s" % type(callback).__name__)

    def call(ev):
        return fn(_tep_event(ev), ev)

    return _strobe.iterate_trace(instance=instance, callback=call, timeout=timeout)


def _unsupported(what):
    def f(*args, **kw):
        raise NotImplementedError("%s is not offered by strobe's trace-cruncher "
                                  "compatibility (tracepoints only)" % what)
    return f


register_kprobe = _unsupported("register_kprobe")
unregister_kprobe = _unsupported("unregister_kprobe")
set_current_tracer = _unsupported("set_current_tracer")
