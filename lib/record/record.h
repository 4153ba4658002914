/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_RECORD_H
#define PPR_RECORD_H

/*
 * The record stage, one file per job.  The decision it follows is
 * lib/route.h's (bpf mode or perf record's, --wall's route); perf's
 * command lines are lib/perfcmd.h's.
 *
 *   record/run.h       the pipeline: prepare (the facts, the decision,
 *                      the session), execute, finish (run.c;
 *                      cmd/record.c parses options and prints), and
 *                      the internal exec helper (exec.c)
 *   record/run_priv.h  internal: the backend chosen once with the mode
 *                      (perfrun.c: perf record; bpfrun.c: the frame
 *                      walker), and the jobs run.c hands out:
 *                      supervise.c (perf run, signals passed on, the
 *                      exec helper waited for), inject.c (jitdump
 *                      repair, perf inject), meta.c (the meta file),
 *                      judge.c (the session read back and judged)
 *   record/checks.h    internal: the checks before recording, perf's
 *                      stderr filter and what a failed perf record
 *                      means
 *   record/status.h    the internal exec helper's status file
 *   record/jitdump.h   jitdump repair and the private jitdump directory
 *   record/collect.h   the run's map/dump files, build-ids and vDSO
 *                      into the session
 *   record/pycache.h   the per-user cache of interpreter probes
 *   record/cuts.h      cut stacks: the hints after a recording
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
