#!/bin/bash
# 60-faults-files.sh - damaged trace files never crash or hang strobe.
#
# A real recording (strobe's v6 file, and trace-cmd's v7 zstd conversion
# of it) is damaged in every way a disk, a copy or a hostile sender can:
# truncated at every section boundary of the layout (initial header,
# header_page, header_event, each event format, each system, kallsyms,
# printk, cmdlines, CPU count, each option, the flyrecord table, the
# clock, each CPU's data and page boundaries in it) and at random
# offsets; random bytes flipped in the headers and in the pages.  Each
# damaged file is read by `strobe report` (text and JSON) and by the
# sanitizer build, under a timeout.  Allowed outcomes: exit 0 or a clean
# error (exit 1, a message naming the file); for truncated files that are
# still read, every event line printed must be a line of the intact
# file's report (a correct partial result).  Not allowed: a signal, a
# timeout, a sanitizer report.  The damage is random but seeded, and the
# seed is printed, so a failure can be replayed.
. "$(dirname "$0")/lib.sh"
need_tracefs faults-files
SAN=$ROOT/build/san/strobe
[ -x "$SAN" ] || { skip faults-files "build/san/strobe missing (make check builds it)"; exit 0; }
SEED=${FAULT_SEED:-$RANDOM}
echo "(seed $SEED; FAULT_SEED=$SEED replays it)"

F6=$WORK/good.dat
if ! timeout 60 "$STROBE" record -q -o "$F6" -b 256 -e sched -e raw_syscalls \
	-e syscalls:sys_enter_openat -e syscalls:sys_exit_openat -- \
	sh -c 'ls / >/dev/null; cat /etc/hostname >/dev/null' 2>"$WORK/rec.err"; then
	fail faults-files-record "$(cat "$WORK/rec.err")"
	exit 0
fi
files=("$F6")
if command -v trace-cmd >/dev/null &&
   trace-cmd convert --file-version 7 --compression zstd -i "$F6" -o "$WORK/good7.dat" >/dev/null 2>&1; then
	files+=("$WORK/good7.dat")
fi

export ASAN_OPTIONS=detect_leaks=1:exitcode=99
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=98

# mutate.py GOOD OUTDIR SEED: write the damaged variants, one per file,
# named trunc-* (truncations) and flip-* (flipped bytes)
cat > "$WORK/mutate.py" <<'EOF'
import os, random, struct, sys
good, out, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
data = open(good, "rb").read()
rnd = random.Random(seed)
cuts, header_end = set(), len(data)

def v6_boundaries(d):
    """Offsets where a section of a v6 file starts or ends."""
    b, p = [], 10
    u = lambda fmt, at: struct.unpack_from(fmt, d, at)[0]
    p = d.index(b"\0", p) + 1 + 2 + 4; b.append(p)             # initial header
    for marker in (b"header_page\0", b"header_event\0"):
        p += len(marker); b.append(p)
        n = u("<Q", p); p += 8; b.append(p); p += n; b.append(p)
    def formats(p):
        cnt = u("<I", p); p += 4; b.append(p)
        for _ in range(cnt):
            n = u("<Q", p); p += 8; b.append(p); p += n; b.append(p)
        return p
    p = formats(p)                                              # ftrace
    systems = u("<I", p); p += 4; b.append(p)
    for _ in range(systems):
        p = d.index(b"\0", p) + 1; b.append(p); p = formats(p)
    for size in ("<I", "<I", "<Q"):                             # kallsyms, printk, cmdlines
        n = u(size, p); p += struct.calcsize(size); b.append(p); p += n; b.append(p)
    cpus = u("<I", p); p += 4; b.append(p)
    clock = False
    if d[p:p + 10] == b"options  \0":
        p += 10; b.append(p)
        while True:
            oid = u("<H", p); p += 2
            if oid == 0:
                break
            n = u("<I", p); p += 4; b.append(p); p += n; b.append(p)
            clock |= oid == 4
        b.append(p)
    p += 10; b.append(p)                                        # flyrecord
    table = [struct.unpack_from("<QQ", d, p + 16 * i) for i in range(cpus)]
    p += 16 * cpus; b.append(p)
    if clock:
        n = u("<Q", p); p += 8; b.append(p); p += n; b.append(p)
    hdr = p
    page = u("<I", d.index(b"\0", 10) + 3)
    for off, size in table:
        pages = list(range(off, off + size + 1, page))
        b += pages[:4] + pages[-3:]
    return b, hdr

