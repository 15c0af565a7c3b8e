"""test_kernel_compat.py - trace-cruncher's first seed script
(examples/wakeups_tc.py: only its imports changed to strobe.compat) runs
against a shell that starts and waits for children, prints their
sched_wakeup lines with the decoded fields, ends cleanly on Ctrl-C (SIGINT)
and leaves no instance; the other live examples (wakeups.py,
container_syscalls.py) run and print what they promise."""
import os
import re
import signal
import subprocess
import sys
import time

from conftest import BUILD, HELPERS, ROOT, TRACEFS


def test_seed_script_prints_the_shells_wakeups(kernel):
    # wakes up every 0.1 s for 2 s: the script's own start-up (not under the
    # test's control) may miss the first ones
    sh = subprocess.Popen(["sh", "-c", "read go; for i in $(seq 20); do sleep 0.1; done"],
                          stdin=subprocess.PIPE)
    # faulthandler: a SIGABRT prints every thread's Python stack (below)
    env = dict(os.environ, PYTHONPATH=os.path.join(BUILD, "python"), PYTHONFAULTHANDLER="1")
    # Ctrl-C as in a terminal: a run started in the background (nohup,
    # "cmd &" in a script) inherits SIGINT ignored, and Python then never
    # raises KeyboardInterrupt
    script = subprocess.Popen([sys.executable, os.path.join(ROOT, "examples", "wakeups_tc.py"),
                               str(sh.pid)], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True,
                              preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        assert script.stdout.readline().startswith("Ready")
        time.sleep(0.3)
        sh.stdin.write(b"go\n")
        sh.stdin.flush()
        sh.wait(timeout=30)
        time.sleep(0.5)
        script.send_signal(signal.SIGINT)
        try:
            out, err = script.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            # say where it is stuck rather than only that it is
            script.send_signal(signal.SIGABRT)
            out, err = script.communicate(timeout=30)
            raise AssertionError("still running 30 s after SIGINT; where its threads were:\n"
                                 + err[-4000:])
    finally:
        if script.poll() is None:
            script.kill()
    assert script.returncode == 0, err
    # the shell is woken each time a sleep child exits
    woken = [ln for ln in out.splitlines()
             if ln.startswith("sched_wakeup ") and re.search(r"\bpid=%d\b" % sh.pid, ln)]
    assert len(woken) >= 5, out
    assert re.search(r"^sched_wakeup sleep-\d+ comm=sh pid=%d prio=\d+ target_cpu=\d+" % sh.pid,
                     "\n".join(woken), re.M), woken
    left = [n for n in os.listdir(os.path.join(TRACEFS, "instances"))
            if n == "strobe-%d" % script.pid]
    assert left == []


def test_examples_wakeups_and_container_syscalls_run(kernel):
    env = dict(os.environ, PYTHONPATH=os.path.join(BUILD, "python"))
    sh = subprocess.Popen(["sh", "-c", "sleep 1; for i in $(seq 20); do sleep 0.1; done"])
    p = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "wakeups.py"),
                        str(sh.pid), "3"], env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=60)
    sh.wait()
    assert p.returncode == 0, p.stderr
    assert len(re.findall(r"\(host\) wakes sh-%d on CPU \d+" % sh.pid, p.stdout)) >= 3, p.stdout
    # system calls of our own while it traces: a freshly booted machine
    # may make none in a second (strobe leaves its own out)
    work = subprocess.Popen(["sh", "-c", "while :; do %s 1000; sleep 0.05; done"
                             % os.path.join(HELPERS, "getppid_n")])
    try:
        p = subprocess.run([sys.executable, os.path.join(ROOT, "examples",
                                                         "container_syscalls.py"), "1"],
                           env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, timeout=60)
    finally:
        work.kill()
        work.wait()
    assert p.returncode == 0, p.stderr
    assert "== syscalls.top" in p.stdout and "container" in p.stdout, p.stdout
    assert re.search(r"^\s*host\s+getppid\s+\d+\s+0\s", p.stdout, re.M), p.stdout
