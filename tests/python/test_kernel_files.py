"""test_kernel_files.py - the strobe module on trace files: read_trace
yields exactly the events `strobe report` prints, with the same values as
`strobe report --json` (v6 as strobe records it, v7 with zstd as
trace-cmd converts it), and analyze() returns the tables the CLI prints
with --json.  The file is recorded here (root, tracefs)."""
import json
import os
import shutil
import subprocess

import pytest

import strobe
from conftest import HELPERS, STROBE


@pytest.fixture(scope="module")
def trace(tmp_path_factory):
    if os.geteuid() != 0 or not os.path.isdir("/sys/kernel/tracing/instances"):
        pytest.skip("needs root and tracefs")
    d = tmp_path_factory.mktemp("files")
    out = str(d / "t.dat")
    subprocess.run([STROBE, "record", "-o", out, "-e", "sched", "-e", "syscalls",
                    "-e", "syscalls:sys_enter_getppid", "--",
                    "sh", "-c", "%s 300; ls / > /dev/null; sleep 0.1" %
                    os.path.join(HELPERS, "getppid_n")],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return out


def report_json(path):
    p = subprocess.run([STROBE, "report", "--json", path], check=True,
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    return [json.loads(line) for line in p.stdout.splitlines()]


def compare(events, js, models=True):
    assert len(events) == len(js)
    for ev, j in zip(events, js):
        assert (ev.ts, ev.cpu, ev.pid, ev.name, ev.system) == \
            (j["ts"], j["cpu"], j["pid"], j["event"], j["system"]), j
        assert ev.fields == j["fields"], j
        assert ev.missed == j.get("missed", 0)
        if models and j.get("container") not in (None, "host", "unknown"):
            assert ev.container == j["container"], j


def test_read_trace_yields_what_report_prints(trace):
    text = subprocess.run([STROBE, "report", trace], check=True, stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, text=True).stdout
    lines = [ln for ln in text.splitlines() if not ln.startswith("cpus=")]
    events = list(strobe.read_trace(trace))
    assert len(events) == len(lines) > 1000
    names = {ev.name for ev in events}
    assert {"sys_enter_getppid", "sched_switch", "sys_enter"} <= names


def test_read_trace_values_equal_report_json(trace):
    events = list(strobe.read_trace(trace))
    compare(events, report_json(trace))
    # strings, arrays and integers all went through
    ex = next(ev for ev in events if ev.name == "sched_process_exec")
    assert isinstance(ex["filename"], str) and ex["filename"]
    se = next(ev for ev in events if ev.name == "sys_enter")
    assert isinstance(se["args"], list) and len(se["args"]) == 6
    assert se["common_pid"] == se.pid
    with pytest.raises(KeyError):
        se["no_such_field"]
    assert se.get("no_such_field", 5) == 5
    assert "id" in se and "nope" not in se


def test_read_trace_v7_zstd(trace, tmp_path):
    if not shutil.which("trace-cmd"):
        pytest.skip("no trace-cmd to convert with")
    v7 = str(tmp_path / "t7.dat")
    r = subprocess.run(["trace-cmd", "convert", "--file-version", "7", "--compression",
                        "zstd", "-i", trace, "-o", v7], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    if r.returncode != 0:
        pytest.skip("trace-cmd convert failed")
    compare(list(strobe.read_trace(v7)), report_json(v7), models=False)


def test_read_trace_knows_processes(trace):
    procs = {}
    for ev in strobe.read_trace(trace):
        if ev.name == "sys_enter_getppid":
            procs[(ev.pid, ev.tgid, ev.comm)] = procs.get((ev.pid, ev.tgid, ev.comm), 0) + 1
    helper = [(k, n) for k, n in procs.items() if k[2] == "getppid_n"]
    assert len(helper) == 1 and helper[0][1] == 300, procs
    (pid, tgid, _), _n = helper[0]
    assert pid == tgid


def cli_tables(*argv):
    """{table: rows} of the CLI's --json output for strobe ARGV --json."""
    p = subprocess.run([STROBE] + list(argv) + ["--json"], check=True,
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    want = {}
    for line in p.stdout.splitlines():
        o = json.loads(line)
        if "rows" in o:
            want[o["table"]] = o["rows"]
    return want


@pytest.mark.parametrize("analysis,group", [("syscalls", "process"), ("cputop", "thread"),
                                            ("schedlat", "container")])
def test_analyze_equals_the_cli_json(trace, analysis, group):
    got = strobe.analyze(trace, [analysis], group_by=group, top=0)
    want = cli_tables(analysis, "--top", "0", "--group-by", group, trace)
    assert want and set(got) == set(want)
    for t in want:
        assert len(got[t]) == len(want[t]), t
        for a, b in zip(got[t], want[t]):
            assert a.keys() == b.keys()
            for k in a:
                if isinstance(b[k], float):
                    assert a[k] == pytest.approx(b[k], abs=1e-4), (t, k)
                else:
                    assert a[k] == b[k], (t, k)


def test_analyze_filter_equals_the_cli_filter(trace):
    expr = '$evt.procname == "getppid_n"'
    got = strobe.analyze(trace, ["syscalls"], group_by="process", top=0, filter=expr)
    want = cli_tables("syscalls", "--top", "0", "--group-by", "process", "--filter", expr, trace)
    rows = got["syscalls.top"]
    assert rows and {r["comm"] for r in rows} == {"getppid_n"}, rows
    assert [r for r in rows if r["syscall"] == "getppid"][0]["count"] == 300
    assert [(r["syscall"], r["count"]) for r in rows] == \
        [(r["syscall"], r["count"]) for r in want["syscalls.top"]]
    # a list is ANDed: nothing is both
    both = strobe.analyze(trace, ["syscalls"], filter=[expr, '$evt.procname == "sh"'])
    assert not both["syscalls.top"]
    with pytest.raises(ValueError, match="column"):
        strobe.analyze(trace, ["syscalls"], filter="$evt.procname ==")
    with pytest.raises(TypeError):
        strobe.analyze(trace, ["syscalls"], filter=[42])


def test_events_kept_after_the_loop_stay_valid(trace):
    kept = []
    for i, ev in enumerate(strobe.read_trace(trace)):
        if i % 100 == 0:
            kept.append((ev, ev.ts, ev.name, ev.fields))
    for ev, ts, name, fields in kept:
        assert (ev.ts, ev.name, ev.fields) == (ts, name, fields)


def test_analyze_errors(trace):
    with pytest.raises(ValueError, match="group_by"):
        strobe.analyze(trace, ["syscalls"], group_by="planet")
    with pytest.raises(ValueError):
        strobe.analyze(trace, ["nosuchanalysis"])
    with pytest.raises(FileNotFoundError):
        strobe.read_trace("/nonexistent/trace.dat")


def test_analyze_why_with_a_target_equals_the_cli(trace):
    """strobe.analyze(trace, ["why"], target=PID) gives `strobe why -p PID`'s
    figures; a bad target is a TypeError or ValueError."""
    procs = {r["pid"] for r in strobe.analyze(trace, ["cputop"], group_by="process",
                                              top=0)["cputop.top"]
             if r["comm"] == "getppid_n"}
    assert len(procs) == 1
    pid = procs.pop()
    got = strobe.analyze(trace, ["why"], target=pid, top=0)
    want = cli_tables("why", "--top", "0", "-p", str(pid), trace)
    assert set(got) == set(want)
    for t in want:
        assert [sorted(r.items()) for r in got[t]] == [sorted(r.items()) for r in want[t]], t
    states = {r["state"]: r["time"] for r in got["why.summary"]}
    assert states["running"] > 0
    with pytest.raises(TypeError):
        strobe.analyze(trace, ["why"], target=1.5)
    with pytest.raises(ValueError):
        strobe.analyze(trace, ["why"], target=-3)
