# SPDX-License-Identifier: GPL-2.0
#
# pgfault_history: build the patched kernel, the tools and the guest rootfs,
# and run things in the guest. `make help` lists the targets.
#
# Stages (stamp files under build/stamp): host-deps -> unpack -> patch ->
# overlay -> config -> kernel; tools -> rootfs; then run/shell/test.

SHELL := /bin/bash
.DELETE_ON_ERROR:
.SUFFIXES:

BUILD    := build
ST       := $(BUILD)/stamp
KTREE    := $(BUILD)/linux-src
UML_OBJ  := $(BUILD)/um
GUEST    := $(BUILD)/guest
INITRD   := $(BUILD)/initramfs.cpio.gz
SCRATCH  := $(BUILD)/scratch-ext4.img $(BUILD)/scratch-xfs.img
JOBS     ?= $(shell nproc)

# A Linux 6.12 tree of the user's; default: Debian's linux-source-6.12.
KSRC     ?=
# What `make run` runs in the guest, and the host folder mounted at /host.
CMD      ?=
SHARE    ?= $(CURDIR)/share
# Host-side limit for one guest boot, in seconds.
TIMEOUT  ?= 1800
PEERS_TIMEOUT ?= 5400

# ccache: hash paths relative to the checkout, so a fresh clone (CI) hits
# the cache that an earlier build in another directory filled.
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_NOHASHDIR := 1

# Kernels. The test kernels (UML and x86_64) carry the debug options; the
# benchmark kernels carry none, and each has a twin built from the same
# tree without the patch series (build/linux-vanilla) for comparison.
X86_OBJ  := $(BUILD)/x86
VTREE    := $(BUILD)/linux-vanilla
UML_FRAGS := kernel-config/uml.config kernel-config/debug.config \
	     kernel-config/pgfault.config kernel-config/scratch-um.config
X86_FRAGS := kernel-config/x86_64.config kernel-config/debug.config \
	     kernel-config/pgfault.config kernel-config/scratch-x86_64.config

