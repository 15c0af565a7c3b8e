"""test_damage.py - the damage policy (strobe-damage(7)) in the Python
module, on files the tests damage themselves (no root needed): a page
whose header commit word says more than a page is skipped, every other
event is read, the reader's diagnostics name the CPU and the file, and a
strobe.DamagedDataWarning says it; with strict=True the same file raises
strobe.DamagedDataError after the events before the damage.  Damage found
at open (a file cut short) is warned, or raised with strict, before the
first event, and damage known only at the end (time going backwards)
after the last; analyze() follows the same policy.  Several files are read
on one timeline, and the same file given twice is read once with a
notice (a TraceWarning, not damage)."""
import errno
import glob
import importlib.machinery
import importlib.util
import os
import shutil
import struct
import warnings

import pytest

import strobe
from conftest import ROOT


def corpus(name):
    return sorted(glob.glob(os.path.join(ROOT, "tests/fuzz/corpus/fuzz_*", name)))[0]


def make_files():
    """tests/damage/make-files as a module: its v6 layout parser."""
    path = os.path.join(ROOT, "tests", "damage", "make-files")
    loader = importlib.machinery.SourceFileLoader("make_files", path)
    mod = importlib.util.module_from_spec(importlib.util.spec_from_loader("make_files", loader))
    loader.exec_module(mod)
    return mod


def key(ev):
    return (ev.ts, ev.cpu, ev.pid, ev.name, ev.raw)


@pytest.fixture(scope="module")
def damaged(tmp_path_factory):
    """(intact path, damaged path, the intact file's events, the events of
    the damaged page): CPU 0's second page of a recording gets a commit
    word of 0xfff0, as tests/damage/make-files' page-commit-overflow."""
    mf = make_files()
    intact = corpus("v6-sched-syscalls.dat")
    data = bytearray(open(intact, "rb").read())
    layout = mf.v6_layout(bytes(data))
    page, after = mf.page_at(layout, 0, 1), mf.page_at(layout, 0, 2)
    t0, t1 = mf.u("<Q", data, page), mf.u("<Q", data, after)
    data[page + 8:page + 16] = struct.pack("<Q", 0xfff0)
    path = str(tmp_path_factory.mktemp("damage") / "page-commit-overflow.dat")
    with open(path, "wb") as f:
        f.write(data)
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # the intact file: no warning
        events = [key(ev) for ev in strobe.read_trace(intact)]
    lost = [e for e in events if e[1] == 0 and t0 <= e[0] < t1]
    assert lost
    return intact, path, events, lost


def test_a_damaged_page_is_skipped_every_other_event_read_and_said(damaged):
    intact, path, events, lost = damaged
    reader = strobe.read_trace(path)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        got = [key(ev) for ev in reader]
    assert got == [e for e in events if e not in lost]
    assert reader.errors == 1
    assert len(reader.diagnostics) == 1
    d = reader.diagnostics[0]
    assert d["kind"] == "bad_data" and d["source"] == path
    assert "damaged data was skipped: 1 page" in d["message"]
    assert "cpu 0: bad ring-buffer page" in d["message"]
    w = [x for x in said if issubclass(x.category, strobe.TraceWarning)]
    assert len(w) == 1 and w[0].category is strobe.DamagedDataWarning
    assert str(w[0].message) == d["message"]
    assert w[0].message.diagnostic == d
    assert w[0].filename == __file__           # the caller's line, not the module's


def test_strict_raises_after_the_events_before_the_damage(damaged):
    intact, path, events, lost = damaged
    got = []
    with pytest.raises(strobe.DamagedDataError) as e:
        for ev in strobe.read_trace(path, strict=True):
            got.append(key(ev))
    assert isinstance(e.value, OSError) and e.value.errno == errno.EBADMSG
    assert "damaged data (strict)" in str(e.value) and "cpu 0" in str(e.value)
    assert path in str(e.value)
    # the events before the damage, as the default reader gives them
    assert 0 < len(got) < len(events) - len(lost)
    assert got == [e for e in events if e not in lost][:len(got)]


