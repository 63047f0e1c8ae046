#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A dm-error backstore: READ and WRITE must end in CHECK CONDITION.
. "$REPO/tests/hostile/guest-lib.sh"
bad=0
modprobe -a dm_mod target_core_iblock || { echo "no dm_mod/target_core_iblock"; exit 1; }
dmsetup create hostile_err --table "0 65536 error" || { echo "dmsetup failed"; exit 1; }
h_wait 10 test -b /dev/mapper/hostile_err || h_wait 5 test -b /dev/dm-0
dev=/dev/mapper/hostile_err
[ -b "$dev" ] || dev=/dev/dm-0
d=$H_CFG/core/iblock_0/herr
mkdir -p "$d" && echo "udev_path=$dev" >"$d/control" && echo 1 >"$d/enable" ||
	{ echo "cannot create the iblock backstore"; bad=1; }
acl=$H_TPG/acls/0x$H_IPORT
mkdir -p "$H_TPG/lun/lun_2" && ln -s "$d" "$H_TPG/lun/lun_2/herr" &&
	mkdir -p "$acl/lun_1" && ln -s "$H_TPG/lun/lun_2" "$acl/lun_1/map" ||
	{ echo "cannot map the failing LUN"; bad=1; }
h_tool io_error_lun -L 1 >/tmp/f.out 2>&1
grep -vE "^[0-9]+ passed" /tmp/f.out
grep -q "^PASS io_error_lun" /tmp/f.out || bad=1
rm -f "$acl/lun_1/map"; rmdir "$acl/lun_1"
rm -f "$H_TPG/lun/lun_2/herr"; rmdir "$H_TPG/lun/lun_2"
rmdir "$d" "$H_CFG/core/iblock_0" 2>/dev/null
dmsetup remove hostile_err || { echo "dmsetup remove failed (still open?)"; bad=1; }
exit $bad
