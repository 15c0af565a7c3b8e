#!/bin/bash
# 06-layering.sh - the library's layers stay layered and the CLI's command
# files stay leaves (doc/ARCHITECTURE.md draws both).
#
#  - lib: a file of lib/X/ includes private headers (lib/Y/*.h) only of
#    its own folder and of layers below X in LAYERS; every folder of lib/
#    has a place in LAYERS.
#  - cli: no object of cli/ but main.o (the command table) uses a function
#    or variable that a cli/cmd-*.c defines, so command files call the
#    shared files (cli.h) and never each other, and the shared files never
#    call a command back (read with nm from build/cli/*.o).
cd "$(dirname "$0")/../.." || exit 2
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1${2:+: $2}"; }

# The layers, lowest first, one level a line.  Folders on one line are
# peers: neither may include the other's private headers.  Derived from
# what each folder includes and calls:
#   util       errors, text buffers, files, threads
#   syscalls   syscall and errno names; format: event formats, fields,
#              the tep_handle; session: tracefs control (util only);
#              symbols: names of code addresses (ELF, maps, kallsyms)
#   tracefile  trace.dat reader and writer (formats from format/);
#              probe: uprobes in containers (session's uprobes, symbols'
#              ELF functions and USDT notes)
#   stream     pages and the merge of CPUs, buffers, files; model: tasks
#              and containers (formats, the file's stored table); output:
#              text and JSON of events, diagnostics
#   expr       expressions (the model's tasks, syscall names); table:
#              result tables (output's JSON strings, the merge's hosts);
#              source: the live capture (session, a stream of its pages);
#              bpf: the BPF source (declared formats, records for the
#              pipeline); source/perf.c: perf samples (the same shape)
#   analyses   over expr, table, stream, model
#   sinks      SQLite and ClickHouse (run the analyses, write tables);
#              pictures: flame graphs, heat maps, the HTML report (analyses,
#              output's SVG);
#              metrics: the Prometheus registry and its HTTP endpoint
#   record     session + capture + writer (+ model, a live stream)
#   pipeline   the one driver: sources in, consumers out; below the CLI
LAYERS="
util
syscalls format session symbols
tracefile probe
stream model output
expr table source bpf
analyses
sinks top metrics pictures
record
pipeline
"

declare -A level
n=0
while read -r line; do
	[ -n "$line" ] || continue
	for l in $line; do level[$l]=$n; done
	n=$((n + 1))
done <<< "$LAYERS"

bad=
for d in lib/*/; do
	d=${d%/}; d=${d#lib/}
	[ -n "${level[$d]}" ] || bad="$bad lib/$d"
done
[ -z "$bad" ] && pass layering-every-lib-folder-has-a-layer ||
	fail layering-every-lib-folder-has-a-layer "not in LAYERS of $0:$bad"

# "X/f.h" and "../X/f.h" name lib/X/f.h; "f.h" the including file's own
# folder; "strobe/f.h" a public header (any layer may include those).
bad=
for f in lib/*/*.c lib/*/*.h; do
	from=${f#lib/}; from=${from%%/*}
	while read -r inc; do
		inc=${inc#../}
		case $inc in
		strobe/*) continue ;;
		*.skel.h|vmlinux.h) continue ;;	# made by the build (build/bpf)
		*/*) to=${inc%%/*} ;;
		*) to=$from ;;
		esac
		[ -f "lib/$to/${inc#"$to"/}" ] || { bad="$bad
  $f: \"$inc\" is no lib/ header"; continue; }
		[ "$to" = "$from" ] && continue
		if [ -z "${level[$to]}" ] || [ -z "${level[$from]}" ] ||
		   [ "${level[$to]}" -ge "${level[$from]}" ]; then
			bad="$bad
  $f (layer $from) includes $inc (layer $to, not below it)"
		fi
	done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
done
[ -z "$bad" ] && pass layering-lib-includes-only-layers-below ||
	fail layering-lib-includes-only-layers-below "$bad"

# Objects of the CLI's current sources (a stale object of a removed file
# is not looked at).
objs=()
for c in cli/*.c; do
	o=build/cli/$(basename "$c" .c).o
	[ -f "$o" ] || { echo "SKIP layering-cli-commands-are-leaves: $o missing (run make)"; exit 0; }
	objs+=("$o")
done
# "d SYMBOL OBJECT" for what each command file defines, "u SYMBOL OBJECT"
# for what every object but main.o uses; a use of another's is a finding.
bad=$(for o in "${objs[@]}"; do
	case $o in */cmd-*.o) nm --defined-only -g "$o" | awk -v o="$o" 'NF == 3 {print "d", $3, o}' ;; esac
	[ "$o" = build/cli/main.o ] || nm -u "$o" | awk -v o="$o" '{print "u", $NF, o}'
done | sort -s -k2,2 -k1,1 | awk '
	function base(p) { sub(/.*\//, "", p); sub(/\.o$/, ".c", p); return p }
	$1 == "d" { def[$2] = $3; next }
	($2 in def) && def[$2] != $3 { printf "\n  %s uses %s of %s", base($3), $2, base(def[$2]) }')
[ -z "$bad" ] && pass layering-cli-commands-are-leaves ||
	fail layering-cli-commands-are-leaves "move what both need to a shared file:$bad"
