"""test_kernel_live.py - the strobe module's live tracing against the real
kernel (root, tracefs): exact event counts for a traced command and for
the children a hooked shell starts later, timeouts kept, STOP and a raising
callback ending the iteration with nothing left behind, named and detached
instances, errors with the library's messages, an Analysis fed live
events read interval by interval, and lost events said as a warning (not
damage: strict=True goes on)."""
import os
import subprocess
import threading
import time
import warnings

import pytest

import strobe
from conftest import HELPERS, TRACEFS, our_instances, when_tracing

GETPPID = os.path.join(HELPERS, "getppid_n")


def test_trace_process_exact_getppid_count_for_the_child(kernel):
    seen = {}

    def cb(ev):
        if ev.name == "sys_enter_getppid":
            seen[ev.pid] = seen.get(ev.pid, 0) + 1

    st = strobe.trace_process([GETPPID, "20000"], cb,
                              events=["syscalls:sys_enter_getppid"])
    assert st == 0
    assert list(seen.values()) == [20000], seen
    assert our_instances() == []


def test_trace_process_returns_the_exit_status_and_follows_children(kernel):
    counts = {}

    def cb(ev):
        if ev.name == "sys_enter_getppid":
            assert ev.tgid == ev.pid        # known: single-threaded tasks
            counts[ev.pid] = counts.get(ev.pid, 0) + 1

    st = strobe.trace_process(["sh", "-c", "%s 10; %s 10; exit 7" % (GETPPID, GETPPID)],
                              cb, events=["syscalls:sys_enter_getppid", "sched"])
    assert st == 7
    # the two children (the shell may call getppid itself, for $PPID)
    assert [c for c in counts.values() if c == 10] == [10, 10], counts


def test_trace_process_kernel_filter(kernel):
    n = [0]

    def cb(ev):
        n[0] += ev.name == "sys_enter_getppid"

    # the filter keeps nothing of getppid_n's own calls
    strobe.trace_process([GETPPID, "1000"], cb, events=["syscalls:sys_enter_getppid"],
                         filters={"syscalls:sys_enter_getppid": "common_pid == 1"})
    assert n[0] == 0


def test_hook2pid_follows_the_children_a_shell_starts_later(kernel):
    sh = subprocess.Popen(["sh", "-c", "read go; %s 100; %s 200; %s 300" %
                           (GETPPID, GETPPID, GETPPID)], stdin=subprocess.PIPE)
    counts = {}

    def cb(ev):
        if ev.name == "sys_enter_getppid":
            counts[ev.pid] = counts.get(ev.pid, 0) + 1
        elif ev.name == "sched_process_exit" and ev["pid"] == sh.pid:
            return strobe.STOP

    def release():
        sh.stdin.write(b"go\n")
        sh.stdin.flush()

    try:
        with strobe.create_instance(tracing_on=False) as inst:
            strobe.enable_events(instance=inst, systems=["syscalls", "sched"],
                                 events=[["sys_enter_getppid"], ["sched_process_exit"]])
            strobe.hook2pid(instance=inst, pid=sh.pid, fork=True)
            t = when_tracing(inst, release)
            strobe.iterate_trace(instance=inst, callback=cb, timeout=30)
            t.join()
    finally:
        sh.wait()
    assert sorted(counts.values()) == [100, 200, 300], counts
    assert sh.pid not in counts
    assert our_instances() == []


def test_iterate_trace_returns_on_time(kernel):
    with strobe.create_instance() as inst:
        strobe.enable_event(instance=inst, system="sched", event="sched_switch")
        t = time.monotonic()
        strobe.iterate_trace(instance=inst, callback=lambda ev: None, timeout=1.0)
        took = time.monotonic() - t
    assert 0.95 <= took < 1.6, took


def test_stop_ends_iteration_and_leaves_no_instance(kernel):
    got = []

    def cb(ev):
        got.append(ev)
        return strobe.STOP

    with strobe.create_instance() as inst:
        d = inst.dir
        strobe.enable_event(instance=inst, system="sched", event="sched_switch")
        strobe.iterate_trace(instance=inst, callback=cb, timeout=10)
        assert len(got) == 1
        assert got[0].name == "sched_switch"     # a kept event stays valid
        assert strobe.is_tracing_ON(instance=inst)  # as it was before
    assert not os.path.exists(d)
    st = strobe.trace_process([GETPPID, "100"], cb, events=["syscalls:sys_enter_getppid"])
    assert st == 0 and len(got) == 2
    assert our_instances() == []


