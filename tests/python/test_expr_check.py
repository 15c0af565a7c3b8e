"""filter= is checked against what the trace holds before the first event
(strobe-expr(7) CHECKS), as the CLI's --filter: a field no event has, or a
value of the wrong kind, is a ValueError naming --filter and the column;
an event name the trace lacks is not an error (a warning: a note)."""
import os

import pytest

import strobe
from conftest import ROOT

TRACE = os.path.join(ROOT, "tests/fuzz/corpus/fuzz_stream/v6-sched-syscalls.dat")


@pytest.mark.parametrize("expr,msg", [
    ("$evt.TID == 1",
     "--filter '$evt.TID == 1': column 1: no field 'TID' in any event it can match; "
     "did you mean 'tid'?"),
    # (the file's sys_enter_openat format gives raw_syscalls records their
    # argument names: the table is there, the name is in no event)
    ("$evt.nosuchfield == 1",
     "--filter '$evt.nosuchfield == 1': column 1: no field 'nosuchfield' in any event it "
     "can match"),
    ('$evt.tid == "1"',
     "--filter '$evt.tid == \"1\"': column 13: $evt.tid is a number: compare it with a "
     "number, not the string \"1\""),
    ('$evt.tid =* "1*"',
     "--filter '$evt.tid =* \"1*\"': column 13: '=*' matches strings, and $evt.tid is a "
     "number: compare it with ==, <, ... and a number"),
])
def test_filter_with_a_bad_field_or_kind_is_a_value_error(expr, msg):
    with pytest.raises(ValueError) as e:
        strobe.analyze(TRACE, ["syscalls"], filter=expr)
    assert str(e.value) == msg
    with pytest.raises(ValueError) as e:        # in a list too
        strobe.analyze(TRACE, ["cputop"], filter=["$evt.tid > 0", expr])
    assert str(e.value) == msg


def test_filter_with_an_unknown_event_is_not_an_error():
    got = strobe.analyze(TRACE, ["syscalls"], filter='$evt.$name == "sched_swtich"')
    assert got["syscalls.top"] == [] if "syscalls.top" in got else isinstance(got, dict)


def test_a_filter_the_trace_satisfies_runs():
    got = strobe.analyze(TRACE, ["syscalls"],
                         filter='$evt.$name == "sys_enter" || $evt.prev_comm =* "s*"')
    assert isinstance(got, dict)