def test_analyze_skips_the_damaged_page_with_a_warning_and_strict_raises(damaged):
    intact, path, events, lost = damaged
    with pytest.warns(strobe.DamagedDataWarning, match="cpu 0: bad ring-buffer page"):
        tables = strobe.analyze(path, ["syscalls"], top=0)
    assert "syscalls.top" in tables
    with pytest.raises(strobe.DamagedDataError, match="cpu 0"):
        strobe.analyze(path, ["syscalls"], strict=True)


def test_a_file_cut_short_is_said_at_open_and_strict_refuses_it():
    cut = corpus("v6-cut-in-cpu-data.dat")
    with pytest.warns(strobe.DamagedDataWarning, match="truncated"):
        reader = strobe.read_trace(cut)         # before the first event
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # said once, not again at the end
        n = sum(1 for _ in reader)
    assert n > 0
    assert "truncated" in {d["kind"] for d in reader.diagnostics}
    with pytest.raises(strobe.DamagedDataError, match="truncated"):
        strobe.read_trace(cut, strict=True)
    with pytest.raises(strobe.DamagedDataError, match="truncated"):
        strobe.analyze(cut, ["cputop"], strict=True)


def test_time_going_backwards_is_said_at_the_end_and_strict_raises_there(tmp_path):
    mf = make_files()
    data = bytearray(open(corpus("v6-sched-syscalls.dat"), "rb").read())
    layout = mf.v6_layout(bytes(data))
    page = mf.page_at(layout, 0, 2)
    data[page:page + 8] = struct.pack("<Q", mf.u("<Q", data, page) - 50_000_000)
    path = str(tmp_path / "page-ts-backwards.dat")
    with open(path, "wb") as f:
        f.write(data)
    with pytest.warns(strobe.DamagedDataWarning, match="time went backwards"):
        n = sum(1 for _ in strobe.read_trace(path))
    seen = [0]
    with pytest.raises(strobe.DamagedDataError, match="time went backwards"):
        for _ in strobe.read_trace(path, strict=True):
            seen[0] += 1
    assert seen[0] == n                         # every event, then the error
    with pytest.raises(strobe.DamagedDataError, match="time went backwards"):
        strobe.analyze(path, ["cputop"], strict=True)


def test_a_warning_filter_can_make_damage_an_error(damaged):
    intact, path, events, lost = damaged
    with warnings.catch_warnings():
        warnings.simplefilter("error", strobe.DamagedDataWarning)
        with pytest.raises(strobe.DamagedDataWarning):
            for _ in strobe.read_trace(path):
                pass


def test_several_files_on_one_timeline_and_the_same_file_twice_read_once(damaged, tmp_path):
    intact, path, events, lost = damaged
    other = corpus("v6-all-presets-with-table.dat")
    link = str(tmp_path / "link.dat")
    os.symlink(intact, link)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        reader = strobe.read_trace([intact, link])
        got = [key(ev) for ev in reader]
    assert got == events
    assert [d["kind"] for d in reader.diagnostics] == ["same_file"]
    assert "read once" in reader.diagnostics[0]["message"]
    assert [x.category for x in said] == [strobe.TraceWarning]

    alone = sorted(key(ev) for ev in strobe.read_trace(other))
    merged = list(strobe.read_trace([intact, other]))
    assert [ev.ts for ev in merged] == sorted(ev.ts for ev in merged)
    assert sorted(key(ev) for ev in merged) == sorted(events + alone)


def test_a_copy_of_the_file_is_not_the_same_file(damaged, tmp_path):
    intact, path, events, lost = damaged
    copy = str(tmp_path / "copy.dat")
    shutil.copy(intact, copy)
    n = sum(1 for _ in strobe.read_trace([intact, copy]))
    assert n == 2 * len(events)
