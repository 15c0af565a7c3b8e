#!/bin/bash
# 09-completion.sh - the bash completion (scripts/strobe-completion.bash,
# installed by make install): commands, options from each command's
# --help, presets, analysis names in a comma list, list's words, files,
# and event names of the running kernel (where tracefs can be read).
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
S=$ROOT/build/strobe
. "$ROOT/scripts/strobe-completion.bash" || { echo "FAIL completion_script_loads"; exit 0; }

# complete NAME WANT WORD...: complete the last word; WANT must be among
# the answers (and, when it starts with '=', be the only one)
complete_t() {
	local name=$1 want=$2 only=
	shift 2
	[[ $want == =* ]] && { only=1; want=${want#=}; }
	COMP_WORDS=("$S" "$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_strobe
	local found=
	for w in "${COMPREPLY[@]}"; do [ "$w" = "$want" ] && found=1; done
	if [ -n "$found" ] && { [ -z "$only" ] || [ ${#COMPREPLY[@]} = 1 ]; }; then
		echo "PASS $name"
	else
		echo "FAIL $name: '${*: -1}' gave [${COMPREPLY[*]:0:12}], wanted $want${only:+ alone}"
	fi
}

complete_t completion_command =report rep
complete_t completion_commands_all cputop ""
complete_t completion_global_option =--version --vers
complete_t completion_option_from_help =--duration record --dur
complete_t completion_short_option -b record -
complete_t completion_analysis_option --freq-resolution syscalls --freq-
complete_t completion_preset =sched record --preset sch
complete_t completion_preset_after_e sched record -e sc
complete_t completion_analysis_in_a_list =cputop,syscalls analyze -a cputop,sys
complete_t completion_list_word =events list ev
D=$(mktemp -d /tmp/strobe-compl.XXXXXX)
trap 'rm -rf "$D"' EXIT
touch "$D/trace-one.dat"
complete_t completion_input_file "$D/trace-one.dat" report -i "$D/trace-o"
complete_t completion_after_double_dash_a_command sleep record -- slee
complete_t completion_after_the_command_its_files "$D/trace-one.dat" record -- ls "$D/trace-o"
if "$S" list events >/dev/null 2>&1; then
	complete_t completion_event_name_of_this_kernel =sched:sched_switch record -e sched:sched_swi
else
	echo "SKIP completion_event_name_of_this_kernel: strobe list events cannot read tracefs here"
fi
