# SPDX-License-Identifier: MIT
# The embedded trampoline in the build tree and at install time; included
# by Makefile.in; lib/embedded.[ch] finds what it builds.
#
# $(BUILD)/trampoline is laid out like the installed $(libdir)/pyperf-run:
#   src/          a copy of trampoline/ (build.sh and what it compiles), so
#                 that first-use builds work without the source tree
#   SOURCE_ID     checksum of those sources (part of every build's key)
#   <key>/        one prebuilt library per interpreter found here
#                 (`pyperf-run trampoline build --into`, which names it)
#   .build-tree   tells a pyperf-run running from $(BUILD) to use this
#                 directory instead of the installed one
#   stamp.*       which <key>/ each interpreter got (installed with it)
#
# Interpreters prebuilt at `make` time: the newest pyenv 3.8 to 3.13 that
# are installed, $(PYTHON) (configure --with-python, python3) and the
# system's /usr/bin/python3 (a supported version or not: build says).  A
# failed prebuild only warns: the library is built on first use then.

TRAMP_DIR = $(BUILD)/trampoline
TRAMP_SOURCES := $(sort $(filter-out trampoline/build.mk, \
	$(shell find trampoline -type f ! -name '*.o' ! -name '*.so' \
		! -name '*.pyc' ! -name '.*' 2>/dev/null)))
TRAMP_COPIES = $(TRAMP_SOURCES:trampoline/%=$(TRAMP_DIR)/src/%)

TRAMP_PYENV_ROOT := $(shell pyenv root 2>/dev/null || \
	echo "$${PYENV_ROOT:-$$HOME/.pyenv}")
TRAMP_PYTHONS := $(strip \
	$(foreach v,8 9 10 11 12 13,$(lastword $(sort $(wildcard \
		$(TRAMP_PYENV_ROOT)/versions/3.$(v).*/bin/python3.$(v))))) \
	$(shell command -v '$(PYTHON)' 2>/dev/null) \
	$(wildcard /usr/bin/python3))
# One stamp per interpreter, named after its path.
tramp_stamp = $(TRAMP_DIR)/stamp.$(subst /,_,$(1))
TRAMP_STAMPS = $(foreach p,$(TRAMP_PYTHONS),$(call tramp_stamp,$(p)))

all: $(TRAMP_DIR)/.build-tree $(TRAMP_COPIES) $(TRAMP_DIR)/SOURCE_ID \
	$(TRAMP_STAMPS)

$(TRAMP_DIR)/.build-tree:
	@mkdir -p $(dir $@)
	@chmod go-w $(dir $@)
	@touch $@

$(TRAMP_DIR)/src/%: trampoline/%
	@mkdir -p $(dir $@)
	@rm -f $@
	cp $< $@

$(TRAMP_DIR)/SOURCE_ID: $(TRAMP_SOURCES)
	@mkdir -p $(dir $@)
	@{ echo '$(VERSION)'; cat $(TRAMP_SOURCES) /dev/null; } | cksum | \
		cut -d' ' -f1 >$@+ && mv $@+ $@

# Prebuild for one interpreter ($(1)): the stamp holds the build's
# directory (empty when it failed: no retry until the sources or the
# binary change).  Re-running is cheap when that build exists already.
define tramp_prebuild
$(call tramp_stamp,$(1)): $(PROG) $(TRAMP_COPIES) $(TRAMP_DIR)/SOURCE_ID \
		$(TRAMP_DIR)/.build-tree
	@if test -f $(TRAMP_DIR)/src/build.sh; then \
		echo "TRAMPOLINE $(1)"; \
		if $(PROG) trampoline build --python '$(1)' \
			--into $(TRAMP_DIR) >$$@+; then \
			mv $$@+ $$@; \
		else \
			: >$$@; rm -f $$@+; \
			echo "warning: no prebuilt trampoline for $(1)" \
			     "(it is built on first use)" >&2; \
		fi; \
	fi
endef
$(foreach p,$(TRAMP_PYTHONS),$(eval $(call tramp_prebuild,$(p))))

.PHONY: install-trampoline uninstall-trampoline

install:: install-trampoline

install-trampoline: $(TRAMP_DIR)/.build-tree $(TRAMP_COPIES) \
		$(TRAMP_DIR)/SOURCE_ID $(TRAMP_STAMPS)
	$(INSTALL) -d -m 755 '$(DESTDIR)$(libdir)/pyperf-run'
	rm -rf '$(DESTDIR)$(libdir)/pyperf-run/src'
	cp -R $(TRAMP_DIR)/src '$(DESTDIR)$(libdir)/pyperf-run/src'
	$(INSTALL) -m 644 $(TRAMP_DIR)/SOURCE_ID \
		'$(DESTDIR)$(libdir)/pyperf-run/SOURCE_ID'
	for d in $$(cat $(TRAMP_DIR)/stamp.* 2>/dev/null </dev/null); do \
		k=$$(basename "$$d") && \
		rm -rf '$(DESTDIR)$(libdir)/pyperf-run/'"$$k" && \
		cp -R "$$d" '$(DESTDIR)$(libdir)/pyperf-run/'"$$k" || exit 1; \
	done
	chmod -R go-w,a+rX '$(DESTDIR)$(libdir)/pyperf-run'

uninstall::
	rm -rf '$(DESTDIR)$(libdir)/pyperf-run'
