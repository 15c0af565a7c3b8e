#!/bin/bash
# 02-tracefs-same.sh - the kernel tests' "tracefs left as found" rule
# (tracefs_same in tests/kernel/lib.sh) accepts exactly one change, and
# only where a test says an oracle tool ran: the first-use expansion of an
# unexpanded top-level buffer after boot.  Every other change fails.  (A
# freshly booted machine cannot be made again once anything has traced,
# so the rule itself is checked here on fingerprints.)
. "$(dirname "$0")/../kernel/lib.sh"

P=$(( $(getconf PAGESIZE) - 16 ))
ROUNDED=$(( (1408 * 1024 + P - 1) / P * P / 1024 ))	# 1410 with 4 KiB pages
fp() {	# fp BUFFER_SIZE_KB [CLOCK]: a fingerprint as tracefs_state prints it
	printf 'tracing_on: 1\ncurrent_tracer: nop\nbuffer_size_kb: %s\ntrace_clock: %s\nset_event: \n' \
		"$1" "${2:-[local] global}"
}
check() {	# check NAME EXPECT(same|differ) BEFORE AFTER [first-use]
	local got=differ
	tracefs_same "$3" "$4" $5 && got=same
	[ "$got" = "$2" ] && pass "tracefs-same-$1" || fail "tracefs-same-$1" "got $got"
}
check identical same "$(fp 1408)" "$(fp 1408)"
check identical-unexpanded same "$(fp '7 (expanded: 1408)')" "$(fp '7 (expanded: 1408)')"
check first-use-expansion-rounded same "$(fp '7 (expanded: 1408)')" "$(fp $ROUNDED)" first-use
check first-use-expansion-exact same "$(fp '7 (expanded: 1408)')" "$(fp 1408)" first-use
check expansion-not-allowed-without-oracle differ "$(fp '7 (expanded: 1408)')" "$(fp $ROUNDED)"
check expansion-to-another-size differ "$(fp '7 (expanded: 1408)')" "$(fp 2048)" first-use
check expanded-buffer-resized differ "$(fp 1410)" "$(fp 2048)" first-use
check shrunk-to-unexpanded differ "$(fp 1410)" "$(fp '7 (expanded: 1408)')" first-use
check expansion-plus-other-change differ "$(fp '7 (expanded: 1408)')" "$(fp $ROUNDED '[global] local')" first-use
