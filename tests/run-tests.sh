#!/bin/bash
# run-tests.sh - run every test of strobe and print one closing line
# "N passed, N failed, N skipped".
#
#   unit:   build/tests/test_*      (ASan+UBSan, no root, no kernel)
#   fuzz:   build/fuzz-replay/*     replay tests/fuzz/corpus/<name>/ (sanitizers)
#   cli:    tests/cli/*.sh          the command line without tracing (no root;
#                                   08-damage-matrix: tests/damage/matrix)
#   kernel: tests/kernel/*.sh       real tracing; skipped with a reason when
#                                   not root or tracefs cannot be mounted
#   python: tests/python/test_*.py  the Python module, under pytest
#
# Every test prints lines "PASS name", "FAIL name" or "SKIP name: reason".
# TESTS=pattern limits the run to tests whose file name contains pattern.
cd "$(dirname "$0")/.." || exit 2
B=build
pass=0 fail=0 skip=0
failed_names=()

count() {	# $1 = file holding a test's output
	local p f s
	p=$(grep -c '^PASS ' "$1"); f=$(grep -c '^FAIL ' "$1"); s=$(grep -c '^SKIP ' "$1")
	pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
	while read -r line; do failed_names+=("$line"); done < <(grep '^FAIL ' "$1")
}

run() {		# $1 = label, rest = command
	local label=$1 out rc
	shift
	out=$(mktemp)
	echo "== $label"
	"$@" > "$out" 2>&1
	rc=$?
	cat "$out"
	if [ $rc -ne 0 ] && ! grep -q '^FAIL ' "$out"; then
		echo "FAIL $label (exit status $rc)" | tee -a "$out"
	fi
	count "$out"
	rm -f "$out"
}

# Shared by every checkout on the machine (worktrees, helpers' manual
# recordings: wrap them in `flock /tmp/strobe-kernel-tests.lock`).
KLOCK=${STROBE_KERNEL_LOCK:-/tmp/strobe-kernel-tests.lock}

want() { [ -z "$TESTS" ] || [[ "$1" == *"$TESTS"* ]]; }

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/tests/lsan.supp}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

for t in $B/tests/test_*; do
	[ -x "$t" ] || continue
	want "$t" || continue
	run "unit $(basename "$t")" "$t"
done

for r in $B/fuzz-replay/fuzz_*; do
	[ -x "$r" ] || continue
	want "$r" || continue
	n=$(basename "$r")
	run "fuzz corpus $n" "$r" "tests/fuzz/corpus/$n"
done

for k in tests/cli/[0-9]*.sh tests/kernel/[0-9]*.sh; do
	[ -f "$k" ] || continue
	want "$k" || continue
	d=${k%/*}
	if [ "${d##*/}" = kernel ]; then
		# Kernel tests check that no strobe-* instance is left and
		# that the top level is as found: run them one at a time
		# across every checkout on this machine.
		run "${d##*/} $(basename "$k" .sh)" flock "$KLOCK" bash "$k"
	else
		run "${d##*/} $(basename "$k" .sh)" bash "$k"
	fi
done

# python: tests/python/test_*.py under pytest (conftest.py prints the
# PASS/FAIL/SKIP lines); test_kernel_* files trace, so they take the lock
PYTEST=${PYTEST:-/usr/bin/python3 -m pytest -q -p no:cacheprovider}
for t in tests/python/test_*.py; do
	[ -f "$t" ] || continue
	want "$t" || continue
	n=$(basename "$t" .py)
	if [ ! -f $B/python/strobe/__init__.py ] || ! /usr/bin/python3 -c 'import pytest' 2>/dev/null; then
		run "python $n" echo "SKIP python-$n: needs python3-dev (module) and python3-pytest"
	elif [[ $n == test_kernel_* ]]; then
		run "python $n" flock "$KLOCK" $PYTEST "$t"
	else
		run "python $n" $PYTEST "$t"
	fi
done

echo
if [ ${#failed_names[@]} -gt 0 ]; then
	echo "Failed:"
	printf '  %s\n' "${failed_names[@]}"
fi
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
