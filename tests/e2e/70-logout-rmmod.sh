#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Logout (ib_srp remote port delete) and `rmmod ib_srpt` leave nothing
# behind: no configfs leftovers, module refcount 0, module gone.
# timeout: 120
. "$REPO/tests/lib.sh"
set -e
disk=$(srpt_standard_setup 64)
fio_verify "$disk" 4k randwrite 8M 8
srp_logout
expect_eq "srp disks after logout" "$(srp_disks | tr '\n' ' ')" ""
sleep 1
srpt_teardown
srpt_leftovers || die "configfs leftovers after teardown"
[ -d "$SRPT_CFS" ] && die "$SRPT_CFS still present"
expect_eq "ib_srpt refcnt" "$(srpt_refcnt)" 0
rmmod ib_srpt
grep -qw '^ib_srpt' /proc/modules && die "ib_srpt still loaded"
[ -d /sys/module/ib_srpt ] && die "/sys/module/ib_srpt still present"
log "ib_srpt unloaded cleanly"
# Load again and log in again: nothing stale survives the reload.
disk=$(srpt_standard_setup 32)
expect_eq "size after reload" "$(blockdev --getsize64 "$disk")" $((32 * 1048576))
