# bpf-lib.sh - what the BPF kernel tests (80-bpf-snoop, 82-bpf-tools, ...)
# share, sourced after lib.sh:
#   bpf_need NAME       skip NAME and exit when strobe was built without
#                       BPF, bpftool is missing, or BPF objects named like
#                       strobe's are loaded already (another strobe);
#   bpf_leftovers       how many of strobe's BPF programs and maps are
#                       loaded: the names are read from lib/bpf/*.bpf.c
#                       (the kernel keeps 15 characters of a name), so a
#                       new program is checked without editing a list;
#   bpf_clean NAME      pass NAME-leaves-no-bpf-objects when none is left
#                       (the kernel frees them soon after the last
#                       descriptor closes: polls for 4 s), else fail;
#   bpf_ready PID       wait until strobe PID's instance has its events
#                       and tracing on (its BPF programs are attached
#                       before the recording starts); 1 if PID died.
BPFTOOL=$(command -v bpftool || echo /usr/sbin/bpftool)

bpf_leftovers() {
	"$BPFTOOL" -j prog show 2>/dev/null > $WORK/progs.json
	"$BPFTOOL" -j map show 2>/dev/null > $WORK/maps.json
	py 'import sys,json,re,glob
names=set()
for src in glob.glob(sys.argv[3] + "/lib/bpf/*.bpf.c"):
    t=open(src).read()
    names|={m[:15] for m in re.findall(r"SEC\(\"[^\"]*\"\)\s*int\s+(\w+)\s*\(", t)}
    names|={m[:15] for m in re.findall(r"\}\s*(\w+)\s+SEC\(\"\.maps\"\)", t)}
n=0
for f in sys.argv[1:3]:
    try: l=json.load(open(f))
    except Exception: l=[]
    n+=sum(1 for x in l if x.get("name","") in names or x.get("name","").startswith("strobe_s"))
print(n)' $WORK/progs.json $WORK/maps.json "$ROOT"
}

bpf_need() {
	if [ ! -e "$ROOT/build/bpf/snoop.skel.h" ]; then
		skip $1 "strobe was built without BPF (bpftool, clang, libbpf or BTF missing)"
		exit 0
	fi
	if [ ! -x "$BPFTOOL" ]; then
		skip $1 "bpftool not installed: BPF clean-up cannot be checked"
		exit 0
	fi
	if [ "$(bpf_leftovers)" != 0 ]; then
		skip $1 "BPF programs named like strobe's are loaded already (another strobe?)"
		exit 0
	fi
}

bpf_clean() {
	local i n
	for i in $(seq 40); do
		n=$(bpf_leftovers)
		[ "$n" = 0 ] && break
		sleep 0.1
	done
	[ "$n" = 0 ] && pass $1-leaves-no-bpf-objects ||
		fail $1-leaves-no-bpf-objects "$n programs and maps left"
}

bpf_ready() { tracing_started "$1"; }	# lib.sh
