# SPDX-License-Identifier: GPL-2.0-only
#
# In-tree: kbuild reads the obj- line below.
# Out-of-tree: `make` builds ib_srpt.ko against KDIR (default: newest
# installed Debian kernel headers); the other targets drive the test tiers.

ifneq ($(KERNELRELEASE),)

obj-$(CONFIG_INFINIBAND_SRPT) += ib_srpt.o
ccflags-y += -I$(src)

else

SHELL := /bin/bash
SRC := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
CACHE ?= /var/cache/ib_srpt
KVER ?= 6.12
MODULE ?= ours
export KVER MODULE CACHE

# Newest installed headers for the requested series (6.1 or 6.12).
kdir_for = $(lastword $(sort $(wildcard /lib/modules/$(1).*/build) $(wildcard /lib/modules/$(1)-*/build)))
KDIR ?= $(call kdir_for,$(KVER))
BUILD_OUT ?= $(CACHE)/build-$(KVER)

.PHONY: all module deps clean lint e2e bench bench-scale kunit demo check hostile man

all: module

deps:
	@$(SRC)/scripts/deps.sh all

# Build in a copy outside the repo so no objects land in the work tree.
module:
	@$(SRC)/scripts/deps.sh build
	@$(SRC)/scripts/build.sh "$(KDIR)" "$(BUILD_OUT)" $(EXTRA)

lint:
	@$(SRC)/scripts/lint.sh

e2e:
	@$(SRC)/scripts/e2e.sh

bench:
	@$(SRC)/scripts/bench.sh

bench-scale:
	@BENCH_MAIN=0 BENCH_SCALE=1 $(SRC)/scripts/bench.sh

kunit:
	@$(SRC)/scripts/kunit.sh

hostile:
	@$(SRC)/scripts/hostile.sh

demo:
	@$(SRC)/scripts/demo.sh

man:
	@$(SRC)/scripts/man.sh

check:
	@$(SRC)/scripts/check.sh

clean:
	rm -rf $(CACHE)/build-*

endif