PATCHES  := kernel-patches/series $(wildcard kernel-patches/*.patch)

# New kernel files, copied into the tree: mm/ -> mm/ (the subsystem's
# directory, mm/pgfault_history/, its Kconfig and Makefile included),
# include/ -> include/, Documentation/ -> Documentation/.
OVERLAY_CODE := $(shell find mm include -name '*.[ch]' 2>/dev/null)
OVERLAY_SRC := $(OVERLAY_CODE) $(shell find mm -name Kconfig -o -name Makefile)
OVERLAY_DOC := $(shell find Documentation -name '*.rst' 2>/dev/null)
OVERLAY_DST := $(patsubst %,$(KTREE)/%,$(OVERLAY_SRC))
OVERLAY_DOC_DST := $(patsubst %,$(KTREE)/%,$(OVERLAY_DOC))

# Userspace: tools and tests are linked statically for the guest.
CFLAGS   ?= -O2 -g
WFLAGS   := -Wall -Wextra -Werror
# The uapi header as the kernel has it (scripts/stage.sh all): the tools
# and tests compile against that copy.
UAPI     := $(BUILD)/uapi/linux/pgfault_history.h
CPPFLAGS := -Itests/lib -I$(BUILD)/uapi -D_GNU_SOURCE
GUEST_LDFLAGS := -static -pthread
# What the tool library links with: libelf (tools/lib/symbols.c), libzstd
# and zlib (tools/lib/zfile.c: compressed traces); threads (tools/lib/mrc_opt.c).
TOOL_LIBS := -lelf -lzstd -lz -lm -pthread

# The trace reader the tools and the tests share.
TOOLLIB    := $(patsubst tools/lib/%.c,$(GUEST)/lib/%.o,$(wildcard tools/lib/*.c))
TOOLS      := $(patsubst tools/%.c,$(GUEST)/bin/%,$(wildcard tools/*.c)) $(GUEST)/bin/pgfreport
# pgfreport: a front end and a builtin-*.c per command (tools/pgfreport),
# and what pgfreport html embeds: its page (tools/pgfreport/html) and
# Apache ECharts, vendored in tools/pgfreport/html/vendor (its version,
# SHA-256 sums and licences there; make vendor-echarts fetches another
# version from npm, the only target that does), made into C strings at
# build time. Nothing is downloaded to build.
PGFREPORT_SRC := $(wildcard tools/pgfreport/*.c)
ECHARTS_VERSION := 6.1.0
VENDOR     := tools/pgfreport/html/vendor
VENDORED   := $(shell find $(VENDOR) -type f)
NPM_DIR    := $(BUILD)/npm
HTML_ASSETS := $(BUILD)/gen/html-assets.c
GUEST_TESTS := $(patsubst tests/guest/%.c,$(GUEST)/tests/%,$(wildcard tests/guest/*.c))
SELFTESTS  := $(patsubst tests/selftest/%.c,$(GUEST)/selftests/%,$(wildcard tests/selftest/*.c))
# gentrace, hostfault and mrcbench run on the host.
HOST_BENCH := tests/bench/gentrace.c tests/bench/hostfault.c tests/bench/mrcbench.c
BENCHES    := $(patsubst tests/bench/%.c,$(GUEST)/bench/%,$(filter-out $(HOST_BENCH),$(wildcard tests/bench/*.c)))
GUEST_BINS := $(TOOLS) $(GUEST_TESTS) $(SELFTESTS) $(BENCHES)

# The same tools built for the host: host-side tests, benchmarks, and
# reading traces on the host.
HOST       := $(BUILD)/host
HOSTLIB    := $(patsubst tools/lib/%.c,$(HOST)/lib/%.o,$(wildcard tools/lib/*.c))
HOST_TOOLS := $(patsubst tools/%.c,$(HOST)/bin/%,$(wildcard tools/*.c)) $(HOST)/bin/pgfreport \
	      $(HOST)/bin/gentrace $(HOST)/bin/hostfault $(HOST)/bin/mrcbench
# Unit tests of the analyses in tools/lib, run on the host: scripts/run-tests.py
# runs every build/host-tests/* as a host suite.
HOST_TESTS := $(patsubst tests/unit/%.c,$(BUILD)/host-tests/%,$(wildcard tests/unit/*.c))

# The guest run/shell/demo boot: ARCH=x86_64 (or x86) for QEMU, else UML.
GUEST_ARCH := $(if $(filter x86_64 x86,$(ARCH)),x86_64,um)
GUEST_KERNEL = $(if $(filter x86_64,$(GUEST_ARCH)),$(X86_IMAGE),$(UML_IMAGE))
RUNNER := python3 scripts/guest.py --arch $(GUEST_ARCH)
comma := ,

.PHONY: all kernel kernel-um kernel-x86 kernel-arm64 rootfs-arm64 kernel-deb bench-kernels bench-tree bench-run bench-doc guest tools rootfs run shell \
	demo test test-host test-guest test-arm64 bench bench-quick bench-icount bench-peers bench-profile bench-report bench-libcachesim checkpatch clean distclean \
	patches vendor-echarts check-series check-series-quick docs check-vanilla install uninstall deb help FORCE

# pgfault-run's default kernels: the patched ones without debug options.
RUN_KERNELS := $(BUILD)/bench-um/linux $(BUILD)/bench-x86/arch/x86/boot/bzImage
all: kernel $(RUN_KERNELS) rootfs tools $(ST)/overlay-doc

help:
	@echo "make                 build the kernels (test, and benchmark: pgfault-run's), tools, rootfs"
	@echo "make run CMD='...'   run one command in the guest, exit with its status"
	@echo "make shell           interactive guest shell (tools on PATH, host files in /host)"
	@echo "make demo [CMD=...]  trace a command (default: ps) in the guest, print its fault map"
	@echo "   (run, shell, demo: UML; with ARCH=x86_64 the x86_64 kernel under QEMU)"
	@echo "make bench-report    pgfreport throughput on a generated 10M-record trace [BENCH_TRACES=...]"
	@echo "make bench-libcachesim  libCacheSim's misses against pgfreport mrc's, and both's cost"
	@echo "make bench-run       what pgfault-run costs from start to exit, UML and x86_64"
	@echo "make bench-doc       Documentation/benchmarks.md's figures from the last run of each benchmark"
	@echo "make test            the whole test suite (host, UML, x86_64 QEMU, arm64's short set); .ci/run calls this"
	@echo "make test-arm64      every guest suite on arm64, with and without the hardware access flag"
	@echo "make bench           what tracing costs: UML and x86_64, benchmark kernels"
	@echo "make bench-quick     a before/after in minutes: UML, 2 boots [BENCH_COMPARE=build/bench/quick-REV.json]"
	@echo "make bench-peers     ours beside perf record, perf trace and bpftrace, same workloads (x86_64)"
	@echo "make bench-profile   where the record path's time goes (host perf on UML)"
	@echo "make bench-tree      what tracepgfault -f costs: 200 commands, make -j2 (bench kernels)"
	@echo "make bench-kernels   build the four benchmark kernels only"
	@echo "make kernel-um, make kernel-x86   one test kernel only"
	@echo "make kernel-arm64, make rootfs-arm64   the arm64 guest (run-tests.py --arch arm64)"
	@echo "make checkpatch      scripts/checkpatch.pl --strict on the kernel code"
	@echo "make patches         the UML fixes and the feature as mail: build/patches/{um,pgfault_history}"
	@echo "make check-series    every prefix of that mail builds (UML, x86_64 on and off, arm64): build/series [CHECK_CONFIGS=...]"
	@echo "make check-series-quick  the same, each prefix's touched files compiled only (no link)"
	@echo "make docs            check the kernel documentation (docutils) into build/docs"
	@echo "make check-vanilla   the series on upstream 6.12 (VANILLA=tarball|dir), UML suites"
	@echo "make install         tools, man pages, completion, pgfault-run and its guest (PREFIX=/usr/local DESTDIR=)"
	@echo "make deb             a Debian package of the tools in build/deb"
	@echo "make kernel-deb      the x86_64 kernel as a Debian package in build/kernel-deb (KDEB_CONFIG=file; ARCH=arm64: build/kernel-deb-arm64)"
	@echo "make vendor-echarts  fetch ECharts $(ECHARTS_VERSION) from npm into tools/pgfreport/html/vendor (by hand, to update it)"
	@echo "make clean           remove objects, keep the unpacked tree and ccache"
	@echo "make distclean       remove build/ entirely"
	@echo "Variables: ARCH=x86_64 KSRC=/path/to/linux-6.12 SHARE=dir TIMEOUT=secs JOBS=n"
	@echo "           PGF_KVM=0|1 (environment) skips the KVM probe"

# ---- host packages ---------------------------------------------------------
$(ST)/host-deps: scripts/host-deps.sh
	@mkdir -p $(@D)
	scripts/host-deps.sh
	@touch $@

# ---- kernel source ---------------------------------------------------------
# Re-unpack when KSRC changes.
$(BUILD)/ksrc.var: FORCE
	@mkdir -p $(@D)
	@echo '$(KSRC)' | cmp -s - $@ || echo '$(KSRC)' > $@

$(ST)/unpack: $(BUILD)/ksrc.var | $(ST)/host-deps
	@mkdir -p $(@D)
	rm -rf $(BUILD)/applied-patches $(ST)/patch
	scripts/unpack.sh $(KTREE) $(KSRC)
	@touch $@

$(ST)/patch: $(ST)/unpack $(PATCHES) scripts/apply-patches.sh
	scripts/apply-patches.sh $(KTREE) $(BUILD)/applied-patches
	@touch $@

# The overlay at its last stage: the stage markers stripped (scripts/stage.sh).
$(KTREE)/mm/%: mm/% $(ST)/unpack
	scripts/stage.sh all $< $@
$(KTREE)/include/%: include/% $(ST)/unpack
	scripts/stage.sh all $< $@
$(KTREE)/Documentation/%: Documentation/% $(ST)/unpack
	install -D -m644 $< $@

$(ST)/overlay: $(OVERLAY_DST) $(ST)/patch
	@touch $@
# The documentation is not an input of the kernels' build.
$(ST)/overlay-doc: $(OVERLAY_DOC_DST) $(ST)/patch
	@touch $@

# ---- kernels ---------------------------------------------------------------
# $(call kernel-stale,tree,image): FORCE unless the image exists and no file
# of the tree (but its Documentation/) is newer (secondary expansion: only
# for the images make needs).
.SECONDEXPANSION:
kernel-stale = $(if $(and $(wildcard $2),$(if $(shell find $1 -path \
	$1/Documentation -prune -o -newer $2 -print -quit 2>/dev/null),,ok)),,FORCE)

# The compiler of a kernel of ARCH: arm64's cross-compiled
# (gcc-aarch64-linux-gnu), the others the host's.
KCC = $(if $(filter arm64,$1),CROSS_COMPILE=aarch64-linux-gnu- \
	CC="ccache aarch64-linux-gnu-gcc",CC="ccache gcc")

# $(call KERNEL,name,ARCH,tree,tree-stamp,base-config,fragments,target,image)
# builds build/<name>/<image>: base config (defconfig or allnoconfig), the
# fragments merged on top, checked, then the kernel's own make.
define KERNEL
KMAKE_$(1) := $$(MAKE) -C $(3) O=$$(abspath $(BUILD)/$(1)) ARCH=$(2) \
	$$(call KCC,$(2)) HOSTCC="ccache gcc"
$(BUILD)/$(1)/.config: $(4) $(6) scripts/check-config.sh
	@mkdir -p $$(@D)
	$$(KMAKE_$(1)) -s $(5)
	ARCH=$(2) $(3)/scripts/kconfig/merge_config.sh -m -O $(BUILD)/$(1) \
		$$@ $(6) >/dev/null
	$$(KMAKE_$(1)) -s olddefconfig
	scripts/check-config.sh $$@ $(6)
# The kernel's own make decides what to rebuild; it is asked when the
# config, the patches or the overlay changed, or a file in the tree is
# newer than the image (an edit made in the tree itself), so that a no-op
# `make run` boots at once.
$(BUILD)/$(1)/$(8): $(BUILD)/$(1)/.config $(4) $$$$(call kernel-stale,$(3),$$$$@)
	+$$(KMAKE_$(1)) -j$(JOBS) $(7)
	@touch $$@
	@echo "kernel $(1): $$$$(cat $(BUILD)/kernel-version), $$@"
endef

UML_IMAGE := $(UML_OBJ)/linux
X86_IMAGE := $(X86_OBJ)/arch/x86/boot/bzImage
$(eval $(call KERNEL,um,um,$(KTREE),$(ST)/overlay,defconfig,$(UML_FRAGS),linux,linux))
$(eval $(call KERNEL,x86,x86_64,$(KTREE),$(ST)/overlay,allnoconfig,$(X86_FRAGS),bzImage,arch/x86/boot/bzImage))

kernel: $(UML_IMAGE) $(X86_IMAGE)
kernel-um: $(UML_IMAGE)
kernel-x86: $(X86_IMAGE)

# The arm64 test kernel, cross-compiled, for QEMU's virt machine.
ARM64_OBJ := $(BUILD)/arm64
ARM64_IMAGE := $(ARM64_OBJ)/arch/arm64/boot/Image
# The scratch disks' options are x86_64's (virtio-blk, ext4, XFS, swap, KSM).
ARM64_FRAGS := kernel-config/arm64.config kernel-config/debug.config \
	       kernel-config/pgfault.config kernel-config/scratch-x86_64.config
$(eval $(call KERNEL,arm64,arm64,$(KTREE),$(ST)/overlay,allnoconfig,$(ARM64_FRAGS),Image,arch/arm64/boot/Image))
kernel-arm64: $(ARM64_IMAGE)
# The cross compiler (scripts/host-deps-arm64.sh) before the first config.
$(ARM64_OBJ)/.config: | $(ST)/host-deps-arm64

# Benchmark kernels: patched and unpatched, UML and x86_64, same configs.
BENCH_UM_FRAGS  := kernel-config/uml.config kernel-config/perf.config kernel-config/perf-tracers.config
BENCH_X86_FRAGS := kernel-config/x86_64.config kernel-config/perf.config kernel-config/peers.config
# The unpatched tree keeps the series' UML fix that lets UML boot on hosts
# with a large XSAVE area (AMX): without it, no UML comparison there.
VANILLA_PATCHES := kernel-patches/0018-um-size-the-FP-register-state-from-the-host-at-boot.patch
$(ST)/unpack-vanilla: $(BUILD)/ksrc.var $(VANILLA_PATCHES) | $(ST)/host-deps
	@mkdir -p $(@D)
	scripts/unpack.sh $(VTREE) $(KSRC)
	for p in $(VANILLA_PATCHES); do patch -d $(VTREE) -p1 -s -N < $$p || exit 1; done
	@touch $@
$(eval $(call KERNEL,bench-um,um,$(KTREE),$(ST)/overlay,defconfig,$(BENCH_UM_FRAGS) kernel-config/pgfault.config kernel-config/pgfault-bench.config,linux,linux))
$(eval $(call KERNEL,bench-um-vanilla,um,$(VTREE),$(ST)/unpack-vanilla,defconfig,$(BENCH_UM_FRAGS),linux,linux))
$(eval $(call KERNEL,bench-x86,x86_64,$(KTREE),$(ST)/overlay,allnoconfig,$(BENCH_X86_FRAGS) kernel-config/pgfault.config kernel-config/pgfault-bench.config,bzImage,arch/x86/boot/bzImage))
$(eval $(call KERNEL,bench-x86-vanilla,x86_64,$(VTREE),$(ST)/unpack-vanilla,allnoconfig,$(BENCH_X86_FRAGS),bzImage,arch/x86/boot/bzImage))
# arm64's patched benchmark kernel: make bench-icount's arm64 column.
BENCH_ARM64_FRAGS := kernel-config/arm64.config kernel-config/perf.config kernel-config/perf-tracers.config
$(eval $(call KERNEL,bench-arm64,arm64,$(KTREE),$(ST)/overlay,allnoconfig,$(BENCH_ARM64_FRAGS) kernel-config/pgfault.config kernel-config/pgfault-bench.config,Image,arch/arm64/boot/Image))
$(BUILD)/bench-arm64/.config: | $(ST)/host-deps-arm64
BENCH_KERNELS := $(BUILD)/bench-um/linux $(BUILD)/bench-um-vanilla/linux \
	$(BUILD)/bench-x86/arch/x86/boot/bzImage \
	$(BUILD)/bench-x86-vanilla/arch/x86/boot/bzImage
bench-kernels: $(BENCH_KERNELS)

# The kernel as a Debian package for a real machine or VM (the kernel's
# own bindeb-pkg), with the feature and no debug options: x86_64 from
# x86_64_defconfig; ARCH=arm64 (cross-compiled) from arm64's defconfig
# with its virt.config (a virtual machine's: no SoC platforms); or from the
# config in KDEB_CONFIG (e.g. /boot/config-$$(uname -r) of the machine the
# package is for). The packages land in build/kernel-deb (x86_64) or
# build/kernel-deb-arm64.
KDEB_CONFIG ?=
KDEB_ARCH  := $(if $(filter arm64 aarch64,$(ARCH)),arm64,x86_64)
KDEB_SFX   := $(if $(filter arm64,$(KDEB_ARCH)),-arm64)
KDEB_OBJ   := $(BUILD)/deb-$(if $(KDEB_SFX),arm64,x86)
KDEB_DIR   := $(BUILD)/kernel-deb$(KDEB_SFX)
KDEB_STAMP := $(ST)/kernel-deb$(KDEB_SFX)
KDEB_BASE  := $(if $(KDEB_SFX),defconfig virt.config,defconfig)
KDEB_DPKG  := $(if $(KDEB_SFX),arm64,amd64)
KDEB_FRAGS := kernel-config/pgfault.config kernel-config/deb.config \
	kernel-config/deb-$(KDEB_ARCH).config
# A cross-built linux-headers package needs the target's libssl-dev
# (its scripts are built for the target): arm64 ships the image alone.
KMAKE_KDEB := $(MAKE) -C $(KTREE) O=$(abspath $(KDEB_OBJ)) ARCH=$(KDEB_ARCH) \
	$(call KCC,$(KDEB_ARCH)) HOSTCC="ccache gcc" \
	$(if $(KDEB_SFX),DPKG_FLAGS=--build-profiles=pkg.linux-upstream.nokernelheaders)
$(BUILD)/kdeb-config$(KDEB_SFX).var: FORCE
	@mkdir -p $(@D)
	@echo '$(KDEB_CONFIG)' | cmp -s - $@ || echo '$(KDEB_CONFIG)' > $@
$(KDEB_OBJ)/.config: $(ST)/overlay $(KDEB_FRAGS) scripts/check-config.sh \
		$(BUILD)/kdeb-config$(KDEB_SFX).var $(KDEB_CONFIG) \
		| $(if $(KDEB_SFX),$(ST)/host-deps-arm64)
	@mkdir -p $(@D)
ifeq ($(KDEB_CONFIG),)
	$(KMAKE_KDEB) -s $(KDEB_BASE)
else
	cp $(KDEB_CONFIG) $@
	# A distribution's config names its own signing keys: none here.
	$(KTREE)/scripts/config --file $@ --set-str SYSTEM_TRUSTED_KEYS "" \
		--set-str SYSTEM_REVOCATION_KEYS "" --disable MODULE_SIG_ALL
endif
	ARCH=$(KDEB_ARCH) $(KTREE)/scripts/kconfig/merge_config.sh -m -O $(KDEB_OBJ) \
		$@ $(KDEB_FRAGS) >/dev/null
	$(KMAKE_KDEB) -s olddefconfig
	scripts/check-config.sh $@ $(KDEB_FRAGS)
# dpkg-buildpackage writes next to the object tree, in build/.
$(KDEB_STAMP): $(KDEB_OBJ)/.config $(ST)/overlay $$(call kernel-stale,$(KTREE),$$@)
	rm -f $(BUILD)/linux-*_$(KDEB_DPKG).deb $(BUILD)/linux-upstream_*
	+$(KMAKE_KDEB) -j$(JOBS) bindeb-pkg
	rm -rf $(KDEB_DIR) && mkdir -p $(KDEB_DIR)
	# linux-libc-dev would replace Debian's own (the C library's kernel
	# headers): not shipped.
	rm -f $(BUILD)/linux-libc-dev_*.deb
	mv $(BUILD)/linux-*_$(KDEB_DPKG).deb $(BUILD)/linux-upstream_* $(KDEB_DIR)/
	@touch $@
kernel-deb: $(KDEB_STAMP)
	@ls -l $(KDEB_DIR)/*.deb

# ---- tools, tests, rootfs --------------------------------------------------
$(UAPI): include/uapi/linux/pgfault_history.h scripts/stage.sh | $(ST)/host-deps
	scripts/stage.sh all $< $@
# One source per gcc line, so that -MMD records its headers.
$(TOOLLIB): $(GUEST)/lib/%.o: tools/lib/%.c | $(ST)/host-deps $(UAPI)
	@mkdir -p $(@D)
	gcc $(CPPFLAGS) $(CFLAGS) $(WFLAGS) -MMD -MP -c $< -o $@
$(GUEST)/bin/%: tools/%.c $(TOOLLIB) | $(ST)/host-deps $(UAPI)
	@mkdir -p $(@D)
	gcc $(CPPFLAGS) $(CFLAGS) $(WFLAGS) -MMD -MP $< $(TOOLLIB) -o $@ $(GUEST_LDFLAGS) $(TOOL_LIBS)
$(HTML_ASSETS): scripts/embed-assets.py $(wildcard tools/pgfreport/html/*.*) $(VENDORED)
	@mkdir -p $(@D)
	cd $(VENDOR) && sha256sum --quiet -c SHA256SUMS
	python3 scripts/embed-assets.py $@ tools/pgfreport/html $(VENDOR)
# ECharts $(ECHARTS_VERSION) (and the zrender and tslib its dist bundles)
# from npm into $(VENDOR), with new SHA-256 sums: run by hand to update
# it, then review and commit the result.
vendor-echarts:
	@command -v npm >/dev/null || { echo "vendor-echarts: needs npm (apt-get install npm)"; exit 1; }
	rm -rf $(NPM_DIR) && mkdir -p $(NPM_DIR)
	cd $(NPM_DIR) && npm install --prefix . --no-audit --no-fund --no-save \
		echarts@$(ECHARTS_VERSION) >/dev/null
	rm -rf $(VENDOR) && mkdir -p $(VENDOR)/echarts/dist $(VENDOR)/zrender $(VENDOR)/tslib
	cd $(NPM_DIR)/node_modules && \
		cp echarts/package.json echarts/LICENSE echarts/NOTICE $(CURDIR)/$(VENDOR)/echarts/ && \
		cp echarts/dist/echarts.min.js $(CURDIR)/$(VENDOR)/echarts/dist/ && \
		cp zrender/package.json zrender/LICENSE $(CURDIR)/$(VENDOR)/zrender/ && \
		cp tslib/package.json tslib/LICENSE.txt tslib/CopyrightNotice.txt $(CURDIR)/$(VENDOR)/tslib/
	cd $(VENDOR) && find . -type f ! -name SHA256SUMS | LC_ALL=C sort | xargs sha256sum > SHA256SUMS
$(GUEST)/pgfreport/html-assets.o $(HOST)/pgfreport/html-assets.o: $(HTML_ASSETS)
	@mkdir -p $(@D)
	gcc -Itools/pgfreport $(CFLAGS) $(WFLAGS) -c $< -o $@
$(GUEST)/pgfreport/%.o: tools/pgfreport/%.c | $(ST)/host-deps $(UAPI)
	@mkdir -p $(@D)
	gcc $(CPPFLAGS) $(CFLAGS) $(WFLAGS) -MMD -MP -c $< -o $@
$(GUEST)/bin/pgfreport: $(patsubst tools/pgfreport/%.c,$(GUEST)/pgfreport/%.o,$(PGFREPORT_SRC)) $(GUEST)/pgfreport/html-assets.o $(TOOLLIB)
	@mkdir -p $(@D)
	gcc $^ -o $@ $(GUEST_LDFLAGS) $(TOOL_LIBS)
$(GUEST)/tests/%: tests/guest/%.c $(TOOLLIB) | $(ST)/host-deps $(UAPI)
	@mkdir -p $(@D)
	gcc $(CPPFLAGS) $(CFLAGS) $(WFLAGS) -MMD -MP $< $(TOOLLIB) -o $@ $(GUEST_LDFLAGS) $(TOOL_LIBS)
$(HOSTLIB): $(HOST)/lib/%.o: tools/lib/%.c | $(ST)/host-deps $(UAPI)
	@mkdir -p $(@D)
	gcc $(CPPFLAGS) $(CFLAGS) $(WFLAGS) -MMD -MP -c $< -o $@
$(HOST)/bin/gentrace $(HOST)/bin/hostfault: $(HOST)/bin/%: tests/bench/%.c | $(ST)/host-deps $(UAPI)
	@mkdir -p $(@D)
	gcc $(CPPFLAGS) $(CFLAGS) $(WFLAGS) -MMD -MP $< -o $@ -pthread
$(HOST)/bin/%: tools/%.c $(HOSTLIB) | $(ST)/host-deps $(UAPI)
	@mkdir -p $(@D)
	gcc $(CPPFLAGS) $(CFLAGS) $(WFLAGS) -MMD -MP $< $(HOSTLIB) -o $@ $(TOOL_LIBS)
$(HOST)/pgfreport/%.o: tools/pgfreport/%.c | $(ST)/host-deps $(UAPI)
	@mkdir -p $(@D)
	gcc $(CPPFLAGS) $(CFLAGS) $(WFLAGS) -MMD -MP -c $< -o $@
$(HOST)/bin/pgfreport: $(patsubst tools/pgfreport/%.c,$(HOST)/pgfreport/%.o,$(PGFREPORT_SRC)) $(HOST)/pgfreport/html-assets.o $(HOSTLIB)
	@mkdir -p $(@D)
	gcc $^ -o $@ $(TOOL_LIBS)
$(HOST)/bin/mrcbench: tests/bench/mrcbench.c $(HOSTLIB) | $(ST)/host-deps $(UAPI)
	@mkdir -p $(@D)
	gcc $(CPPFLAGS) -Itools $(CFLAGS) $(WFLAGS) -MMD -MP $< $(HOSTLIB) -o $@ $(TOOL_LIBS)
$(filter-out $(BUILD)/host-tests/test_reports,$(HOST_TESTS)): $(BUILD)/host-tests/%: tests/unit/%.c $(HOSTLIB) | $(ST)/host-deps $(UAPI)
	@mkdir -p $(@D)
	gcc $(CPPFLAGS) -Itools $(CFLAGS) $(WFLAGS) -MMD -MP $< $(HOSTLIB) -o $@ $(TOOL_LIBS)
# pgfreport's reports as a library: its objects but the front end's main()
PGFREPORT_LIBOBJS := $(patsubst tools/pgfreport/%.c,$(HOST)/pgfreport/%.o,$(filter-out tools/pgfreport/pgfreport.c,$(PGFREPORT_SRC))) $(HOST)/pgfreport/html-assets.o
$(BUILD)/host-tests/test_reports: tests/unit/test_reports.c $(PGFREPORT_LIBOBJS) $(HOSTLIB) | $(ST)/host-deps $(UAPI)
	@mkdir -p $(@D)
	gcc $(CPPFLAGS) -Itools $(CFLAGS) $(WFLAGS) -MMD -MP $< $(PGFREPORT_LIBOBJS) $(HOSTLIB) -o $@ $(TOOL_LIBS)

-include $(wildcard $(HOST)/*/*.d $(BUILD)/host-tests/*.d)

$(GUEST)/selftests/%: tests/selftest/%.c | $(ST)/host-deps $(UAPI)
	@mkdir -p $(@D)
	gcc $(CPPFLAGS) $(CFLAGS) $(WFLAGS) -MMD -MP $< -o $@ $(GUEST_LDFLAGS)
$(GUEST)/bench/%: tests/bench/%.c | $(ST)/host-deps $(UAPI)
	@mkdir -p $(@D)
	gcc $(CPPFLAGS) $(CFLAGS) $(WFLAGS) -MMD -MP $< -o $@ $(GUEST_LDFLAGS)
# growbench replays its traces with the tools' own reader; migbench reads
# its with it.
$(GUEST)/bench/growbench $(GUEST)/bench/migbench: $(GUEST)/bench/%: tests/bench/%.c $(TOOLLIB) | $(ST)/host-deps $(UAPI)
	@mkdir -p $(@D)
	gcc $(CPPFLAGS) $(CFLAGS) $(WFLAGS) -MMD -MP $< $(TOOLLIB) -o $@ $(GUEST_LDFLAGS) $(TOOL_LIBS)

-include $(wildcard $(GUEST)/*/*.d)

