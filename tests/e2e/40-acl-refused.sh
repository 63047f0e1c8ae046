#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# An initiator without an ACL is refused and sees no LUN (the only ACL is
# for another initiator port).
# timeout: 90
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
if srp_login 2>/tmp/login.err; then
	die "login without an ACL was accepted"
fi
log "login refused as expected: $(cat /tmp/login.err)"
sleep 2
expect_eq "ib_srp SCSI hosts" "$(srp_hosts | tr '\n' ' ')" ""
expect_eq "srp disks" "$(srp_disks | tr '\n' ' ')" ""
