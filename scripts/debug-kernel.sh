#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The debug guest kernel: the newest linux-source of Debian sid (default,
# DEBUG_KTREE=newest: the tree `make patch KTREE=newest` uses, fetched with
# a private apt configuration; DEBUG_KTREE=6.12 builds Debian 12's
# linux-source-6.12 instead) with KASAN, lockdep, DEBUG_ATOMIC_SLEEP,
# debug objects, KFENCE, kmemleak, UBSAN and the lockup detectors, and the
# small set of drivers the VM tiers use (scripts/debug-kernel.config on top
# of allnoconfig), with one soft-RoCE fix (scripts/debug-kernel-rxe.patch).
# Built once
# per source version and config hash:
#   $CACHE/debug/<key>/obj         the O= build tree (KDIR for our module)
#   $CACHE/debug/<key>/bzImage     the kernel QEMU boots
#   $CACHE/debug/<key>/mods/lib/modules/<release>/   its modules
#   $CACHE/debug/<key>/release     <release> (<version>-srpt-debug)
# Usage: scripts/debug-kernel.sh [--kdir|--dir|--release]
#   prints the build tree, the key directory (default) or the release.
# Builds under the shared heavy lock; the source tree is the KUnit one
# ($CACHE/kunit/linux-<KTREE>, unpacked without the upstream srpt driver).
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
. "$REPO/scripts/lib.sh"
CACHE=${CACHE:-/var/cache/ib_srpt}
what=${1:---dir}

ktree=${DEBUG_KTREE:-newest}
# The newest tree comes from sid: build tools are all it needs, so that
# make check can start it before the rest of the packages are installed.
deps=kunit
[ "$ktree" != newest ] || deps=tools
"$REPO/scripts/deps.sh" $deps >&2 || { say "scripts/deps.sh $deps failed"; exit 1; }
mkdir -p "$CACHE/kunit"
if [ "$ktree" = newest ]; then
	# The sid download, shared with kunit.sh and patch.sh (which hold
	# this lock while they prepare the newest tree).
	exec 8>"$CACHE/kunit/prepare-newest.lock"
	flock 8
fi
ktree_tarball "$ktree" "$CACHE/kunit/sid-apt" >&2 ||
	{ say "no source for DEBUG_KTREE=$ktree"; exit 1; }
[ "$ktree" != newest ] || exec 8>&-
frag=$REPO/scripts/debug-kernel.config
fix=$REPO/scripts/debug-kernel-rxe.patch
key=$srcver-$(cat "$frag" "$fix" | sha1sum | cut -c1-10)
dir=$CACHE/debug/$key
obj=$dir/obj

print() {
	case "$what" in
	--kdir) echo "$obj" ;;
	--release) cat "$dir/release" ;;
	*) echo "$dir" ;;
	esac
}
if [ -s "$dir/release" ] && [ -s "$dir/bzImage" ]; then
	print
	exit 0
fi

# The KUnit tree's prepare lock: kunit.sh rewrites its srpt directory.
tree=$CACHE/kunit/linux-$ktree
mkdir -p "$dir"
exec 9>"$CACHE/kunit/prepare-$ktree.lock"
flock 9
unpack_tree "$tarball" "$srcver" "$tree" "$CACHE/kunit/build-$ktree" ||
	{ say "cannot unpack $tarball"; exit 1; }
# The soft-RoCE fix the fuzzer needs (the patch says why); applied once,
# the tree is shared with the KUnit tier.
if ! patch -d "$tree" -p1 -R -s -f --dry-run <"$fix" >/dev/null 2>&1; then
	patch -d "$tree" -p1 -N -s <"$fix" || { say "cannot apply $fix"; exit 1; }
fi
# drivers/infiniband/Kconfig sources srpt/Kconfig: ours, never built here
# (our module is built out of tree against $obj).
mkdir -p "$tree/drivers/infiniband/ulp/srpt"
for f in Kconfig Makefile; do
	ln -sfn "$REPO/$f" "$tree/drivers/infiniband/ulp/srpt/$f"
done

# A configuration change rebuilds only what it touches: start from the
# newest earlier build of the same source.
if [ ! -d "$obj" ]; then
	prev=$(ls -dt "$CACHE/debug/$srcver"-*/obj 2>/dev/null | head -n 1 || true)
	[ -z "$prev" ] || cp -a "$prev" "$obj"
fi
log=$dir/build.log
t0=$(date +%s)
say "building the debug kernel ($key) into $obj; log in $log"
mkdir -p "$obj"
mk() { make -C "$tree" O="$obj" ARCH=x86_64 "$@"; }
{
	mk KCONFIG_ALLCONFIG="$frag" allnoconfig &&
	mk olddefconfig
} >"$log" 2>&1 || { tail -n 20 "$log" >&2; say "configuration failed"; exit 1; }

# Kconfig drops what it cannot satisfy without a word: name each one.
missing=0
while IFS= read -r line; do
	case "$line" in CONFIG_*=*) ;; *) continue ;; esac
	if ! grep -qxF "$line" "$obj/.config"; then
		say "requested $line, the configuration has: $(grep -E "^(# )?${line%%=*}[= ]" "$obj/.config" || echo nothing)"
		missing=1
	fi
done <"$frag"
[ "$missing" = 0 ] || { say "fix scripts/debug-kernel.config"; exit 1; }

flock "$(heavy_lock)" make -C "$tree" O="$obj" ARCH=x86_64 -j"$(nproc)" bzImage modules >>"$log" 2>&1 ||
	{ tail -n 30 "$log" >&2; say "build failed; see $log"; exit 1; }
rm -rf "$dir/mods"
mk INSTALL_MOD_PATH="$dir/mods" modules_install >>"$log" 2>&1 ||
	{ tail -n 20 "$log" >&2; say "modules_install failed"; exit 1; }
cp "$obj/arch/x86/boot/bzImage" "$dir/bzImage"
mk -s kernelrelease >"$dir/release"
say "built $(cat "$dir/release") in $(( $(date +%s) - t0 ))s"
print
