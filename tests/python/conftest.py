"""conftest.py - shared set-up of the Python module's tests (pytest).

Imports strobe from build/python (what `make` builds), and prints one line
per test, "PASS name", "FAIL name: why" or "SKIP name: reason", as every
other test of strobe does, for tests/run-tests.sh to count (pytest's own
report follows, with the tracebacks of failures).  Kernel tests (files test_kernel_*.py) need root and tracefs
and skip otherwise; run-tests.sh runs them under the machine-wide kernel
test lock.
"""
import os
import sys
import threading
import time

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.path.join(ROOT, "build")
HELPERS = os.path.join(BUILD, "helpers")
STROBE = os.path.join(BUILD, "strobe")
sys.path.insert(0, os.path.join(BUILD, "python"))

TRACEFS = "/sys/kernel/tracing"


_config = None


def pytest_configure(config):
    global _config
    _config = config


def _say(line):
    """A line of its own, also between pytest's progress dots."""
    tr = _config.pluginmanager.get_plugin("terminalreporter") if _config else None
    if tr:
        tr.write("\n%s\n" % line)
    else:
        print(line, flush=True)


def _name(report):
    return report.nodeid.split("::")[-1]


def pytest_runtest_logreport(report):
    if report.when == "call" and report.passed:
        _say("PASS %s" % _name(report))
    elif report.failed:
        msg = report.longreprtext.strip().splitlines()
        _say("FAIL %s: %s (%s)" % (_name(report), msg[-1] if msg else "failed", report.when))
    elif report.skipped and report.when in ("setup", "call"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else "skipped"
        if reason.startswith("Skipped: "):
            reason = reason[9:]
        _say("SKIP %s: %s" % (_name(report), reason))


def pytest_collectreport(report):
    if report.failed:
        _say("FAIL %s: cannot collect: %s" % (report.nodeid or "python",
                                             report.longreprtext.strip().splitlines()[-1]))


def our_instances():
    """Instances this process made (strobe-<pid>[-n]) that still exist."""
    d = os.path.join(TRACEFS, "instances")
    me = "strobe-%d" % os.getpid()
    return [n for n in os.listdir(d) if n == me or n.startswith(me + "-")]


@pytest.fixture
def kernel():
    """Skip unless root with tracefs; check no instance of ours is left."""
    if os.geteuid() != 0:
        pytest.skip("needs root")
    if not os.path.isdir(os.path.join(TRACEFS, "instances")):
        pytest.skip("no tracefs at %s" % TRACEFS)
    before = our_instances()
    yield
    assert our_instances() == before, "instances left behind"


def when_tracing(inst, fn):
    """Call fn from a thread once inst's tracing is on: iterate_trace turns
    it on when its capture runs, so work released then is seen whole (the
    instance must be created with tracing_on=False)."""
    def wait():
        p = os.path.join(inst.dir, "tracing_on")
        for _ in range(6000):
            with open(p) as f:
                if f.read().strip() == "1":
                    break
            time.sleep(0.005)
        fn()
    t = threading.Thread(target=wait)
    t.start()
    return t
