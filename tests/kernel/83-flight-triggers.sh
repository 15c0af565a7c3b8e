#!/bin/bash
# 83-flight-triggers.sh - the flight recorder's named triggers on real
# workloads (78-flight.sh has the recorder itself, SIGUSR1, strobe
# trigger, --trigger-on, the rate limits and the signals):
#   - --trigger-exit: a podman container (runc, busybox rootfs) whose PID 1
#     exits with status 3 gives exactly one snapshot whose reason names
#     the container and status 3 (exit_group); one exiting 0 gives none;
#     a command killed by SIGTERM it sends itself names signal 15;
#   - --period DEF --trigger 'req > 500ms' on the request server
#     (tests/helpers/req_server.c): of 11 requests only the slow one
#     fires: exactly one snapshot, its reason naming the request, and
#     the snapshot holds the fast ones before it and the slow one;
#   - --trigger-oom: a podman container limited to 32 MiB whose job
#     allocates until the OOM killer ends it (tests/helpers/mem_hog.c):
#     exactly one snapshot, holding the oom:mark_victim, its reason
#     naming the victim, its container and its memory;
# tracefs as found, no container left.
. "$(dirname "$0")/lib.sh"
need_tracefs flight-triggers
BEFORE=$(tracefs_state)
P=flt$$-
trap 'for c in exit3 exit0 oom; do podman rm -f $P$c >/dev/null 2>&1; done; rm -rf "$WORK"' EXIT

info() { "$STROBE" report --info "$1" 2>&1 | sed -n "s/^$2=//p"; }
# strobe PID traces (lib.sh)
wait_tracing() { tracing_started "$1"; }

# ---- 1. --trigger-exit ------------------------------------------------------
have_podman=
if command -v podman >/dev/null && [ -x /usr/sbin/runc ] && command -v busybox >/dev/null; then
	make_rootfs
	have_podman=1
fi
# exit_ct STATUS: container $P"exit"STATUS waits for /goSTATUS, then its
# PID 1 (busy box sh) exits with STATUS; strobe records it with
# --trigger-exit -c until the container is gone; output $WORK/ctSTATUS.*
exit_ct() {
	local st=$1 c=${P}exit$1 sp i
	rm -f $ROOTFS/go$st
	run_ct -d $c "while [ ! -e /go$st ]; do sleep 0.02; done; getppid_n 500; exit $st" ||
		return 1
	timeout 60 "$STROBE" record --flight-recorder 4M --trigger-exit -e syscalls:sys_enter_getppid \
		-c $c -o $WORK/ct$st.dat 2>$WORK/ct$st.err & sp=$!
	wait_tracing $sp
	touch $ROOTFS/go$st
	for i in $(seq 100); do podman container exists $c || break; sleep 0.1; done
	sleep 0.3
	kill -INT $sp
	wait $sp
}
if [ -z "$have_podman" ]; then
	skip flight-trigger-exit-container "podman, runc or busybox-static not installed"
elif ! run_ct probe-$$ true; then
	skip flight-trigger-exit-container "cannot run a container: $(head -1 $WORK/podman.err)"
else
	exit_ct 3; rc=$?
	files=$(ls $WORK/ct3.*.dat 2>/dev/null)
	f=$(ls $WORK/ct3.001-*-exit-status.dat 2>/dev/null)
	reason=$([ -n "$f" ] && info "$f" flight_reason)
	n=$([ -n "$f" ] && trace-cmd report "$f" 2>/dev/null | grep -c 'sys_enter_getppid')
	if [ $rc = 0 ] && [ "$(echo "$files" | wc -w)" = 1 ] && [ -n "$f" ] && [ "$n" = 500 ] &&
	   [[ "$reason" == "pid "*" (sh) in container ${P}exit3 exited with status 3 (exit_group)" ]] &&
	   grep -q "1 snapshot, 1 trigger" $WORK/ct3.err; then
		pass flight-trigger-exit-container-status-3-one-snapshot
	else
		fail flight-trigger-exit-container-status-3-one-snapshot "rc=$rc files=$files getppid=$n reason=$reason $(cat $WORK/ct3.err $WORK/podman.err)"
	fi
	exit_ct 0; rc=$?
	if [ $rc = 0 ] && ! ls $WORK/ct0.*.dat >/dev/null 2>&1 &&
	   grep -q "0 snapshots, 0 triggers" $WORK/ct0.err; then
		pass flight-trigger-exit-container-status-0-no-snapshot
	else fail flight-trigger-exit-container-status-0-no-snapshot "rc=$rc $(ls $WORK) $(cat $WORK/ct0.err)"; fi