def test_a_raising_callback_propagates_and_cleans_up(kernel):
    def cb(ev):
        raise ZeroDivisionError("from the callback")

    with strobe.create_instance() as inst:
        d = inst.dir
        strobe.enable_event(instance=inst, system="sched")
        with pytest.raises(ZeroDivisionError):
            strobe.iterate_trace(instance=inst, callback=cb, timeout=10)
        assert os.path.isdir(d)
    assert not os.path.exists(d)
    with pytest.raises(ZeroDivisionError):
        strobe.trace_process(["sleep", "30"], cb, events=["syscalls:sys_enter_*"])
    assert our_instances() == []
    # the command went with it: no child left
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)


def test_named_detached_instance_survives_and_is_found(kernel):
    name = "strobe-pytest-%d" % os.getpid()
    d = os.path.join(TRACEFS, "instances", name)
    inst = strobe.create_instance(name=name, tracing_on=False, detach=True)
    try:
        strobe.enable_event(instance=inst, system="sched", event="sched_switch")
        assert inst.detached
        del inst
        assert os.path.isdir(d)          # dropped, but detached: still there
        found = strobe.find_instance(name)
        assert found.name == name
        assert "sched:sched_switch" in found.events
        assert not strobe.is_tracing_ON(instance=found)
        with pytest.raises(FileExistsError):
            strobe.create_instance(name=name)
        strobe.destroy_instance(found)
        assert not os.path.exists(d)
        with pytest.raises(FileNotFoundError):
            strobe.find_instance(name)
    finally:
        if os.path.isdir(d):
            os.rmdir(d)


def test_errors_carry_the_librarys_messages(kernel):
    with strobe.create_instance() as inst:
        with pytest.raises(ValueError, match="did you mean sched:sched_switch"):
            strobe.enable_event(instance=inst, system="sched", event="sched_swich")
        with pytest.raises(ValueError, match="bad filter.*prev_pidd"):
            strobe.set_event_filter(instance=inst, system="sched", event="sched_switch",
                                    filter="prev_pidd == 1")
        strobe.set_event_filter(instance=inst, system="sched", event="sched_switch",
                                filter="prev_pid == 1")
        with open(os.path.join(inst.dir, "events/sched/sched_switch/filter")) as f:
            assert f.read().strip() == "prev_pid == 1"
        strobe.clear_event_filter(instance=inst, system="sched", event="sched_switch")
        with open(os.path.join(inst.dir, "events/sched/sched_switch/filter")) as f:
            assert f.read().strip() == "none"
        with pytest.raises(ProcessLookupError):
            strobe.hook2pid(instance=inst, pid=2 ** 22 + 1)
        with pytest.raises(ProcessLookupError, match="no running container"):
            strobe.hook2container(instance=inst, container="no-such-container-x")
    with pytest.raises(TypeError, match="top-level"):
        strobe.enable_event(system="sched")
    with pytest.raises(FileNotFoundError, match="cannot run"):
        strobe.trace_process(["/nonexistent/cmd"])
    assert our_instances() == []


def test_enable_and_disable_events(kernel):
    with strobe.create_instance() as inst:
        strobe.enable_events(instance=inst, systems=["sched"],
                             events=[["sched_switch", "sched_wakeup"]])
        assert sorted(inst.events) == ["sched:sched_switch", "sched:sched_wakeup"]
        strobe.disable_event(instance=inst, system="sched", event="sched_wakeup")
        assert inst.events == ["sched:sched_switch"]
        with open(os.path.join(inst.dir, "events/sched/sched_wakeup/enable")) as f:
            assert f.read().strip() == "0"
        strobe.tracing_OFF(instance=inst)
        assert not strobe.is_tracing_ON(instance=inst)
        strobe.tracing_ON(instance=inst)
        assert strobe.is_tracing_ON(instance=inst)


def test_analyze_live_counts_the_hooked_process(kernel):
    p = subprocess.Popen(["sh", "-c", "read go; exec %s 4000" % GETPPID], stdin=subprocess.PIPE)

    def release():
        p.stdin.write(b"go\n")
        p.stdin.flush()

    try:
        with strobe.create_instance(tracing_on=False) as inst:
            strobe.enable_events(instance=inst, systems=["raw_syscalls", "sched"])
            strobe.hook2pid(instance=inst, pid=p.pid, fork=True)
            t = when_tracing(inst, release)
            tables = strobe.analyze(inst, ["syscalls"], group_by="process", top=0,
                                    timeout=3)
            t.join()
    finally:
        p.wait()
    rows = [r for r in tables["syscalls.top"] if r["syscall"] == "getppid"]
    assert [(r["pid"], r["count"]) for r in rows] == [(p.pid, 4000)], rows
    assert our_instances() == []


