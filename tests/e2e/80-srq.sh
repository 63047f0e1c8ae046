#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Port attributes (our module: numeric ones read back, out-of-range values
# refused). Shared receive queue: attrib/use_srq=1 before login, two
# channels, fio verifies 4k random and 1M writes. With our module, after
# login, the RDMA resource tracker must show that the channels really use
# an SRQ: ib_srpt owns exactly one SRQ (`rdma resource show srq`) and the
# QPs attached to it are exactly the target's channel QPs (the QP numbers
# of ib_srpt's connected CM IDs; the ACL's info names one of them, and as
# many channels as ib_srp opened). Then use_srq=0 with the channels live:
# the driver (srpt_port_set_use_srq()) sends every live channel an
# SRP_T_LOGOUT, closes it, returns once all are released and destroys the
# SRQ. Asserted: the write returns (60 s), the old channel QPs and the SRQ
# are gone when it does, every SRQ receive buffer was posted back when it
# was destroyed (none lost with the closed channels' completions), ib_srp logged "Got target logout request" once per
# channel, the target logged one logout and one release per channel; the
# initiator sees the session drop and reconnects by itself, on new channels
# attached to no SRQ, and data verifies on the same disk.
# timeout: 300
. "$REPO/tests/lib.sh"
set -e
rxe_setup
srpt_load
dev=$(bs_null nb0 64)
bs=$(lio_iblock nb0 "$dev")
srpt_target_create
srpt_lun 0 "$bs"
srpt_acl_add
if [ "${MODULE:-ours}" = ours ]; then
	# The numeric port attributes: a value in range reads back, one out of
	# range is refused and leaves the old value.
	q=$(tpg_dir)/attrib/srp_sq_size
	expect_eq "srp_sq_size default" "$(cat "$q")" 4096
	echo 2048 >"$q" || die "srp_sq_size=2048 refused"
	expect_eq "srp_sq_size after writing 2048" "$(cat "$q")" 2048
	# The in-kernel driver's range, 4..65535.
	if echo 3 >"$q" 2>/dev/null; then die "srp_sq_size=3 accepted"; fi
	expect_eq "srp_sq_size after writing 3" "$(cat "$q")" 2048
	if echo 65536 >"$q" 2>/dev/null; then die "srp_sq_size=65536 accepted"; fi
	echo 4 >"$q" || die "srp_sq_size=4 refused"
	echo 65535 >"$q" || die "srp_sq_size=65535 refused"
	echo 2048 >"$q"
	r=$(tpg_dir)/attrib/srp_max_rsp_size
	# A task-management response is 40 bytes: nothing smaller works.
	if echo 39 >"$r" 2>/dev/null; then die "srp_max_rsp_size=39 accepted"; fi
	dmesg | grep -q "srp_max_rsp_size: '39' is not a number in 40\.\..*task-management response is 40 bytes" ||
		die "no reason logged for refusing srp_max_rsp_size=39"
	echo 40 >"$r" || die "srp_max_rsp_size=40 refused"
	echo 256 >"$r" || die "srp_max_rsp_size=256 refused"
	expect_eq "srp_max_rsp_size after writing 256" "$(cat "$r")" 256
fi
a=$(tpg_dir)/attrib/use_srq
echo 1 >"$a" || die "use_srq=1 refused"
expect_eq "use_srq after writing 1" "$(cat "$a")" 1
srpt_enable
srp_login ch_count=2
disk=$(srp_disk 0)
fio_verify "$disk" 4k randwrite 16M 32
fio_verify "$disk" 1M write 16M 8
if [ "${MODULE:-ours}" != ours ]; then
	timeout 60 sh -c "echo 0 >'$a'" || die "use_srq=0 with live channels failed or hung"
	expect_eq "use_srq after writing 0" "$(cat "$a")" 0
	srp_logout
	srp_login
	disk=$(srp_disk 0)
	fio_verify "$disk" 4k randwrite 16M 32
	exit 0
fi

# --- the driver's live state, from the RDMA resource tracker ---------------
# The target's channels: QP numbers of ib_srpt's connected CM IDs.
srpt_qpns() {
	rdma resource show cm_id 2>/dev/null | grep '\[ib_srpt\]' | grep -v 'state LISTEN' |
		sed -n 's/.* lqpn \([0-9][0-9]*\) .*/\1/p' | sort -n | tr '\n' ' '
}
# ib_srpt's SRQs (the kernel names them after the PD's owner), and the QP
# numbers attached to them ("lqpn 17-18,20"), one list for all.
srpt_srqs() { rdma resource show srq 2>/dev/null | grep '\[ib_srpt\]' || true; }
srq_qpns() {
	srpt_srqs | sed -n 's/.* lqpn \([0-9][0-9,-]*\) .*/\1/p' | tr ',' '\n' |
		awk -F- 'NF == 2 { for (i = $1; i <= $2; i++) print i; next } /^[0-9]+$/' |
		sort -n | tr '\n' ' '
}
qp_exists() { rdma resource show qp 2>/dev/null | grep -q " lqpn $1 "; }
acl=$(tpg_dir)/acls/$(initiator_acl_name)
h=$(srp_hosts | head -n 1)
nch=$(cat "/sys/class/scsi_host/host$h/ch_count")
rport=/sys/class/srp_remote_ports/port-$h:1
rdma resource show srq >/tmp/srq.out 2>&1 || die "rdma resource show srq failed: $(head -n 1 /tmp/srq.out)"

