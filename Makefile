# strobe - build, test, install.
#
#   make                 libstrobe (static + shared), the strobe CLI, man pages
#   make check           install missing Debian packages, then every test:
#                        unit tests and fuzz-corpus replay under ASan+UBSan,
#                        command-line tests (with the damage matrix),
#                        kernel and oracle tests when root with tracefs
#   make demo [CMD=...]  install missing Debian packages, build, record a
#                        demo workload (and two containers) and show it
#   make fuzz [FUZZ_SECONDS=N]   run the libFuzzer harnesses (clang)
#   make bench-instr     instruction counts (callgrind) of the trace readers
#                        against bench/instr-baseline.txt (no root)
#   make install [PREFIX=/usr/local] [DESTDIR=]
#   WERROR=1             treat warnings as errors (CI does)

PREFIX  ?= /usr/local
DESTDIR ?=
CC      ?= cc
O       := build

PKGS    := libtraceevent libzstd sqlite3 libcurl zlib libdeflate libmicrohttpd libcrypt libelf
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)

# BPF programs (lib/bpf/*.bpf.c): compiled by clang against a vmlinux.h
# dumped from the running kernel's BTF, embedded through bpftool skeletons
# (build/bpf/*.skel.h) and loaded with libbpf.  Without bpftool, clang,
# libbpf or BTF the rest builds without them (strobe-bpf(3) says what the
# tools do then); BPF=0 leaves them out on purpose.
BPFTOOL ?= $(firstword $(wildcard /usr/sbin/bpftool /usr/bin/bpftool) $(shell command -v bpftool 2>/dev/null))
BPF_CLANG ?= clang
BTF_FILE ?= /sys/kernel/btf/vmlinux
BPF_ARCH := $(patsubst x86_64,x86,$(patsubst aarch64,arm64,$(shell uname -m)))
ifneq ($(BPF),0)
BPF := $(if $(and $(BPFTOOL),$(shell command -v $(BPF_CLANG) 2>/dev/null),$(wildcard $(BTF_FILE)),$(shell pkg-config --exists libbpf && echo y)),1,0)
endif
BPF_SRC := $(sort $(wildcard lib/bpf/*.bpf.c))
BPF_SKEL := $(BPF_SRC:lib/bpf/%.bpf.c=$(O)/bpf/%.skel.h)
ifeq ($(BPF),1)
PKG_CFLAGS += $(shell pkg-config --cflags libbpf)
PKG_LIBS   += $(shell pkg-config --libs libbpf)
endif

WARN    := -Wall -Wextra -Wno-unused-parameter -Wshadow -Wformat=2 -Wvla
ifeq ($(WERROR),1)
WARN    += -Werror
endif
CFLAGS  ?= -O2 -g
BASE_CFLAGS := -std=gnu11 -D_GNU_SOURCE -Iinclude -Ilib $(PKG_CFLAGS) $(WARN) -MMD -MP
ifeq ($(BPF),1)
BASE_CFLAGS += -DSTROBE_HAVE_BPF -I$(O)/bpf
endif
LIBS    := $(PKG_LIBS) -lpthread -lm
# The CLI alone draws on a terminal (strobe top's interactive view)
CURSES_CFLAGS := $(shell pkg-config --cflags ncursesw 2>/dev/null || pkg-config --cflags ncurses 2>/dev/null)
CURSES_LIBS   := $(shell pkg-config --libs ncursesw 2>/dev/null || pkg-config --libs ncurses 2>/dev/null)

LIB_SRC := $(sort $(filter-out %.bpf.c,$(wildcard lib/*/*.c)))
CLI_SRC := $(sort $(wildcard cli/*.c))
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
HELPER_SRC := $(sort $(wildcard tests/helpers/*.c))
FUZZ_SRC := $(sort $(wildcard tests/fuzz/fuzz_*.c))
LIVE_SRC := $(sort $(wildcard tests/live/*.c))
EXAMPLE_SRC := $(sort $(wildcard examples/*.c))

LIB_OBJ := $(LIB_SRC:%.c=$(O)/%.o)
PIC_OBJ := $(LIB_SRC:%.c=$(O)/pic/%.o)
CLI_OBJ := $(CLI_SRC:%.c=$(O)/%.o)
SAN_LIB_OBJ := $(LIB_SRC:%.c=$(O)/san/%.o)
SAN_CLI_OBJ := $(CLI_SRC:%.c=$(O)/san/%.o)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(O)/tests/%)
HELPER_BIN := $(HELPER_SRC:tests/helpers/%.c=$(O)/helpers/%)
FUZZ_REPLAY := $(FUZZ_SRC:tests/fuzz/%.c=$(O)/fuzz-replay/%)
FUZZ_BIN := $(FUZZ_SRC:tests/fuzz/%.c=$(O)/fuzz/%)
LIVE_BIN := $(LIVE_SRC:tests/live/%.c=$(O)/live/%)
EXAMPLE_BIN := $(EXAMPLE_SRC:examples/%.c=$(O)/examples/%)
MAN_SRC := $(sort $(wildcard doc/*.[1-9]))

SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined

SONAME  := libstrobe.so.0

# The Python module: build/python/strobe/ is the package (python/strobe/*.py)
# plus the _strobe C extension (python/*.c with libstrobe's PIC objects
# linked in); skipped with a note when python3-dev is missing.
PYTHON  ?= $(firstword $(wildcard /usr/bin/python3) python3)
PY_CFLAGS := $(shell pkg-config --cflags python3 2>/dev/null)
PY_EXT  := $(shell $(PYTHON) -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))' 2>/dev/null)
PY_VER  := $(shell $(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)
PY_SITE ?= $(PREFIX)/lib/python$(PY_VER)/$(if $(wildcard /usr/lib/python3/dist-packages),dist-packages,site-packages)
PY_SRC  := $(sort $(wildcard python/strobe/*.py python/strobe/*/*.py))
PY_EXTMOD := $(O)/python/strobe/_strobe$(PY_EXT)
# Python C API tables ({ "name", fn, flags, doc }) leave fields out
PY_WARN := -Wno-missing-field-initializers -Wno-cast-function-type
PY_ALL  := $(if $(PY_CFLAGS),$(PY_EXTMOD) $(PY_SRC:python/%=$(O)/python/%))

