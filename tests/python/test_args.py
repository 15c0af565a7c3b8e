"""test_args.py - every public function and method of the module, called
with each kind of bad argument its parameters can get (a wrong type, a
string holding a NUL, a number out of range, a wrong item in a list),
answers with the exception a Python user expects, and its message names
the function and the argument.  No root needed: every argument is checked
before anything is traced, so instance functions are called with
instance=None for their other arguments.  A last test checks that the
table covers every public callable of the module."""
import glob
import math
import os

import pytest

import strobe
from conftest import ROOT

F = sorted(glob.glob(os.path.join(ROOT, "tests/fuzz/corpus/fuzz_*/v7-zstd-sched-syscalls.dat")))[0]
PERIOD = 'rd : $evt.$name == "sys_enter_read" : $evt.$name == "sys_exit_read"'

# Bad values by the kind of parameter: (value, exception, what the
# message says beyond the argument's name)
STR = [(3, TypeError, "must be a str"), (b"x", TypeError, "must be a str"),
       ("a\0b", ValueError, "holds a NUL character")]
OPT_STR = [(3, TypeError, "must be a str or None"), ("a\0b", ValueError, "NUL")]
PATH = [(3, TypeError, "must be a path"), ("x\0y", ValueError, "NUL"),
        (b"x\0y", ValueError, "NUL")]
STRS = [(3, TypeError, "must be a str or a list of str"),
        (["x\0y"], ValueError, "item 0 holds a NUL"),
        ({"a": 1}, TypeError, "list of str")]
STR_ITEMS = [(["ok", 3], TypeError, "item 1 must be a str, not int")]
LIST_STRS = [("sched", TypeError, "must be a list of str"), ([3], TypeError, "item 0"),
             (["a\0b"], ValueError, "NUL")]
INT = [("1", TypeError, "must be an int"), (1.5, TypeError, "must be an int"),
       (True, TypeError, "must be an int"), (-1, ValueError, "must be from"),
       (2 ** 70, ValueError, "must be from")]
BOOL = [("yes", TypeError, "must be a bool"), (2, TypeError, "must be a bool"),
        (None, TypeError, "must be a bool")]
SECONDS = [("x", TypeError, "number of seconds"), (True, TypeError, "number of seconds"),
           (-1, ValueError, "from 0 to 1e9"), (math.nan, ValueError, "from 0 to 1e9"),
           (math.inf, ValueError, "from 0 to 1e9"), (2 ** 2000, ValueError, "from 0 to 1e9")]
CALLABLE = [(3, TypeError, "must be callable")]
INSTANCE = [(3, TypeError, "must be a strobe.Instance"),
            ("x", TypeError, "must be a strobe.Instance")]


def analysis():
    return strobe.Analysis("syscalls")


