#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# PID 1 of the test guest booted by scripts/vm.sh, after switch_root into the
# overlay (host root read-only over 9p + tmpfs). Mounts the pseudo file
# systems, runs $RUN from /out/vm.env, saves dmesg and the exit status to /out,
# and powers the guest off. Never returns.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb LANG=C.UTF-8

finish() {
	kill "$heartbeat" 2>/dev/null
	/usr/bin/dmesg >/out/dmesg.txt 2>&1
	echo "$1" >/out/rc
	sync
	/usr/bin/umount /out 2>/dev/null
	echo "## guest: powering off (status $1)" >/dev/console
	echo o >/proc/sysrq-trigger
	# Wait with builtins only: the power-off unmounts the 9p root, and an
	# external sleep that is still loading then kills PID 1 (a panic).
	# A kernel without ACPI (the debug kernel) cannot power off: reboot,
	# which QEMU's -no-reboot turns into its exit.
	local t=$((SECONDS + 5))
	while [ "$SECONDS" -lt "$t" ]; do :; done
	echo b >/proc/sysrq-trigger
	while :; do :; done
}

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
# What udev or systemd would add: bash's <(...) needs /dev/fd (dkms uses it).
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
# The checkout may live below a directory that gets a tmpfs here (a CI
# clone under /tmp, say): keep it reachable at the same path.
repo=$(sed -n 's/^REPO=//p' /out/vm.env)
keep=
case "$repo" in
/tmp/*|/run/*|/dev/shm/*)
	keep=/.srpt-repo
	mkdir -p "$keep"
	mount --bind "$repo" "$keep"
	;;
esac
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /tmp
if [ -n "$keep" ]; then
	mkdir -p "$repo"
	mount --bind "$keep" "$repo"
fi
# The debug kernel's modules live in the cache (scripts/debug-kernel.sh).
kmod=$(sed -n 's/^KMODDIR=//p' /out/vm.env)
if [ -n "$kmod" ] && [ ! -e "/lib/modules/$(uname -r)" ]; then
	ln -s "$kmod" "/lib/modules/$(uname -r)"
fi
modprobe -q configfs
mount -t configfs configfs /sys/kernel/config
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mkdir -p /run/lock /var/tmp /etc/target /root
exec </dev/null >/dev/console 2>&1

set -a
. /out/vm.env
set +a
echo "## guest: up after $(cut -d' ' -f1 /proc/uptime)s, kernel $(uname -r), module $MODULE"
# vm.sh's watchdog kills a guest whose heartbeat and console stand still.
( while :; do echo "$SECONDS" >/out/.heartbeat; sleep 15; done ) &
heartbeat=$!
# Judge only what the tests leave behind, not what boot did.
if [ -w /sys/kernel/debug/kmemleak ]; then
	echo scan >/sys/kernel/debug/kmemleak
	echo scan >/sys/kernel/debug/kmemleak
	echo clear >/sys/kernel/debug/kmemleak
fi

hostname srpt-guest
sysctl -qw kernel.hung_task_timeout_secs=120 kernel.printk_ratelimit=0 2>/dev/null
ip link set lo up
# No udev runs in the guest, so nothing auto-loads modules behind our back;
# MODULE=ours additionally forbids the distro ib_srpt (see tests/lib.sh).

# Run the script; leave a margin under the host timeout to save dmesg.
budget=$(( ${VM_TIMEOUT:-900} - 20 ))
[ "$budget" -gt 30 ] || budget=30
cd /tmp
timeout -k 5 "$budget" /bin/bash "$RUN" 2>&1 | tee /out/guest.log
rc=${PIPESTATUS[0]}
[ "$rc" = 124 ] && echo "## guest: script timed out after ${budget}s"
finish "$rc"
