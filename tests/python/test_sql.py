"""test_sql.py - strobe.sql(): the answers of `strobe sql` from Python, and
safe=True refusing what strobe sql --safe refuses (ATTACH of a path,
VACUUM INTO, any write, PRAGMA settings) without creating a file, while a
plain SELECT works; timeout= stops a runaway query.  No root needed."""
import glob
import json
import os
import subprocess

import pytest

import strobe
from conftest import ROOT, STROBE

F = sorted(glob.glob(os.path.join(ROOT, "tests/fuzz/corpus/fuzz_*/v7-zstd-sched-syscalls.dat")))[0]
COUNT = "SELECT comm, count(*) AS n FROM events GROUP BY comm ORDER BY n DESC, comm"
RUNAWAY = ("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
           "SELECT max(x) FROM c")


def cli_json(*args):
    p = subprocess.run([STROBE, "sql", "--json", "-i", F] + list(args),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.returncode == 0, p.stderr
    return [json.loads(line) for line in p.stdout.splitlines()]


def test_select_equals_the_cli():
    got = strobe.sql(F, COUNT)
    assert got and got == cli_json(COUNT)
    assert strobe.sql(F, COUNT, safe=True) == got


def test_rows_of_the_last_statement_with_columns_and_value_types():
    got = strobe.sql(F, "SELECT 1 AS a; SELECT 2 AS i, 1.5 AS f, 'é' AS s, x'00ff' AS b, "
                        "NULL AS n; CREATE TEMP TABLE t(x)")
    assert got == [{"i": 2, "f": 1.5, "s": "é", "b": b"\x00\xff", "n": None}]


def test_safe_refuses_attach_of_a_path(tmp_path):
    target = tmp_path / "x.db"
    q = "ATTACH '%s' AS x; CREATE TABLE x.t(a); INSERT INTO x.t VALUES (1)" % target
    with pytest.raises(PermissionError) as e:
        strobe.sql(F, q, safe=True)
    assert str(e.value) == ("[Errno 1] safe=True: ATTACH is refused: a safe=True query only "
                            "reads the trace's database")
    assert not target.exists()
    # what safe=True prevents: without it the file is made
    strobe.sql(F, q)
    assert target.exists()


def test_safe_refuses_vacuum_into(tmp_path):
    target = tmp_path / "copy.db"
    with pytest.raises(PermissionError, match=r"safe=True: 'VACUUM INTO '.*' is refused: "
                                              r"it writes"):
        strobe.sql(F, "VACUUM INTO '%s'" % target, safe=True)
    assert not target.exists()


@pytest.mark.parametrize("q,says", [
    ("DELETE FROM meta", "'DELETE FROM meta' is refused: it writes"),
    ("CREATE TEMP TABLE t(a)", "'CREATE TEMP TABLE t(a)' is refused: it writes"),
    ("PRAGMA journal_mode = wal", "PRAGMA journal_mode = wal is refused"),
    ("DETACH main", "DETACH is refused"),
])
def test_safe_refuses_writes_and_settings(q, says):
    with pytest.raises(PermissionError, match="safe=True: " + says.replace("(", r"\(")
                       .replace(")", r"\)")):
        strobe.sql(F, q, safe=True)


def test_safe_on_a_kept_database_leaves_it_as_it_was(tmp_path):
    db = str(tmp_path / "t.db")
    n = strobe.sql(F, "SELECT count(*) AS n FROM meta", db=db)
    with pytest.raises(PermissionError):
        strobe.sql(F, "DELETE FROM meta", db=db, safe=True)
    assert strobe.sql(F, "SELECT count(*) AS n FROM meta", db=db, safe=True) == n


def test_timeout_stops_a_runaway_query():
    with pytest.raises(TimeoutError, match=r"the query ran longer than timeout=0.3 s: stopped"):
        strobe.sql(F, RUNAWAY, timeout=0.3)


def test_a_query_sqlite_refuses_is_a_value_error_with_its_message():
    with pytest.raises(ValueError, match='SQL error: near "SELEC": syntax error'):
        strobe.sql(F, "SELEC 1")
    with pytest.raises(ValueError, match="unknown analysis 'nope'"):
        strobe.sql(F, "SELECT 1", analyses="nope")
    with pytest.raises(FileNotFoundError):
        strobe.sql(os.path.join(ROOT, "no-such-trace.dat"), "SELECT 1")


def test_the_heap_limit_is_given_back():
    """safe=True sets SQLite's process-wide hard heap limit (read here
    through the libsqlite3 the module uses) for its query only."""
    import ctypes
    lib = ctypes.CDLL("libsqlite3.so.0")
    lib.sqlite3_hard_heap_limit64.restype = ctypes.c_int64
    lib.sqlite3_hard_heap_limit64.argtypes = [ctypes.c_int64]
    before = lib.sqlite3_hard_heap_limit64(-1)
    seen = []
    strobe.sql(F, "SELECT 1", safe=True)
    assert lib.sqlite3_hard_heap_limit64(-1) == before
    with pytest.raises(PermissionError):
        strobe.sql(F, "VACUUM INTO '/nonexistent/x.db'", safe=True)
    seen.append(lib.sqlite3_hard_heap_limit64(-1))
    assert seen == [before]


def test_safe_bounds_a_value_and_plain_does_not():
    q = "SELECT length(randomblob(80 * 1024 * 1024)) AS n"
    with pytest.raises(OSError, match="safe=True: the query makes a value larger than 64 MiB"):
        strobe.sql(F, q, safe=True)
    assert strobe.sql(F, q) == [{"n": 80 * 1024 * 1024}]