# (function as named in messages, argument, its kinds of bad values,
#  a call taking the bad value)
TABLE = [
    ("FlightRecorder", "output", PATH, lambda v: strobe.FlightRecorder(v)),
    ("FlightRecorder", "pid", INT, lambda v: strobe.FlightRecorder("x.dat", pid=v)),
    ("FlightRecorder", "post", SECONDS, lambda v: strobe.FlightRecorder("x.dat", post=v)),
    ("FlightRecorder", "min_interval", SECONDS,
     lambda v: strobe.FlightRecorder("x.dat", min_interval=v)),
    ("FlightRecorder", "max_snapshots", INT,
     lambda v: strobe.FlightRecorder("x.dat", max_snapshots=v)),
    ("FlightRecorder", "events", STRS, lambda v: strobe.FlightRecorder("x.dat", events=v)),
    ("available_events", "pattern", OPT_STR, lambda v: strobe.available_events(v)),
    ("create_instance", "name", OPT_STR, lambda v: strobe.create_instance(name=v)),
    ("create_instance", "tracing_on", BOOL,
     lambda v: strobe.create_instance(tracing_on=v)),
    ("create_instance", "detach", BOOL, lambda v: strobe.create_instance(detach=v)),
    ("find_instance", "name", STR, lambda v: strobe.find_instance(v)),
    ("destroy_instance", "instance", INSTANCE, lambda v: strobe.destroy_instance(v)),
    ("enable_event", "instance", INSTANCE, lambda v: strobe.enable_event(v, "sched")),
    ("enable_event", "system", OPT_STR, lambda v: strobe.enable_event(None, v)),
    ("enable_event", "event", OPT_STR, lambda v: strobe.enable_event(None, "sched", v)),
    ("disable_event", "instance", INSTANCE, lambda v: strobe.disable_event(v, "sched")),
    ("disable_event", "system", OPT_STR, lambda v: strobe.disable_event(None, v)),
    ("disable_event", "event", OPT_STR, lambda v: strobe.disable_event(None, "sched", v)),
    ("set_event_filter", "instance", INSTANCE,
     lambda v: strobe.set_event_filter(v, "sched", "sched_switch", "prev_pid == 1")),
    ("set_event_filter", "system", OPT_STR,
     lambda v: strobe.set_event_filter(None, v, "sched_switch", "prev_pid == 1")),
    ("set_event_filter", "event", OPT_STR,
     lambda v: strobe.set_event_filter(None, "sched", v, "prev_pid == 1")),
    ("set_event_filter", "filter", OPT_STR,
     lambda v: strobe.set_event_filter(None, "sched", "sched_switch", v)),
    ("clear_event_filter", "instance", INSTANCE,
     lambda v: strobe.clear_event_filter(v, "sched", "sched_switch")),
    ("clear_event_filter", "event", OPT_STR,
     lambda v: strobe.clear_event_filter(None, "sched", v)),
    ("enable_events", "instance", INSTANCE, lambda v: strobe.enable_events(v, ["sched"])),
    ("enable_events", "systems", LIST_STRS, lambda v: strobe.enable_events(None, v)),
    ("enable_events", "events[0]", LIST_STRS,
     lambda v: strobe.enable_events(None, ["sched"], [v])),
    ("disable_events", "systems", LIST_STRS, lambda v: strobe.disable_events(None, v)),
    ("disable_events", "events[0]", LIST_STRS,
     lambda v: strobe.disable_events(None, ["sched"], [v])),
    ("hook2pid", "instance", INSTANCE, lambda v: strobe.hook2pid(v, 1)),
    ("hook2pid", "pid", [("1", TypeError, "must be an int or a list of int"),
                         (True, TypeError, "must be an int or a list of int"),
                         (0, ValueError, "must be from 1 to"),
                         (2 ** 40, ValueError, "must be from 1 to")],
     lambda v: strobe.hook2pid(None, v)),
    ("hook2pid", "pid[1]", [("1", TypeError, "must be an int"),
                            (-5, ValueError, "must be from 1 to")],
     lambda v: strobe.hook2pid(None, [1, v])),
    ("hook2pid", "fork", BOOL, lambda v: strobe.hook2pid(None, 1, fork=v)),
    ("hook2container", "instance", INSTANCE, lambda v: strobe.hook2container(v, "web")),
    ("hook2container", "container", STR, lambda v: strobe.hook2container(None, v)),
    ("tracing_ON", "instance", INSTANCE, lambda v: strobe.tracing_ON(v)),
    ("tracing_OFF", "instance", INSTANCE, lambda v: strobe.tracing_OFF(v)),
    ("is_tracing_ON", "instance", INSTANCE, lambda v: strobe.is_tracing_ON(v)),
    ("iterate_trace", "instance", INSTANCE, lambda v: strobe.iterate_trace(v, print)),
    ("iterate_trace", "callback", CALLABLE, lambda v: strobe.iterate_trace(None, v)),
    ("iterate_trace", "timeout", SECONDS,
     lambda v: strobe.iterate_trace(None, print, timeout=v)),
    ("iterate_trace", "strict", BOOL, lambda v: strobe.iterate_trace(None, print, strict=v)),
    ("trace_process", "argv", [("true", TypeError, "must be a list of str"),
                               ([], ValueError, "is empty")],
     lambda v: strobe.trace_process(v)),
    ("trace_process", "argv[1]", PATH, lambda v: strobe.trace_process(["true", v])),
    ("trace_process", "callback", CALLABLE, lambda v: strobe.trace_process(["true"], v)),
    ("trace_process", "events", LIST_STRS, lambda v: strobe.trace_process(["true"], events=v)),
    ("trace_process", "filters", [(["x"], TypeError, "must be a dict"),
                                  ({3: "x"}, TypeError, "keys must be str"),
                                  ({"sched": 3}, TypeError, "must be a str"),
                                  ({"sched": "a\0b"}, ValueError, "NUL"),
                                  ({"sch\0ed": "a"}, ValueError, "NUL")],
     lambda v: strobe.trace_process(["true"], filters=v)),
    ("trace_process", "timeout", SECONDS, lambda v: strobe.trace_process(["true"], timeout=v)),
    ("trace_process", "strict", BOOL, lambda v: strobe.trace_process(["true"], strict=v)),
    ("read_trace", "path", PATH + [([], ValueError, "empty list")],
     lambda v: strobe.read_trace(v)),
    ("read_trace", "path[1]", PATH, lambda v: strobe.read_trace([F, v])),
    ("read_trace", "strict", BOOL, lambda v: strobe.read_trace(F, strict=v)),
    ("analyze", "source", [(3, TypeError, "must be a trace file's path or a strobe.Instance"),
                           ("x\0y", ValueError, "NUL")],
     lambda v: strobe.analyze(v, "syscalls")),
    ("analyze", "analyses", STRS + STR_ITEMS, lambda v: strobe.analyze(F, v)),
    ("analyze", "group_by", STR + [("nope", ValueError, "thread, process, container or cpu")],
     lambda v: strobe.analyze(F, "syscalls", group_by=v)),
    ("analyze", "top", INT, lambda v: strobe.analyze(F, "syscalls", top=v)),
    ("analyze", "views", STRS + STR_ITEMS + [("top,nope", ValueError, "top, stats and freq")],
     lambda v: strobe.analyze(F, "syscalls", views=v)),
    ("analyze", "timeout", SECONDS, lambda v: strobe.analyze(F, "syscalls", timeout=v)),
    ("analyze", "filter", STRS + STR_ITEMS, lambda v: strobe.analyze(F, "syscalls", filter=v)),
    ("analyze", "strict", BOOL, lambda v: strobe.analyze(F, "syscalls", strict=v)),
    ("analyze", "periods", STRS + STR_ITEMS, lambda v: strobe.analyze(F, "periods", periods=v)),
    ("analyze", "period_captures", STRS + STR_ITEMS,
     lambda v: strobe.analyze(F, "periods", periods=PERIOD, period_captures=v)),
    ("profile", "source", PATH, lambda v: strobe.profile(v)),
    ("profile", "argv", LIST_STRS[1:] + [(3, TypeError, "list of str"),
                                        ([], ValueError, "empty list")],
     lambda v: strobe.profile(argv=v)),
    ("profile", "pid", INT + [(0, ValueError, "must be from")], lambda v: strobe.profile(pid=v)),
    ("profile", "container", OPT_STR + [("", ValueError, "must name a container")],
     lambda v: strobe.profile(container=v)),
    ("profile", "duration", SECONDS, lambda v: strobe.profile(duration=v)),
    ("profile", "freq", INT + [(0, ValueError, "must be from"), (100001, ValueError, "must be from")],
     lambda v: strobe.profile(freq=v)),
    ("profile", "group_by", STR + [("nope", ValueError, "container, process, thread or none")],
     lambda v: strobe.profile(F, group_by=v)),
    ("profile", "kernel", BOOL, lambda v: strobe.profile(F, kernel=v)),
    ("profile", "top", INT, lambda v: strobe.profile(F, top=v)),
    ("record", "output", PATH + [("", ValueError, "must name a file")],
     lambda v: strobe.record(v, argv=["true"])),
    ("record", "argv", LIST_STRS[1:] + [(3, TypeError, "list of str"),
                                       ([], ValueError, "empty list")],
     lambda v: strobe.record("x.dat", argv=v)),
    ("record", "pid", INT + [(0, ValueError, "must be from")],
     lambda v: strobe.record("x.dat", pid=v)),
    ("record", "container", OPT_STR + [("", ValueError, "must name a container")],
     lambda v: strobe.record("x.dat", container=v)),
    ("record", "events", STRS + STR_ITEMS + [([], ValueError, "empty list")],
     lambda v: strobe.record("x.dat", argv=["true"], events=v)),
    ("record", "duration", SECONDS, lambda v: strobe.record("x.dat", argv=["true"], duration=v)),
    ("record", "uprobes", STRS + STR_ITEMS,
     lambda v: strobe.record("x.dat", argv=["true"], uprobes=v)),
    ("record", "usdt", STRS + STR_ITEMS,
     lambda v: strobe.record("x.dat", argv=["true"], usdt=v)),
    ("record", "profile", INT + [(0, ValueError, "must be from"),
                                 (100001, ValueError, "must be from")],
     lambda v: strobe.record("x.dat", argv=["true"], profile=v)),
    ("Analysis", "analyses", STRS + STR_ITEMS, lambda v: strobe.Analysis(v)),
    ("Analysis", "group_by", STR, lambda v: strobe.Analysis("syscalls", group_by=v)),
    ("Analysis", "top", INT, lambda v: strobe.Analysis("syscalls", top=v)),
    ("Analysis", "views", STRS + STR_ITEMS, lambda v: strobe.Analysis("syscalls", views=v)),
    ("Analysis", "filter", STRS + STR_ITEMS, lambda v: strobe.Analysis("syscalls", filter=v)),
    ("Analysis", "periods", STRS + STR_ITEMS, lambda v: strobe.Analysis("periods", periods=v)),
    ("Analysis.feed", "event", [(3, TypeError, "must be a strobe.Event"),
                                (None, TypeError, "must be a strobe.Event")],
     lambda v: analysis().feed(v)),
    ("Analysis.snapshot", "ts", INT[:3] + [(-1, ValueError, "must be from 0"),
                                           (2 ** 64, ValueError, "must be from 0")],
     lambda v: analysis().snapshot(v)),
    ("Analysis.reset", "ts", INT[:3] + [(-1, ValueError, "must be from 0")],
     lambda v: analysis().reset(v)),
    ("sql", "source", PATH + [([], ValueError, "empty list")],
     lambda v: strobe.sql(v, "SELECT 1")),
    ("sql", "source[1]", PATH, lambda v: strobe.sql([F, v], "SELECT 1")),
    ("sql", "query", STR, lambda v: strobe.sql(F, v)),
    ("sql", "db", PATH, lambda v: strobe.sql(F, "SELECT 1", db=v)),
    ("sql", "analyses", STRS + STR_ITEMS, lambda v: strobe.sql(F, "SELECT 1", analyses=v)),
    ("sql", "logs", BOOL, lambda v: strobe.sql(F, "SELECT 1", logs=v)),
    ("sql", "rebuild", BOOL, lambda v: strobe.sql(F, "SELECT 1", rebuild=v)),
    ("sql", "safe", BOOL, lambda v: strobe.sql(F, "SELECT 1", safe=v)),
    ("sql", "timeout", SECONDS + [(0, ValueError, "above 0")],
     lambda v: strobe.sql(F, "SELECT 1", timeout=v)),
    ("sql", "strict", BOOL, lambda v: strobe.sql(F, "SELECT 1", strict=v)),
]

