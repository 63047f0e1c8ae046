#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Write then read back with fio verify=crc32c, direct I/O: 4k random at
# QD16 and 1M sequential at QD4, on a brd (RAM disk) LUN.
# timeout: 150
. "$REPO/tests/lib.sh"
set -e
rxe_setup
srpt_load
dev=$(bs_brd 96)
bs=$(lio_iblock ram0 "$dev")
srpt_serve "$bs"
srp_login
disk=$(srp_disk 0)
expect_eq "size of $disk" "$(blockdev --getsize64 "$disk")" $((96 * 1048576))
fio_verify "$disk" 4k randwrite 32M 16
fio_verify "$disk" 1M write 64M 4
