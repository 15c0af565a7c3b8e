"""test_module.py - the strobe module without tracing (no root needed):
it imports from build/python, every public function has a docstring, the
command-line helpers answer --help, and errors are the documented
exceptions."""
import os
import subprocess
import sys

import pytest

import strobe
from conftest import BUILD


def test_every_public_name_is_documented():
    assert strobe.__doc__ and "iterate_trace" in strobe.__doc__
    for name in strobe.__all__:
        obj = getattr(strobe, name)
        if name == "STOP":
            assert repr(obj) == "strobe.STOP"
            continue
        assert obj.__doc__ and len(obj.__doc__) > 20, name


def test_python_m_strobe_help():
    env = dict(os.environ, PYTHONPATH=os.path.join(BUILD, "python"))
    p = subprocess.run([sys.executable, "-m", "strobe", "--help"], env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.returncode == 0 and "usage: python3 -m strobe" in p.stdout
    assert "analyze" in p.stdout and "trace" in p.stdout


def test_file_errors():
    with pytest.raises(FileNotFoundError, match="nonexistent"):
        strobe.read_trace("/nonexistent.dat")
    with pytest.raises(OSError):
        strobe.read_trace(__file__)       # not a trace file
    with pytest.raises(TypeError):
        strobe.iterate_trace(instance=None, callback=print)


def test_analysis_names():
    names = strobe.analysis_names()
    assert "syscalls" in names and "cputop" in names


def test_compat_modules_import():
    import strobe.compat.ft_utils as tc
    import strobe.compat.ftracepy as ft
    assert tc.event("sched", "sched_wakeup").id() == ft.event_id("sched", "sched_wakeup")
    assert tc.find_event_id("sched", "sched_switch") != tc.find_event_id("sched", "sched_wakeup")
    with pytest.raises(NotImplementedError):
        tc.kprobe(name="x", func="do_exit")


def test_make_install_puts_the_module_in_site(tmp_path):
    from conftest import ROOT
    r = subprocess.run(["make", "-s", "install", "PREFIX=/usr", "DESTDIR=%s" % tmp_path],
                       cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert r.returncode == 0, r.stdout
    site = [str(p.parent.parent) for p in tmp_path.glob("usr/lib/python3*/*/strobe/__init__.py")]
    assert len(site) == 1, list(tmp_path.rglob("strobe"))
    env = dict(os.environ, PYTHONPATH=site[0])
    p = subprocess.run([sys.executable, "-c", "import strobe, strobe.compat.ftracepy, sys;"
                        "print(strobe.__file__)"], env=env, cwd=str(tmp_path),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.returncode == 0 and p.stdout.startswith(site[0]), p.stderr
