/* SPDX-License-Identifier: GPL-2.0-only */
/* The names of the sample's weight units (report/sample.h). */
#include "compat.h"
#include "report/sample.h"

const char *const sample_unit_names[SAMPLE_UNIT_NR] = {
	[SAMPLE_UNIT_SAMPLES] = "samples",
	[SAMPLE_UNIT_NS] = "nanoseconds",
	[SAMPLE_UNIT_EVENTS] = "events",
};
