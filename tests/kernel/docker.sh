# docker.sh - a private dockerd for the kernel tests (sourced after lib.sh
# by 56-docker.sh).  Debian's docker.io, started with everything of its
# own under $WORK/dk: data root, exec root (where it starts its own
# containerd, with that one's state and socket), pid file, API socket,
# daemon.json (so the machine's /etc/docker/daemon.json plays no part) and
# trust key (else written to /etc/docker/key.json); no network set-up
# (--bridge=none, no iptables: containers run with --network none); runc
# as the runtime (crun fails on this kernel's hybrid cgroups), the
# cgroupfs driver, the vfs storage driver (no overlay mounts to leave
# behind).  No registry is reachable: dk_image imports the busybox root
# file system of make_rootfs as an image.
#
#   dk_start        start it; 1 with the reason in DK_WHY if it cannot run
#   dk_image NAME   docker import of $ROOTFS as NAME
#   dk_stop         remove the containers, stop dockerd (and so its
#                   containerd and shims; if it had to be killed, their
#                   leftovers and the containers' tasks too), unmount what
#                   is left under $WORK/dk, remove the folders dockerd and
#                   containerd made in /run and the /docker cgroups if
#                   they were not there before
#
# The caller's EXIT trap must call dk_stop (it is safe to call twice and
# before dk_start).
DOCKERD=/usr/sbin/dockerd
# Debian's client, of the daemon's version (another docker on PATH may
# speak a newer API)
DOCKER_CLI=/usr/bin/docker
DKDIR=$WORK/dk
DK="$DOCKER_CLI -H unix://$DKDIR/docker.sock"
DKPID=
DK_WHY=
DK_RUN_DIRS=
DK_CGROUPS=

dk_start() {
	local d i
	if [ ! -x $DOCKERD ] || [ ! -x $DOCKER_CLI ]; then
		DK_WHY="docker.io not installed ($DOCKERD, $DOCKER_CLI)"; return 1
	fi
	# what dockerd (/run/docker/plugins) and containerd's shims
	# (/run/containerd/s) make in /run whatever their roots: removed by
	# dk_stop when they were not there before
	DK_RUN_DIRS=
	for d in /run/docker /run/containerd; do
		[ -e $d ] || DK_RUN_DIRS="$DK_RUN_DIRS $d"
	done
	# the cgroupfs driver's parent /docker in each hierarchy: removed
	# by dk_stop when it was not there before
	DK_CGROUPS=
	for d in /sys/fs/cgroup/*/; do
		[ -e ${d}docker ] || DK_CGROUPS="$DK_CGROUPS ${d}docker"
	done
	mkdir -p $DKDIR/data $DKDIR/exec
	echo "{\"deprecated-key-path\": \"$DKDIR/key.json\"}" > $DKDIR/daemon.json
	$DOCKERD --config-file $DKDIR/daemon.json --data-root $DKDIR/data \
		--exec-root $DKDIR/exec --pidfile $DKDIR/dockerd.pid \
		-H unix://$DKDIR/docker.sock --bridge=none --iptables=false \
		--ip6tables=false --ip-forward=false --ip-masq=false \
		--exec-opt native.cgroupdriver=cgroupfs --storage-driver vfs \
		--add-runtime strobe-runc=/usr/sbin/runc --default-runtime strobe-runc \
		>$DKDIR/dockerd.log 2>&1 &
	DKPID=$!
	for i in $(seq 300); do
		$DK info >/dev/null 2>&1 && return 0
		if ! kill -0 $DKPID 2>/dev/null; then
			wait $DKPID
			DK_WHY="dockerd exited ($?): $(grep -m1 -E 'level=(fatal|error)|failed' $DKDIR/dockerd.log | head -c 300)"
			DKPID=
			return 1
		fi
		sleep 0.1
	done
	DK_WHY="dockerd did not answer in 30 s: $(tail -1 $DKDIR/dockerd.log | head -c 300)"
	return 1
}

dk_image() {
	tar -C $ROOTFS -cf $DKDIR/rootfs.tar . &&
		$DK import $DKDIR/rootfs.tar "$1" >/dev/null 2>$DKDIR/import.err
}

# the PIDs of dockerd's containerd and shims (their parent chain leads to it)
dk_children() {
	local p
	for p in $(pgrep -f "$DKDIR/exec/containerd" 2>/dev/null); do echo $p; done
}

dk_stop() {
	local i p left m id c
	if [ -n "$DKPID" ] && kill -0 $DKPID 2>/dev/null; then
		local ids
		ids=$(timeout 20 $DK ps -aq 2>/dev/null)
		[ -n "$ids" ] && timeout 60 $DK rm -f $ids >/dev/null 2>&1
		kill -TERM $DKPID 2>/dev/null
		for i in $(seq 150); do kill -0 $DKPID 2>/dev/null || break; sleep 0.1; done
		kill -KILL $DKPID 2>/dev/null
		wait $DKPID 2>/dev/null
	fi
	DKPID=
	# a containerd or shim that outlived dockerd (only if it was killed)
	left=$(dk_children)
	if [ -n "$left" ]; then
		kill -TERM $left 2>/dev/null
		sleep 1
		left=$(dk_children)
		[ -n "$left" ] && kill -KILL $left 2>/dev/null
	fi
	# containers a killed shim left running: their cgroups' tasks
	for id in $(ls $DKDIR/data/containers 2>/dev/null); do
		for c in /sys/fs/cgroup/*/docker/$id; do
			[ -e $c/cgroup.procs ] || continue
			left=$(cat $c/cgroup.procs 2>/dev/null)
			[ -n "$left" ] && kill -KILL $left 2>/dev/null
		done
	done
	for c in $DK_CGROUPS; do
		for i in $(seq 20); do
			rmdir $c/*/ 2>/dev/null
			rmdir $c 2>/dev/null && break
			sleep 0.1
		done
	done
	DK_CGROUPS=
	# mounts under our folder, deepest first
	if [ -d "$DKDIR" ]; then
		for m in $(awk -v d="$DKDIR" 'index($5, d) == 1 { print $5 }' /proc/self/mountinfo | sort -r); do
			umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null
		done
	fi
	for p in $DK_RUN_DIRS; do
		rmdir $p/s $p/plugins $p 2>/dev/null
	done
	DK_RUN_DIRS=
}
