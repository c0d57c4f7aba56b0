# usdtc - a drop-in `dtrace -h` / `dtrace -G` for USDT probes, and libusdt.
#
# Targets: all (default), check, test, fuzz, demo, demo-libusdt, bench,
# bench-gate, bench-readme, regen, clean; install, uninstall, install-dtrace-link, deb,
# test-deb are in mk/install.mk.
# A sanitizer build lives beside the normal one:
#   make B=build-san SAN=1 test
# `make deps` installs the Debian build and test dependencies (as root).
# usdtc built to run on another architecture, its fast tier run under
# qemu-user (doc/architectures.md, "usdtc on other hosts"):
#   make HOST=s390x-linux-gnu check

# HOST=TRIPLE: Debian's cross compiler for it, the objects in build-TRIPLE,
# libelf and zlib of its Debian architecture linked statically (fetched by
# .ci/host-libs into HOST_LIBS: no multiarch install), and HOST_RUN, the
# qemu-user command that runs what is built (the cross C library's
# ld.so), which `make check` hands the tests.
# (from the command line only: tcsh exports HOST, the machine's name)
ifneq ($(origin HOST),command line)
HOST :=
endif
ifdef HOST
HOST_DEB_ARCH := $(shell dpkg-architecture -t$(HOST) -qDEB_HOST_ARCH 2>/dev/null)
HOST_CPU := $(shell dpkg-architecture -t$(HOST) -qDEB_HOST_GNU_CPU 2>/dev/null)
# (CC= and LD= on the command line win; a CC of the environment is the
# build machine's, as tests/layout's make under `make check` has it)
ifneq ($(origin CC),command line)
CC = $(HOST)-gcc
endif
ifneq ($(origin LD),command line)
LD = $(HOST)-ld
endif
B ?= build-$(HOST)
HOST_LIBS ?= /var/cache/usdtc/hosts/$(HOST_DEB_ARCH)
HOST_CFLAGS = -I$(HOST_LIBS)/include
HOST_LDLIBS = -L$(HOST_LIBS)/lib -Wl,-Bstatic -lelf -lz -Wl,-Bdynamic
# (qemu names i686 i386 and powerpc64le ppc64le)
HOST_QEMU = qemu-$(patsubst i%86,i386,$(patsubst powerpc64le,ppc64le,$(HOST_CPU)))
HOST_RUN = $(HOST_QEMU) -L /usr/$(HOST)
endif

CC      ?= cc
LD      ?= ld
CFLAGS  ?= -O2 -g
PREFIX  ?= /usr/local
DESTDIR ?=
B       ?= build
# What the compiler builds for (the drti_lite objects, libusdt's stubs);
# libusdt has stubs for x86_64 and AArch64 only: on any other host `all`
# builds usdtc without it.
HOST_MACHINE := $(shell $(CC) -dumpmachine 2>/dev/null)
# 4321 where it is big-endian (s390x), natively or with HOST=
HOST_BYTE_ORDER := $(shell echo __BYTE_ORDER__ | $(CC) -E -P -x c - 2>/dev/null)
LIBUSDT_ALL = $(if $(filter x86_64-% aarch64-%,$(HOST_MACHINE)),libusdt)

# The warnings every C file of the tree is built with (gcc and clang); the
# stricter half keeps what the code already is: no shadowed names, every
# external function declared in a header first, prototypes only, format
# strings checked, no undefined macro in #if, no variable-length arrays.
WARN    = -Wall -Wextra -Werror -Wshadow -Wmissing-prototypes -Wstrict-prototypes \
	-Wformat=2 -Wundef -Wvla -Wold-style-definition
ifeq ($(SAN),1)
SANFLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
endif
# The libFuzzer build (`make fuzz`): clang, every library object
# instrumented for coverage as well as ASan and UBSan.
ifeq ($(FUZZ),1)
SANFLAGS = -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=all
endif
# The checkout's own path is kept out of what is built (debug info names
# files relative to it), so the same sources give the same usdtc wherever
# they are cloned: CI's client builds are keyed by usdtc's bytes
# (tests/clients/run-clients), and Debian's packages are reproducible.
REPRO_CFLAGS = -ffile-prefix-map=$(CURDIR)=.
ALL_CFLAGS = -std=gnu11 $(WARN) $(CFLAGS) $(SANFLAGS) $(REPRO_CFLAGS) $(CORE_INC) -I$(B) -D_GNU_SOURCE \
	$(HOST_CFLAGS)
LDLIBS  = $(if $(HOST),$(HOST_LDLIBS),-lelf)

