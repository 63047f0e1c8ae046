#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Logins through the IB CM over soft-RoCE (ib_cm_on_roce=1), driven by the
# kernel test module tests/ibcm-initiator/srpt_ibcm.c (built by scripts/e2e.sh for
# the guest kernel): a REQ to the service ID carrying an SRP_LOGIN_REQ for
# an initiator port ID that only an ACL names,
#  - REP with SRP_LOGIN_RSP, RTU, a WRITE(10) and a READ(10) of the same 8
#    blocks through direct descriptors, identical data, then a DREQ from the
#    initiator answered by a DREP; the target's channel is released (through
#    its TimeWait) and the ACL shows no session;
#  - the same with an MRA answering the REP and the RTU 1.5 s later, as the
#    Windows (WinOF) initiator logs in;
#  - a wrong target port ID: REJ with SRP_LOGIN_REJ 0x00010003;
#  - logged in, then the ACL removed: the target sends SRP_T_LOGOUT, then
#    the DREQ;
# "Released" is read from the ACL's info and from the RDMA resource tracker
# (no RC QP of ib_srpt left).
#  - the same REQ without ib_cm_on_roce: nobody listens, the IB CM itself
#    rejects it ("invalid service ID").
# A RoCE GID is an address: an IB CM login is served only where an RDMA/CM
# login would be. Refused the same way (invalid service ID) with neither
# rdma_cm_port nor a portal, and with a portal on the interface's other
# IPv6 address only (GID 0 is its link-local one); served through a portal
# on [::], then with rdma_cm_port for the remaining cases.
# timeout: 180
. "$REPO/tests/lib.sh"
set -e
[ -r "${SRPT_IBCM:-}" ] || die "no test module (SRPT_IBCM=${SRPT_IBCM:-}): scripts/e2e.sh builds it"
rxe_setup
srpt_load ib_cm_on_roce=1
dev=$(bs_null nb0 16)
bs=$(lio_iblock nb0 "$dev")
srpt_target_create
srpt_lun 0 "$bs"
gid=$(gid0_hex)
guid=$(target_guid)
iext=1bc0000000000001
acl=$(tpg_dir)/acls/0x$iext${gid:16:16}
srpt_acl_add "0x$iext${gid:16:16}"
srpt_enable
ibcm() { # mode [param...]
	local m=$1 rc=0
	shift
	insmod "$SRPT_IBCM" dev="$RXE" dgid="$gid" sid="$guid" tport="$guid$guid" \
		iext="$iext" mode="$m" "$@" || rc=$?
	dmesg | tail -n +"$((mark + 1))" | grep -E "srpt_ibcm|ib_srpt" >&2 || true
	grep -qw '^srpt_ibcm' /proc/modules && rmmod srpt_ibcm
	return $rc
}
# The target's RC QPs as the RDMA resource tracker shows them: a signal
# independent of what the driver itself reports.
# A failing rdma tool reads as "rdma failed", never as 0 QPs.
srpt_qps() {
	local o
	o=$(rdma resource show qp 2>&1) || { echo "rdma failed: $o"; return; }
	echo "$o" | grep '\[ib_srpt\]' | grep -c 'type RC' || true
}
released() {	# the ACL shows no session and the target's QP is gone
	wait_for 30 grep -q "No active SRP session" "$acl/info" ||
		die "the target still has the channel 30 s after the DREQ: $(tr '\n' ' ' <"$acl/info")"
	wait_for 30 eval 'test "$(srpt_qps)" = 0' ||
		die "the target still has $(srpt_qps) RC QP(s) 30 s after the DREQ: $(rdma resource show qp | grep ib_srpt)"
}
refused_here() {	# WHERE: the REQ gets the IB CM's own REJ, and the log says why
	mark=$(dmesg | wc -l)
	ibcm no-listener || die "an IB CM login was served $1"
	dmesg | tail -n +"$((mark + 1))" | grep -q "IB CM login to fe80::.* refused: neither rdma_cm_port nor a portal listens" ||
		die "an IB CM login $1 was refused without the message saying why"
}
echo 0 >"$SRPT_CFS/discovery_auth/rdma_cm_port" || die "cannot clear rdma_cm_port"
refused_here "with no RDMA/CM listener at all"
np=$(tpg_dir)/np
mkdir "$np/[$TARGET_ADDR]:$RDMA_CM_PORT" || die "cannot make the $TARGET_ADDR portal"
refused_here "to GID 0 (link-local) with a portal on $TARGET_ADDR only"
rmdir "$np/[$TARGET_ADDR]:$RDMA_CM_PORT"
mkdir "$np/[::]:$RDMA_CM_PORT" || die "cannot make the [::] portal"
mark=$(dmesg | wc -l)
ibcm io || die "IB CM login, I/O and DREQ through the [::] portal (above)"
released
rmdir "$np/[::]:$RDMA_CM_PORT"
log "ok: served only where an RDMA/CM login would be (no listener, a portal on $TARGET_ADDR: refused; [::]: served)"
echo "$RDMA_CM_PORT" >"$SRPT_CFS/discovery_auth/rdma_cm_port" || die "cannot set rdma_cm_port"

mark=$(dmesg | wc -l)
ibcm io || die "IB CM login, I/O and DREQ (above)"
released
log "ok: login, write, read back and initiator DREQ over the IB CM; channel released"

mark=$(dmesg | wc -l)
ibcm mra || die "IB CM login with an MRA before the RTU (WinOF), I/O and DREQ (above)"
released
log "ok: an MRA before the RTU (as WinOF sends it), then I/O; channel released"

mark=$(dmesg | wc -l)
ibcm reject tport="${guid}ffffffffffffffff" reason=0x10003 ||
	die "a wrong target port ID was not refused with SRP_LOGIN_REJ 0x00010003"
log "ok: wrong target port ID refused"

mark=$(dmesg | wc -l)
ibcm target-dreq &
pid=$!
wait_for 30 sh -c "dmesg | tail -n +$((mark + 1)) | grep -q 'waiting for the target'" ||
	die "the target-DREQ login did not get as far as waiting"
rm -f "$acl/lun_0/map"
rmdir "$acl/lun_0" "$acl"
wait "$pid" || die "removing the ACL did not make the target send SRP_T_LOGOUT and a DREQ"
wait_for 30 eval 'test "$(srpt_qps)" = 0' || die "the target still has its RC QP 30 s after its DREQ"
log "ok: removing the ACL sent SRP_T_LOGOUT and a DREQ to the IB CM initiator; the QP is gone"

srpt_teardown
srpt_unload
srpt_load
mark=$(dmesg | wc -l)
ibcm no-listener || die "without ib_cm_on_roce the REQ did not end in the IB CM's own REJ"
log "ok: without ib_cm_on_roce the IB CM rejects the REQ itself (invalid service ID)"
