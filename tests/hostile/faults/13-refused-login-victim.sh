#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A login that will be refused must not log anyone out first. The victim's
# only ACL is its IP address on the GUID-named target port; a single-channel
# login that copies its port ID from another address has no ACL, is
# refused, and the victim's channel must stay live. With an ACL for the
# other address, the same login is accepted beside the victim's channel.
. "$REPO/tests/hostile/guest-lib.sh"
VICTIM=76696374696d00000000000000000001	# "victim\0" || 1: in no GID-port ACL
ATTACKER=fd00::3
g=$(gid0_hex)
guid=$(echo "${g:16:16}" | sed -E 's/(....)(....)(....)(....)/\1:\2:\3:\4/')
tpg=$SRPT_CFS/$guid/tpgt_1
acl=$tpg/acls/$TARGET_ADDR
acl2=$tpg/acls/$ATTACKER
cleanup() {
	rm -f "$acl/lun_0/map" "$acl2/lun_0/map" "$tpg/lun/lun_0/hostile_rd"
	rmdir "$acl/lun_0" "$acl" "$acl2/lun_0" "$acl2" 2>/dev/null
	echo 0 >"$tpg/enable" 2>/dev/null
	rmdir "$tpg/lun/lun_0" "$tpg" "$SRPT_CFS/$guid" 2>/dev/null
	/usr/sbin/ip -6 addr del "$ATTACKER/64" dev v0 2>/dev/null
}
trap cleanup EXIT
bad=0
mkdir -p "$tpg/lun/lun_0" || { echo "cannot create $tpg"; exit 1; }
ln -s "$LIO/core/rd_mcp_0/hostile_rd" "$tpg/lun/lun_0/hostile_rd" || exit 1
h_acl "$TARGET_ADDR" 0 "$tpg" || { echo "cannot create ACL $TARGET_ADDR"; exit 1; }
echo 1 >"$tpg/enable" || { echo "cannot enable $tpg"; exit 1; }
/usr/sbin/ip -6 addr add "$ATTACKER/64" dev v0 nodad || { echo "cannot add $ATTACKER"; exit 1; }
# rxe adds the address's GID from a netdev event: wait until it is there.
want=fd00:0000:0000:0000:0000:0000:0000:0003
wait_for 10 grep -qs "$want" /sys/class/infiniband/rxe0/ports/1/gids/* ||
	echo "note: no GID for $ATTACKER after 10 s (the login from it will show)"
ATTACKER_SRC=$ATTACKER h_tool refused_login_keeps_victim -I "$VICTIM" || bad=1
# Admitted under an ACL of its own, the claimer is another initiator: its
# single-channel login replaces only its own channels.
h_acl "$ATTACKER" 0 "$tpg" || { echo "cannot create ACL $ATTACKER"; exit 1; }
ATTACKER_SRC=$ATTACKER h_tool admitted_claimer_keeps_victim -I "$VICTIM" || bad=1
exit $bad
