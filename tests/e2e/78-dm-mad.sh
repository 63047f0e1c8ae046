#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Device Management MADs answered live over soft-RoCE (srp_daemon's
# discovery), sent from user space through ib_umad to the target port's
# GID by tests/hostile/srpt_dm.c, every reply checked field by field:
#  - loaded without ib_cm_on_roce, the RoCE port has no DM agent: the MAD
#    core answers every Get "unsupported method/attribute";
#  - with ib_cm_on_roce=1 (and srpt_srq_size, srp_max_req_size that are
#    not the defaults, so the profile is seen to follow them) the agent
#    answers ClassPortInfo, IOUnitInfo, IOControllerProfile (slot 1, the 15
#    empty slots, 0 and 17), ServiceEntries (0-0, ranges beyond the count,
#    slots 2 and 17), a Set, an unknown attribute, an unknown method and a
#    class version no agent serves; an RDMA/CM login still works;
#  - after rmmod nothing answers for the class any more.
# timeout: 180
. "$REPO/tests/lib.sh"
set -e
[ -x "${SRPT_DM:-}" ] || die "no DM client (SRPT_DM=${SRPT_DM:-}): scripts/e2e.sh builds it"
rxe_setup
modprobe ib_umad || die "modprobe ib_umad"
gid=$(gid0_hex)
srpt_load
log "without ib_cm_on_roce:"
"$SRPT_DM" -d "$RXE" -g "$gid" -n || die "the RoCE port answered DM MADs without ib_cm_on_roce"
srpt_unload
srpt_load ib_cm_on_roce=1 srpt_srq_size=1000 srp_max_req_size=8300
log "with ib_cm_on_roce=1:"
"$SRPT_DM" -d "$RXE" -g "$gid" -G "$(target_guid)" -i "SRP target on $RXE" \
	-q 1000 -s 8300 -r $((16 << 20)) || die "DM replies wrong (above)"
dev=$(bs_null nb0 16)
bs=$(lio_iblock nb0 "$dev")
srpt_serve "$bs"
srp_login
disk=$(srp_disk 0)
dd if="$disk" of=/dev/null bs=1M count=4 iflag=direct status=none ||
	die "reading over an RDMA/CM login with the IB CM listening on RoCE"
log "RDMA/CM login and a 4 MiB read work with ib_cm_on_roce=1"
srp_logout
srpt_teardown
srpt_unload
log "after rmmod:"
"$SRPT_DM" -d "$RXE" -g "$gid" -n || die "something still answers DM MADs after rmmod"
