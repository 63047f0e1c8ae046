#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Two LUNs (null_blk and a file) behind one target port; both appear with
# their own size and serial; data written to LUN 1 reads back.
# timeout: 120
. "$REPO/tests/lib.sh"
set -e
rxe_setup
srpt_load
dev=$(bs_null nb0 48)
bs0=$(lio_iblock nb0 "$dev")
lio_serial "$bs0" e2e-two-nb0
bs1=$(lio_fileio f1 /tmp/lun-f1.img 80)
lio_serial "$bs1" e2e-two-f1
srpt_target_create
srpt_lun 0 "$bs0"
srpt_lun 1 "$bs1"
srpt_acl_add
srpt_enable
srp_login
d0=$(srp_disk 0)
d1=$(srp_disk 1)
check_disk "$d0" $((48 * 1048576)) e2e-two-nb0
check_disk "$d1" $((80 * 1048576)) e2e-two-f1
fio_verify "$d1" 1M write 32M 4
fio_verify "$d0" 4k randwrite 8M 8
