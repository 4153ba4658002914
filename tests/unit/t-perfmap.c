/* SPDX-License-Identifier: GPL-2.0-only */
/* Unit tests of lib/report/stage_name_perfmap.c. */
#include "compat.h"
#include "report/stage_name_perfmap.h"
#include "tap.h"

static const char map_text[] =
	"7f0000001000 b py::main:/src/app.py\n"
	"7f0000001010 b py::Foo.bar:/src/app.py\n"
	"garbage line\n"
	"\n"
	"7f0000001030 0x20 py::<lambda>:/src/app.py\n"
	"0x7f0000002000 100 native thing with spaces\n"
	"zzzz 10 bad start\n"
	"7f0000003000 0 zero size\n"
	"7f0000003000 10\n"
	"7f0000001018 4 py::overlay:/src/late.py\n"
	"7f0000004000 10 py::partial";

int main(void)
{
	struct perfmap m = PERFMAP_INIT;
	const struct perfmap_entry *e;

	perfmap_parse(&m, map_text, sizeof(map_text) - 1);
	TAP_INT(m.nr, 5, "five good entries");
	TAP_INT(m.bad_lines, 5, "garbage, bad start, zero size, no name, "
		"partial last line skipped");

	e = perfmap_lookup(&m, 0x7f0000001000);
	TAP_STR(e ? e->name : NULL, "py::main:/src/app.py", "start of entry");
	e = perfmap_lookup(&m, 0x7f000000100a);
	TAP_STR(e ? e->name : NULL, "py::main:/src/app.py", "inside entry");
	e = perfmap_lookup(&m, 0x7f000000100b);
	TAP_OK(e == NULL, "the byte after an entry is a gap");
	e = perfmap_lookup(&m, 0x7f0000001010);
	TAP_STR(e ? e->name : NULL, "py::Foo.bar:/src/app.py", "next entry");
	e = perfmap_lookup(&m, 0x7f0000001019);
	TAP_STR(e ? e->name : NULL, "py::overlay:/src/late.py",
		"overlapping entry written last wins");
	e = perfmap_lookup(&m, 0x7f0000001012);
	TAP_STR(e ? e->name : NULL, "py::Foo.bar:/src/app.py",
		"before the overlay the older entry shows");
	e = perfmap_lookup(&m, 0x7f000000104f);
	TAP_STR(e ? e->name : NULL, "py::<lambda>:/src/app.py",
		"0x-prefixed size");
	e = perfmap_lookup(&m, 0x7f00000020ff);
	TAP_STR(e ? e->name : NULL, "native thing with spaces",
		"0x start, name with spaces");
	TAP_OK(perfmap_lookup(&m, 0x7f0000002100) == NULL, "end exclusive");
	TAP_OK(perfmap_lookup(&m, 0x1000) == NULL, "below every entry");
	TAP_OK(perfmap_lookup(&m, ~(uint64_t)0) == NULL, "above every entry");
	TAP_OK(perfmap_lookup(&m, 0x7f0000004005) == NULL,
	       "a partial last line is not used");

	perfmap_parse(&m, "", 0);
	TAP_INT(m.nr, 0, "empty map");
	TAP_OK(perfmap_lookup(&m, 5) == NULL, "lookup in an empty map");
	perfmap_parse(&m, "1 2 a\0b\n10 2 ok\n", 16);
	TAP_INT(m.nr, 1, "a line with a NUL byte is skipped");
	TAP_INT(perfmap_read(&m, "/nonexistent/perf-1.map"), -ENOENT,
		"missing file");
	TAP_INT(m.nr, 0, "empty after a failed read");
	perfmap_release(&m);
	return tap_done();
}
