/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The collapsed ("folded") format, one line per unique stack:
 *
 *     [GROUP;]ROOT;CALLER;...;LEAF COUNT
 *
 * frames root first, separated by ';', each the frame's display name
 * (Python "qualname (filename)", native "symbol" or "[dso]", kernel
 * "symbol_[k]"), then one space and the number of samples.  With a
 * grouped profile and o->collapsed_pid, GROUP is "comm-PID" (per
 * process) or "comm-PID/TID" (per thread), as FlameGraph's
 * stackcollapse-perf.pl --pid/--tid.  Lines come in order of first
 * appearance.  In the wall and off-cpu clocks COUNT is microseconds
 * (the nanoseconds rounded; a stack of less than half a microsecond
 * has no line), which flamegraph.pl's --countname=us reads.  man/pyperf-run-report.1 documents this exactly.
 */
#include "compat.h"
#include "report/fmt.h"

static void write_group(FILE *fp, const struct profile *p,
			const struct task *t)
{
	const char *c;

	for (c = t->comm ? t->comm : "?"; *c; c++)
		fputc(*c == ';' || *c == ' ' || *c == '\n' ? '_' : *c, fp);
	if (p->group == PROFILE_BY_THREAD)
		fprintf(fp, "-%ld/%ld", (long)t->pid, (long)t->tid);
	else
		fprintf(fp, "-%ld", (long)t->pid);
}

int fmt_collapsed_write(const struct profile *p, const struct fmt_opts *o,
			FILE *fp, char *err, size_t errlen)
{
	size_t i, j;
	int us = p->clock != PROFILE_CLOCK_CPU && p->unit == UNIT_NS;

	for (i = 0; i < p->nr_stacks; i++) {
		const struct stack *s = &p->stacks[i];
		int sep = 0;

		if (!s->weight || (us && s->weight < 500))
			continue;
		if (o->collapsed_pid && s->task != PROFILE_NO_TASK &&
		    s->task < p->nr_tasks) {
			write_group(fp, p, &p->tasks[s->task]);
			sep = 1;
		}
		for (j = 0; j < s->depth; j++) {
			if (sep)
				putc(';', fp);
			fmt_collapsed_name(fp, &p->frames[s->frames[j]]);
			sep = 1;
		}
		fprintf(fp, " %llu\n", (unsigned long long)(us ?
			(s->weight + 500) / 1000 : s->weight));
	}
	if (ferror(fp))
		return set_err(err, errlen, "write error: %s",
			       strerror(errno));
	return 0;
}
