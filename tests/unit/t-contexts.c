/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit tests: lib/report/stage_name_contexts.c, the context tables of
 * the embedded trampoline and the rebuild of a sample's Python stack from them.
 * Tables are written here in the format trampoline/README.md describes.
 */
#include "compat.h"
#include "alloc.h"
#include "strbuf.h"
#include "report/stage_name_contexts.h"
#include "tap.h"

#define ARENA 0x7f0000010000ull

static void put32(struct strbuf *sb, uint32_t v)
{
	strbuf_add(sb, &v, 4);
}

static void put64(struct strbuf *sb, uint64_t v)
{
	strbuf_add(sb, &v, 8);
}

static void header(struct strbuf *sb, uint32_t pid)
{
	strbuf_add(sb, "PPRCTX01", 8);
	put32(sb, pid);
	put32(sb, 0);
}

static void rec_func(struct strbuf *sb, uint32_t id, const char *name)
{
	size_t n = strlen(name) + 1, len = (16 + n + 7) / 8 * 8, i;

	put32(sb, 1);
	put32(sb, (uint32_t)len);
	put32(sb, id);
	put32(sb, 0);
	strbuf_add(sb, name, n);
	for (i = 16 + n; i < len; i++)
		strbuf_add(sb, "", 1);
}

static void rec_ctx(struct strbuf *sb, uint32_t id, uint32_t parent,
		    uint32_t func)
{
	put32(sb, 2);
	put32(sb, 32);
	put64(sb, ARENA + 16 * (uint64_t)(id - 1));
	put32(sb, id);
	put32(sb, parent);
	put32(sb, func);
	put32(sb, 0);
}

static void rec_arena(struct strbuf *sb)
{
	put32(sb, 3);
	put32(sb, 32);
	put64(sb, ARENA);
	put64(sb, 65536);
	put32(sb, 16);
	put32(sb, 0);
}

static void rec_start(struct strbuf *sb, uint64_t ns)
{
	put32(sb, 4);
	put32(sb, 16);
	put64(sb, ns);
}

/*
 * pid 42: main (1) -> outer (2) -> inner (3); a thread root (4) with a
 * child (5); a context past the cap (6, parent unknown) with a child (7).
 */
static void table(struct strbuf *sb)
{
	header(sb, 42);
	rec_start(sb, 1000);
	rec_arena(sb);
	rec_func(sb, 1, "py::<module>:prog.py");
	rec_func(sb, 2, "py::outer:prog.py");
	rec_func(sb, 3, "py::inner:prog.py");
	rec_func(sb, 4, "py::Thread._bootstrap:threading.py");
	rec_ctx(sb, 1, 0, 1);
	rec_ctx(sb, 2, 1, 2);
	rec_ctx(sb, 3, 2, 3);
	rec_ctx(sb, 4, 0, 4);
	rec_ctx(sb, 5, 4, 2);
	rec_ctx(sb, 6, 0xffffffffu, 3);
	rec_ctx(sb, 7, 6, 2);
}

static struct sample_frame fr(uint64_t ip, const char *sym, const char *dso)
{
	struct sample_frame f;

	f.kind = SAMPLE_FRAME_ADDR;
	f.line = 0;
	f.ip = ip;
	f.sym.s = sym;
	f.sym.len = strlen(sym);
	f.dso.s = dso;
	f.dso.len = strlen(dso);
	return f;
}

/* The slot of context id, as a return address (offset 6). */
static uint64_t tr(uint32_t id)
{
	return ARENA + 16 * (uint64_t)(id - 1) + 6;
}

/* "sym;sym;..." of a sample, leaf first. */
static void names(const struct sample *s, struct strbuf *out)
{
	size_t i;

	strbuf_reset(out);
	for (i = 0; i < s->nr_frames; i++) {
		if (i)
			strbuf_addch(out, ';');
		strbuf_add(out, s->frames[i].sym.s, s->frames[i].sym.len);
	}
}

static void sample(struct sample *s, struct sample_frame *f, size_t n,
		   uint64_t time)
{
	memset(s, 0, sizeof(*s));
	s->pid = 42;
	s->tid = 42;
	s->time_ns = time;
	s->frames = f;
	s->nr_frames = n;
}

