#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# lib/'s folders depend on each other one way (lib/README.md): the
# #include edges between them, and the calls between their objects, have
# no cycle.  lib/ itself (the building blocks) is the base layer, a
# folder like the others here: a building block that includes a stage's
# header is a cycle as soon as that stage includes a building block.
# Also the project's other layering rules that a reading of the sources
# can check: trampoline/ (loaded into users' processes) includes nothing
# from lib/, and lib/ never prints or exits (cmd/ does).

test_description='layering: no cycles between lib/ folders, trampoline/ apart, lib/ silent'
. ./test-lib.sh

LIB=$PPR_SRCDIR/lib

# include_edges: one line per #include that crosses folders,
# "FROM TO lib/FROM/file.c includes \"TO/x.h\"", where a folder is "lib"
# for lib/x.c and "report" for lib/report/x.c.  A quoted include is
# looked up as the compiler does with -Ilib: next to the file first,
# then under lib/; headers found in neither (generated ones, such as
# the walker's BPF skeleton) are not lib's and are left out.
include_edges() {
	(cd "$PPR_SRCDIR" && find lib -name '*.[ch]' | sort >"$TRASH/lib-files" &&
	 awk '
	function folder(path,   n, p) {
		n = split(path, p, "/")
		return n > 2 ? p[2] : "lib"
	}
	NR == FNR { exists[$0] = 1; next }
	/^[ \t]*#[ \t]*include[ \t]*"/ {
		inc = $0
		sub(/^[^"]*"/, "", inc); sub(/".*/, "", inc)
		dir = FILENAME; sub(/\/[^\/]*$/, "", dir)
		if ((dir "/" inc) in exists) target = dir "/" inc
		else if (("lib/" inc) in exists) target = "lib/" inc
		else next
		from = folder(FILENAME); to = folder(target)
		if (from != to)
			print from, to, FILENAME, "includes \"" inc "\""
	}' "$TRASH/lib-files" $(cat "$TRASH/lib-files"))
}

# call_edges: one line per symbol an object of one folder uses and an
# object of another defines, "FROM TO lib/FROM/file.o uses SYMBOL",
# from nm on the build's objects (calls and data alike): the objects of
# today's sources only, not those a renamed file left in the build.
call_edges() {
	(cd "$PPR_SRCDIR" && find lib -name '*.c' ! -name '*.bpf.c' | sort) |
	sed 's/\.c$/.o/' | (cd "$PPR_BUILD" &&
		while read -r o; do test -e "$o" && echo "$o"; done) >objects &&
	(cd "$PPR_BUILD" && xargs nm -A) <objects |
	awk '
	{
		# "lib/report/x.o: 0000000000000010 T name" or "...:  U name"
		split($1, p, ":"); obj = p[1]
		n = split(obj, parts, "/")
		folder = n > 2 ? parts[2] : "lib"
		sym = $NF; type = $(NF - 1)
		if (type == "U") { use[obj " " sym] = folder; next }
		if (type ~ /^[TDRBCV]$/ || type ~ /^[W]$/) def[sym] = folder
	}
	END {
		for (k in use) {
			split(k, q, " ")
			if (!(q[2] in def) || def[q[2]] == use[k]) continue
			print use[k], def[q[2]], q[1], "uses", q[2]
		}
	}' | sort
}

# cycles: reads edge lines ("FROM TO WHY..."), prints each simple cycle
# between folders once ("cycle: a -> b -> a") with the lines that make
# each of its edges (at most five an edge, then how many more), and
# exits 1 if there is one.
cycles() {
	awk '
	{
		from = $1; to = $2
		why = $0; sub(/^[^ ]+ [^ ]+ /, "", why)
		if (!((from, to) in nwhy)) { out[from] = out[from] " " to }
		nwhy[from, to]++
		if (nwhy[from, to] <= 5) whys[from, to] = whys[from, to] "\n\t\t" why
		node[from] = 1; node[to] = 1
	}
	# every simple cycle through start whose other nodes sort after it:
	# each cycle is found once, from its smallest node
	function walk(start, at, path, depth,   i, n, nx, t) {
		n = split(out[at], nx, " ")
		for (i = 1; i <= n; i++) {
			t = nx[i]
			if (t == start) { report(path " " start); continue }
			if (t <= start || (t in onpath)) continue
			onpath[t] = 1
			walk(start, t, path " " t, depth + 1)
			delete onpath[t]
		}
	}
	function report(path,   n, p, i, more) {
		n = split(path, p, " ")
		line = p[1]
		for (i = 2; i <= n; i++) line = line " -> " p[i]
		print "cycle: " line
		for (i = 1; i < n; i++) {
			print "\t" p[i] " -> " p[i + 1] ":" whys[p[i], p[i + 1]]
			more = nwhy[p[i], p[i + 1]] - 5
			if (more > 0) print "\t\t(and " more " more)"
		}
		cycles[++found] = line
	}
	END {
		for (s in node) {
			delete onpath
			walk(s, s, s, 0)
		}
		# the list again at the end, where a failed test shows it
		if (found) print found " cycle(s) between folders:"
		for (i = 1; i <= found; i++) print "  " cycles[i]
		exit found > 0
	}'
}

test_expect_success 'the #include edges between lib/ folders' '
	include_edges >edges &&
	test -s edges &&
	cut -d" " -f1,2 edges | sort | uniq -c |
		awk "{ print \$2 \" -> \" \$3 \": \" \$1 \" includes\" }" >summary &&
	while read -r l; do test_diag "$l"; done <summary &&
	test_grep "^report lib " edges
'

test_expect_success 'no cycle of #include edges between lib/ folders' '
	include_edges >edges &&
	if ! cycles <edges >found-includes; then
		cat found-includes
		return 1
	fi
'

test_expect_success 'no cycle of calls between lib/ folders (nm of the objects)' '
	call_edges >calls &&
	test_grep "^report lib .* uses xmalloc" calls &&
	if ! cycles <calls >found-calls; then
		cat found-calls
		return 1
	fi
'

# The check itself: a made-up cycle is found, with its files.
test_expect_success 'the cycle check finds a cycle and names its files' '
	printf "%s\n" "a b lib/a/x.c includes \"b/y.h\"" \
		"b c lib/b/y.c includes \"c/z.h\"" \
		"c a lib/c/z.c includes \"a/x.h\"" "a d lib/a/w.c includes \"d/w.h\"" >fake &&
	test_must_fail cycles <fake >found &&
	test_grep "^cycle: a -> b -> c -> a\$" found &&
	test_grep "lib/c/z.c includes" found &&
	test $(grep -c "^cycle:" found) = 1 &&
	test_grep "^1 cycle\(s\) between folders:" found &&
	printf "%s\n" "a b x" "b c y" >fake &&
	cycles <fake
'

test_expect_success 'trampoline/ includes nothing from lib/' '
	find "$PPR_SRCDIR/trampoline" -name "*.[ch]" >files &&
	test -s files &&
	bad=0 &&
	while read -r f; do
		dir=$(dirname "$f")
		for inc in $(sed -n "s/^[[:space:]]*#[[:space:]]*include[[:space:]]*\"\([^\"]*\)\".*/\1/p" "$f"); do
			case $inc in
			internal/*) continue ;;	# CPython'\''s own headers
			esac
			if ! test -e "$dir/$inc" || test -e "$LIB/$inc"; then
				echo "${f#"$PPR_SRCDIR"/} includes \"$inc\" (not a trampoline/ header)"
				bad=1
			fi
		done
	done <files &&
	test $bad = 0 &&
	if grep -n -e "-I[^ ]*lib\b" -e "\.\./lib" "$PPR_SRCDIR/trampoline/build.mk" \
		"$PPR_SRCDIR/trampoline/build.sh"; then
		echo "the trampoline build looks into lib/"
		return 1
	fi
'

# lib/ reports through return values, err buffers and callbacks: no
# printing to the terminal, no exit.  Comments are left out (lines that
# start a comment or continue one); spawn.c'\''s _exit(127) in a forked
# child that could not exec is not matched (the child ends, not the
# caller), nor alloc.c'\''s abort() on running out of memory (alloc.h).
test_expect_success 'lib/ never prints to stdout or stderr, never exits' '
	find "$LIB" -name "*.[ch]" | sort >files &&
	while read -r f; do
		grep -n -H -E \
		"(^|[^A-Za-z0-9_.>])(printf|puts|perror|putchar|exit|err|errx|warn|warnx)[[:space:]]*\(|(fprintf|vfprintf|fputs|fputc|putc|fwrite|fflush)[[:space:]]*\([^;]*\b(stdout|stderr)\b" "$f"
	done <files | grep -v -E "^[^:]*:[0-9]+:[[:space:]]*(/?\*|//)" >found
	if test -s found; then
		cat found
		return 1
	fi
'

test_done
