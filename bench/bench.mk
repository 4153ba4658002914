# SPDX-License-Identifier: GPL-2.0-only
# bench/bench.mk: `make bench` (included by Makefile.in).  Prints twelve
# tables (overhead, end to end and record's fixed cost, report speed,
# data, accuracy, complete stacks by depth, perf.data readers, top's
# CPU, the frame walker, record --wall, record --wall --wakers' cost)
# and writes them to
# bench/results/<date>.md and bench/results/latest.md.  About ten minutes on 2 cores.
#
#   make bench                    everything
#   make bench BENCH_PARTS=ace    only some tables
#   make bench BENCH_QUICK=1      fewer runs, shorter recordings
#   make bench BENCH_REPS=7       runs per overhead cell (default 5)
#   make bench BENCH_PARTS=l      a long attach (10 minutes; not in
#                                 the default parts; BENCH_LONG_MINUTES)
#   make bench BENCH_PARTS=v BENCH_BEFORE=REV
#                                 this build against revision REV's
#                                 (built in a git worktree), side by side
# Environment: BENCH_PYTHONS='path ...' (instead of discovery),
# PYPERF_CACHE (where the frame-pointer build is), BENCH_KEEP=1.

BENCH_PYTHON ?= $(if $(PYTHON),$(PYTHON),python3)
BENCH_PARTS ?= abcdefghiwks
BENCH_REPS ?= 5

.PHONY: bench
bench: all
	$(BENCH_PYTHON) $(srcdir)/bench/run.py --build '$(BUILD)' \
		--out '$(srcdir)/bench/results' --parts '$(BENCH_PARTS)' \
		--reps '$(BENCH_REPS)' $(if $(BENCH_QUICK),--quick) \
		$(if $(BENCH_BEFORE),--before '$(BENCH_BEFORE)')