# The layers (doc/layout.md, and a README.md in every folder):
#   compiler/  the core library: every format usdtc reads or writes, bytes
#              <-> model; the stages in compiler/ itself, their helpers in
#              one subfolder per layer or format (CORE_DIRS); built once
#              as the internal archive $(B)/libusdtc.a, once as
#              position-independent code for libusdt ($(B)/pic/libusdtc.a)
#              and once with the sanitizers for the test drivers
#              ($(B)/test/libusdtc.a);
#   usdtc/     the usdtc program on top of it;
#   runtime/   what is linked into users' programs: drti_lite, drti_kernel,
#              the probe stubs;
#   libusdt/   libusdt, run-time providers, on top of the core.
CORE_DIRS = compiler compiler/header compiler/base compiler/front compiler/model \
	compiler/dof compiler/elf compiler/macho compiler/rewrite compiler/inspect
CORE_INC = $(CORE_DIRS:%=-I%)
CORE_SRCS = \
	compiler/base/err.c \
	compiler/base/strbuf.c \
	compiler/base/idset.c \
	compiler/base/fileio.c \
	compiler/base/tempset.c \
	compiler/base/stale.c \
	compiler/base/subproc.c \
	compiler/base/magic.c \
	compiler/model/model.c \
	compiler/model/target.c \
	compiler/model/arch_x86_64.c \
	compiler/model/arch_aarch64.c \
	compiler/model/arch_arm64_macos.c \
	compiler/model/sites.c \
	compiler/front/diag.c \
	compiler/front/parse_ctx.c \
	compiler/front/parse_decl.c \
	compiler/front/parse.c \
	compiler/front/parse_pragma.c \
	compiler/front/parse_layout.c \
	compiler/header/header.c \
	compiler/header/args.c \
	compiler/header/asm_text.c \
	compiler/header/forms_dtrace.c \
	compiler/header/forms_x86_64.c \
	compiler/header/forms_aarch64.c \
	compiler/header/forms_sdt.c \
	compiler/header/header_macos.c \
	compiler/dofgen.c \
	compiler/dof/decode.c \
	compiler/elfwrite.c \
	compiler/elfdyn.c \
	compiler/elfmerge.c \
	compiler/elf/elfenc.c \
	compiler/elf/objin.c \
	compiler/units.c \
	compiler/objgen.c \
	compiler/sdtobj.c \
	compiler/rewrite/rewrite_insn.c \
	compiler/rewrite/rewrite_obj.c \
	compiler/rewrite/rewrite_plan.c \
	compiler/rewrite/rewrite_write.c \
	compiler/macho/macho_read.c \
	compiler/macho/macho_in.c \
	compiler/macho/macho_arch.c \
	compiler/macho_write.c \
	compiler/macho_objgen.c \
	compiler/inspect/list.c \
	compiler/inspect/probefind.c
GEN_SRCS = $(B)/lexer.c $(B)/parser.c
CORE_OBJS = $(CORE_SRCS:%.c=$(B)/%.o) $(GEN_SRCS:%.c=%.o)
CORE_LIB = $(B)/libusdtc.a

USDTC_SRCS = \
	usdtc/main.c \
	usdtc/source.c \
	usdtc/cpp.c \
	usdtc/drti_objects.c
# (objects in $(B)/prog/: $(B)/usdtc is the program)
USDTC_OBJS = $(USDTC_SRCS:usdtc/%.c=$(B)/prog/%.o) $(B)/prog/drti_blob.o

USDTC = $(B)/usdtc
DRTI  = $(B)/runtime/drti_lite.o
DRTI_RESOLVE = $(B)/tools/drti_resolve
# drti_lite's files, merged into $(DRTI): the helper protocol's (libusdt
# links them too) and drti_lite's own.
DRTI_PROTO_SRCS = runtime/drti_proto.c runtime/drti_fuse.c runtime/drti_reg.c runtime/drti_sys.c \
	runtime/drti_str.c
DRTI_SRCS = runtime/drti_lite.c runtime/drti_sites.c $(DRTI_PROTO_SRCS)

all: $(USDTC) $(LIBUSDT_ALL) $(B)/test/libusdtc.a $(B)/test/libusdtc-prog.a

$(USDTC): $(USDTC_OBJS) $(CORE_LIB)
	$(CC) $(ALL_CFLAGS) -o $@ $(USDTC_OBJS) $(CORE_LIB) $(LDLIBS)

$(CORE_LIB): $(CORE_OBJS) $(B)/.members
	rm -f $@ && ar rcs $@ $(CORE_OBJS)