CASES = [pytest.param(fn, arg, value, exc, says, call,
                      id="%s-%s-%s" % (fn, arg, ascii(value)[:24]))
         for fn, arg, kinds, call in TABLE for value, exc, says in kinds]


@pytest.mark.parametrize("fn,arg,value,exc,says,call", CASES)
def test_bad_argument_is_named(fn, arg, value, exc, says, call):
    with pytest.raises(exc) as e:
        call(value)
    msg = str(e.value)
    assert type(e.value) is exc, msg
    assert msg.startswith("%s()" % fn), msg
    assert "argument '%s'" % arg in msg, msg
    assert says in msg, msg


def test_every_public_callable_is_in_the_table():
    """The table names every function of strobe (and every method of
    Analysis that takes an argument); the types that cannot be made from
    Python, and the functions without arguments, are listed apart."""
    without_args = {"analysis_names"}
    not_made_here = {"Event", "Instance", "TraceReader", "DamagedDataError",
                     "DamagedDataWarning", "TraceWarning"}
    named = {fn for fn, _, _, _ in TABLE}
    public = {n for n in strobe.__all__ if callable(getattr(strobe, n))}
    missing = public - named - without_args - not_made_here
    assert not missing, "no argument checks tested for %s" % sorted(missing)
    methods = {"Analysis." + m for m in ("feed", "snapshot", "reset")}
    assert methods <= named