try:
    if data[10:12] == b"6\0":
        bounds, header_end = v6_boundaries(data)
        cuts.update(bounds)
except (struct.error, ValueError):
    pass
# v7 (sections, compressed data): random cuts and flips only
cuts.update(rnd.randrange(1, len(data)) for _ in range(25))
cuts.update(rnd.randrange(1, min(len(data), 4096)) for _ in range(10))
cuts = sorted(c for c in cuts if 0 < c < len(data))
for c in cuts:
    open(os.path.join(out, "trunc-%d" % c), "wb").write(data[:c])
for i in range(40):
    d = bytearray(data)
    # half in the metadata (not kallsyms' bulk: pick near the structure),
    # half anywhere (mostly pages)
    for _ in range(rnd.randrange(1, 9)):
        if i % 2 and header_end < len(data):
            at = rnd.randrange(0, len(data))
        else:
            at = rnd.choice([rnd.randrange(0, 512), rnd.randrange(max(1, header_end - 2048), header_end)])
        d[at] ^= 1 << rnd.randrange(8)
    open(os.path.join(out, "flip-%d" % i), "wb").write(d)
EOF

# read_ok NAME FILE BIN [ARGS]: allowed outcome?  Prints why not.
read_ok() {
	local out=$WORK/out.txt err=$WORK/err.txt rc
	timeout 20 "$3" report "${@:4}" "$2" > "$out" 2> "$err"
	rc=$?
	if [ $rc = 0 ] || { [ $rc = 1 ] && [ -s "$err" ] && ! grep -q Sanitizer "$err"; }; then
		return 0
	fi
	echo "$(basename "$3") report ${*:4} $1: exit $rc $(grep -m1 -E 'Sanitizer|runtime error|strobe' "$err")"
	return 1
}

for good in "${files[@]}"; do
	tag=v$(head -c 12 "$good" | tail -c 2 | head -c 1)
	D=$WORK/damaged-$tag
	mkdir -p "$D"
	python3 "$WORK/mutate.py" "$good" "$D" "$SEED" || { fail faults-files-$tag-mutate; continue; }
	"$STROBE" report "$good" > "$WORK/full.txt" 2>/dev/null
	nt=0 nf=0 bad=() partial_bad=()
	nread=0
	for f in "$D"/trunc-*; do
		nt=$((nt + 1))
		why=$(read_ok "$(basename "$f")" "$f" "$SAN") || bad+=("$why")
		why=$(read_ok "$(basename "$f")" "$f" "$STROBE") || bad+=("$why")
		# a truncated file that is read prints only true events
		if [ -s "$WORK/out.txt" ] && ! grep -q . "$WORK/err.txt"; then
			nread=$((nread + 1))
			extra=$(grep -vxF -f "$WORK/full.txt" "$WORK/out.txt" | grep -v '^cpus=' | head -1)
			[ -n "$extra" ] && partial_bad+=("$(basename "$f"): '$extra'")
		fi
	done
	for f in "$D"/flip-*; do
		nf=$((nf + 1))
		why=$(read_ok "$(basename "$f")" "$f" "$SAN") || bad+=("$why")
		why=$(read_ok "$(basename "$f")" "$f" "$SAN" --json) || bad+=("$why")
	done
	echo "($tag: $nread of $nt truncated files read without a message, the others refused cleanly)"
	if [ ${#bad[@]} = 0 ]; then
		pass faults-files-$tag-$nt-truncations-$nf-flips-no-crash-no-hang
	else
		fail faults-files-$tag-$nt-truncations-$nf-flips-no-crash-no-hang \
			"${#bad[@]} bad (seed $SEED): ${bad[0]}"
	fi
	if [ ${#partial_bad[@]} = 0 ]; then
		pass faults-files-$tag-truncated-files-give-true-partial-results
	else
		fail faults-files-$tag-truncated-files-give-true-partial-results \
			"${#partial_bad[@]} files (seed $SEED): ${partial_bad[0]}"
	fi
done

# a file cut inside its CPU data says what it read and exits 0 or 1 with a
# message naming the file, never silently
half=$(( $(stat -c %s "$F6") - 3000 ))
head -c $half "$F6" > "$WORK/cut.dat"
out=$("$STROBE" report "$WORK/cut.dat" 2>&1 >/dev/null)
rc=$?
if { [ $rc = 0 ] || [ $rc = 1 ]; } && { [ $rc = 0 ] || [[ "$out" == *cut.dat* ]]; }; then
	pass faults-files-cut-data-clean-outcome
else fail faults-files-cut-data-clean-outcome "rc=$rc $out"; fi
