#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# ALUA failover over SRP with dm-multipath. One fileio LUN behind two
# target ports: rxe0 (v0, fd00::1) and a second soft-RoCE device rxe1 (w0,
# fd01::1), each with its own TPG (rtpi 0x21 and 0x22 written) whose LUN 0
# is in its own ALUA target port group (pg_a id 0x10: active/optimized,
# pg_b id 0x11: active/non-optimized; implicit ALUA). ib_srp logs in
# through each device, scsi_dh_alua attaches to both paths, multipathd
# (group_by_prio, prio alua, hardware_handler "1 alua", no_path_retry
# queue, failback immediate) makes one map of them. While fio writes and
# verifies (crc32c, verify_backlog) on the map, pg_a goes standby, then
# unavailable, then back to active/optimized; after each step sg_rtpg
# must report the two groups in exactly those states with their ports,
# the writes must go through the other port only (per-path sectors
# written: none through rxe0 while pg_a is standby or unavailable, none
# through rxe1 once it is back), and fio must end with status 0, no
# error and data verified. sg_vpd -p di on each path gives the relative
# target port ID of its port: distinct, the configured ones, and the same
# per port after logout, teardown, rmmod ib_srpt and the same setup again.
# Last, TPGs without rtpi: the IDs LIO allocates are logged (not checked).
# timeout: 300
. "$REPO/tests/lib.sh"
set -e

RXE_A=rxe0 ADDR_A=$TARGET_ADDR RTPI_A=0x21 PG_A=pg_a ID_A=16
RXE_B=rxe1 ADDR_B=fd01::1 RTPI_B=0x22 PG_B=pg_b ID_B=17
ND_B=w0
# fio runs until the last step is checked (its trigger file, below);
# this is only the cap.
FIO_SECS=${ALUA_FIO_SECS:-600}
FIO_STOP=/tmp/alua-fio.stop
MPCONF=/etc/multipath.conf
LOGDIR=/out/91-alua
[ -d "$LOGDIR" ] || LOGDIR=/tmp
# No udev in the guest: libdevmapper makes the /dev/mapper nodes itself.
export DM_DISABLE_UDEV=1
fiopid='' mpdpid='' udevpid='' BS=''

# mp_down: stop queueing (so nothing waits on a map without paths), stop
# multipathd and remove the multipath maps.
mp_down() {
	local m k
	for m in $(dmsetup ls --target multipath 2>/dev/null | awk '$1 != "No" {print $1}'); do
		dmsetup message "$m" 0 fail_if_no_path 2>/dev/null
	done
	if [ -n "$mpdpid" ]; then
		multipathd shutdown >/dev/null 2>&1 || kill "$mpdpid" 2>/dev/null
		{ sleep 15; kill -KILL "$mpdpid" 2>/dev/null; } &
		k=$!
		wait "$mpdpid" 2>/dev/null || true
		kill "$k" 2>/dev/null || true
		mpdpid=
		log "multipathd stopped"
	fi
	for m in $(dmsetup ls --target multipath 2>/dev/null | awk '$1 != "No" {print $1}'); do
		dmsetup remove --force "$m" 2>/dev/null
		log "map $m removed (status $?)"
	done
	if [ -n "$udevpid" ]; then
		# udevd waits for its workers; a worker stuck in I/O is named.
		udevadm control --exit 2>/dev/null || kill "$udevpid" 2>/dev/null
		{ sleep 15; ps -eo pid,stat,wchan:32,args | awk '$2 ~ /D/' >"$LOGDIR/stuck.txt"
		  kill -KILL "$udevpid" 2>/dev/null; } &
		k=$!
		wait "$udevpid" 2>/dev/null || true
		kill "$k" 2>/dev/null || true
		udevpid=''
		rm -rf /run/udev
		log "udevd stopped"
	fi
	return 0
}

# mp_up: udevd for the block devices there are (multipathd only takes paths
# udev has seen: no udev runs in the guest otherwise), then multipathd with
# the configuration of $MPCONF; stopped by mp_down.
mp_up() {
	/lib/systemd/systemd-udevd >"$LOGDIR/udevd.log" 2>&1 &
	udevpid=$!
	wait_for 10 udevadm control --ping || die "udevd does not answer"
	udevadm trigger --action=add --subsystem-match=block
	udevadm settle -t 30 || log "udevadm settle timed out"
	multipathd -d -s -v3 >"$LOGDIR/multipathd.log" 2>&1 &
	mpdpid=$!
}

