# usdtc - a drop-in `dtrace -h` / `dtrace -G` for USDT probes, and libusdt.
#
# Targets: all (default), test, demo, bench, regen, install, clean, fuzz.
# A sanitizer build lives beside the normal one:
#   make B=build-san SAN=1 test
# `make deps` installs the Debian build and test dependencies (as root).

CC      ?= cc
LD      ?= ld
CFLAGS  ?= -O2 -g
PREFIX  ?= /usr/local
DESTDIR ?=
B       ?= build

WARN    = -Wall -Wextra -Werror
ifeq ($(SAN),1)
SANFLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
endif
# The libFuzzer build (`make fuzz`): clang, every library object
# instrumented for coverage as well as ASan and UBSan.
ifeq ($(FUZZ),1)
SANFLAGS = -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=all
endif
ALL_CFLAGS = -std=gnu11 $(WARN) $(CFLAGS) $(SANFLAGS) -Icompiler -I$(B) -D_GNU_SOURCE
LDLIBS  = -lelf

# The compiler, one stage per file (see README.md, "Roadmap").
COMPILER_SRCS = \
	compiler/main.c \
	compiler/err.c \
	compiler/strbuf.c \
	compiler/model.c \
	compiler/target.c \
	compiler/arch_x86_64.c \
	compiler/arch_aarch64.c \
	compiler/arch_arm64_macos.c \
	compiler/diag.c \
	compiler/cpp.c \
	compiler/parse.c \
	compiler/header.c \
	compiler/header_macos.c \
	compiler/dofgen.c \
	compiler/elfwrite.c \
	compiler/elfmerge.c \
	compiler/units.c \
	compiler/objgen.c \
	compiler/drti_objects.c \
	compiler/rewrite.c \
	compiler/decode.c \
	compiler/macho_read.c \
	compiler/macho_write.c \
	compiler/list.c
GEN_SRCS = $(B)/lexer.c $(B)/parser.c
COMPILER_OBJS = $(COMPILER_SRCS:%.c=$(B)/%.o) $(GEN_SRCS:%.c=%.o) $(B)/compiler/drti_blob.o
# Everything but main: what unit tests and fuzzers link against.
LIB_OBJS = $(filter-out $(B)/compiler/main.o,$(COMPILER_OBJS))

USDTC = $(B)/usdtc
DRTI  = $(B)/runtime/drti_lite.o

all: $(USDTC) libusdt

$(USDTC): $(COMPILER_OBJS)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDLIBS)

