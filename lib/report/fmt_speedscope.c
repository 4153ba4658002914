/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * --format speedscope: speedscope's file format
 * (https://www.speedscope.app/file-format-schema.json): every frame of
 * the profile in shared.frames (Python frames: name = qualname, file =
 * source file; native and kernel frames: name = symbol, file = object
 * file), and one "sampled" profile per process/thread when the profile
 * is grouped (one for the whole session otherwise).  Samples are frame
 * indices root first, weighted by their stacks' weights in speedscope's
 * name of the profile's unit ("none" for a count of samples,
 * "nanoseconds").
 * The format has no field for warnings: they go into the names (see
 * fmt_speedscope_write()).
 */
#include "compat.h"
#include "report/fmt.h"
#include "json.h"
#include "alloc.h"
#include "strbuf.h"

/* Characters of the first warning in a profile's name. */
#define SS_WARN_MAX 40

static const char *frame_display(const struct frame *f)
{
	if (f->kind == FRAME_PYTHON && f->func)
		return f->func;
	return f->name ? f->name : "?";
}

static void write_profile(struct json *j, const struct profile *p,
			  const char *name, const size_t *idx, size_t nr)
{
	uint64_t sum = 0;
	size_t i, d;

	json_begin_object(j);
	json_key(j, "type");
	json_string(j, "sampled");
	json_key(j, "name");
	json_string(j, name);
	json_key(j, "unit");
	json_string(j, weight_unit_info(p->unit)->speedscope);
	json_key(j, "startValue");
	json_int(j, 0);
	for (i = 0; i < nr; i++)
		sum += p->stacks[idx[i]].weight;
	json_key(j, "endValue");
	json_uint(j, sum);
	json_key(j, "samples");
	json_begin_array(j);
	for (i = 0; i < nr; i++) {
		const struct stack *st = &p->stacks[idx[i]];

		json_begin_array(j);
		for (d = 0; d < st->depth; d++)
			json_uint(j, st->frames[d]);
		json_end_array(j);
	}
	json_end_array(j);
	json_key(j, "weights");
	json_begin_array(j);
	for (i = 0; i < nr; i++)
		json_uint(j, p->stacks[idx[i]].weight);
	json_end_array(j);
	json_end_object(j);
}

/* Stacks bucketed by task (the last bucket: no task), order kept. */
struct buckets {
	size_t *idx;		/* stack indices, bucket after bucket */
	size_t *start;		/* nr + 2 offsets into idx */
	size_t nr;		/* buckets: tasks + 1 */
};

static void buckets_fill(struct buckets *b, const struct profile *p,
			 int grouped)
{
	size_t i, t, *fill;

	b->nr = grouped ? p->nr_tasks + 1 : 1;
	b->idx = xmalloc((p->nr_stacks + 1) * sizeof(*b->idx));
	b->start = xcalloc(b->nr + 1, sizeof(*b->start));
	for (i = 0; i < p->nr_stacks; i++) {
		t = grouped && p->stacks[i].task < p->nr_tasks ?
			p->stacks[i].task : b->nr - 1;
		b->start[t + 1]++;
	}
	for (t = 0; t < b->nr; t++)
		b->start[t + 1] += b->start[t];
	fill = xmalloc((b->nr + 1) * sizeof(*fill));
	memcpy(fill, b->start, (b->nr + 1) * sizeof(*fill));
	for (i = 0; i < p->nr_stacks; i++) {
		t = grouped && p->stacks[i].task < p->nr_tasks ?
			p->stacks[i].task : b->nr - 1;
		b->idx[fill[t]++] = i;
	}
	free(fill);
}

