# 91-records-stored.sh - records beyond ftrace pages stored in trace.dat
# (strobe-tracefile(3), "Records beyond ftrace pages"): BPF records and
# perf samples go into instance buffers of the recording, and every
# reader finds them there again:
#   - strobe opensnoop -x -c NAME --json -o FILE on a busybox container
#     whose program opens a missing path exactly 7 times: the live rows
#     have those 7, `strobe opensnoop -x --json -i FILE` prints exactly
#     the rows the live run printed, trace-cmd report reads the file
#     (exit 0) and shows as many strobe_bpf records as strobe says it
#     kept, strobe report prints the same strobe_bpf lines;
#   - strobe record --profile -- profile_work: trace-cmd report reads it,
#     its strobe_perf records are as many as strobe stored, strobe
#     profile -i FILE finds hot_loop (at least half of the samples,
#     70% of the work; a short run on a loaded machine varies), and
#     strobe flamegraph --on-cpu -i FILE draws it;
#   - SIGINT in the middle of a --profile recording: exit 130, the file
#     is readable (trace-cmd report exit 0, samples in it), and nothing
#     but the file is left in its folder (the packer's temporary files
#     went with the process);
#   - the flight recorder refuses records beyond ftrace pages clearly;
#   - tracefs is left as it was, no container is left.
. "$(dirname "$0")/lib.sh"
need_tracefs records-stored
if ! command -v trace-cmd >/dev/null; then
	skip records-stored "trace-cmd is not installed"
	exit 0
fi
state() { tracefs_state | grep -v '^instance: '; }
before=$(state)
C=stored-$$
trap 'podman rm -f $C probe-$$ >/dev/null 2>&1; rm -rf "$WORK"' EXIT

# ready PID: strobe's instance has its events and tracing on
ready() { tracing_started "$1"; }	# lib.sh

# ---- BPF records: opensnoop -o in a container ----
if [ ! -e "$ROOT/build/bpf/snoop.skel.h" ]; then
	skip records-stored-bpf "strobe was built without BPF (bpftool, clang, libbpf or BTF missing)"
else
	make_rootfs
	cp $HELPERS/openat_n $ROOTFS/bin/
	if ! run_ct probe-$$ 'true'; then
		skip records-stored-bpf "cannot run a container: $(head -1 $WORK/podman.err)"
	else
		MISSING=/missing-$$
		rm -f $ROOTFS/go $ROOTFS/done
		mkdir -p $WORK/bpf
		run_ct -d $C "while [ ! -e /go ]; do sleep 0.02; done
