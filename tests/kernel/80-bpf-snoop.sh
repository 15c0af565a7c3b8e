# 80-bpf-snoop.sh - strobe opensnoop and execsnoop on the BPF source, in a
# real container (podman + runc, a busybox rootfs) and on commands:
#   - opensnoop -x -c NAME --json: a container program opens a missing
#     path three times: exactly three ENOENT rows with that path under
#     the container's name (stopped with SIGINT);
#   - execsnoop -c NAME --json: the container's exec of a program with
#     arguments shows the whole argument vector, ret 0, under its name
#     (stopped with SIGTERM);
#   - opensnoop -x --json -- CMD: the command's own opens and its
#     children's (followed at fork in the kernel), and it ends with CMD;
#   - every exit path (normal, SIGINT, SIGTERM, SIGKILL) leaves no BPF
#     program or map of strobe's (bpftool prog / map);
#   - --no-bpf: the same rows from tracefs alone, path null, and a note
#     that says paths are missing;
#   - tracefs is left as it was.
. "$(dirname "$0")/lib.sh"
need_tracefs bpf-snoop
. "$(dirname "$0")/bpf-lib.sh"
bpf_need bpf-snoop
state() { tracefs_state | grep -v '^instance: '; }
before=$(state)
C=snoop-$$
trap 'podman rm -f $C probe-$$ >/dev/null 2>&1; rm -rf "$WORK"' EXIT

make_rootfs
if ! run_ct probe-$$ 'true'; then
	skip bpf-snoop "cannot run a container: $(head -1 $WORK/podman.err)"
	exit 0
fi
MISSING=/missing-$$
SCRIPT="while [ ! -e /go ]; do sleep 0.02; done
for i in 1 2 3; do busybox cat $MISSING 2>/dev/null; done
busybox echo alpha 'two words' --gamma=1 > /dev/null
echo > /done"

# in_container SIGNAL OUT STROBE-ARGS...: strobe on container $C while it
# runs $SCRIPT, stopped with SIGNAL after /done
in_container() {
	local sig=$1 out=$2 sp i
	shift 2
	rm -f $ROOTFS/go $ROOTFS/done
	run_ct -d $C "$SCRIPT" || return 1
	$STROBE "$@" -d 60 > $out 2> $out.err & sp=$!
	bpf_ready $sp || { kill $sp 2>/dev/null; wait $sp; return 1; }
	touch $ROOTFS/go
	for i in $(seq 200); do [ -e $ROOTFS/done ] && break; sleep 0.05; done
	sleep 0.3
	kill -$sig $sp
	wait $sp
	local rc=$?
	timeout 30 podman wait $C >/dev/null 2>&1
	podman rm -f $C >/dev/null 2>&1
	return $rc
}

# ---- opensnoop -x -c NAME --json (SIGINT) ----
if in_container INT $WORK/open.json opensnoop -x -c $C --json; then
	pass bpf-snoop-opensnoop-container-exits-0-on-sigint
else
	fail bpf-snoop-opensnoop-container-exits-0-on-sigint "$(head -3 $WORK/open.json.err)"
