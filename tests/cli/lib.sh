# lib.sh - what the command-line scripts of tests/cli/ share (sourced, not
# run): the strobe binary $S, a scratch folder $D removed on exit, and
#   t NAME EXPECTED-STATUS PATTERN COMMAND...
# which runs COMMAND (20 s at most) and prints "PASS NAME" when it exits
# with EXPECTED-STATUS and PATTERN is in its stderr or stdout, else
# "FAIL NAME: ..." with the first lines of both.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
S=${STROBE:-$ROOT/build/strobe}
D=$(mktemp -d /tmp/strobe-cli.XXXXXX)
trap 'rm -rf "$D"' EXIT

t() {
	local name=$1 want=$2 pat=$3 rc
	shift 3
	timeout 20 "$@" > "$D/out" 2> "$D/err"
	rc=$?
	if [ "$rc" = "$want" ] && grep -q -- "$pat" "$D/err" "$D/out"; then echo "PASS $name"; else
		echo "FAIL $name: exit $rc, wanted $want and '$pat'"; head -5 "$D/out" "$D/err"; fi
}

# The files of the several-inputs scripts, in $D: a.dat (v6) and b.dat
# (v7) from the fuzz corpus, link.dat a symlink to a.dat, and bad.dat:
# a.dat with CPU 0's first page's commit larger than a page (one damaged
# page, tests/damage/make-files' layout).  Says FAIL NAME_fixture when
# it cannot.
inputs_fixture() {
	local c=$ROOT/tests/fuzz/corpus/fuzz_stream
	cp "$c/v6-sched-syscalls.dat" "$D/a.dat"
	cp "$c/v7-zstd-sched-syscalls.dat" "$D/b.dat"
	ln -s "$D/a.dat" "$D/link.dat"
	python3 - "$ROOT" "$D/a.dat" "$D/bad.dat" <<'EOF' || echo "FAIL $1_fixture: cannot damage a.dat"
import importlib.machinery, struct, sys
mf = importlib.machinery.SourceFileLoader(
    "make_files", sys.argv[1] + "/tests/damage/make-files").load_module()
d = bytearray(open(sys.argv[2], "rb").read())
off, size = mf.v6_layout(bytes(d))["fly"][0]
assert size >= 4096
struct.pack_into("<Q", d, off + 8, 0xfff0)
open(sys.argv[3], "wb").write(d)
EOF
}
