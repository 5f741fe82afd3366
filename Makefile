# ext4sim - build, test and run.  See README.md.
#
#   make            build build/ext4sim
#   make run        install missing dependencies, build, replay every scenario in scenarios/
#                   with a summary table
#   make check      install missing dependencies, build, run every test; the last line is
#                   "N passed, N failed".  T=TOPIC runs one topic of tests/run-tests.sh
#                   (tests/README.md), UPDATE=1 rewrites the golden outputs
#   make asan       the whole check under AddressSanitizer + UBSan (build in build-asan/)
#   make fuzz       the libFuzzer harnesses of tests/fuzz/ (clang, ASan + UBSan, build in
#                   build-fuzz/), each for FUZZ_TIME seconds (default 60) on one core;
#                   FUZZ_SEED=S instead: a run of fixed length from the seed corpus (CI)
#   make tidy       the source rules (scripts/tidy): functions of at most 70 lines, one PRNG
#   make deps       install the Debian packages the build needs (as root)
#   make bench      the cost of a crash state, of one scenario replayed end to end, of
#                   one explored sequence (callgrind instructions, wall time), and the
#                   time and peak memory of a 1,000,000-step explore run
#   make kernel-check  compare the model with the running kernel's ext4 on loop devices
#                   (root; skipped where that is missing; docs/real-kernel.md)
#   make kernel-check-vm  the same campaign inside Debian's 5.10, 6.1, 6.12, 6.17 and 7.2
#                   kernels under qemu (5.10, 6.17 and 7.2: a sample; root for the set-up:
#                   apt-get; docs/real-kernel.md)
#   make kernel-check-powercut  the model's crash states against the states a power cut
#                   leaves: writes logged under qemu (Debian's 6.12), every subset after
#                   the last flush recovered by this machine's ext4 (root; POWERCUT_FLAGS
#                   adds flags to scripts/kernel-powercut; docs/real-kernel.md)
#   make clean
#
# CFLAGS, CPPFLAGS, LDFLAGS and LDLIBS are the user's: they add to the flags the build
# needs (the language standard, the warnings, the include paths), never replace them.

BUILD ?= build
CC ?= cc
CFLAGS ?= -O2 -g
SRC_DIRS := lib model model/block model/mm model/jbd2 model/iomap model/ext4 model/ext4/namei model/profile checker scenario crash sim \
	explore oracle cli logwrites e2fs

# evaluated when used, so that a sub-make started after `deps` sees the packages
YAML_CFLAGS = $(shell pkg-config --cflags yaml-0.1 2>/dev/null)
YAML_LIBS = $(shell pkg-config --libs yaml-0.1 2>/dev/null || echo -lyaml)
CMOCKA_CFLAGS = $(shell pkg-config --cflags cmocka 2>/dev/null)
CMOCKA_LIBS = $(shell pkg-config --libs cmocka 2>/dev/null || echo -lcmocka)