# Header dependencies come from the compiler (-MMD -MP, the .d files beside
# the objects); the generated parser.h must exist before the first build.
DEPFLAGS = -MMD -MP

# The flags are a dependency too: -MMD tracks headers, not the command
# line, and a build/ kept across a change of flags (CFLAGS=, CC=, a new
# warning, drti_lite's CET options) would keep objects built the old way.
# $(FLAGS) is every compile command's compiler and flags; $(B)/.flags holds
# them and every object's rule lists it.  It is rewritten only when they
# differ (the comparison is at the end of this file, once every flag is
# defined), so objects are rebuilt exactly then.
FLAGS = $(CC) $(ALL_CFLAGS) $(GEN_CFLAGS) $(DEPFLAGS) | $(TEST_CFLAGS) | $(PIC_CFLAGS) | \
	$(DRTI_FLAGS) $(DRTI_CET) $(DRTI_STRIP) | $(KDRTI_CC) $(KDRTI_FLAGS) | $(AARCH64_CC) | $(X86_64_CC) | \
	$(DRTI_TARGETS)
$(B)/.flags:
	@mkdir -p $(B) && printf '%s\n' '$(subst ','\'',$(strip $(FLAGS)))' > $@

# The same for the archives' members: a file added to or taken from
# CORE_SRCS changes no object that already exists (after a merge or a
# change of branch), so each archive also lists $(B)/.members, rewritten
# when the source lists differ.
MEMBERS = $(CORE_SRCS) | $(LIBUSDT_SRCS) | $(USDTC_SRCS)
$(B)/.members:
	@mkdir -p $(B) && printf '%s\n' '$(strip $(MEMBERS))' > $@

$(B)/compiler/%.o: compiler/%.c $(B)/.flags | $(B)/parser.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -c -o $@ $<

$(B)/prog/%.o: usdtc/%.c $(B)/.flags | $(B)/parser.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Iusdtc $(DEPFLAGS) -c -o $@ $<

$(B)/parser.c $(B)/parser.h &: compiler/parser.y
	@mkdir -p $(B)
	bison -Wall -Werror --defines=$(B)/parser.h -o $(B)/parser.c $<

$(B)/lexer.c: compiler/lexer.l $(B)/parser.h
	@mkdir -p $(B)
	flex -o $@ $<

# Generated code is not ours to warn about beyond what its tools allow.
GEN_CFLAGS = -Wno-unused-function -Wno-sign-compare -Wno-unused-parameter
$(B)/lexer.o $(B)/parser.o: $(B)/%.o: $(B)/%.c $(B)/parser.h $(B)/.flags
	$(CC) $(ALL_CFLAGS) $(GEN_CFLAGS) $(DEPFLAGS) -c -o $@ $<

# The core again with ASan and UBSan, for the test drivers (tests/unit,
# tests/fuzz, tests/macho/mutate.c), which link it instead of lists of
# sources.
# (Not under HOST=: ASan cannot reserve its shadow memory under qemu-user.)
TEST_CFLAGS = -std=gnu11 $(WARN) -g -O1 $(CORE_INC) -I$(B) -D_GNU_SOURCE \
	$(if $(HOST),,-fsanitize=address,undefined -fno-sanitize-recover=all) \
	-fno-omit-frame-pointer $(HOST_CFLAGS)
TEST_OBJS = $(CORE_SRCS:%.c=$(B)/test/%.o) $(B)/test/lexer.o $(B)/test/parser.o

# The program's front-end pieces (reading files, cpp) for parse_test.
TEST_PROG_OBJS = $(B)/test/usdtc/source.o $(B)/test/usdtc/cpp.o

$(B)/test/libusdtc.a: $(TEST_OBJS) $(B)/.members
	rm -f $@ && ar rcs $@ $(TEST_OBJS)

$(B)/test/libusdtc-prog.a: $(TEST_PROG_OBJS)
	rm -f $@ && ar rcs $@ $^

$(B)/test/usdtc/%.o: usdtc/%.c $(B)/.flags | $(B)/parser.h
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -Iusdtc $(DEPFLAGS) -c -o $@ $<

$(B)/test/compiler/%.o: compiler/%.c $(B)/.flags | $(B)/parser.h
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) $(DEPFLAGS) -c -o $@ $<

$(B)/test/lexer.o $(B)/test/parser.o: $(B)/test/%.o: $(B)/%.c $(B)/parser.h $(B)/.flags
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) $(GEN_CFLAGS) $(DEPFLAGS) -c -o $@ $<

