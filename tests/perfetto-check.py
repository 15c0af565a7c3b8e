#!/usr/bin/env python3
"""perfetto-check.py - check a Chrome trace-event JSON file (strobe export
--format perfetto) against the trace-event format, as the tests read it:

  - the document is {"traceEvents": [...], ...} and parses as JSON;
  - every record has "ph", "pid", "tid" (integers), and the keys its phase
    needs: ts (a number) for all but metadata; "dur" >= 0 for X; "name"
    for X, B, M, C, s, f, b, e; "id" for s, f, b, e; "args" with "name"
    for process_name/thread_name metadata; numeric args for C;
  - per thread track (pid, tid): B and E balance and nest (an E never
    comes before its B, and names the B it ends, which speedscope needs;
    none left open), and the start times of its
    slices (X, B, E) never go backwards in the file;
  - "X" slices of one track never overlap except by nesting;
  - flows: every "s" has exactly one "f" with its id, not earlier;
  - async: every "b" has one "e" of the same id, cat and name, not
    earlier.

Prints one line per problem (at most 20) and exits 1 when there is any;
else prints the counts by phase as JSON and the process names.

  perfetto-check.py --count-slices NAME FILE
prints, instead, "PROCESS/THREAD N" per thread: its B slices named NAME,
under the names the process and thread had when each began.

strobe writes one record per line between a '{"traceEvents":[' line and a
'],...}' line: such a file is read a line at a time, so a whole-system
export of many gigabytes (a loaded machine) is checked in bounded memory;
every line must still parse and the document must be well formed (commas
between records, none after the last, the tail completing the object).
Any other layout is read whole with json.load.
"""
import collections
import json
import sys

HEAD = '{"traceEvents":[\n'


def records(path):
    """The records of the document's traceEvents array, in file order."""
    with open(path) as f:
        first = f.readline()
        if first != HEAD:
            f.seek(0)
            doc = json.load(f)
            evs = doc.get("traceEvents") if isinstance(doc, dict) else None
            if not isinstance(evs, list):
                raise ValueError("no traceEvents array")
            yield from evs
            return
        comma = True                  # nothing before the first record
        n = 0
        for line in f:
            n += 1
            if line.startswith("]"):
                if n > 1 and comma:
                    raise ValueError("line %d: a comma after the last record" % n)
                json.loads("{\"traceEvents\":[" + line)   # the tail closes the object
                if f.read().strip():
                    raise ValueError("line %d: data after the document" % n)
                return
            if not comma:
                raise ValueError("line %d: no comma after the record before" % n)
            body = line.rstrip("\n")
            comma = body.endswith(",")
            yield json.loads(body[:-1] if comma else body)
        raise ValueError("the document ends before its traceEvents array does")


def count_slices(path, name):
    procs, thr, c = {}, {}, collections.Counter()
    for e in records(path):
        if e["ph"] == "M" and e["name"] == "process_name":
            procs[e["pid"]] = e["args"]["name"]
        elif e["ph"] == "M" and e["name"] == "thread_name":
            thr[(e["pid"], e["tid"])] = e["args"]["name"]
        elif e["ph"] == "B" and e["name"] == name:
            c["%s/%s" % (procs.get(e["pid"], "?"), thr.get((e["pid"], e["tid"]), "?"))] += 1
    for k, v in sorted(c.items()):
        print(k, v)
    return 0

NEED_NAME = set("XBMCsfbe")
NEED_ID = set("sfbe")