fi
# a command killed by the SIGTERM it sends itself (a traced sender:
# signal_generate names 15; the kernel delivers it as SIGKILL)
timeout 60 "$STROBE" record --flight-recorder 4M --trigger-exit -e syscalls:sys_enter_getppid \
	-o $WORK/term.dat -- sh -c "$HELPERS/getppid_n 300; kill -TERM \$\$" 2>$WORK/term.err
rc=$?
files=$(ls $WORK/term.*.dat 2>/dev/null)
f=$(ls $WORK/term.001-*-exit-status.dat 2>/dev/null)
reason=$([ -n "$f" ] && info "$f" flight_reason)
if [ $rc = 143 ] && [ "$(echo "$files" | wc -w)" = 1 ] &&
   [[ "$reason" == "pid "*" (sh) killed by signal 15 (SIGTERM, signal_generate)" ]]; then
	pass flight-trigger-exit-command-killed-by-sigterm
else fail flight-trigger-exit-command-killed-by-sigterm "rc=$rc files=$files reason=$reason $(cat $WORK/term.err)"; fi
out=$("$STROBE" record --flight-recorder 4M --trigger-exit -d 1 2>&1); rc=$?
if [ $rc = 2 ] && [[ "$out" == *"--trigger-exit needs a target"* ]]; then
	pass flight-trigger-exit-without-target-is-usage-error
else fail flight-trigger-exit-without-target-is-usage-error "rc=$rc $out"; fi

# ---- 2. --period DEF --trigger 'NAME > 500ms' ------------------------------
# the request server (req_server: accept4 ... close, a nanosleep of the
# duration the client asks inside): 5 fast requests, a slow one, 5 fast
REQ='req : $evt.$name == "syscall_exit_accept4" && $evt.ret >= 0 : $evt.$name == "syscall_entry_close" && $evt.fd == $begin.$evt.ret && $evt.tid == $begin.$evt.tid'
SLEEP='sleep(req) : $evt.$name == "syscall_entry_nanosleep" && $evt.tid == $parent.$begin.$evt.tid : $evt.$name == "syscall_exit_nanosleep" && $evt.tid == $begin.$evt.tid'
timeout 60 "$STROBE" record --flight-recorder 8M --period "$REQ" --period "$SLEEP" \
	--trigger 'req > 500ms' --trigger 'req/sleep >= 5s' -o $WORK/req.dat -- \
	$HELPERS/req_server both 20x5,700,20x5 >$WORK/req.out 2>$WORK/req.err
