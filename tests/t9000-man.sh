#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
test_description='man pages: lint clean, one per command, SYNOPSIS equals -h'
. ./test-lib.sh

MAN=$PPR_SRCDIR/man

# The SYNOPSIS lines of a roff page, as plain text.
synopsis_of() {
	sed -n '/^\.SH SYNOPSIS/,/^\.SH /p' "$1" |
	sed -e '/^\.SH/d' -e '/^\.nf/d' -e '/^\.fi/d' -e '/^\.br/d' \
	    -e 's/\\f[BIRP]//g' -e 's/\\-/-/g' -e 's/\\(em/--/g' -e 's/\\&//g' \
	    -e '/^$/d'
}

# The synopsis lines of `-h` output.
usage_of() {
	sed -n -e 's/^usage: //p' -e 's/^   or: //p'
}

# man_pages_missing: the commands on stdin (one a line) that have no
# pyperf-run-<command>(1) page, one a line; fails when there is one.
man_pages_missing() {
	mp_status_=0
	while read -r mp_c_; do
		if ! test -f "$MAN/pyperf-run-$mp_c_.1"; then
			echo "$mp_c_"
			mp_status_=1
		fi
	done
	return $mp_status_
}

# The commands come from --help, so that a new command without a page
# fails here.
ppr_commands >commands

test_prereq_LINT() {
	command -v mandoc >/dev/null || { echo "mandoc is not installed"; return 1; }
}

test_expect_success 'every command of --help has a man page' '
	test -s commands &&
	man_pages_missing <commands >missing || { sed "s/^/no page for /" missing; false; }
'

test_expect_success 'every pyperf-run-<command>(1) page is of a command of --help' '
	for page in "$MAN"/pyperf-run-*.1; do
		c=$(basename "$page" .1) && c=${c#pyperf-run-} &&
		grep -qx "$c" commands || { echo "$page: no command $c"; return 1; }
	done
'

for page in "$MAN"/*.1; do
	name=$(basename "$page" .1)
	test_expect_success "$name: groff renders it without warnings" "
		groff -man -ww -z -Tutf8 '$page' 2>err &&
		! test -s err
	"
	test_expect_success LINT "$name: mandoc -Tlint is clean" "
		mandoc -Tlint -W warning '$page' >lint 2>&1 || { cat lint; false; }
	"
	test_expect_success "$name: has NAME, SYNOPSIS, DESCRIPTION, EXIT STATUS" "
		for s in NAME SYNOPSIS DESCRIPTION 'EXIT STATUS'; do
			grep -q \"^\\.SH \\\"\\?\$s\" '$page' || { echo \"no \$s\"; return 1; }
		done
	"
done

test_expect_success 'pyperf-run(1) SYNOPSIS equals --help' '
	synopsis_of "$MAN/pyperf-run.1" >expect &&
	test -s expect &&
	ppr --help | usage_of >actual &&
	test_cmp expect actual
'

for c in $(cat commands); do
	test_expect_success "pyperf-run-$c(1) SYNOPSIS equals '$c -h'" "
		synopsis_of '$MAN/pyperf-run-$c.1' >expect &&
		test -s expect &&
		ppr $c -h | usage_of >actual &&
		test_cmp expect actual
	"
done

if test -f "$MAN/pyperf-python.1"; then
	test_expect_success 'pyperf-python(1) SYNOPSIS equals pyperf-python --help' '
		synopsis_of "$MAN/pyperf-python.1" >expect &&
		"$PPR_BUILD/wrappers/pyperf-python" --help | usage_of >actual &&
		test_cmp expect actual
	'
fi

test_done
