#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Remove a LUN (ACL mapping and TPG LUN) of the hostile initiator while it
# logs in and out with commands outstanding: commands to that LUN must then
# fail with CHECK CONDITION, not hang. (LUN 5 is used: LIO answers LUN 0
# with a virtual read-only LUN when nothing is mapped there.)
. "$REPO/tests/hostile/guest-lib.sh"
bad=0
acl=$H_TPG/acls/0x$H_IPORT
mkdir -p "$H_TPG/lun/lun_5" && ln -s "$LIO/core/rd_mcp_0/hostile_rd" "$H_TPG/lun/lun_5/hostile_rd" &&
	mkdir -p "$acl/lun_5" && ln -s "$H_TPG/lun/lun_5" "$acl/lun_5/map" || { echo "cannot map LUN 5"; exit 1; }
h_sanity -L 5 || { echo "LUN 5 does not work before the removal"; bad=1; }
h_tool disconnect_storm -n -L 5 >/tmp/f.storm 2>&1 &
storm=$!
sleep 2
rm -f "$acl/lun_5/map" && rmdir "$acl/lun_5" || { echo "cannot unmap LUN 5"; bad=1; }
rm -f "$H_TPG/lun/lun_5/hostile_rd" && rmdir "$H_TPG/lun/lun_5" || { echo "cannot remove lun_5"; bad=1; }
wait $storm
grep -E '^(PASS|FAIL)' /tmp/f.storm | sed 's/^/storm (result not judged): /'
h_tool sanity -n -L 5 >/tmp/f.out 2>&1
if grep -q 'status 0x02' /tmp/f.out; then
	echo "LUN 5 removed: $(grep -E '^FAIL' /tmp/f.out)"
elif grep -q '^PASS' /tmp/f.out; then
	echo "I/O to the removed LUN 5 succeeded"; bad=1
else
	echo "LUN 5 removed, expected CHECK CONDITION: $(grep -E '^FAIL' /tmp/f.out)"; bad=1
fi
h_sanity || { echo "LUN 0 no longer works"; bad=1; }
exit $bad
