/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * doctor's list of judged checks (see doctor.h): the one place both
 * doctor.c and doctor_reader.c add to, so that neither calls into the
 * other's file (doctor.c calls the reader's gatherer and judge, never
 * the other way round).
 */
#include "compat.h"
#include "doctor/doctor.h"
#include "alloc.h"

#include <stdlib.h>

const char *doctor_level_name(enum doctor_level l)
{
	switch (l) {
	case DOCTOR_OK:
		return "ok";
	case DOCTOR_WARNING:
		return "warning";
	default:
		return "problem";
	}
}

void doctor_add_check(struct doctor *d, const char *section, const char *id,
		      enum doctor_level level, char *text, char *fix)
{
	struct doctor_check *c;

	ALLOC_GROW(d->checks, d->nr_checks + 1, d->alloc_checks);
	c = &d->checks[d->nr_checks++];
	c->section = section;
	c->id = id;
	c->level = level;
	c->text = text;
	c->fix = fix;
	if (level == DOCTOR_PROBLEM)
		d->nr_problems++;
	else if (level == DOCTOR_WARNING)
		d->nr_warnings++;
}

void doctor_checks_release(struct doctor *d)
{
	size_t i;

	for (i = 0; i < d->nr_checks; i++) {
		free(d->checks[i].text);
		free(d->checks[i].fix);
	}
	free(d->checks);
	d->checks = NULL;
	d->nr_checks = d->alloc_checks = 0;
	d->nr_problems = d->nr_warnings = 0;
}

int doctor_ok(const struct doctor *d)
{
	return d->nr_problems == 0;
}
