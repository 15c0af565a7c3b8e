"""test_kernel_container.py - hook2container on real podman containers
(runc, a busybox rootfs holding the static getppid_n): alpha's events and
only alpha's, named by its container, while beta and a host process make
the same calls, including a task that enters alpha later (podman exec);
Ctrl-C (SIGINT) ends the iteration without raising."""
import collections
import os
import shutil
import signal
import subprocess
import time

import pytest

import strobe
from conftest import HELPERS, our_instances, when_tracing

PODMAN = ["podman", "--runtime", "/usr/sbin/runc", "--cgroup-manager", "cgroupfs"]


@pytest.fixture
def rootfs(kernel, tmp_path):
    if not shutil.which("podman") or not os.path.exists("/usr/sbin/runc") or \
            not shutil.which("busybox"):
        pytest.skip("podman, runc or busybox-static not installed")
    r = tmp_path / "rootfs"
    (r / "bin").mkdir(parents=True)
    shutil.copy(shutil.which("busybox"), r / "bin" / "busybox")
    for link in ("sh", "sleep"):
        os.symlink("busybox", r / "bin" / link)
    shutil.copy(os.path.join(HELPERS, "getppid_n"), r / "bin" / "getppid_n")
    return r


def run_ct(rootfs, name, script):
    return subprocess.run(PODMAN + ["run", "-d", "--rm", "--ulimit", "nofile=1024:1024",
                                    "--ulimit", "nproc=1024:1024", "--name", name,
                                    "--rootfs", str(rootfs), "/bin/sh", "-c", script],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def test_hook2container_sees_only_that_container(rootfs):
    a, b = "pyalpha-%d" % os.getpid(), "pybeta-%d" % os.getpid()
    wait = "while [ ! -e /go ]; do sleep 0.05; done; "
    try:
        r = run_ct(rootfs, a, wait + "getppid_n 1200; sleep 0.3")
        if r.returncode:
            pytest.skip("cannot run a container: " + r.stderr.strip().splitlines()[-1])
        assert run_ct(rootfs, b, wait + "getppid_n 2500; sleep 0.3").returncode == 0
        counts = collections.Counter()

        seen = collections.Counter()

        def cb(ev):
            seen[(ev.name, ev.comm, ev.container)] += 1
            if ev.name == "sys_enter_getppid" and ev.comm == "getppid_n":
                counts[ev.container] += 1

        def work():
            # a task that enters alpha later (podman exec): found by the
            # rescans while iterating, its children followed
            subprocess.run(PODMAN + ["exec", a, "/bin/sh", "-c", "sleep 0.5; getppid_n 300"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
            (rootfs / "go").touch()
            subprocess.run([os.path.join(HELPERS, "getppid_n"), "700"])
            subprocess.run(PODMAN + ["wait", a, b], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=60)
            time.sleep(0.5)
            os.kill(os.getpid(), signal.SIGINT)     # Ctrl-C

        # Ctrl-C as in a terminal, also when this run inherited SIGINT
        # ignored (started in the background)
        old_int = signal.signal(signal.SIGINT, signal.default_int_handler)
        try:
            with strobe.create_instance(tracing_on=False) as inst:
                strobe.enable_event(instance=inst, system="syscalls", event="sys_enter_getppid")
                strobe.hook2container(instance=inst, container=a)
                t = when_tracing(inst, work)
                t0 = time.monotonic()
                strobe.iterate_trace(instance=inst, callback=cb, timeout=90)
                stopped_after = time.monotonic() - t0
                t.join()
        finally:
            signal.signal(signal.SIGINT, old_int)
        assert stopped_after < 80, "Ctrl-C did not end the iteration (the timeout did)"
        assert counts == {a: 1200 + 300}, seen
        assert our_instances() == []
    finally:
        subprocess.run(PODMAN + ["rm", "-f", a, b], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
