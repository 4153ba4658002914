/* SPDX-License-Identifier: GPL-2.0-only */
/* The walker's own BPF programs in kernel stacks (kself.h). */
#include "compat.h"
#include "walker/kself.h"
#include "alloc.h"
#include "byteorder.h"
#include "kallsyms.h"

#include <ctype.h>

#define TOP_FRAMES 16

/*
 * A JIT-compiled BPF program's name in kallsyms: "bpf_prog_", its
 * 16-digit tag, "_" and its function's name (NULL: not one).
 */
static const char *bpf_prog_name(const char *name)
{
	size_t i;

	if (strncmp(name, "bpf_prog_", 9))
		return NULL;
	for (i = 9; i < 25; i++)
		if (!isxdigit((unsigned char)name[i]))
			return NULL;
	return name[25] == '_' ? name + 26 : NULL;
}

/*
 * 1: a dispatcher, 2: tracepoint plumbing, 3: one of the walker's
 * programs (walker.bpf.c: its walker_* programs and their bpf_loop()
 * callbacks, py_step, ts_step, probe_step and wake_step, and walk_user,
 * the function they share), 4: another BPF program, 0: none of these.
 */
static int kind_of(const char *name)
{
	const char *prog = bpf_prog_name(name);
	size_t len;

	if (!strncmp(name, "bpf_trace_run", 13) && name[13] >= '1' &&
	    name[13] <= '9')
		return 1;
	if (!strncmp(name, "__bpf_trace_", 12) ||
	    !strncmp(name, "__traceiter_", 12))
		return 2;
	if (!prog)
		return 0;
	len = strcspn(prog, " \t\n");
	if ((len == 7 && (!strncmp(prog, "py_step", 7) ||
			  !strncmp(prog, "ts_step", 7))) ||
	    (len == 10 && !strncmp(prog, "probe_step", 10)) ||
	    (len == 9 && !strncmp(prog, "wake_step", 9)) ||
	    (len == 9 && !strncmp(prog, "walk_user", 9)) ||
	    !strncmp(prog, "walker_", 7))
		return 3;
	return 4;
}

/* The most a JIT-compiled program is taken to span (kallsyms has no
   sizes, and lists them out of address order) */
#define PROG_MAX (64u << 10)