# drti_lite is merged into every -G output, so it is built without sanitizers
# and embedded in usdtc (usdtc/drti_blob.S) to keep usdtc one file.  On x86
# it is built for IBT and SHSTK (endbr64 where init_array enters it): -G
# reads its GNU property note and writes the output's own, so a program
# built with -fcf-protection keeps both (compiler/objgen.c).  AArch64's
# property note is not written by -G, so no BTI/PAC is asked for there.
DRTI_CET = $(if $(filter x86_64-% i%86-%,$(HOST_MACHINE)),-fcf-protection=full) \
	$(if $(filter aarch64-%,$(HOST_MACHINE)),-mbranch-protection=none)
$(DRTI): $(DRTI_SRCS:runtime/%.c=$(B)/runtime/host/%.o) $(DRTI_RESOLVE)
	$(call drti_merge,$(CC))

$(B)/runtime/host/%.o: runtime/%.c $(B)/.flags
	@mkdir -p $(dir $@)
	$(CC) $(DRTI_LINUX_FLAGS) $(DRTI_CET) $(DEPFLAGS) -c -o $@ $<

# drti_lite for the other targets (usdtc/drti_objects.c), embedded beside
# the host's when a compiler for them is at hand, else -G for that target
# asks for -x lazyload: x86_64-freebsd and x86_64-illumos from
# runtime/drti_kernel.c with any x86_64 compiler (freestanding, no headers
# of those systems), aarch64-linux from runtime/drti_lite.c with AARCH64_CC.
# A usdtc cross-built on x86_64 for another host (HOST=) embeds the
# x86_64 ones too, and x86_64-linux's, built with the build machine's
# compiler (BUILD_CC): it writes -G for x86_64 as the x86_64 usdtc does,
# which is what the goldens of its `make check` are.
ifneq ($(HOST),)
BUILD_CC ?= gcc
X86_64_CC := $(if $(filter x86_64-%,$(shell $(BUILD_CC) -dumpmachine 2>/dev/null)),$(BUILD_CC))
else ifneq ($(filter x86_64-%,$(HOST_MACHINE)),)
X86_64_CC := $(CC)
endif
ifneq ($(X86_64_CC),)
KDRTI_CC ?= $(X86_64_CC)
ifeq ($(origin AARCH64_CC),undefined)
AARCH64_CC := $(if $(filter aarch64-%,$(HOST_MACHINE)),,$(shell command -v aarch64-linux-gnu-gcc 2>/dev/null))
endif
endif
DRTI_TARGETS = $(if $(KDRTI_CC),x86_64-freebsd x86_64-illumos) $(if $(AARCH64_CC),aarch64-linux) \
	$(if $(HOST),$(if $(X86_64_CC),x86_64-linux))
DRTI_OTHERS = $(DRTI_TARGETS:%=$(B)/runtime/drti-%.o)
# Every -G object carries a copy, which runs once at start-up, so it is
# built for size (doc/usage.md has the -G object sizes): -Os; no unwind
# tables (C that calls nothing back and is never unwound through; gdb
# unwinds from drti_init, not from a libc call deeper in drti_lite, which
# it could not either with drti_lite's function names, before they were
# left out); no .comment; strings in plain
# .rodata, so its relocations name the section, not a local label each
# (gcc's -fno-merge-constants, which clang refuses under -Werror; clang
# merges no constants across sections by default).
#
# A reference from one section to another costs a relocation, 24 bytes of
# RELA in every -G object on x86_64; one inside a section costs nothing
# (the assembler resolves it).  So the code is all in .text: gcc's
# -fno-reorder-functions keeps the constructor and destructor out of
# .text.startup and .text.exit (clang puts nothing there; it has no such
# flag).  The strings stay in .rodata, though putting them in .text too
# (the compiler's assembly edited) would save about 70 relocations, 1.7
# KB: reading them at start-up faults in the page of .rodata that, in a
# small program, also holds the program's own string literals, and
# bpftrace's str() cannot read a page that is not there (it reads ""
# for a literal the program passes to a probe and never reads itself;
# tests/object saw it).
NO_MERGE_CONSTANTS := $(shell $(CC) -Werror -fno-merge-constants -x c -c -o /dev/null /dev/null \
	2>/dev/null && echo -fno-merge-constants)
NO_REORDER_FUNCTIONS := $(shell $(CC) -Werror -fno-reorder-functions -x c -c -o /dev/null \
	/dev/null 2>/dev/null && echo -fno-reorder-functions)
#
# It imports from the C library only what it cannot do itself
# (runtime/drti_sys.h, drti_str.h): its loops stay loops, not calls of
# memcpy or memset (-fno-builtin; gcc's loop distribution, which clang
# does not have, made them calls even so).
NO_LOOP_PATTERNS := $(shell $(CC) -Werror -fno-tree-loop-distribute-patterns -x c -c \
	-o /dev/null /dev/null 2>/dev/null && echo -fno-tree-loop-distribute-patterns)