.PHONY: all check demo fuzz install clean deps bench bench-python bench-instr
all: $(O)/strobe $(O)/libstrobe.a $(O)/$(SONAME) $(O)/strobe.pc $(HELPER_BIN) $(EXAMPLE_BIN) $(PY_ALL)
ifneq ($(BPF),1)
	@echo "note: bpftool, clang, libbpf-dev or $(BTF_FILE) is missing: strobe is built without BPF"
endif
ifeq ($(PY_CFLAGS),)
	@echo "note: python3-dev is missing: the strobe Python module is not built"
endif

$(O)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) -fvisibility=hidden -c $< -o $@
$(O)/pic/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) -fPIC -c $< -o $@
$(O)/san/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) -O1 -g $(SAN_FLAGS) -c $< -o $@

# The BPF objects: vmlinux.h from this kernel's BTF (not committed), one
# object and one skeleton per lib/bpf/NAME.bpf.c, included by lib/bpf/*.c
$(O)/bpf/vmlinux.h:
	@mkdir -p $(dir $@)
	$(BPFTOOL) btf dump file $(BTF_FILE) format c > $@.tmp && mv $@.tmp $@
$(O)/bpf/%.bpf.o: lib/bpf/%.bpf.c lib/bpf/*.h $(O)/bpf/vmlinux.h
	$(BPF_CLANG) -O2 -g -target bpf -D__TARGET_ARCH_$(BPF_ARCH) -I$(O)/bpf -Ilib/bpf \
		$(WARN) -c $< -o $@
$(O)/bpf/%.skel.h: $(O)/bpf/%.bpf.o
	$(BPFTOOL) gen skeleton $< name strobe_$* > $@.tmp && mv $@.tmp $@
ifeq ($(BPF),1)
$(patsubst %.c,$(O)/%.o,$(filter-out %.bpf.c,$(wildcard lib/bpf/*.c))) \
$(patsubst %.c,$(O)/pic/%.o,$(filter-out %.bpf.c,$(wildcard lib/bpf/*.c))) \
$(patsubst %.c,$(O)/san/%.o,$(filter-out %.bpf.c,$(wildcard lib/bpf/*.c))): $(BPF_SKEL)
endif

$(O)/libstrobe.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^
$(O)/san/libstrobe.a: $(SAN_LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^
$(O)/$(SONAME): $(PIC_OBJ) lib/libstrobe.map
	$(CC) -shared -Wl,-soname,$(SONAME) -Wl,--version-script=lib/libstrobe.map \
		-o $@ $(PIC_OBJ) $(LIBS)
	ln -sf $(SONAME) $(O)/libstrobe.so
$(O)/strobe: $(CLI_OBJ) $(O)/libstrobe.a
	$(CC) $(CFLAGS) -o $@ $(CLI_OBJ) $(O)/libstrobe.a $(LIBS) $(CURSES_LIBS)
$(O)/san/strobe: $(SAN_CLI_OBJ) $(O)/san/libstrobe.a
	$(CC) $(SAN_FLAGS) -o $@ $(SAN_CLI_OBJ) $(O)/san/libstrobe.a $(LIBS) $(CURSES_LIBS)
$(O)/cli/top-tui.o $(O)/san/cli/top-tui.o: BASE_CFLAGS += $(CURSES_CFLAGS)

$(PY_EXTMOD): $(wildcard python/*.c) python/_strobe.h python/_strobe.map $(PIC_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(PY_CFLAGS) $(CFLAGS) $(PY_WARN) -fPIC -fvisibility=hidden -shared \
		-Wl,--version-script=python/_strobe.map -o $@ $(wildcard python/*.c) $(PIC_OBJ) $(LIBS)
$(O)/python/%.py: python/%.py
	@mkdir -p $(dir $@)
	cp $< $@

$(O)/strobe.pc: strobe.pc.in
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@BPF_REQUIRES@|$(if $(filter 1,$(BPF)), libbpf)|' -e 's|@VERSION@|$(shell sed -n 's/.*STROBE_VERSION "\(.*\)"/\1/p' include/strobe/strobe.h)|' $< > $@

# Test programs (workloads) are plain, static where possible so they also
# run inside a busybox container rootfs.
$(O)/helpers/%: tests/helpers/%.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -Wall -static -o $@ $< -lpthread 2>/dev/null || $(CC) -O2 -Wall -o $@ $< -lpthread

# strobe profile's workloads (86-profile), with frame pointers;
# profile_libc is dynamic on purpose (its libc frames are named through its maps)
$(O)/helpers/profile_work: tests/helpers/profile_work.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -Wall -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -static -o $@ $<
$(O)/helpers/profile_libc: tests/helpers/profile_libc.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -Wall -fno-omit-frame-pointer -o $@ $<

$(O)/tests/%: tests/unit/%.c $(wildcard tests/unit/*.h) $(O)/san/libstrobe.a
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) -Itests/unit -O1 -g $(SAN_FLAGS) -o $@ $< $(O)/san/libstrobe.a $(LIBS)

# Live-capture checks (public API only, sanitizers) run by tests/kernel
$(O)/live/%: tests/live/%.c $(O)/san/libstrobe.a
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) -O1 -g $(SAN_FLAGS) -o $@ $< $(O)/san/libstrobe.a $(LIBS)

# ... and optimised, without sanitizers, for make bench
$(O)/bench/%: tests/live/%.c $(O)/libstrobe.a
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) -o $@ $< $(O)/libstrobe.a $(LIBS)

# The synthetic trace of make bench-instr, of the damage matrix test
# (tests/damage) and of tests/cli (run by make check; no root needed)
$(O)/bench/synth-trace: bench/synth-trace.c $(O)/libstrobe.a
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) -o $@ $< $(O)/libstrobe.a $(LIBS)

# The capture floor of make bench: a bare instance drained by splice
$(O)/bench/floor: bench/floor.c
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) -o $@ $< -lpthread

# Examples: programs a user could write, against the public headers
$(O)/examples/%: examples/%.c $(O)/libstrobe.a
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) -o $@ $< $(O)/libstrobe.a $(LIBS)

# Fuzz harnesses built with a replay driver (gcc, sanitizers) for make check
$(O)/fuzz-replay/%: tests/fuzz/%.c tests/fuzz/replay.c $(O)/san/libstrobe.a
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) -O1 -g $(SAN_FLAGS) -o $@ $< tests/fuzz/replay.c $(O)/san/libstrobe.a $(LIBS)

# ... and with libFuzzer (clang) for make fuzz
FUZZ_CC ?= clang
$(O)/fuzz/%: tests/fuzz/%.c $(LIB_SRC) $(if $(filter 1,$(BPF)),$(BPF_SKEL))
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -std=gnu11 -D_GNU_SOURCE -Iinclude -Ilib $(PKG_CFLAGS) \
		$(if $(filter 1,$(BPF)),-DSTROBE_HAVE_BPF -I$(O)/bpf) -g -O1 \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
		-o $@ $< $(LIB_SRC) $(LIBS)

FUZZ_SECONDS ?= 60
# New inputs go to build/fuzz-corpus/NAME (the committed corpus holds seeds
# and regressions only); tests/fuzz/NAME.dict is used when it exists.  An
# input that crashes or hangs (over 25 s) is written into the committed
# corpus as crash-*/timeout-*, so make check replays it from then on.
fuzz: $(FUZZ_BIN)
	@for f in $(FUZZ_BIN); do n=$$(basename $$f); mkdir -p tests/fuzz/corpus/$$n $(O)/fuzz-corpus/$$n; \
		echo "== $$n ($(FUZZ_SECONDS)s)"; \
		d=; [ -f tests/fuzz/$$n.dict ] && d=-dict=tests/fuzz/$$n.dict; \
		$$f -max_total_time=$(FUZZ_SECONDS) -timeout=25 -rss_limit_mb=4096 $$d \
			-artifact_prefix=tests/fuzz/corpus/$$n/ \
			$(O)/fuzz-corpus/$$n tests/fuzz/corpus/$$n || exit 1; done

