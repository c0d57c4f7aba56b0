# libusdt/submodule.mk - usdtc's libusdt standing in for the classic libusdt
# submodule (copied into it as its Makefile).
#
# Why: the classic libusdt bindings (Perl's Devel::DTrace::Provider,
# Ruby's ruby-usdt, Lua's lua-usdt) carry libusdt as a git submodule and
# run `make` (or `make all`) in its directory, then take usdt.h and
# libusdt.a from there.  Copied into that empty directory as `Makefile`, this
# gives them usdtc's libusdt instead, unchanged: it copies the header and
# the archive of the libusdt that pkg-config finds: an installed one, or a
# build tree's with PKG_CONFIG_PATH=<build dir> (pkg-config prefers its
# libusdt-uninstalled.pc).  The bindings pass CC and ARCH; nothing is
# compiled here, so they are ignored.
#
# usdtc's libusdt.a needs -lelf -ldl -lpthread (pkg-config's
# Libs.private), which the classic archive did not, and the bindings link
# it alone (Perl's MYEXTLIB, Ruby's have_library('usdt')).  So the
# libusdt.a made here is a GNU ld linker script naming the real archive
# and those libraries: `ar` cannot read it, every GNU-compatible linker
# takes it where the archive would go.  `make archive` copies the archive
# itself instead, for a binding whose build adds the libraries.
PKG_CONFIG ?= pkg-config
LIBUSDT_PC ?= libusdt

all: usdt.h libusdt.a

usdt.h:
	inc=$$($(PKG_CONFIG) --variable=includedir $(LIBUSDT_PC)) && \
	cp "$$inc/usdt.h" .

libusdt.a:
	lib=$$($(PKG_CONFIG) --variable=libdir $(LIBUSDT_PC)) && \
	libs=$$($(PKG_CONFIG) --static --libs-only-l $(LIBUSDT_PC)) && \
	test -f "$$lib/libusdt.a" && \
	echo "INPUT ( $$lib/libusdt.a $${libs#-lusdt} )" > $@

archive: usdt.h
	lib=$$($(PKG_CONFIG) --variable=libdir $(LIBUSDT_PC)) && \
	cp "$$lib/libusdt.a" .

clean:
	rm -f usdt.h libusdt.a

.PHONY: all archive clean
