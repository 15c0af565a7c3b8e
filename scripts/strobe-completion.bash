# bash completion for strobe(1): commands, each command's options, presets,
# event names of the running kernel, analysis names and files.
#
# Installed by `make install` as share/bash-completion/completions/strobe;
# to try it from a checkout: source scripts/strobe-completion.bash.
#
# Everything is asked of strobe itself when it is needed (its --help texts,
# `strobe list`), so the completion never goes stale against the binary it
# completes for.  Event names need tracefs (usually root): without it,
# nothing is offered for them.

# The strobe binary being completed (the word typed, so that
# ./build/strobe completes with its own help).
_strobe_bin()
{
	local b=${COMP_WORDS[0]}
	[[ $b == */* ]] && [[ -x $b ]] && { printf '%s\n' "$b"; return; }
	command -v "$b" 2>/dev/null || printf 'strobe\n'
}

_strobe_commands()
{
	"$1" --help 2>/dev/null | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p'
}

# Every long option and short option a command's --help lists.
_strobe_options()
{
	"$1" "$2" --help 2>/dev/null | grep -o -- '\(^\|[ ,]\)--\?[a-zA-Z][a-zA-Z0-9-]*' |
		sed 's/^[ ,]*//' | sort -u
}

_strobe_presets()
{
	"$1" list presets 2>/dev/null | sed -n 's/^\([a-z][a-z0-9_-]*\): .*/\1/p'
}

# What -e takes: presets, SYSTEM:EVENT names and systems.
_strobe_events()
{
	_strobe_presets "$1"
	"$1" list events 2>/dev/null
	"$1" list systems 2>/dev/null | sed -n 's/^\([a-z][a-z0-9_]*\) .*/\1/p'
}

# The analysis names, as `strobe analyze --help` gives them after -a.
_strobe_analyses()
{
	"$1" analyze --help 2>/dev/null |
		sed -n 's/^ *-a, --analyses LIST *\([a-z,]*\)$/\1/p' | tr ',' '\n'
}

_strobe()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
	local bin cmd i w
	bin=$(_strobe_bin)
	COMPREPLY=()
	# the command: the first word after the program that is not an option
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		[[ $w == -* ]] && continue
		cmd=$w
		break
	done
	if [[ -z $cmd ]]; then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W '--help --version' -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$(_strobe_commands "$bin")" -- "$cur"))
		fi
		return 0
	fi
	# after a word that is followed by "--", the traced command's own words
	for ((i = i + 1; i < COMP_CWORD; i++)); do
		if [[ ${COMP_WORDS[i]} == -- ]]; then
			COMPREPLY=($(compgen -c -- "$cur"))
			[[ $COMP_CWORD -gt $((i + 1)) ]] && COMPREPLY=($(compgen -f -- "$cur"))
			return 0
		fi
	done
	case $prev in
	-e|--event|--events)
		COMPREPLY=($(compgen -W "$(_strobe_events "$bin")" -- "$cur"))
		return 0 ;;
	--preset)
		COMPREPLY=($(compgen -W "$(_strobe_presets "$bin")" -- "$cur"))
		return 0 ;;
	-a|--analyses)
		# a comma-separated list: complete its last item
		local done=${cur%,*} last=${cur##*,} n
		[[ $done == "$cur" ]] && done= || done="$done,"
		for n in $(_strobe_analyses "$bin"); do
			[[ $n == "$last"* ]] && COMPREPLY+=("$done$n")
		done
		return 0 ;;
	-i|--input|-o|--output|--db)
		COMPREPLY=($(compgen -f -- "$cur"))
		return 0 ;;
	esac
	if [[ $cmd == list && $cur != -* ]]; then
		COMPREPLY=($(compgen -W 'events systems presets' -- "$cur"))
		return 0
	fi
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_strobe_options "$bin" "$cmd")" -- "$cur"))
		return 0
	fi
	COMPREPLY=($(compgen -f -- "$cur"))
}

complete -F _strobe strobe