# --- after login: the channels are on the SRQ ---------------------------------
# A reconnect during the fio above (on 6.1, soft-RoCE's fast registration
# on the initiator side once failed: "rxe_reg_fast_mr: ... not free")
# leaves the old channels listed until their release, up to 5 s later
# without a last-WQE event: count once the closed ones are gone.
nqpns() { [ "$(srpt_qpns | wc -w)" = "$nch" ]; }
wait_for 30 nqpns || true
chans=$(srpt_qpns)
log "target channels (QPs): $chans; ib_srp channels: $nch"
expect_eq "target channels" "$(wc -w <<<"$chans")" "$nch"
expect_eq "SRQs of ib_srpt" "$(srpt_srqs | wc -l)" 1
log "$(srpt_srqs)"
expect_eq "QPs attached to ib_srpt's SRQ" "$(srq_qpns)" "$chans"
grep -q 'Session State: TARG_SESS_STATE_LOGGED_IN' "$acl/info" || die "ACL info: no session logged in"
expect_eq "channels in the ACL's info" "$(sed -n 's/^Channels: //p' "$acl/info")" "$nch"
sid=$(sed -n 's/^LIO Session ID: \([0-9]*\) .*/\1/p' "$acl/info")
[[ " $chans" == *" $sid "* ]] || die "the ACL's session QP '$sid' is not a target channel ($chans)"

# --- use_srq=0 with the channels live ------------------------------------------
echo "e2e-srq: use_srq=0" >/dev/kmsg
timeout 60 sh -c "echo 0 >'$a'" || die "use_srq=0 with live channels failed or hung"
expect_eq "use_srq after writing 0" "$(cat "$a")" 0
log "use_srq=0 with live channels returned"
# It returns after every channel is released and the SRQ destroyed.
for q in $chans; do
	! qp_exists "$q" || die "channel QP $q still exists after use_srq=0 returned"
done
expect_eq "SRQs of ib_srpt after use_srq=0" "$(srpt_srqs | wc -l)" 0
since() { dmesg | sed -n '/e2e-srq: use_srq=0$/,$p'; }
expect_eq "SRP_T_LOGOUTs ib_srp received" "$(since | grep -c 'ib_srp: Got target logout request' || true)" "$nch"
expect_eq "channels the target logged out" "$(since | grep -c 'logging the initiator out, reason 0x0$' || true)" "$nch"
expect_eq "channels the target released" "$(since | grep -c ': released after .* commands' || true)" "$nch"
since | grep -q 'using per-channel receive rings' || die "no 'using per-channel receive rings' after use_srq=0"
# Every SRQ buffer a closed channel consumed went back to the SRQ.
since | grep -E 'SRQ destroyed with' | head -n 1
since | grep -qE 'SRQ destroyed with all its [0-9]+ receive buffers posted' ||
	die "the SRQ was not destroyed with all its receive buffers posted: $(since | grep -E 'SRQ destroyed|receive buffers' | head -n 2)"

# --- the initiator reconnects, on per-channel receive rings ----------------------
reconnected() {
	local q n=0
	[ "$(cat "$rport/state" 2>/dev/null)" = running ] || return 1
	for q in $(srpt_qpns); do
		[[ " $chans" == *" $q "* ]] && return 1
		n=$((n + 1))
	done
	[ "$n" = "$nch" ]
}
wait_for 90 reconnected || die "ib_srp did not reconnect within 90 s (remote port $(cat "$rport/state"), target channels $(srpt_qpns))"
since | grep -q 'ib_srp: reconnect succeeded' || die "no 'reconnect succeeded' from ib_srp"
new=$(srpt_qpns)
log "after the reconnect: target channels (QPs) $new"
expect_eq "SRQs of ib_srpt after the reconnect" "$(srpt_srqs | wc -l)" 0
expect_eq "disk after the reconnect" "$(srp_disk 0)" "$disk"
fio_verify "$disk" 4k randwrite 16M 32
grep -q 'Session State: TARG_SESS_STATE_LOGGED_IN' "$acl/info" || die "ACL info: no session after the reconnect"
sid=$(sed -n 's/^LIO Session ID: \([0-9]*\) .*/\1/p' "$acl/info")
[[ " $new" == *" $sid "* ]] || die "the ACL's session QP '$sid' is not a new channel ($new)"
