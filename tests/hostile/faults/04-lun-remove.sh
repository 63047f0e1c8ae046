#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Remove the hostile initiator's LUN mapping and the TPG LUN behind it while
# a channel is open: commands must then fail (CHECK CONDITION), not hang.
# Put everything back afterwards.
. "$REPO/tests/hostile/guest-lib.sh"
bad=0
acl=$H_TPG/acls/0x$H_IPORT
# A storm of logins with outstanding commands runs while the LUN goes away.
h_tool disconnect_storm -n >/tmp/f.storm 2>&1 &
storm=$!
sleep 2
rm -f "$acl/lun_0/map" && rmdir "$acl/lun_0" || { echo "cannot unmap"; bad=1; }
rm -f "$H_TPG/lun/lun_1/hostile_rd" && rmdir "$H_TPG/lun/lun_1" || { echo "cannot remove lun_1"; bad=1; }
wait $storm
grep -E '^(PASS|FAIL)' /tmp/f.storm | sed 's/^/storm (result not judged): /'
h_tool sanity -n >/tmp/f.out 2>&1
if grep -q 'status 0x02' /tmp/f.out; then
	echo "without a LUN: $(grep -E '^FAIL' /tmp/f.out)"
elif grep -q '^PASS' /tmp/f.out; then
	echo "I/O to a removed LUN succeeded"; bad=1
else
	echo "without a LUN, expected CHECK CONDITION: $(grep -E '^FAIL' /tmp/f.out)"; bad=1
fi
mkdir -p "$H_TPG/lun/lun_1" && ln -s "$H_CFG/core/rd_mcp_0/hostile_rd" "$H_TPG/lun/lun_1/hostile_rd" &&
	h_acl "0x$H_IPORT" 1 || { echo "cannot restore the LUN"; bad=1; }
h_tool sanity | grep -E '^(PASS|FAIL)' | grep -q '^PASS' || { echo "sanity failed after restoring the LUN"; bad=1; }
exit $bad