fi
r=$(py 'import sys,json
rows=[json.loads(l) for l in open(sys.argv[1])]
m=[r for r in rows if r.get("path")==sys.argv[2]]
ok=[r for r in m if r.get("errno")=="ENOENT" and r["ret"]==-2 and r["container"]==sys.argv[3]
    and r["comm"]=="busybox" and "fd" not in r]
print(len(m), len(ok), sum(1 for r in rows if r["ret"]>=0), sum(1 for r in rows if r["container"]!=sys.argv[3]))' \
	$WORK/open.json $MISSING $C 2>&1)
[ "$r" = "3 3 0 0" ] && pass bpf-snoop-opensnoop-three-enoent-rows-with-path-under-container ||
	fail bpf-snoop-opensnoop-three-enoent-rows-with-path-under-container \
		"want '3 3 0 0' (rows of the path, right ones, successes, other containers) got '$r'"
bpf_clean bpf-snoop-opensnoop-sigint

# ---- execsnoop -c NAME --json (SIGTERM) ----
if in_container TERM $WORK/exec.json execsnoop -c $C --json; then
	pass bpf-snoop-execsnoop-container-exits-0-on-sigterm
else
	fail bpf-snoop-execsnoop-container-exits-0-on-sigterm "$(head -3 $WORK/exec.json.err)"
fi
r=$(py 'import sys,json
rows=[json.loads(l) for l in open(sys.argv[1])]
m=[r for r in rows if r.get("argv") and r["argv"][1:]==["echo","alpha","two words","--gamma=1"]]
print(len(m), all(r["ret"]==0 and r["container"]==sys.argv[2] and not r["cut"] for r in m),
      sum(1 for r in rows if r["container"]!=sys.argv[2]),
      *sorted({(r["container"],r["comm"],r["ret"],r["pid"],r["ppid"],tuple(r["argv"] or [])) for r in rows if r["container"]!=sys.argv[2]}))' $WORK/exec.json $C 2>&1)
[ "$r" = "1 True 0" ] && pass bpf-snoop-execsnoop-full-argv-under-container ||
	fail bpf-snoop-execsnoop-full-argv-under-container "want '1 True 0' got '$r'"
bpf_clean bpf-snoop-execsnoop-sigterm

# ---- opensnoop -x -e -F -c NAME: relative paths made whole inside the
# container (its own root, not the host's), the FLAGS column ----
SCRIPT_SAVED=$SCRIPT
mkdir -p $ROOTFS/srv/www
SCRIPT="while [ ! -e /go ]; do sleep 0.02; done
cd /srv/www; busybox cat rel-$$ 2>/dev/null; busybox cat ../up-$$ 2>/dev/null
busybox cat /abs-$$ 2>/dev/null
echo > /done"
if in_container INT $WORK/full.txt opensnoop -x -e -F -c $C; then
	pass bpf-snoop-opensnoop-full-path-exits-0
else
	fail bpf-snoop-opensnoop-full-path-exits-0 "$(head -3 $WORK/full.txt.err)"
fi
SCRIPT=$SCRIPT_SAVED
r=$(awk -v c=$C '$3 == c && $5 == "ENOENT" { print $6, $7 }' $WORK/full.txt | grep -- "-$$\$" | sort | tr '\n' ' ')
h=$(head -1 $WORK/full.txt | tr -s ' ')
[ "$r" = "00000000 /abs-$$ 00000000 /srv/www/../up-$$ 00000000 /srv/www/rel-$$ " ] &&
	[ "$h" = "PID COMM CONTAINER FD ERR FLAGS PATH" ] &&
	pass bpf-snoop-opensnoop-F-paths-inside-the-container-e-flags ||
	fail bpf-snoop-opensnoop-F-paths-inside-the-container-e-flags "header '$h', rows '$r'"
bpf_clean bpf-snoop-opensnoop-full-path
$STROBE execsnoop -F -d 1 > /dev/null 2> $WORK/F.err; rc=$?
[ $rc = 2 ] && grep -q "opensnoop's" $WORK/F.err && pass bpf-snoop-F-is-opensnoops-only ||
	fail bpf-snoop-F-is-opensnoops-only "exit $rc: $(cat $WORK/F.err)"

# ---- opensnoop -- CMD: children followed, ends with the command ----
BB=$ROOTFS/bin/busybox
CMD="for i in 1 2 3; do $BB cat $MISSING-cmd 2>/dev/null; done; $BB cat /etc/hostname >/dev/null"
timeout 60 $STROBE opensnoop --json -- sh -c "$CMD" > $WORK/cmd.json 2> $WORK/cmd.err
rc=$?
r=$(py 'import sys,json
rows=[json.loads(l) for l in open(sys.argv[1])]
m=[r for r in rows if r.get("path")==sys.argv[2] and r.get("errno")=="ENOENT" and r["comm"]=="busybox"]
h=[r for r in rows if r.get("path")=="/etc/hostname" and r["ret"]>=0 and r["fd"]>=0]
print(len(m), len(h), len({r["pid"] for r in m}))' $WORK/cmd.json $MISSING-cmd 2>&1)
[ $rc = 0 ] && [ "$r" = "3 1 3" ] && pass bpf-snoop-opensnoop-command-and-children ||
	fail bpf-snoop-opensnoop-command-and-children "exit $rc, want '3 1 3' got '$r': $(head -2 $WORK/cmd.err)"
bpf_clean bpf-snoop-opensnoop-normal-exit

# ---- SIGKILL: nothing outlives the process ----
$STROBE execsnoop -d 30 > /dev/null 2> $WORK/kill.err & sp=$!
if bpf_ready $sp && [ "$(bpf_leftovers)" != 0 ]; then
	kill -KILL $sp
	wait $sp 2>/dev/null
	bpf_clean bpf-snoop-sigkill
	# the guardian removes the instance
	for i in $(seq 50); do [ -d $TRACEFS/instances/strobe-$sp ] || break; sleep 0.1; done
else
	kill $sp 2>/dev/null
	wait $sp 2>/dev/null
	fail bpf-snoop-sigkill-leaves-no-bpf-objects "execsnoop did not start with BPF: $(head -2 $WORK/kill.err)"
fi

# ---- --no-bpf: tracefs only, paths missing, said once ----
timeout 60 $STROBE opensnoop --no-bpf -x --json -- sh -c "$CMD" > $WORK/nobpf.json 2> $WORK/nobpf.err
rc=$?
r=$(py 'import sys,json
rows=[json.loads(l) for l in open(sys.argv[1])]
m=[r for r in rows if r.get("errno")=="ENOENT" and r["comm"]=="busybox" and r["path"] is None]
print(len(m), sum(1 for r in rows if r["path"] is not None))' $WORK/nobpf.json 2>&1)
said=$(grep -c 'without paths' $WORK/nobpf.err)
[ $rc = 0 ] && [ "$r" = "3 0" ] && [ "$said" = 1 ] && pass bpf-snoop-no-bpf-tracefs-rows-paths-missing-said-once ||
	fail bpf-snoop-no-bpf-tracefs-rows-paths-missing-said-once "exit $rc, want '3 0' got '$r', said $said times"
[ "$(bpf_leftovers)" = 0 ] && pass bpf-snoop-no-bpf-loads-nothing ||
	fail bpf-snoop-no-bpf-loads-nothing

after=$(state)
[ "$before" = "$after" ] && pass bpf-snoop-tracefs-left-as-found ||
	fail bpf-snoop-tracefs-left-as-found "$(diff <(echo "$before") <(echo "$after") | head -5)"
