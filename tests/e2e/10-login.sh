#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Login over the RDMA/CM; the null_blk LUN appears with the right size,
# vendor and unit serial number. BREAK=acl leaves the ACL out (must fail).
# timeout: 90
. "$REPO/tests/lib.sh"
set -e
rxe_setup
srpt_load
dev=$(bs_null nb0 100)
bs=$(lio_iblock nb0 "$dev")
lio_serial "$bs" e2e-login-nb0
srpt_target_create
srpt_lun 0 "$bs"
if breaking acl; then
	log "BREAK=acl: not creating the initiator's ACL; this scenario must fail"
else
	srpt_acl_add
fi
srpt_enable
srp_login
disk=$(srp_disk 0)
check_disk "$disk" $((100 * 1048576)) e2e-login-nb0
acl=$(tpg_dir)/acls/$(initiator_acl_name)
log "ACL info: $(tr '\n' ' ' <"$acl/info" 2>/dev/null)"
dd if="$disk" of=/dev/null bs=1M count=4 iflag=direct status=none
log "read 4 MiB"
