#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build ib_srpt.ko out of tree: scripts/build.sh [make args...]
# Environment (all optional, from the Makefile):
#   KDIR       kernel build tree; wins over KVER
#   KVER       a kernel release (6.12.117+deb12-amd64) or series (6.12, 6.1):
#              the newest installed headers of that series; "debug": the
#              debug guest kernel (scripts/debug-kernel.sh, built if needed)
#   BUILD_OUT  where the module is built (default $CACHE/build-<KVER or release>)
# Without KDIR and KVER: the running kernel if its headers are installed,
# else (and it says so) the newest installed Debian headers.
# Sources are copied to BUILD_OUT so objects never land in the work tree.
# The chosen release is written to BUILD_OUT/kernelrelease.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${CACHE:-/var/cache/ib_srpt}
kdir=${KDIR:-} kver=${KVER:-} out=${BUILD_OUT:-}

. "$src/scripts/lib.sh"


# KVER=debug: the debug guest kernel's build tree (scripts/debug-kernel.sh).
if [ -z "$kdir" ] && [ "$kver" = debug ]; then
	kdir=$(CACHE=$CACHE "$src/scripts/debug-kernel.sh" --kdir) ||
		{ say "no debug kernel build tree"; exit 1; }
fi
if [ -n "$kdir" ]; then
	[ -d "$kdir" ] || { say "no kernel build tree at KDIR=$kdir"; exit 1; }
	rel=$(make -s -C "$kdir" kernelrelease 2>/dev/null || basename "$(dirname "$kdir")")
elif [ -n "$kver" ]; then
	rel=$(newest_headers "$kver")
	[ -n "$rel" ] || {
		say "no kernel headers for KVER=$kver under /lib/modules/*/build"
		say "install them (Debian: apt-get install linux-headers-<release>; 'scripts/deps.sh build' installs the 6.1 and 6.12 ones) or pass KDIR=<kernel build tree>"
		exit 1
	}
	kdir=/lib/modules/$rel/build
else
	running=$(uname -r)
	if [ -d "/lib/modules/$running/build" ]; then
		rel=$running
		say "building for the running kernel $rel"
	else
		rel=$(newest_headers "")
		if [ -z "$rel" ]; then
			say "no headers for the running kernel $running, and no other kernel headers either"
			say "install them: apt-get install linux-headers-$running (Debian kernels), or linux-headers-amd64; or pass KDIR=<kernel build tree>"
			exit 1
		fi
		say "the running kernel $running has no headers (/lib/modules/$running/build is missing):"
		say "  building for $rel instead; this module will NOT load into $running."
		say "  For the running kernel install its headers (Debian: apt-get install linux-headers-$running)"
		say "  or pass KDIR=<its build tree>; 'make install KVER=$rel' installs this build for $rel."
	fi
	kdir=/lib/modules/$rel/build
fi
[ -n "$out" ] || out=$CACHE/build-${kver:-$rel}

mkdir -p "$out"
for f in Makefile Kconfig ib_srpt.c ib_srpt.h ib_srpt_compat.h ib_srpt_trace.h; do
	[ -f "$src/$f" ] || continue
	cmp -s "$src/$f" "$out/$f" 2>/dev/null || cp "$src/$f" "$out/$f"
done
rm -rf "$out/kunit"; cp -r "$src/kunit" "$out/kunit"
# A failed build must not leave the last good module for the tests to load.
rm -f "$out/ib_srpt.ko" "$out/kernelrelease"
make -C "$kdir" M="$out" CONFIG_INFINIBAND_SRPT=m "$@" modules
echo "$rel" >"$out/kernelrelease"
echo "build: $out/ib_srpt.ko (for $rel)"
