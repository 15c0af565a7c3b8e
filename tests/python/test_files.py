"""test_files.py - read_trace and analyze on the trace files kept in the
fuzz corpus (no root needed): v6, v7 uncompressed and v7 with zstd, a
recording with strobe's process table, and one cut short inside a CPU's
data.  Whatever `strobe report --json` prints, read_trace yields, value
for value; analyze returns the tables the CLI prints with --json."""
import glob
import json
import os
import subprocess

import pytest

import strobe
from conftest import ROOT, STROBE

FILES = sorted(set(os.path.basename(p) for p in
                   glob.glob(os.path.join(ROOT, "tests/fuzz/corpus/fuzz_*/v[67]-*.dat"))))


def path_of(name):
    return sorted(glob.glob(os.path.join(ROOT, "tests/fuzz/corpus/fuzz_*", name)))[0]


@pytest.mark.parametrize("name", FILES)
def test_read_trace_equals_report_json(name):
    f = path_of(name)
    p = subprocess.run([STROBE, "report", "--json", f], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True)
    lines = [json.loads(line) for line in p.stdout.splitlines()]
    want = [j for j in lines if "ts" in j]
    diags = [d for j in lines for d in j.get("diagnostics", [])]
    reader = strobe.read_trace(f)
    got = list(reader)
    assert len(got) == len(want)
    # report's diagnostics, each with the file it is about
    assert [{k: d[k] for k in ("kind", "message")} for d in reader.diagnostics] == diags
    assert all(d["source"] == f for d in reader.diagnostics)
    for ev, j in zip(got, want):
        assert (ev.ts, ev.cpu, ev.pid, ev.name, ev.system, ev.buffer) == \
            (j["ts"], j["cpu"], j["pid"], j["event"], j["system"], j.get("buffer")), j
        assert ev.fields == j["fields"], j
        assert ev.missed == j.get("missed", 0)
        if j.get("container") not in (None, "host", "unknown"):
            assert ev.container == j["container"]


@pytest.mark.parametrize("name", [n for n in FILES if "presets" in n or "sched-syscalls" in n])
def test_analyze_equals_cli_json(name):
    f = path_of(name)
    p = subprocess.run([STROBE, "analyze", "-a", "cputop,syscalls,schedlat", "--top", "0",
                        "--group-by", "process", "--json", f],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    want = {}
    for line in p.stdout.splitlines():
        o = json.loads(line)
        if "rows" in o:
            want[o["table"]] = o["rows"]
    if p.returncode != 0 or not want:
        pytest.skip("the CLI has no tables for this file")
    got = strobe.analyze(f, ["cputop", "syscalls", "schedlat"], group_by="process", top=0)
    assert set(got) == set(want)
    for t in want:
        assert len(got[t]) == len(want[t])
        for a, b in zip(got[t], want[t]):
            assert a.keys() == b.keys()
            for k in a:
                assert a[k] == (pytest.approx(b[k], abs=1e-4) if isinstance(b[k], float)
                                else b[k]), (t, k)


def test_example_summary_counts_every_event():
    import sys
    from conftest import BUILD
    f = path_of("v6-sched-syscalls.dat")
    n = sum(1 for _ in strobe.read_trace(f))
    env = dict(os.environ, PYTHONPATH=os.path.join(BUILD, "python"))
    p = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "summary.py"), f],
                       env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("%d events over " % n)
    assert "sched:sched_switch" in p.stdout
