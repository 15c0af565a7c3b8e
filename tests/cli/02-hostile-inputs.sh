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

# -i of something that is no regular file: a one-line error at once
# (/dev/zero used to be read until memory ran out, a FIFO blocked)
mkfifo "$D/fifo"
for input in /dev/zero "$D/fifo"; do
	for c in report ps irq analyze; do
		args=(-i "$input"); [ $c = analyze ] && args+=(-a cputop)
		start=$(date +%s%N)
		timeout 10 $S $c "${args[@]}" > "$D/out" 2> "$D/err"
		rc=$?
		ms=$((($(date +%s%N) - start) / 1000000))
		name="${c}_of_${input##*/}_fails_at_once_with_one_line"
		if [ $rc = 1 ] && [ $ms -lt 1000 ] && [ "$(wc -l < "$D/err")" = 1 ] &&
		   grep -q "^strobe $c: .*not a regular file" "$D/err"; then
			echo "PASS $name"
		else
			echo "FAIL $name: rc=$rc ${ms}ms $(head -2 "$D/err")"
		fi
	done
done