cleanup() {
	set +e
	[ -n "$fiopid" ] && kill "$fiopid" 2>/dev/null
	mp_down
	[ -n "$fiopid" ] && wait "$fiopid" 2>/dev/null
	srp_logout >/dev/null 2>&1
	srpt_teardown >/dev/null 2>&1
	# Later scenarios' disks get no device handler, as before this one.
	modprobe -r dm_service_time dm_multipath scsi_dh_alua 2>/dev/null
	rxe_del "$RXE_B" "$ND_B"
	rm -rf "$MPCONF" /tmp/alua-fio.json "$FIO_STOP" /tmp/alua-fio-aux
	return 0
}
trap cleanup EXIT

# alua_groups BS: pg_a (active/optimized) and pg_b (active/non-optimized)
# on backstore BS, implicit ALUA only (scsi_dh_alua then sends no SET
# TARGET PORT GROUPS of its own), no delay for non-optimized commands.
alua_groups() {
	local g id st
	for g in "$PG_A:$ID_A:0" "$PG_B:$ID_B:1"; do
		IFS=: read -r g id st <<<"$g"
		mkdir "$1/alua/$g"
		echo "$id" >"$1/alua/$g/tg_pt_gp_id"
		echo 1 >"$1/alua/$g/alua_access_type"
		echo 0 >"$1/alua/$g/nonop_delay_msecs"
		echo "$st" >"$1/alua/$g/alua_access_state"
	done
}

# port_setup DEV GROUP RTPI: DEV's target port, tpgt_1 with RTPI (none
# when empty), LUN 0 on $BS in ALUA group GROUP, the ACL of ib_srp on DEV.
# Not enabled. (RXE is local: the lib's helpers act on DEV.)
port_setup() {
	local RXE=$1 t
	srpt_target_create
	t=$(tpg_dir)
	[ -z "$3" ] || echo "$3" >"$t/rtpi" || die "rtpi $3 refused on $t"
	srpt_lun 0 "$BS"
	echo "$2" >"$t/lun/lun_0/alua_tg_pt_gp" || die "LUN 0 of $1 into $2 refused"
	srpt_acl_add
}

port_enable() { local RXE=$1; srpt_enable; }
port_rtpi() { local RXE=$1; cat "$(tpg_dir)/rtpi"; }

# setup: backstore, groups, both ports with their rtpi, enabled.
setup() {
	BS=$(lio_fileio alua0 /tmp/lun-alua.img 64)
	lio_serial "$BS" e2e-alua0
	alua_groups "$BS"
	port_setup "$RXE_A" "$PG_A" "$RTPI_A"
	port_setup "$RXE_B" "$PG_B" "$RTPI_B"
	port_enable "$RXE_A"
	port_enable "$RXE_B"
}

# login_via DEV ADDR: ib_srp add_target through DEV's port to ADDR.
login_via() {
	local d opts
	d=$(srp_dev_dir "$1")
	opts=$(srp_target_opts "$SGUID" "$2")
	wait_for 10 test -w "$d/add_target" || die "no $d"
	log "ib_srp add_target via $1: $opts"
	echo "$opts" >"$d/add_target" || die "add_target via $1 rejected"
}

# path_of DEV: the sdX (no /dev/) of LUN 0 logged in through DEV.
path_of() {
	local h d
	for h in $(srp_hosts); do
		[ "$(cat "/sys/class/scsi_host/host$h/local_ib_device" 2>/dev/null)" = "$1" ] || continue
		d=$(srp_host_disks "$h" | head -n 1)
		[ -b "$d" ] && { basename "$d"; return 0; }
	done
	return 1
}

login_both() {
	login_via "$RXE_A" "$ADDR_A"
	login_via "$RXE_B" "$ADDR_B"
	# Each name from the loop that waited for it: a second look could
	# fail (under set -e, without a word) while a node comes and goes.
	DA=$(wait_for 30 path_of "$RXE_A") || die "no disk through $RXE_A"
	DB=$(wait_for 30 path_of "$RXE_B") || die "no disk through $RXE_B"
	log "path A ($RXE_A): $DA, path B ($RXE_B): $DB"
}

# rtpi_of DISK: relative target port ID of the port DISK goes through.
rtpi_of() {
	sg_vpd -p di "/dev/$1" | sed -n 's/.*Relative target port: *\(0x[0-9a-f]*\).*/\1/p' | head -n 1
}

# rtpg DISK: REPORT TARGET PORT GROUPS through DISK, one group a line:
# "<id> <state> <rtpi>...", groups pg_a and pg_b only, by id.
rtpg() {
	local out i ok=
	for i in 1 2 3; do
		out=$(sg_rtpg -d "/dev/$1" 2>&1) && { ok=1; break; }
		sleep 1
	done
	[ -n "$ok" ] || { echo "$out" >&2; die "sg_rtpg $1 failed ($i tries)"; return 1; }
	echo "$out" >"$LOGDIR/rtpg-last.txt"
	echo "$out" | awk '
		/target port group id :/ { if (id != "") print id, st ports
			id = $6; sub(/,$/, "", id); st = ""; ports = "" }
		/asymmetric access state :/ { st = $0; sub(/.*state : */, "", st); sub(/ .*/, "", st) }
		/^ *0x[0-9a-f]+ *$/ { ports = ports " " $1 }
		END { if (id != "") print id, st ports }' |
		grep -E "^0x($(printf %x $ID_A)|$(printf %x $ID_B)) " | sort | tr '\n' ';'
}

