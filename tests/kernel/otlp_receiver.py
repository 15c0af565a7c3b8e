#!/usr/bin/env python3
# otlp_receiver.py - a small OTLP/HTTP JSON receiver on loopback for the
# OTLP tests (84-otlp.sh): Python's http.server, a real HTTP server.
#
#   otlp_receiver.py PORTFILE OUTFILE [--fail N] [--retry-after SECS]
#
# Listens on 127.0.0.1 on a free port (written to PORTFILE once it
# listens).  Each POST to /v1/traces: the first N answer 503 (with
# Retry-After: SECS when given) and are not kept; later ones are parsed
# (gzip bodies too), each request appended to OUTFILE as one JSON line
# {"n": REQUEST_NUMBER, "headers": {...}, "body": ...} and answered 200
# with {"partialSuccess":{}}.  A body that is not JSON answers 400.
# Runs until killed (SIGTERM).
import gzip
import http.server
import json
import sys

portfile, outfile = sys.argv[1], sys.argv[2]
args = sys.argv[3:]
fail = int(args[args.index("--fail") + 1]) if "--fail" in args else 0
retry_after = args[args.index("--retry-after") + 1] if "--retry-after" in args else None
count = {"n": 0}


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def answer(self, code, body, extra=()):
        data = body.encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        raw = self.rfile.read(n)
        count["n"] += 1
        if self.path != "/v1/traces":
            self.answer(404, '{"message":"not found"}')
            return
        if count["n"] <= fail:
            self.answer(503, '{"message":"busy"}',
                        [("Retry-After", retry_after)] if retry_after else [])
            return
        if self.headers.get("Content-Encoding") == "gzip":
            raw = gzip.decompress(raw)
        try:
            body = json.loads(raw)
        except ValueError:
            self.answer(400, '{"message":"not JSON"}')
            return
        with open(outfile, "a") as f:
            f.write(json.dumps({"n": count["n"], "headers": dict(self.headers), "body": body}) + "\n")
        self.answer(200, '{"partialSuccess":{}}')


srv = http.server.HTTPServer(("127.0.0.1", 0), Handler)
with open(portfile + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
import os
os.rename(portfile + ".tmp", portfile)
srv.serve_forever()
