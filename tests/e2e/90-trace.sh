#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Tracepoints and per-channel counters: with the ib_srpt events on in
# tracefs, a login, one INQUIRY of 96 bytes, an 8 KiB write and a LUN reset
# leave login-accepted, CONNECTING -> LIVE, command start/done (opcode,
# length, direction, status), credit and TMF events; the ACL's info shows
# the counters; the logout leaves the channel close. Fails when the module
# has no ib_srpt events.
# timeout: 150
. "$REPO/tests/lib.sh"
set -e

if [ "${MODULE:-ours}" != ours ]; then
	log "MODULE=$MODULE: the distribution's module has no ib_srpt events; nothing to check"
	exit 0
fi

T=/sys/kernel/tracing
tr_out=/tmp/ib_srpt.trace
[ -e "$T/trace" ] || mount -t tracefs nodev "$T" 2>/dev/null ||
	mount -t tracefs nodev "$T" || die "cannot mount tracefs on $T"
[ -e "$T/trace" ] || die "no $T/trace: kernel without event tracing?"

trace_off() {
	echo 0 >"$T/events/ib_srpt/enable" 2>/dev/null || true
}
trap trace_off EXIT

# ev EVENT: the trace lines of EVENT, text after "EVENT: ".
ev() { sed -n "s/.* $1: //p" "$tr_out"; }
snap() { cat "$T/trace" >"$tr_out"; }
# field NAME LINE: the word after NAME in LINE.
field() { echo "$2" | awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) { print $(i + 1); exit } }'; }

rxe_setup
srpt_load
[ -d "$T/events/ib_srpt" ] || die "no ib_srpt trace events in $T/events (module without tracepoints)"
for e in srpt_login_accept srpt_login_reject srpt_ch_state srpt_initiator_logout \
	 srpt_ch_close srpt_cmd_start srpt_cmd_done srpt_tmf srpt_tmf_rsp srpt_credit; do
	[ -d "$T/events/ib_srpt/$e" ] || die "trace event ib_srpt:$e missing"
done
n_ev=$(find "$T/events/ib_srpt" -mindepth 1 -maxdepth 1 -name "srpt_*" | wc -l)
log "ib_srpt events: $n_ev"
echo 0 >"$T/tracing_on"
: >"$T/trace"
# Enabling an event turns on the tracer's comm/tgid recording, which hooks
# sched_switch and so live-patches __schedule; under TCG another vCPU can
# run the half-patched bytes (an int3 oops). Our events need neither.
echo 0 >"$T/options/record-cmd"
echo 0 >"$T/options/record-tgid"
[ "$(cat "$T/options/record-cmd")" = 0 ] || die "cannot turn off $T/options/record-cmd"
echo 1 >"$T/events/ib_srpt/enable"
echo 1 >"$T/tracing_on"

# One channel, so that every command below travels on the traced login's QP.
disk=$(srpt_standard_setup 64 ch_count=1)

# --- login and channel state ----------------------------------------------
snap
acc=$(ev srpt_login_accept | tail -n 1)
[ -n "$acc" ] || die "no srpt_login_accept event"
log "login accept: $acc"
qpn=$(field qpn "$acc")
[ "${qpn:-0}" -gt 0 ] || die "login accept without a QP number: $acc"
want_ipid=$(initiator_acl_name)
expect_eq "initiator in login accept" "$(field initiator "$acc")" "$want_ipid"
credits=$(field credits "$acc")
[ "${credits:-0}" -gt 0 ] || die "no credits in login accept: $acc"
ev srpt_ch_state | grep -qx "qpn $qpn CONNECTING -> LIVE" ||
	die "no CONNECTING -> LIVE for qpn $qpn: $(ev srpt_ch_state | tr '\n' ';')"
log "ok: qpn $qpn CONNECTING -> LIVE"

# --- one known command: INQUIRY, 96 bytes --------------------------------
: >"$T/trace"
sg_raw -r 96 "$disk" 12 00 00 00 60 00 >/tmp/inq.out 2>&1 ||
	{ cat /tmp/inq.out >&2; die "sg_raw INQUIRY"; }
