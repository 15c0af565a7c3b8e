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