def test_types_not_made_from_python_say_so():
    for t in (strobe.Event, strobe.Instance, strobe.TraceReader):
        with pytest.raises(TypeError):
            t()


def test_a_filter_with_a_nul_is_refused_not_cut_short():
    """Before, the NUL ended the expression in C: '$evt.tid == 1\\0 || 1'
    was '$evt.tid == 1' and matched nothing, silently."""
    with pytest.raises(ValueError, match=r"analyze\(\) argument 'filter' holds a NUL"):
        strobe.analyze(F, "syscalls", filter="$evt.tid > 0\0 && $evt.tid == 1")


def test_periods_without_definitions_says_so_and_with_them_runs():
    with pytest.raises(ValueError, match="the periods analysis needs period definitions"):
        strobe.analyze(F, ["periods"])
    with pytest.raises(ValueError, match="for the periods analysis"):
        strobe.analyze(F, ["syscalls"], periods=PERIOD)
    one = strobe.analyze(F, ["periods"], periods=PERIOD, top=0)
    listed = strobe.analyze(F, ("periods",), periods=(PERIOD,), top=0)
    assert one == listed
    assert set(one) >= {"periods.stats"}


def test_profile_takes_one_target():
    with pytest.raises(ValueError, match=r"profile\(\) takes one of source, argv, pid"):
        strobe.profile(F, pid=1)
    with pytest.raises(ValueError, match=r"'duration' is for live sampling"):
        strobe.profile(F, duration=1)


def test_profile_of_a_file_without_samples_is_an_oserror_saying_how():
    with pytest.raises(FileNotFoundError, match="strobe record --profile"):
        strobe.profile(F)


def test_good_arguments_still_work():
    """The checks refuse only what is wrong: bools as 0/1, path-likes,
    tuples, a views string, None where None is allowed."""
    import pathlib
    assert strobe.analyze(pathlib.Path(F), ("syscalls",), group_by="process", top=0,
                          views="top,stats", timeout=None, filter=None, strict=0)
    assert sum(1 for _ in strobe.read_trace([pathlib.Path(F)], strict=False)) > 0
    assert strobe.sql(F, "SELECT 1 AS one", analyses=[], timeout=5, safe=1) == [{"one": 1}]
