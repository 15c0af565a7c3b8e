"""test_kernel_record.py - strobe.record() against the real kernel (root,
tracefs, uprobe_events): a test helper (uprobe_work: calls work(i) exactly
N times, work(i) returns 3*i + 1, and passes its own USDT probe while the
semaphore is set) recorded as a command with a uprobe on work (its first
argument), a return probe ($retval) and its USDT probe, read back with
strobe.read_trace(): exactly N entries with arguments 0..N-1, N returns
with 3*i + 1, as many USDT hits (uprobe_work_tick, arguments i and N)
as the program counted; no probe
definition and no instance is left; bad arguments are TypeError or
ValueError naming the argument.  With profile=99 a CPU-bound helper
(profile_work, 2 s) recorded as a command leaves its perf samples in the
file next to the tracepoint events: exactly the samples and records the
result counts, read back by strobe.read_trace(), strobe.profile(file)
and trace-cmd report alike, every one of them the helper's (its TID, from
its exit event), hot_loop the top function; no instance and no perf
event is left open."""
import collections
import os
import shutil
import subprocess

import pytest

import strobe
from conftest import HELPERS, our_instances

WORK = os.path.join(HELPERS, "uprobe_work")
BUSY = os.path.join(HELPERS, "profile_work")
N = 300


def our_uprobes():
    try:
        with open("/sys/kernel/tracing/uprobe_events") as f:
            return [l for l in f if ":strobe_%d/" % os.getpid() in l]
    except OSError:
        return []


def test_record_uprobes_of_a_command_read_back(kernel, tmp_path, capfd):
    if not os.path.exists("/sys/kernel/tracing/uprobe_events"):
        pytest.skip("this kernel has no uprobe_events")
    out = tmp_path / "u.dat"
    r = strobe.record(str(out), argv=[WORK, str(N)], events=["sched:sched_process_exit"],
                      uprobes=[WORK + ":work arg1", WORK + ":work%return $retval"],
                      usdt=[WORK + ":uprobe_work:tick"])
    printed = capfd.readouterr().out.split()
    assert r["output"] == str(out) and r["exit_status"] == 0, r
    assert r["lost"] == 0 and r["incomplete"] == "", r
    calls = dict(w.split("=") for w in printed if "=" in w)
    assert calls["calls"] == str(N), printed
    hits = collections.defaultdict(list)
    for ev in strobe.read_trace(str(out)):
        if ev.system.startswith("strobe_"):
            hits[ev.name].append(ev.fields)
    assert len(hits["work"]) == N, {k: len(v) for k, v in hits.items()}
    assert sorted(f["arg1"] for f in hits["work"]) == list(range(N)), hits["work"][:2]
    assert sorted(f["retval"] for f in hits["work__return"]) == [3 * i + 1 for i in range(N)], \
        hits["work__return"][:2]
    # the USDT probe, named provider_name, with its two arguments (i, N)
    tick = hits["uprobe_work_tick"]
    assert len(tick) == int(calls["usdt"]), (len(tick), printed, list(hits))
    assert sorted(f["arg1"] for f in tick) == list(range(N))[N - len(tick):], tick[:2]
    assert {f["arg2"] for f in tick} <= {N}
    assert r["events"] >= 2 * N + len(tick)
    assert our_uprobes() == []
    assert our_instances() == []


def perf_fds():
    n = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            n += os.readlink("/proc/self/fd/" + fd) == "anon_inode:[perf_event]"
        except OSError:
            pass
    return n


def test_record_profile_stores_the_commands_samples(kernel, tmp_path):
    out = tmp_path / "p.dat"
    fds = perf_fds()
    r = strobe.record(str(out), argv=[BUSY, "2"], events=["sched:sched_process_exit"],
                      profile=99)
    assert r["exit_status"] == 0 and r["incomplete"] == "", r
    assert r["samples"] > 0 and r["samples_lost"] == 0, r
    assert perf_fds() == fds
    assert our_instances() == []
    # the helper's TID, from its exit event; every sample is its own
    tids, samples, records = set(), [], 0
    for ev in strobe.read_trace(str(out)):
        if ev.system == "sched" and ev.name == "sched_process_exit" and \
                ev.fields["comm"] == "profile_work":
            tids.add(ev.pid)
        elif ev.system == "strobe_perf":
            records += 1
            if ev.name == "sample":
                samples.append((ev.pid, ev.fields["tgid"]))
    assert len(tids) == 1, tids
    tid = tids.pop()
    assert len(samples) == r["samples"] and records == r["records"], (len(samples), records, r)
    assert set(samples) == {(tid, tid)}, collections.Counter(samples).most_common(3)
    # the profile of the file: the same samples, the helper's hot function
    p = strobe.profile(str(out), group_by="thread")
    assert p["samples"] == r["samples"] and p["lost"] == 0, p["samples"]
    assert set(k.split(";")[0] for k in p["folded"]) == {"profile_work-%d" % tid}
    assert p["functions"][0]["function"] == "hot_loop", p["functions"][:3]
    # trace-cmd reads the file: the events and the same perf records
    if shutil.which("trace-cmd") is None:
        return
    tc = subprocess.run(["trace-cmd", "report", str(out)], capture_output=True, text=True,
                        timeout=120)
    assert tc.returncode == 0, tc.stderr[:300]
    lines = tc.stdout.splitlines()
    perf = [l for l in lines if l.lstrip().startswith("strobe_perf: ")]
    assert len(perf) == r["records"], (len(perf), r)
    assert sum(" sample: " in l for l in perf) == r["samples"]
    assert sum(" sched_process_exit: " in l and "comm=profile_work" in l for l in lines) == 1


def test_record_argument_errors_name_the_argument(tmp_path):
    out = str(tmp_path / "x.dat")
    with pytest.raises(TypeError, match="record\\(\\) argument 'uprobes'"):
        strobe.record(out, argv=["true"], uprobes=3)
    with pytest.raises(TypeError, match="record\\(\\) argument 'usdt' item 0"):
        strobe.record(out, argv=["true"], usdt=[1])
    with pytest.raises(ValueError, match="one of argv, pid and container"):
        strobe.record(out, argv=["true"], pid=1)
    with pytest.raises(ValueError, match="record\\(\\) argument 'argv' is an empty list"):
        strobe.record(out, argv=[])
    with pytest.raises(ValueError, match="record\\(\\) argument 'events' is an empty list"):
        strobe.record(out, argv=["true"], events=[])
    with pytest.raises(TypeError, match="record\\(\\) argument 'duration'"):
        strobe.record(out, argv=["true"], duration="x")
    with pytest.raises(ValueError, match="record\\(\\) argument 'profile' must be from"):
        strobe.record(out, argv=["true"], profile=0)
    assert not os.path.exists(out)
