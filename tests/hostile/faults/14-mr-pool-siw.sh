#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 300
# A command that needs more memory registrations than its channel can ever
# have must fail, not retry for ever. Over iWARP every RDMA READ (a WRITE's
# data) needs one; a channel's pool holds srp_sq_size of them, raised to
# what srp_max_rdma_size needs in page-sized pieces. A soft-iWARP device
# (siwh on veth v4, 10.93.0.1) gets its own target port with the hostile
# LUN, srp_sq_size 16 and srp_max_rdma_size 64 KiB (a pool of 32), and the
# hostile initiator logs in over it and runs mr_pool_exhaust: a WRITE of
# 64 KiB in 2048 pieces of 32 bytes must be answered with CHECK CONDITION
# within 30 s, the target must say why, and the channel must serve a READ
# afterwards.
. "$REPO/tests/hostile/guest-lib.sh"
ADDR=10.93.0.1
TPG2=
cleanup() {
	if [ -n "$TPG2" ] && [ -d "$TPG2" ]; then
		echo 0 >"$TPG2/enable"
		rm -f "$TPG2/acls/0x$H_IPORT/lun_0/map" "$TPG2/lun/lun_0/hostile_rd"
		rmdir "$TPG2/acls/0x$H_IPORT/lun_0" "$TPG2/acls/0x$H_IPORT" \
			"$TPG2/lun/lun_0" "$TPG2" "$(dirname "$TPG2")" ||
			echo "cleanup: cannot remove the siwh target port"
	fi
	run_deadline 60 rdma link delete siwh 2>/dev/null
	ip link del v4 2>/dev/null
}
trap cleanup EXIT
siw_load || { echo "cannot load siw (SIW_KO='${SIW_KO:-}')"; exit 1; }
ip link add v4 type veth peer name v5 && ip link set v4 up && ip link set v5 up &&
	ip -4 addr add "$ADDR/24" dev v4 && ip -4 addr add 10.93.0.2/24 dev v5 ||
	{ echo "cannot set up veth v4/v5"; exit 1; }
rdma link add siwh type siw netdev v4 || { echo "cannot add siwh"; exit 1; }
wait_for 20 grep -q ACTIVE /sys/class/infiniband/siwh/ports/1/state ||
	{ echo "siwh port not ACTIVE"; exit 1; }
TPG2=$SRPT_CFS/0x$(tr -d : </sys/class/infiniband/siwh/ports/1/gids/0)/tpgt_1
mkdir -p "$TPG2/lun/lun_0" && ln -s "$LIO/core/rd_mcp_0/hostile_rd" "$TPG2/lun/lun_0/hostile_rd" ||
	{ echo "cannot create the siwh target port"; exit 1; }
h_acl "0x$H_IPORT" 0 "$TPG2" || { echo "cannot create the hostile ACL on siwh"; exit 1; }
echo 16 >"$TPG2/attrib/srp_sq_size" && echo 65536 >"$TPG2/attrib/srp_max_rdma_size" ||
	{ echo "cannot set srp_sq_size / srp_max_rdma_size"; exit 1; }
echo 1 >"$TPG2/enable" || { echo "cannot enable the siwh TPG"; exit 1; }
mark=$(dmesg | wc -l)
timeout -k 5 120 "$HOSTILE" -a "$ADDR" -p "$RDMA_CM_PORT" -g "$H_GUID" -I "$H_IPORT" \
	-c mr_pool_exhaust -t 60
rc=$?
dmesg | tail -n +"$((mark + 1))" | grep -F "memory registrations" | head -n 2
dmesg | tail -n +"$((mark + 1))" | grep -qF "needs 2048 memory registrations" ||
	{ echo "the target did not say the WRITE needs 2048 memory registrations"; rc=1; }
exit "$rc"