deps:
	@scripts/install-deps

check: deps
	@$(MAKE) --no-print-directory all $(O)/san/strobe $(UNIT_BIN) $(FUZZ_REPLAY) $(LIVE_BIN) \
		$(O)/bench/synth-trace
	@tests/run-tests.sh

# Like check, demo stands alone on a bare machine: packages first, then a
# fresh make (pkg-config's flags are read when make starts).
demo: deps
	@$(MAKE) --no-print-directory all
	@scripts/demo $(CMD)

bench: all $(O)/bench/live_check $(O)/bench/floor
	@bench/run
	@$(PYTHON) bench/python-callbacks

# only the Python part of make bench: events/s into a no-op Python
# callback vs perf script -s (root, ~1 min)
bench-python: all
	@$(PYTHON) bench/python-callbacks

# instruction counts (callgrind) of analyze, report, periods, sql and
# export on a synthetic trace, against bench/instr-baseline.txt (no root,
# ~4 min); INSTR_ROWS=analyze,sql for some rows only
bench-instr: $(O)/strobe $(O)/bench/synth-trace
	@bench/instr

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig \
		$(DESTDIR)$(PREFIX)/include/strobe
	install -m 755 $(O)/strobe $(DESTDIR)$(PREFIX)/bin/strobe
	install -m 644 $(O)/libstrobe.a $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(O)/$(SONAME) $(DESTDIR)$(PREFIX)/lib/
	ln -sf $(SONAME) $(DESTDIR)$(PREFIX)/lib/libstrobe.so
	install -m 644 include/strobe/*.h $(DESTDIR)$(PREFIX)/include/strobe/
	install -m 644 $(O)/strobe.pc $(DESTDIR)$(PREFIX)/lib/pkgconfig/
	for m in $(MAN_SRC); do s=$${m##*.}; install -d $(DESTDIR)$(PREFIX)/share/man/man$$s; \
		install -m 644 $$m $(DESTDIR)$(PREFIX)/share/man/man$$s/; done
	install -D -m 644 scripts/strobe-completion.bash \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/strobe
ifneq ($(PY_CFLAGS),)
	cd $(O)/python && for f in strobe/_strobe$(PY_EXT) $(PY_SRC:python/%=%); do \
		install -D -m 644 $$f $(DESTDIR)$(PY_SITE)/$$f; done
endif

clean:
	rm -rf $(O)

-include $(shell find $(O) -name '*.d' 2>/dev/null)
