# 02-hostile-inputs.sh - inputs strobe must refuse at once or read safely,
# no tracing needed: devices, FIFOs and files that shrink given with -i,
# and the undefined-behaviour checks of the sanitizer build on odd
# command lines.  Each check runs under a short timeout: a hang fails.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
S=${STROBE:-$ROOT/build/strobe}
SAN=$ROOT/build/san/strobe
D=$(mktemp -d /tmp/strobe-cli.XXXXXX)
trap 'rm -rf "$D"' EXIT
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=98
export ASAN_OPTIONS=detect_leaks=1:exitcode=99

# ps -c with no match: no rows, no undefined behaviour (qsort of nothing)
if [ -x "$SAN" ]; then
	timeout 20 "$SAN" ps -c no-such-container-name > "$D/out" 2> "$D/err"
	rc=$?
	if [ $rc = 0 ] && [ "$(wc -l < "$D/out")" = 1 ] && ! grep -q 'runtime error' "$D/err"; then
		echo "PASS ps_no_match_prints_header_only_without_undefined_behaviour"
	else
		echo "FAIL ps_no_match_prints_header_only_without_undefined_behaviour: rc=$rc"
		head -5 "$D/err"
	fi
else
	echo "SKIP ps_no_match_prints_header_only_without_undefined_behaviour: build/san/strobe missing"
fi