/bin/openat_n 7 $MISSING
echo > /done"
		$STROBE opensnoop -x -c $C --json -o $WORK/bpf/os.dat -d 60 > $WORK/live.json \
			2> $WORK/live.err & sp=$!
		if ready $sp; then
			touch $ROOTFS/go
			for i in $(seq 200); do [ -e $ROOTFS/done ] && break; sleep 0.05; done
			sleep 0.3
			kill -INT $sp
		fi
		wait $sp
		rc=$?
		timeout 30 podman wait $C >/dev/null 2>&1
		podman rm -f $C >/dev/null 2>&1
		kept=$(sed -n 's/^strobe opensnoop: .*: \([0-9]*\) BPF records kept$/\1/p' $WORK/live.err)
		[ $rc = 0 ] && [ -n "$kept" ] && [ "$(ls -A $WORK/bpf)" = os.dat ] &&
			pass records-stored-opensnoop-o-writes-the-file ||
			fail records-stored-opensnoop-o-writes-the-file \
				"rc=$rc kept='$kept' dir='$(ls -A $WORK/bpf | tr '\n' ' ')' $(head -3 $WORK/live.err)"
		n=$(py 'import sys,json
rows=[json.loads(l) for l in open(sys.argv[1])]
print(sum(1 for r in rows if r.get("path")==sys.argv[2] and r.get("errno")=="ENOENT" and r.get("container")==sys.argv[3]))' \
			$WORK/live.json $MISSING $C 2>&1)
		[ "$n" = 7 ] && pass records-stored-live-rows-exact ||
			fail records-stored-live-rows-exact "want 7 ENOENT rows of $MISSING, got '$n'"
		$STROBE opensnoop -x --json -i $WORK/bpf/os.dat > $WORK/file.json 2> $WORK/file.err
		rc=$?
		[ $rc = 0 ] && [ -s $WORK/live.json ] && cmp -s $WORK/live.json $WORK/file.json &&
			pass records-stored-opensnoop-i-same-rows-as-live ||
			fail records-stored-opensnoop-i-same-rows-as-live \
				"rc=$rc $(diff $WORK/live.json $WORK/file.json | head -4 | tr '\n' ' ') $(head -2 $WORK/file.err)"
		trace-cmd report $WORK/bpf/os.dat > $WORK/os.tc 2> $WORK/os.tc.err
		rc=$?
		ntc=$(grep -c '^ *strobe_bpf: .* open: ' $WORK/os.tc)
		[ $rc = 0 ] && [ -n "$kept" ] && [ "$ntc" = "$kept" ] && [ "$kept" -ge 7 ] &&
			pass records-stored-trace-cmd-reads-bpf-buffer ||
			fail records-stored-trace-cmd-reads-bpf-buffer \
				"rc=$rc trace-cmd $ntc records, strobe kept '$kept' $(head -2 $WORK/os.tc.err)"
		$STROBE report $WORK/bpf/os.dat > $WORK/os.sr 2> $WORK/os.sr.err
		rc=$?
		[ $rc = 0 ] && [ "$(grep strobe_bpf: $WORK/os.tc)" = "$(grep strobe_bpf: $WORK/os.sr)" ] &&
			pass records-stored-report-same-lines-as-trace-cmd ||
			fail records-stored-report-same-lines-as-trace-cmd \
				"rc=$rc $(diff <(grep strobe_bpf: $WORK/os.tc) <(grep strobe_bpf: $WORK/os.sr) | head -4 | tr '\n' ' ')"
	fi
fi

# ---- perf samples: record --profile ----
mkdir -p $WORK/prof
timeout 120 $STROBE record --profile -e sched:sched_switch -o $WORK/prof/p.dat -- \
	$HELPERS/profile_work 3 > $WORK/p.out 2> $WORK/p.err
rc=$?
stored=$(sed -n 's/^strobe record: \([0-9]*\) perf records stored (\([0-9]*\) samples.*/\1 \2/p' $WORK/p.err)
if [ $rc != 0 ] && grep -q 'perf_event_open' $WORK/p.err; then
	skip records-stored-profile "$(grep -m1 perf_event_open $WORK/p.err)"
else
	[ $rc = 0 ] && [ -n "$stored" ] && [ "$(ls -A $WORK/prof)" = p.dat ] &&
		pass records-stored-record-profile-writes-the-file ||
		fail records-stored-record-profile-writes-the-file \
			"rc=$rc stored='$stored' dir='$(ls -A $WORK/prof | tr '\n' ' ')' $(head -3 $WORK/p.err)"
	trace-cmd report $WORK/prof/p.dat > $WORK/p.tc 2> $WORK/p.tc.err
	rc=$?
	ntc=$(grep -c '^ *strobe_perf: ' $WORK/p.tc)
	nsamp=$(grep -c '^ *strobe_perf: .* sample: ' $WORK/p.tc)
	nswitch=$(grep -c ' sched_switch: ' $WORK/p.tc)
	[ $rc = 0 ] && [ "$ntc $nsamp" = "$stored" ] && [ "$nswitch" -gt 0 ] &&
		pass records-stored-trace-cmd-reads-perf-buffer-beside-events ||
		fail records-stored-trace-cmd-reads-perf-buffer-beside-events \
			"rc=$rc trace-cmd '$ntc $nsamp' (records, samples), strobe '$stored', $nswitch switches $(head -2 $WORK/p.tc.err)"
	$STROBE profile -i $WORK/prof/p.dat --folded > $WORK/p.folded 2> $WORK/pi.err
	rc=$?
	r=$(awk '{n=$NF; t+=n; if ($0 ~ /;hot_loop [0-9]+$/) h+=n} END {print t, (t ? int(100*h/t) : 0)}' $WORK/p.folded)
	set -- $r
	[ $rc = 0 ] && [ "${1:-0}" = "${stored##* }" ] && [ "${2:-0}" -ge 50 ] &&
		pass records-stored-profile-i-finds-hot-function ||
		fail records-stored-profile-i-finds-hot-function \
			"rc=$rc samples/hot%='$r' stored='$stored' $(head -3 $WORK/p.folded | tr '\n' ' ') $(head -2 $WORK/pi.err)"
	$STROBE flamegraph --on-cpu -q -i $WORK/prof/p.dat -o $WORK/on.svg 2> $WORK/on.err
	rc=$?
	[ $rc = 0 ] && grep -q '<svg' $WORK/on.svg && grep -q 'hot_loop' $WORK/on.svg &&
		pass records-stored-flamegraph-on-cpu-from-file ||
		fail records-stored-flamegraph-on-cpu-from-file "rc=$rc $(head -2 $WORK/on.err)"

	# ---- SIGINT in the middle ----
	mkdir -p $WORK/int
	$STROBE record -q --profile -e sched:sched_switch -o $WORK/int/s.dat -- \
		$HELPERS/profile_work 30 > /dev/null 2> $WORK/int.err & sp=$!
	ready $sp && sleep 1.5
	kill -INT $sp
	wait $sp
	rc=$?
	trace-cmd report $WORK/int/s.dat > $WORK/s.tc 2> $WORK/s.tc.err
	rc2=$?
	ns=$(grep -c '^ *strobe_perf: .* sample: ' $WORK/s.tc)
	[ $rc = 130 ] && [ $rc2 = 0 ] && [ "$ns" -gt 0 ] && [ "$(ls -A $WORK/int)" = s.dat ] &&
		! ls $TRACEFS/instances | grep -q "^strobe-$sp\$" &&
		pass records-stored-sigint-readable-file-no-temp-files ||
		fail records-stored-sigint-readable-file-no-temp-files \
			"rc=$rc report=$rc2 samples=$ns dir='$(ls -A $WORK/int | tr '\n' ' ')' $(head -2 $WORK/int.err)"
fi

# ---- the flight recorder says it does not keep them ----
$STROBE record --profile --flight-recorder 1M -o $WORK/fl.dat -- true > /dev/null 2> $WORK/fl.err
rc=$?
[ $rc = 1 ] && grep -q 'flight recorder does not keep records beyond ftrace pages' $WORK/fl.err &&
	pass records-stored-flight-recorder-refuses-clearly ||
	fail records-stored-flight-recorder-refuses-clearly "rc=$rc $(head -2 $WORK/fl.err)"

after=$(state)
[ "$after" = "$before" ] && ! podman ps -a --format '{{.Names}}' | grep -q "^$C\$" &&
	pass records-stored-tracefs-untouched-no-container-left ||
	fail records-stored-tracefs-untouched-no-container-left \
		"$(diff <(echo "$before") <(echo "$after") | tr '\n' ' ')"