int fmt_speedscope_write(const struct profile *p, const struct fmt_opts *o,
			 FILE *fp, char *err, size_t errlen)
{
	struct json j;
	struct buckets b;
	size_t i, t, k, nprof = 0, active = 0;
	uint64_t best = 0;
	const char *base = o && o->title ? o->title :
		p->command ? p->command : "pyperf-run profile";
	int grouped = p->group != PROFILE_MERGED && p->nr_tasks;
	char **warn, *title;
	size_t nw = fmt_warnings(p, &warn);
	struct strbuf sb = STRBUF_INIT, name = STRBUF_INIT;

	/*
	 * The file format has no place for warnings.  The file's name (the
	 * tab title) gets all of them; each profile's name, which the
	 * toolbar shows on one line, how many and the start of the first.
	 */
	for (i = 0; i < nw; i++)
		strbuf_addf(&sb, "[warning: %s] ", warn[i]);
	if (nw) {
		size_t len = strlen(warn[0]);

		if (nw == 1)
			strbuf_addstr(&name, "[warning: ");
		else
			strbuf_addf(&name, "[%zu warnings: ", nw);
		if (len > SS_WARN_MAX) {
			/* do not cut a UTF-8 sequence */
			len = SS_WARN_MAX;
			while (len && ((unsigned char)warn[0][len] & 0xc0) ==
			       0x80)
				len--;
			strbuf_add(&name, warn[0], len);
			strbuf_addstr(&name, "\xe2\x80\xa6");
		} else {
			strbuf_addstr(&name, warn[0]);
		}
		strbuf_addstr(&name, "] ");
	}
	fmt_warnings_free(warn, nw);
	strbuf_addstr(&sb, base);
	title = strbuf_detach(&sb, NULL);

	buckets_fill(&b, p, grouped);
	/* open the profile with the most samples first */
	for (t = 0; t < b.nr; t++) {
		uint64_t sum = 0;

		if (b.start[t] == b.start[t + 1] && (grouped || t))
			continue;
		for (k = b.start[t]; k < b.start[t + 1]; k++)
			sum += p->stacks[b.idx[k]].weight;
		if (sum > best) {
			best = sum;
			active = nprof;
		}
		nprof++;
	}

	json_init(&j, fp, 0);
	json_begin_object(&j);
	json_key(&j, "$schema");
	json_string(&j, "https://www.speedscope.app/file-format-schema.json");
	json_key(&j, "name");
	json_string(&j, title);
	json_key(&j, "exporter");
	json_string(&j, "pyperf-run " PPR_VERSION);
	json_key(&j, "activeProfileIndex");
	json_uint(&j, active);
	json_key(&j, "shared");
	json_begin_object(&j);
	json_key(&j, "frames");
	json_begin_array(&j);
	for (i = 0; i < p->nr_frames; i++) {
		const struct frame *f = &p->frames[i];
		const char *file = f->kind == FRAME_PYTHON ? f->file : f->dso;

		json_begin_object(&j);
		json_key(&j, "name");
		json_string(&j, frame_display(f));
		if (file) {
			json_key(&j, "file");
			json_string(&j, file);
		}
		if (f->line) {
			json_key(&j, "line");
			json_uint(&j, f->line);
		}
		json_end_object(&j);
	}
	json_end_array(&j);
	json_end_object(&j);
	json_key(&j, "profiles");
	json_begin_array(&j);
	for (t = 0; t < b.nr; t++) {
		const struct task *tk = grouped && t < p->nr_tasks ?
			&p->tasks[t] : NULL;
		size_t plen = name.len;

		if (b.start[t] == b.start[t + 1] && (grouped || t))
			continue;
		if (!grouped)
			strbuf_addstr(&name, base);
		else if (!tk)
			strbuf_addstr(&name, "(no task)");
		else if (p->group == PROFILE_BY_THREAD)
			strbuf_addf(&name, "%s (pid %ld, tid %ld)",
				    tk->comm ? tk->comm : "?",
				    (long)tk->pid, (long)tk->tid);
		else
			strbuf_addf(&name, "%s (pid %ld)",
				    tk->comm ? tk->comm : "?", (long)tk->pid);
		write_profile(&j, p, name.buf, b.idx + b.start[t],
			      b.start[t + 1] - b.start[t]);
		strbuf_setlen(&name, plen);
	}
	json_end_array(&j);
	json_end_object(&j);
	free(b.idx);
	free(b.start);
	free(title);
	strbuf_release(&name);
	if (json_finish(&j) < 0 || ferror(fp)) {
		set_err(err, errlen, "cannot write the speedscope report: %s",
			strerror(errno));
		return -1;
	}
	return 0;
}
