"""test_kernel_flight.py - strobe.FlightRecorder (python/flight.c), the
flight recorder of `strobe record --flight-recorder` from Python, against
the real kernel (root, tracefs): a command makes N getppid calls, then
the program calls rec.trigger(reason) from another Python thread: exactly
one snapshot, holding all N (read back with read_trace), its trigger and
reason in the file (strobe report --info); a second trigger within
min_interval is counted as suppressed, never lost; a trigger after the
end, a bad kind or size raise; the instance goes with the recording."""
import os
import subprocess
import threading
import time

import pytest

import strobe
from conftest import HELPERS, STROBE, our_instances

GETPPID = os.path.join(HELPERS, "getppid_n")


def info(path):
    out = subprocess.run([STROBE, "report", "--info", path], capture_output=True,
                         text=True, check=True).stdout
    return dict(l.split("=", 1) for l in out.splitlines() if "=" in l)


def wait_file(path, secs=30):
    for _ in range(int(secs * 100)):
        if os.path.exists(path):
            return True
        time.sleep(0.01)
    return False


def test_flight_trigger_from_a_thread_one_snapshot_holds_all_n(kernel, tmp_path):
    done = tmp_path / "done"
    out = str(tmp_path / "py.dat")
    rec = strobe.FlightRecorder(out, "4M", events=["syscalls:sys_enter_getppid"],
                                command=["sh", "-c", "%s 3000; touch %s; sleep 30"
                                         % (GETPPID, done)],
                                min_interval=10)
    with rec:
        assert rec.running
        assert wait_file(done)
        t = threading.Thread(target=rec.trigger, args=("request 42 took 3 s",))
        t.start()
        t.join()
        rec.trigger("too soon")              # within min_interval: suppressed
        for _ in range(500):                 # written within ~20 ms
            if rec.snapshots:
                break
            time.sleep(0.01)
    res = rec.stop()                         # again after the with: the same summary
    assert not rec.running
    assert res["triggers"] == 2 and res["suppressed_interval"] == 1, res
    assert len(res["snapshots"]) == 1, res
    s = res["snapshots"][0]
    assert s["trigger"] == "python" and s["reason"] == "request 42 took 3 s"
    assert os.path.basename(s["path"]).startswith("py.001-")
    assert s["path"].endswith("-python.dat")
    assert sorted(os.listdir(tmp_path)) == sorted(["done", os.path.basename(s["path"])])
    n = sum(1 for ev in strobe.read_trace(s["path"])
            if ev.name == "sys_enter_getppid" and ev.comm == "getppid_n")
    assert n == 3000
    facts = info(s["path"])
    assert facts["flight_trigger"] == "python"
    assert facts["flight_reason"] == "request 42 took 3 s"
    assert our_instances() == []


def test_flight_wait_returns_at_the_commands_end_with_its_status(kernel, tmp_path):
    out = str(tmp_path / "w.dat")
    rec = strobe.FlightRecorder(out, 1 << 20, events=["syscalls:sys_enter_getppid"],
                                command=["sh", "-c", "%s 500; exit 3" % GETPPID],
                                snapshot_on_exit=True)
    rec.start()
    res = rec.wait(timeout=30)
    assert res is not None
    assert os.WEXITSTATUS(res["child_status"]) == 3
    assert [s["trigger"] for s in res["snapshots"]] == ["exit"], res
    n = sum(1 for ev in strobe.read_trace(res["snapshots"][0]["path"])
            if ev.name == "sys_enter_getppid" and ev.comm == "getppid_n")
    assert n == 500


def test_flight_trigger_when_not_running_or_with_a_bad_kind_raises(kernel, tmp_path):
    rec = strobe.FlightRecorder(str(tmp_path / "x.dat"), "1M",
                                events=["syscalls:sys_enter_getppid"], duration=30)
    with pytest.raises(RuntimeError, match="not started"):
        rec.stop()
    with pytest.raises(RuntimeError, match="not running"):
        rec.trigger("before the start")
    with rec:
        with pytest.raises(ValueError, match="kind"):
            rec.trigger("x", kind="Bad Word")
    with pytest.raises(RuntimeError, match="not running"):
        rec.trigger("after the end")
    res = rec.stop()
    assert res["snapshots"] == [] and res["triggers"] == 0
    assert os.listdir(tmp_path) == []


def test_flight_bad_arguments_raise():
    with pytest.raises(ValueError, match="size"):
        strobe.FlightRecorder("/tmp/x.dat", "12Q")
    with pytest.raises(ValueError, match="size"):
        strobe.FlightRecorder("/tmp/x.dat", 100)
    with pytest.raises(ValueError, match="not two"):
        strobe.FlightRecorder("/tmp/x.dat", command=["true"], pid=1)
    with pytest.raises(TypeError):
        strobe.FlightRecorder("/tmp/x.dat", command="true")
