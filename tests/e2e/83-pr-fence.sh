#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Cluster fencing with SCSI-3 persistent reservations, the sequence
# fence_scsi runs, over two I_T nexuses of one LUN: one ib_srp host logged
# in twice with initiator_ext a and b (two initiator port IDs, two ACLs):
#   REGISTER both keys; RESERVE Write Exclusive Registrants Only (type 5)
#   by A; READ KEYS and READ RESERVATION; READ FULL STATUS shows both
#   registrants with their SRP TransportIDs (the port IDs the ACLs name);
#   B writes while A does PREEMPT AND ABORT of B's key: B's fio fails
#   within 15 s with EBADE (reservation conflict), without an abort or a
#   reset from ib_srp's error handler, and B's WRITE ends in RESERVATION
#   CONFLICT; B registers again and writes.
# Then an ACL in a form LIO cannot derive a TransportID from (port GUID,
# IP address) is created on the GUID-named port: the target must warn
# that persistent reservations cannot name that initiator.
# timeout: 240
. "$REPO/tests/lib.sh"
set -e
rxe_setup
srpt_load
dev=$(bs_null nb0 64)
bs=$(lio_iblock nb0 "$dev")
# The target core writes PR state to <dbroot>/pr/aptpl_<unit serial> and
# answers NOT READY when it cannot (dbroot: /etc/target, or rtslib's
# /etc/rtslib-fb-target once targetcli ran).
lio_serial "$bs" e2e-pr-nb0
mkdir -p "$(cat "$LIO/dbroot")/pr"
srpt_target_create
srpt_lun 0 "$bs"
ifid=$(gid0_hex | cut -c17-32)
A=000000000000000a$ifid
B=000000000000000b$ifid
srpt_acl_add "0x$A"
srpt_acl_add "0x$B"
srpt_enable
srp_login initiator_ext=000000000000000a
da=$(srp_disk 0)
srp_login initiator_ext=000000000000000b
wait_for 30 sh -c "[ \$(ls /sys/class/scsi_disk | wc -l) -ge 2 ]" || die "no second disk"
db=
for d in $(srp_disks); do [ "$d" != "$da" ] && db=$d; done
[ -b "$db" ] || die "no disk for nexus b"
log "nexus a: $da, nexus b: $db"
pr() { sg_persist "$@" 2>&1; }
prout() { # what sg_persist-arguments...
	local what=$1 out
	shift
	# A unit attention (reservations released, registrations preempted)
	# is reported once to each other nexus: the command is then repeated.
	out=$(sg_persist --out "$@" 2>&1) ||
		{ echo "$out" | grep -q "Unit attention" && out=$(sg_persist --out "$@" 2>&1); } ||
		die "$what: $out"
}
prout "REGISTER a" --register --param-sark=0xa1 "$da"
prout "REGISTER b" --register --param-sark=0xb1 "$db"
prout "RESERVE type 5 by a" --reserve --param-rk=0xa1 --prout-type=5 "$da"
keys=$(pr --in --read-keys "$da")
echo "$keys" >&2
echo "$keys" | grep -q "0xa1" && echo "$keys" | grep -q "0xb1" || die "READ KEYS does not list both keys"
res=$(pr --in --read-reservation "$db")
echo "$res" >&2
echo "$res" | grep -q "Key=0xa1" && echo "$res" | grep -qi "Write Exclusive, registrants only" ||
	die "READ RESERVATION does not show a's type 5 reservation"
full=$(pr --in --read-full-status "$da")
echo "$full" >&2
for id in $A $B; do
	echo "$full" | tr -d ' \n' | grep -qi "$id" ||
		die "READ FULL STATUS has no SRP TransportID $id"
done
echo "$full" | grep -q "RDMA initiator port identifier" || die "READ FULL STATUS does not give SRP (RDMA) TransportIDs"
log "ok: REGISTER, RESERVE, READ KEYS, READ RESERVATION, READ FULL STATUS"

# B writes; A preempts and aborts B's registration meanwhile.
run_deadline 60 fio --name=b --filename="$db" --direct=1 --ioengine=libaio --rw=randwrite \
	--bs=4k --iodepth=16 --size=32M --time_based --runtime=20 --output=/tmp/fio-b.txt >/dev/null 2>&1 &
fpid=$!
sleep 3
mark=$(dmesg | wc -l)
t_pre=$(date +%s)
prout "PREEMPT AND ABORT by a" --preempt-abort --param-rk=0xa1 --param-sark=0xb1 --prout-type=5 "$da"
wait $fpid && die "b's writes went on after the preemption"
t_fail=$(( $(date +%s) - t_pre ))
# Promptly, and with the conflict itself (EBADE, 52): not by a command
# timeout, an abort or a reset of the initiator's error handler.
err=$(grep -m1 -o 'err=[ 0-9]*' /tmp/fio-b.txt | tr -dc 0-9)
[ "$err" = 52 ] || die "b's fio failed with err=$err, not 52 (EBADE, reservation conflict): $(grep -m2 -i 'error' /tmp/fio-b.txt)"
[ "$t_fail" -le 15 ] || die "b's fio ended ${t_fail}s after the preemption: a timeout, not the conflict"
eh=$(dmesg | tail -n +"$((mark + 1))" | grep -E 'SRP abort called|SRP reset_device called|SRP reset_host called' || true)
[ -z "$eh" ] || die "the initiator's error handler ran after the preemption: $eh"
log "ok: b's fio failed ${t_fail}s after PREEMPT AND ABORT with err=$err (EBADE), no abort or reset"
out=$(sg_raw "$db" 2a 00 00 00 00 10 00 00 01 00 -s 512 -i /dev/zero 2>&1) && die "b wrote without a registration"
echo "$out" | grep -qi "reservation conflict" || die "b's WRITE failed, but not with RESERVATION CONFLICT: $out"
log "ok: b's WRITE ends in RESERVATION CONFLICT"
prout "b registers again" --register --param-sark=0xb2 "$db"
sg_raw "$db" 2a 00 00 00 00 10 00 00 01 00 -s 512 -i /dev/zero >/dev/null 2>&1 ||
	die "b cannot write after registering again (type 5 lets registrants write)"
log "ok: b registered again and writes"
prout "RELEASE by a" --release --param-rk=0xa1 --prout-type=5 "$da"
prout "unregister a" --register --param-rk=0xa1 --param-sark=0 "$da"
prout "unregister b" --register --param-rk=0xb2 --param-sark=0 "$db"
srp_logout

# ACL forms without a TransportID.
g=$(gid0_hex)
guid=$(echo "${g:16:16}" | sed -E 's/(....)(....)(....)(....)/\1:\2:\3:\4/')
t=$SRPT_CFS/$guid/tpgt_1
mkdir -p "$t"
for name in "$guid" 192.0.2.7; do
	mark=$(dmesg | wc -l)
	mkdir "$t/acls/$name" || die "ACL $name refused"
	dmesg | tail -n +"$((mark + 1))" | grep -q "$name: .*persistent reservations" ||
		die "no warning that PR cannot name the initiator of ACL $name"
	rmdir "$t/acls/$name"
done
rmdir "$t" "$SRPT_CFS/$guid"
log "ok: GUID and IP ACLs warn that persistent reservations cannot name them"
