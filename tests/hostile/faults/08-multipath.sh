#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Two target ports, one LUN, dm-multipath on the initiator. A second
# soft-RoCE device (rxe1 over veth v2, fd01::1) gets its own target port
# that exports the same backstore (mp_rd) as lun_3 of the rxe0 port. The
# Linux initiator logs in through both, a dm-multipath map (round-robin
# over both paths, no queue_if_no_path: a total loss is an I/O error, not a
# hang) carries fio verify=crc32c passes, and v2 is taken down and brought
# back in the middle. Expected: the rxe1 path fails, I/O keeps completing
# on the rxe0 path without an error reaching fio, the rxe1 path comes back
# (ib_srp reconnects; this script reinstates it as multipathd would) and
# carries I/O again. Nothing of it may disturb the main fio loop.
. "$REPO/tests/hostile/guest-lib.sh"
bad=0
MP_EXT=6d70000000000000	# "mp": initiator_ext of both paths
MP_ADDR=fd01::1
MP=hostile_mp
MPDIR=/tmp/hostile-mp
MPDEV=
TPG1=
hosts=

# ---- helpers ----
mp_status() { dmsetup status "$MP" 2>/dev/null; }
# path_state MAJ:MIN: A (active) or F (failed), from the map's status
path_state() { mp_status | tr ' ' '\n' | grep -A1 -x "$1" | sed -n 2p; }
sectors_io() { awk '{print $3 + $7}' "/sys/block/$1/stat"; }	# sectors read+written
rport_of() { echo "/sys/class/srp_remote_ports/port-${1#host}:1"; }
rport_state() { cat "$(rport_of "$1")/state" 2>/dev/null; }
rport_running() { [ "$(rport_state "$1")" = running ]; }

fio_loop() {	# passes of 8 MiB random writes + crc32c verify on the map
	local n=0
	while [ ! -e "$MPDIR/stop" ]; do
		n=$((n + 1))
		echo "$(date +%s.%N)" >"$MPDIR/t0.$n"
		fio --name=mp --filename="$MPDEV" --rw=randwrite --bs=4k --size=8M \
			--offset=$(( (n % 2) * 8 ))M --ioengine=libaio --iodepth=16 --direct=1 \
			--verify=crc32c --verify_fatal=0 --randrepeat=0 >"$MPDIR/out.$n" 2>&1
		echo $? >"$MPDIR/rc.$n"
		echo "$(date +%s.%N)" >"$MPDIR/t1.$n"
	done
}

dump_stuck() {	# kernel stacks of tasks inside the RDMA/SRP stacks, CM IDs
	local p
	for p in /proc/[0-9]*; do
		grep -qE 'srp|rdma|ib_|cm_|rxe' "$p/stack" 2>/dev/null || continue
		echo "task $(cat "$p/comm") ${p#/proc/}:"
		sed 's/^/    /' "$p/stack"
	done
	rdma resource show cm_id 2>&1 | head -n 20
	rdma resource show qp link rxe1/1 2>&1 | head -n 10
}

