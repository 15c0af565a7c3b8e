#!/bin/bash
# 08-damage-matrix.sh - issue 20's damage matrix (strobe-damage(7)): the
# ~35 damaged trace files of tests/damage/make-files, each read by report,
# analyze (cputop, syscalls, schedlat, io, irq, mem), periods, ps, sql,
# export (to a stub ClickHouse on loopback) and the Python reader; one
# "PASS/FAIL damage-FILE" line a file: every command ends alike (exit
# status; silence, a warning or an error), says the same thing naming
# what and where, and none changes its output without a word.  No root,
# no tracing; the files go to a temporary folder removed at exit.  Needs
# build/bench/synth-trace (make check builds it) and trace-cmd (a Debian
# dependency: without it the v7 files are left out, with a SKIP line).
cd "$(dirname "$0")/../.." || exit 2
if [ ! -x build/bench/synth-trace ]; then
	echo "FAIL damage-matrix: build/bench/synth-trace is missing (make build/bench/synth-trace)"
	exit 1
fi
exec /usr/bin/python3 tests/damage/matrix
