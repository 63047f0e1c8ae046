# SPDX-License-Identifier: GPL-2.0-only
#
# In-tree: kbuild reads the obj- line below.
# Out-of-tree: `make` builds ib_srpt.ko for the running kernel (or, when its
# headers are missing, says so and uses the newest installed headers);
# KVER=<release or 6.1/6.12> or KDIR=<build tree> choose another.
# `make install` puts it in /lib/modules/<release>/updates/ and runs depmod.
# The other targets drive the test tiers.

ifneq ($(KERNELRELEASE),)

obj-$(CONFIG_INFINIBAND_SRPT) += ib_srpt.o
ccflags-y += -I$(src)

else

SHELL := /bin/bash
SRC := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
CACHE ?= /var/cache/ib_srpt
MODULE ?= ours
# Empty KVER/KDIR: scripts/build.sh picks the running kernel; the test
# scripts default KVER to 6.12 themselves. Resolved by the scripts, after
# scripts/deps.sh has installed headers, not here.
KVER ?=
KDIR ?=
BUILD_OUT ?=
DESTDIR ?=
TRANSPORT ?= rxe
export KVER KDIR BUILD_OUT MODULE CACHE DESTDIR TRANSPORT

.PHONY: all module deps clean lint e2e bench bench-scale kunit fuzz fuzz-live \
	demo check hostile man install uninstall dkms deb soak

all: module

deps:
	@$(SRC)/scripts/deps.sh all

# Build in a copy outside the repo so no objects land in the work tree.
# Plain `make` only installs build tools and the running kernel's headers
# (and says so); KVER=6.1/6.12 (the test kernels) may add bookworm-backports;
# any other KVER or KDIR: build tools only.
module:
	@case "$(KDIR):$(KVER)" in \
	:) $(SRC)/scripts/deps.sh host ;; \
	:6.1|:6.12) $(SRC)/scripts/deps.sh build ;; \
	*) $(SRC)/scripts/deps.sh tools ;; \
	esac
	@$(SRC)/scripts/build.sh $(EXTRA)

# KO=<path>: install that built module instead of building one.
install:
	@$(SRC)/scripts/install.sh install

uninstall:
	@$(SRC)/scripts/install.sh uninstall

# Register, build and install with DKMS for every installed kernel with
# headers (KVER=<release>: only that one).
dkms:
	@$(SRC)/scripts/deps.sh dkms
	@$(SRC)/scripts/install.sh dkms

# ib-srpt-dkms_<version>_all.deb (debhelper, dh-dkms) in out/ (DEB_OUT=).
deb:
	@$(SRC)/scripts/deb.sh

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

# The ib_srpt_fuzz KUnit suite at length: FUZZ_INPUTS per case (make kunit
# runs 100000), FUZZ_SEED (0: the fixed seeds of make kunit; random: one
# from /dev/urandom; the seeds are printed), FUZZ_SECONDS per case (under
# KUnit's 300 s per case). The kernel command line carries them.
FUZZ_INPUTS ?= 5000000
FUZZ_SEED ?= 0
FUZZ_SECONDS ?= 240

fuzz:
	@seed=$(FUZZ_SEED); \
	[ "$$seed" != random ] || seed=$$(od -An -N8 -tu8 /dev/urandom | tr -d ' '); \
	cases=$$(grep -c '^[[:space:]]*KUNIT_CASE(' $(SRC)/kunit/srpt_fuzz_kunit.c); \
	KUNIT_ARGS="--timeout=$$((cases * $(FUZZ_SECONDS) + 600)) \
		--kernel_args=ib_srpt.fuzz_inputs=$(FUZZ_INPUTS) \
		--kernel_args=ib_srpt.fuzz_seed=$$seed \
		--kernel_args=ib_srpt.fuzz_seconds=$(FUZZ_SECONDS) ib_srpt_fuzz*" \
		$(SRC)/scripts/kunit.sh

# The live fuzzer (hostile case fuzz_live) against the module in a guest:
# FUZZ_LIVE_IUS IUs (default a million), every task attribute
# (FUZZ_LIVE_SIMPLE=1: simple only, as make check runs it), KVER as for
# make hostile; FUZZ_SEED as above (0: a random one, printed).
FUZZ_LIVE_IUS ?= 1000000
FUZZ_LIVE_SIMPLE ?= 0
fuzz-live:
	HOSTILE_CASES=fuzz_live HOSTILE_FAULTS=0 HOSTILE_FUZZ_IUS=$(FUZZ_LIVE_IUS) \
	HOSTILE_FUZZ_SIMPLE=$(FUZZ_LIVE_SIMPLE) \
	HOSTILE_FUZZ_SEED=$(filter-out 0 random,$(FUZZ_SEED)) $(SRC)/scripts/hostile.sh

# The project as a patch series against the KTREE=6.12|newest kernel tree, in
# $(CACHE)/patch/out-<KTREE>/ (OUT=); patch-check also applies it with git am,
# builds it in-tree with W=1 and runs checkpatch --strict on each patch.
patch:
	@$(SRC)/scripts/patch.sh

patch-check:
	@$(SRC)/scripts/patch.sh --check

hostile:
	@$(SRC)/scripts/hostile.sh

# Not part of check: SOAK_MINUTES (default 20) of fio verify under disruptions.
soak:
	@$(SRC)/scripts/soak.sh

demo:
	@$(SRC)/scripts/demo.sh

man:
	@$(SRC)/scripts/man.sh

check:
	@$(SRC)/scripts/check.sh

clean:
	rm -rf $(CACHE)/build-*

endif