cleanup() {
	local h p
	[ -e "$MPDIR/pid" ] && { touch "$MPDIR/stop"; wait_for 120 eval '! kill -0 $(cat $MPDIR/pid) 2>/dev/null'; }
	ip link set v2 up 2>/dev/null
	if dmsetup info "$MP" >/dev/null 2>&1; then
		h_dm_remove "$MP" || { sleep 2; h_dm_remove "$MP"; } ||
			{ echo "cleanup: dmsetup remove $MP failed"; bad=1; }
	fi
	for h in $hosts; do
		p=$(rport_of "$h")
		[ -e "$p/delete" ] && echo 1 >"$p/delete"
	done
	for h in $hosts; do
		wait_for 30 eval "! test -e /sys/class/scsi_host/$h" || { echo "cleanup: $h still there"; bad=1; }
	done
	if [ -n "$TPG1" ] && [ -d "$TPG1" ]; then
		echo 0 >"$TPG1/enable"
		find "$TPG1/acls" -mindepth 3 -maxdepth 3 -type l -delete
		rmdir "$TPG1"/acls/*/lun_* "$TPG1"/acls/* 2>/dev/null
		find "$TPG1/lun/lun_0" -maxdepth 1 -type l -delete
		rmdir "$TPG1/lun/lun_0" "$TPG1" "$(dirname "$TPG1")" ||
			{ echo "cleanup: cannot remove the rxe1 target port"; bad=1; }
	fi
	for a in "$H_TPG"/acls/0x$MP_EXT*; do
		[ -d "$a" ] || continue
		rm -f "$a/lun_0/map"; rmdir "$a/lun_0" "$a"
	done
	rm -f "$H_TPG/lun/lun_3/mp_rd"; rmdir "$H_TPG/lun/lun_3" 2>/dev/null
	rmdir "$LIO/core/rd_mcp_0/mp_rd" 2>/dev/null || { echo "cleanup: mp_rd still in use"; bad=1; }
	run_deadline 60 rdma link delete rxe1 || { echo "cleanup: rdma link delete rxe1 failed"; bad=1; }
	# (deleting v2 under a stuck rxe1 would block in unregister_netdevice)
	[ -e /sys/class/infiniband/rxe1 ] || ip link del v2 2>/dev/null
}

fail() { echo "$*"; bad=1; cleanup; exit 1; }

# ---- second soft-RoCE port ----
modprobe -a dm_mod dm_multipath dm_round_robin || fail "no dm-multipath modules"
ip link add v2 type veth peer name v3 && ip link set v2 up && ip link set v3 up ||
	fail "cannot create veth v2/v3"
sysctl -qw net.ipv6.conf.v2.keep_addr_on_down=1
ip -6 addr add "$MP_ADDR/64" dev v2 nodad || fail "cannot address v2"
rdma link add rxe1 type rxe netdev v2 || fail "cannot add rxe1"
wait_for 30 grep -q ACTIVE /sys/class/infiniband/rxe1/ports/1/state || fail "rxe1 port not ACTIVE"
# One SRP target: every port answers to the same target port ID (srpt_service_guid).

# ---- the same LUN through both target ports ----
h_rd mp_rd 32 || fail "cannot create mp_rd"
# A unit serial gives the LU its VPD pages 0x80/0x83: the identity that
# tells a multipath layer both paths lead to it.
echo 0badcafe-5150-4d50-a1b2-0123456789ab >"$LIO/core/rd_mcp_0/mp_rd/wwn/vpd_unit_serial" ||
	fail "cannot set the unit serial of mp_rd"
mkdir -p "$H_TPG/lun/lun_3" && ln -s "$LIO/core/rd_mcp_0/mp_rd" "$H_TPG/lun/lun_3/mp_rd" ||
	fail "cannot export mp_rd on the rxe0 port"
h_gid_acls rxe0 "$MP_EXT" 3 || fail "cannot create the rxe0 path ACLs"
TPG1=$SRPT_CFS/0x$(tr -d : </sys/class/infiniband/rxe1/ports/1/gids/0)/tpgt_1
mkdir -p "$TPG1/lun/lun_0" && ln -s "$LIO/core/rd_mcp_0/mp_rd" "$TPG1/lun/lun_0/mp_rd" ||
	fail "cannot create the rxe1 target port"
h_gid_acls rxe1 "$MP_EXT" 0 "$TPG1" || fail "cannot create the rxe1 path ACLs"
echo 1 >"$TPG1/enable" || fail "cannot enable the rxe1 TPG"

# ---- two paths and the map ----
ha=$(h_srp_add rxe0 "$H_ADDR" "$H_G16" "$MP_EXT") || fail "path A login: $ha"
hosts=$ha
hb=$(h_srp_add rxe1 "$MP_ADDR" "$H_G16" "$MP_EXT") || fail "path B login: $hb"
hosts="$ha $hb"
da=$(h_host_disk "$ha") && db=$(h_host_disk "$hb") || fail "no disks for the paths"
da=${da#/dev/} db=${db#/dev/}
wa=$(sg_vpd -p sn "/dev/$da" 2>&1 | grep -i serial) wb=$(sg_vpd -p sn "/dev/$db" 2>&1 | grep -i serial)
[ -n "$wa" ] && [ "$wa" = "$wb" ] || fail "the paths do not show one LU: '$wa' vs '$wb'"
echo "path A $ha/$da via rxe0, path B $hb/$db via rxe1, one LU ($wa)"
for h in $ha $hb; do
	p=$(rport_of "$h")
	# Fail I/O 3 s after the transport breaks; first reconnect 30 s after
	# it. (A reconnect starts with a DREQ; soft-RoCE moves its GSI QP to
	# the error state for good when a MAD cannot be routed, so a reconnect
	# while the link is down would leave rxe1 without a CM. Real HCAs drop
	# such a packet instead.)
	echo 30 >"$p/reconnect_delay" && echo 3 >"$p/fast_io_fail_tmo" && echo 300 >"$p/dev_loss_tmo" ||
		fail "cannot set the timeouts of $p"
done
mma=$(cat "/sys/block/$da/dev") mmb=$(cat "/sys/block/$db/dev")
size=$(blockdev --getsz "/dev/$da")
MPDEV=$(h_dm "$MP" "0 $size multipath 0 0 1 1 round-robin 0 2 1 $mma 16 $mmb 16") ||
	fail "dmsetup create multipath failed"
echo "map $MPDEV: $(mp_status)"

rm -rf "$MPDIR"; mkdir -p "$MPDIR"
fio_loop </dev/null >/dev/null 2>&1 &
echo $! >"$MPDIR/pid"
sleep 8
b0=$(sectors_io "$db")

# ---- take the rxe1 link down under I/O ----
t_down=$(date +%s.%N)
ip link set v2 down || fail "cannot take v2 down"
echo "v2 down"
wait_for 60 eval '[ "$(path_state $mmb)" = F ]' || { echo "path B not failed 60 s after link down: $(mp_status)"; bad=1; }
echo "path B failed after $(echo "$(date +%s.%N) - $t_down" | bc | cut -c1-5) s; rport $(rport_state "$hb")"
# I/O continues on path A while path B is failed: its sector count grows
# (however fast this machine is), and no fio pass that ran in the window
# fails. The link comes back before the first reconnect (see above).
a0=$(sectors_io "$da")
sleep 16
a1=$(sectors_io "$da")
t_up=$(date +%s.%N)
failed_during=0
for f in "$MPDIR"/t0.*; do
	n=${f##*.}
	[ -e "$MPDIR/t1.$n" ] || continue	# still running: judged at the end
	e=$(cat "$MPDIR/t1.$n")
	[ "$(echo "$e > $t_down && $(cat "$f") < $t_up" | bc)" = 1 ] &&
		[ "$(cat "$MPDIR/rc.$n")" != 0 ] && failed_during=$((failed_during + 1))
done
echo "path A sectors while path B was failed: $a0 -> $a1; fio passes failed in that window: $failed_during"
[ "$a1" -gt "$a0" ] || { echo "I/O did not continue on path A"; bad=1; }
[ "$failed_during" = 0 ] || { echo "an I/O error reached fio while path B was down"; bad=1; }

# ---- bring it back ----
ip link set v2 up || fail "cannot bring v2 up"
ip -6 addr replace "$MP_ADDR/64" dev v2 nodad
wait_for 30 grep -q ACTIVE /sys/class/infiniband/rxe1/ports/1/state || { echo "rxe1 not ACTIVE again"; bad=1; }
if wait_for 120 rport_running "$hb"; then
	echo "ib_srp reconnected path B after $(echo "$(date +%s.%N) - $t_up" | bc | cut -c1-5) s"
else
	echo "path B rport still $(rport_state "$hb") 120 s after link up"; bad=1
	dump_stuck
fi
wait_for 30 eval "timeout 10 dd if=/dev/$db of=/dev/null bs=4k count=1 iflag=direct status=none 2>/dev/null" ||
	{ echo "path B disk not readable again"; bad=1; }
dmsetup message "$MP" 0 reinstate_path "$mmb" || { echo "reinstate_path failed"; bad=1; }
wait_for 10 eval '[ "$(path_state $mmb)" = A ]' || { echo "path B not active after reinstate: $(mp_status)"; bad=1; }
b1=$(sectors_io "$db")
sleep 10
b2=$(sectors_io "$db")
echo "path B sectors: $b0 before the fault, $b1 at reinstatement, $b2 10 s later"
[ "$b2" -gt "$b1" ] || { echo "path B carries no I/O after reinstatement"; bad=1; }
echo "map: $(mp_status)"

# ---- fio verdict ----
touch "$MPDIR/stop"
wait_for 120 eval '! kill -0 $(cat $MPDIR/pid) 2>/dev/null' || { echo "fio on the map did not finish"; bad=1; }
rm -f "$MPDIR/pid"
passes=0 verr=0 ioerr=0
for f in "$MPDIR"/rc.*; do
	n=${f##*.}
	passes=$((passes + 1))
	v=$(grep -acE 'verify failed|bad magic|bad header|verify: bad' "$MPDIR/out.$n")
	verr=$((verr + v))
	if [ "$(cat "$f")" != 0 ]; then
		ioerr=$((ioerr + 1))
		echo "multipath fio pass $n failed:"
		grep -aE 'err=|error|verify' "$MPDIR/out.$n" | head -n 5 | sed 's/^/    /'
	fi
done
echo "multipath fio: $passes passes, $verr verify errors, $ioerr failed passes"
[ "$passes" -ge 4 ] && [ "$verr" = 0 ] && [ "$ioerr" = 0 ] || bad=1
cleanup
h_sanity || { echo "sanity failed afterwards"; bad=1; }
exit $bad
