# SPDX-License-Identifier: Apache-2.0
# hsmbench - benchmark suite for PKCS#11 modules and key-management REST services.
#
#   make            build into $(BUILD) (default: build/)
#   make check      the test suite: normal build, ASan+UBSan build, ThreadSanitizer build,
#                   the libFuzzer harnesses (a few seconds each)
#   make check-load the same beside a busy loop that keeps one core busy (killed at the end,
#                   whatever happens): checks whose margins need a quiet machine fail here first
#   make fuzz       the libFuzzer harnesses, each for FUZZ_SECONDS (default 60)
#   make bench      harness overhead and ceiling figures on the demo SoftHSM token
#   make demo       install what is missing, build everything, make install (PREFIX=/usr/local),
#                   run a short benchmark on a private SoftHSM token
#   make install    PREFIX=/usr/local DESTDIR=
#   make deb        the Debian package, $(BUILD)/hsmbench_VERSION_ARCH.deb (debian/, dpkg-buildpackage)
#   make check-deb  build it, lintian, install it in a scratch root, run it
#   make check-deb-fresh  make deb in a fresh Debian 12 container: only the Build-Depends installed
#   make check-fleet the Kubernetes fleet (k8s/) run with podman: the image built on a Debian 12
#                   base from mmdebstrap, the documented launch, the pods as the Jobs describe them

VERSION   := 0.1.0
PREFIX    ?= /usr/local
BINDIR    ?= $(PREFIX)/bin
LIBDIR    ?= $(PREFIX)/lib
MANDIR    ?= $(PREFIX)/share/man
BUILD     ?= build