DRTI_FLAGS = -std=gnu11 $(WARN) -Os -fPIC -fvisibility=hidden -fno-stack-protector \
	-fno-asynchronous-unwind-tables -fno-unwind-tables -fno-ident $(NO_MERGE_CONSTANTS) $(NO_REORDER_FUNCTIONS) \
	-fno-builtin $(NO_LOOP_PATTERNS)
#
DRTI_LINUX_FLAGS = $(DRTI_FLAGS) -D_GNU_SOURCE -Iruntime $(CORE_INC)
#
# drti_lite is several files (runtime/README.md) and one object: each -G
# output merges one copy, which must define no name but its own, so that a
# program links two -G objects, or one and libusdt.  The files share their
# functions with hidden visibility; the objects are linked into one (ld -r,
# the compiler's own linker), whose hidden names are then made local
# (objcopy --localize-hidden), and the local names no relocation needs are
# left out (--strip-unneeded): each name costs 24 bytes and its string.
# The constructor's and destructor's are kept: nm, perf and a debugger
# still name the code that runs at load and at exit as drti_lite's.
# A call from one file to another is a relocation after `ld -r`, and keeps
# its callee's name: tools/drti_resolve writes those within .text into the
# code, as the assembler does within one file (about 5 KB of every -G
# output), before the names no relocation needs are left out.
# $(call drti_merge,COMPILER): the objects of $^ merged into $@.
define drti_merge
$$($(1) -print-prog-name=ld) -r -o $@ $(filter %.o,$^)
$$($(1) -print-prog-name=objcopy) --localize-hidden $@
$(DRTI_RESOLVE) $@
$$($(1) -print-prog-name=objcopy) $(DRTI_STRIP) $@
endef
# (a tool of the build machine: $(BUILD_CC) when usdtc is cross-built)
$(DRTI_RESOLVE): tools/drti_resolve.c $(B)/.flags
	@mkdir -p $(dir $@)
	$(if $(HOST),$(BUILD_CC),$(CC)) -std=gnu11 $(WARN) -O2 -o $@ $< -lelf
DRTI_STRIP = --strip-unneeded --keep-symbol=drti_init --keep-symbol=drti_fini
KDRTI_FLAGS = $(DRTI_FLAGS) -ffreestanding -fcf-protection=none -Wa,-mrelax-relocations=no

$(B)/runtime/drti-x86_64-freebsd.o: runtime/drti_kernel.c $(B)/.flags
	@mkdir -p $(dir $@)
	$(KDRTI_CC) $(KDRTI_FLAGS) -DDRTI_FREEBSD $(DEPFLAGS) -c -o $@ $<

$(B)/runtime/drti-x86_64-illumos.o: runtime/drti_kernel.c $(B)/.flags
	@mkdir -p $(dir $@)
	$(KDRTI_CC) $(KDRTI_FLAGS) -DDRTI_ILLUMOS $(DEPFLAGS) -c -o $@ $<

$(B)/runtime/drti-aarch64-linux.o: $(DRTI_SRCS:runtime/%.c=$(B)/runtime/aarch64-linux/%.o) \
	$(DRTI_RESOLVE)
	$(call drti_merge,$(AARCH64_CC))

$(B)/runtime/aarch64-linux/%.o: runtime/%.c $(B)/.flags
	@mkdir -p $(dir $@)
	$(AARCH64_CC) $(DRTI_LINUX_FLAGS) $(DEPFLAGS) -c -o $@ $<

$(B)/runtime/drti-x86_64-linux.o: $(DRTI_SRCS:runtime/%.c=$(B)/runtime/x86_64-linux/%.o) \
	$(DRTI_RESOLVE)
	$(call drti_merge,$(X86_64_CC))

$(B)/runtime/x86_64-linux/%.o: runtime/%.c $(B)/.flags
	@mkdir -p $(dir $@)
	$(X86_64_CC) $(DRTI_LINUX_FLAGS) -fcf-protection=full $(DEPFLAGS) -c -o $@ $<

$(B)/prog/drti_blob.o: usdtc/drti_blob.S $(DRTI) $(DRTI_OTHERS) $(B)/.flags
	@mkdir -p $(dir $@)
	$(CC) -c -DDRTI_OBJECT='"$(DRTI)"' \
		$(foreach t,$(DRTI_TARGETS),-DDRTI_$(subst -,_,$(t))='"$(B)/runtime/drti-$(t).o"') \
		-o $@ $<

