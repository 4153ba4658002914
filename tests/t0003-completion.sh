#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
test_description='bash and zsh completion: commands, every option of every --help, option values, sessions, make install'
. ./test-lib.sh

BASH_COMP=$PPR_SRCDIR/completions/pyperf-run.bash
ZSH_COMP=$PPR_SRCDIR/completions/_pyperf-run

# What the real command line offers, from the binary under test: its
# commands, each command's options (from --help) and the values its
# option parsers accept (from their error messages).
ppr_commands >real-commands
{ cat real-commands && echo help; } >commands
for c in $(cat real-commands); do
	ppr "$c" --help | grep -oE -- '--[a-z][a-z-]*' | sort -u >"opts.$c"
	ppr "$c" --help | sed -n 's/^ *\(-[a-zA-Z]\), .*/\1/p' >>"opts.$c"
done
ppr trampoline --help | sed -n 's/.*pyperf-run trampoline \([a-z][a-z]*\) .*/\1/p' |
	sort -u >tramp-subs
# "unknown format 'x' (text, collapsed, ...)" / "--mode must be a, b or c, not 'x'"
parser_values() {
	sed -n -e 's/.*unknown format .*(\(.*\)).*/\1/p' \
		-e 's/.* must be \(.*\), not .*/\1/p' | head -n 1 |
		sed -e 's/, /\n/g' -e 's/ or /\n/g' | sort
}
ppr report --format x 2>&1 | parser_values >values.format
ppr report --view x 2>&1 | parser_values >values.view
ppr report --color x 2>&1 | parser_values >values.color
ppr record --mode x x.py 2>&1 | parser_values >values.mode

# A session (a directory holding meta), a plain directory, a script.
mkdir -p work/s1 work/sub/s2 work/plain &&
	: >work/s1/meta && : >work/sub/s2/meta && : >work/prog.py

test_expect_success 'what the binary offers was read (commands, options, values)' '
	test_grep "^record$" commands &&
	for c in $(cat real-commands); do
		test -s opts.$c || { echo "no options read for $c"; return 1; }
	done &&
	test_grep "^--output$" opts.record &&
	test_grep "^install$" tramp-subs &&
	for v in format view color mode; do
		test $(wc -l <values.$v) -ge 2 || { cat values.$v; return 1; }
	done
'

