#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# An initiator without an ACL is refused with the SRP reason "unable to
# establish the channel" and sees no LUN (the only ACL is for another
# initiator port); once its own ACL exists the same login gets in.
# timeout: 120
. "$REPO/tests/lib.sh"
set -e
rxe_setup
srpt_load
dev=$(bs_null nb0 64)
bs=$(lio_iblock nb0 "$dev")
srpt_target_create
srpt_lun 0 "$bs"
srpt_acl_add 0x00000000000000001122334455667788
srpt_enable
echo "e2e-acl: refused login" >/dev/kmsg
if srp_login 2>/tmp/login.err; then
	die "login without an ACL was accepted"
fi
log "login refused: $(cat /tmp/login.err)"
sleep 2
expect_eq "ib_srp SCSI hosts" "$(srp_hosts | tr '\n' ' ')" ""
expect_eq "srp disks" "$(srp_disks | tr '\n' ' ')" ""
# The refusal must be the ACL's, on the wire (SRP_LOGIN_REJ reason
# 0x00010000, seen by ib_srp) and in the target's log; any other failure
# of add_target (no listener, a broken target) is not a refusal.
since=$(dmesg | sed -n '/e2e-acl: refused login/,$p')
echo "$since" | grep -q 'no ACL for 0x.*login refused' ||
	die "the target did not log an ACL refusal: $(echo "$since" | tail -n 5 | tr '\n' ';')"
echo "$since" | grep -q 'SRP LOGIN.*REJECTED, reason 0x00010000' ||
	die "ib_srp saw no SRP_LOGIN_REJ with reason 0x00010000: $(echo "$since" | grep -i srp | tail -n 3 | tr '\n' ';')"
log "ok: SRP_LOGIN_REJ, reason 0x00010000 (unable to establish channel)"

# The initiator's own ACL: the same login is accepted and reads data.
srpt_acl_add
srp_login
disk=$(srp_disk 0)
expect_eq "size of $disk" "$(blockdev --getsize64 "$disk")" $((64 * 1048576))
dd if="$disk" of=/dev/null bs=64k count=16 iflag=direct status=none || die "read from $disk"
log "ok: the initiator with an ACL logs in and reads"
srp_logout
