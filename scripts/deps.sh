#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Install what the build, the VM bench, KUnit and the hostile-initiator tests
# need, from Debian's archive only. Idempotent and quiet when all is present;
# otherwise it says what it installs (on stderr) before touching the system.
# Usage: scripts/deps.sh [tools|host|build|vm|kunit|dkms|deb|all]   (default: all)
#   tools  build tools only
#   host   build tools and the running kernel's headers, if Debian has them
#          (plain `make`: never adds an apt source, never installs a kernel)
#   build  build tools and the 6.1 and 6.12 headers the tests build against
#          (adds bookworm-backports for 6.12, and says so)
#   vm     build + the guest kernels, QEMU, rdma-core, targetcli, fio...
#   kunit  build + linux-source-6.12
#   dkms   Debian's dkms package
#   deb    what `make deb` needs: debhelper, dh-dkms, lintian
#   all    build + vm + kunit
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
. "$REPO/scripts/lib.sh"

what=${1:-all}
export DEBIAN_FRONTEND=noninteractive

BPO=/etc/apt/sources.list.d/bookworm-backports.list
STAMP=/var/cache/ib_srpt/apt-updated


apt_update() {
	# Once per hour at most; apt-cache look-ups need fresh lists.
	if [ ! -f "$STAMP" ] || [ -n "$(find "$STAMP" -mmin +60 2>/dev/null)" ]; then
		say "apt-get update"
		apt-get update -qq >/dev/null
		mkdir -p "$(dirname "$STAMP")"
		touch "$STAMP"
	fi
}

ensure_backports() {
	if ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
		say "adding the Debian suite bookworm-backports to apt's sources ($BPO): the tests build for and boot its 6.12 kernel"
		echo "deb $(debian_mirror) bookworm-backports main" >"$BPO"
		rm -f "$STAMP"
	fi
}

# Install the packages that are not installed yet.
need() {
	local missing=() p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	apt_update
	say "installing ${missing[*]}"
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# Newest 6.12 ABI offered by bookworm-backports, e.g. "6.12.95+deb12".
abi_612() {
	apt-cache search --names-only '^linux-image-6\.12\.[0-9]+\+deb12-amd64-unsigned$' |
		sed -E 's/^linux-image-(6\.12\.[0-9]+\+deb12)-amd64-unsigned.*/\1/' |
		sort -V | tail -n 1
}

installed_612() {
	ls -d /lib/modules/6.12.*+deb12-amd64 2>/dev/null | sort -V | tail -n 1
}

tool_pkgs=(build-essential bc flex bison libelf-dev libssl-dev kmod cpio
	   sparse python3 git rsync xz-utils patch)
build_pkgs=("${tool_pkgs[@]}" linux-headers-amd64)
vm_pkgs=(linux-image-amd64 qemu-system-x86 busybox-static rdma-core
	 ibverbs-utils rdmacm-utils libibverbs-dev librdmacm-dev targetcli-fb
	 python3-rtslib-fb fio sg3-utils iproute2 dmsetup multipath-tools udev jq
	 procps util-linux e2fsprogs dbus dkms nvme-cli perftest linux-perf)
kunit_pkgs=(linux-source-6.12 python3)

# The 6.12 kernel (vm: image and headers) or its headers only (build).
need_612() {
	local abi
	if [ -n "$(installed_612)" ] && [ -d "/usr/src/linux-headers-$(basename "$(installed_612)")" ] &&
		{ [ "$1" = headers ] || [ -r "/boot/vmlinuz-$(basename "$(installed_612)")" ]; }; then
		return 0
	fi
	ensure_backports
	apt_update
	abi=$(abi_612)
	[ -n "$abi" ] || { say "no 6.12 kernel in bookworm-backports"; exit 1; }
	# By exact name: -t bookworm-backports would drag unrelated upgrades.
	if [ "$1" = headers ]; then
		need "linux-headers-${abi}-amd64"
	else
		say "the VM tests boot Debian's 6.12 kernel in QEMU: installing linux-image-${abi}-amd64-unsigned (GRUB may then boot it by default on this host)"
		need "linux-image-${abi}-amd64-unsigned" "linux-headers-${abi}-amd64"
	fi
}

# Headers for the running kernel: Debian's package if apt knows it.
need_running_headers() {
	local rel pkg
	rel=$(uname -r)
	[ -d "/lib/modules/$rel/build" ] && return 0
	pkg=linux-headers-$rel
	if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
		apt_update
		if apt-cache show "$pkg" >/dev/null 2>&1; then
			need "$pkg"
			return 0
		fi
	fi
	say "no headers for the running kernel $rel: Debian has no $pkg (a kernel not from Debian?)"
	if [ -z "$(newest_headers "")" ]; then
		say "and no kernel headers at all: installing Debian's linux-headers-amd64"
		need linux-headers-amd64
	fi
}

case "$what" in
tools) need "${tool_pkgs[@]}" ;;
host) need "${tool_pkgs[@]}"; need_running_headers ;;
build) need "${build_pkgs[@]}"; need_612 headers ;;
vm) need "${build_pkgs[@]}" "${vm_pkgs[@]}"; need_612 kernel ;;
kunit) need "${build_pkgs[@]}" "${kunit_pkgs[@]}"; need_612 headers ;;
dkms) need dkms ;;
deb) need debhelper dh-dkms lintian ;;
all) need "${build_pkgs[@]}" "${vm_pkgs[@]}" "${kunit_pkgs[@]}"; need_612 kernel ;;
*) echo "usage: $0 [tools|host|build|vm|kunit|dkms|deb|all]" >&2; exit 2 ;;
esac
exit 0
