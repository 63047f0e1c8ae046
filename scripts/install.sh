#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Install our ib_srpt.ko the way admins install modules.
#   scripts/install.sh install     (make install)   build, copy to
#       $DESTDIR/lib/modules/<release>/updates/ib_srpt.ko, depmod
#       (KO=<built ib_srpt.ko>: install that one, for the kernel it is for)
#   scripts/install.sh uninstall   (make uninstall) remove ours again (for
#       KVER, else for every kernel, and every DKMS version), depmod
#   scripts/install.sh dkms        (make dkms)      dkms add/build/install
#       for KVER, or for every installed kernel that has headers
# <release>: KVER (a release, or a series such as 6.12), else the kernel
# scripts/build.sh builds for (the running one when its headers exist).
# depmod searches updates/ before the kernel's own kernel/ directory, so
# afterwards `modprobe ib_srpt` loads ours instead of the distribution's.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/scripts/lib.sh"
CACHE=${CACHE:-/var/cache/ib_srpt}
DESTDIR=${DESTDIR:-}
what=${1:-install}


# dkms.conf's version plus the commit, e.g. 1.0+g1541f4f.
version() {
	local v h
	v=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$src/dkms.conf")
	h=$(git -C "$src" rev-parse --short HEAD 2>/dev/null || true)
	echo "$v${h:++g$h}"
}

case "$what" in
install)
	if [ -n "${KO:-}" ]; then
		# An already built module: install it for the kernel it is for.
		ko=$KO
		rel=$(modinfo -F vermagic "$ko" | cut -d' ' -f1)
		[ -n "$rel" ] || { say "$ko: not a kernel module"; exit 1; }
	else
		out=${BUILD_OUT:-}
		if [ -z "$out" ]; then
			out=$(mktemp -d "${TMPDIR:-/tmp}/ib_srpt-install.XXXXXX")
			trap 'rm -rf "$out"' EXIT
		fi
		BUILD_OUT=$out "$src/scripts/build.sh" >&2
		rel=$(cat "$out/kernelrelease")
		ko=$out/ib_srpt.ko
	fi
	dst=$DESTDIR/lib/modules/$rel/updates
	install -D -m 0644 "$ko" "$dst/ib_srpt.ko"
	say "installed $dst/ib_srpt.ko"
	if [ -n "$DESTDIR" ]; then
		depmod -b "$DESTDIR" -a "$rel"
	else
		depmod -a "$rel"
		got=$(modinfo -k "$rel" -n ib_srpt 2>/dev/null || true)
		say "modprobe ib_srpt on $rel now loads: $got"
		[ "$got" = "$dst/ib_srpt.ko" ] ||
			say "WARNING: that is not ours; check /etc/depmod.d/ (\"search updates ...\" must come first)"
		[ "$rel" = "$(uname -r)" ] ||
			say "note: built and installed for $rel, not for the running kernel $(uname -r)"
		if grep -qw '^ib_srpt' /proc/modules 2>/dev/null && [ "$rel" = "$(uname -r)" ]; then
			say "an ib_srpt is loaded now: remove its configuration, then 'modprobe -r ib_srpt; modprobe ib_srpt'"
		fi
	fi
	;;
uninstall)
	# KVER: that kernel only; unset: every kernel, and every DKMS version.
	if [ -z "$DESTDIR" ] && [ -z "${KVER:-}" ] && command -v dkms >/dev/null; then
		for v in $(dkms status -m ib_srpt 2>/dev/null | sed -n 's|^ib_srpt/\([^,:]*\).*|\1|p' | sort -u); do
			dkms remove -m ib_srpt -v "$v" --all >&2 && say "removed DKMS ib_srpt/$v"
			rm -rf "/usr/src/ib_srpt-$v"
		done
	fi
	for d in "$DESTDIR"/lib/modules/${KVER:-*}; do
		[ -d "$d" ] || continue
		rel=$(basename "$d")
		[ -f "$d/updates/ib_srpt.ko" ] || continue
		rm -f "$d/updates/ib_srpt.ko"
		if [ -n "$DESTDIR" ]; then depmod -b "$DESTDIR" -a "$rel"; else depmod -a "$rel"; fi
		say "removed $d/updates/ib_srpt.ko"
	done
	;;
dkms)
	command -v dkms >/dev/null || { say "dkms is not installed (scripts/deps.sh dkms)"; exit 1; }
	ver=$(version)
	tree=/usr/src/ib_srpt-$ver
	rm -rf "$tree"
	mkdir -p "$tree"
	cp -r "$src"/{Makefile,Kconfig,ib_srpt.c,ib_srpt.h,ib_srpt_compat.h,ib_srpt_trace.h,kunit} "$tree/"
	sed "s/^PACKAGE_VERSION=.*/PACKAGE_VERSION=\"$ver\"/" "$src/dkms.conf" >"$tree/dkms.conf"
	dkms status -m ib_srpt -v "$ver" 2>/dev/null | grep -q . && dkms remove -m ib_srpt -v "$ver" --all >&2 || true
	dkms add -m ib_srpt -v "$ver" >&2
	# KVER: a release with headers, or a series (6.1, 6.12) for all of its
	# releases with headers; unset: every kernel with headers.
	# (No process substitution: the test guests have no /dev/fd.)
	kernels=()
	for k in $(headers_releases "${KVER:-}"); do
		kernels+=("$k")
	done
	[ ${#kernels[@]} -gt 0 ] || { say "no kernel headers${KVER:+ for $KVER} under /lib/modules"; exit 1; }
	for k in "${kernels[@]}"; do
		dkms build -m ib_srpt -v "$ver" -k "$k" >&2
		dkms install -m ib_srpt -v "$ver" -k "$k" --force >&2
		say "$k: modprobe ib_srpt loads $(modinfo -k "$k" -n ib_srpt)"
	done
	dkms status -m ib_srpt >&2
	;;
*) echo "usage: $0 install|uninstall|dkms" >&2; exit 2 ;;
esac