CC        ?= cc
PKGS      := p11-kit-1 openssl libcurl jansson libmicrohttpd gnutls
OPTFLAGS  ?= -O2 -g
SANFLAGS  ?=
WARNFLAGS := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 -Wno-unused-parameter
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
SOFTHSM_MODULE ?= $(firstword $(wildcard /usr/lib/softhsm/libsofthsm2.so /usr/lib/*/softhsm/libsofthsm2.so /usr/local/lib/softhsm/libsofthsm2.so) /usr/lib/softhsm/libsofthsm2.so)

ALL_CFLAGS = -std=c11 -D_GNU_SOURCE $(OPTFLAGS) $(SANFLAGS) $(WARNFLAGS) -I. $(PKG_CFLAGS) \
             -DHSMBENCH_VERSION='"$(VERSION)"' -DHSMBENCH_SOFTHSM_DEFAULT='"$(SOFTHSM_MODULE)"' \
             -DHSMBENCH_LIBDIR='"$(LIBDIR)/hsmbench"' $(CPPFLAGS) $(CFLAGS)
ALL_LDFLAGS = $(SANFLAGS) $(LDFLAGS)
# http_parser (the lean HTTP/1.1 engine's, rest/transport/lean.c) has no
# pkg-config file in Debian: its header is in /usr/include.
LIBS_ALL   = $(PKG_LIBS) -lhttp_parser -lpthread -ldl -lm

# The floors, each its own static library, linked top floor first: a lower
# floor that called into a higher one would leave its symbol unresolved, so
# the link itself keeps the layering (docs/architecture.md).
#   util     bench/util     messages, parsers, clock, files, secrets, signals
#   core     bench/core     the timing core: pools, schedule, histograms, side metrics
#   results  bench/results  the run model and its views; report, compare, merge
#   driver   bench/driver   the run driver, the option table, capacity search
#   p11      p11/ keys/     the PKCS#11 workload and its commands
#   rest     rest/          the REST shim (rest/transport: the HTTP client)
#   serve    serve/         the local emulator (uses p11/ and keys/)
# Above them all, cli/main.c, the composition root: the program's main, its table of commands.
FLOORS    := serve rest p11 driver results core util
SRC_util    := $(wildcard bench/util/*.c)
SRC_core    := $(wildcard bench/core/*.c)
SRC_results := $(wildcard bench/results/*.c)
SRC_driver  := $(wildcard bench/driver/*.c)
SRC_p11     := $(wildcard p11/*.c keys/*.c)
SRC_rest    := $(wildcard rest/*.c rest/transport/*.c rest/views/*.c)
SRC_serve   := $(wildcard serve/*.c)
FLOOR_LIBS := $(foreach f,$(FLOORS),$(BUILD)/libhsmbench-$(f).a)
LIB_OBJ   := $(foreach f,$(FLOORS),$(SRC_$(f):%.c=$(BUILD)/obj/%.o))
UNIT_SRC  := $(wildcard tests/unit/test_*.c)
UNIT_BIN  := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
MOCK_SO   := $(BUILD)/libhsmbench-null.so
MOCKHSM_SO := $(BUILD)/libhsmbench-mock.so
TRACE_SO  := $(BUILD)/libhsmbench-trace.so
HOSTILE_SO := $(BUILD)/libhsmbench-hostile.so
TOOLS     := $(BUILD)/tests/minloop $(BUILD)/tests/curlloop $(BUILD)/tests/replay_dump

.PHONY: check-one all tsan-all check check-load bench demo install uninstall clean deps sanitizers sanitizers-asan sanitizers-tsan deb check-deb check-deb-fresh check-fleet fuzz fuzz-build fuzzers

all: $(BUILD)/hsmbench $(MOCK_SO) $(MOCKHSM_SO) $(TRACE_SO) $(HOSTILE_SO) $(UNIT_BIN) $(TOOLS)

# Header dependencies come from the compiler (-MMD), one .d file an object.
$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

-include $(LIB_OBJ:.o=.d) $(BUILD)/obj/cli/main.d $(UNIT_BIN:=.d)

# The paths compiled in (LIBDIR, SOFTHSM_MODULE): the objects that use them
# are rebuilt when they change, so "make install PREFIX=/usr" after "make" is right.
PATHS_STAMP := $(BUILD)/paths-$(shell printf '%s' '$(LIBDIR) $(SOFTHSM_MODULE)' | md5sum | cut -c1-12)
$(PATHS_STAMP):
	@mkdir -p $(dir $@) && rm -f $(BUILD)/paths-* && touch $@
$(BUILD)/obj/p11/module.o $(BUILD)/obj/p11/demo.o: $(PATHS_STAMP)

define floor_lib
$(BUILD)/libhsmbench-$(1).a: $(SRC_$(1):%.c=$(BUILD)/obj/%.o)
	@mkdir -p $$(dir $$@)
	rm -f $$@ && ar rcs $$@ $$^
endef
$(foreach f,$(FLOORS),$(eval $(call floor_lib,$(f))))

$(BUILD)/hsmbench: $(BUILD)/obj/cli/main.o $(FLOOR_LIBS)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS_ALL)

$(BUILD)/tests/%: tests/unit/%.c $(FLOOR_LIBS) tests/unit/check.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -MMD -MP -o $@ $< $(FLOOR_LIBS) $(LIBS_ALL)

# The do-nothing PKCS#11 module: every call succeeds at once (harness ceiling, tests).
$(MOCK_SO): mock/nullp11.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fPIC -shared $(ALL_LDFLAGS) -o $@ $<

# The mock HSM: configurable service times, cores, stalls, errors (hsmbench-mock(7)).
$(MOCKHSM_SO): mock/mockhsm.c p11/pkcs11_3x.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fPIC -shared $(ALL_LDFLAGS) -o $@ $< -lpthread -lm

# The call recorder: a module in front of the real one, recording every call
# at the module boundary (hsmbench-trace(7), p11/traceformat.h).
$(TRACE_SO): mock/trace.c p11/pkcs11_3x.h p11/traceformat.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fPIC -shared $(ALL_LDFLAGS) -o $@ $< -ldl -lpthread

# A module with a broken function list (HSMBENCH_HOSTILE; tests only, not installed).
$(HOSTILE_SO): tests/hostile/hostilep11.c p11/used_functions.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -fPIC -shared $(ALL_LDFLAGS) -o $@ $< -ldl

# The minimal loop make bench compares hsmbench against: same calls, no harness.
$(BUILD)/tests/minloop: tests/bench/minloop.c $(FLOOR_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(FLOOR_LIBS) $(LIBS_ALL)

# The replay model of a file, printed or as JSON (tests/e2e/test_replay_model.sh).
$(BUILD)/tests/replay_dump: tests/unit/replay_dump.c $(FLOOR_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(FLOOR_LIBS) $(LIBS_ALL)

# The minimal libcurl loop the REST benchmark compares hsmbench against.
$(BUILD)/tests/curlloop: tests/bench/curlloop.c $(FLOOR_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(FLOOR_LIBS) $(LIBS_ALL)

# libFuzzer harnesses (tests/fuzz/fuzz_*.c), built by clang with ASan and
# UBSan into build/fuzz; tests/fuzz/run.sh runs each on its seed corpus
# (tests/fuzz/corpus/NAME) and then fuzzes it for FUZZ_SECONDS.
FUZZ_DIR      := build/fuzz
FUZZ_SRC      := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_SECONDS  ?= 60
FUZZ_SANFLAGS := -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined

fuzzers: $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/fuzzers/%)

$(BUILD)/fuzzers/%: tests/fuzz/%.c tests/fuzz/fuzz.h $(FLOOR_LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -fsanitize=fuzzer -o $@ $< $(FLOOR_LIBS) $(LIBS_ALL)

fuzz-build:
	$(MAKE) BUILD=$(FUZZ_DIR) CC=clang OPTFLAGS='-O1 -g1 -fno-omit-frame-pointer' SANFLAGS='$(FUZZ_SANFLAGS)' fuzzers

fuzz:
	@sh ci/build-deps.sh
	@$(MAKE) --no-print-directory fuzz-build
	@sh tests/fuzz/run.sh $(FUZZ_DIR)/fuzzers $(FUZZ_SECONDS)

deps:
	@sh ci/build-deps.sh

# The two sanitizer builds, one target each, so that make -j builds them side by side.
# -g1: line tables and functions, all a sanitizer's report shows, for 15 %
# less compile time than -g (no local variables: gdb on them wants -g).
sanitizers: sanitizers-asan sanitizers-tsan
sanitizers-asan:
	$(MAKE) BUILD=build/asan OPTFLAGS='-O1 -g1 -fno-omit-frame-pointer' SANFLAGS='-fsanitize=address,undefined -fno-sanitize-recover=undefined' all
sanitizers-tsan:
	$(MAKE) BUILD=build/tsan OPTFLAGS='-O1 -g1' SANFLAGS='-fsanitize=thread' tsan-all

# TSan runs the unit tests whose threads share state, each marked by a line
# " * tsan: yes (why)" in its header comment (tests/run.sh); the others are
# not built there.  make check-one T=NAME V=tsan builds NAME whatever it says.
TSAN_UNITS ?= $(basename $(notdir $(shell grep -l '^\(/\*\| \*\) tsan: yes' $(UNIT_SRC))))
tsan-all: $(BUILD)/hsmbench $(MOCK_SO) $(MOCKHSM_SO) $(TRACE_SO) $(HOSTILE_SO) $(TSAN_UNITS:%=$(BUILD)/tests/%)

# check, bench and demo install what is missing first, then build in a
# sub-make (so pkg-config sees the freshly installed libraries).  check
# builds the plain build, CHECK_JOBS at a time (default: the number of
# processors; a -j given to make itself wins), and hands the runner the
# command that builds the other three (HSMBENCH_TEST_BUILD): it runs it at
# the lowest priority beside the plain build's serial and timed tests, which
# leave the cores mostly idle.  It first makes sure the runner parses (it
# once printed its result and then exited 2).
CHECK_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CHECK_J = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(CHECK_JOBS))
check:
	@sh -n tests/run.sh
	@sh ci/build-deps.sh
	@$(MAKE) --no-print-directory $(CHECK_J) --output-sync=target all
	@HSMBENCH_TEST_BUILD='$(MAKE) --no-print-directory $(CHECK_J) --output-sync=target sanitizers fuzz-build' \
	    sh tests/run.sh

# The suite as CI's busy neighbours have it: tests/run.sh starts the busy
# loop itself (HSMBENCH_TEST_LOAD) and ends it with the run, however the run
# ends.  HSMBENCH_TEST_LOAD=1 sh tests/run.sh --only NAME [VARIANT] does the
# same for one test file.
check-load:
	@HSMBENCH_TEST_LOAD=1 $(MAKE) --no-print-directory check

# One test file alone, for working on it: make check-one T=test_rest [V=asan|tsan]
# (a unit test's name, or an e2e script's, with or without tests/e2e/ and .sh).
check-one:
	@test -n "$(T)" || { echo "make check-one T=NAME [V=asan|tsan]"; exit 2; }
	@$(MAKE) --no-print-directory $(if $(filter asan tsan,$(V)),sanitizers,all) \
	    $(if $(filter tsan,$(V)),$(if $(wildcard tests/unit/$(T).c),TSAN_UNITS=$(T)))
	@sh tests/run.sh --only "$(T)" $(V)

bench:
	@sh ci/build-deps.sh
	@$(MAKE) --no-print-directory all
	@sh tests/bench/run-bench.sh $(BUILD)

# demo: what is missing, everything (the mock HSM too), "make install" as
# root or through sudo (as ci/install-deps.sh does), so that "hsmbench" is on
# the PATH and "--module hsmbench-mock" finds the mock; then a short real
# benchmark of the installed hsmbench on a private SoftHSM token.
INSTALL_VARS = BUILD='$(BUILD)' PREFIX='$(PREFIX)' BINDIR='$(BINDIR)' LIBDIR='$(LIBDIR)' \
               MANDIR='$(MANDIR)' COMPDIR='$(COMPDIR)' DATADIR='$(DATADIR)' DESTDIR='$(DESTDIR)'
demo:
	@sh ci/build-deps.sh
	@$(MAKE) --no-print-directory all
	@if [ "$$(id -u)" -eq 0 ]; then $(MAKE) --no-print-directory $(INSTALL_VARS) install; \
	elif command -v sudo >/dev/null 2>&1; then sudo $(MAKE) --no-print-directory $(INSTALL_VARS) install; \
	else echo "make demo: not root and no sudo: run 'make install' as root to put hsmbench on the PATH" >&2; exit 1; fi
	HSMBENCH_HOME=$(CURDIR)/$(BUILD)/demo $(DESTDIR)$(BINDIR)/hsmbench run --test rsa-pkcs-sign,ecdsa-sign,aes-gcm-encrypt --threads 2 --duration 5
	@echo "hsmbench is installed in $(DESTDIR)$(BINDIR) ('make uninstall' removes it); try: hsmbench run --test ecdsa-sign --duration 2"

MAN1      := $(wildcard man/*.1)
MAN5      := $(wildcard man/*.5)
MAN7      := $(wildcard man/*.7)
SCENARIOS := $(wildcard scenarios/*.scn)
COMPDIR   ?= $(PREFIX)/share/bash-completion/completions
DATADIR   ?= $(PREFIX)/share

install: $(BUILD)/hsmbench $(MOCK_SO) $(MOCKHSM_SO) $(TRACE_SO)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man7 \
	    $(DESTDIR)$(LIBDIR)/hsmbench $(DESTDIR)$(COMPDIR) $(DESTDIR)$(DATADIR)/hsmbench/grafana \
	    $(DESTDIR)$(DATADIR)/hsmbench/scenarios
	install -m 0755 $(BUILD)/hsmbench $(DESTDIR)$(BINDIR)/hsmbench
	install -m 0644 $(MOCK_SO) $(DESTDIR)$(LIBDIR)/hsmbench/libhsmbench-null.so
	install -m 0644 $(MOCKHSM_SO) $(DESTDIR)$(LIBDIR)/hsmbench/libhsmbench-mock.so
	install -m 0644 $(TRACE_SO) $(DESTDIR)$(LIBDIR)/hsmbench/libhsmbench-trace.so
	$(if $(MAN1),install -m 0644 $(MAN1) $(DESTDIR)$(MANDIR)/man1/)
	$(if $(MAN5),install -m 0644 $(MAN5) $(DESTDIR)$(MANDIR)/man5/)
	$(if $(MAN7),install -m 0644 $(MAN7) $(DESTDIR)$(MANDIR)/man7/)
	install -m 0644 completion/hsmbench.bash $(DESTDIR)$(COMPDIR)/hsmbench
	install -m 0644 grafana/hsmbench-fleet.json $(DESTDIR)$(DATADIR)/hsmbench/grafana/hsmbench-fleet.json
	install -m 0644 $(SCENARIOS) $(DESTDIR)$(DATADIR)/hsmbench/scenarios/

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/hsmbench $(DESTDIR)$(LIBDIR)/hsmbench/libhsmbench-null.so
	rm -f $(DESTDIR)$(LIBDIR)/hsmbench/libhsmbench-mock.so
	rm -f $(DESTDIR)$(LIBDIR)/hsmbench/libhsmbench-trace.so
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(MAN1)))
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man5/,$(notdir $(MAN5)))
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man7/,$(notdir $(MAN7)))
	rm -f $(DESTDIR)$(COMPDIR)/hsmbench
	rm -f $(DESTDIR)$(DATADIR)/hsmbench/grafana/hsmbench-fleet.json
	rm -f $(addprefix $(DESTDIR)$(DATADIR)/hsmbench/scenarios/,$(notdir $(SCENARIOS)))

# The Debian package, built by Debian's tools on a copy of the tree (the
# source tree stays clean): $(BUILD)/hsmbench_$(VERSION)_ARCH.deb.
DEB_ARCH  = $(shell dpkg --print-architecture 2>/dev/null)
deb:
	@sh ci/build-deps.sh
	rm -rf $(BUILD)/deb && mkdir -p $(BUILD)/deb/src
	tar --exclude=./build --exclude=./.git -cf - . | tar -C $(BUILD)/deb/src -xf -
	cd $(BUILD)/deb/src && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u BUILD \
	    DEB_BUILD_OPTIONS="parallel=2 $(DEB_BUILD_OPTIONS)" dpkg-buildpackage -us -uc -b
	mv $(BUILD)/deb/hsmbench_$(VERSION)_$(DEB_ARCH).deb $(BUILD)/
	@echo "built $(BUILD)/hsmbench_$(VERSION)_$(DEB_ARCH).deb"

# Build the package, lintian, install it in a scratch root and run it there.
check-deb:
	@sh tests/deb/check-deb.sh $(BUILD)

# make deb on a fresh Debian 12 (a podman container of an mmdebstrap base,
# as root): it installs the Build-Depends alone, and they are enough.
check-deb-fresh:
	@sh tests/deb/fresh-build-deps.sh $(BUILD)

# The fleet of docs/multi-host.md run with root podman (about 4 minutes;
# the Debian base is cached in /var/cache/hsmbench-fleet): SKIP where podman
# cannot run, a failure under CI=true.  .ci/run runs it after make check.
check-fleet:
	@sh ci/install-deps.sh
	@sh tests/fleet/check-fleet.sh $(BUILD)

clean:
	rm -rf build
