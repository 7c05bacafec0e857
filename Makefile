# SPDX-License-Identifier: MIT
# gotools: bcc-style tracers for Go programs, on eBPF uprobes.
#
#   make              build every tool into build/
#   make demo         install what is needed, then trace the bundled demo
#   make test         install what is needed, then run every test
#   make install      install tools and man pages (PREFIX, DESTDIR)
#   make STATIC=1     link each tool fully statically
#   make ARCH=arm64   cross-build every tool for arm64 into build-arm64/, on
#                     an x86-64 machine: always linked statically, one file
#                     per tool to drop onto an arm64 host or into a bare
#                     initramfs (make deps installs the cross compiler and
#                     the arm64 libraries into $(GT_CACHE)/arm64; the tests,
#                     fuzzers and benchmarks are the build machine's alone)

# The machine's architecture, and the one built for (the kernel's names,
# as __TARGET_ARCH_ and bpf/ have them): make ARCH=arm64 on another machine
# cross-builds.
HOST_ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
ARCH := $(HOST_ARCH)
ifneq ($(ARCH),$(HOST_ARCH))
ifneq ($(ARCH)-$(HOST_ARCH),arm64-x86)
$(error make ARCH=$(ARCH): the one cross build is ARCH=arm64 on an x86-64 machine)
endif
CROSS_BUILD := 1
# Debian's cross compiler, and the GNU type its libraries are kept under
# (usr/lib/aarch64-linux-gnu).
TARGET := aarch64-linux-gnu
CROSS_COMPILE ?= $(TARGET)-
endif

