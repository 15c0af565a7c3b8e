# 82-bpf-tools.sh - strobe syncsnoop and tcpretrans on the BPF source, in
# real containers (podman + runc, a busybox rootfs):
#   - syncsnoop -c NAME --json: a container's sync_work makes exactly
#     4 fsync (one fails with EBADF), 2 fdatasync, 1 sync, 1 syncfs,
#     1 msync, 1 sync_file_range: exactly those rows under its name, the
#     file named for every call that has one (stopped with SIGINT);
#   - tcpretrans -c NAME --json: retransmissions provoked on loopback in
#     the container's own network namespace (a connection, then an nft
#     rule there that drops what arrives for the server's port): as many
#     rows under the container's name, from the client's port to the
#     server's, as the namespace's Tcp RetransSegs counted (stopped with
#     SIGTERM);
#   - every exit path (SIGINT, SIGTERM, the end of -d, SIGKILL) leaves no
#     BPF program or map of strobe's (bpftool prog / map);
#   - --no-bpf: syncsnoop's same counts from tracefs alone, file null,
#     and one note that the FILE column is missing;
#   - tcpretrans refuses -p (a retransmission has no process);
#   - tracefs is left as it was.
. "$(dirname "$0")/lib.sh"
need_tracefs bpf-tools
. "$(dirname "$0")/bpf-lib.sh"
bpf_need bpf-tools
state() { tracefs_state | grep -v '^instance: '; }
before=$(state)
C=tools-$$
trap 'podman rm -f $C probe-$$ >/dev/null 2>&1; rm -rf "$WORK"' EXIT

make_rootfs
cp $HELPERS/sync_work $HELPERS/tcp_retrans $ROOTFS/bin/
if ! run_ct probe-$$ 'true'; then
	skip bpf-tools "cannot run a container: $(head -1 $WORK/podman.err)"
	exit 0
fi

# the sync rows of a JSON file: "fsync:ok fsync:ok ..." sorted, and the
# rows whose file is not .../data.bin where it should be
sync_rows() {
	py 'import sys,json
rows=[json.loads(l) for l in open(sys.argv[1])]
m=[r for r in rows if r["comm"]=="sync_work" and r["container"]==sys.argv[2]]
print(" ".join(sorted(r["call"]+":"+r.get("errno","ok") for r in m)))
want_file=sys.argv[3]=="file"
bad=[r for r in m if r["call"]!="sync" and r.get("errno") is None and
     (r["file"] is None or not r["file"].endswith("/data.bin")) == want_file]
print(len(bad), sum(1 for r in rows if r["container"]!=sys.argv[2]))' "$@"
}
WANT="fdatasync:ok fdatasync:ok fsync:EBADF fsync:ok fsync:ok fsync:ok msync:ok sync:ok sync_file_range:ok syncfs:ok"