# libusdt (libusdt/usdt.h): the run-time API on top of the core library,
# all position-independent code built with -fvisibility=hidden (the core
# as $(B)/pic/libusdtc.a, of which the linker takes the members libusdt
# needs); the shared library exports only the API (libusdt/libusdt.map),
# the archive has every other symbol made local.  libusdt.pc is for
# installing (mk/install.mk), libusdt-uninstalled.pc lets the tests build against
# $(B) with pkg-config.
LIBUSDT_VERSION = $(VERSION)
LIBUSDT_SONAME  = libusdt.so.1
LIBUSDT_SRCS = libusdt/usdt_image.c libusdt/usdt_file.c libusdt/usdt_map.c libusdt/usdt_jit.c \
	libusdt/usdt.c
# The probe unit and usdt_probe_call in the host's instructions.
STUBS_ARCH = $(if $(filter aarch64-%,$(HOST_MACHINE)),aarch64,x86_64)
LIBUSDT_OBJS = $(LIBUSDT_SRCS:%.c=$(B)/pic/%.o) $(DRTI_PROTO_SRCS:%.c=$(B)/pic/%.o) \
	$(B)/pic/runtime/stubs_$(STUBS_ARCH).o
PIC_CORE_LIB = $(B)/pic/libusdtc.a
PIC_CORE_OBJS = $(CORE_SRCS:%.c=$(B)/pic/%.o)
LIBUSDT = $(B)/libusdt.so $(B)/$(LIBUSDT_SONAME) $(B)/libusdt.a \
	$(B)/libusdt.pc $(B)/libusdt-uninstalled.pc
# Under SAN=1 libusdt (and the core copy it links) is instrumented too, and
# so is every program the tests build against it (the uninstalled .pc
# carries the flags).
# On x86_64 libusdt's code is built for IBT and SHSTK, as its stubs say of
# theirs (runtime/stubs_x86_64.S).  The C library's crti.o and crtn.o
# carry no property note on Debian 12, so the linker would drop both bits;
# -z shstk states the one that holds for them too (_init and _fini return
# where they were called), so a process with a shadow stack keeps it when
# it loads libusdt.so.  IBT it cannot claim: _init is entered indirectly
# and has no endbr64.  tests/libusdt checks the note.
LIBUSDT_CET = $(if $(filter x86_64-%,$(HOST_MACHINE)),-fcf-protection=full)
LIBUSDT_SHSTK = -Wl,-z,shstk
LIBUSDT_CET_LD = $(if $(filter x86_64-%,$(HOST_MACHINE)),$(LIBUSDT_SHSTK))
PIC_CFLAGS = -std=gnu11 $(WARN) $(CFLAGS) $(SANFLAGS) $(REPRO_CFLAGS) -fPIC -fvisibility=hidden \
	$(LIBUSDT_CET) $(CORE_INC) -I$(B) -D_GNU_SOURCE $(HOST_CFLAGS)

libusdt: $(LIBUSDT)

$(PIC_CORE_LIB): $(PIC_CORE_OBJS) $(B)/.members
	rm -f $@ && ar rcs $@ $(PIC_CORE_OBJS)

$(B)/pic/compiler/%.o: compiler/%.c $(B)/.flags | $(B)/parser.h
	@mkdir -p $(dir $@)
	$(CC) $(PIC_CFLAGS) $(DEPFLAGS) -c -o $@ $<

$(B)/pic/libusdt/%.o: libusdt/%.c $(B)/.flags
	@mkdir -p $(dir $@)
	$(CC) $(PIC_CFLAGS) -Ilibusdt -Iruntime $(DEPFLAGS) -c -o $@ $<

$(B)/pic/runtime/%.o: runtime/%.c $(B)/.flags
	@mkdir -p $(dir $@)
	$(CC) $(PIC_CFLAGS) $(DEPFLAGS) -c -o $@ $<

$(B)/pic/runtime/stubs_%.o: runtime/stubs_%.S $(B)/.flags
	@mkdir -p $(dir $@)
	$(CC) -fPIC -c -o $@ $<

$(B)/$(LIBUSDT_SONAME): $(LIBUSDT_OBJS) $(PIC_CORE_LIB) libusdt/libusdt.map
	$(CC) $(CFLAGS) $(SANFLAGS) -shared -Wl,-soname,$(LIBUSDT_SONAME) \
		-Wl,--version-script=libusdt/libusdt.map -Wl,-z,noexecstack \
		-Wl,-z,relro -Wl,-z,now -Wl,--no-undefined $(LIBUSDT_CET_LD) \
		-o $@ $(LIBUSDT_OBJS) $(PIC_CORE_LIB) -lelf -ldl -lpthread