# Preloaded into UML by tests/host/test_uml_host.py: the host's ptrace as
# on a host with a larger XSAVE area (AMX).
XSTATE_PAD := $(HOST)/xstate_pad.so
$(XSTATE_PAD): tests/host/xstate_pad.c | $(ST)/host-deps $(UAPI)
	@mkdir -p $(@D)
	gcc $(CFLAGS) $(WFLAGS) -shared -fPIC $< -o $@ -ldl

# Preloaded into pgfreport by tests/host/test_nomem.py: its allocations
# fail from the Nth on.
FAILMALLOC := $(HOST)/failmalloc.so
$(FAILMALLOC): tests/host/failmalloc.c | $(ST)/host-deps $(UAPI)
	@mkdir -p $(@D)
	gcc $(CFLAGS) $(WFLAGS) -shared -fPIC $< -o $@

tools: $(TOOLS) $(HOST_TOOLS) $(HOST_TESTS) $(XSTATE_PAD) $(FAILMALLOC)

$(INITRD): $(GUEST_BINS) $(wildcard uml-rootfs/* uml-rootfs/etc/*) \
	   scripts/mkrootfs.sh | $(ST)/host-deps
	scripts/mkrootfs.sh $@ $(GUEST)

rootfs: $(INITRD) $(SCRATCH)

# ---- the arm64 guest ---------------------------------------------------------
# The same tools, tests and benchmarks cross-compiled (gcc-aarch64-linux-gnu
# and Debian's arm64 libelf, libzstd, zlib), packed with Debian's static
# arm64 busybox into an initramfs of their own (scripts/host-deps-arm64.sh
# installs and fetches them). fpstate tests x86's registers (UML's FP
# state, kernel-patches/0018): not built.
GUEST_ARM64 := $(BUILD)/guest-arm64
INITRD_ARM64 := $(BUILD)/initramfs-arm64.cpio.gz
ARM64_DEPS := $(BUILD)/arm64-deps
ACC := aarch64-linux-gnu-gcc
$(ST)/host-deps-arm64: scripts/host-deps-arm64.sh | $(ST)/host-deps
	scripts/host-deps-arm64.sh $(ARM64_DEPS)
	@touch $@
TOOLLIB_ARM64 := $(patsubst tools/lib/%.c,$(GUEST_ARM64)/lib/%.o,$(wildcard tools/lib/*.c))
$(TOOLLIB_ARM64): $(GUEST_ARM64)/lib/%.o: tools/lib/%.c | $(ST)/host-deps-arm64 $(UAPI)
	@mkdir -p $(@D)
	$(ACC) $(CPPFLAGS) $(CFLAGS) $(WFLAGS) -MMD -MP -c $< -o $@
$(GUEST_ARM64)/pgfreport/html-assets.o: $(HTML_ASSETS) | $(ST)/host-deps-arm64
	@mkdir -p $(@D)
	$(ACC) -Itools/pgfreport $(CFLAGS) $(WFLAGS) -c $< -o $@
$(GUEST_ARM64)/pgfreport/%.o: tools/pgfreport/%.c | $(ST)/host-deps-arm64 $(UAPI)
	@mkdir -p $(@D)
	$(ACC) $(CPPFLAGS) $(CFLAGS) $(WFLAGS) -MMD -MP -c $< -o $@
$(GUEST_ARM64)/bin/pgfreport: $(patsubst tools/pgfreport/%.c,$(GUEST_ARM64)/pgfreport/%.o,$(PGFREPORT_SRC)) $(GUEST_ARM64)/pgfreport/html-assets.o $(TOOLLIB_ARM64)
	@mkdir -p $(@D)
	$(ACC) $^ -o $@ $(GUEST_LDFLAGS) $(TOOL_LIBS)
$(GUEST_ARM64)/bin/%: tools/%.c $(TOOLLIB_ARM64) | $(ST)/host-deps-arm64 $(UAPI)
	@mkdir -p $(@D)
	$(ACC) $(CPPFLAGS) $(CFLAGS) $(WFLAGS) -MMD -MP $< $(TOOLLIB_ARM64) -o $@ $(GUEST_LDFLAGS) $(TOOL_LIBS)
$(GUEST_ARM64)/tests/%: tests/guest/%.c $(TOOLLIB_ARM64) | $(ST)/host-deps-arm64 $(UAPI)
	@mkdir -p $(@D)
	$(ACC) $(CPPFLAGS) $(CFLAGS) $(WFLAGS) -MMD -MP $< $(TOOLLIB_ARM64) -o $@ $(GUEST_LDFLAGS) $(TOOL_LIBS)
$(GUEST_ARM64)/selftests/%: tests/selftest/%.c | $(ST)/host-deps-arm64 $(UAPI)
	@mkdir -p $(@D)
	$(ACC) $(CPPFLAGS) $(CFLAGS) $(WFLAGS) -MMD -MP $< -o $@ $(GUEST_LDFLAGS)
$(GUEST_ARM64)/bench/%: tests/bench/%.c $(TOOLLIB_ARM64) | $(ST)/host-deps-arm64 $(UAPI)
	@mkdir -p $(@D)
	$(ACC) $(CPPFLAGS) $(CFLAGS) $(WFLAGS) -MMD -MP $< $(TOOLLIB_ARM64) -o $@ $(GUEST_LDFLAGS) $(TOOL_LIBS)
GUEST_BINS_ARM64 := $(patsubst $(GUEST)/%,$(GUEST_ARM64)/%,$(filter-out $(GUEST)/tests/fpstate,$(GUEST_BINS)))
-include $(wildcard $(GUEST_ARM64)/*/*.d)
$(INITRD_ARM64): $(GUEST_BINS_ARM64) $(wildcard uml-rootfs/* uml-rootfs/etc/*) \
	   scripts/mkrootfs.sh | $(ST)/host-deps-arm64
	scripts/mkrootfs.sh $@ $(GUEST_ARM64) $(ARM64_DEPS)/bin/busybox
rootfs-arm64: $(INITRD_ARM64) $(SCRATCH)

# The guests' scratch disks: an empty ext4 and an empty XFS file system
# (scripts/guest.py attaches them copy-on-write, uml-rootfs/init mounts
# them at /scratch and /scratch-xfs), for the page cache tests' real block
# devices. No lazy initialisation: the guest would write the inode tables
# behind the tests' backs. 300 MB is the least XFS takes.
$(BUILD)/scratch-ext4.img: | $(ST)/host-deps
	@mkdir -p $(@D)
	rm -f $@.tmp
	truncate -s 256M $@.tmp
	mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 $@.tmp
	mv $@.tmp $@
$(BUILD)/scratch-xfs.img: | $(ST)/host-deps
	@mkdir -p $(@D)
	rm -f $@.tmp
	truncate -s 320M $@.tmp
	mkfs.xfs -q -f $@.tmp
	mv $@.tmp $@

# ---- running the guest -----------------------------------------------------
# What one guest needs.
guest: $(GUEST_KERNEL) rootfs tools

run: guest
	@if [ -z '$(CMD)' ]; then echo "usage: make run CMD='command'" >&2; exit 2; fi
	@$(RUNNER) run --share '$(SHARE)' --timeout $(TIMEOUT) -- '$(CMD)'

shell: guest
	@$(RUNNER) shell --share '$(SHARE)'

# The main job: trace a command in the guest (default: ps, as the seed
# does), keep the trace in $(SHARE)/demo.trace, print its map and summary.
DEMO_CMD = $(if $(CMD),$(CMD),ps)
demo: guest
	@$(RUNNER) run --share '$(SHARE)' --timeout $(TIMEOUT) -- \
		'tracepgfault -F -f -o /host/demo.trace $(DEMO_CMD); s=$$?; \
		 r=$$(sed -n "1s/.* root //p" /host/demo.trace); \
		 echo; echo "== processes (pgfreport tree /host/demo.trace)"; \
		 pgfreport tree /host/demo.trace; \
		 echo; echo "== fault map of $$r (pgfreport map --pid $$r --width 100 /host/demo.trace)"; \
		 pgfreport map --pid $$r --width 100 /host/demo.trace; \
		 echo; echo "== summary of $$r (pgfreport summary --pid $$r /host/demo.trace)"; \
		 pgfreport summary --pid $$r /host/demo.trace; exit $$s'

# What tracing costs: the benchmark kernels (patched and unpatched, UML and
# x86_64), tests/bench in each, a report in build/bench/report.md.
bench: $(BENCH_KERNELS) rootfs tools
	@python3 scripts/bench.py --timeout $(TIMEOUT)

# A developer's before/after in a few minutes: UML's benchmark kernel, two
# boots, traced / untraced; BENCH_COMPARE=build/bench/quick-REV.json puts
# an earlier run beside it.
BENCH_COMPARE ?=
bench-quick: $(BUILD)/bench-um/linux rootfs tools
	@python3 scripts/bench.py --quick --timeout $(TIMEOUT) \
		$(if $(BENCH_COMPARE),--compare $(BENCH_COMPARE))

# Figures that hold still: the x86_64 and arm64 benchmark kernels under
# TCG with guest time = instructions (-icount), two boots each, their
# ratios side by side (ICOUNT_ARCH=x86_64 or arm64: one of them).
ICOUNT_ARCH ?= x86_64,arm64
ICOUNT_NEEDS := $(if $(findstring x86_64,$(ICOUNT_ARCH)),$(BUILD)/bench-x86/arch/x86/boot/bzImage \
	$(BUILD)/bench-x86-vanilla/arch/x86/boot/bzImage rootfs) \
	$(if $(findstring arm64,$(ICOUNT_ARCH)),$(BUILD)/bench-arm64/arch/arm64/boot/Image rootfs-arm64)
bench-icount: $(ICOUNT_NEEDS) tools
	@python3 scripts/bench-icount.py --arch $(ICOUNT_ARCH) --timeout $(TIMEOUT)

# pgfault_history beside perf record, perf trace and bpftrace, the same
# workloads in the x86_64 benchmark kernel, run from the host's root (as
# pgfault-run does): the host's perf and bpftrace, installed here.
bench-peers: $(BUILD)/bench-x86/arch/x86/boot/bzImage rootfs tools
	@scripts/host-deps.sh linux-perf bpftrace
	@python3 scripts/bench-peers.py --timeout $(PEERS_TIMEOUT)

# Where the record path's time goes: host perf sampling UML's kernel while
# recbench runs the record path alone; ns per record per function.
bench-profile: $(BUILD)/bench-um/linux rootfs tools
	@scripts/host-deps.sh linux-perf
	@python3 scripts/profile-recpath.py --timeout $(TIMEOUT)

# Report tool throughput on a generated trace of BENCH_RECORDS faults, and
# on the traces BENCH_TRACES names (real programs', e.g. pgfault-run -w).
BENCH_RECORDS ?= 10000000
BENCH_TRACES ?=
bench-report: tools
	@scripts/bench-report.sh $(BENCH_RECORDS) $(BENCH_TRACES)
	@python3 tests/bench/htmlbench.py

# What pgfault-run costs from start to exit: programs natively and under
# it in both guests (their benchmark kernels), BENCH_RUNS times each.
BENCH_RUNS ?= 3
bench-run: $(BUILD)/bench-um/linux $(BUILD)/bench-x86/arch/x86/boot/bzImage rootfs tools
	@python3 tests/bench/runbench.py $(BENCH_RUNS)

# Documentation/benchmarks.md's figures: the last run of each benchmark
# (build/bench/*.json, scripts/benchjson.py).
bench-doc:
	@python3 scripts/benchdoc.py

# libCacheSim (a benchmark peer, built from LIBCACHESIM_SRC) on pgfreport
# export lcs: the same misses, and the time and memory of both.
bench-libcachesim: tools
	@LIBCACHESIM_SRC='$(LIBCACHESIM_SRC)' tests/bench/libcachesim.sh $(LCS_TRACES)

# Following a process tree, in both benchmark guests (no KASAN, no
# lockdep): a shell script of TREE_N short commands, then "make -j2" of a
# small C project (tests/bench/proj) with the host's compiler, the host's
# root shared read-only (tests/bench/makebench.sh); untraced and under
# tracepgfault -f, TREE_REPS and TREE_MAKE_REPS times each.
TREE_N ?= 200
TREE_REPS ?= 5
TREE_MAKE_REPS ?= 3
bench-tree: $(BUILD)/bench-um/linux $(BUILD)/bench-x86/arch/x86/boot/bzImage rootfs tools
	@for a in um x86_64; do \
		k=$(BUILD)/bench-um/linux; \
		[ $$a = um ] || k=$(BUILD)/bench-x86/arch/x86/boot/bzImage; \
		echo "== $$a: $(TREE_N) commands"; \
		python3 scripts/guest.py --arch $$a --kernel $$k run -- \
			'/usr/lib/pgfault/bench/treebench $(TREE_N) $(TREE_REPS)' || exit 1; \
		echo "== $$a: make -j2 of tests/bench/proj"; \
		python3 scripts/guest.py --arch $$a --kernel $$k run --share / \
			--timeout 3600 -- 'sh /host$(CURDIR)/tests/bench/makebench.sh \
			/host$(CURDIR)/tests/bench/proj $(TREE_MAKE_REPS)' || exit 1; \
	done

# arm64 runs its short set here (scripts/run-tests.py's QUICK_SUITES) and
# every suite in make test-arm64, twice: -cpu max (the hardware updates the
# access flag) and -cpu cortex-a57 (the kernel takes access flag faults).
test: all $(ST)/kernel-deb $(ARM64_IMAGE) rootfs-arm64
	@python3 scripts/run-tests.py --timeout $(TIMEOUT) --quick arm64

test-host: all $(ST)/kernel-deb
	@python3 scripts/run-tests.py --timeout $(TIMEOUT) --host-only

test-guest: all
	@python3 scripts/run-tests.py --timeout $(TIMEOUT) --guest-only \
		--arch $(if $(ARCH),$(GUEST_ARCH),um$(comma)x86_64)

# ... and the arm64 kernel package, held to what the x86_64 one is.
KDEB_ARM64_TESTS := the_arm64_package_is_a_linux_image_dpkg_takes_as_arm64s \
	the_arm64_kernel_has_the_feature_and_no_debug_options \
	the_guest_suite_passes_on_the_packaged_arm64_kernel
test-arm64: $(ARM64_IMAGE) rootfs-arm64
	+$(MAKE) kernel-deb ARCH=arm64
	@s=0; python3 scripts/run-tests.py --timeout $(TIMEOUT) --guest-only \
		--arch arm64,arm64-nohwaf || s=1; \
	echo "# host: tests/host/test_kernel_deb.py (arm64)"; \
	PGF_KDEB_ARM64=1 python3 tests/host/test_kernel_deb.py $(KDEB_ARM64_TESTS) || s=1; \
	exit $$s

# Patches go in on stdin: checkpatch reads a file git tracks as source.
# The unpacked tree has no git history, so checkpatch cannot look up the
# upstream commits a patch names (0018's Fixes: 6f602afda727): that one
# check is off (CHECKPATCH_IGNORE, also in scripts/mkpatches.sh).
CHECKPATCH_IGNORE := --ignore UNKNOWN_COMMIT_ID
# The overlay's code as the kernel tree holds it: stage markers stripped.
checkpatch: $(ST)/overlay $(ST)/overlay-doc
	perl $(KTREE)/scripts/checkpatch.pl --strict --no-tree -f \
		$(filter %.c %.h,$(OVERLAY_DST)) $(OVERLAY_DOC_DST)
	@for p in $(filter %.patch,$(PATCHES)); do \
		echo "== $$p"; \
		perl $(KTREE)/scripts/checkpatch.pl --strict --no-tree $(CHECKPATCH_IGNORE) - < $$p || exit 1; \
	done

# ---- shipping --------------------------------------------------------------
# The series as mail (git format-patch, cover letter), checked by checkpatch.
patches: $(ST)/overlay $(ST)/overlay-doc
	scripts/mkpatches.sh $(KTREE) $(BUILD)/patches

# The mail bisects: each of its prefixes built on a pristine tree, UML,
# x86_64 and arm64 with the feature on, x86_64 with it off (ccache; the first
# run builds cold). Result in build/series/result.txt.
check-series: patches | $(ST)/host-deps-arm64
	JOBS=$(JOBS) KSRC=$(KSRC) scripts/check-series.sh $(BUILD)/series
# The same, compiling only the files each prefix has touched (no link).
check-series-quick: patches | $(ST)/host-deps-arm64
	JOBS=$(JOBS) KSRC=$(KSRC) scripts/check-series.sh --quick $(BUILD)/series-quick

# The kernel documentation, checked with docutils (Sphinx and the kernel's
# extensions are too heavy for these machines): warnings are errors.
DOCS_HTML := $(patsubst Documentation/%.rst,$(BUILD)/docs/%.html,$(OVERLAY_DOC))
$(DOCS_HTML): $(BUILD)/docs/%.html: Documentation/%.rst | $(ST)/host-deps
	@mkdir -p $(@D)
	/usr/bin/python3 -m docutils --halt=warning --report=warning $< $@
docs: $(DOCS_HTML)

# The series on an upstream 6.12 tree (VANILLA=tarball or directory; by
# default Debian's linux-6.12 orig tarball in build/upstream, fetched if
# missing), the UML test kernel built from it, the guest suites run once.
check-vanilla: | $(ST)/host-deps
	scripts/check-vanilla.sh $(VANILLA)

# The tools, their man pages and bash completion, the Python reader; and
# pgfault-run with the guest it boots (the test kernels, the rootfs, and
# the UML benchmark kernel where it is built) in $(PREFIX)/lib/pgfault,
# unless INSTALL_GUEST=0 (make deb: the tools alone).
PREFIX  ?= /usr/local
DESTDIR ?=
# Where Debian's python3 imports the reader from: /usr's packages'
# directory, or under another prefix its python3.X/dist-packages (which
# Debian's python3 searches under /usr/local).
PY3_VERSION := $(shell /usr/bin/python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)
PYDIR ?= $(if $(filter /usr,$(PREFIX)),/usr/lib/python3/dist-packages,$(PREFIX)/lib/python$(PY3_VERSION)/dist-packages)
INSTALL_GUEST ?= 1
INSTALL_BINS := $(HOST)/bin/tracepgfault $(HOST)/bin/pgfreport
MANPAGES := $(filter-out tools/man/pgfault-run.1,$(wildcard tools/man/*.[1-8]))
COMPLETIONS := tools/completion/tracepgfault tools/completion/pgfreport
PGF_LIBDIR = $(DESTDIR)$(PREFIX)/lib/pgfault
GUEST_FILES := $(UML_IMAGE) $(X86_IMAGE) $(RUN_KERNELS) $(INITRD)
install: $(INSTALL_BINS) $(if $(filter 1,$(INSTALL_GUEST)),$(GUEST_FILES))
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/man/man5 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -m755 $(INSTALL_BINS) $(DESTDIR)$(PREFIX)/bin/
	install -m644 $(filter %.1,$(MANPAGES)) $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m644 $(filter %.5,$(MANPAGES)) $(DESTDIR)$(PREFIX)/share/man/man5/
	install -m644 $(COMPLETIONS) \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/
	install -d $(DESTDIR)$(PYDIR)
	install -m644 tools/python/pgfault_trace.py $(DESTDIR)$(PYDIR)/
ifeq ($(INSTALL_GUEST),1)
	install -d $(PGF_LIBDIR)/um $(PGF_LIBDIR)/x86
	install -m755 scripts/pgfault-run $(DESTDIR)$(PREFIX)/bin/
	install -m644 tools/man/pgfault-run.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m644 tools/completion/pgfault-run \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/
	install -m644 scripts/guest.py $(PGF_LIBDIR)/
	install -m755 scripts/pgf-sandbox.sh $(PGF_LIBDIR)/
	install -m644 $(INITRD) $(PGF_LIBDIR)/
	install -m755 $(UML_IMAGE) $(PGF_LIBDIR)/um/linux
	install -m644 $(X86_IMAGE) $(PGF_LIBDIR)/x86/bzImage
	install -D -m755 $(BUILD)/bench-um/linux $(PGF_LIBDIR)/bench-um/linux
	install -D -m644 $(BUILD)/bench-x86/arch/x86/boot/bzImage \
		$(PGF_LIBDIR)/bench-x86/bzImage
endif

uninstall:
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/bin/,$(notdir $(INSTALL_BINS)) pgfault-run) \
		$(addprefix $(DESTDIR)$(PREFIX)/share/man/man1/,$(notdir $(filter %.1,$(MANPAGES))) pgfault-run.1) \
		$(addprefix $(DESTDIR)$(PREFIX)/share/man/man5/,$(notdir $(filter %.5,$(MANPAGES)))) \
		$(addprefix $(DESTDIR)$(PREFIX)/share/bash-completion/completions/,$(notdir $(COMPLETIONS)) pgfault-run) \
		$(DESTDIR)$(PYDIR)/pgfault_trace.py \
		$(wildcard $(DESTDIR)$(PYDIR)/__pycache__/pgfault_trace.*.pyc)
	[ ! -d $(DESTDIR)$(PYDIR)/__pycache__ ] || \
		rmdir --ignore-fail-on-non-empty $(DESTDIR)$(PYDIR)/__pycache__
	rm -rf $(PGF_LIBDIR)

# A Debian package of the tools (dpkg-deb), checked by lintian.
deb: $(INSTALL_BINS)
	scripts/mkdeb.sh $(BUILD)/deb

# ---- cleaning --------------------------------------------------------------
clean:
	rm -rf $(UML_OBJ) $(X86_OBJ) $(BUILD)/bench-um $(BUILD)/bench-um-vanilla \
		$(BUILD)/bench-x86 $(BUILD)/bench-x86-vanilla $(GUEST) $(INITRD) \
		$(INITRD).d $(BUILD)/jobs

distclean:
	rm -rf $(BUILD)

FORCE:
