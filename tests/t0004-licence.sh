#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Every tracked source file names its licence in an SPDX line near its
# top: MIT for trampoline/ and wrappers/ (loaded into, or run, users' own
# processes), GPL-2.0-only for everything else; each licence has its
# LICENSE file.

test_description='licences: LICENSE files and an SPDX line in every source file'
. ./test-lib.sh

test_prereq_GITTREE() {
	command -v git >/dev/null || { echo "git is not installed"; return 1; }
	git -C "$PPR_SRCDIR" rev-parse --git-dir >/dev/null 2>&1 ||
		{ echo "the source tree is not a git checkout"; return 1; }
}

test_expect_success 'a LICENSE file for each licence' '
	grep -q "GNU GENERAL PUBLIC LICENSE" "$PPR_SRCDIR/LICENSE" &&
	grep -q "Version 2, June 1991" "$PPR_SRCDIR/LICENSE" &&
	for d in trampoline wrappers; do
		grep -q "^MIT License" "$PPR_SRCDIR/$d/LICENSE" ||
		{ echo "$d/LICENSE is not the MIT licence"; return 1; }
	done
'

# The files that are source: code, scripts, build files, man pages.
is_source() {
	case $1 in
	*/corpus/*|*.md|*.json|LICENSE|*/LICENSE) return 1 ;;
	debian/rules) return 0 ;;
	debian/*|.gitignore|.ci/apt-packages*) return 1 ;;
	tests/sanitize-skip) return 1 ;;	# data make sanitize-set writes
	*.c|*.cc|*.h|*.S|*.js|*.css|*.html|*.proto|*.1|*.sh|*.py|*.mk|*.in|*.pth|*.bash) return 0 ;;
	configure|.ci/install|.ci/run|completions/_*) return 0 ;;
	esac
	echo "unclassified file: $1 (say in t0004 whether it is source)" >&2
	return 2
}

# spdx_of FILE: got= the licence its first SPDX line names, within its
# first 5 lines; read by the shell itself, no process a file (a pipeline
# of three a file took 23 of this test's 24 s on a loaded machine)
spdx_of() {
	got= n_=0
	while test $n_ -lt 5 && IFS= read -r l_; do
		case $l_ in
		*SPDX-License-Identifier:\ *)
			l_=${l_#*SPDX-License-Identifier: }
			got=${l_%%[!A-Za-z0-9.+-]*}
			return 0
			;;
		esac
		n_=$((n_ + 1))
	done <"$1"
}

test_expect_success GITTREE 'every tracked source file has the right SPDX line' '
	git -C "$PPR_SRCDIR" ls-files >files &&
	test -s files &&
	bad=0 &&
	while read -r f; do
		is_source "$f"; s=$?
		test $s = 1 && continue
		test $s = 2 && { bad=1; continue; }
		case $f in
		trampoline/*|wrappers/*) want=MIT ;;
		*) want=GPL-2.0-only ;;
		esac
		spdx_of "$PPR_SRCDIR/$f"
		if test "$got" != "$want"; then
			echo "$f: SPDX licence \"$got\", want \"$want\""
			bad=1
		fi
	done <files &&
	test $bad = 0
'

test_done