snap
start=$(ev srpt_cmd_start | grep " opcode 0x12 len 96 dir in task_attr 0$" | tail -n 1)
[ -n "$start" ] || die "no srpt_cmd_start for INQUIRY(96): $(ev srpt_cmd_start | tr '\n' ';')"
log "start: $start"
tag=$(field tag "$start")
expect_eq "qpn of the INQUIRY" "$(field qpn "$start")" "$qpn"
expect_eq "lun of the INQUIRY" "$(field lun "$start")" 0
done_ev=$(ev srpt_cmd_done | grep "^qpn $qpn tag $tag " | tail -n 1)
[ -n "$done_ev" ] || die "no srpt_cmd_done for tag $tag: $(ev srpt_cmd_done | tr '\n' ';')"
log "done: $done_ev"
expect_eq "opcode in cmd_done" "$(field opcode "$done_ev")" 0x12
expect_eq "length in cmd_done" "$(field len "$done_ev")" 96
expect_eq "direction in cmd_done" "$(field dir "$done_ev")" in
expect_eq "status in cmd_done" "$(field status "$done_ev")" 0x00
cred=$(ev srpt_credit | grep "^qpn $qpn " | tail -n 1)
[ -n "$cred" ] || die "no srpt_credit event for qpn $qpn"
[ "$(field req_lim_delta "$cred")" -ge 1 ] || die "credit event without a credit: $cred"
log "ok: credit event: $cred"

# --- a write (bytes in) ----------------------------------------------------
: >"$T/trace"
dd if=/dev/urandom of=/tmp/w8k bs=8k count=1 status=none
dd if=/tmp/w8k of="$disk" bs=8k count=1 seek=5 oflag=direct status=none
snap
ev srpt_cmd_start | grep -q " opcode 0x2a len 8192 dir out task_attr 0$" ||
	die "no WRITE(10) of 8192 bytes: $(ev srpt_cmd_start | tr '\n' ';')"
ev srpt_cmd_done | grep -q " opcode 0x2a len 8192 dir out status 0x00$" ||
	die "no good WRITE(10) completion: $(ev srpt_cmd_done | tr '\n' ';')"
log "ok: WRITE(10) of 8192 bytes traced"

# --- a LUN reset: TMF and its response -------------------------------------
: >"$T/trace"
# A target that answers LUN RESET wrongly makes sg_reset fail; -N: no
# escalation to a target or host reset that could hide it.
sg_reset -N -d "$disk" >/tmp/reset.out 2>&1 ||
	die "sg_reset -N -d (LUN RESET, no escalation) failed: $(head -n 3 /tmp/reset.out | tr '\n' ';')"
wait_for 10 grep -q ' srpt_tmf_rsp: ' "$T/trace" || true
snap
tmf=$(ev srpt_tmf | grep "^qpn $qpn " | tail -n 1)
[ -n "$tmf" ] || die "no srpt_tmf event after sg_reset -d"
expect_eq "function of the LUN reset" "$(field function "$tmf")" 0x08
rsp=$(ev srpt_tmf_rsp | grep "^qpn $qpn tag $(field tag "$tmf") " | tail -n 1)
[ -n "$rsp" ] || die "no srpt_tmf_rsp for $tmf"
expect_eq "SRP response code of the LUN reset" "$(field rsp_code "$rsp")" 0x00
tmfs_want=1

