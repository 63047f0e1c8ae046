#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build the soft-iWARP driver (siw.ko) for a guest kernel. Debian's kernels
# do not ship it (CONFIG_RDMA_SIW is not set), so TRANSPORT=siw builds it out
# of tree from the matching linux-source package against the installed
# headers, once, and caches it:
#   scripts/siw.sh KVER_SERIES_OR_RELEASE      (6.12, or 6.12.117+deb12-amd64)
# prints the path of siw.ko on success:
#   $CACHE/siw/<release>/siw.ko
# Needs /usr/src/linux-source-<series>.tar.xz (package linux-source-<series>,
# installed by scripts/deps.sh for 6.12) of the same upstream version as the
# headers. Takes the shared heavy lock while compiling.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
. "$REPO/scripts/lib.sh"
CACHE=${CACHE:-/var/cache/ib_srpt}
LOCK=$(heavy_lock)
k=${1:-${KVER:-6.12}}

rel=$(newest_headers "$k")
[ -n "$rel" ] ||
	{ say "no kernel headers for '$k'"; exit 1; }
series=$(echo "$rel" | grep -oE '^[0-9]+\.[0-9]+')
out=$CACHE/siw/$rel
if [ -s "$out/siw.ko" ]; then
	echo "$out/siw.ko"
	exit 0
fi
tarball=/usr/src/linux-source-$series.tar.xz
# scripts/deps.sh installs linux-source-6.12 (the KUnit tree's source).
[ -r "$tarball" ] || [ "$series" != 6.12 ] || "$(dirname "$0")/deps.sh" kunit >&2 || true
[ -r "$tarball" ] || { say "no $tarball (apt-get install linux-source-$series)"; exit 1; }

# The source must be the headers' upstream version (e.g. 6.12.117).
upstream=$(echo "$rel" | grep -oE '^[0-9]+\.[0-9]+(\.[0-9]+)?')
src=$out/src
if [ "$(cat "$src/.version" 2>/dev/null)" != "$upstream" ]; then
	rm -rf "$out/tmp" "$src"
	mkdir -p "$out/tmp"
	say "unpacking drivers/infiniband/sw/siw from $tarball"
	tar -xJf "$tarball" -C "$out/tmp" --wildcards "linux-source-$series/Makefile" \
		"linux-source-$series/drivers/infiniband/sw/siw/*"
	mv "$out/tmp/linux-source-$series/drivers/infiniband/sw/siw" "$src"
	v=$(awk -F' = ' '/^VERSION/ {a=$2} /^PATCHLEVEL/ {b=$2} /^SUBLEVEL/ {c=$2}
		END { printf "%s.%s%s", a, b, (c != "" && c != "0") ? "." c : "" }' \
		"$out/tmp/linux-source-$series/Makefile")
	rm -rf "$out/tmp"
	[ "$v" = "$upstream" ] ||
		{ say "source is $v, headers are $upstream: refusing to mix them"; exit 1; }
	[ -f "$src/siw_main.c" ] || { say "no siw sources in $tarball"; exit 1; }
	echo "$v" >"$src/.version"
fi

say "building siw.ko for $rel"
flock "$LOCK" make -C "/lib/modules/$rel/build" M="$src" CONFIG_RDMA_SIW=m modules >"$out/build.log" 2>&1 ||
	{ tail -n 20 "$out/build.log" >&2; say "build failed; see $out/build.log"; exit 1; }
cp "$src/siw.ko" "$out/siw.ko"
echo "$out/siw.ko"
