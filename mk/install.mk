# mk/install.mk - installing usdtc and libusdt, and packaging them.
#
# Included from the Makefile.  Everything a distribution or a user needs to
# put usdtc where ./configure, meson and CMake find it on their own:
#
#   make install [PREFIX=/usr/local] [DESTDIR=] [BINDIR=] [LIBDIR=] [MANDIR=]
#       usdtc, libusdt.so.1 with its libusdt.so link, libusdt.a, usdt.h,
#       libusdt.pc, the man pages usdtc(1) and libusdt(3), the CMake
#       package (find_package(usdtc), cmake/usdtcConfig.cmake.in), and
#       libusdt/submodule.mk as $(DATADIR)/libusdt/submodule.mk, the
#       Makefile the classic bindings' libusdt submodule takes
#       (doc/languages.md);
#   make install-dtrace-link
#       a `dtrace` link to usdtc in BINDIR, for builds that only look for a
#       program of that name (never replaces a `dtrace` that is not ours);
#   make install-dtrace-divert
#       usdtc as the system's /usr/bin/dtrace, the way a Debian
#       administrator makes such a choice: a local diversion (dpkg-divert
#       --local) moves the packaged one (systemtap-sdt-dev's) to
#       /usr/bin/dtrace.systemtap and a link to BINDIR/usdtc takes its
#       place; meson, php.m4 and configure then find usdtc as `dtrace`.
#       With DESTDIR, dpkg-divert works on that root (its var/lib/dpkg);
#   make uninstall-dtrace-divert
#       the link removed and SystemTap's dtrace put back (uninstall does it
#       too);
#   make uninstall
#       removes every file install and install-dtrace-link put there, and
#       the directories only usdtc uses, so nothing is left behind;
#   make deb
#       the Debian packages usdtc, libusdt1, libusdt-dev and usdtc-dtrace
#       (debian/; usdtc-dtrace diverts /usr/bin/dtrace as the package
#       usdtc-dtrace, the packaged form of install-dtrace-divert), built
#       by dpkg-buildpackage from a copy of the tree under $(B)/deb, so
#       nothing is written outside the build directory;
#   make test-deb
#       builds them, checks them with lintian, installs them on this
#       machine, traces a program built only with what they installed, and
#       removes them again (tests/install/deb/run; root; minutes, so it is
#       a CI step of its own and not part of `make test`).
#
# The version is spelled once, in compiler/base/version.h (USDTC_VERSION, which
# `usdtc --version` prints and the DOF comment carries); this file reads it
# from there for libusdt.pc, the man pages and the CMake package version,
# and tests/install checks that debian/changelog says the same.
#
# Installed paths substituted into files (libusdt.pc, the CMake package)
# never include DESTDIR: they say where the files will be used.

VERSION_H ?= compiler/base/version.h
VERSION := $(shell sed -n 's/^\#define USDTC_VERSION "\([^"]*\)"$$/\1/p' $(VERSION_H))
ifeq ($(VERSION),)
$(error cannot read USDTC_VERSION from $(VERSION_H))
endif

BINDIR      ?= $(PREFIX)/bin
LIBDIR      ?= $(PREFIX)/lib
INCLUDEDIR  ?= $(PREFIX)/include
DATADIR     ?= $(PREFIX)/share
MANDIR      ?= $(DATADIR)/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
CMAKEDIR    ?= $(DATADIR)/cmake/usdtc
SUBMODDIR   ?= $(DATADIR)/libusdt

# The substitutions shared by libusdt.pc, the man pages and the CMake files.
SUBST = sed -e 's|@VERSION@|$(VERSION)|g' -e 's|@PREFIX@|$(PREFIX)|g' \
	-e 's|@BINDIR@|$(BINDIR)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
	-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@DATADIR@|$(DATADIR)|g'

# The install directories, recorded so that files with paths substituted in
# are rewritten whenever one of them changes (make PREFIX=/usr install).
INSTALL_VARS = $(B)/install-vars
INSTALL_VARS_TEXT = $(VERSION) $(PREFIX) $(BINDIR) $(LIBDIR) $(INCLUDEDIR) $(DATADIR)
$(INSTALL_VARS): FORCE
	@mkdir -p $(B)
	@if [ "$$(cat $@ 2>/dev/null)" != '$(INSTALL_VARS_TEXT)' ]; then \
		echo '$(INSTALL_VARS_TEXT)' > $@; fi

# A sanitizer build's library (SAN=1) needs programs built with the same
# sanitizers, so its .pc says so, as libusdt-uninstalled.pc does.
$(B)/libusdt.pc: libusdt/libusdt.pc.in $(INSTALL_VARS)
	$(SUBST) $< $(if $(SANFLAGS),| sed -e 's|^Cflags: .*|& $(SANFLAGS)|') > $@

MAN_PAGES = $(B)/man/usdtc.1 $(B)/man/libusdt.3
$(B)/man/%: man/%.in $(INSTALL_VARS)
	@mkdir -p $(dir $@)
	$(SUBST) $< > $@

CMAKE_FILES = $(B)/cmake/usdtcConfig.cmake $(B)/cmake/usdtcConfigVersion.cmake
$(B)/cmake/%.cmake: cmake/%.cmake.in $(INSTALL_VARS)
	@mkdir -p $(dir $@)
	$(SUBST) $< > $@

docs: $(MAN_PAGES) $(CMAKE_FILES)
all: docs

# libusdt only where it is built (LIBUSDT_ALL: x86_64 and AArch64 hosts).
install: all $(LIBUSDT_ALL:%=install-%)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(CMAKEDIR)
	install -m 755 $(USDTC) $(DESTDIR)$(BINDIR)/usdtc
	install -m 644 $(B)/man/usdtc.1 $(DESTDIR)$(MANDIR)/man1/usdtc.1
	install -m 644 $(CMAKE_FILES) $(DESTDIR)$(CMAKEDIR)/