def main(path):
    probs = []

    def bad(msg):
        if len(probs) < 20:
            probs.append(msg)

    phases = collections.Counter()
    stack = collections.defaultdict(list)       # (pid, tid) -> open B names
    last = {}                                   # (pid, tid) -> last slice start
    xends = collections.defaultdict(list)       # (pid, tid) -> open X ends
    flows = {}
    asyncs = {}
    procs = {}
    try:
        for i, e in enumerate(records(path)):
            ph = e.get("ph")
            phases[ph] += 1
            if ph not in ("X", "B", "E", "M", "C", "s", "f", "b", "e", "i"):
                bad("record %d: unknown phase %r" % (i, ph))
                continue
            for k in ("pid", "tid") if ph != "C" else ("pid",):
                if not isinstance(e.get(k), int):
                    bad("record %d: %s without integer %s" % (i, ph, k))
            if ph != "M" and not isinstance(e.get("ts"), (int, float)):
                bad("record %d: %s without ts" % (i, ph))
                continue
            if ph in NEED_NAME and not isinstance(e.get("name"), str):
                bad("record %d: %s without name" % (i, ph))
            if ph in NEED_ID and "id" not in e:
                bad("record %d: %s without id" % (i, ph))
            key = (e.get("pid"), e.get("tid"))
            if ph == "M":
                if e.get("name") in ("process_name", "thread_name") and \
                        not isinstance(e.get("args", {}).get("name"), str):
                    bad("record %d: %s without args.name" % (i, e.get("name")))
                if e.get("name") == "process_name":
                    procs[e["pid"]] = e["args"]["name"]
                continue
            ts = round(e["ts"] * 1000)     # ns: the file holds whole ns
            if ph in ("X", "B", "E"):
                if key in last and ts < last[key]:
                    bad("record %d: %s at %s on track %s before %s" % (i, ph, ts, key, last[key]))
                last[key] = ts
                ends = xends[key]
                while ends and ends[-1] <= ts:
                    ends.pop()
            if ph == "X":
                d = e.get("dur")
                if not isinstance(d, (int, float)) or d < 0:
                    bad("record %d: X without dur >= 0" % i)
                    continue
                d = round(d * 1000)
                if xends[key] and ts + d > xends[key][-1]:
                    bad("record %d: X [%s, %s] on %s overlaps one ending at %s" %
                        (i, ts, ts + d, key, xends[key][-1]))
                xends[key].append(ts + d)
            elif ph == "B":
                stack[key].append(e["name"])
            elif ph == "E":
                if not stack[key]:
                    bad("record %d: E on %s without B" % (i, key))
                elif stack[key].pop() != e.get("name"):
                    bad("record %d: E %r on %s ends another slice" % (i, e.get("name"), key))
            elif ph == "C":
                for k, v in e.get("args", {}).items():
                    if not isinstance(v, (int, float)):
                        bad("record %d: counter %s not a number" % (i, k))
            elif ph == "s":
                if e["id"] in flows:
                    bad("record %d: flow id %s started twice" % (i, e["id"]))
                flows[e["id"]] = ts
            elif ph == "f":
                if e["id"] not in flows:
                    bad("record %d: flow end %s without start" % (i, e["id"]))
                elif flows.pop(e["id"]) > ts:
                    bad("record %d: flow %s ends before it starts" % (i, e["id"]))
            elif ph == "b":
                k = (e.get("cat"), e["name"], e["id"])
                if k in asyncs:
                    bad("record %d: async %s begun twice" % (i, k))
                asyncs[k] = ts
            elif ph == "e":
                k = (e.get("cat"), e["name"], e["id"])
                if k not in asyncs:
                    bad("record %d: async end %s without begin" % (i, k))
                elif asyncs.pop(k) > ts:
                    bad("record %d: async %s ends before it begins" % (i, k))
    except ValueError as ex:     # json.JSONDecodeError too
        print("not a trace-event document: %s" % ex)
        return 1
    for key, st in stack.items():
        if st:
            bad("track %s: %d B never ended (%s)" % (key, len(st), st[-1]))
    if flows:
        bad("%d flows never ended" % len(flows))
    if asyncs:
        bad("%d async slices never ended" % len(asyncs))
    for p in probs:
        print(p)
    if probs:
        return 1
    print(json.dumps({"phases": dict(phases), "processes": sorted(set(procs.values()))}))
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--count-slices"]:
        sys.exit(count_slices(sys.argv[3], sys.argv[2]))
    sys.exit(main(sys.argv[1]))
