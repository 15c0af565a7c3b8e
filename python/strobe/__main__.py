"""python3 -m strobe - a few command-line helpers over the strobe module,
and its help.  The `strobe` command itself does much more."""
import argparse
import json
import sys

import strobe


def main(argv=None):
    p = argparse.ArgumentParser(
        prog="python3 -m strobe",
        description="The strobe Python module: kernel tracing of processes and "
                    "containers (pydoc strobe for the API).",
        epilog="examples:\n"
               "  python3 -m strobe events 'sched:*'\n"
               "  python3 -m strobe read trace.dat | head\n"
               "  python3 -m strobe analyze trace.dat syscalls --group-by container\n"
               "  sudo python3 -m strobe trace -e syscalls:sys_enter_openat -- ls /",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version="strobe " + strobe.__version__)
    sub = p.add_subparsers(dest="cmd")
    e = sub.add_parser("events", help="list the kernel's events (root)")
    e.add_argument("pattern", nargs="?", help="glob over system:event")
    r = sub.add_parser("read", help="print a trace file's events")
    r.add_argument("file")
    r.add_argument("--json", action="store_true", help="one JSON object per event")
    a = sub.add_parser("analyze", help="run analyses over a trace file, print JSON")
    a.add_argument("file")
    a.add_argument("analyses", help="comma-separated: " + ",".join(strobe.analysis_names()))
    a.add_argument("--group-by", default="thread")
    a.add_argument("--filter", action="append",
                   help="only what EXPR holds for (strobe-expr(7); repeatable, ANDed)")
    t = sub.add_parser("trace", help="trace a command, print its events (root)")
    t.add_argument("-e", "--event", action="append", help="event spec (repeatable)")
    t.add_argument("argv", nargs=argparse.REMAINDER)
    o = p.parse_args(argv)
    try:
        if o.cmd == "events":
            print("\n".join(strobe.available_events(o.pattern)))
        elif o.cmd == "read":
            for ev in strobe.read_trace(o.file):
                if o.json:
                    print(json.dumps({"ts": ev.ts, "cpu": ev.cpu, "pid": ev.pid,
                                      "comm": ev.comm, "event": ev.name,
                                      "system": ev.system, "fields": ev.fields,
                                      "container": ev.container}))
                else:
                    print(ev)
        elif o.cmd == "analyze":
            for name, rows in strobe.analyze(o.file, o.analyses.split(","),
                                             group_by=o.group_by,
                                             filter=o.filter).items():
                print(json.dumps({"table": name, "rows": rows}))
        elif o.cmd == "trace":
            argv = o.argv[1:] if o.argv[:1] == ["--"] else o.argv
            if not argv:
                p.error("trace: a command is needed")
            return strobe.trace_process(argv, print, events=o.event)
        else:
            p.print_help()
    except BrokenPipeError:
        return 0
    except (OSError, ValueError) as err:
        print("python3 -m strobe: %s" % err, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