# --- counters in the ACL's info --------------------------------------------
acl=$(tpg_dir)/acls/$(initiator_acl_name)
info=$(cat "$acl/info")
echo "$info" | sed 's/^/    info: /' >&2
echo "$info" | grep -q '^Session State: TARG_SESS_STATE_LOGGED_IN' || die "info: not logged in"
echo "$info" | grep -q 'Connection State: TARG_CONN_STATE_LIVE' || die "info: channel not LIVE"
stat_line=$(echo "$info" | grep 'Commands: ')
cmds=$(field Commands: "$stat_line")
bin=$(echo "$stat_line" | sed -n 's/.*Bytes in: \([0-9]*\).*/\1/p')
bout=$(echo "$stat_line" | sed -n 's/.*Bytes out: \([0-9]*\).*/\1/p')
tmfs=$(field TMFs: "$stat_line")
[ "${cmds:-0}" -gt 0 ] || die "info: commands '$cmds'"
[ "${bin:-0}" -ge 8192 ] || die "info: bytes in '$bin' < 8192"
[ "${bout:-0}" -ge 96 ] || die "info: bytes out '$bout' < 96"
[ "${tmfs:-0}" -ge "$tmfs_want" ] || die "info: TMFs '$tmfs' < $tmfs_want"
log "ok: commands $cmds, bytes in $bin, bytes out $bout, TMFs $tmfs"
# A transfer of many pages takes RDMA work requests from the channel's shared
# budget (a one-WR transfer uses its send context's own): the send queue
# high-water mark below counts it. From scattered pages ib_srp splits a read
# into commands of one work request each; from huge pages 512 KiB is one
# command of 128 pages, 8 work requests.
echo 4 >/proc/sys/vm/nr_hugepages
fio --name=sq --filename="$disk" --rw=read --bs=512k --size=512k --direct=1 \
	--ioengine=psync --iomem=shmhuge >/tmp/fio-sq.out 2>&1 ||
	die "a 512 KiB read from huge pages failed: $(tail -n 3 /tmp/fio-sq.out | tr '\n' ';')"
echo 0 >/proc/sys/vm/nr_hugepages
# Idle (polled: the SCSI midlayer may have a command of its own in flight),
# every request is answered: the initiator holds all its credits again, and
# the credits returned are one per command and TMF.
held_all() {
	info=$(cat "$acl/info")
	echo "$info" | grep 'Credits granted: ' | grep -q "held by initiator: $credits\$"
}
wait_for 5 held_all || die "credits held when idle: $(grep 'Credits granted: ' "$acl/info")"
cl=$(echo "$info" | grep 'Credits granted: ')
stat_line=$(echo "$info" | grep 'Commands: ')
expect_eq "credits granted (info = login accept)" "$(field granted: "$cl")" "$credits"
expect_eq "credits returned when idle (commands + TMFs)" "$(field returned: "$cl")" \
	"$(( $(field Commands: "$stat_line") + $(field TMFs: "$stat_line") ))"
hw=$(echo "$info" | grep 'Send queue high-water: ')
sq_hwm=$(field high-water: "$hw")
rq_hwm=$(echo "$hw" | sed -n 's/.*Receive high-water: \([0-9]*\) of.*/\1/p')
[ "${sq_hwm:-0}" -ge 1 ] || die "send queue high-water '$sq_hwm' after RDMA transfers"
[ "${rq_hwm:-0}" -ge 1 ] && [ "$rq_hwm" -le "$credits" ] ||
	die "receive high-water '$rq_hwm' not in 1..$credits"
log "ok: send queue high-water $sq_hwm, receive high-water $rq_hwm"
echo "$info" | grep -q 'Failed commands: ' || die "info: no error counters"

# --- logout: the channel closes -----------------------------------------------
: >"$T/trace"
srp_logout
wait_for 10 grep -q "srpt_ch_state: qpn $qpn DRAINING -> DISCONNECTED" "$T/trace" || true
snap
ev srpt_ch_close | grep -q "^qpn $qpn closed by " ||
	die "no srpt_ch_close for qpn $qpn: $(ev srpt_ch_close | tr '\n' ';')"
ev srpt_ch_state | grep -qx "qpn $qpn LIVE -> DRAINING" ||
	die "no LIVE -> DRAINING for qpn $qpn: $(ev srpt_ch_state | tr '\n' ';')"
log "ok: close: $(ev srpt_ch_close | head -n 1); $(ev srpt_ch_state | tr '\n' ';')"
