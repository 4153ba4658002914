# SPDX-License-Identifier: GPL-2.0-only
# tests/fuzz/fuzz.mk: `make fuzz` (included by Makefile.in; not part of
# `make check` or CI).
#
# libFuzzer targets (clang -fsanitize=fuzzer,address,undefined) for the
# parsers of untrusted text, each run for FUZZ_TIME seconds:
#   perfversion   lib/perfversion.h  perf_version_parse()
#   pyinfo        lib/pyinfo.h       pyinfo_parse(), pyinfo_parse_cflags()
#   perfscript    lib/report/src_perfscript_parse.h  the streaming
#                                    perf-script parser
#   perfmap       lib/report/stage_name_perfmap.h  perfmap_parse(),
#                                    perfmap_lookup()
#   session       lib/session.h      session_meta_parse(), print round trip
#   perfdata      lib/perfdata.h     perfdata_open_mem(), perfdata_next(),
#                                    perfdata_decode_sample()
#   contexts      lib/report/stage_name_contexts.h  ctx_db_add(),
#                                    ctx_db_rebuild()
#   native        lib/report/src_native.h  native_load() on a perf.data
#                                    image: ordering, decoders, unwinder
#   tracedata     lib/tracedata.h    tracedata_new(), payload field reads
#   pycode        lib/walker/pycode.h    pycode_load_buf(), line tables
#   walker        lib/walker/walker.h  walker_decode(), walker_py_frame_at()
#                                    on runs of ring-buffer events
#
#   make fuzz                      all targets, FUZZ_TIME=45 s each
#   make fuzz FUZZ_TARGETS=perfmap FUZZ_TIME=300
#   make fuzz-merge                fold new coverage into the kept corpus
#
# The kept corpus (small, reviewed) is tests/fuzz/corpus/<target>/; new
# inputs go to $(FUZZ_BUILD)/corpus/<target>/.  A crash stops that target
# and leaves its input as tests/fuzz/corpus/<target>/crash-<sha1>, so the
# next `make fuzz` replays it first (a regression test until fixed).

FUZZ_CC ?= clang
FUZZ_TIME ?= 45
FUZZ_BUILD ?= build/fuzz
FUZZ_TARGETS ?= perfversion pyinfo perfscript perfmap session report-cache perfdata contexts native tracedata pycode walker
FUZZ_FLAGS = -g -O1 -fsanitize=fuzzer-no-link,address,undefined \
	-fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_LIB_OBJ = $(LIB_SRC:%.c=$(FUZZ_BUILD)/%.o)
FUZZ_LIB = $(FUZZ_BUILD)/libppr-fuzz.a
FUZZ_BINS = $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz-%)

.PHONY: fuzz fuzz-build fuzz-merge

FUZZ_ALL_CFLAGS = -std=c11 -Ilib $(FUZZ_FLAGS) -DPPR_VERSION='"$(VERSION)"' \
	-DPPR_LIBDIR='"$(libdir)/pyperf-run"' \
	-DPPR_DATADIR='"$(datadir)/pyperf-run"' $(FEATURE_FLAGS)

# What the fuzz objects and links are made from, rewritten only when it
# changes (see BUILD_FLAGS in Makefile.in): a configure that found other
# features rebuilds them.
$(FUZZ_BUILD)/BUILD-FLAGS: TRACKED = $(call shell_quote,CC=$(FUZZ_CC)) \
	$(call shell_quote,CFLAGS=$(FUZZ_ALL_CFLAGS)) \
	$(call shell_quote,LIBS=$(LIBS))
$(FUZZ_BUILD)/BUILD-FLAGS: FORCE
	$(write_if_changed)

$(FUZZ_BUILD)/lib/%.o: lib/%.c $(FUZZ_BUILD)/BUILD-FLAGS
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_ALL_CFLAGS) -c -o $@ $<

$(FUZZ_LIB): $(FUZZ_LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(FUZZ_BUILD)/fuzz-%: tests/fuzz/fuzz-%.c $(FUZZ_LIB) $(FUZZ_BUILD)/BUILD-FLAGS
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -std=c11 -Ilib $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $< \
		$(FUZZ_LIB) $(LIBS)

fuzz-build: $(FUZZ_BINS)

# Each target: replay the kept corpus (and any kept crash), then fuzz
# for FUZZ_TIME seconds.  All targets run even when one fails; the status
# says whether any did.
fuzz: fuzz-build
	@status=0; \
	for t in $(FUZZ_TARGETS); do \
		mkdir -p $(FUZZ_BUILD)/corpus/$$t tests/fuzz/corpus/$$t; \
		echo "fuzz: $$t for $(FUZZ_TIME) s"; \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		$(FUZZ_BUILD)/fuzz-$$t -max_total_time=$(FUZZ_TIME) \
			-timeout=10 -rss_limit_mb=2048 -max_len=65536 \
			-print_final_stats=1 \
			-artifact_prefix=tests/fuzz/corpus/$$t/ \
			$(FUZZ_BUILD)/corpus/$$t tests/fuzz/corpus/$$t \
			>$(FUZZ_BUILD)/fuzz-$$t.log 2>&1; \
		rc=$$?; \
		grep -E '^stat::number_of_executed_units|^stat::new_units_added' \
			$(FUZZ_BUILD)/fuzz-$$t.log | sed "s/^/fuzz: $$t: /"; \
		if test $$rc != 0; then \
			status=1; \
			echo "fuzz: $$t FAILED (exit $$rc); log in $(FUZZ_BUILD)/fuzz-$$t.log:"; \
			grep -E 'ERROR|SUMMARY|Test unit written|runtime error' \
				$(FUZZ_BUILD)/fuzz-$$t.log | head -n 8 | sed 's/^/  /'; \
		fi; \
	done; \
	exit $$status

# Fold the new inputs into the kept corpus (only those adding coverage).
fuzz-merge: fuzz-build
	@for t in $(FUZZ_TARGETS); do \
		mkdir -p $(FUZZ_BUILD)/corpus/$$t tests/fuzz/corpus/$$t; \
		$(FUZZ_BUILD)/fuzz-$$t -merge=1 tests/fuzz/corpus/$$t \
			$(FUZZ_BUILD)/corpus/$$t >/dev/null 2>&1 && \
		echo "fuzz-merge: $$t: $$(ls tests/fuzz/corpus/$$t | wc -l) inputs"; \
	done