static void test_rebuild(void)
{
	struct strbuf sb = STRBUF_INIT, got = STRBUF_INIT;
	struct ctx_db *db = NULL;
	struct ctx_db_stats st;
	struct sample in, out;
	struct sample_frame f[8];

	table(&sb);
	TAP_INT(ctx_db_add(&db, (const unsigned char *)sb.buf, sb.len), 0,
		"a whole table parses");
	ctx_db_stats(db, &st);
	TAP_INT(st.contexts, 7, "seven contexts");
	TAP_INT(st.functions, 4, "four functions");

	/* leaf natives, the innermost trampoline, the rest cut */
	f[0] = fr(0x1000, "PyLong_Add", "libpython");
	f[1] = fr(0x2000, "_PyEval_EvalFrameDefault", "libpython");
	f[2] = fr(tr(3), "[unknown]", "//anon");
	sample(&in, f, 3, 5000);
	TAP_INT(ctx_db_rebuild(db, &in, &out), CTX_ROOT,
		"cut after the innermost trampoline: rebuilt to the root");
	names(&out, &got);
	TAP_STR(got.buf, "PyLong_Add;_PyEval_EvalFrameDefault;"
		"py::inner:prog.py;py::outer:prog.py;py::<module>:prog.py",
		"every caller named, the leaf's natives kept");
	TAP_STR(out.frames[2].dso.s, CTX_DSO, "in the contexts' object");

	/* natives between two trampolines kept, the outer ones learnt */
	f[0] = fr(0x1000, "leafc", "ext.so");
	f[1] = fr(tr(3), "[unknown]", "//anon");
	f[2] = fr(0x3000, "between", "libpython");
	f[3] = fr(tr(2), "[unknown]", "//anon");
	f[4] = fr(tr(1), "[unknown]", "//anon");
	f[5] = fr(0x4000, "Py_RunMain", "libpython");
	f[6] = fr(0x5000, "_start", "python");
	sample(&in, f, 7, 6000);
	TAP_INT(ctx_db_rebuild(db, &in, &out), CTX_ROOT, "a whole sample");
	names(&out, &got);
	TAP_STR(got.buf, "leafc;py::inner:prog.py;between;py::outer:prog.py;"
		"py::<module>:prog.py;Py_RunMain;_start",
		"natives between trampolines and outside the root kept");

	/* a cut sample of the same root gets the frames outside it */
	f[0] = fr(tr(2), "[unknown]", "//anon");
	sample(&in, f, 1, 7000);
	TAP_INT(ctx_db_rebuild(db, &in, &out), CTX_ROOT, "cut at outer");
	names(&out, &got);
	TAP_STR(got.buf, "py::outer:prog.py;py::<module>:prog.py;Py_RunMain;"
		"_start", "the root's outer frames from the earlier sample");
	/*
	 * They were kept without their kind and line: uninitialised, a
	 * frame could come out as a Python frame "Py_RunMain (python:N)"
	 * with a line of garbage (seen in t3031; ASan's malloc fill shows
	 * it every time)
	 */
	TAP_OK(out.frames[2].kind == SAMPLE_FRAME_ADDR &&
	       out.frames[2].line == 0 &&
	       out.frames[3].kind == SAMPLE_FRAME_ADDR &&
	       out.frames[3].line == 0,
	       "the outer frames kept are native frames, without a line");

	/* a stale word: a trampoline of no ancestor is passed by */
	f[0] = fr(tr(3), "[unknown]", "//anon");
	f[1] = fr(tr(5), "[unknown]", "//anon");
	f[2] = fr(tr(1), "[unknown]", "//anon");
	sample(&in, f, 3, 8000);
	TAP_INT(ctx_db_rebuild(db, &in, &out), CTX_ROOT, "with a stale word");
	names(&out, &got);
	TAP_STR(got.buf, "py::inner:prog.py;py::outer:prog.py;"
		"py::<module>:prog.py;Py_RunMain;_start",
		"the stale trampoline is not in the stack");

	/* past the cap: the sample's own frames above */
	f[0] = fr(tr(7), "[unknown]", "//anon");
	f[1] = fr(0x6000, "above", "libpython");
	f[2] = fr(tr(4), "[unknown]", "//anon");
	sample(&in, f, 3, 9000);
	TAP_INT(ctx_db_rebuild(db, &in, &out), CTX_UNKNOWN,
		"an unknown parent: not whole");
	names(&out, &got);
	TAP_STR(got.buf, "py::outer:prog.py;py::inner:prog.py;above;"
		"py::Thread._bootstrap:threading.py",
		"the sample's own frames above, trampolines named");

	/* no trampoline, another pid, the start */
	f[0] = fr(0x1000, "x", "y");
	sample(&in, f, 1, 500);
	TAP_INT(ctx_db_rebuild(db, &in, &out), CTX_NONE, "no trampoline");
	TAP_INT(ctx_db_before_start(db, 42, 500), 1, "before the start");
	TAP_INT(ctx_db_before_start(db, 42, 1500), 0, "after the start");
	TAP_INT(ctx_db_before_start(db, 43, 500), 0, "another pid: unknown");
	f[0] = fr(tr(3), "[unknown]", "//anon");
	sample(&in, f, 1, 5000);
	in.pid = 43;
	TAP_INT(ctx_db_rebuild(db, &in, &out), CTX_NONE,
		"another process's addresses mean nothing");
	ctx_db_free(db);
	strbuf_release(&sb);
	strbuf_release(&got);
}

