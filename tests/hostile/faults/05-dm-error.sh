#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A dm-error backstore: READ and WRITE must end in CHECK CONDITION.
. "$REPO/tests/hostile/guest-lib.sh"
bad=0
modprobe -a dm_mod target_core_iblock || { echo "no dm_mod/target_core_iblock"; exit 1; }
dev=$(h_dm hostile_err "0 65536 error") || { echo "dmsetup failed"; exit 1; }
h_iblock_lun herr "$dev" 1 || bad=1
h_tool io_error_lun -L 1 >/tmp/f.out 2>&1
grep -vE "^[0-9]+ passed" /tmp/f.out
grep -q "^PASS io_error_lun" /tmp/f.out || bad=1
h_iblock_unlun herr 1 || bad=1
h_dm_remove hostile_err || { echo "dmsetup remove failed (still open?)"; bad=1; }
exit $bad
