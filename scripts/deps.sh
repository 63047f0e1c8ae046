#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Install everything the build, the VM bench, KUnit and the hostile-initiator
# tests need, from Debian's archive only. Idempotent and quiet when all is
# present. Usage: scripts/deps.sh [build|vm|kunit|all]   (default: all)
set -euo pipefail

what=${1:-all}
export DEBIAN_FRONTEND=noninteractive

BPO=/etc/apt/sources.list.d/bookworm-backports.list
STAMP=/var/cache/ib_srpt/apt-updated

say() { echo "deps: $*" >&2; }

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
		say "adding bookworm-backports"
		echo 'deb http://deb.debian.org/debian bookworm-backports main' >"$BPO"
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

build_pkgs=(build-essential bc flex bison libelf-dev libssl-dev kmod cpio
	    sparse python3 git rsync xz-utils linux-headers-amd64)
vm_pkgs=(linux-image-amd64 qemu-system-x86 busybox-static rdma-core
	 ibverbs-utils rdmacm-utils libibverbs-dev librdmacm-dev targetcli-fb
	 python3-rtslib-fb fio sg3-utils iproute2 dmsetup multipath-tools
	 procps util-linux e2fsprogs dbus nvme-cli perftest linux-perf)
kunit_pkgs=(linux-source-6.12 python3)

ensure_backports
case "$what" in
build) need "${build_pkgs[@]}" ;;
vm) need "${build_pkgs[@]}" "${vm_pkgs[@]}" ;;
kunit) need "${build_pkgs[@]}" "${kunit_pkgs[@]}" ;;
all) need "${build_pkgs[@]}" "${vm_pkgs[@]}" "${kunit_pkgs[@]}" ;;
*) echo "usage: $0 [build|vm|kunit|all]" >&2; exit 2 ;;
esac

if [ -z "$(installed_612)" ] || [ ! -d "/usr/src/linux-headers-$(basename "$(installed_612)")" ]; then
	apt_update
	abi=$(abi_612)
	[ -n "$abi" ] || { say "no 6.12 kernel in bookworm-backports"; exit 1; }
	# By exact name: -t bookworm-backports would drag unrelated upgrades.
	need "linux-image-${abi}-amd64-unsigned" "linux-headers-${abi}-amd64"
fi
exit 0