rc=$?
files=$(ls $WORK/req.*.dat 2>/dev/null)
f=$(ls $WORK/req.001-*-period.dat 2>/dev/null)
tid=$(sed -n 's/^server_tid=//p' $WORK/req.out)
reason=$([ -n "$f" ] && info "$f" flight_reason)
# the snapshot's own requests, closed, as strobe periods reads them: the
# five fast ones and the slow one, which is the last
got=$([ -n "$f" ] && "$STROBE" periods -i "$f" --period "$REQ" --log --json 2>/dev/null | py '
import sys, json
d = [o["duration"] for o in map(json.loads, sys.stdin)
     if o.get("table") == "periods.log" and o["status"] == "closed"]
slow = [x for x in d if x > 5e8]
print("ok" if len(slow) == 1 and len(d) >= 6 and d.index(slow[0]) >= 5 else d)')
if [ $rc = 0 ] && [ "$(echo "$files" | wc -w)" = 1 ] && [ "$got" = ok ] &&
   [[ "$reason" =~ ^"req > 500ms: period req of tid $tid from "[0-9.]+" lasted "(7[0-9][0-9]|[89][0-9][0-9]|[0-9]{4,})\.[0-9]+" ms"$ ]] &&
   grep -q "1 snapshot, 1 trigger" $WORK/req.err; then
	pass flight-period-trigger-only-the-slow-request-fires
else
	fail flight-period-trigger-only-the-slow-request-fires "rc=$rc files=$files reason=$reason periods=$got $(cat $WORK/req.err)"
fi
out=$("$STROBE" record --flight-recorder 4M --period "$REQ" --trigger 'res > 5ms' -- true 2>&1); rc=$?
if [ $rc = 2 ] && [[ "$out" == *"no --period is named 'res'"* ]]; then
	pass flight-period-trigger-of-an-unknown-period-is-usage-error
else fail flight-period-trigger-of-an-unknown-period-is-usage-error "rc=$rc $out"; fi

# ---- 3. --trigger-oom: a container with --memory 32m whose job allocates
# until the kernel's OOM killer ends it (mem_hog; its PID 1 shell lives)
if [ -z "$have_podman" ]; then
	skip flight-trigger-oom-container "podman, runc or busybox-static not installed"
else
	cp $HELPERS/mem_hog $ROOTFS/bin/
	c=${P}oom
	rm -f $ROOTFS/gooom $ROOTFS/oomrc
	# (in $WORK: conmon writes a file "oom" into its working directory)
	if ! (cd $WORK && $PODMAN run -d --rm --memory 32m --ulimit nofile=1024:1024 \
		--ulimit nproc=1024:1024 --name $c --rootfs $ROOTFS /bin/sh -c \
		'while [ ! -e /gooom ]; do sleep 0.02; done; mem_hog 1024; echo $? > /oomrc') \
		>/dev/null 2>$WORK/podman.err; then
		skip flight-trigger-oom-container "podman refuses a memory limit: $(head -1 $WORK/podman.err)"
	else
		timeout 60 "$STROBE" record --flight-recorder 4M --trigger-oom -c $c -o $WORK/oom.dat \
			2>$WORK/oom.err & sp=$!
		wait_tracing $sp
		touch $ROOTFS/gooom
		for i in $(seq 200); do podman container exists $c || break; sleep 0.1; done
		sleep 0.3
		kill -INT $sp
		wait $sp; rc=$?
		files=$(ls $WORK/oom.*.dat 2>/dev/null)
		f=$(ls $WORK/oom.001-*-oom.dat 2>/dev/null)
		reason=$([ -n "$f" ] && info "$f" flight_reason)
		victim=$([ -n "$f" ] && trace-cmd report "$f" 2>/dev/null | grep -c 'mark_victim:.*pid=')
		if [ $rc = 0 ] && [ "$(cat $ROOTFS/oomrc 2>/dev/null)" = 137 ] &&
		   [ "$(echo "$files" | wc -w)" = 1 ] && [ "$victim" = 1 ] &&
		   [[ "$reason" =~ ^"OOM kill of pid "[0-9]+" (mem_hog) in container $c, anon-rss "[0-9]+" kB (oom:mark_victim at " ]]; then
			pass flight-trigger-oom-container-one-snapshot-naming-the-victim
		else
			fail flight-trigger-oom-container-one-snapshot-naming-the-victim "rc=$rc job=$(cat $ROOTFS/oomrc 2>/dev/null) files=$files mark_victim=$victim reason=$reason $(cat $WORK/oom.err)"
		fi
	fi
fi

left=$(podman ps -aq --filter name=$P 2>/dev/null | wc -l)
if [ "$left" = 0 ] && tracefs_same "$BEFORE" "$(tracefs_state)"; then
	pass flight-triggers-tracefs-as-found-no-container-left
else fail flight-triggers-tracefs-as-found-no-container-left "containers=$left $(diff <(echo "$BEFORE") <(tracefs_state))"; fi