# Its own build directory: a cross build never mixes objects with the
# machine's own.
OUTPUT ?= build$(if $(CROSS_BUILD),-$(ARCH))
PREFIX ?= /usr/local
DESTDIR ?=
CLANG ?= clang
CC ?= cc
BPFTOOL ?= bpftool
ifdef CROSS_BUILD
ifeq ($(origin CC),default)
CC := $(CROSS_COMPILE)gcc
endif
ifeq ($(origin AR),default)
AR := $(CROSS_COMPILE)ar
endif
# Tests, fuzzers and benchmarks run where they are built.
ifneq ($(filter test unit-tests fixtures demo bench,$(MAKECMDGOALS)),)
$(error make ARCH=$(ARCH) builds the tools alone: tests, fuzzers and benchmarks are the build machine's ($(HOST_ARCH)))
endif
# The arm64 libraries are .a files alone, and the tools are for hosts
# that may have nothing else (a bare initramfs): linked statically, always.
ifneq ($(filter-out 1,$(STATIC)),)
$(error make ARCH=$(ARCH) links statically only (STATIC=$(STATIC)))
endif
override STATIC := 1
endif

TOOLS := gofunccount gofunclatency gotrace gofuncgraph
LIB_SRCS := $(wildcard lib/*/*.c)
LIB_OBJS := $(patsubst lib/%.c,$(OUTPUT)/lib/%.o,$(LIB_SRCS))
LIBGOTOOLS := $(OUTPUT)/libgotools.a
UNIT_TESTS := $(patsubst tests/unit/%.c,$(OUTPUT)/tests/%,$(wildcard tests/unit/test_*.c))
FUZZERS := $(patsubst tests/fuzz/%.c,$(OUTPUT)/fuzz/%,$(wildcard tests/fuzz/fuzz_*.c))

CFLAGS ?= -g -O2
CFLAGS += -Wall -Wextra -Wno-unused-parameter -std=gnu11 -D_GNU_SOURCE
# Capstone 5, built from Debian trixie's source (scripts/capstone.sh, run by
# make deps): bookworm's 4.0 cannot decode AVX-512. Its headers come before
# the system's, and every binary links its libcapstone.a, so no host the
# tools run on needs capstone. That one is a diet build, which decodes
# faster; the unit test that checks lib/x86 against what diet leaves out
# (groups, registers written) links Debian's full build of the same version.
GT_CACHE ?= /var/cache/gotools
# What a cross build links comes from its architecture's folder (Debian's
# name for it: arm64), built there by the same scripts given arm64.
TARGET_CACHE := $(GT_CACHE)$(if $(CROSS_BUILD),/$(ARCH))
CAPSTONE_DIR ?= $(TARGET_CACHE)/capstone
CAPSTONE_LIB = $(CAPSTONE_DIR)/lib/libcapstone.a
CAPSTONE_FULL_LIB := $(CAPSTONE_DIR)/lib/full/libcapstone.a
# Written when it is built and installed.
CAPSTONE_STAMP := $(CAPSTONE_DIR)/.gotools-built
# libmicrohttpd (--prometheus serves /metrics with it), built from Debian
# bookworm's source without HTTPS (scripts/microhttpd.sh, run by make
# deps): bookworm's libmicrohttpd.a needs gnutls, of which Debian has no
# .a, so make STATIC=1 could not link it. Like capstone, its header comes
# before the system's (never libmicrohttpd-dev's), and every binary links
# its .a, so no host the tools run on needs libmicrohttpd.
MICROHTTPD_DIR ?= $(TARGET_CACHE)/microhttpd
MICROHTTPD_LIB := $(MICROHTTPD_DIR)/lib/libmicrohttpd.a
MICROHTTPD_STAMP := $(MICROHTTPD_DIR)/.gotools-built
# What every C object waits for (capstone's first: its message comes first),
# and every link depends on.
CACHE_STAMPS := $(CAPSTONE_STAMP) $(MICROHTTPD_STAMP)
CPPFLAGS += -Ilib -Ibpf -I$(OUTPUT) -I$(CAPSTONE_DIR)/include -I$(MICROHTTPD_DIR)/include
# A cross build's libbpf, libelf, libdw and compression libraries: the
# arm64 builds of the machine's own -dev packages, of the same versions,
# unpacked by scripts/sysroot.sh (run by make deps); the cross compiler
# has its own C library and kernel headers.
ifdef CROSS_BUILD
SYSROOT := $(TARGET_CACHE)/sysroot
SYSROOT_STAMP := $(SYSROOT)/.gotools-built
CACHE_STAMPS += $(SYSROOT_STAMP)
CPPFLAGS += -I$(SYSROOT)/usr/include/$(TARGET) -I$(SYSROOT)/usr/include
LDFLAGS += -L$(SYSROOT)/usr/lib/$(TARGET)
endif
# Each object records the headers it includes: make rebuilds what a header
# change touches, and no more.
DEPFLAGS = -MMD -MP
# Expanded where it links: a target may link another capstone.
LIBS = -lbpf -ldw -lelf $(CAPSTONE_LIB) $(MICROHTTPD_LIB) -lz -lm
ifeq ($(STATIC),1)
LDFLAGS += -static
LIBS += -lzstd -llzma -lbz2
endif
# libmicrohttpd's threads, in the dynamic build too: last, after what uses
# them.
LIBS += -lpthread
bpf_cflags = -g -O2 -target bpf -D__TARGET_ARCH_$(1) -Ibpf -Ibpf/$(1)
BPF_CFLAGS := $(call bpf_cflags,$(ARCH))

# Sanitizer and fuzzer builds get their own objects of the library.
SAN_FLAGS := -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined \
	     -fno-sanitize-recover=undefined
FUZZ_FLAGS := -g -O1 -fsanitize=fuzzer-no-link,address,undefined
SAN_OBJS := $(patsubst lib/%.c,$(OUTPUT)/lib-san/%.o,$(LIB_SRCS))
FUZZ_OBJS := $(patsubst lib/%.c,$(OUTPUT)/lib-fuzz/%.o,$(LIB_SRCS))
NPROC := $(shell nproc 2>/dev/null || echo 2)

.PHONY: all clean install deps fixtures demo test unit-tests bench
.DELETE_ON_ERROR:
.SECONDARY:

all: $(addprefix $(OUTPUT)/,$(TOOLS))

$(OUTPUT) $(OUTPUT)/tests $(OUTPUT)/tests-san $(OUTPUT)/fuzz:
	mkdir -p $@

# Every C object waits for it: without it the system's capstone 4 headers
# would be used. Refuse instead.
$(CAPSTONE_STAMP):
	@echo "capstone 5 is missing from $(CAPSTONE_DIR): run make deps (or scripts/setup-deps.sh)" >&2; exit 1

# The same: without it the system's microhttpd.h would be used, if any, and
# nothing could link.
$(MICROHTTPD_STAMP):
	@echo "libmicrohttpd is missing from $(MICROHTTPD_DIR): run make deps (or scripts/setup-deps.sh)" >&2; exit 1

# The same: without it nothing would compile (the cross compiler knows no
# libbpf, libelf or libdw) nor link; say what to run instead.
ifdef CROSS_BUILD
$(SYSROOT_STAMP):
	@echo "the $(ARCH) libraries are missing from $(SYSROOT): run make deps (or scripts/setup-deps.sh)" >&2; exit 1
endif

# What includes capstone, and everything linked, is rebuilt when it changes,
# or when this file does (objects of a build directory made before capstone
# 5 came from here hold capstone 4's structure layouts).
CAPSTONE_SRCS := $(wildcard lib/x86/*.c lib/arm64/*.c)
$(foreach d,lib lib-san lib-fuzz,$(patsubst lib/%.c,$(OUTPUT)/$(d)/%.o,$(CAPSTONE_SRCS))): $(CAPSTONE_STAMP) Makefile

# The same for what includes microhttpd.h (its install keeps the header's
# old time, so the header alone would not tell; objects made before it came
# from here used the system's).
MICROHTTPD_SRCS := $(shell grep -l '<microhttpd\.h>' $(LIB_SRCS) 2>/dev/null)
$(foreach d,lib lib-san lib-fuzz,$(patsubst lib/%.c,$(OUTPUT)/$(d)/%.o,$(MICROHTTPD_SRCS))): $(MICROHTTPD_STAMP) Makefile

$(OUTPUT)/lib/%.o: lib/%.c | $(CACHE_STAMPS)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(DEPFLAGS) $(CFLAGS) -c $< -o $@

# lib/probe/hit_cost.c times a hit with the empty program of bpf/floor.bpf.c.
$(foreach d,lib lib-san lib-fuzz,$(OUTPUT)/$(d)/probe/hit_cost.o): $(OUTPUT)/floor.skel.h
# lib/probe/cpu_samples.c samples a process with bpf/cpu_sample.bpf.c.
$(foreach d,lib lib-san lib-fuzz,$(OUTPUT)/$(d)/probe/cpu_samples.o): $(OUTPUT)/cpu_sample.skel.h

$(LIBGOTOOLS): $(LIB_OBJS)
	$(AR) rcs $@ $^

$(OUTPUT)/%.bpf.o: bpf/%.bpf.c | $(OUTPUT)
	$(CLANG) $(BPF_CFLAGS) $(DEPFLAGS) -c $< -o $@

# The BPF programs for the other architecture too (bpf/x86 and bpf/arm64
# name their registers): unit-tests builds them, so that neither breaks
# unseen.
OTHER_ARCH := $(if $(filter arm64,$(ARCH)),x86,arm64)
OTHER_BPF_OBJS := $(patsubst bpf/%.bpf.c,$(OUTPUT)/bpf-$(OTHER_ARCH)/%.bpf.o,$(wildcard bpf/*.bpf.c))
$(OUTPUT)/bpf-$(OTHER_ARCH)/%.bpf.o: bpf/%.bpf.c
	@mkdir -p $(@D)
	$(CLANG) $(call bpf_cflags,$(OTHER_ARCH)) $(DEPFLAGS) -c $< -o $@

$(OUTPUT)/%.skel.h: $(OUTPUT)/%.bpf.o
	$(BPFTOOL) gen skeleton $< > $@

$(OUTPUT)/%.o: tools/%.c $(OUTPUT)/%.skel.h | $(OUTPUT) $(CACHE_STAMPS)
	$(CC) $(CPPFLAGS) $(DEPFLAGS) $(CFLAGS) -c $< -o $@

$(addprefix $(OUTPUT)/,$(TOOLS)): $(OUTPUT)/%: $(OUTPUT)/%.o $(LIBGOTOOLS) $(CACHE_STAMPS)
	$(CC) $(LDFLAGS) $< $(LIBGOTOOLS) $(LIBS) -o $@

# Unit tests: once normally, once under ASan and UBSan.
$(OUTPUT)/tests/test_disasm $(OUTPUT)/tests-san/test_disasm: CAPSTONE_LIB = $(CAPSTONE_FULL_LIB)
$(OUTPUT)/tests/%: tests/unit/%.c $(LIBGOTOOLS) $(CACHE_STAMPS) | $(OUTPUT)/tests
	$(CC) $(CPPFLAGS) $(DEPFLAGS) $(CFLAGS) $< $(LIBGOTOOLS) $(LIBS) -o $@

$(OUTPUT)/lib-san/%.o: lib/%.c | $(CACHE_STAMPS)
	@mkdir -p $(@D)
	$(CLANG) $(CPPFLAGS) $(DEPFLAGS) -std=gnu11 -D_GNU_SOURCE $(SAN_FLAGS) -c $< -o $@

$(OUTPUT)/tests-san/%: tests/unit/%.c $(SAN_OBJS) $(CACHE_STAMPS) | $(OUTPUT)/tests-san
	$(CLANG) $(CPPFLAGS) $(DEPFLAGS) -std=gnu11 -D_GNU_SOURCE $(SAN_FLAGS) $< $(SAN_OBJS) $(LIBS) -o $@

$(OUTPUT)/lib-fuzz/%.o: lib/%.c | $(CACHE_STAMPS)
	@mkdir -p $(@D)
	$(CLANG) $(CPPFLAGS) $(DEPFLAGS) -std=gnu11 -D_GNU_SOURCE $(FUZZ_FLAGS) -c $< -o $@

$(OUTPUT)/fuzz/%: tests/fuzz/%.c $(FUZZ_OBJS) $(CACHE_STAMPS) | $(OUTPUT)/fuzz
	$(CLANG) $(CPPFLAGS) $(DEPFLAGS) -std=gnu11 -D_GNU_SOURCE $(FUZZ_FLAGS) -fsanitize=fuzzer $< $(FUZZ_OBJS) $(LIBS) -o $@

deps:
	scripts/setup-deps.sh

# The fixtures: Go programs built with every toolchain the tests use.
fixtures: deps
	tests/fixtures/build.sh $(OUTPUT)/fixtures

demo: deps
	$(MAKE) -j$(NPROC) all
	scripts/demo.sh $(OUTPUT)

unit-tests: $(UNIT_TESTS) $(patsubst $(OUTPUT)/tests/%,$(OUTPUT)/tests-san/%,$(UNIT_TESTS)) $(OTHER_BPF_OBJS)

# On x86-64, the tools for arm64 too, which tests/integration/
# test_arm64_qemu.sh runs under an arm64 kernel.
test: deps
	$(MAKE) -j$(NPROC) all unit-tests $(FUZZERS)
ifeq ($(HOST_ARCH),x86)
	$(MAKE) -j$(NPROC) ARCH=arm64 OUTPUT=$(OUTPUT)-arm64 all
endif
	tests/fixtures/build.sh $(OUTPUT)/fixtures
	GT_BUILD_ARM64=$(abspath $(OUTPUT)-arm64) tests/run.sh $(OUTPUT)

bench: deps
	$(MAKE) all $(OUTPUT)/bench/uprobe_floor
	tests/fixtures/build.sh $(OUTPUT)/fixtures
	bench/run.sh $(OUTPUT)

# The floor for bench/: the same uprobes with an empty BPF program.
$(OUTPUT)/bench:
	mkdir -p $@

$(OUTPUT)/bench/uprobe_floor: bench/uprobe_floor.c $(OUTPUT)/floor.skel.h $(LIBGOTOOLS) $(CACHE_STAMPS) | $(OUTPUT)/bench
	$(CC) $(CPPFLAGS) $(DEPFLAGS) $(CFLAGS) $< $(LIBGOTOOLS) $(LIBS) -o $@

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man8
	install -m 0755 $(addprefix $(OUTPUT)/,$(TOOLS)) $(DESTDIR)$(PREFIX)/bin/
	install -m 0644 $(addprefix man/man8/,$(addsuffix .8,$(TOOLS))) \
		$(DESTDIR)$(PREFIX)/share/man/man8/

clean:
	rm -rf $(OUTPUT)

# The header dependencies the compiler wrote (-MMD).
-include $(shell find $(OUTPUT) -name '*.d' 2>/dev/null)
