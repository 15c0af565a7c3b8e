"""test_kernel_profile.py - strobe.profile() against the real kernel (root,
perf_event_open, tracefs): a busy helper of known shape (profile_work:
hot_loop 70% of its iterations, warm_loop 20%, cool_loop 10%) profiled
live as a command finds hot_loop as the top function with at least half
of the samples, its folded stacks add up to the sample count; the same
helper recorded with `strobe record --profile` and read back with
strobe.profile(path) gives the same answer, with exactly the samples the
file holds; a file without samples is an OSError that says how to make
one."""
import os
import subprocess

import pytest

import strobe
from conftest import HELPERS, STROBE, our_instances

WORK = os.path.join(HELPERS, "profile_work")


def check_hot(r):
    assert r["samples"] > 0, r
    assert sum(r["folded"].values()) == r["samples"]
    top = r["functions"][0]
    assert top["function"] == "hot_loop", r["functions"][:3]
    assert top["module"] == "profile_work"
    assert top["self"] * 100 >= 50 * r["samples"], r["functions"][:3]
    assert all(k.startswith("profile_work;") for k in r["folded"]), list(r["folded"])[:3]


def test_profile_live_command_finds_its_hot_function(kernel):
    r = strobe.profile(argv=[WORK, "3"], group_by="process", top=5)
    check_hot(r)
    assert len(r["functions"]) <= 5
    assert our_instances() == []


def test_profile_of_a_recording_finds_the_hot_function(kernel, tmp_path):
    out = tmp_path / "p.dat"
    p = subprocess.run([STROBE, "record", "--profile", "-e", "sched:sched_switch",
                        "-o", str(out), "--", WORK, "3"], capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stderr
    r = strobe.profile(out, group_by="process")
    check_hot(r)
    # every sample the file holds, as trace-cmd's reader counts them too
    n = sum(1 for ev in strobe.read_trace(str(out))
            if ev.system == "strobe_perf" and ev.name == "sample")
    assert r["samples"] == n
    assert r["lost"] == 0


def test_profile_of_a_file_without_samples_says_how_to_make_one(kernel, tmp_path):
    out = tmp_path / "n.dat"
    p = subprocess.run([STROBE, "record", "-q", "-e", "sched:sched_switch", "-o", str(out),
                        "--", "true"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    with pytest.raises(FileNotFoundError, match="strobe record --profile"):
        strobe.profile(str(out))