$(B)/compiler/%.o: compiler/%.c compiler/*.h $(B)/parser.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(B)/parser.c $(B)/parser.h &: compiler/parser.y
	@mkdir -p $(B)
	bison -Wall -Werror --defines=$(B)/parser.h -o $(B)/parser.c $<

$(B)/lexer.c: compiler/lexer.l $(B)/parser.h
	@mkdir -p $(B)
	flex -o $@ $<

# Generated code is not ours to warn about beyond what its tools allow.
$(B)/lexer.o $(B)/parser.o: $(B)/%.o: $(B)/%.c compiler/*.h $(B)/parser.h
	$(CC) $(ALL_CFLAGS) -Wno-unused-function -Wno-sign-compare -Wno-unused-parameter -c -o $@ $<

# drti_lite is merged into every -G output, so it is built without sanitizers
# and embedded in usdtc (compiler/drti_blob.S) to keep usdtc one file; and
# without a GNU property note, which -G cannot merge (compiler/elfmerge.c),
# where the compiler would add one by default.
DRTI_NOPROP = $(if $(filter x86_64-% i%86-%,$(HOST_MACHINE)),-fcf-protection=none) \
	$(if $(filter aarch64-%,$(HOST_MACHINE)),-mbranch-protection=none)
$(DRTI): runtime/drti_lite.c runtime/drti_proto.h compiler/dof.h
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 $(WARN) -O2 -fPIC -fvisibility=hidden -fno-stack-protector \
		$(DRTI_NOPROP) -D_GNU_SOURCE -Iruntime -Icompiler -c -o $@ $<

# drti_lite for the other targets (compiler/drti_objects.c), embedded beside
# the host's when a compiler for them is at hand, else -G for that target
# asks for -x lazyload: x86_64-freebsd and x86_64-illumos from
# runtime/drti_kernel.c with any x86_64 compiler (freestanding, no headers
# of those systems), aarch64-linux from runtime/drti_lite.c with AARCH64_CC.
HOST_MACHINE := $(shell $(CC) -dumpmachine 2>/dev/null)
ifneq ($(filter x86_64-%,$(HOST_MACHINE)),)
KDRTI_CC ?= $(CC)
ifeq ($(origin AARCH64_CC),undefined)
AARCH64_CC := $(shell command -v aarch64-linux-gnu-gcc 2>/dev/null)
endif
endif
DRTI_TARGETS = $(if $(KDRTI_CC),x86_64-freebsd x86_64-illumos) $(if $(AARCH64_CC),aarch64-linux)
DRTI_OTHERS = $(DRTI_TARGETS:%=$(B)/runtime/drti-%.o)
DRTI_FLAGS = -std=gnu11 $(WARN) -O2 -fPIC -fvisibility=hidden -fno-stack-protector
KDRTI_FLAGS = $(DRTI_FLAGS) -ffreestanding -fcf-protection=none -Wa,-mrelax-relocations=no

$(B)/runtime/drti-x86_64-freebsd.o: runtime/drti_kernel.c
	@mkdir -p $(dir $@)
	$(KDRTI_CC) $(KDRTI_FLAGS) -DDRTI_FREEBSD -c -o $@ $<

$(B)/runtime/drti-x86_64-illumos.o: runtime/drti_kernel.c
	@mkdir -p $(dir $@)
	$(KDRTI_CC) $(KDRTI_FLAGS) -DDRTI_ILLUMOS -c -o $@ $<

$(B)/runtime/drti-aarch64-linux.o: runtime/drti_lite.c runtime/drti_proto.h compiler/dof.h
	@mkdir -p $(dir $@)
	$(AARCH64_CC) $(DRTI_FLAGS) -D_GNU_SOURCE -Iruntime -Icompiler -c -o $@ $<

$(B)/compiler/drti_blob.o: compiler/drti_blob.S $(DRTI) $(DRTI_OTHERS)
	@mkdir -p $(dir $@)
	$(CC) -c -DDRTI_OBJECT='"$(DRTI)"' \
		$(foreach t,$(DRTI_TARGETS),-DDRTI_$(subst -,_,$(t))='"$(B)/runtime/drti-$(t).o"') \
		-o $@ $<

# libusdt (runtime/usdt.h): the compiler's library layer and the run-time
# API as position-independent code built with -fvisibility=hidden; the
# shared library exports only the API (runtime/libusdt.map), the archive
# has every other symbol made local.  libusdt.pc is for installing (PREFIX),
# libusdt-uninstalled.pc lets the tests build against $(B) with pkg-config.
LIBUSDT_VERSION = 1.0.0
LIBUSDT_SONAME  = libusdt.so.1
LIBUSDT_SRCS = compiler/err.c compiler/strbuf.c compiler/model.c compiler/target.c \
	compiler/arch_x86_64.c compiler/arch_aarch64.c compiler/arch_arm64_macos.c compiler/dofgen.c compiler/elfwrite.c compiler/units.c \
	runtime/usdt_image.c runtime/usdt.c
# The probe unit and usdt_probe_call in the host's instructions.
STUBS_ARCH = $(if $(filter aarch64-%,$(HOST_MACHINE)),aarch64,x86_64)
LIBUSDT_OBJS = $(LIBUSDT_SRCS:%.c=$(B)/pic/%.o) $(B)/pic/runtime/stubs_$(STUBS_ARCH).o
LIBUSDT = $(B)/libusdt.so $(B)/$(LIBUSDT_SONAME) $(B)/libusdt.a \
	$(B)/libusdt.pc $(B)/libusdt-uninstalled.pc
PIC_CFLAGS = -std=gnu11 $(WARN) $(CFLAGS) -fPIC -fvisibility=hidden \
	-Icompiler -Iruntime -D_GNU_SOURCE

libusdt: $(LIBUSDT)

$(B)/pic/%.o: %.c compiler/*.h runtime/*.h
	@mkdir -p $(dir $@)
	$(CC) $(PIC_CFLAGS) -c -o $@ $<

$(B)/pic/runtime/stubs_%.o: runtime/stubs_%.S
	@mkdir -p $(dir $@)
	$(CC) -fPIC -c -o $@ $<

$(B)/$(LIBUSDT_SONAME): $(LIBUSDT_OBJS) runtime/libusdt.map
	$(CC) $(CFLAGS) -shared -Wl,-soname,$(LIBUSDT_SONAME) \
		-Wl,--version-script=runtime/libusdt.map -Wl,-z,noexecstack \
		-Wl,-z,relro -Wl,-z,now -Wl,--no-undefined \
		-o $@ $(LIBUSDT_OBJS) -lelf -ldl -lpthread

$(B)/libusdt.so: $(B)/$(LIBUSDT_SONAME)
	ln -sf $(LIBUSDT_SONAME) $@

$(B)/libusdt.a: $(LIBUSDT_OBJS)
	$(LD) -r -o $(B)/pic/libusdt-all.o $(LIBUSDT_OBJS)
	objcopy --localize-hidden $(B)/pic/libusdt-all.o
	rm -f $@ && ar rcs $@ $(B)/pic/libusdt-all.o

$(B)/libusdt.pc: runtime/libusdt.pc.in Makefile
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(LIBUSDT_VERSION)|' $< > $@

$(B)/libusdt-uninstalled.pc: Makefile
	printf '%s\n' 'Name: libusdt' 'Description: libusdt in the build tree' \
		'Version: $(LIBUSDT_VERSION)' \
		'Libs: -L$(abspath $(B)) -Wl,-rpath,$(abspath $(B)) -lusdt' \
		'Libs.private: -lelf -ldl -lpthread' \
		'Cflags: -I$(abspath runtime)' > $@

# `make test` and `make demo` on a fresh Debian machine: as root, install
# missing packages (.ci/deps) before anything is built; otherwise only say
# which are missing.
ifneq ($(filter test demo,$(MAKECMDGOALS)),)
ifeq ($(shell id -u),0)
ifneq ($(shell bash .ci/deps >&2; echo $$?),0)
$(error .ci/deps could not install the build dependencies)
endif
else
DEPS_MISSING := $(shell bash .ci/deps --check >&2)
endif
endif

# Fuzzing (tests/fuzz/): one harness per reader, each taking (buffer,
# length).  `make test` replays the seeds and tests/fuzz/regress/ through
# them with the build's own compiler and sanitizers (replay.c, no
# libFuzzer); `make fuzz` builds them with clang's libFuzzer in
# build-fuzz/ and runs each for FUZZ_SECONDS (tests/fuzz/campaign).
FUZZERS = frontend decode macho
FUZZ_SECONDS ?= 60
REPLAYS = $(FUZZERS:%=$(B)/fuzz/replay_%)

$(B)/fuzz/replay_%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDLIBS)

$(B)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fsanitize=fuzzer -o $@ $^ $(LDLIBS)

fuzzers: $(FUZZERS:%=$(B)/fuzz/fuzz_%) $(USDTC)

fuzz:
	$(MAKE) B=build-fuzz CC=clang FUZZ=1 fuzzers
	USDTC=$(abspath build-fuzz/usdtc) B=build-fuzz FUZZ_SECONDS=$(FUZZ_SECONDS) \
		bash tests/fuzz/campaign $(FUZZERS)

test: all $(REPLAYS)
	USDTC=$(abspath $(USDTC)) B=$(B) CC="$(CC)" bash tests/run

demo: all
	USDTC=$(abspath $(USDTC)) B=$(B) bash examples/demo.sh

bench: all
	USDTC=$(abspath $(USDTC)) B=$(B) bash bench/run

regen: all
	USDTC=$(abspath $(USDTC)) bash tests/golden/run --regen

deps:
	bash .ci/deps

install: all
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(USDTC) $(DESTDIR)$(PREFIX)/bin/usdtc
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include
	install -m 755 $(B)/$(LIBUSDT_SONAME) $(DESTDIR)$(PREFIX)/lib/$(LIBUSDT_SONAME)
	ln -sf $(LIBUSDT_SONAME) $(DESTDIR)$(PREFIX)/lib/libusdt.so
	install -m 644 $(B)/libusdt.a $(DESTDIR)$(PREFIX)/lib/libusdt.a
	install -m 644 runtime/usdt.h $(DESTDIR)$(PREFIX)/include/usdt.h
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(LIBUSDT_VERSION)|' \
		runtime/libusdt.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/libusdt.pc

clean:
	rm -rf build build-san build-fuzz

.PHONY: all libusdt test demo bench regen deps install clean fuzz fuzzers
