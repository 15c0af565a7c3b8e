"""test_analysis.py - strobe.Analysis on the trace files kept in the fuzz
corpus (no root needed): fed every event of read_trace it finishes with
analyze()'s tables; cut at a third and two thirds of a recording (snapshot
and reset), its three intervals add up to analyze()'s tables row by row;
snapshots alone change nothing; and its errors."""
import glob
import os

import pytest

import strobe
from conftest import ROOT

FILES = sorted(set(os.path.basename(p) for p in
                   glob.glob(os.path.join(ROOT, "tests/fuzz/corpus/fuzz_*/v[67]-*.dat"))))
ANALYSES = ["cputop", "syscalls", "schedlat", "io", "irq", "mem"]
VIEWS = ["top", "stats", "freq"]

# columns that add up over intervals; min and max combine
SUMS = {"count", "total", "errors", "cpu_time", "busy", "read_bytes", "write_bytes",
        "reads", "writes", "bytes", "direct_bytes", "writeback_bytes", "charged_bytes",
        "unattributed_bytes", "unknown_dirtier_bytes", "lost_events_bytes", "requests",
        "alloc_pages", "free_pages", "alloc_bytes", "free_bytes", "allocs", "frees",
        "switches", "faults"}
# tables whose rows are single measurements, not sums
RANKINGS = {"schedlat.top", "periods.top", "periods.open"}


# Recordings of real kernels.  The tracefile fixtures' pages repeat one
# switch whose prev is never the task switched in before: the one case
# where a snapshot charges a running task time one run does not
# (strobe-analysis(3)), which no kernel records.
RECORDINGS = [n for n in FILES if "sched" in n or "presets" in n or "cut" in n]


def path_of(name):
    return sorted(glob.glob(os.path.join(ROOT, "tests/fuzz/corpus/fuzz_*", name)))[0]


def usable(name):
    """The files analyze() reads without an error."""
    try:
        strobe.analyze(path_of(name), ANALYSES)
        return True
    except (OSError, ValueError):
        return False


def events(name):
    return list(strobe.read_trace(path_of(name)))


def same_tables(got, want):
    assert set(got) == set(want)
    for t in want:
        assert len(got[t]) == len(want[t]), t
        for a, b in zip(got[t], want[t]):
            assert a.keys() == b.keys()
            for k in a:
                assert a[k] == (pytest.approx(b[k], abs=1e-4) if isinstance(b[k], float)
                                else b[k]), (t, k)


def facts(tables):
    """{(table, key cells, column): value} of the columns that add up.  A
    thread's row names it as known when the row was made in its interval
    (an exec renames it, its process id may be learnt later): such rows
    are keyed by the thread id alone."""
    out = {}
    for t, rows in tables.items():
        if t in RANKINGS or t.endswith(".freq"):
            continue
        for r in rows:
            names = ("comm", "pid", "container") if "tid" in r else ()
            key = tuple(sorted((k, v) for k, v in r.items()
                               if k not in SUMS and not isinstance(v, float)
                               and k not in names + ("min", "max", "avg", "stddev")))
            for k, v in r.items():
                if k in SUMS:
                    out[(t, key, k)] = out.get((t, key, k), 0) + v
                elif k == "min":
                    out[(t, key, k)] = min(out.get((t, key, k), v), v)
                elif k == "max":
                    out[(t, key, k)] = max(out.get((t, key, k), v), v)
    return out


@pytest.mark.parametrize("name", FILES)
def test_analysis_fed_every_event_finishes_with_analyzes_tables(name):
    if not usable(name):
        pytest.skip("analyze() refuses this file")
    an = strobe.Analysis(ANALYSES, top=0, views=VIEWS)
    for ev in strobe.read_trace(path_of(name)):
        an.feed(ev)
    same_tables(an.finish(), strobe.analyze(path_of(name), ANALYSES, top=0, views=VIEWS))


@pytest.mark.parametrize("name", RECORDINGS)
def test_three_intervals_add_up_to_the_whole_file(name):
    if not usable(name):
        pytest.skip("analyze() refuses this file")
    evs = events(name)
    cuts = [evs[len(evs) // 3].ts + 1, evs[2 * len(evs) // 3].ts + 1]
    an = strobe.Analysis(ANALYSES, top=0, views=["top", "stats"])
    parts, windows = [], []
    for ev in evs:
        while len(parts) < 2 and ev.ts > cuts[len(parts)]:
            parts.append(an.snapshot(cuts[len(parts)]))
            windows.append(an.window)
            an.reset(cuts[len(parts) - 1])
        an.feed(ev)
    parts.append(an.finish())
    windows.append(an.window)
    assert windows[0] == (evs[0].ts, cuts[0])
    assert windows[1] == (cuts[0], cuts[1])
    assert windows[2] == (cuts[1], evs[-1].ts)
    whole = strobe.analyze(path_of(name), ANALYSES, top=0, views=["top", "stats"])
    summed = {}
    for p in parts:
        assert set(p) == set(whole)         # the same tables in every interval
        for k, v in facts(p).items():
            if k[2] == "min":
                summed[k] = min(summed.get(k, v), v)
            elif k[2] == "max":
                summed[k] = max(summed.get(k, v), v)
            else:
                summed[k] = summed.get(k, 0) + v
    assert summed == facts(whole)


def test_snapshots_alone_change_nothing():
    name = "v6-all-presets-with-table.dat"
    an = strobe.Analysis(ANALYSES, top=0, views=VIEWS)
    for i, ev in enumerate(strobe.read_trace(path_of(name))):
        if i and i % 50 == 0:
            first = an.snapshot(ev.ts - 1)
            assert an.snapshot(ev.ts - 1) == first
        an.feed(ev)
    same_tables(an.finish(), strobe.analyze(path_of(name), ANALYSES, top=0, views=VIEWS))


def test_a_running_task_is_charged_up_to_the_snapshot():
    evs = events("v6-all-presets-with-table.dat")
    an = strobe.Analysis("cputop", top=0)
    for ev in evs[:len(evs) // 2]:
        an.feed(ev)
    t = evs[len(evs) // 2].ts - 1
    early = sum(r["cpu_time"] for r in an.snapshot(t)["cputop.top"])
    later = sum(r["cpu_time"] for r in an.snapshot(t + 1000000)["cputop.top"])
    assert an.window[1] == t + 1000000
    assert later >= early
    assert later - early <= 1000000 * 2     # two CPUs at most


def test_errors():
    evs = events("v6-all-presets-with-table.dat")
    other = next(iter(strobe.read_trace(path_of("v6-sched-syscalls.dat"))))
    with pytest.raises(ValueError):
        strobe.Analysis("nosuch")
    with pytest.raises(ValueError):
        strobe.Analysis("syscalls", group_by="everything")
    an = strobe.Analysis(["syscalls"])
    with pytest.raises(RuntimeError):       # nothing fed yet
        an.snapshot()
    with pytest.raises(RuntimeError):
        an.reset()
    with pytest.raises(TypeError):
        an.feed("sys_enter")
    an.feed(evs[0])
    with pytest.raises(ValueError):         # another file's event
        an.feed(other)
    assert an.snapshot() == {"syscalls.top": [], "syscalls.errors": []}
    assert an.window == (evs[0].ts, evs[0].ts)
    an.finish()
    with pytest.raises(RuntimeError):
        an.feed(evs[1])
    with pytest.raises(RuntimeError):
        an.snapshot()
    with pytest.raises(RuntimeError):
        an.finish()
    mem = strobe.Analysis("mem")
    with pytest.raises(ValueError):         # the file has no kmem events
        mem.feed(other)
