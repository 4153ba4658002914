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
 *   t-pytarget objects X.Y   the object table (pyobj.h), in the format
 *                            of the probe's `objects`
 *   t-pytarget names PID     reads tests/fixtures/walker-names.py's
 *                            lines on stdin: each code object's name
 *                            (pycode.h, and pyqual.h on 3.8-3.10) and
 *                            each thread's (pythreads.h) as read from
 *                            PID, "ok" or "not ok" a line
 */
#include "compat.h"
#include "walker/pytarget.h"
#include "walker/pycode.h"
#include "walker/pyqual.h"
#include "walker/pythreads.h"
#include "tap.h"

#include <time.h>

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

/* The lines the probe's `objects` prints for a version (see there). */
static void print_objects(const struct pytarget_obj *o, unsigned minor)
{
#define P(f) printf("%s %lu\n", #f, (unsigned long)o->f)
	P(ob_type); P(var_size); P(tp_name); P(tp_basicsize); P(tp_flags);
	P(tp_dict); P(tp_dictoffset); P(ht_cached_keys); P(func_code);
	P(func_qualname); P(co_consts); P(co_flags); P(co_newlocals);
	P(tuple_item); P(dict_used); P(dict_keys); P(dict_values);
	if (minor >= 11) {
		P(dk_log2_size); P(dk_log2_index_bytes); P(dk_kind);
		P(dk_nentries); P(dk_indices); P(dk_entry_size);
		P(dk_unicode_entry_size); P(dk_general); P(values_values);
	}
	if (minor >= 10)
		P(md_dict);
	P(interp_modules); P(sm_callable); P(long_digit); P(long_lv_tag);
	P(long_shift); P(managed_dict_flag); P(inline_values_flag);
	if (o->values_valid != NO)
		P(values_valid);
	if (o->managed_dict_before != NO)
		P(managed_dict_before);
	if (o->managed_values_before != NO)
		P(managed_values_before);
#undef P
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* t-pytarget names PID: see the top of this file. */
static int names(pid_t pid)
{
	struct pycode_cache *c = pycode_cache_new();
	struct pyqual *q = pyqual_new();
	struct pytarget t;
	char line[512];
	int bad = 0;

	if (pytarget_inspect(pid, &t) != PYTARGET_OK) {
		printf("not ok - inspect: %s\n", t.why);
		return 1;
	}
	printf("ok - %zu threads named\n", pythreads_read(c, &t));
	while (fgets(line, sizeof(line), stdin)) {
		unsigned long long addr;
		uint16_t tag;
		char want[256];
		const struct pycode *code;
		const char *got;
		int tid, pos = 0;

		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "code %llx %n", &addr, &pos) == 1 && pos) {
			snprintf(want, sizeof(want), "%s", line + pos);
			code = NULL;
			if (!pycode_tag(&t, addr, &tag))
				code = pycode_get(c, &t, addr, tag);
			got = code ? code->qualname : "(unread)";
			if (code && !code->qualified) {
				got = pyqual_lookup(q, &t, addr, code->filename,
						    now_ns());
				if (!got)
					got = "(unqualified)";
			}
			bad |= strcmp(got, want) != 0;
			printf("%s - code %s: %s\n", strcmp(got, want) ?
			       "not ok" : "ok", want, got);
		} else if (sscanf(line, "thread %d %n", &tid, &pos) == 1 &&
			   pos) {
			got = pycode_thread_name(c, pid, tid);
			if (!got)
				got = "(none)";
			bad |= strcmp(got, line + pos) != 0;
			printf("%s - thread %d %s: %s\n", strcmp(got, line + pos) ?
			       "not ok" : "ok", tid, line + pos, got);
		}
	}
	printf("# module walks: %llu\n", (unsigned long long)pyqual_walks(q));
	pyqual_free(q);
	pycode_cache_free(c);
	return bad;
}

static int tool(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "objects")) {
		unsigned a, b;
		const struct pytarget_obj *o;

		if (sscanf(argv[2], "%u.%u", &a, &b) != 2)
			return 2;
		o = pytarget_table_obj(a, b);
		if (!o) {
			printf("no table\n");
			return 1;
		}
		print_objects(o, b);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "names"))
		return names((pid_t)atoi(argv[2]));
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
	fprintf(stderr, "usage: t-pytarget [layout X.Y | inspect PID | "
		"objects X.Y | names PID]\n");
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