/* Damaged tables: read up to the damage, never past the buffer. */
static void test_damage(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct ctx_db *db = NULL;
	struct ctx_db_stats st;
	size_t full, cut;

	table(&sb);
	full = sb.len;
	for (cut = 0; cut < full; cut++) {
		db = NULL;
		ctx_db_add(&db, (const unsigned char *)sb.buf, cut);
		ctx_db_stats(db, &st);
		if (st.contexts > 7)
			break;
		ctx_db_free(db);
	}
	TAP_INT(cut, full, "every truncation reads a prefix");

	/* a parent id that points forward is damage */
	strbuf_reset(&sb);
	header(&sb, 7);
	rec_arena(&sb);
	rec_func(&sb, 1, "py::f:x.py");
	rec_ctx(&sb, 1, 0, 1);
	rec_ctx(&sb, 2, 3, 1);
	db = NULL;
	TAP_INT(ctx_db_add(&db, (const unsigned char *)sb.buf, sb.len), -1,
		"a forward parent is damage");
	ctx_db_stats(db, &st);
	TAP_INT(st.contexts, 1, "the contexts before it are kept");
	ctx_db_free(db);

	/* an unterminated name, a function out of order, a bad size */
	strbuf_reset(&sb);
	header(&sb, 7);
	put32(&sb, 1);
	put32(&sb, 24);
	put32(&sb, 1);
	put32(&sb, 0);
	strbuf_add(&sb, "py::abcd", 8);
	db = NULL;
	TAP_INT(ctx_db_add(&db, (const unsigned char *)sb.buf, sb.len), -1,
		"a name without its NUL is damage");
	ctx_db_free(db);
	strbuf_reset(&sb);
	header(&sb, 7);
	rec_func(&sb, 2, "py::f:x.py");
	db = NULL;
	TAP_INT(ctx_db_add(&db, (const unsigned char *)sb.buf, sb.len), -1,
		"a function id out of order is damage");
	ctx_db_free(db);
	strbuf_reset(&sb);
	header(&sb, 7);
	put32(&sb, 2);
	put32(&sb, 12);
	db = NULL;
	TAP_INT(ctx_db_add(&db, (const unsigned char *)sb.buf, sb.len), -1,
		"a size that is not a multiple of 8 is damage");
	ctx_db_free(db);
	db = NULL;
	TAP_INT(ctx_db_add(&db, (const unsigned char *)"PPRCTX02xxxxxxxx", 16),
		-1, "another magic is refused");
	TAP_OK(db == NULL, "and adds nothing");
	strbuf_release(&sb);
}

int main(void)
{
	test_rebuild();
	test_damage();
	return tap_done();
}
