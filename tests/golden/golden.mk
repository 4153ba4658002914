# SPDX-License-Identifier: GPL-2.0-only
# tests/golden/golden.mk: `make golden-check` (included by Makefile.in).
# Report's every format, view, filter and diff, byte for byte, from this
# build against another one on the same recorded sessions
# (tests/golden/golden.sh says what it renders and why the sessions are
# not in the tree).  About 3 minutes on 2 cores.
#
#   make golden-check GOLDEN_OLD=/path/to/old/build/plain/pyperf-run
#       records the corpus with GOLDEN_OLD into $(GOLDEN_DIR)/corpus if
#       it is not there yet, renders it with both builds into
#       $(GOLDEN_DIR)/out/{old,new}, and fails on any byte that differs
#   make golden-record GOLDEN_OLD=...    only (re)record the corpus
#
# GOLDEN_OLD is a build of the tree before the change, in its own
# worktree: git worktree add ../old <commit> && (cd ../old &&
# ./configure && make) (record needs its trampoline next to it).

GOLDEN_DIR ?= build/golden

.PHONY: golden-check golden-record
golden-record: all
	@test -n '$(GOLDEN_OLD)' || { echo 'give GOLDEN_OLD=<old pyperf-run>'; exit 2; }
	$(srcdir)/tests/golden/golden.sh record '$(GOLDEN_DIR)/corpus' '$(GOLDEN_OLD)'

golden-check: all
	@test -n '$(GOLDEN_OLD)' || { echo 'give GOLDEN_OLD=<old pyperf-run>'; exit 2; }
	@test -d '$(GOLDEN_DIR)/corpus/bpf-busy' || \
		$(srcdir)/tests/golden/golden.sh record '$(GOLDEN_DIR)/corpus' '$(GOLDEN_OLD)'
	$(srcdir)/tests/golden/golden.sh compare '$(GOLDEN_DIR)/corpus' \
		'$(GOLDEN_OLD)' '$(PROG)' '$(GOLDEN_DIR)/out'