static int by_start(const void *a, const void *b)
{
	const struct kself_range *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

void kself_release(struct kself *k)
{
	free(k->r);
	memset(k, 0, sizeof(*k));
}

void kself_begin(struct kself *k)
{
	kself_release(k);
	k->loaded = 1;
}

/* The interrupt entries and softirq loops, for kself_irq(). */
static void irq_line(struct kself *k, uint64_t addr, const char *name)
{
	static const char *const soft[2] = { "handle_softirqs",
					     "__do_softirq" };
	size_t len = strcspn(name, " \t\n");
	int i;

	/* the next symbol ends a softirq loop's range */
	if (k->open_soft && addr > k->soft_lo[k->open_soft - 1]) {
		k->soft_hi[k->open_soft - 1] = addr;
		k->open_soft = 0;
	}
	if (len == 21 && !strncmp(name, "__irqentry_text_start", len))
		k->hard_lo = addr;
	else if (len == 19 && !strncmp(name, "__irqentry_text_end", len))
		k->hard_hi = addr;
	for (i = 0; i < 2; i++)
		if (len == strlen(soft[i]) && !strncmp(name, soft[i], len) &&
		    !k->soft_lo[i]) {
			k->soft_lo[i] = addr;
			k->open_soft = i + 1;
		}
}

void kself_line(struct kself *k, const char *line)
{
	struct kallsyms_line l;
	const char *name;
	uint64_t addr;
	int kind;

	if (kallsyms_parse(line, NULL, &l, NULL) || !l.addr)
		return;
	addr = l.addr;
	name = l.name;
	irq_line(k, addr, name);
	/* the next symbol ends the range before it */
	if (k->open_range) {
		k->r[k->n - 1].end = addr;
		k->open_range = 0;
	}
	kind = kind_of(name);
	if (!kind)
		return;
	ALLOC_GROW(k->r, k->n + 1, k->alloc);
	k->r[k->n].start = addr;
	/* a program's end: the next program's start (kself_end()) */
	k->r[k->n].end = kind >= 3 ? addr + PROG_MAX : addr;
	k->r[k->n].dispatcher = kind == 1;
	k->r[k->n++].own = kind == 3;
	k->open_range = kind < 3;
}

void kself_add_own(struct kself *k, uint64_t start, uint64_t end)
{
	ALLOC_GROW(k->r, k->n + 1, k->alloc);
	k->r[k->n].start = start;
	k->r[k->n].end = end;
	k->r[k->n].dispatcher = 0;
	k->r[k->n++].own = 1;
}

int kself_end(struct kself *k)
{
	int dispatchers = 0;
	size_t i;

	k->open_range = 0;
	k->open_soft = 0;
	/*
	 * None at all when /proc/kallsyms shows the caller only zeros
	 * (kptr_restrict: a user without CAP_SYSLOG, a setcap copy run by
	 * one): k->r is then NULL, which qsort may not be given.
	 */
	if (k->n)
		qsort(k->r, k->n, sizeof(*k->r), by_start);
	for (i = 0; i + 1 < k->n; i++)
		if (k->r[i].end > k->r[i + 1].start)
			k->r[i].end = k->r[i + 1].start;
	for (i = 0; i < k->n; i++)
		dispatchers += k->r[i].dispatcher && k->r[i].end > k->r[i].start;
	return dispatchers ? 0 : -1;
}

void kself_copy(struct kself *dst, const struct kself *src)
{
	kself_release(dst);
	*dst = *src;
	dst->r = NULL;
	dst->alloc = 0;
	if (src->n) {
		dst->r = xmalloc(src->n * sizeof(*dst->r));
		memcpy(dst->r, src->r, src->n * sizeof(*dst->r));
		dst->alloc = src->n;
	}
}

int kself_load(struct kself *k, const char *kallsyms)
{
	FILE *f;
	char line[512];

	kself_begin(k);
	f = fopen(kallsyms, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		kself_line(k, line);
	fclose(f);
	return kself_end(k);
}

/* The range holding addr, or NULL. */
static const struct kself_range *find(const struct kself *k, uint64_t addr)
{
	size_t lo = 0, hi = k->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->r[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr >= k->r[lo - 1].end)
		return NULL;
	return &k->r[lo - 1];
}

unsigned kself_own(const struct kself *k, const unsigned char *stack,
		   unsigned n, unsigned *above)
{
	const struct kself_range *r;
	unsigned i, j;

	*above = 0;
	/* the walker's program and nothing under it: a cut stack */
	for (i = 0; i < n; i++) {
		r = find(k, get_le64(stack + 8 * (size_t)i));
		if (!r || !r->own)
			break;
	}
	if (n && i == n) {
		*above = KSELF_CUT;
		return n;
	}
	for (i = 0; i < n && i < TOP_FRAMES; i++) {
		r = find(k, get_le64(stack + 8 * (size_t)i));
		if (!r || !r->dispatcher)
			continue;
		for (j = i + 1; j < n; j++) {
			r = find(k, get_le64(stack + 8 * (size_t)j));
			if (!r || r->dispatcher)
				break;
		}
		*above = i;
		return j;
	}
	return 0;
}

uint64_t kself_dispatcher(const struct kself *k)
{
	size_t i;

	for (i = 0; i < k->n; i++)
		if (k->r[i].dispatcher && k->r[i].end > k->r[i].start)
			return k->r[i].start;
	return 0;
}

int kself_irq(const struct kself *k, uint64_t *hard_lo, uint64_t *hard_hi,
	      uint64_t soft_lo[2], uint64_t soft_hi[2])
{
	int i;

	*hard_lo = k->hard_lo;
	*hard_hi = k->hard_hi;
	for (i = 0; i < 2; i++) {
		soft_lo[i] = k->soft_lo[i];
		soft_hi[i] = k->soft_hi[i];
	}
	if (!*hard_lo || *hard_hi <= *hard_lo ||
	    (soft_hi[0] <= soft_lo[0] && soft_hi[1] <= soft_lo[1]))
		return -1;
	return 0;
}

int kself_irq_ranges(const char *kallsyms, uint64_t *hard_lo,
		     uint64_t *hard_hi, uint64_t soft_lo[2],
		     uint64_t soft_hi[2])
{
	struct kself k;
	int ret;

	memset(&k, 0, sizeof(k));
	kself_load(&k, kallsyms);	/* no dispatcher: no matter here */
	ret = kself_irq(&k, hard_lo, hard_hi, soft_lo, soft_hi);
	kself_release(&k);
	return ret;
}
