#!/usr/bin/env python3
"""lami-valid.py RESULTS METADATA VERSION [CLASS ...] - do the three outputs
of an analysis (--lami, --metadata, --mi-version) have the structure of
LAMI 1.0 (the LTTng analyses machine interface), and does the metadata
declare every CLASS?  Exit 0 when they do; else the first problem on
stderr and exit 1.  Used by 50-analyses.sh (one file) and 74-multihost.sh
(several hosts)."""
import json
import sys


def check(results, metadata, version, classes):
    v = json.load(open(version))
    assert v["major"] == 1 and v["minor"] == 0, v
    m = json.load(open(metadata))
    assert m["mi-version"] == {"major": 1, "minor": 0}, m["mi-version"]
    tc = m["table-classes"]
    for name in classes:
        assert name in tc, "%s not among the table classes" % name
    for k, c in tc.items():
        assert c["title"] and all("title" in d and "class" in d
                                  for d in c["column-descriptions"]), k
    r = json.load(open(results))["results"]
    assert r, "no results"
    for t in r:
        assert t["time-range"]["class"] == "time-range", t["time-range"]
        assert t["time-range"]["begin"] <= t["time-range"]["end"], t["time-range"]
        cls = t["class"]
        name = cls["inherit"] if isinstance(cls, dict) else cls
        assert name in tc, name
        for row in t["data"]:
            assert len(row) == len(tc[name]["column-descriptions"]), (name, row)
            assert all("class" in c and "value" in c for c in row), (name, row)


if __name__ == "__main__":
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    try:
        check(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:])
    except (AssertionError, KeyError, ValueError, OSError) as e:
        print("not LAMI 1.0: %r" % (e,), file=sys.stderr)
        sys.exit(1)
