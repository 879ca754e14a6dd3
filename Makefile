# SPDX-License-Identifier: GPL-2.0
#
# hwtrace: `make` builds the module, libhwt and the hwtrace tool;
# `make check` runs the host unit tests and the kselftests in a VM.

KDIR	?= $(shell bash scripts/kdir.sh 2>/dev/null)
BUILD	:= $(CURDIR)/build
LINUX_SRC := $(BUILD)/linux-src

VM_BINS	:= /usr/bin/trace-cmd /usr/bin/hackbench
# The one version of hwtrace: module, library, tool, files, packages
VERSION	:= $(shell cat VERSION)
SELFTESTS := selftests/hwtrace

all: module lib tools

module:
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 modules

module-sparse:
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 C=2 modules

lib:
	$(MAKE) -C libhwt

tools: lib
	$(MAKE) -C tools/hwtrace

$(LINUX_SRC)/.done: scripts/lint-src.sh
	bash scripts/lint-src.sh $(LINUX_SRC)
	touch $@

selftests: $(LINUX_SRC)/.done
	$(MAKE) -C $(SELFTESTS) KSFT_DIR=$(LINUX_SRC)/tools/testing/selftests

# The VM payload: module, kselftests and the script that runs them, and the
# kselftests' helper modules ($(SELFTESTS)/kmod) built for the same kernel.
vm-payload: module selftests tools
	$(MAKE) -C $(KDIR) M=$(CURDIR)/$(SELFTESTS)/kmod \
		KBUILD_EXTRA_SYMBOLS=$(CURDIR)/Module.symvers W=1 modules
	rm -rf $(BUILD)/payload && mkdir -p $(BUILD)/payload
	cp kmod/hwtrace.ko $(SELFTESTS)/kmod/*.ko $(SELFTESTS)/build/* $(SELFTESTS)/*.sh \
		tools/hwtrace/build/hwtrace $(BUILD)/payload/
	cp $(SELFTESTS)/vm-run.sh $(BUILD)/payload/run.sh
	bash scripts/vm/mkinitramfs.sh -o $(BUILD)/vm.cpio.gz -p $(BUILD)/payload \
		$(foreach b,$(VM_BINS),-b $(b))

# Every kselftest on 2 vCPUs, the concurrency-heavy ones again on 4.
check-vm: check-vm-smp2 check-vm-smp4

# The soak and the ioctl fuzzer run for long on the debug kernel
# (make check-debug); here they are a short smoke run.
check-vm-smp2: vm-payload
	bash scripts/vm/run.sh --smp 2 --mem 1024 --timeout 1500 \
		--append "HWT_SOAK_SECS=20 HWT_FUZZ_SECS=10" \
		--log $(BUILD)/vm-smp2.log -i $(BUILD)/vm.cpio.gz

check-vm-smp4: vm-payload
	bash scripts/vm/run.sh --smp 4 --mem 1024 --timeout 1500 \
		--append hwt.tests=record_test,probes_test,concurrency_test,bpf_test.sh \
		--log $(BUILD)/vm-smp4.log -i $(BUILD)/vm.cpio.gz

# The persistent flight recorder across a panic, an oops and warm reboots:
# three boots of one VM (run.sh --reboot), memory reserved with memmap= on the
# command line.  The host's deadline (timeout + 120 s) covers all three.
check-vm-persist: vm-payload
	bash scripts/vm/run.sh --reboot --smp 2 --mem 1024 --timeout 420 \
		--append 'memmap=4M$$0x20000000 hwt.tests=persist_test.sh' \
		--log $(BUILD)/vm-persist.log -i $(BUILD)/vm.cpio.gz

# The same on 6.12, the trace in its named reserve_mem= (nokaslr: the
# decompressor does not know that area, and could put the kernel on it);
# the bad-input checks write through /dev/mem into a memmap= area.
check-vm-persist-newer: vm-payload
	bash scripts/vm/newer-kernel.sh --reboot --smp 2 --mem 1024 --timeout 420 \
		--append 'memmap=4M$$0x20000000 reserve_mem=4M:4096:hwtrace nokaslr hwt.tests=persist_test.sh' \
		--log $(BUILD)/vm-persist-newer.log
# Each CPU's ring on its NUMA node: a guest of 2 nodes with a CPU each.
check-vm-numa: vm-payload
	bash scripts/vm/run.sh --smp 2 --numa 2 --mem 1024 --timeout 900 \
		--append hwt.tests=ioctl_test \
		--log $(BUILD)/vm-numa.log -i $(BUILD)/vm.cpio.gz

# The whole suite again on Debian 12's newest kernel series (6.12).
check-vm-newer: vm-payload
	bash scripts/vm/newer-kernel.sh --smp 2 --mem 1024 --timeout 1500 \
		--append "HWT_SOAK_SECS=20 HWT_FUZZ_SECS=10" \
		--log $(BUILD)/vm-newer.log

# make bench: timings, never part of make check.  Results: bench/results/.
bench-payload: module tools
	$(MAKE) -C $(KDIR) M=$(CURDIR)/bench/kmod \
		KBUILD_EXTRA_SYMBOLS=$(CURDIR)/Module.symvers W=1 modules
	rm -rf $(BUILD)/bench && mkdir -p $(BUILD)/bench
	$(CC) -std=gnu11 -Wall -Wextra -Werror -O2 -static -Iinclude/uapi \
		-o $(BUILD)/bench/write_path bench/write_path.c
	$(CC) -std=gnu11 -Wall -Wextra -Werror -O2 -static \
		-o $(BUILD)/bench/rusage bench/rusage.c
	$(CC) -std=gnu11 -Wall -Wextra -Werror -O2 -static \
		-o $(BUILD)/bench/pingpong bench/pingpong.c
	cp kmod/hwtrace.ko bench/kmod/hwt_bench.ko tools/hwtrace/build/hwtrace \
		$(BUILD)/bench/
	cp bench/vm-bench.sh $(BUILD)/bench/run.sh
	cp bench/vm-insn.sh $(BUILD)/bench/
	bash scripts/vm/mkinitramfs.sh -o $(BUILD)/bench.cpio.gz -p $(BUILD)/bench \
		$(foreach b,$(VM_BINS),-b $(b))

# tsc=reliable: the guest's clocksource is the TSC, not an emulated HPET
# read in which every tracer's buffer cost would vanish.  TCG offers no
# invariant TSC (constant_tsc/nonstop_tsc), so hwtrace's own clock there is
# the monotonic one, as ftrace's is.  The end-to-end run (HWT_BENCH=e2e)
# boots one vCPU with -icount 0: the guest's clocks count its instructions,
# 1 ns each, so the host's load is not in its times (QEMU 7.2 hangs bringing
# up a second vCPU under icount).  Two more boots measure the write path
# alone (HWT_BENCH=write): TCG's timings move from boot to boot.
bench: bench-payload
	bash scripts/vm/run.sh --smp 2 --mem 1024 --timeout 2400 --quiet \
		--append tsc=reliable \
		--log $(BUILD)/bench.log -i $(BUILD)/bench.cpio.gz
	bash scripts/vm/run.sh --smp 1 --mem 1024 --timeout 1500 --quiet \
		--icount 0 --append "tsc=reliable HWT_BENCH=e2e" \
		--log $(BUILD)/bench-e2e.log -i $(BUILD)/bench.cpio.gz
	for boot in 2 3; do \
		bash scripts/vm/run.sh --smp 2 --mem 1024 --timeout 600 --quiet \
			--append "tsc=reliable HWT_BENCH=write" \
			--log $(BUILD)/bench-write-$$boot.log -i $(BUILD)/bench.cpio.gz || exit 1; \
	done
	bash scripts/deps.sh insn
	bash bench/insn-count.sh bench/results
	bash bench/host-convert.sh bench/results
	bash bench/report.sh $(BUILD)/bench.log $(BUILD)/bench-e2e.log bench/results \
		$(BUILD)/bench-write-2.log $(BUILD)/bench-write-3.log

# make bench-insn: instructions and cache lines per event of each buffer's
# write path (hwtrace into a CYC and a STOP chunk, with the TSC and the
# monotonic clock; ring_buffer; relay with the same clocks),
# counted by single-stepping the guest with gdb through QEMU's gdbstub
# (bench/insn-count.sh); make bench runs it too, and folds it into
# results.md.  Counts, not times.  Results: bench/results/insn.md, insn.csv.
bench-insn: bench-payload
	bash scripts/deps.sh insn
	bash bench/insn-count.sh bench/results

# make bench-host: the bpf backend on this machine's own kernel against perf
# record -a and bpftrace, around hackbench and pingpong (root;
# bench/host-bench.sh).  Never part of make check.  Results:
# bench/results/host.md and the CSVs it names.
bench-host: tools
	bash scripts/deps.sh bench
	mkdir -p $(BUILD)/bench-host
	$(CC) -std=gnu11 -Wall -Wextra -Werror -O2 \
		-o $(BUILD)/bench-host/pingpong bench/pingpong.c
	bash bench/host-bench.sh bench/results

# The embedded default: hackbench recorded in the VM, converted to every
# format into out/demo/.
demo:
	bash scripts/deps.sh build vm
	$(MAKE) module tools
	bash scripts/demo.sh

# Everything, host and VM, ending in "N passed, M failed".
check:
	bash scripts/check.sh

# README's promise on a pristine Debian 12 root: make demo and make check
# from a clean clone, nothing installed but make (what CI runs).
check-fresh:
	bash scripts/check-fresh.sh

lint: $(LINUX_SRC)/.done
	perl $(LINUX_SRC)/scripts/checkpatch.pl --strict --no-tree --terse -f \
		$(filter-out kmod/compat.h kmod/%.mod.c,$(wildcard kmod/*.[ch])) \
		$(filter-out %.mod.c %/hwt_oops.c,$(wildcard $(SELFTESTS)/kmod/*.c)) \
		$(filter-out %.mod.c,$(wildcard bench/kmod/*.c)) \
		include/uapi/linux/hwtrace.h
	@# the kerneldoc of the in-kernel API (hwtrace_log()) must parse cleanly
	@mkdir -p $(BUILD)
	perl $(LINUX_SRC)/scripts/kernel-doc -none -v kmod/*.[ch] 2>$(BUILD)/kernel-doc.log
	@! grep 'warning:' $(BUILD)/kernel-doc.log
	@# compat.h is the one place where kernel-version tests belong
	perl $(LINUX_SRC)/scripts/checkpatch.pl --strict --no-tree --terse -f \
		--ignore LINUX_VERSION_CODE,CONSTANT_COMPARISON kmod/compat.h
	@# the test module's one job is to BUG()
	perl $(LINUX_SRC)/scripts/checkpatch.pl --strict --no-tree --terse -f \
		--ignore AVOID_BUG $(SELFTESTS)/kmod/hwt_oops.c

# libFuzzer on the .hwt reader, every converter and the UDP decoder
fuzz:
	$(MAKE) -C libhwt fuzz

# libhwt (libraries, headers, pkg-config, ATF schema) and the hwtrace tool
install: lib tools
	$(MAKE) -C libhwt install
	$(MAKE) -C tools/hwtrace install

# DKMS: register the module's source as /usr/src/hwtrace-VERSION; then
# `dkms install hwtrace/VERSION -k KERNEL` builds, signs and installs it
# (and DKMS rebuilds it for each kernel installed later).
dkms-install:
	bash scripts/dkms-source.sh --dkms $(DESTDIR)/usr/src/hwtrace-$(VERSION)
	$(if $(DESTDIR),,dkms add hwtrace/$(VERSION))

dkms-uninstall:
	$(if $(DESTDIR),,-dkms remove hwtrace/$(VERSION) --all)
	rm -rf $(DESTDIR)/usr/src/hwtrace-$(VERSION)

# The Debian packages (debian/), lintian, and their install, use and purge
# in a fresh Debian 12 root; the module DKMS built there runs a kselftest
# in the VM.  Needs root (debootstrap, chroot).
check-packages:
	bash scripts/deps.sh build vm lint fresh pkg
	bash scripts/check-packages.sh

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	-$(MAKE) -C $(KDIR) M=$(CURDIR)/bench/kmod clean
	-$(MAKE) -C $(KDIR) M=$(CURDIR)/$(SELFTESTS)/kmod clean
	-$(MAKE) -C libhwt clean
	-$(MAKE) -C tools/hwtrace clean
	-$(MAKE) -C tests/kmod clean
	rm -rf $(BUILD)

.PHONY: all module module-sparse lib tools selftests vm-payload check check-vm fuzz install \
	check-vm-smp2 check-vm-smp4 check-vm-numa check-vm-newer check-vm-persist check-vm-persist-newer \
	lint bench bench-insn bench-host bench-payload demo clean dkms-install dkms-uninstall check-packages

# make check-debug: the whole kselftest suite on a debug kernel (clang-16
# with kCFI, KASAN, lockdep, UBSAN, kmemleak, fault injection), built once
# from Debian's linux-source-6.1 and cached outside the repo
# (scripts/debug-kernel/).
check-debug:
	bash scripts/debug-kernel/check.sh

.PHONY: check-debug check-fresh
