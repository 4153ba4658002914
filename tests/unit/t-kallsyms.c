/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit tests of lib/kallsyms: the one reader of /proc/kallsyms lines,
 * as /proc shows them (the kernel's, a module's, hidden addresses) and
 * as they are not.
 */
#include "compat.h"
#include "kallsyms.h"
#include "tap.h"

static int is(const struct kallsyms_line *l, const char *name,
	      const char *mod)
{
	return l->name_len == strlen(name) &&
	       !memcmp(l->name, name, l->name_len) &&
	       (mod ? l->mod && l->mod_len == strlen(mod) &&
		      !memcmp(l->mod, mod, l->mod_len) : !l->mod);
}

int main(void)
{
	static const char text[] =
		"ffffffff81000000 T _stext\n"
		"ffffffffc0a01010 t nf_hook\t[nf_tables]\n"
		"0000000000000000 T hidden\n"
		"ffffffff81000010 d some_data\n"
		"not a line\n"
		"ffffffff81000020 T\n"
		"ffffffff81000030 W weak_one";
	static const char cut[] = "ffffffff81000050 T a\tb\n";
	const char *p = text, *end = text + sizeof(text) - 1, *next;
	struct kallsyms_line l;

	TAP_INT(kallsyms_parse(p, end, &l, &next), 0, "the kernel's symbol");
	TAP_OK(l.addr == 0xffffffff81000000ull && l.type == 'T' &&
	       is(&l, "_stext", NULL) && kallsyms_is_text(l.type),
	       "  its address, type and name; no module");
	TAP_OK(next == text + 26, "  the next line after its newline");
	p = next;
	TAP_INT(kallsyms_parse(p, end, &l, &next), 0, "a module's symbol");
	TAP_OK(l.addr == 0xffffffffc0a01010ull && l.type == 't' &&
	       is(&l, "nf_hook", "[nf_tables]"), "  its name and module");
	p = next;
	TAP_INT(kallsyms_parse(p, end, &l, &next), 0,
		"a hidden address (kptr_restrict) still reads");
	TAP_OK(l.addr == 0 && is(&l, "hidden", NULL), "  as address 0");
	p = next;
	TAP_INT(kallsyms_parse(p, end, &l, &next), 0, "a data symbol");
	TAP_OK(!kallsyms_is_text(l.type), "  is not a function's");
	p = next;
	TAP_INT(kallsyms_parse(p, end, &l, &next), -1, "not a line: -1");
	p = next;
	TAP_INT(kallsyms_parse(p, end, &l, &next), -1, "no name: -1");
	p = next;
	TAP_INT(kallsyms_parse(p, end, &l, &next), 0,
		"the last line, without a newline");
	TAP_OK(l.type == 'W' && kallsyms_is_text(l.type) &&
	       is(&l, "weak_one", NULL) && next == end,
	       "  a weak function's; next is the end");
	TAP_INT(kallsyms_parse("ffffffff81000040 T nul_ended", NULL, &l,
			       &next), 0, "a NUL-ended line (end NULL)");
	TAP_OK(is(&l, "nul_ended", NULL) && !*next,
	       "  its name; next at the NUL, not past it");
	TAP_INT(kallsyms_parse(cut, cut + 12, &l, NULL), -1,
		"a line cut short by end: -1");
	return tap_done();
}
