# SPDX-License-Identifier: GPL-2.0-only
# bash completion for pyperf-run(1) and pyperf-python(1).
#
# `make install` puts this file in $(datadir)/bash-completion/completions/
# as pyperf-run (and pyperf-python, a link to it), where bash-completion
# loads it the first time either command is completed.  Without
# bash-completion, source it from ~/.bashrc.
#
# It completes the subcommands, their options, the values of --format,
# --view, --mode and --color, interpreters and perfs for --python and
# --perf, and session directories (directories holding a `meta` file)
# for `report -i` and `report --diff`.  It needs nothing but bash's own
# compgen; the option lists follow `pyperf-run <command> --help` (the
# tests check that every option there is offered here).

_pyperf_run_commands='doctor record report top trampoline help'
_pyperf_run_global_opts='--help --version -h -V'
_pyperf_run_doctor_opts='--python --perf --trampoline --pid --json --probe --help -h'
_pyperf_run_record_opts='--output --python --perf --mode --trampoline --freq --stack-size
	--pid --duration --max-size --event --perf-arg --wall --wakers
	--keep-stack-copy --quiet
	--verbose --help -o -F -p -e -q -v -h -m -c'
_pyperf_run_report_opts='--input --output --format --python-only --all
	--view --pid --tid --per-thread --per-process --time --min-share --top
	--tree-min --no-tree --inverted --title --color --perf --reader --perf-report
	--clock --wakers --chain --diff --verbose --help -i -o -f -v -h'
_pyperf_run_top_opts='--python --mode --trampoline --freq --stack-size --pid --view
	--sort --rows --delay --batch --wall --wakers --duration --output --quiet --help
	-F -p -s -n -d -o -q -h -m -c'
_pyperf_run_sorts='self total'
_pyperf_run_trampoline_subs='install uninstall status build'
_pyperf_run_trampoline_opts='--python --help -h'
_pyperf_run_formats='text collapsed json html svg speedscope pprof perf-data'
_pyperf_run_views='mixed python all'
_pyperf_run_modes='auto perf jit bpf'
_pyperf_run_trampolines='auto native embedded'
_pyperf_run_colors='auto always never'
_pyperf_run_readers='native perf-script recorded'
_pyperf_run_clocks='cpu wall off-cpu'

# COMPREPLY: the words of $1 that start with $2.
_pyperf_run_words()
{
	local IFS=$' \t\n'

	mapfile -t COMPREPLY < <(compgen -W "$1" -- "$2")
}

# COMPREPLY: file names (directories only with -d) starting with $2.
_pyperf_run_files()
{
	compopt -o filenames 2>/dev/null
	mapfile -t COMPREPLY < <(compgen "$1" -- "$2")
}

