/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Python frames from the walker merged into the native stack
 * (src_native_walkmerge.h).
 */
#include "compat.h"
#include "byteorder.h"
#include "report/src_native_walkmerge.h"
#include "walker/pycode.h"

#include <linux/types.h>
#include "walker/walker_abi.h"

static const char unnamed_code[] = "[unnamed Python code]";

int walkmerge_is_eval(const char *sym, size_t len)
{
	static const char eval[] = "_PyEval_EvalFrameDefault";
	size_t el = sizeof(eval) - 1;

	/* also its cold part, "_PyEval_EvalFrameDefault.cold" */
	return len >= el && !memcmp(sym, eval, el) &&
	       (len == el || sym[el] == '.');
}

/* Python frame i of the raw field (bounds checked by the caller). */
static void py_at(const unsigned char *p, uint32_t i,
		  struct walker_py_frame *f)
{
	const unsigned char *q = p + (size_t)i * sizeof(*f);

	f->code = get_le64(q);
	f->instr = get_le32(q + 8);
	f->flags = (uint16_t)(q[12] | q[13] << 8);
	f->tag = (uint16_t)(q[14] | q[15] << 8);
}

static void put_python(struct pycode_cache *c, pid_t pid,
		       const struct walker_py_frame *f,
		       struct sample_frame *o, struct walkmerge_stats *st)
{
	const struct pycode *code = c ? pycode_find(c, pid, f->code,
						    f->tag) : NULL;

	memset(o, 0, sizeof(*o));
	o->kind = SAMPLE_FRAME_PYTHON;
	st->py_frames++;
	if (!code || !code->named) {
		st->unnamed++;
		o->sym.s = unnamed_code;
		o->sym.len = sizeof(unnamed_code) - 1;
		o->dso.s = "";
		return;
	}
	o->sym.s = code->qualname;
	o->sym.len = strlen(code->qualname);
	o->dso.s = code->filename ? code->filename : "";
	o->dso.len = strlen(o->dso.s);
	o->line = pycode_line(c, code, f->instr);
}

void walkmerge(struct pycode_cache *c, pid_t pid, const unsigned char *raw,
	       uint32_t raw_size, const struct sample_frame *in, size_t n,
	       struct sample_frame *out, size_t max,
	       struct walkmerge_result *r, struct walkmerge_stats *st)
{
	const unsigned char *py;
	uint32_t nr_py, j = 0;
	size_t i, k = 0;
	struct walker_py_frame f;

	memset(r, 0, sizeof(*r));
	if (!raw || raw_size < sizeof(struct walker_raw) ||
	    get_le32(raw) != WALKER_RAW_MAGIC) {
		n = n < max ? n : max;
		memcpy(out, in, n * sizeof(*out));
		r->n = n;
		return;
	}
	r->walker = 1;
	st->samples++;
	r->flags = get_le32(raw + 8);
	nr_py = get_le32(raw + 12);
	r->prev_state = get_le64(raw + 16);
	py = raw + sizeof(struct walker_raw);
	/* a count the raw field cannot hold is read as none */
	if (nr_py > (raw_size - sizeof(struct walker_raw)) / sizeof(f))
		nr_py = 0;
	if (!nr_py)
		st->no_python++;
	if (r->flags & (WALKER_F_PY_CUT | WALKER_F_PY_READ))
		st->py_cut++;
	else if (nr_py)
		r->py_whole = 1;
	for (i = 0; i < n && k < max; i++) {
		const struct sample_frame *fr = &in[i];

		if (j < nr_py && fr->kind == SAMPLE_FRAME_ADDR &&
		    walkmerge_is_eval(fr->sym.s, fr->sym.len)) {
			/* this call of the eval loop ran one ENTRY group */
			do {
				py_at(py, j++, &f);
				put_python(c, pid, &f, &out[k++], st);
			} while (j < nr_py && k < max &&
				 !(f.flags & WALKER_PYF_ENTRY));
			continue;
		}
		out[k++] = *fr;
	}
	if (j < nr_py && k < max) {
		/* deeper than the native unwinding went (counted by the
		   caller, who knows whether the stack copy was full) */
		r->native_short = 1;
		while (j < nr_py && k < max) {
			py_at(py, j++, &f);
			put_python(c, pid, &f, &out[k++], st);
		}
	}
	r->n = k;
}

uint64_t walkmerge_tail(const unsigned char *raw, uint32_t raw_size,
			struct walkmerge_unwound *u)
{
	uint64_t at;

	if (u)
		memset(u, 0, sizeof(*u));
	if (!raw || raw_size < sizeof(struct walker_raw) ||
	    get_le32(raw) != WALKER_RAW_MAGIC)
		return 0;
	at = sizeof(struct walker_raw) + (uint64_t)get_le32(raw + 12) *
	     sizeof(struct walker_py_frame);
	if (at > raw_size)
		return 0;
	if (!(get_le32(raw + 8) & WALKER_F_UNWOUND))
		return at;
	if (at + sizeof(struct walker_raw_unwound) > raw_size ||
	    get_le32(raw + at) != WALKER_RAW_UNWOUND_MAGIC)
		return 0;
	if (u) {
		u->stop = get_le32(raw + at + 4);
		u->sp = get_le64(raw + at + 8);
		u->asked = get_le32(raw + at + 16);
		u->copied = get_le32(raw + at + 20);
		u->full = get_le32(raw + at + 24) != 0;
	}
	return at + sizeof(struct walker_raw_unwound);
}