def test_analysis_fed_live_gives_each_interval_its_own_calls(kernel):
    """An Analysis fed a traced shell's events, cut (snapshot and reset) at
    each child's exit: every interval holds that child's getppid calls."""
    an = strobe.Analysis("syscalls", top=0, views="stats")
    intervals = []

    def cb(ev):
        an.feed(ev)
        if ev.name == "sched_process_exit":
            intervals.append(an.snapshot(ev.ts))
            an.reset(ev.ts)

    st = strobe.trace_process(["sh", "-c", "%s 100; %s 200; %s 300" % ((GETPPID,) * 3)],
                              cb, events=["raw_syscalls", "sched:sched_process_exit"])
    assert st == 0
    intervals.append(an.finish())
    # the shell may call getppid itself, for $PPID: fewer than 100
    counts = [[r["count"] for r in t["syscalls.stats"]
               if r["syscall"] == "getppid" and r["count"] >= 100] for t in intervals]
    assert counts[:3] == [[100], [200], [300]], counts
    assert all(c == [] for c in counts[3:]), counts


def test_trace_process_timeout_ends_the_command(kernel):
    t = time.monotonic()
    st = strobe.trace_process(["sleep", "30"], None, events=["sched:sched_switch"],
                              timeout=0.5)
    assert st == -15 and time.monotonic() - t < 5
    assert our_instances() == []


def test_instances_go_when_python_exits_unless_detached(kernel):
    import sys
    from conftest import BUILD
    name = "strobe-pytest-exit-%d" % os.getpid()
    code = ("import strobe\n"
            "kept = strobe.create_instance()\n"
            "det = strobe.create_instance(name=%r, detach=True)\n"
            "print(kept.dir)\n" % name)
    env = dict(os.environ, PYTHONPATH=os.path.join(BUILD, "python"))
    p = subprocess.run([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE,
                       text=True, check=True)
    d = os.path.join(TRACEFS, "instances", name)
    try:
        assert not os.path.exists(p.stdout.strip())
        assert os.path.isdir(d)
    finally:
        strobe.destroy_instance(strobe.find_instance(name))
    assert not os.path.exists(d)


def test_other_threads_run_while_iterate_trace_waits(kernel):
    sh = subprocess.Popen(["sleep", "30"])
    spins = [0]
    done = threading.Event()

    def spin():
        while not done.is_set():
            spins[0] += 1

    t = threading.Thread(target=spin)
    try:
        with strobe.create_instance(tracing_on=False) as inst:
            # an event the sleeping process will not make: iterate waits
            strobe.enable_event(instance=inst, system="sched", event="sched_process_exec")
            strobe.hook2pid(instance=inst, pid=sh.pid)
            t.start()
            strobe.iterate_trace(instance=inst, callback=lambda ev: None, timeout=1.0)
            done.set()
            t.join()
    finally:
        sh.kill()
        sh.wait()
    # the GIL was released while waiting: the pure-Python loop kept going
    assert spins[0] > 100000, spins


def test_lost_events_are_a_warning_and_not_damage(kernel):
    """A callback that blocks for 2 s while 2 M events come: the kernel
    loses some, the callback gets the rest, and trace_process says so as a
    strobe.TraceWarning at its end (even with strict=True: lost events are
    not damage)."""
    n = [0]

    def cb(ev):
        if n[0] == 0:
            time.sleep(2)
        n[0] += 1

    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        st = strobe.trace_process([GETPPID, "2000000"], cb, strict=True,
                                  events=["syscalls:sys_enter_getppid"])
    assert st == 0
    mine = [w for w in said if issubclass(w.category, strobe.TraceWarning)]
    assert [w.category for w in mine] == [strobe.TraceWarning], [str(w.message) for w in mine]
    d = mine[0].message.diagnostic
    assert d["kind"] == "lost_events" and "lost" in d["message"] and d["source"] is None
    assert mine[0].filename == __file__
    assert 0 < n[0] < 2000000
    assert our_instances() == []