# COMPREPLY: session directories starting with $1; when none match, every
# directory, so that one can walk down to sessions kept elsewhere.
_pyperf_run_sessions()
{
	local d
	local -a dirs sessions=()

	compopt -o filenames 2>/dev/null
	mapfile -t dirs < <(compgen -d -- "$1")
	for d in "${dirs[@]}"; do
		test -f "$d/meta" && sessions+=("$d")
	done
	if test ${#sessions[@]} -gt 0; then
		COMPREPLY=("${sessions[@]}")
	else
		COMPREPLY=("${dirs[@]}")
	fi
}

# COMPREPLY: a program for --python/--perf: a path when $2 holds a slash,
# else the commands in PATH named $1 and a version (python3.11, perf_6.1),
# not their helpers (python3-config).
_pyperf_run_program()
{
	local c
	local -a cmds

	case $2 in
	*/*)
		_pyperf_run_files -f "$2"
		return
		;;
	esac
	COMPREPLY=()
	mapfile -t cmds < <(compgen -c -- "$2" | sort -u)
	for c in "${cmds[@]}"; do
		[[ $c =~ ^$1[0-9._]*m?$ ]] && COMPREPLY+=("$c")
	done
}

# Complete the value of option $1 of subcommand $2 ($3: what is typed).
# Returns 1 when $1 takes no value.
_pyperf_run_value()
{
	case $2:$1 in
	*:--python)
		_pyperf_run_program python "$3" ;;
	*:--perf)
		_pyperf_run_program perf "$3" ;;
	record:-o|record:--output)
		_pyperf_run_files -d "$3" ;;
	top:-o|top:--output)
		_pyperf_run_files -f "$3" ;;
	top:--view)
		_pyperf_run_words "$_pyperf_run_views" "$3" ;;
	top:-s|top:--sort)
		_pyperf_run_words "$_pyperf_run_sorts" "$3" ;;
	top:-m|top:-c|top:-F|top:--freq|top:--stack-size|top:-n|top:--rows|\
	top:-d|top:--delay|top:--duration)
		COMPREPLY=() ;;
	record:--mode|top:--mode)
		_pyperf_run_words "$_pyperf_run_modes" "$3" ;;
	record:--trampoline|doctor:--trampoline|top:--trampoline)
		_pyperf_run_words "$_pyperf_run_trampolines" "$3" ;;
	record:-m|record:-c|record:-F|record:--freq|record:--stack-size|\
	record:-e|record:--event|record:--perf-arg|record:--duration|\
	record:--max-size)
		COMPREPLY=() ;;
	report:-i|report:--input)
		_pyperf_run_sessions "$3" ;;
	report:-o|report:--output)
		_pyperf_run_files -f "$3" ;;
	report:-f|report:--format)
		_pyperf_run_words "$_pyperf_run_formats" "$3" ;;
	report:--view)
		_pyperf_run_words "$_pyperf_run_views" "$3" ;;
	report:--color)
		_pyperf_run_words "$_pyperf_run_colors" "$3" ;;
	report:--reader)
		_pyperf_run_words "$_pyperf_run_readers" "$3" ;;
	record:-p|record:--pid|top:-p|top:--pid)
		_pyperf_run_words "$(command ls /proc 2>/dev/null | grep '^[0-9]')" "$3" ;;
	report:--clock)
		_pyperf_run_words "$_pyperf_run_clocks" "$3" ;;
	doctor:--pid|report:--pid|report:--tid|report:--time|report:--min-share|\
	report:--top|report:--tree-min|report:--title)
		COMPREPLY=() ;;
	*)
		return 1 ;;
	esac
	return 0
}

_pyperf_run()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev= opt= cmd= w
	local i ci=0 ddash=0 args=0 diff=0 sub=

	COMPREPLY=()
	test "$COMP_CWORD" -gt 0 && prev=${COMP_WORDS[COMP_CWORD - 1]}

	# The subcommand: the first word after the global options.
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-*) ;;
		*) cmd=${COMP_WORDS[i]}; ci=$i; break ;;
		esac
	done
	if test -z "$cmd"; then
		case $cur in
		-*) _pyperf_run_words "$_pyperf_run_global_opts" "$cur" ;;
		*) _pyperf_run_words "$_pyperf_run_commands" "$cur" ;;
		esac
		return 0
	fi

	# --opt=value, split by readline (COMP_WORDBREAKS holds '=') or not.
	if test "$cur" = = && test "$COMP_CWORD" -gt $((ci + 1)); then
		opt=$prev
		cur=
	elif test "$prev" = = && test "$COMP_CWORD" -gt $((ci + 2)); then
		opt=${COMP_WORDS[COMP_CWORD - 2]}
	else
		case $cur in
		--*=*)
			opt=${cur%%=*}
			cur=${cur#*=}
			;;
		esac
	fi
	if test -n "$opt"; then
		_pyperf_run_value "$opt" "$cmd" "$cur"
		# an unsplit --opt=value word is replaced whole
		case ${COMP_WORDS[COMP_CWORD]} in
		--*=*) COMPREPLY=("${COMPREPLY[@]/#/$opt=}") ;;
		esac
		return 0
	fi

	# What came between the subcommand and the word being completed.
	for ((i = ci + 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		if test "$ddash" = 1; then
			continue
		fi
		case $w in
		--) ddash=1 ;;
		--diff) diff=1 ;;
		-*) ;;
		=) ;;
		*)
			# an option's value, or a positional argument
			case ${COMP_WORDS[i - 1]} in
			=|-o|--output|--python|--perf|--mode|--trampoline|-F|--freq|\
			--stack-size|-e|--event|--perf-arg|-i|--input|-f|\
			--format|--view|--pid|--tid|--time|--min-share|--top|\
			--tree-min|--title|--color|--reader|--clock|-s|--sort|-n|--rows|\
			-d|--delay|--duration|--max-size)
				;;
			-m|-c)
				test "$cmd" = record && ddash=1
				test "$cmd" = top && ddash=1 ;;
			*)
				if test "$cmd" = trampoline && test -z "$sub"; then
					sub=$w
				else
					args=$((args + 1))
					# record, top: the script starts the program's words
					test "$cmd" = record && ddash=1
					test "$cmd" = top && ddash=1
				fi
				;;
			esac
			;;
		esac
	done

	case $cmd in
	help)
		test "$COMP_CWORD" = $((ci + 1)) &&
			_pyperf_run_words "${_pyperf_run_commands% help}" "$cur"
		return 0
		;;
	doctor|record|report|top|trampoline) ;;
	*)
		return 0 ;;
	esac

	# After `record script.py`, `-m mod`, `-c code` or `--`: the program's
	# own arguments; after `report --`: perf report's.
	if test "$ddash" = 1; then
		test "$cmd" = record && _pyperf_run_files -f "$cur"
		test "$cmd" = top && _pyperf_run_files -f "$cur"
		return 0
	fi
	if _pyperf_run_value "$prev" "$cmd" "$cur"; then
		return 0
	fi

	case $cmd:$cur in
	doctor:-*)
		_pyperf_run_words "$_pyperf_run_doctor_opts" "$cur" ;;
	record:-*)
		_pyperf_run_words "$_pyperf_run_record_opts -- " "$cur" ;;
	report:-*)
		_pyperf_run_words "$_pyperf_run_report_opts" "$cur" ;;
	top:-*)
		_pyperf_run_words "$_pyperf_run_top_opts -- " "$cur" ;;
	trampoline:*)
		if test -z "$sub"; then
			_pyperf_run_words "$_pyperf_run_trampoline_subs" "$cur"
		else
			case $cur in
			-*) _pyperf_run_words "$_pyperf_run_trampoline_opts" "$cur" ;;
			esac
		fi
		;;
	record:*|top:*)
		_pyperf_run_files -f "$cur" ;;
	report:*)
		test "$diff" = 1 && test "$args" -lt 2 &&
			_pyperf_run_sessions "$cur"
		;;
	esac
	return 0
}

# pyperf-python [--python PATH] [python's own arguments]
_pyperf_python()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=

	COMPREPLY=()
	test "$COMP_CWORD" -gt 0 && prev=${COMP_WORDS[COMP_CWORD - 1]}
	case $prev in
	--python)
		_pyperf_run_program python "$cur"
		return 0
		;;
	esac
	if test "$COMP_CWORD" = 1 || { test "$COMP_CWORD" = 3 &&
		test "${COMP_WORDS[1]}" = --python; }; then
		case $cur in
		-*)
			_pyperf_run_words '--python --help' "$cur"
			return 0
			;;
		esac
	fi
	_pyperf_run_files -f "$cur"
}

complete -F _pyperf_run pyperf-run
complete -F _pyperf_python pyperf-python