install-libusdt: all
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(PKGCONFIGDIR) \
		$(DESTDIR)$(MANDIR)/man3 $(DESTDIR)$(SUBMODDIR)
	install -m 644 $(B)/$(LIBUSDT_SONAME) $(DESTDIR)$(LIBDIR)/$(LIBUSDT_SONAME)
	ln -sf $(LIBUSDT_SONAME) $(DESTDIR)$(LIBDIR)/libusdt.so
	install -m 644 $(B)/libusdt.a $(DESTDIR)$(LIBDIR)/libusdt.a
	install -m 644 libusdt/usdt.h $(DESTDIR)$(INCLUDEDIR)/usdt.h
	install -m 644 $(B)/libusdt.pc $(DESTDIR)$(PKGCONFIGDIR)/libusdt.pc
	install -m 644 $(B)/man/libusdt.3 $(DESTDIR)$(MANDIR)/man3/libusdt.3
	install -m 644 libusdt/submodule.mk $(DESTDIR)$(SUBMODDIR)/submodule.mk

# A `dtrace` beside usdtc, unless a `dtrace` that is not a link to usdtc
# (SystemTap's script, a real DTrace) is already there.
install-dtrace-link: install
	@if [ -e $(DESTDIR)$(BINDIR)/dtrace ] && \
	    [ "$$(readlink $(DESTDIR)$(BINDIR)/dtrace)" != usdtc ]; then \
		echo "$(DESTDIR)$(BINDIR)/dtrace exists and is not usdtc: left alone" >&2; \
		exit 1; fi
	ln -sf usdtc $(DESTDIR)$(BINDIR)/dtrace

# The diversion of install-dtrace-divert: the packaged dtrace (and its
# manual page) moved aside, a link to usdtc in its place.  DESTDIR is
# dpkg-divert's root.  Undone only where the link is still ours.
DIVERT_BIN = /usr/bin/dtrace
DIVERT_SAVED = /usr/bin/dtrace.systemtap
DPKG_DIVERT = dpkg-divert $(if $(DESTDIR),--root=$(DESTDIR)) --local --rename \
	--divert $(DIVERT_SAVED)
install-dtrace-divert: install
	$(DPKG_DIVERT) --add $(DIVERT_BIN)
	ln -sf $(BINDIR)/usdtc $(DESTDIR)$(DIVERT_BIN)

uninstall-dtrace-divert:
	@if [ "$$(readlink $(DESTDIR)$(DIVERT_BIN) 2>/dev/null)" = $(BINDIR)/usdtc ]; then \
		echo "rm -f $(DESTDIR)$(DIVERT_BIN)"; rm -f $(DESTDIR)$(DIVERT_BIN) && \
		echo "$(DPKG_DIVERT) --remove $(DIVERT_BIN)" && \
		$(DPKG_DIVERT) --remove $(DIVERT_BIN); fi

uninstall: uninstall-dtrace-divert
	@if [ "$$(readlink $(DESTDIR)$(BINDIR)/dtrace 2>/dev/null)" = usdtc ]; then \
		echo "rm -f $(DESTDIR)$(BINDIR)/dtrace"; rm -f $(DESTDIR)$(BINDIR)/dtrace; fi
	rm -f $(DESTDIR)$(BINDIR)/usdtc \
		$(DESTDIR)$(LIBDIR)/$(LIBUSDT_SONAME) $(DESTDIR)$(LIBDIR)/libusdt.so \
		$(DESTDIR)$(LIBDIR)/libusdt.a $(DESTDIR)$(INCLUDEDIR)/usdt.h \
		$(DESTDIR)$(PKGCONFIGDIR)/libusdt.pc \
		$(DESTDIR)$(MANDIR)/man1/usdtc.1 $(DESTDIR)$(MANDIR)/man3/libusdt.3 \
		$(CMAKE_FILES:$(B)/cmake/%=$(DESTDIR)$(CMAKEDIR)/%) \
		$(DESTDIR)$(SUBMODDIR)/submodule.mk
	-rmdir $(DESTDIR)$(CMAKEDIR) $(DESTDIR)$(SUBMODDIR) 2>/dev/null

# ---- Debian packages ----------------------------------------------------

# dpkg-buildpackage writes the packages into the parent of the source
# directory, so the source is a copy in $(B)/deb/src: the .deb, .buildinfo
# and .changes files land in $(B)/deb.  The copy is of the files git knows
# (tracked and new, not ignored), or of the whole tree but its build
# directories where there is no git.
DEB_DIR = $(B)/deb
deb: deps
	rm -rf $(DEB_DIR)
	mkdir -p $(DEB_DIR)/src
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then \
		git ls-files -z -c -o --exclude-standard | \
		    xargs -0 tar -cf - --no-recursion --ignore-failed-read | tar -xf - -C $(DEB_DIR)/src; \
	else \
		tar -cf - --exclude=./build --exclude='./build-*' . | tar -xf - -C $(DEB_DIR)/src; \
	fi
	cd $(DEB_DIR)/src && dpkg-buildpackage -b -us -uc
	@ls -1 $(DEB_DIR)/*.deb

test-deb: deps
	USDTC=$(abspath $(USDTC)) B=$(B) CC="$(CC)" bash tests/run install/deb

# The version, for scripts and tests (make -s version).
version:
	@echo $(VERSION)

FORCE:

.PHONY: version docs install install-libusdt install-dtrace-link install-dtrace-divert \
	uninstall-dtrace-divert uninstall deb test-deb FORCE
