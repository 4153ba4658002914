/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * walker/pytarget.h.  Without arguments: the unit tests (the tables'
 * own consistency, a process that is not Python, a process that has
 * exited).  With arguments it is t3501's tool:
 *   t-pytarget layout X.Y    the compiled-in table, in the format of
 *                            tests/fixtures/walker-offsets.c
 *   t-pytarget inspect PID   pytarget_inspect(): "status NAME", "why",
 *                            "version", "path", "source", then the
 *                            layout in the same format
 */
#include "compat.h"
#include "walker/pytarget.h"
#include "tap.h"

#include <sys/wait.h>
#include <unistd.h>

#define NO WALKER_NO_FIELD

static void print_layout(const struct walker_layout *l,
			 const struct pytarget_code *c)
{
#define P(f) printf("%s %lu\n", #f, (unsigned long)l->f)
	P(runtime_interp_head); P(interp_tstate_head); P(tstate_next);
	P(tstate_thread_id); P(tstate_frame); P(cframe_current_frame);
	P(frame_code); P(frame_back); P(frame_instr); P(frame_is_entry);
	P(frame_owner); P(frame_read_size); P(owner_cstack);
	P(owner_interpreter); P(code_adaptive); P(code_firstlineno);
	P(code_tag_bits);
#undef P
#define P(f) printf("%s %lu\n", #f, (unsigned long)c->f)
	P(co_filename); P(co_name); P(co_qualname); P(co_linetable);
	P(co_code); P(bytes_size); P(bytes_sval); P(str_length);
	P(str_state); P(str_ascii_size); P(str_compact_size);
	P(str_kind_bit); P(str_compact_bit); P(str_ascii_bit);
#undef P
}

static int tool(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "layout")) {
		unsigned a, b;
		const struct walker_layout *l;

		if (sscanf(argv[2], "%u.%u", &a, &b) != 2)
			return 2;
		l = pytarget_table_layout(a, b);
		if (!l) {
			printf("no table\n");
			return 1;
		}
		printf("version_major %u\nversion_minor %u\n", a, b);
		print_layout(l, pytarget_table_code(a, b));
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "inspect")) {
		struct pytarget t;
		enum pytarget_status st;

		st = pytarget_inspect((pid_t)atoi(argv[2]), &t);
		printf("status %s\n", pytarget_status_name(st));
		printf("why %s\n", t.why);
		printf("version %s\n", t.version);
		printf("hexversion %08x\n", t.hexversion);
		printf("path %s\n", t.path);
		printf("free_threaded %d\n", t.free_threaded);
		if (st != PYTARGET_OK)
			return 1;
		printf("source %s\n", t.from_debug_offsets ?
		       "debug-offsets" : "table");
		printf("runtime 0x%llx\n", (unsigned long long)t.runtime);
		printf("version_major %u\nversion_minor %u\n",
		       t.hexversion >> 24, t.hexversion >> 16 & 0xff);
		print_layout(&t.layout, &t.code);
		return 0;
	}
	fprintf(stderr, "usage: t-pytarget [layout X.Y | inspect PID]\n");
	return 2;
}

/* Every field the walker reads lies inside frame_read_size. */
static void check_table(unsigned minor)
{
	const struct walker_layout *l = pytarget_table_layout(3, minor);
	const struct pytarget_code *c = pytarget_table_code(3, minor);

	TAP_OK(l && c, "3.%u has a layout and code table", minor);
	if (!l || !c)
		return;
	TAP_OK(l->frame_code + 8 <= l->frame_read_size &&
	       l->frame_back + 8 <= l->frame_read_size &&
	       l->frame_instr + 4 <= l->frame_read_size &&
	       (l->frame_is_entry == NO ||
		l->frame_is_entry < l->frame_read_size) &&
	       (l->frame_owner == NO || l->frame_owner < l->frame_read_size) &&
	       l->frame_read_size % 8 == 0,
	       "3.%u: the frame fields lie inside the %u bytes read", minor,
	       l->frame_read_size);
	TAP_INT(l->frame_kind, minor >= 11 ? WALKER_IFRAME : WALKER_FRAMEOBJ,
		"3.%u: frame kind", minor);
	TAP_INT(l->lasti_units, minor == 10 ? 2 : minor < 10 ? 1 : 0,
		"3.%u: bytes per f_lasti unit", minor);
	TAP_OK((minor >= 11) == (c->co_qualname != NO),
	       "3.%u: co_qualname exists from 3.11 on", minor);
	TAP_INT(l->code_firstlineno, c->co_firstlineno,
		"3.%u: the frame's tag and the reader's first line agree",
		minor);
}

int main(int argc, char **argv)
{
	struct pytarget t;
	unsigned m;
	pid_t pid;
	int status;

	if (argc > 1)
		return tool(argc, argv);
	for (m = 8; m <= 12; m++)
		check_table(m);
	for (m = 13; m <= 15; m++) {
		TAP_OK(!pytarget_table_layout(3, m), "3.%u has no layout "
		       "table: its _Py_DebugOffsets are read", m);
		TAP_OK(pytarget_table_code(3, m) != NULL, "3.%u has a code "
		       "table (what _Py_DebugOffsets lacks)", m);
	}
	TAP_OK(!pytarget_table_layout(3, 7) && !pytarget_table_layout(2, 7) &&
	       !pytarget_table_code(3, 16),
	       "no tables for 2.7, 3.7; no code table for 3.16");

	TAP_INT(pytarget_inspect(getpid(), &t), PYTARGET_NOT_PYTHON,
		"this test binary is not a Python");
	TAP_OK(strstr(t.why, "is not a Python") != NULL, "why: %s", t.why);

	pid = fork();
	if (pid == 0)
		_exit(0);
	waitpid(pid, &status, 0);
	TAP_INT(pytarget_inspect(pid, &t), PYTARGET_GONE,
		"an exited process is gone");
	TAP_OK(strstr(t.why, "exited") != NULL, "why: %s", t.why);
	TAP_INT(pytarget_inspect(0, &t), PYTARGET_GONE, "pid 0 is refused");
	{
		char buf[8];

		TAP_OK(pytarget_read(getpid(), 8, buf, sizeof(buf)) == -1 &&
		       errno == EFAULT, "a read of unmapped memory fails");
	}
	return tap_done();
}
