# msprobe — offline analyzers for MindStudio Probe dumps.
#
#   make            build build/msprobe
#   make test       unit + CLI tests, then the same under ASan+UBSan (-j2: builds on two cores)
#   make check-long what make test leaves out: valgrind over the hostile files, fuzzing, ...
#   make check-aarch64  cross-build lib/ and its unit tests, run them under qemu-aarch64
#   make demo       build and compare the example dumps of testdata/
#   make bench      generate big dumps and time compare on them
#   make fuzz       every reader under libFuzzer (clang), FUZZ_SECONDS each
#   make install    PREFIX=/usr/local: binary, msprobe-<sub> links, man pages, completion
#   make uninstall  the same PREFIX: remove them
#
# Dependencies (Debian): gcc make pkg-config zlib1g-dev libxlsxwriter-dev
# libyaml-dev libsqlite3-dev libcmocka-dev (tests); see deps.sh.

CC      ?= gcc
PREFIX  ?= /usr/local
BUILD   ?= build
OPT     ?= -O2
PKGS    := zlib xlsxwriter yaml-0.1 sqlite3
VERSION := 0.1.0

CFLAGS  ?= $(OPT) -g
WARN    := -std=c11 -ffp-contract=off -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wno-unused-parameter
DEFS    := -D_GNU_SOURCE -DMSPROBE_VERSION='"$(VERSION)"'
CPPFLAGS += -Ilib -I. $(shell pkg-config --cflags $(PKGS))
LDLIBS  += $(shell pkg-config --libs $(PKGS)) -lm -lpthread

ifeq ($(SAN),1)
  CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
  LDFLAGS += -fsanitize=address,undefined
endif
# FUZZ=1 (make fuzz, with clang): everything instrumented for libFuzzer and
# checked by ASan+UBSan; the harnesses get libFuzzer's main().
ifeq ($(FUZZ),1)
  CFLAGS += -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
  LDFLAGS += -fsanitize=address,undefined
endif