REQ_CPPFLAGS := -D_POSIX_C_SOURCE=200809L $(addprefix -I,$(SRC_DIRS))
REQ_CFLAGS := -std=c11 -Wall -Wextra -Werror
ALL_CFLAGS = $(REQ_CPPFLAGS) $(YAML_CFLAGS) $(CPPFLAGS) $(REQ_CFLAGS) $(CFLAGS) $(SAN) -MMD -MP
# the model, the checker and the harness: everything but cli/main.c
LIB_SRC := $(sort $(foreach d,$(SRC_DIRS),$(wildcard $(d)/*.c)))
LIB_SRC := $(filter-out cli/main.c logwrites/main.c,$(LIB_SRC))
# logreplay, the write-log replay of the power-cut campaign (logwrites/, docs/real-kernel.md)
LOGREPLAY := $(BUILD)/logreplay
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
# libext2fs (e2fsprogs) and its com_err: e2fs/, mkfs in process
EXT2FS_LIBS = $(shell pkg-config --libs ext2fs com_err 2>/dev/null || echo -lext2fs -lcom_err)
BIN_LIBS = $(YAML_LIBS) -lroaring $(EXT2FS_LIBS)
TEST_SRC := $(sort $(wildcard tests/unit/test_*.c))
TEST_BIN := $(TEST_SRC:tests/unit/%.c=$(BUILD)/tests/%)
# logreplay's unit test lives with the real-kernel tools (tests/unit/ is full)
TEST_BIN += $(BUILD)/tests/test_logwrites
# the unit tests of subfolders of tests/unit/ (tests/unit/ is full): e2fs/, ext4/
SUB_TEST_SRC := $(sort $(wildcard tests/unit/e2fs/test_*.c))
TEST_BIN += $(patsubst tests/unit/e2fs/%.c,$(BUILD)/tests/%,$(SUB_TEST_SRC))
EXT4_TEST_SRC := $(sort $(wildcard tests/unit/ext4/test_*.c))
TEST_BIN += $(patsubst tests/unit/ext4/%.c,$(BUILD)/tests/%,$(EXT4_TEST_SRC))
# the namespace's: lib/nsnap.c and the checker's reference namespace (checker/namespace.h)
NS_TEST_SRC := $(sort $(wildcard tests/unit/ns/test_*.c))
TEST_BIN += $(patsubst tests/unit/ns/%.c,$(BUILD)/tests/%,$(NS_TEST_SRC))
# linked into every unit test: the world fixture, CMOCKA_TEST_FILTER (tests/README.md) and
# the libext2fs reference of the on-disk tests (tests/unit/ext4/e2ref.h)
TEST_FIXTURE := $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard tests/unit/fixture.c tests/cmocka-filter.c \
	tests/unit/ext4/e2ref.c))
# the recorded real-kernel corpora replayed in one process (tests/kernel/replay.c)
REPLAY_BIN := $(BUILD)/tests/replay
# parses JSON back in the tests (tests/fuzz/json_check.c, the harnesses' JSON reader)
JSON_CHECK := $(BUILD)/tests/json-check
# the libFuzzer harnesses (tests/fuzz/), built with clang by `make fuzz`
FUZZ_NAMES := scenario grammar import steps stepline
FUZZ_BIN := $(FUZZ_NAMES:%=$(BUILD)/fuzz/fuzz_%)
# the harnesses compiled (not linked: libFuzzer is clang's) by make check, so that an
# interface they call cannot change without them
FUZZ_OBJ := $(FUZZ_NAMES:%=$(BUILD)/obj/tests/fuzz/fuzz_%.o)
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_TIME ?= 60
FUZZ_SEED ?=

.PHONY: all run check asan clean deps bench tidy kernel-check kernel-check-vm kernel-check-powercut \
	fuzz fuzz-bins
.SECONDARY:
all: $(BUILD)/ext4sim $(LOGREPLAY)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(BUILD)/obj/tests/%.o: tests/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(CMOCKA_CFLAGS) -c $< -o $@

$(BUILD)/ext4sim: $(LIB_OBJ) $(BUILD)/obj/cli/main.o
	$(CC) $(LDFLAGS) $(SAN) -o $@ $^ $(BIN_LIBS) $(LDLIBS)

$(LOGREPLAY): $(LIB_OBJ) $(BUILD)/obj/logwrites/main.o
	$(CC) $(LDFLAGS) $(SAN) -o $@ $^ $(BIN_LIBS) $(LDLIBS)

$(BUILD)/tests/%: $(BUILD)/obj/tests/unit/%.o $(TEST_FIXTURE) $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $(SAN) -o $@ $^ $(BIN_LIBS) $(CMOCKA_LIBS) $(LDLIBS)

$(BUILD)/tests/test_%: $(BUILD)/obj/tests/unit/ext4/test_%.o $(TEST_FIXTURE) $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $(SAN) -o $@ $^ $(BIN_LIBS) $(CMOCKA_LIBS) $(LDLIBS)

$(BUILD)/tests/test_%: $(BUILD)/obj/tests/unit/ns/test_%.o $(TEST_FIXTURE) $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $(SAN) -o $@ $^ $(BIN_LIBS) $(CMOCKA_LIBS) $(LDLIBS)

$(BUILD)/tests/test_mke2fs: $(BUILD)/obj/tests/unit/e2fs/test_mke2fs.o \
		$(BUILD)/obj/tests/cmocka-filter.o $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $(SAN) -o $@ $^ $(BIN_LIBS) $(CMOCKA_LIBS) $(LDLIBS)

$(BUILD)/tests/test_logwrites: $(BUILD)/obj/tests/kernel/test_logwrites.o \
		$(BUILD)/obj/tests/cmocka-filter.o $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $(SAN) -o $@ $^ $(BIN_LIBS) $(CMOCKA_LIBS) $(LDLIBS)

$(REPLAY_BIN): $(BUILD)/obj/tests/kernel/replay.o $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $(SAN) -o $@ $^ $(BIN_LIBS) $(LDLIBS)

$(JSON_CHECK): $(BUILD)/obj/tests/fuzz/json_check.o $(BUILD)/obj/tests/fuzz/fuzz.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $(SAN) -o $@ $^ $(LDLIBS)

$(BUILD)/fuzz/fuzz_%: $(BUILD)/obj/tests/fuzz/fuzz_%.o $(BUILD)/obj/tests/fuzz/fuzz.o $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $(SAN) -fsanitize=fuzzer -o $@ $^ $(BIN_LIBS) $(LDLIBS)

-include $(wildcard $(BUILD)/obj/*/*.d $(BUILD)/obj/*/*/*.d $(BUILD)/obj/*/*/*/*.d $(BUILD)/obj/tests/unit/*.d $(BUILD)/obj/tests/unit/e2fs/*.d $(BUILD)/obj/tests/unit/ext4/*.d $(BUILD)/obj/tests/unit/ns/*.d $(BUILD)/obj/tests/kernel/*.d $(BUILD)/obj/tests/fuzz/*.d)

deps:
	@scripts/install-deps

run: deps
	@$(MAKE) --no-print-directory $(BUILD)/ext4sim
	$(BUILD)/ext4sim run --summary scenarios

check: deps
	@$(MAKE) --no-print-directory $(BUILD)/ext4sim $(TEST_BIN) $(REPLAY_BIN) $(JSON_CHECK) \
		$(LOGREPLAY) $(FUZZ_OBJ)
	BUILD=$(BUILD) T="$(T)" UPDATE="$(UPDATE)" tests/run-tests.sh

tidy:
	@scripts/tidy

bench: deps
	@$(MAKE) --no-print-directory $(BUILD)/ext4sim
	BUILD=$(BUILD) BENCH_BASE=$(BENCH_BASE) scripts/bench

kernel-check: deps
	@$(MAKE) --no-print-directory $(BUILD)/ext4sim
	scripts/kernel-check -b $(BUILD)

kernel-check-vm: deps
	@$(MAKE) --no-print-directory $(BUILD)/ext4sim
	scripts/kernel-check-vm -b $(BUILD) $(VM_FLAGS)

kernel-check-powercut: deps
	@$(MAKE) --no-print-directory $(BUILD)/ext4sim $(LOGREPLAY)
	scripts/kernel-powercut -b $(BUILD) $(POWERCUT_FLAGS)

asan:
	$(MAKE) BUILD=build-asan CFLAGS="-O1 -g -fno-omit-frame-pointer" \
		SAN="-fsanitize=address,undefined -fno-sanitize-recover=all" check

fuzz-bins: $(FUZZ_BIN)

# every harness for FUZZ_TIME seconds, one after the other on one core (scripts/fuzz)
fuzz: deps
	@command -v clang > /dev/null || { echo "fuzz: clang is not installed: skipped"; exit 0; } && \
	$(MAKE) --no-print-directory BUILD=build-fuzz CC=clang CFLAGS="-O1 -g -fno-omit-frame-pointer" \
		SAN="$(FUZZ_SAN) -fsanitize=fuzzer-no-link" fuzz-bins && \
	FUZZ_TIME=$(FUZZ_TIME) FUZZ_SEED=$(FUZZ_SEED) scripts/fuzz build-fuzz $(FUZZ_NAMES)

clean:
	rm -rf build build-asan build-fuzz

# make install [PREFIX=/usr/local] [DESTDIR=]: the binary, ext4sim(1) and the bash
# completion (both printed by the binary from its command table), the docs and the
# example scenarios
PREFIX ?= /usr/local
.PHONY: install
install: $(BUILD)/ext4sim $(LOGREPLAY)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions \
		$(DESTDIR)$(PREFIX)/share/doc/ext4sim
	install -m 755 $(BUILD)/ext4sim $(DESTDIR)$(PREFIX)/bin/ext4sim
	$(BUILD)/ext4sim help --man | sed 's|/usr/local|$(PREFIX)|g' \
		> $(DESTDIR)$(PREFIX)/share/man/man1/ext4sim.1
	$(BUILD)/ext4sim help --completion > \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/ext4sim
	cp -R README.md docs scenarios $(DESTDIR)$(PREFIX)/share/doc/ext4sim/
