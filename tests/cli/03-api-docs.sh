#!/bin/bash
# 03-api-docs.sh - every function of the live-capture API (capture.h, and
# the stream calls it added) and of event formats and fields is named in a section-3 man page, every
# function of analysis.h, table.h, model.h, expr.h, sql.h, tracefile.h, pipeline.h, metrics.h, otlp.h and profile.h has its prototype in one,
# and each section-3 page renders with man -l without a warning.
cd "$(dirname "$0")/../.." || exit 2
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1${2:+: $2}"; }

fns=$( (grep -ho 'strobe_capture_[a-z_]*(' include/strobe/capture.h
	echo 'strobe_stream_fd( strobe_stream_wait( strobe_stream_iterate( strobe_event_name('
	echo 'strobe_event_system( strobe_analysis_attach_stream('
	grep -ho 'strobe_formats\?_[a-z_]*(' include/strobe/stream.h
	grep -ho 'strobe_field_[a-z_]*(' include/strobe/stream.h
	echo 'strobe_tracefile_formats('
	grep -ho 'strobe_buf_[a-z_]*(' include/strobe/strobe.h) | tr ' ' '\n' | tr -d '(' | sort -u)
missing=
for f in $fns; do
	grep -q "\<$f\>" doc/*.3 || missing="$missing $f"
done
[ -z "$missing" ] && pass api-functions-have-man-pages || fail api-functions-have-man-pages "undocumented:$missing"

# Every function of these headers has its prototype in the SYNOPSIS of a
# section-3 page (a .B/.BI line naming it with its parenthesis), not just
# a mention in some text.
missing=
for h in analysis table model expr sql tracefile pipeline metrics otlp profile; do
	for f in $(grep -ho '\bstrobe_[a-z0-9_]*(' include/strobe/$h.h | tr -d '(' | sort -u); do
		grep -qE "^\.BI? .*\<$f\(" doc/*.3 || missing="$missing $h.h:$f"
	done
done
[ -z "$missing" ] && pass api-headers-have-synopses || fail api-headers-have-synopses "no SYNOPSIS for:$missing"

# The EXAMPLES programs compile against the headers: the first example
# of a page that is a whole program (has a main) is taken out of the
# roff (.EX ... .EE, escapes undone) and compiled with -Werror.
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
for m in doc/*.3; do
	n=$(basename "$m" .3)
	awk '/^\.SH EXAMPLES?/{e=1} /^\.SH /&&!/EXAMPLE/{e=0} e&&/^\.EE/{x=0;e=0} e&&x{print} e&&/^\.EX/{x=1}' "$m" |
		sed -e 's/\\e/\\/g' -e 's/\\-/-/g' -e "s/\\\\(aq/'/g" -e 's/^\\&//' >"$tmp/$n.c"
	grep -q 'int main(' "$tmp/$n.c" || continue
	out=$(${CC:-cc} -std=gnu11 -Iinclude -Wall -Wextra -Werror -fsyntax-only "$tmp/$n.c" 2>&1)
	[ -z "$out" ] && pass "api-man-page-example-compiles-$n" ||
		fail "api-man-page-example-compiles-$n" "$(echo "$out" | head -3)"
done

# The public headers are strobe's own: libtraceevent's types (tep_*,
# trace_seq) stay inside the library, so the API can outlive them.
leaks=$(grep -n 'struct tep_\|trace_seq\|traceevent/' include/strobe/*.h)
[ -z "$leaks" ] && pass public-headers-without-libtraceevent ||
	fail public-headers-without-libtraceevent "$(echo "$leaks" | head -3)"

if ! command -v man >/dev/null; then
	echo "SKIP api-man-pages-render: man is not installed"
	exit 0
fi
for m in doc/*.3; do
	w=$(MANWIDTH=80 man --warnings -l "$m" 2>&1 >/dev/null)
	out=$(MANWIDTH=80 man -l "$m" 2>/dev/null | wc -l)
	[ -z "$w" ] && [ "$out" -gt 20 ] && pass "api-man-page-renders-$(basename $m)" ||
		fail "api-man-page-renders-$(basename $m)" "$w"
done
