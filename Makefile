# ext4sim - build, test and run.  See README.md.
#
#   make            build build/ext4sim
#   make run        install missing dependencies, build, replay every scenario in scenarios/
#                   with a summary table
#   make check      install missing dependencies, build, run every test; the last line is
#                   "N passed, N failed"
#   make asan       the whole check under AddressSanitizer + UBSan (build in build-asan/)
#   make deps       install the Debian packages the build needs (as root)
#   make bench      the cost of a crash state, of one scenario replayed end to end, of
#                   one explored sequence (callgrind instructions, wall time), and the
#                   time and peak memory of a 1,000,000-step explore run
#   make kernel-check  compare the model with the running kernel's ext4 on loop devices
#                   (root; skipped where that is missing; docs/real-kernel.md)
#   make kernel-check-vm  the same campaign inside Debian 12's 6.1 and 6.12 kernels under
#                   qemu (root for the set-up: apt-get; docs/real-kernel.md)
#   make clean

BUILD ?= build
CC ?= cc
OPT ?= -O2 -g
PKGS := yaml-0.1 cmocka
# evaluated when used, so that a sub-make started after `deps` sees the packages
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CFLAGS += -std=c11 -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L $(OPT) $(SAN) \
	  -Imodel -Ichecker -Isim $(PKG_CFLAGS)
LDLIBS += $(PKG_LIBS) -lyaml -lroaring
LDFLAGS += $(SAN)

MODEL_SRC := $(sort $(wildcard model/*.c))
CHECKER_SRC := $(sort $(wildcard checker/*.c))
SIM_SRC := $(sort $(filter-out sim/main.c,$(wildcard sim/*.c)))
LIB_SRC := $(MODEL_SRC) $(CHECKER_SRC) $(SIM_SRC)
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
REF_SRC := $(sort $(wildcard tests/ref/*.c))
REF_OBJ := $(REF_SRC:%.c=$(BUILD)/obj/%.o)
TEST_SRC := $(sort $(wildcard tests/unit/test_*.c))
TEST_BIN := $(TEST_SRC:tests/unit/%.c=$(BUILD)/tests/%)
HDRS := $(wildcard model/*.h checker/*.h sim/*.h tests/ref/*.h)

.PHONY: all run check asan clean deps bench kernel-check kernel-check-vm
.SECONDARY:
all: $(BUILD)/ext4sim

$(BUILD)/obj/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/ext4sim: $(LIB_OBJ) $(BUILD)/obj/sim/main.o
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/%: $(BUILD)/obj/tests/unit/%.o $(LIB_OBJ) $(REF_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

deps:
	@scripts/install-deps

run: deps
	@$(MAKE) --no-print-directory $(BUILD)/ext4sim
	$(BUILD)/ext4sim run --summary scenarios

check: deps
	@$(MAKE) --no-print-directory $(BUILD)/ext4sim $(TEST_BIN)
	BUILD=$(BUILD) tests/run-tests.sh

bench: deps
	@$(MAKE) --no-print-directory $(BUILD)/ext4sim
	BUILD=$(BUILD) scripts/bench

kernel-check: deps
	@$(MAKE) --no-print-directory $(BUILD)/ext4sim
	scripts/kernel-check -b $(BUILD)

kernel-check-vm: deps
	@$(MAKE) --no-print-directory $(BUILD)/ext4sim
	scripts/kernel-check-vm -b $(BUILD)

asan:
	$(MAKE) BUILD=build-asan OPT="-O1 -g -fno-omit-frame-pointer" \
		SAN="-fsanitize=address,undefined -fno-sanitize-recover=all" check

clean:
	rm -rf build build-asan
