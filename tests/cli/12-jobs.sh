#!/bin/bash
# 12-jobs.sh - --jobs N gives what --jobs 1 gives (strobe-pipeline(3):
# consumers on worker threads, each with its own task models): every
# analysis (JSON and text, with histograms), periods with a definition
# and its log rows, why, report text, a Perfetto export, a heat map, the
# HTML page, folded stacks (81-flamegraph: with real stacks), several files
# on one timeline and an analysis window that ends early, with 2 and 3
# threads (3: more than this machine's cores), compared byte for byte
# (stdout, stderr and exit status) with --jobs 1.  Inputs: the recorded
# files of the fuzz corpus, synthetic files of bench/synth-trace (many
# batches, CPU migrations, records in a buffer of their own) and the
# damage matrix's files (lost events, damaged and truncated pages,
# damaged formats).  No root, no tracing.
. "$(dirname "$0")/lib.sh"
SYNTH=$ROOT/build/bench/synth-trace
if [ ! -x "$SYNTH" ]; then
	echo "FAIL jobs: build/bench/synth-trace is missing (make build/bench/synth-trace)"
	exit 1
fi
python3 "$ROOT/tests/damage/make-files" "$D/dmg" > /dev/null || echo "FAIL jobs_fixture: make-files"
"$SYNTH" -n 300000 -c 2 "$D/synth.dat" > /dev/null || echo "FAIL jobs_fixture: synth-trace"
"$SYNTH" -n 50000 -c 4 -s 7 -r 3000 "$D/synth-records.dat" > /dev/null ||
	echo "FAIL jobs_fixture: synth-trace -r"
