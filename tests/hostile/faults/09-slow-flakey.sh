#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Backstores that misbehave in time. A dm-delay LUN (every I/O held 2 s)
# puts commands in the backend when ABORT TASK and LOGICAL UNIT RESET
# arrive: the TMFs must wait for them, answer FUNCTION COMPLETE, and every
# credit must come back. A dm-flakey LUN (all I/O fails one second out of
# two): every command ends in GOOD or CHECK CONDITION, nothing hangs.
. "$REPO/tests/hostile/guest-lib.sh"
bad=0
modprobe -a dm_mod dm_delay dm_flakey dm_zero target_core_iblock ||
	{ echo "missing dm-delay/dm-flakey/dm-zero/target_core_iblock"; exit 1; }
zero=$(h_dm hostile_zero "0 65536 zero") || { echo "dm-zero failed"; exit 1; }
slow=$(h_dm hostile_slow "0 65536 delay $zero 0 2000") || { echo "dm-delay failed"; bad=1; }
flakey=$(h_dm hostile_flakey "0 65536 flakey $zero 0 1 1") || { echo "dm-flakey failed"; bad=1; }
for c in "abort_inflight hslow $slow 1" "io_flakey_lun hflakey $flakey 2"; do
	set -- $c
	[ -n "$3" ] || continue
	h_iblock_lun "$2" "$3" "$4" || { bad=1; continue; }
	h_tool "$1" -L "$4" >/tmp/f.out 2>&1
	grep -vE "^[0-9]+ passed" /tmp/f.out
	grep -q "^PASS $1" /tmp/f.out || bad=1
	h_iblock_unlun "$2" "$4" || bad=1
done
h_dm_remove hostile_flakey hostile_slow hostile_zero || { echo "dmsetup remove failed (still open?)"; bad=1; }
exit $bad
