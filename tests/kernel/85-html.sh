# 85-html.sh - strobe html on a real recording: the request example
# (req_server) plus a busy loop in a real container, recorded with the
# sched and syscalls presets and kernel stacks at context switches.  The
# page must be well-formed (an XML parser reads it), self-contained (no
# http(s) reference, no external src/href), its style sheet raw text (no
# character reference, which a browser would not decode), hold the
# summary, the tables
# of cputop, syscalls and schedlat with the container's row, histograms
# (those left out named; --histograms all draws them),
# the heat map and the flame graph (inline SVG), escape a hostile
# --title, and render in headless Chromium with no console message
# (tests/kernel/chromium.sh; screenshots kept in $SCREENSHOT_DIR when
# set).  A file without syscalls or stacks says so instead of drawing.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/chromium.sh"
need_tracefs html
before=$(tracefs_state)
C=html-$$
trap 'podman rm -f $C >/dev/null 2>&1; rm -rf "$WORK"' EXIT
if [ -z "$CHROMIUM" ]; then
	skip html "chromium not installed"
	exit 0
fi
F=$WORK/h.dat
ct=
if command -v podman >/dev/null && [ -x /usr/sbin/runc ] && command -v busybox >/dev/null; then
	make_rootfs
	run_ct -d $C 'for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30; do /bin/getppid_n 20000 >/dev/null; sleep 0.1; done' && ct=$C
fi
timeout 60 $STROBE record -o $F --preset sched,syscalls --stacks -d 2 > $F.stdout 2> $F.stderr &
rp=$!
sleep 0.5
$HELPERS/req_server both 20,40,60 > $WORK/srv.out
wait $rp
rc=$?
podman rm -f $C >/dev/null 2>&1
if [ $rc != 0 ]; then
	fail html-record "$(tail -3 $F.stderr)"
	exit 0
