#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Build ib_srpt.ko out of tree: scripts/build.sh KDIR OUTDIR [make args...]
# Sources are copied to OUTDIR so objects never land in the work tree.
set -euo pipefail
kdir=$1 out=$2
shift 2
src=$(cd "$(dirname "$0")/.." && pwd)
[ -d "$kdir" ] || { echo "build: no kernel headers at '$kdir'" >&2; exit 1; }
mkdir -p "$out"
for f in Makefile Kconfig ib_srpt.c ib_srpt.h ib_srpt_compat.h ib_srpt_trace.h; do
	[ -f "$src/$f" ] || continue
	cmp -s "$src/$f" "$out/$f" 2>/dev/null || cp "$src/$f" "$out/$f"
done
rm -rf "$out/kunit"; cp -r "$src/kunit" "$out/kunit"
make -C "$kdir" M="$out" CONFIG_INFINIBAND_SRPT=m "$@" modules
echo "build: $out/ib_srpt.ko"
