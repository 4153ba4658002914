/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_RECORD_H
#define PPR_RECORD_H

/*
 * The record stage, one header per concern:
 *
 *   record/run.h      the pipeline: prepare, execute, finish
 *                     (run.c; cmd/record.c parses options and prints),
 *                     and the internal exec helper (exec.c)
 *   record/checks.h   the checks before recording, and what a failed
 *                     perf record means (internal to the stage)
 *   record/status.h   the internal exec helper's status file
 *   record/jitdump.h  jitdump repair and the private jitdump directory
 *   record/collect.h  the run's map/dump files, build-ids and vDSO
 *                     into the session
 *   record/pycache.h  the per-user cache of interpreter probes
 *   record/cuts.h     cut stacks: where a stack starts, the hints
 *
 * perf.data header work (recovery, the exec-fork fix, the pids of a
 * recording) is in perfdata.h, the shared perf.data reader.
 */
#include "record/collect.h"
#include "record/cuts.h"
#include "record/jitdump.h"
#include "record/pycache.h"
#include "record/status.h"

#endif