# expect_rtpg STATE_A STATE_B: both paths report pg_a and pg_b so.
expect_rtpg() {
	local want d
	want="0x$(printf %x $ID_A) $1 $RTPI_A;0x$(printf %x $ID_B) $2 $RTPI_B;"
	for d in "$DA" "$DB"; do
		expect_eq "sg_rtpg via $d" "$(rtpg "$d")" "$want"
	done
}

# Sectors written through path DISK so far.
wsect() { awk '{print $7}' "/sys/block/$1/stat"; }

# mp_active_pg: the paths (sdX) of the map's active path group.
mp_active_pg() {
	multipathd show maps topology 2>/dev/null | awk '
		/status=/ { on = /status=active/ }
		on && match($0, / sd[a-z]+ /) { print substr($0, RSTART + 1, RLENGTH - 2) }' |
		tr '\n' ' ' | sed 's/ $//'
}

mp_checker() { # DISK: its checker state per multipathd (ready, ghost, faulty...)
	multipathd show paths raw format "%d %T" 2>/dev/null | awk -v d="$1" '$1 == d {print $2}'
}

mp_settled() { # WANT_ACTIVE_PG [DISK CHECKER_STATE]
	[ "$(mp_active_pg)" = "$1" ] || return 1
	[ -z "${2:-}" ] || [ "$(mp_checker "$2")" = "$3" ]
}

# writes_only_via BUSY IDLE WHAT: over 4 s, sectors are written through
# BUSY and none through IDLE.
writes_only_via() {
	local b0 i0 b1 i1
	kill -0 "$fiopid" 2>/dev/null || die "$3: fio is no longer running"
	b0=$(wsect "$1") i0=$(wsect "$2")
	sleep 4
	b1=$(wsect "$1") i1=$(wsect "$2")
	log "$3: sectors written in 4 s: $1 $((b1 - b0)), $2 $((i1 - i0))"
	[ "$b1" -gt "$b0" ] || die "$3: no writes through $1"
	expect_eq "$3: sectors written through $2" "$((i1 - i0))" 0
}

set_state() { # GROUP STATE
	log "pg $1: alua_access_state $2"
	echo "$2" >"$BS/alua/$1/alua_access_state"
}

# step STATE ACTIVE IDLE CHECKER WHAT: pg_a goes to STATE; multipath must
# settle with ACTIVE's group active and the checker of pg_a's path ($DA)
# at CHECKER, sg_rtpg report pg_a at STATE (pg_b stays
# active/non-optimized), and writes go through ACTIVE, none through IDLE.
step() {
	local t0
	set_state "$PG_A" "$1"
	t0=$(cut -d' ' -f1 /proc/uptime)
	wait_for 30 mp_settled "$2" "$DA" "$4" || {
		multipathd show maps topology >&2
		die "$5: $2 not in the active path group with $DA $4"
	}
	log "$5: I/O through $2 after $(awk -v a="$t0" '{printf "%.1f", $1 - a}' /proc/uptime)s"
	expect_rtpg "0x0$1" 0x01
	writes_only_via "$2" "$3" "$5"
}

# ---- setup: second RoCE device, target, initiator, multipath
rxe_setup
rxe_add "$RXE_B" "$ND_B" "$ADDR_B"
srpt_load
SGUID=$(sed 's/^0x//' /sys/module/ib_srpt/parameters/srpt_service_guid)
setup
expect_eq "rtpi of $RXE_A's TPG" "$(port_rtpi "$RXE_A")" "$RTPI_A"
expect_eq "rtpi of $RXE_B's TPG" "$(port_rtpi "$RXE_B")" "$RTPI_B"
modprobe -a scsi_dh_alua dm_multipath || die "modprobe scsi_dh_alua dm_multipath"
srp_initiator_load
login_both
for d in "$DA" "$DB"; do
	expect_eq "device handler of $d" "$(cat "/sys/block/$d/device/dh_state")" alua
done
ra=$(rtpi_of "$DA") rb=$(rtpi_of "$DB")
expect_eq "relative target port of path A" "$ra" "$RTPI_A"
expect_eq "relative target port of path B" "$rb" "$RTPI_B"
[ "$ra" != "$rb" ] || die "both paths report relative target port $ra"
expect_rtpg 0x00 0x01

