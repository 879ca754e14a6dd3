# SPDX-License-Identifier: GPL-2.0
#
# hwtrace: `make` builds the module, libhwt and the hwtrace tool;
# `make check` runs the host unit tests and the kselftests in a VM.

KDIR	?= $(shell bash scripts/kdir.sh 2>/dev/null)
BUILD	:= $(CURDIR)/build
LINUX_SRC := $(BUILD)/linux-src

all: module lib tools

module:
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 modules

module-sparse:
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 C=2 modules

lib:
	$(MAKE) -C libhwt

tools: lib
	$(MAKE) -C tools/hwtrace

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	-$(MAKE) -C libhwt clean
	-$(MAKE) -C tools/hwtrace clean
	rm -rf $(BUILD)

.PHONY: all module module-sparse lib tools clean
