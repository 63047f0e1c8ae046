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
#    class version no agent serves;
#  - srp-discover (tools/) asks the same agent and prints the add_target
#    lines; a host logs in by writing exactly the line it printed, and reads;
#    its IB CM form (-c) and a link-local address's line (the initiator's
#    interface as scope) are checked too; without the agent, and after
#    rmmod, it finds nothing and says so (exit 1);
#  - after rmmod nothing answers for the class any more.
# timeout: 180
. "$REPO/tests/lib.sh"
set -e
[ -x "${SRPT_DM:-}" ] || die "no DM client (SRPT_DM=${SRPT_DM:-}): scripts/e2e.sh builds it"
[ -x "${SRP_DISCOVER:-}" ] ||
	die "no discovery tool (SRP_DISCOVER=${SRP_DISCOVER:-}): scripts/e2e.sh builds it"
# discover ARGS...: "<srp-discover's exit status>:<its lines>".
discover() {
	local o rc=0
	o=$("$SRP_DISCOVER" -d "$RXE" "$@" 2>/tmp/discover.err) || rc=$?
	cat /tmp/discover.err >&2
	echo "$rc:$o"
}
rxe_setup
modprobe ib_umad || die "modprobe ib_umad"
gid=$(gid0_hex)
srpt_load
log "without ib_cm_on_roce:"
"$SRPT_DM" -d "$RXE" -g "$gid" -n || die "the RoCE port answered DM MADs without ib_cm_on_roce"
out=$(discover -P "$RDMA_CM_PORT" "$TARGET_ADDR")
expect_eq "srp-discover without an agent: exit status, lines" "$out" "1:"
srpt_unload
srpt_load ib_cm_on_roce=1 srpt_srq_size=1000 srp_max_req_size=8300
log "with ib_cm_on_roce=1:"
"$SRPT_DM" -d "$RXE" -g "$gid" -G "$(target_guid)" -i "SRP target on $RXE" \
	-q 1000 -s 8300 -r $((16 << 20)) || die "DM replies wrong (above)"
dev=$(bs_null nb0 16)
bs=$(lio_iblock nb0 "$dev")
srpt_serve "$bs"
G=$(target_guid)
out=$(discover -v -P "$RDMA_CM_PORT" "$TARGET_ADDR")
expect_eq "srp-discover $TARGET_ADDR: exit status, lines" "$out" \
	"0:id_ext=$G,ioc_guid=$G,dest=[$TARGET_ADDR]:$RDMA_CM_PORT"
line=${out#0:}
out=$(discover -c "$TARGET_ADDR")
expect_eq "srp-discover -c: exit status, lines" "$out" \
	"0:id_ext=$G,ioc_guid=$G,dgid=$(python3 -c "import ipaddress,sys; print(ipaddress.ip_address(sys.argv[1]).packed.hex())" "$TARGET_ADDR"),pkey=ffff,service_id=$G"
ll=$(cat "/sys/class/infiniband/$RXE/ports/1/gids/0")
out=$(discover -P "$RDMA_CM_PORT" "$ll")
expect_eq "srp-discover on GID 0 (link-local): exit status, lines" "$out" \
	"0:id_ext=$G,ioc_guid=$G,dest=[$(python3 -c "import ipaddress,sys; print(ipaddress.ip_address(sys.argv[1]))" "$ll")%v0]:$RDMA_CM_PORT"
out=$(discover "$TARGET_ADDR")
expect_eq "srp-discover on RoCE without -P: exit status, lines" "$out" "2:"
srp_initiator_load
d=$(srp_dev_dir "$RXE")
wait_for 10 test -w "$d/add_target" || die "no $d"
log "add_target $line (what srp-discover printed)"
echo "$line" >"$d/add_target" || die "add_target refused srp-discover's line"
disk=$(srp_disk 0)
dd if="$disk" of=/dev/null bs=1M count=4 iflag=direct status=none ||
	die "reading over the login srp-discover's line made"
log "a login from srp-discover's line and a 4 MiB read work with ib_cm_on_roce=1"
srp_logout
srpt_teardown
srpt_unload
log "after rmmod:"
"$SRPT_DM" -d "$RXE" -g "$gid" -n || die "something still answers DM MADs after rmmod"
out=$(discover -P "$RDMA_CM_PORT" "$TARGET_ADDR")
expect_eq "srp-discover after rmmod: exit status, lines" "$out" "1:"