$(B)/libusdt.so: $(B)/$(LIBUSDT_SONAME)
	ln -sf $(LIBUSDT_SONAME) $@

$(B)/libusdt.a: $(LIBUSDT_OBJS) $(PIC_CORE_LIB)
	$(LD) -r -o $(B)/pic/libusdt-all.o $(LIBUSDT_OBJS) $(PIC_CORE_LIB)
	objcopy --localize-hidden $(B)/pic/libusdt-all.o
	rm -f $@ && ar rcs $@ $(B)/pic/libusdt-all.o

$(B)/libusdt-uninstalled.pc: Makefile
	printf '%s\n' 'includedir=$(abspath libusdt)' 'libdir=$(abspath $(B))' \
		'Name: libusdt' 'Description: libusdt in the build tree' \
		'Version: $(LIBUSDT_VERSION)' \
		'Libs: -L$(abspath $(B)) -Wl,-rpath,$(abspath $(B)) -lusdt' \
		'Libs.private: -lelf -ldl -lpthread' \
		'Cflags: -I$(abspath libusdt) $(SANFLAGS)' > $@

# `make deps`: as root, install the missing build and test packages
# (.ci/deps); as another user, only say which are missing.  `make test` and
# `make demo` run it first, then build, so that a fresh Debian machine needs
# nothing else; nothing is installed while the Makefile is read.
deps:
	@if [ "$$(id -u)" = 0 ]; then bash .ci/deps; else bash .ci/deps --check || true; fi

# Fuzzing (tests/fuzz/): one harness per reader, each taking (buffer,
# length).  `make test` replays the seeds and tests/fuzz/regress/ through
# them with the build's own compiler and sanitizers (replay.c, no
# libFuzzer); `make fuzz` builds them with clang's libFuzzer in
# build-fuzz/ and runs each for FUZZ_SECONDS (tests/fuzz/campaign), or,
# given FUZZ_CPU_SECONDS, until each has used that much CPU time.
FUZZERS = frontend decode macho rewrite sites
FUZZ_SECONDS ?= 60
FUZZ_CPU_SECONDS ?= 0
FUZZ_NICE ?= 19
REPLAYS = $(FUZZERS:%=$(B)/fuzz/replay_%)

$(B)/fuzz/replay_%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c $(B)/test/libusdtc.a $(B)/.flags
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS) -o $@ $(filter-out $(B)/.flags %.h,$^) $(LDLIBS)

# The sites harness links drti_lite's code that it runs (runtime/drti_sites.c
# and the helper protocol it calls), built as the harness is.
$(B)/fuzz/replay_sites $(B)/fuzz/fuzz_sites: runtime/drti_sites.c $(DRTI_PROTO_SRCS)