# bash_complete WORDS...: what bash offers for the last word, one a line,
# through the function the file registers for the first word (complete -p).
bash_complete() {
	(cd work && bash --norc --noprofile -c '
		. "$1" || exit 1
		shift
		fn=$(complete -p "$1" | sed -n "s/.* -F \([^ ]*\) .*/\1/p")
		test -n "$fn" || { echo "no completion for $1" >&2; exit 1; }
		COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"
		COMP_POINT=${#COMP_LINE}
		"$fn" "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
		test ${#COMPREPLY[@]} = 0 || printf "%s\n" "${COMPREPLY[@]}"
	' bash "$BASH_COMP" "$@")
}

# all_offered WANTED OFFERED: every line of WANTED is in OFFERED.
all_offered() {
	while read -r w_; do
		grep -qxF -e "$w_" "$2" || { echo "not offered: $w_"; return 1; }
	done <"$1"
}

test_expect_success 'bash: the file loads without errors in a plain bash' '
	bash --norc --noprofile -c ". \"$BASH_COMP\" && complete -p pyperf-run pyperf-python" >out 2>err &&
	! test -s err &&
	test_grep "_pyperf_run pyperf-run" out
'

test_expect_success 'bash: every command is offered' '
	bash_complete pyperf-run "" >offered &&
	sort commands >want && sort offered >got &&
	test_cmp want got
'

# options_line COMMAND: the command line whose completion offers the
# options of COMMAND --help (trampoline's are its subcommands' options).
options_line() {
	case $1 in
	trampoline) echo "pyperf-run trampoline install -" ;;
	*) echo "pyperf-run $1 -" ;;
	esac
}

for c in $(cat real-commands); do
	test_expect_success "bash: every option of '$c --help' is offered" "
		bash_complete $(options_line $c) >offered &&
		all_offered opts.$c offered
	"
done

test_expect_success 'bash: the trampoline subcommands of its --help are offered' '
	bash_complete pyperf-run trampoline "" >offered &&
	sort offered >got &&
	test_cmp tramp-subs got
'

test_expect_success 'bash: --format, --view, --color and --mode offer what the parsers accept' '
	bash_complete pyperf-run report --format "" | sort >got &&
	test_cmp values.format got &&
	bash_complete pyperf-run report -f "" | sort >got &&
	test_cmp values.format got &&
	bash_complete pyperf-run report --view "" | sort >got &&
	test_cmp values.view got &&
	bash_complete pyperf-run report --color "" | sort >got &&
	test_cmp values.color got &&
	bash_complete pyperf-run record --mode "" | sort >got &&
	test_cmp values.mode got &&
	bash_complete pyperf-run report --format = h >got &&
	test_grep "^html$" got &&
	bash_complete pyperf-run report --format=sv >got &&
	test_grep "^--format=svg$" got
'

test_expect_success 'bash: report -i and --diff offer session directories only' '
	bash_complete pyperf-run report -i "" >got &&
	echo s1 >want &&
	test_cmp want got &&
	bash_complete pyperf-run report --input sub/ >got &&
	echo sub/s2 >want &&
	test_cmp want got &&
	bash_complete pyperf-run report --diff s1 "" >got &&
	echo s1 >want &&
	test_cmp want got &&
	bash_complete pyperf-run report --diff s1 s1 "" >got &&
	! test -s got
'

test_expect_success 'bash: with no session there, report -i walks directories' '
	bash_complete pyperf-run report -i p >got &&
	echo plain >want &&
	test_cmp want got
'

test_expect_success 'bash: record takes a script, then the script'"'"'s own arguments' '
	bash_complete pyperf-run record pr >got &&
	test_grep "^prog.py$" got &&
	bash_complete pyperf-run record prog.py - >got &&
	test_grep -v "^--output$" got &&
	bash_complete pyperf-run record -o out -m mod - >got &&
	test_grep -v "^--output$" got
'

test_expect_success 'bash: help offers the commands; pyperf-python its options' '
	bash_complete pyperf-run help "" >got &&
	grep -vx help commands | sort >want &&
	sort got >got.s &&
	test_cmp want got.s &&
	bash_complete pyperf-python -- >got &&
	test_grep "^--python$" got &&
	test_grep "^--help$" got
'

# --- zsh -------------------------------------------------------------------
test_prereq_ZSH() {
	command -v zsh >/dev/null || { echo "zsh is not installed (apt-get install zsh)"; return 1; }
}

test_prereq_ZPTY() {
	test_prereq_ZSH || return 1
	zsh -f -c 'zmodload zsh/zpty' 2>/dev/null ||
		{ echo "zsh has no zpty module to drive completion with"; return 1; }
}

test_expect_success ZSH 'zsh: the completion file parses (zsh -n)' '
	zsh -n "$ZSH_COMP"
'

# zsh_complete LINE...: for each LINE, an interactive zsh (driven through
# a pseudo-terminal) completes it; prints "== LINE" and the matches.
mkdir -p zfunc && cp "$ZSH_COMP" zfunc/
cat >zdrive.zsh <<'EOF'
zmodload zsh/zpty || exit 3
zpty z zsh -f -i
zpty -w z "PROMPT=; fpath=($1 \$fpath); autoload -Uz compinit; compinit -u -D"
# a tall, wide terminal and no "do you wish to see all" question: a long
# list must never stop zle before the DONE marker
zpty -w z 'stty rows 500 columns 250 2>/dev/null; LISTMAX=1000000'
zpty -w z 'compadd() { local -a m; builtin compadd -O m "$@"; print -rl -- "MATCH:"${^m}; builtin compadd "$@" }'
zpty -w z 'zle_done() { print "DONE"; zle -I; }; zle -N zle_done; bindkey "^X" zle_done; bindkey "^I" complete-word'
zpty -w z 'print READY'
zpty -r z line '*READY*'
zpty -r z line '*READY*'
shift
for l in "$@"; do
	print -r -- "== $l"
	zpty -w -n z "$l"$'\t'
	zpty -w -n z $'\C-x'
	out=
	# at most 20 s a line, so that one stuck line is said, not a hang
	deadline=$(( SECONDS + 20 ))
	while (( SECONDS < deadline )); do
		if zpty -r -t z line; then
			out+=$line
			# the marker may come split over two reads
			[[ $out == *DONE* ]] && break
		else
			sleep 0.05
		fi
	done
	[[ $out == *DONE* ]] || print -r -- "TIMEOUT: no DONE after 20 s for: $l" >&2
	print -r -- ${(F)${(M)${(f)out}:#*MATCH:*}} | sed -e 's/.*MATCH://' -e 's/\r$//' -e '/^$/d' | sort -u
	zpty -w -n z $'\C-e\C-u'
done
zpty -d z
EOF
zsh_complete() {
	(cd work && timeout 60 zsh -f ../zdrive.zsh "$TRASH/zfunc" "$@")
}
# zsh_matches LINE: the matches of LINE in the output of zsh_complete.
zsh_matches() {
	awk -v l="== $1" '$0 == l { on = 1; next } /^== / { on = 0 } on' zsh.out
}

test_expect_success ZPTY 'zsh: completion runs in an interactive zsh' '
	set -- "pyperf-run " "pyperf-run trampoline " \
		"pyperf-run report --format " "pyperf-run report --view " \
		"pyperf-run report --color " "pyperf-run record --mode " \
		"pyperf-run report -i " "pyperf-run report --diff " \
		"pyperf-run help " &&
	for c in $(cat real-commands); do
		set -- "$@" "$(options_line $c)"
	done &&
	zsh_complete "$@" >"$TRASH/zsh.out" 2>zsh.err &&
	test $(grep -c "^== " "$TRASH/zsh.out") = $# &&
	! grep TIMEOUT zsh.err || { cat zsh.err "$TRASH/zsh.out"; false; }
'

test_expect_success ZPTY 'zsh: every command, and every option of every --help, is offered' '
	zsh_matches "pyperf-run " | sort >got &&
	sort commands >want &&
	test_cmp want got &&
	for c in $(cat real-commands); do
		zsh_matches "$(options_line $c)" >got &&
		all_offered opts.$c got || return 1
	done &&
	zsh_matches "pyperf-run trampoline " >got &&
	test_cmp tramp-subs got &&
	zsh_matches "pyperf-run help " >got &&
	grep -vx help commands | sort >want &&
	test_cmp want got
'

test_expect_success ZPTY 'zsh: option values and session directories' '
	zsh_matches "pyperf-run report --format " >got && test_cmp values.format got &&
	zsh_matches "pyperf-run report --view " >got && test_cmp values.view got &&
	zsh_matches "pyperf-run report --color " >got && test_cmp values.color got &&
	zsh_matches "pyperf-run record --mode " >got && test_cmp values.mode got &&
	echo s1 >want &&
	zsh_matches "pyperf-run report -i " >got && test_cmp want got &&
	zsh_matches "pyperf-run report --diff " >got && test_cmp want got
'

# --- make install ------------------------------------------------------------
test_prereq_MAKE() {
	command -v make >/dev/null || { echo "make is not installed"; return 1; }
	test -f "$PPR_SRCDIR/Makefile" || { echo "not configured"; return 1; }
}

test_expect_success MAKE 'make install puts both under datadir (DESTDIR honoured); uninstall removes them' '
	datadir=$(sed -n "s/^datadir = //p" "$PPR_SRCDIR/Makefile") &&
	make -s -C "$PPR_SRCDIR" BUILD="${PPR_BUILD#"$PPR_SRCDIR"/}" \
		DESTDIR="$TRASH/root" install-completion >out 2>&1 ||
		{ cat out; false; } &&
	cmp "$BASH_COMP" "$TRASH/root$datadir/bash-completion/completions/pyperf-run" &&
	test "$(readlink "$TRASH/root$datadir/bash-completion/completions/pyperf-python")" = pyperf-run &&
	cmp "$ZSH_COMP" "$TRASH/root$datadir/zsh/vendor-completions/_pyperf-run" &&
	make -s -C "$PPR_SRCDIR" BUILD="${PPR_BUILD#"$PPR_SRCDIR"/}" \
		DESTDIR="$TRASH/root" uninstall >out 2>&1 ||
		{ cat out; false; } &&
	find "$TRASH/root" ! -type d >left &&
	! test -s left || { cat left; false; }
'

test_done
