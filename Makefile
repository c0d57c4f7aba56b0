# usdtc - a drop-in `dtrace -h` / `dtrace -G` for USDT probes, and libusdt.
#
# Targets: all (default), test, demo, bench, regen, install, clean.
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
	compiler/diag.c \
	compiler/cpp.c \
	compiler/parse.c \
	compiler/header.c \
	compiler/dofgen.c \
	compiler/elfwrite.c \
	compiler/units.c \
	compiler/objgen.c \
	compiler/decode.c \
	compiler/list.c
GEN_SRCS = $(B)/lexer.c $(B)/parser.c
COMPILER_OBJS = $(COMPILER_SRCS:%.c=$(B)/%.o) $(GEN_SRCS:%.c=%.o) $(B)/compiler/drti_blob.o
# Everything but main: what unit tests and fuzzers link against.
LIB_OBJS = $(filter-out $(B)/compiler/main.o,$(COMPILER_OBJS))

USDTC = $(B)/usdtc
DRTI  = $(B)/runtime/drti_lite.o

all: $(USDTC)

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

# drti_lite is linked into every -G output, so it is built without sanitizers
# and embedded in usdtc (compiler/drti_blob.S) to keep usdtc one file.
$(DRTI): runtime/drti_lite.c compiler/dof.h
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 $(WARN) -O2 -fPIC -fvisibility=hidden -fno-stack-protector \
		-D_GNU_SOURCE -Iruntime -Icompiler -c -o $@ $<

$(B)/compiler/drti_blob.o: compiler/drti_blob.S $(DRTI)
	@mkdir -p $(dir $@)
	$(CC) -c -DDRTI_OBJECT='"$(DRTI)"' -o $@ $<

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

test: all
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

clean:
	rm -rf build build-san

.PHONY: all test demo bench regen deps install clean
