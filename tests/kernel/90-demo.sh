#!/bin/bash
# 90-demo.sh - `make demo`'s script does what the README says: it traces
# the demo workload, and with podman it names both short-lived containers
# in the CPU and system call tables after they are gone (or says in one
# line why the container part is skipped).
. "$(dirname "$0")/lib.sh"
need_tracefs demo
trap 'podman rm -f demo-busy demo-idle >/dev/null 2>&1; rm -rf "$WORK"' EXIT
OUT=$WORK/demo.dat CT_OUT=$WORK/ct.dat timeout 300 "$ROOT/scripts/demo" > $WORK/out 2>&1
rc=$?
[ $rc = 0 ] && grep -q '^== strobe analyze' $WORK/out && grep -q 'demo_work' $WORK/out &&
	pass demo-traces-the-workload || fail demo-traces-the-workload "exit $rc: $(tail -3 $WORK/out | tr '\n' '|')"
if ! command -v podman >/dev/null || [ ! -x /usr/sbin/runc ] || ! command -v busybox >/dev/null; then
	grep -q '^== containers: skipped (podman' $WORK/out && pass demo-says-why-containers-skipped ||
		fail demo-says-why-containers-skipped
	exit 0
fi
# both names in the CPU table and in the system call table
cpu=$(sed -n '/^== CPU per container/,/^== system calls/p' $WORK/out)
sys=$(sed -n '/^== system calls of the two/,$p' $WORK/out)
if grep -q '^demo-busy ' <<<"$cpu" && grep -q '^demo-idle ' <<<"$cpu" &&
	grep -q '^demo-busy ' <<<"$sys" && grep -q '^demo-idle ' <<<"$sys"; then
	pass demo-names-both-containers
else fail demo-names-both-containers "$(grep -A12 '^== CPU per' $WORK/out | tr '\n' '|')"; fi
[ -z "$(podman ps -aq --filter name=demo-busy --filter name=demo-idle)" ] &&
	pass demo-leaves-no-container || fail demo-leaves-no-container