# ---- syncsnoop -c NAME --json (SIGINT) ----
rm -f $ROOTFS/go $ROOTFS/data.bin
if run_ct -d $C '/bin/sync_work /data.bin /go; echo > /done'; then
	$STROBE syncsnoop -c $C --json -d 60 > $WORK/sync.json 2> $WORK/sync.err & sp=$!
	if bpf_ready $sp; then
		touch $ROOTFS/go
		for i in $(seq 400); do [ -e $ROOTFS/done ] && break; sleep 0.05; done
		sleep 0.3
	fi
	kill -INT $sp
	wait $sp
	rc=$?
	timeout 30 podman wait $C >/dev/null 2>&1
	podman rm -f $C >/dev/null 2>&1
	r=$(sync_rows $WORK/sync.json $C file 2>&1)
	[ $rc = 0 ] && [ "$r" = "$WANT
0 0" ] && pass bpf-tools-syncsnoop-exact-calls-with-files-under-container ||
		fail bpf-tools-syncsnoop-exact-calls-with-files-under-container \
			"exit $rc, got '$r' (want '$WANT' then '0 0'): $(head -2 $WORK/sync.err)"
else
	fail bpf-tools-syncsnoop-exact-calls-with-files-under-container "$(head -1 $WORK/podman.err)"
fi
bpf_clean bpf-tools-syncsnoop-sigint

# ---- tcpretrans -c NAME --json (SIGTERM) in the container's netns ----
rm -f $ROOTFS/go $ROOTFS/out
PORT=5555
if $PODMAN run -d --rm --network none --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 \
	--name $C --rootfs $ROOTFS /bin/sh -c "/bin/tcp_retrans $PORT 2 /go > /out 2>&1" \
	>/dev/null 2>$WORK/podman.err; then
	for i in $(seq 200); do grep -q connected $ROOTFS/out 2>/dev/null && break; sleep 0.05; done
	ctpid=$(podman inspect -f '{{.State.Pid}}' $C 2>/dev/null)
	$STROBE tcpretrans -c $C --json -d 60 > $WORK/tcp.json 2> $WORK/tcp.err & sp=$!
	nft_ok=0
	if bpf_ready $sp && [ -n "$ctpid" ] &&
	   nsenter -t $ctpid -n nft add table inet strobetest 2>$WORK/nft.err &&
	   nsenter -t $ctpid -n nft add chain inet strobetest in \
		'{ type filter hook input priority 0; }' 2>>$WORK/nft.err &&
	   nsenter -t $ctpid -n nft add rule inet strobetest in tcp dport $PORT drop 2>>$WORK/nft.err; then
		nft_ok=1
		touch $ROOTFS/go
		for i in $(seq 200); do grep -q retranssegs $ROOTFS/out && break; sleep 0.05; done
		sleep 0.3
	fi
	kill -TERM $sp
	wait $sp
	rc=$?
	timeout 30 podman wait $C >/dev/null 2>&1
	podman rm -f $C >/dev/null 2>&1
	n=$(sed -n 's/^retranssegs //p' $ROOTFS/out)
	if [ $nft_ok = 0 ]; then
		skip bpf-tools-tcpretrans "cannot drop packets in the container's network namespace: $(head -1 $WORK/nft.err)"
	elif [ -z "$n" ] || [ "$n" = 0 ]; then
		fail bpf-tools-tcpretrans-rows-equal-kernel-count-under-container \
			"no retransmission provoked: $(cat $ROOTFS/out)"
	else
		r=$(py 'import sys,json
rows=[json.loads(l) for l in open(sys.argv[1])]
m=[r for r in rows if r["container"]==sys.argv[2] and r["dport"]==int(sys.argv[3])
   and r["saddr"]=="127.0.0.1" and r["daddr"]=="127.0.0.1" and r["state"]=="ESTABLISHED" and r["ip"]==4]
print(len(m), sum(1 for r in rows if r["container"]!=sys.argv[2]))' $WORK/tcp.json $C $PORT 2>&1)
		[ $rc = 0 ] && [ "$r" = "$n 0" ] &&
			pass bpf-tools-tcpretrans-rows-equal-kernel-count-under-container ||
			fail bpf-tools-tcpretrans-rows-equal-kernel-count-under-container \
				"exit $rc, want '$n 0' (RetransSegs, other containers) got '$r': $(head -2 $WORK/tcp.err); rows: $(cut -c1-300 $WORK/tcp.json | tr '\n' ' ')"
	fi
else
	fail bpf-tools-tcpretrans-rows-equal-kernel-count-under-container "$(head -1 $WORK/podman.err)"
fi
bpf_clean bpf-tools-tcpretrans-sigterm

# ---- -d: the normal end ----
timeout 30 $STROBE tcpretrans -d 1 > /dev/null 2> $WORK/d.err
rc=$?
[ $rc = 0 ] && pass bpf-tools-tcpretrans-duration-exits-0 ||
	fail bpf-tools-tcpretrans-duration-exits-0 "exit $rc: $(head -2 $WORK/d.err)"
bpf_clean bpf-tools-duration-end

# ---- SIGKILL: nothing outlives the process ----
$STROBE syncsnoop -d 30 > /dev/null 2> $WORK/kill.err & sp=$!
if bpf_ready $sp && [ "$(bpf_leftovers)" != 0 ]; then
	kill -KILL $sp
	wait $sp 2>/dev/null
	bpf_clean bpf-tools-sigkill
	for i in $(seq 50); do [ -d $TRACEFS/instances/strobe-$sp ] || break; sleep 0.1; done
else
	kill $sp 2>/dev/null
	wait $sp 2>/dev/null
	fail bpf-tools-sigkill-leaves-no-bpf-objects "syncsnoop did not start with BPF: $(head -2 $WORK/kill.err)"
fi

# ---- --no-bpf: tracefs only, FILE missing, said once ----
timeout 60 $STROBE syncsnoop --no-bpf --json -- $HELPERS/sync_work $WORK/data.bin \
	> $WORK/nobpf.json 2> $WORK/nobpf.err
rc=$?
r=$(sync_rows $WORK/nobpf.json host nofile 2>&1)
said=$(grep -c 'without the files synced' $WORK/nobpf.err)
[ $rc = 0 ] && [ "$r" = "$WANT
0 0" ] && [ "$said" = 1 ] && pass bpf-tools-syncsnoop-no-bpf-same-calls-file-missing-said-once ||
	fail bpf-tools-syncsnoop-no-bpf-same-calls-file-missing-said-once \
		"exit $rc, got '$r', said $said times: $(head -2 $WORK/nobpf.err)"
[ "$(bpf_leftovers)" = 0 ] && pass bpf-tools-no-bpf-loads-nothing ||
	fail bpf-tools-no-bpf-loads-nothing

# ---- tcpretrans has no process to follow ----
$STROBE tcpretrans -p 1 > /dev/null 2> $WORK/p.err
rc=$?
[ $rc = 2 ] && grep -q 'strobe tcpretrans: .*no -p' $WORK/p.err &&
	pass bpf-tools-tcpretrans-refuses-pid ||
	fail bpf-tools-tcpretrans-refuses-pid "exit $rc: $(head -1 $WORK/p.err)"

after=$(state)
[ "$before" = "$after" ] && pass bpf-tools-tracefs-left-as-found ||
	fail bpf-tools-tracefs-left-as-found "$(diff <(echo "$before") <(echo "$after") | head -5)"