files=("$D/synth.dat" "$D/synth-records.dat" "$ROOT"/tests/fuzz/corpus/fuzz_stream/*.dat
       "$D"/dmg/*.dat)
REQ='req : $evt.$name == "syscall_exit_accept4" && $evt.ret >= 0 : $evt.$name == "syscall_entry_close" && $evt.fd == $begin.$evt.ret && $evt.tid == $begin.$evt.tid'

# same NAME ARGS...: the command with --jobs 1 and 2 over every file of
# $files, and 3 on the synthetic ones (FILE in ARGS is replaced by it;
# OUT by a file it writes, compared too)
same() {
	local name=$1 f j n=0 bad=
	shift
	for f in "${files[@]}"; do
		local jobs="1 2"
		case $f in "$D"/synth*) jobs="1 2 3";; esac
		for j in $jobs; do
			local args=("${@//FILE/$f}")
			args=("${args[@]//OUT/$D/out.$j}")
			rm -f "$D/out.$j"
			timeout 60 "$S" "${args[@]}" --jobs $j > "$D/stdout.$j" 2> "$D/stderr.$j"
			echo "exit $?" >> "$D/stderr.$j"
			[ -e "$D/out.$j" ] || : > "$D/out.$j"
		done
		for j in ${jobs#1 }; do
			if ! cmp -s "$D/stdout.1" "$D/stdout.$j" || ! cmp -s "$D/stderr.1" "$D/stderr.$j" ||
			   ! cmp -s "$D/out.1" "$D/out.$j"; then
				bad="$bad $(basename "$f"):$j"
				[ -n "$shown" ] || { shown=1; diff "$D/stdout.1" "$D/stdout.$j" | head -5
					diff "$D/stderr.1" "$D/stderr.$j" | head -5; }
			fi
		done
		n=$((n + 1))
	done
	[ -z "$bad" ] && echo "PASS jobs_same_$name ($n files)" || echo "FAIL jobs_same_$name:$bad"
}
shown=
# every file: the damage policy and lost events
same analyses_json analyze -a cputop,syscalls,schedlat,io,irq,mem --json --freq -i FILE
same periods periods --period "$REQ" --stats --log --freq --json -i FILE
same report report -i FILE
same perfetto export --format perfetto -q -o OUT -i FILE
same heatmap heatmap -a syscalls -q -o OUT -i FILE
same html html -q -o OUT -i FILE
same flamegraph flamegraph --folded -q -i FILE
# the synthetic and recorded files (the damage matrix's intact one and its
# lost events; not the damaged ones: with an analysis window that ends
# early, the reading thread may read a few batches past its end and warn
# of time going backwards there, which strobe-pipeline(3) says)
files=("$D/synth.dat" "$D/synth-records.dat" "$ROOT"/tests/fuzz/corpus/fuzz_stream/*.dat
       "$D"/dmg/intact-v*.dat "$D"/dmg/page-lost-events.dat)
same analyses_text analyze -a cputop,syscalls,schedlat,io,irq,mem --stats --top 50 -i FILE
same cputop_containers cputop --group-by container -i FILE
same why why -c web -i FILE
same report_ns report -t -i FILE
same window analyze -a cputop,syscalls --end +0.5 -i FILE
same two_files analyze -a cputop,syscalls,schedlat --json -i FILE -i "$D/synth.dat"

# a closed pipe ends every thread count the same way: SIGPIPE (141), no
# message (a worker thread's write, signals blocked there, used to fail
# with "write error on standard output: Inappropriate ioctl for device")
for c in "report" "export --format perfetto -q -o -" "analyze -a syscalls --log"; do
	for j in 1 2; do
		"$S" $c --jobs $j -i "$D/synth.dat" 2> "$D/pipe.$j" | head -c 100 > /dev/null
		echo "exit ${PIPESTATUS[0]}" >> "$D/pipe.$j"
	done
	if grep -qx "exit 141" "$D/pipe.1" && cmp -s "$D/pipe.1" "$D/pipe.2"; then
		echo "PASS jobs_closed_pipe_${c%% *}"
	else
		echo "FAIL jobs_closed_pipe_${c%% *}: $(tr '\n' ' ' < "$D/pipe.1") / $(tr '\n' ' ' < "$D/pipe.2")"
	fi
done

t jobs_bad_value 2 "bad value '0'" "$S" analyze -a cputop --jobs 0 -i "$D/synth.dat"
t jobs_report_bad_value 2 "bad --jobs 'x'" "$S" report --jobs x -i "$D/synth.dat"
t jobs_picture_bad_value 2 "bad --jobs '0' (1 to 1024)" "$S" flamegraph --jobs 0 -i "$D/synth.dat"
# the threads are there: --jobs 1 starts none, --jobs 2 one worker for
# the one consumer, --jobs 3 three for two files (their analyses and the
# consumer that writes the files' clock note)
threads() {
	strace -f -qq -e trace=clone,clone3 -o "$D/strace" "$S" "$@" > /dev/null 2>&1
	grep -c 'clone' "$D/strace"
}
if command -v strace > /dev/null; then
	n1=$(threads analyze -a cputop --jobs 1 -i "$D/synth.dat")
	n2=$(threads analyze -a cputop --jobs 2 -i "$D/synth.dat")
	n3=$(threads analyze -a cputop --jobs 3 -i "$D/synth.dat" -i "$D/synth-records.dat")
	# (relative to --jobs 1: a sanitizer build starts a thread of its own)
	[ "$((n2 - n1))/$((n3 - n1))" = 1/3 ] && echo "PASS jobs_threads" ||
		echo "FAIL jobs_threads: $n1/$n2/$n3 threads started, wanted 1 and 3 more than $n1"
	# no --jobs: the CPUs strobe may use (its affinity mask here)
	d1=$(taskset -c 0 strace -f -qq -e trace=clone,clone3 -o "$D/strace" \
		"$S" analyze -a cputop -i "$D/synth.dat" > /dev/null 2>&1; grep -c clone "$D/strace")
	if [ "$(nproc)" -ge 2 ]; then
		d2=$(taskset -c 0,1 strace -f -qq -e trace=clone,clone3 -o "$D/strace" \
			"$S" analyze -a cputop -i "$D/synth.dat" > /dev/null 2>&1; grep -c clone "$D/strace")
	else
		d2=$n2
	fi
	[ "$d1/$d2" = "$n1/$n2" ] && echo "PASS jobs_default_is_the_usable_cpus" ||
		echo "FAIL jobs_default_is_the_usable_cpus: one CPU $d1 and two $d2 threads, wanted $n1 and $n2"
else
	echo "SKIP jobs_threads: no strace"
fi

# damage past the point where every consumer was done (a window that ends
# early; a page near the end of CPU 0 damaged): neither noted nor fatal
# with --strict, with threads as without
end=$(python3 - "$ROOT" "$D/synth.dat" "$D/late.dat" <<'EOF'
import importlib.machinery, struct, sys
mf = importlib.machinery.SourceFileLoader(
    "make_files", sys.argv[1] + "/tests/damage/make-files").load_module()
d = bytearray(open(sys.argv[2], "rb").read())
fly = mf.v6_layout(bytes(d))["fly"]
off, size = fly[0]
page = off + size - 3 * 4096
first = min(struct.unpack_from("<Q", d, o)[0] for o, n in fly if n)
# the window ends 1 ms before the damaged page: within the reading
# thread's read-ahead (16 batches of 1024 events), not within one thread's
print("+%.6f" % ((struct.unpack_from("<Q", d, page)[0] - first) / 1e9 - 0.001))
struct.pack_into("<Q", d, page + 8, 0xfff0)
open(sys.argv[3], "wb").write(d)
EOF
) || echo "FAIL jobs_late_fixture: cannot damage synth.dat"
for strict in "" --strict; do
	for j in 1 2 3; do
		"$S" analyze -a cputop,syscalls --end "$end" $strict --jobs $j -i "$D/late.dat" \
			> "$D/late.$j" 2>&1
		echo "exit $?" >> "$D/late.$j"
	done
	if grep -q "exit 0" "$D/late.1" && ! grep -q damaged "$D/late.1" &&
	   cmp -s "$D/late.1" "$D/late.2" && cmp -s "$D/late.1" "$D/late.3"; then
		echo "PASS jobs_damage_past_the_window${strict:+_strict}"
	else
		echo "FAIL jobs_damage_past_the_window${strict:+_strict}"; diff "$D/late.1" "$D/late.2" | head -5
	fi
done
# ... and met before the window's end, it is noted (and fails --strict)
"$S" analyze -a cputop,syscalls --strict --jobs 2 -i "$D/late.dat" > /dev/null 2> "$D/late.err"
rc=$?
[ $rc = 1 ] && grep -q "damaged data (strict)" "$D/late.err" && echo "PASS jobs_damage_strict" ||
	{ echo "FAIL jobs_damage_strict: exit $rc"; head -3 "$D/late.err"; }