# detect_prio no: multipathd would otherwise pick "prio sysfs", which
# reads scsi_dh_alua's cached state; right after login that may still be
# active/optimized for both paths (seen once: both in one path group).
cat >"$MPCONF" <<'EOF'
defaults {
	user_friendly_names no
	find_multipaths no
	polling_interval 1
}
blacklist {
	wwid ".*"
}
blacklist_exceptions {
	wwid "^36001405"
}
devices {
	device {
		vendor "LIO-ORG"
		product ".*"
		uid_attribute ""
		path_grouping_policy group_by_prio
		detect_checker no
		path_checker tur
		detect_prio no
		prio alua
		hardware_handler "1 alua"
		no_path_retry queue
		failback immediate
	}
}
EOF
mp_up
wait_for 30 mp_settled "$DA" || {
	multipathd show maps topology >&2
	die "multipath: no map with $DA in the active path group"
}
MAP=$(dmsetup ls --target multipath | awk '{print $1; exit}')
MPDEV=/dev/mapper/$MAP
[ -b "$MPDEV" ] || die "no $MPDEV"
multipathd show maps topology >&2
topo=$(multipathd show maps topology)
echo "$topo" | grep -q " $DB " || die "$DB is not in the map"
echo "$topo" | grep -q "hwhandler='1 alua'" || die "the map has no alua hardware handler"

# ---- failover and failback under fio verify
# fio writes and verifies until the last step is checked: then the
# trigger file stops it, which ends its jobs cleanly (status 0, the
# verification so far in its report), not at a fixed time that a slower
# guest outlives.
log "fio: 4k random writes with crc32c verify on $MPDEV until the last step"
rm -rf "$FIO_STOP" /tmp/alua-fio-aux
mkdir -p /tmp/alua-fio-aux
fio --name=alua --filename="$MPDEV" --direct=1 --ioengine=libaio --rw=randwrite \
	--bs=4k --size=32M --iodepth=8 --verify=crc32c --verify_backlog=256 \
	--verify_fatal=1 --do_verify=1 --time_based --runtime="$FIO_SECS" \
	--trigger-file="$FIO_STOP" --trigger=true --aux-path=/tmp/alua-fio-aux \
	--output-format=json --output=/tmp/alua-fio.json >/dev/null 2>"$LOGDIR/fio.err" &
fiopid=$!
sleep 2
writes_only_via "$DA" "$DB" "pg_a active/optimized"

step 2 "$DB" "$DA" ghost "pg_a standby"
step 3 "$DB" "$DA" faulty "pg_a unavailable"
step 0 "$DA" "$DB" ready "pg_a active/optimized again"

touch "$FIO_STOP"
rc=0
wait "$fiopid" || rc=$?
fiopid=
[ -s "$LOGDIR/fio.err" ] && cat "$LOGDIR/fio.err" >&2
cp /tmp/alua-fio.json "$LOGDIR/fio.json" 2>/dev/null || true
expect_eq "fio exit status" "$rc" 0
read -r ferr fw fr < <(jq -r '.jobs[0] | "\(.error) \(.write.total_ios) \(.read.total_ios)"' /tmp/alua-fio.json)
expect_eq "fio error" "$ferr" 0
[ "$fr" -gt 0 ] || die "fio verified nothing ($fw writes, $fr verify reads)"
log "ok: fio wrote $fw blocks and verified $fr through failover and failback"

# ---- the same relative target port IDs after a module reload
mp_down
srp_logout
srpt_teardown
srpt_unload
srpt_load
SGUID=$(sed 's/^0x//' /sys/module/ib_srpt/parameters/srpt_service_guid)
setup
login_both
expect_eq "relative target port of path A after reload" "$(rtpi_of "$DA")" "$RTPI_A"
expect_eq "relative target port of path B after reload" "$(rtpi_of "$DB")" "$RTPI_B"
expect_rtpg 0x00 0x01
srp_logout
srpt_teardown

# ---- what LIO gives TPGs without rtpi: logged, not checked
BS=$(lio_fileio alua0 /tmp/lun-alua.img 64)
alua_groups "$BS"
port_setup "$RXE_A" "$PG_A" ""
port_setup "$RXE_B" "$PG_B" ""
log "rtpi before enable: A $(port_rtpi "$RXE_A"), B $(port_rtpi "$RXE_B")"
port_enable "$RXE_B"
port_enable "$RXE_A"
log "rtpi allocated at enable (B enabled first): A $(port_rtpi "$RXE_A"), B $(port_rtpi "$RXE_B")"
RXE=$RXE_B
echo 0 >"$(tpg_dir)/enable"
echo 1 >"$(tpg_dir)/enable"
log "after B disabled and enabled again: A $(port_rtpi "$RXE_A"), B $(port_rtpi "$RXE_B")"