fi
timeout 120 $STROBE html -i $F -o $WORK/r.html --title 'web <b>&amp; "db"' 2> $WORK/h.err
rc=$?
r=$(py '
import sys, re, xml.etree.ElementTree as E
ns = {"h": "http://www.w3.org/1999/xhtml", "s": "http://www.w3.org/2000/svg"}
src = open(sys.argv[1], encoding="utf-8").read()
t = E.fromstring(src)
bad = []
if re.search(r"(src|href)=\"(https?:)?//", src) or "http://" in re.sub(r"xmlns(:\w+)?=\"[^\"]*\"", "", src).replace("http://www.w3.org", ""):
    bad.append("an outside reference")
title = t.find("h:head/h:title", ns).text
# a browser reads <style> as raw text: a character reference there is not
# decoded and would drop the rules after it
st = re.search(r"<style>(.*?)</style>", src, re.S)
if not st or "&" in st.group(1): bad.append("a character reference in <style>")
if title != "web <b>&amp; \"db\"": bad.append("title %r" % title)
tables = {x.get("data-table"): x for x in t.iter("{%s}table" % ns["h"]) if x.get("data-table")}
for want in ("cputop.containers", "syscalls.top", "schedlat.top"):
    if not any(k.startswith(want.split(".")[0]) for k in tables): bad.append("no %s table" % want)
ct = sys.argv[2]
if ct and not any(ct in "".join(x.itertext()) for k, x in tables.items() if k.startswith("cputop")): bad.append("container %s not in cputop" % ct)
if not any(x.get("class") == "hist" for x in tables.values()): bad.append("no histogram")
svgs = list(t.iter("{%s}svg" % ns["s"]))
if len(svgs) != 2: bad.append("%d inline SVGs" % len(svgs))
if "Off-CPU" not in "".join(svgs[-1].itertext()) if svgs else True: bad.append("no flame graph")
print("ok" if not bad else "; ".join(bad))' $WORK/r.html "$ct")
[ $rc = 0 ] && [ "$r" = ok ] && pass html-page-well-formed-self-contained-with-tables-histograms-pictures ||
	fail html-page-well-formed-self-contained-with-tables-histograms-pictures "rc=$rc $r $(head -c 300 $WORK/h.err)"
if shot $WORK/r.html $WORK/html.png 1280 3000; then
	pass html-renders-in-chromium-without-console-messages
else
	fail html-renders-in-chromium-without-console-messages "$(head -3 $WORK/html*.png.console; tail -2 $WORK/html.png.log)"
fi

# every histogram: those the page leaves out are named (counted in its
# notes), and --histograms all draws them all
timeout 120 $STROBE html -i $F -o $WORK/all.html --histograms all -q 2> $WORK/all.err
rc=$?
r=$(py '
import re, sys, xml.etree.ElementTree as E
H = "{http://www.w3.org/1999/xhtml}"
def page(p):
    t = E.parse(p).getroot()
    notes = [("".join(x.itertext())) for x in t.iter(H + "p") if x.get("class") == "note"]
    return [x for x in t.iter(H + "table") if x.get("class") == "hist"], "\n".join(notes)
d, dt = page(sys.argv[1])
a, at = page(sys.argv[2])
named = sum(int(n) for n in re.findall(r"(\d+) more histograms? not drawn", dt))
bad = []
if len(a) != len(d) + named:
    bad.append("--histograms all drew %d, the default page %d and named %d" % (len(a), len(d), named))
if re.search(r"more histograms? not drawn", at):
    bad.append("--histograms all still leaves some out")
print("ok %d %d" % (len(d), named) if not bad else "; ".join(bad))' $WORK/r.html $WORK/all.html)
[ $rc = 0 ] && [ "${r%% *}" = ok ] && pass "html-names-the-histograms-it-leaves-out-all-draws-them (${r#ok })" ||
	fail html-names-the-histograms-it-leaves-out-all-draws-them "rc=$rc $r $(head -c 200 $WORK/all.err)"

# a file with neither syscalls nor stacks: notes, no pictures
F2=$WORK/s.dat
if timeout 60 $STROBE record -o $F2 --preset sched -- $HELPERS/sleep_n 3 50 > /dev/null 2> $F2.stderr; then
	timeout 60 $STROBE html -i $F2 -o $WORK/s.html -q 2> $WORK/s.err
	rc=$?
	r=$(py '
import sys, xml.etree.ElementTree as E
src = open(sys.argv[1]).read(); t = E.fromstring(src)
ok = "No heat map" in src and "No flame graph" in src and not list(t.iter("{http://www.w3.org/2000/svg}svg")) and "cputop" in src
print("ok" if ok else "notes or pictures wrong")' $WORK/s.html)
	[ $rc = 0 ] && [ "$r" = ok ] && pass html-without-syscalls-or-stacks-says-so ||
		fail html-without-syscalls-or-stacks-says-so "rc=$rc $r $(head -c 200 $WORK/s.err)"
else
	fail html-record-sched "$(tail -2 $F2.stderr)"
fi
$STROBE html -i $F > /dev/null 2> $WORK/u.err; rc=$?
[ $rc = 2 ] && grep -q "strobe html: where to" $WORK/u.err && pass html-needs-an-output ||
	fail html-needs-an-output "rc=$rc $(cat $WORK/u.err)"
$STROBE html -i $WORK/nope.dat -o $WORK/x.html 2> $WORK/u2.err; rc=$?
[ $rc = 1 ] && grep -q "strobe html: " $WORK/u2.err && [ ! -e $WORK/x.html ] && pass html-missing-file-fails-cleanly ||
	fail html-missing-file-fails-cleanly "rc=$rc $(cat $WORK/u2.err)"

after=$(tracefs_state)
[ "$before" = "$after" ] && pass html-tracefs-left-as-found ||
	fail html-tracefs-left-as-found "$(diff <(echo "$before") <(echo "$after") | head -5)"
