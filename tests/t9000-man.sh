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

test_prereq_LINT() {
	command -v mandoc >/dev/null || { echo "mandoc is not installed"; return 1; }
}

test_expect_success 'every command has a man page' '
	for c in doctor record report trampoline; do
		test -f "$MAN/pyperf-run-$c.1" || { echo "no page for $c"; return 1; }
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
	ppr --help | usage_of >actual &&
	test_cmp expect actual
'

for c in doctor record report trampoline; do
	test_expect_success "pyperf-run-$c(1) SYNOPSIS equals '$c -h'" "
		synopsis_of '$MAN/pyperf-run-$c.1' >expect &&
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