$(B)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(CORE_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fsanitize=fuzzer -o $@ $(filter-out %.h,$^) $(LDLIBS)

fuzzers: $(FUZZERS:%=$(B)/fuzz/fuzz_%) $(USDTC)

fuzz:
	$(MAKE) B=build-fuzz CC=clang FUZZ=1 fuzzers
	USDTC=$(abspath build-fuzz/usdtc) B=build-fuzz FUZZ_SECONDS=$(FUZZ_SECONDS) \
		FUZZ_CPU_SECONDS=$(FUZZ_CPU_SECONDS) FUZZ_NICE=$(FUZZ_NICE) \
		bash tests/fuzz/campaign $(FUZZERS)

replays: $(REPLAYS)

# SUITES=... runs only those suites (.ci/run's sanitizer pass does).
# Oracle's DTrace for tests/dtrace, built once into its cache as root
# (.ci/dtrace-live, as .ci/run does); without it that suite skips.
dtrace-live: deps
	@if [ "$$(id -u)" = 0 ]; then bash .ci/dtrace-live || true; fi

test: deps dtrace-live
	$(MAKE) all replays
	USDTC=$(abspath $(USDTC)) B=$(B) SAN=$(SAN) CC="$(CC)" bash tests/run $(SUITES)

# The fast tier, for the edit-compile-test loop: under a minute, no root,
# no tracer (the front end, goldens, errors and warnings, the command line,
# the layout rules, DOF, the unit drivers).
# Under HOST= the tests run usdtc through qemu-user ($(B)/usdtc-run), their
# programs are the build machine's (BUILD_CC: the goldens are x86_64's), and
# their drivers of the core are built by HOST_CC with the host's libraries
# and run through HOST_RUN too (tests/lib.sh's build_driver).
# On a big-endian host usdtc refuses -G for the targets whose DOF and notes
# it writes itself ([G_HOST_BYTE_ORDER], doc/architectures.md) and its
# --list and --dump read no little-endian DOF: its check leaves out the
# suites made of those (golden, warnings, cli, dof), and tests/hosts checks
# the refusal.
CHECK_SUITES = parse golden errors warnings cli layout dof unit
CHECK_SUITES_BE = parse errors layout unit
CHECK_USDTC = $(if $(HOST),$(B)/usdtc-run,$(USDTC))
check: all $(if $(HOST),$(B)/usdtc-run)
	USDTC=$(abspath $(CHECK_USDTC)) B=$(B) SAN=$(SAN) CC="$(if $(HOST),$(BUILD_CC),$(CC))" \
		$(if $(HOST),HOST=$(HOST) HOST_CC="$(CC)" HOST_RUN="$(HOST_RUN)" HOST_CFLAGS="$(HOST_CFLAGS)" \
		HOST_LDLIBS="$(HOST_LDLIBS)") bash tests/run \
		$(if $(filter 4321,$(HOST_BYTE_ORDER)),$(CHECK_SUITES_BE),$(CHECK_SUITES))

# usdtc under qemu-user, with the name it was run by as its argv[0] (-0):
# run through a link named dtrace, it speaks as dtrace, as natively; run
# as usdtc-run, as usdtc.
$(B)/usdtc-run: $(USDTC)
	printf '#!/bin/sh\ncase $$0 in *usdtc-run) n=usdtc ;; *) n=$$0 ;; esac\nexec %s -0 "$$n" %s "$$@"\n' \
		'$(HOST_RUN)' '$(abspath $(USDTC))' > $@ && chmod +x $@

demo: deps
	$(MAKE) all
	USDTC=$(abspath $(USDTC)) B=$(B) bash examples/demo.sh

# Probes a Python program defines at run time (bindings/python, libusdt).
demo-libusdt: deps
	$(MAKE) all
	USDTC=$(abspath $(USDTC)) B=$(B) bash examples/libusdt_demo.sh

bench: all
	USDTC=$(abspath $(USDTC)) B=$(B) bash bench/run

# CI's guard on speed: a short tier of the benchmarks under callgrind,
# each count against its limit in bench/limits.txt (bench/gate).
bench-gate: all
	USDTC=$(abspath $(USDTC)) bash bench/gate

# Every table of bench/README.md measured again from this tree (bench/regen).
bench-readme: all
	USDTC=$(abspath $(USDTC)) bash bench/regen

# CPython 3.11 built with usdtc and with SystemTap's dtrace, instructions
# on one script (root: apt-get source; two builds of several minutes).
bench-cpython: deps
	$(MAKE) all
	USDTC=$(abspath $(USDTC)) bash bench/cpython_cost

regen: all
	USDTC=$(abspath $(USDTC)) bash tests/golden/run --regen


clean:
	rm -rf build build-san build-fuzz $(if $(HOST),$(B))

.PHONY: all libusdt check test dtrace-live demo demo-libusdt bench bench-gate bench-readme bench-cpython regen deps clean fuzz fuzzers replays

DEPFILES = $(patsubst %.o,%.d,$(CORE_OBJS) $(TEST_OBJS) $(TEST_PROG_OBJS) $(PIC_CORE_OBJS) \
	$(USDTC_OBJS) $(LIBUSDT_OBJS) $(DRTI) $(DRTI_OTHERS) \
	$(foreach t,host $(DRTI_TARGETS),$(DRTI_SRCS:runtime/%.c=$(B)/runtime/$(t)/%.o)))
-include $(wildcard $(DEPFILES))

ifneq ($(strip $(FLAGS)),$(strip $(file <$(B)/.flags)))
$(B)/.flags: FORCE
endif
ifneq ($(strip $(MEMBERS)),$(strip $(file <$(B)/.members)))
$(B)/.members: FORCE
endif
FORCE:
.PHONY: FORCE

include mk/install.mk

# Real projects (CPython, PostgreSQL, ...) built from Debian's source
# packages with usdtc as their dtrace, then traced with bpftrace: see
# tests/clients/run-clients.  Not part of `test` (it takes minutes per
# project); CLIENTS=... picks the projects, CLIENTS_CACHE where builds live.
test-clients: deps
	$(MAKE) all
	USDTC=$(abspath $(USDTC)) CC="$(CC)" $(if $(CLIENTS),CLIENTS="$(CLIENTS)") \
		bash tests/clients/run-clients

.PHONY: test-clients