# lib/ is the library (libmsprobe.a, lib/ alone); every subcommand family
# lives in its own folder (libcommands.a), found by its commands.h (what
# cmd/main.c includes: docs/ARCHITECTURE.md, "Adding a subcommand"); cmd/
# only dispatches. Test-only writers (npy, pt, zip) live in tests/support
# (libtestsupport.a).
SUBDIRS  := $(sort $(patsubst %/commands.h,%,$(wildcard */commands.h)))
LIB_SRC  := $(shell find lib -name '*.c' | LC_ALL=C sort)
SUB_SRC  := $(shell find $(SUBDIRS) -name '*.c' 2>/dev/null | LC_ALL=C sort)
CMD_SRC  := $(wildcard cmd/*.c)
SUP_SRC  := $(wildcard tests/support/*.c)
OBJ_LIB  := $(patsubst %.c,$(BUILD)/%.o,$(LIB_SRC))
OBJ_SUB  := $(patsubst %.c,$(BUILD)/%.o,$(SUB_SRC)) $(BUILD)/gen/graph_assets.o $(BUILD)/gen/train_assets.o
OBJ_CMD  := $(patsubst %.c,$(BUILD)/%.o,$(CMD_SRC))
OBJ_SUP  := $(patsubst %.c,$(BUILD)/%.o,$(SUP_SRC))
ARCHIVE  := $(BUILD)/libmsprobe.a
COMMANDS := $(BUILD)/libcommands.a
SUPPORT  := $(BUILD)/libtestsupport.a
BIN      := $(BUILD)/msprobe
TEST_INC := -Itests/support

UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRC))
TOOL_SRC := $(wildcard tests/tools/*.c)
TOOL_BIN := $(patsubst tests/tools/%.c,$(BUILD)/tools/%,$(TOOL_SRC))
TEST_LIBS = $(COMMANDS) $(SUPPORT) $(ARCHIVE)

# Fuzz harnesses (tests/fuzz/fz_*.c): libFuzzer binaries under FUZZ=1,
# otherwise replay drivers (tests/fuzz/replay.c) that make test runs over
# the kept findings and the seed corpora. cJSON and expat are the oracles
# of the differential harnesses (test-only dependencies).
FUZZ_SRC  := $(wildcard tests/fuzz/fz_*.c)
FUZZ_BIN  := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRC))
FUZZ_PKGS := libcjson expat
FUZZ_OBJ  := $(BUILD)/tests/fuzz/fuzz.o
ifeq ($(FUZZ),1)
  FUZZ_LINK := -fsanitize=fuzzer
else
  FUZZ_OBJ  += $(BUILD)/tests/fuzz/replay.o
  FUZZ_LINK :=
endif

.PHONY: all test test-plain test-asan check check-long check-aarch64 demo bench install uninstall clean units tools fuzzers fuzz

all: $(BIN)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(DEFS) $(WARN) $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/tests/support/%.o: tests/support/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(TEST_INC) $(DEFS) $(WARN) $(CFLAGS) -MMD -MP -c $< -o $@

# The script and style sheet of graph's page (graph/write/page/), as C strings:
# each line a literal; backslashes, quotes and '?' (trigraphs) escaped.
ASSET_SED := -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/?/\\?/g' -e 's/^/"/' -e 's/$$/\\n"/'
$(BUILD)/gen/graph_assets.c: graph/write/page/viewer.js graph/write/page/viewer.css
	@mkdir -p $(dir $@)
	{ echo '/* made by the Makefile from graph/write/page/: do not edit */'; \
	  echo 'const char graph_viewer_js[] ='; sed $(ASSET_SED) graph/write/page/viewer.js; echo ';'; \
	  echo 'const char graph_viewer_css[] ='; sed $(ASSET_SED) graph/write/page/viewer.css; echo ';'; } > $@.tmp
	mv $@.tmp $@

$(BUILD)/gen/graph_assets.o: $(BUILD)/gen/graph_assets.c
	$(CC) $(CPPFLAGS) $(DEFS) $(WARN) $(CFLAGS) -c $< -o $@

# The same for train_compare's page (train/page/).
$(BUILD)/gen/train_assets.c: train/page/curves.js train/page/curves.css
	@mkdir -p $(dir $@)
	{ echo '/* made by the Makefile from train/page/: do not edit */'; \
	  echo 'const char train_page_js[] ='; sed $(ASSET_SED) train/page/curves.js; echo ';'; \
	  echo 'const char train_page_css[] ='; sed $(ASSET_SED) train/page/curves.css; echo ';'; } > $@.tmp
	mv $@.tmp $@

$(BUILD)/gen/train_assets.o: $(BUILD)/gen/train_assets.c
	$(CC) $(CPPFLAGS) $(DEFS) $(WARN) $(CFLAGS) -c $< -o $@

$(ARCHIVE): $(OBJ_LIB)
	@rm -f $@
	ar rcs $@ $^

$(COMMANDS): $(OBJ_SUB)
	@rm -f $@
	ar rcs $@ $^

$(SUPPORT): $(OBJ_SUP)
	@rm -f $@
	ar rcs $@ $^

$(BIN): $(OBJ_CMD) $(COMMANDS) $(ARCHIVE)
	$(CC) $(LDFLAGS) $(CFLAGS) -o $@ $(OBJ_CMD) $(COMMANDS) $(ARCHIVE) $(LDLIBS)

$(BUILD)/tests/%: tests/unit/%.c $(TEST_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(TEST_INC) $(DEFS) $(WARN) $(CFLAGS) $(shell pkg-config --cflags cmocka) -MMD -MP \
	    -o $@ $< $(TEST_LIBS) $(LDFLAGS) $(LDLIBS) $(shell pkg-config --libs cmocka)

$(BUILD)/tools/%: tests/tools/%.c $(TEST_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(TEST_INC) $(DEFS) $(WARN) $(CFLAGS) -MMD -MP -o $@ $< $(TEST_LIBS) $(LDFLAGS) $(LDLIBS)

$(BUILD)/fuzz/%: tests/fuzz/%.c $(FUZZ_OBJ) $(TEST_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(TEST_INC) $(DEFS) $(WARN) $(CFLAGS) $(shell pkg-config --cflags $(FUZZ_PKGS)) -MMD -MP \
	    -o $@ $< $(FUZZ_OBJ) $(TEST_LIBS) $(LDFLAGS) $(FUZZ_LINK) $(LDLIBS) $(shell pkg-config --libs $(FUZZ_PKGS))

# the tokenizer benchmark measures expat too
$(BUILD)/tools/bench_xml: LDLIBS += $(shell pkg-config --libs expat)

units: $(UNIT_BIN)
tools: $(TOOL_BIN)
fuzzers: $(FUZZ_BIN)
.SECONDARY: $(FUZZ_OBJ)

# The test suite: unit tests (cmocka), CLI behaviour tests, the conformance
# test against ../shared/corpus when it exists, the page in a browser, three
# runs under valgrind; then all of it again under AddressSanitizer +
# UndefinedBehaviorSanitizer in a separate build tree. One pass after the
# other (each takes every core; the builds too, unless make is given -j),
# each printing how long its build and its tests took. What is slow for
# what it adds to every run is in check-long.
test:
	@start=$$(date +%s); \
	$(MAKE) --no-print-directory test-plain && \
	$(MAKE) --no-print-directory test-asan && \
	echo "make test: passed in $$(($$(date +%s) - start)) s"

NPROC := $(shell nproc 2>/dev/null || echo 2)

test-plain:
	@start=$$(date +%s); \
	$(MAKE) --no-print-directory $(if $(filter -j%,$(MAKEFLAGS)),,-j$(NPROC)) $(BIN) units tools fuzzers && \
	echo "== build ($(BUILD)): $$(($$(date +%s) - start)) s"
	tests/run_tests.sh $(BUILD)

test-asan:
	@$(MAKE) --no-print-directory BUILD=build-asan SAN=1 OPT=-O1 test-plain

check: test

# The long tests (tests/run_long.sh): the catalogue of hostile files under
# valgrind, the 10^8-element kernel test, the full truncation stress, a
# throw-away subcommand added by the recipe, and make fuzz (FUZZ_SECONDS per
# harness). Not part of make test, nor of .ci/run.
check-long: $(BIN) units tools
	+tests/run_long.sh $(BUILD)

# lib/ and its unit tests cross-built for AArch64 and run under qemu-user;
# not part of make test (see the script for what it needs).
check-aarch64:
	tests/check_aarch64.sh build-aarch64

demo: $(BIN)
	tests/demo.sh $(BUILD)

bench: $(BIN) tools
	tests/bench.sh $(BUILD)

# libFuzzer over every reader (clang): FUZZ_SECONDS per harness (default
# 10), FUZZ_JOBS harnesses at once (default: all cores), FUZZ_ONLY=fz_npy
# for one; findings land in build-fuzz/fuzz/findings/. make check-long runs
# it where clang is installed (deps.sh installs it); make test replays
# every harness over its seeds and kept findings; the long run: README.
fuzz:
	@start=$$(date +%s); \
	$(MAKE) --no-print-directory BUILD=build-fuzz CC=clang FUZZ=1 OPT=-O1 fuzzers && \
	echo "== build (build-fuzz): $$(($$(date +%s) - start)) s"
	tests/fuzz/run.sh build-fuzz

# The binary, a msprobe-<name> link per command name and alias, the man
# pages and the completion scripts (bash-completion loads one per command
# name, so the links get one each); tests/cli/install_check.sh installs into
# a DESTDIR and checks what landed.
BASHCOMP := $(PREFIX)/share/bash-completion/completions
ZSHCOMP  := $(PREFIX)/share/zsh/site-functions
install: $(BIN)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(BASHCOMP) $(DESTDIR)$(ZSHCOMP)
	install -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/msprobe
	for s in $$($(BIN) --list-commands); do \
	    ln -sf msprobe $(DESTDIR)$(PREFIX)/bin/msprobe-$$s; \
	    ln -sf msprobe $(DESTDIR)$(BASHCOMP)/msprobe-$$s; done
	install -m 0644 man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	$(BIN) completion bash > $(DESTDIR)$(BASHCOMP)/msprobe
	$(BIN) completion zsh > $(DESTDIR)$(ZSHCOMP)/_msprobe

uninstall:
	for s in $$($(DESTDIR)$(PREFIX)/bin/msprobe --list-commands 2>/dev/null); do \
	    rm -f $(DESTDIR)$(PREFIX)/bin/msprobe-$$s $(DESTDIR)$(BASHCOMP)/msprobe-$$s; done
	rm -f $(DESTDIR)$(PREFIX)/bin/msprobe $(DESTDIR)$(BASHCOMP)/msprobe $(DESTDIR)$(ZSHCOMP)/_msprobe
	cd man && for p in *.1; do rm -f $(DESTDIR)$(PREFIX)/share/man/man1/$$p; done

clean:
	rm -rf build build-asan build-fuzz build-aarch64 build-aarch64.log

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
