#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Helpers for the hostile-initiator guest runner and its fault scripts.
# Sourced; the state of a set-up guest is kept in /tmp/hostile.env so that
# tests/hostile/faults/*.sh can source this file and find it.
#
#   h_setup             soft-RoCE, target module, LUNs, ACLs, RDMA/CM port,
#                       Linux ib_srp initiator on lun_0 ($H_DISK)
#   h_io_start/stop     background loop of acknowledged writes on $H_DISK,
#                       every acknowledged block read back (ackcheck);
#                       stop sets H_IO_PASSES H_ACKED H_VERIFY_ERRORS
#                       H_IO_ERRORS H_UNVERIFIED H_IO_HUNG
#   h_io_pace [SECONDS] the loop rests SECONDS between passes (none: no rest)
#   h_dmesg_mark TEXT   put a marker in dmesg, prints its id
#   h_splats_since ID   kernel oops/WARNING/BUG/hung-task/lockdep lines since
#                       mark ID (0: boot), and new taint flags
#   h_splats_load/of    the same for each case of a run of cases (hostile -M)
#   h_srp_login/h_srp_logout   (re)connect the Linux initiator
#   h_disrupt_begin/end a deliberate disruption: failed writes in it are not
#                       I/O errors; lost data always counts (closed however
#                       the fault script exits)
#   h_at_exit CMD       run CMD when the sourcing script exits
#   h_srpt_qpns         the target's channels (QP numbers, RDMA tracker)
#   h_acl_session ACL   the QP number of the ACL's logged-in session
#   h_sessions_closed   all channels gone (prints why not)
#   h_teardown          remove the configuration, rmmod, slab check

# The shared bench helpers (tests/lib.sh): soft-RoCE setup, the module
# loading rules (MODULE=ours never lets the distro ib_srpt in), wait_for,
# run_deadline, srp_hosts, srp_dev_dir, srp_target_opts (the add_target
# options), srp_host_disks, SPLAT_RE, LIO, SRPT_CFS, RDMA_CM_PORT (5555).
# The hostile bench runs over soft-RoCE (rxe0) whatever TRANSPORT says.
TRANSPORT=rxe
. "$REPO/tests/lib.sh"

H_STATE=/tmp/hostile.env
H_ADDR=${H_ADDR:-$TARGET_ADDR}
# Initiator port IDs: "hostile\0" || 1 for the tool, initiator_ext "fio\0..."
# for the Linux ib_srp initiator (its port ID ends in the GID's interface ID).
H_IPORT=686f7374696c65000000000000000001
H_FIO_EXT=66696f0000000000
[ -f "$H_STATE" ] && . "$H_STATE"

h_log() { echo "## hostile: $*"; }

# h_at_exit CMD: run CMD when the script that sourced this file exits,
# however it exits (an early exit, a failed step, SIGTERM from the runner's
# timeout); later registrations run first, the exit status stays. Fault
# scripts register their cleanups here rather than with trap, which would
# drop the ones registered before (h_disrupt_begin's among them).
H_AT_EXIT=
h_at_exit() {
	H_AT_EXIT="$1; $H_AT_EXIT"
	trap h_run_at_exit EXIT
}
h_run_at_exit() { eval "$H_AT_EXIT"; }

# The taint flags before the first mark: h_splats_since 0's baseline.
[ -e /tmp/hostile.taint.0 ] || cat /proc/sys/kernel/tainted >/tmp/hostile.taint.0

# (builtins only: under TCG each process costs a fraction of a second)
h_dmesg_mark() {
	local id=0 t
	read -r id 2>/dev/null </tmp/hostile.mark
	id=$((id + 1))
	echo "$id" >/tmp/hostile.mark
	read -r t </proc/sys/kernel/tainted
	echo "$t" >"/tmp/hostile.taint.$id"
	echo "hostile-mark $id: $*" >/dev/kmsg
	echo "$id"
}

h_splats_since() {
	if [ "$1" = 0 ]; then
		dmesg
	else
		dmesg | sed -n "/hostile-mark $1:/,\$p"
	fi | grep -aE "$SPLAT_RE"
	taint_new "$(cat "/tmp/hostile.taint.$1" 2>/dev/null || echo 0)"
	true
}

# For a run of cases in one tool process (run-guest.sh: hostile -M marks
# each case as h_dmesg_mark does). h_splats_load ID reads dmesg from mark
# ID on, once; h_splats_of ID [NEXT] then sets H_SPLAT to what
# h_splats_since ID would have printed right after that case: the splat
# lines from its mark up to the next case's mark NEXT (none: up to now),
# and its new taint flags. Builtins only: under TCG every process costs a
# fraction of a second, and this runs once per case.
h_splats_load() {
	dmesg | sed -n "/hostile-mark $1:/,\$p" | grep -aE "hostile-mark [0-9]+: |$SPLAT_RE" >/tmp/hostile.splats
	mapfile -t H_SPLAT_LINES </tmp/hostile.splats
}
h_splats_of() {
	local l on= t0=0 t1 new flags= i letters=PFSRMBUDAWCIOELKXTN
	H_SPLAT=
	for l in "${H_SPLAT_LINES[@]}"; do
		case $l in
		*"hostile-mark $1: "*) on=1 ;;
		*"hostile-mark ${2:-none}: "*) break ;;
		*"hostile-mark "[0-9]*": "*) ;;
		*) [ -z "$on" ] || H_SPLAT+="$l"$'\n' ;;
		esac
	done
	# tests/lib.sh's taint_new, against the taint at the next mark
	read -r t0 2>/dev/null <"/tmp/hostile.taint.$1"
	if [ -n "${2:-}" ]; then
		read -r t1 <"/tmp/hostile.taint.$2"
	else
		read -r t1 </proc/sys/kernel/tainted
	fi
	new=$(( t1 & ~${t0:-0} & ~((1 << 12) | (1 << 13)) ))
	if [ "$new" != 0 ]; then
		for ((i = 0; i < ${#letters}; i++)); do
			(( new & (1 << i) )) && flags+=${letters:i:1}
		done
		(( new >> ${#letters} )) && flags+="+$(( new >> ${#letters} << ${#letters} ))"
		H_SPLAT+="kernel tainted: $flags (was ${t0:-0}, now $t1)"$'\n'
	fi
	H_SPLAT=${H_SPLAT%$'\n'}
}

h_save() {
	{
		for v in H_GUID H_G16 H_WWN H_TPG H_DISK H_ADDR H_SHOST; do
			printf "%s=%q\n" "$v" "${!v:-}"
		done
	} >"$H_STATE"
}

h_load_target() {
	srpt_load || return 1
	mountpoint -q /sys/kernel/config || mount -t configfs configfs /sys/kernel/config
	wait_for 10 test -d /sys/module/ib_srpt
}

h_rd() {	# h_rd NAME MiB: a ramdisk backstore
	local d=$LIO/core/rd_mcp_0/$1
	[ "$(cat "$d/enable" 2>/dev/null)" = 1 ] && return 0
	mkdir -p "$d" || return 1
	echo "rd_pages=$(( $2 * 256 ))" >"$d/control" || return 1
	echo 1 >"$d/enable"
}

h_acl() {	# h_acl NAME TPG_LUN [TPG]: ACL whose LUN 0 is the TPG's lun_N
	local t=${3:-$H_TPG}
	local a=$t/acls/$1
	mkdir -p "$a/lun_0" || return 1
	[ -L "$a/lun_0/map" ] || ln -s "$t/lun/lun_$2" "$a/lun_0/map"
}

# h_gid_acls IBDEV EXT TPG_LUN [TPG]: ACLs for a Linux initiator logging in
# through IBDEV with initiator_ext EXT. Its port ID is EXT || the interface
# ID of a GID (index 0 is the one used; cover every populated GID to be
# independent of that). Builtins only: the GID table has hundreds of
# entries and forks are slow under TCG. The populated ones come first.
h_gid_acls() {
	local i g id seen=" "
	for i in 0 1 2 3 4 5 6 7; do
		read -r g 2>/dev/null </sys/class/infiniband/$1/ports/1/gids/$i || continue
		g=${g//:/}
		id=${g:16:16}
		[ -n "$id" ] && [ "$id" != 0000000000000000 ] || continue
		[[ "$seen" == *" $id "* ]] && continue
		seen+="$id "
		h_acl "0x$2$id" "$3" "${4:-}" || { echo "cannot create ACL 0x$2$id"; return 1; }
	done
}

h_configure() {
	mkdir -p "$SRPT_CFS" 2>/dev/null
	H_WWN=$(srpt_wwn)
	H_TPG=$SRPT_CFS/$H_WWN/tpgt_1
	mkdir -p "$H_TPG" || { echo "cannot create $H_TPG"; return 1; }
	# hostile_rd: 16 MiB for the cases, one more for the probe's blocks
	h_rd fio_rd 64 && h_rd hostile_rd 17 || { echo "cannot create ramdisks"; return 1; }
	mkdir -p "$H_TPG/lun/lun_0" "$H_TPG/lun/lun_1" || return 1
	[ -L "$H_TPG/lun/lun_0/fio_rd" ] || ln -s "$LIO/core/rd_mcp_0/fio_rd" "$H_TPG/lun/lun_0/fio_rd"
	[ -L "$H_TPG/lun/lun_1/hostile_rd" ] || ln -s "$LIO/core/rd_mcp_0/hostile_rd" "$H_TPG/lun/lun_1/hostile_rd"
	h_acl "0x$H_IPORT" 1 || { echo "cannot create the hostile ACL"; return 1; }
	h_gid_acls rxe0 "$H_FIO_EXT" 0 || return 1
	echo "$RDMA_CM_PORT" >"$SRPT_CFS/discovery_auth/rdma_cm_port" || { echo "cannot set rdma_cm_port"; return 1; }
	echo 1 >"$H_TPG/enable" || { echo "cannot enable the TPG"; return 1; }
}

# h_host_disk HOST: the disk of SCSI host HOST (hostN; tests/lib.sh's
# srp_host_disks), non-zero when it has none.
h_host_disk() {
	local d
	d=$(srp_host_disks "$1" | head -n 1)
	[ -n "$d" ] && echo "$d"
}

# The disk of the Linux initiator's main login (lun_0, fio). Other logins
# (the multipath fault) have disks too: only the host recorded at login
# counts, re-read from the state file because logins change it.
h_srp_disk() {
	local h
	h=$(sed -n 's/^H_SHOST=//p' "$H_STATE" 2>/dev/null)
	[ -n "$h" ] || return 1
	h_host_disk "$h"
}

# h_srp_add IBDEV ADDR TARGET_GUID16 INITIATOR_EXT: log ib_srp in through
# IBDEV port 1 (tests/lib.sh's srp_dev_dir, srp_target_opts); prints the new
# SCSI host once it has a disk.
h_srp_add() {
	local before try at
	at=$(srp_dev_dir "$1")/add_target
	srp_initiator_load || return 1
	wait_for 10 test -e "$at" || { echo "no $at"; return 1; }
	before=" $(srp_hosts | tr '\n' ' ')"
	# ib_srp drops a removed target from its list asynchronously, after
	# the remote port is gone: EEXIST right after a logout is transient.
	for try in $(seq 20); do
		echo "$(srp_target_opts "$3" "$2"),initiator_ext=$4" \
			>"$at" 2>/tmp/hostile.add_target && break
		grep -q 'File exists' /tmp/hostile.add_target || try=20
		[ "$try" = 20 ] && { echo "ib_srp add_target failed: $(cat /tmp/hostile.add_target)"; return 1; }
		sleep 1
	done
	h_new_host() {
		local x
		for x in $(srp_hosts); do
			[[ "$before" == *" $x "* ]] && continue
			h_host_disk "host$x" >/dev/null && { echo "host$x"; return 0; }
		done
		return 1
	}
	wait_for 30 h_new_host >/dev/null || { echo "no disk from ib_srp via $1"; return 1; }
	h_new_host
}

h_srp_login() {
	local h
	h=$(h_srp_add rxe0 "$H_ADDR" "$H_G16" "$H_FIO_EXT") || { echo "$h"; return 1; }
	H_SHOST=$h
	H_DISK=$(h_host_disk "$h")
	h_save
}

# h_dm NAME TABLE: a device-mapper device; prints its /dev/dm-N. (No
# udev daemon in the guest: libdevmapper must not wait for one.)
h_dm() {
	local m
	DM_DISABLE_UDEV=1 dmsetup create "$1" --table "$2" || return 1
	m=$(dmsetup info -c --noheadings -o minor "$1" | tr -d ' ')
	wait_for 10 test -b "/dev/dm-$m" || return 1
	echo "/dev/dm-$m"
}

h_dm_remove() { DM_DISABLE_UDEV=1 dmsetup remove "$@"; }

# h_iblock_lun NAME DEV N: an iblock backstore on DEV, exported as the
# TPG's lun_(N+10) and mapped as LUN N of the hostile initiator's ACL.
h_iblock_lun() {
	local d acl=$H_TPG/acls/0x$H_IPORT t=$H_TPG/lun/lun_$(($3 + 10))
	d=$(lio_iblock "$1" "$2") || { echo "cannot create the iblock backstore $1 on $2"; return 1; }
	mkdir -p "$t" && ln -s "$d" "$t/$1" &&
		mkdir -p "$acl/lun_$3" && ln -s "$t" "$acl/lun_$3/map" ||
		{ echo "cannot map $1 as LUN $3"; return 1; }
}

# h_iblock_unlun NAME N: undo h_iblock_lun.
h_iblock_unlun() {
	local acl=$H_TPG/acls/0x$H_IPORT t=$H_TPG/lun/lun_$(($2 + 10))
	rm -f "$acl/lun_$2/map"; rmdir "$acl/lun_$2"
	rm -f "$t/$1"; rmdir "$t"
	rmdir "$LIO/core/iblock_0/$1" || { echo "cannot remove the backstore $1"; return 1; }
	rmdir "$LIO/core/iblock_0" 2>/dev/null
	return 0
}

# Run one hostile-tool case: h_tool CASE [tool options]
h_tool() {
	local c=$1
	shift
	timeout -k 5 180 "$HOSTILE" -a "$H_ADDR" -p "$RDMA_CM_PORT" -g "$H_GUID" -I "$H_IPORT" \
		-c "$c" -t 90 "$@"
}

# A fresh hostile-tool login works: INQUIRY, READ, the seed block written
# at setup reads back, a fresh block reads back as written; prints why not.
h_sanity() {
	h_tool sanity "$@" >/tmp/hostile.sanity 2>&1 && return 0
	grep -E '^(PASS|FAIL)|^  ' /tmp/hostile.sanity | head -n 5
	return 1
}

# h_blknode DISK PATH: a private block device node for DISK (/dev/sdX).
# I/O goes through it, never through /dev/sdX: writing to /dev/sdX while
# the disk is away (between a logout and a login) would create a regular
# file there, which shadows the disk when it comes back and silently
# takes all later I/O.
h_blknode() {
	local mm
	mm=$(cat "/sys/block/${1#/dev/}/dev" 2>/dev/null) || return 1
	rm -f "$2"
	mknod "$2" b "${mm%:*}" "${mm#*:}"
}

# The Linux initiator's disk answers a 4 KiB direct read.
h_disk_ok() {
	local d n=/tmp/hostile.disk_ok
	d=$(h_srp_disk) && h_blknode "$d" "$n" || return 1
	timeout 20 dd if="$n" of=/dev/null bs=4k count=1 iflag=direct status=none 2>/dev/null
}

# Wait for ib_srp to reconnect by itself; log it in again if it does not.
h_srp_recover() {	# h_srp_recover SECONDS
	wait_for "${1:-60}" h_disk_ok && { echo "ib_srp reconnected by itself"; return 0; }
	echo "ib_srp did not reconnect within ${1:-60} s: logging in again"
	run_deadline 60 h_srp_logout >/dev/null 2>&1
	h_srp_login && wait_for 30 h_disk_ok
}

h_srp_logout() {
	local p
	for p in /sys/class/srp_remote_ports/port-*; do
		[ -e "$p/delete" ] && echo 1 >"$p/delete"
	done
	wait_for 30 eval '! ls -d /sys/class/srp_remote_ports/port-* >/dev/null 2>&1'
}

h_setup() {
	rxe_setup && rxe_port_active || { echo "soft-RoCE setup failed"; return 1; }
	h_log "rxe0 up after $(cut -d' ' -f1 /proc/uptime)s"
	h_load_target || { echo "loading the target ($MODULE) failed"; return 1; }
	H_GUID=$(cat /sys/class/infiniband/rxe0/node_guid)
	H_G16=$(echo "$H_GUID" | tr -d :)
	h_configure || return 1
	h_save
	h_log "target configured after $(cut -d' ' -f1 /proc/uptime)s"
	h_tool probe_seed -n >/tmp/hostile.seed 2>&1 ||
		{ echo "writing the probe's seed block failed:"; cat /tmp/hostile.seed; return 1; }
	h_srp_login || return 1
}

# ---- the acknowledged-write loop ----
# The Linux initiator writes all the time (tests/hostile/ackcheck.c): each
# pass is 2048 random 4 KiB writes over 32 MiB from 8 threads, then a read
# of every block any pass ever had acknowledged. A write that completed
# must be there, whatever happened since: a sector may only hold the
# generation last acknowledged or one tried after it whose write failed.
# Nothing of that is forgiven, in or out of a disruption. A pass whose
# read-back cannot reach the disk is read again once it is back, and the
# final read (h_io_stop) must reach every acknowledged block.
#
# Fault scripts bracket deliberate disruptions with h_disrupt_begin/end:
# a pass with failed writes counts as an I/O error unless it overlaps one.
#
# I/O goes to a dm-linear device over the disk, never to the disk itself:
# once a removed disk is marked dead its capacity is 0, and a read beyond
# a block device's capacity returns 0 bytes instead of an error. Through
# dm the capacity stays, and I/O reaching the dead disk fails.
H_IO_DIR=/tmp/hostile-fio
H_IO_DM=hostile_fio
H_ACK_BLOCKS=8192
h_ackcheck() { "$(dirname "${HOSTILE:-/var/cache/ib_srpt/hostile/hostile}")/ackcheck" "$@"; }
h_io_dev() {	# h_io_dev NODE [DM]: point dm device DM at the current disk
	local d mm sz table m dm=${2:-$H_IO_DM}
	d=$(h_srp_disk) || return 1
	d=${d#/dev/}
	mm=$(cat "/sys/block/$d/dev" 2>/dev/null) || return 1
	sz=$(cat "/sys/block/$d/size" 2>/dev/null) || return 1
	[ "$sz" -gt 0 ] || return 1
	table="0 $sz linear $mm 0"
	if ! dmsetup info "$dm" >/dev/null 2>&1; then
		h_dm "$dm" "$table" >/dev/null || return 1
	elif [ "$(dmsetup table "$dm")" != "$table" ]; then
		DM_DISABLE_UDEV=1 dmsetup reload "$dm" --table "$table" || return 1
		DM_DISABLE_UDEV=1 dmsetup resume "$dm" || return 1
	fi
	m=$(dmsetup info -c --noheadings -o minor "$dm" | tr -d ' ')
	h_blknode "dm-$m" "$1"
}

# h_ack_verify OUT [TRIES [OPTION...]]: read back every acknowledged block
# (ackcheck verify OPTIONs: -B BLOCK, the ones near BLOCK) into OUT,
# re-pointing the dm device at the disk between tries (one a second).
# Status: ackcheck verify's (0 all there, 1 data lost, 2 disk not reached).
h_ack_verify() {
	local o=$1 tries=${2:-60} try rc=2
	shift 2 2>/dev/null || shift
	echo "ackcheck verify: the disk was not there" >"$o"
	for try in $(seq "$tries"); do
		if h_io_dev "$H_IO_DIR/disk"; then
			h_ackcheck verify "$H_IO_DIR/disk" "$H_IO_DIR/state" "$@" >"$o" 2>&1
			rc=$?
			[ "$rc" = 2 ] || return "$rc"
		fi
		[ -e "$H_IO_DIR/stop" ] && [ "$try" -gt 30 ] && break
		sleep 1
	done
	return "$rc"
}

h_io_start() {
	rm -rf "$H_IO_DIR"; mkdir -p "$H_IO_DIR"
	(
		n=0
		while [ ! -e "$H_IO_DIR/stop" ]; do
			if ! h_io_dev "$H_IO_DIR/disk"; then
				sleep 1
				continue
			fi
			n=$((n + 1))
			t0=$(date +%s)
			h_ackcheck write "$H_IO_DIR/disk" "$H_IO_DIR/state" -b "$H_ACK_BLOCKS" \
				-n 2048 -t 8 -S "$H_IO_DIR/stop" >"$H_IO_DIR/out.$n" 2>&1
			rc=$?
			echo "$t0 $(date +%s)" >"$H_IO_DIR/t.$n"
			# A pass cut short by h_io_stop is read back by its
			# final read-back, the same blocks against the same
			# state: not twice.
			if [ -e "$H_IO_DIR/stop" ]; then
				echo final >"$H_IO_DIR/vrc.$n"
			else
				# Until a read-back reaches the disk, no new
				# pass: its writes could cover a lost one.
				# (Stopped meanwhile: the final read-back
				# reads the same state.)
				while h_ack_verify "$H_IO_DIR/verify.$n"; vrc=$?
					[ "$vrc" = 2 ] && [ ! -e "$H_IO_DIR/stop" ]; do :; done
				[ "$vrc" = 2 ] && vrc=final
				echo "$vrc" >"$H_IO_DIR/vrc.$n"
			fi
			echo "$rc" >"$H_IO_DIR/rc.$n"
			# h_io_pace: rest between passes while asked to.
			k=0
			while [ -e "$H_IO_DIR/pace" ] && [ ! -e "$H_IO_DIR/stop" ] &&
				[ "$k" -lt "$(cat "$H_IO_DIR/pace" 2>/dev/null || echo 0)" ]; do
				sleep 1; k=$((k + 1))
			done
		done
	) </dev/null >/dev/null 2>&1 &
	echo $! >"$H_IO_DIR/pid"
	disown $! 2>/dev/null
}

# h_io_pace [SECONDS]: from the next pass on, the loop rests SECONDS
# between passes (after a pass's read-back); without SECONDS, no more. The
# hostile cases run with a rest (run-guest.sh): on the debug kernel the
# loop took about a fifth of their time, and what they can break in the
# Linux initiator's session shows as its channels gone, not only as a
# failed write.
h_io_pace() {
	if [ -n "${1:-}" ]; then
		echo "$1" >"$H_IO_DIR/pace"
	else
		rm -f "$H_IO_DIR/pace"
	fi
}

# The check can fail: a block acknowledged as written is zeroed behind the
# loop's back, and the read-back must name it.
# Before the change every block must verify: h_io_stop's final read-back
# just found that (nothing has written since), or a read-back here does.
h_io_selftest() {
	local blk
	h_io_dev "$H_IO_DIR/disk" || { echo "no disk"; return 1; }
	if [ "${H_FINAL_RC:-}" != 0 ]; then
		h_ack_verify "$H_IO_DIR/self.1" 5 ||
			{ echo "verify before the change: $(tail -n 1 "$H_IO_DIR/self.1")"; return 1; }
	fi
	blk=$(h_ackcheck acked "$H_IO_DIR/state") || { echo "no acknowledged block"; return 1; }
	dd if=/dev/zero of="$H_IO_DIR/disk" bs=512 seek=$((blk * 8 + 5)) count=1 oflag=direct status=none
	h_ack_verify "$H_IO_DIR/self.2" 5 -B "$blk" && { echo "verify missed a zeroed sector"; return 1; }
	grep -q "^LOST block $blk sector 5:" "$H_IO_DIR/self.2" ||
		{ echo "verify failed, but not at the zeroed sector: $(head -n 2 "$H_IO_DIR/self.2")"; return 1; }
}

# A disruption window runs from h_disrupt_begin to h_disrupt_end (plus
# slack) and is recorded in $H_IO_DIR/disrupt; while it is open,
# disrupt.now holds its start. However a fault script ends (an early exit,
# a failed step, the runner's timeout), its open window is closed with it
# (h_at_exit), and the runner closes any window a killed script left open
# before the next fault: a window never extends over later faults.
#
# A disruption tests the data only if writes are in flight when it starts:
# h_disrupt_begin first waits (up to 60 s) until the loop is in a write
# phase, an acknowledged write seen after it was called. Without one, the
# window is recorded in $H_IO_DIR/idle and the runner fails the fault.
h_disrupt_begin() {
	if ! h_io_flowing 60; then
		echo "no write acknowledged in the 60 s before the disruption: it tests no data"
		date +%s >>"$H_IO_DIR/idle"
	fi
	h_io_acked >"$H_IO_DIR/disrupt.acked"
	date +%s >"$H_IO_DIR/disrupt.now"
	[ -n "${H_DISRUPT_TRAP:-}" ] || { H_DISRUPT_TRAP=1; h_at_exit h_disrupt_end; }
}
h_disrupt_end() {
	local a0
	# 5 s of slack: the initiator notices late.
	[ -e "$H_IO_DIR/disrupt.now" ] || return 0
	echo "$(cat "$H_IO_DIR/disrupt.now") $(( $(date +%s) + 5 ))" >>"$H_IO_DIR/disrupt"
	read -r a0 2>/dev/null <"$H_IO_DIR/disrupt.acked"
	echo "writes acknowledged during the disruption: $(( $(h_io_acked) - ${a0:-0} ))"
	rm -f "$H_IO_DIR/disrupt.now"
}

# h_io_idle: how many disruptions began with no write flowing.
h_io_idle() {
	if [ -e "$H_IO_DIR/idle" ]; then wc -l <"$H_IO_DIR/idle"; else echo 0; fi
}

# h_io_acked: the writes the loop has had acknowledged since it started.
h_io_acked() { h_ackcheck count "$H_IO_DIR/state" 2>/dev/null || echo 0; }

# h_io_flowing SECONDS: succeeds once a write is acknowledged after the call.
h_io_flowing() {
	local a0 a n=0
	a0=$(h_io_acked)
	while [ "$n" -lt $(( $1 * 5 )) ]; do
		sleep 0.2
		a=$(h_io_acked)
		[ "$a" -gt "$a0" ] && return 0
		n=$((n + 1))
	done
	return 1
}

# h_pass_disrupted N: pass N overlaps a disruption window (an open one
# counts from its start until now).
h_pass_disrupted() {
	local s e a b
	read -r s e <"$H_IO_DIR/t.$1" || return 1
	if read -r a 2>/dev/null <"$H_IO_DIR/disrupt.now"; then
		[ "$a" -le "$e" ] && return 0
	fi
	[ -e "$H_IO_DIR/disrupt" ] || return 1
	while read -r a b; do
		[ "$a" -le "$e" ] && [ "$b" -ge "$s" ] && return 0
	done <"$H_IO_DIR/disrupt"
	return 1
}

# h_io_stop [MAX_WAIT_S]: stop the loop, read back every acknowledged
# block once more and count. Sets H_IO_PASSES, H_ACKED (writes
# acknowledged), H_VERIFY_ERRORS (sectors lost, over every read-back),
# H_IO_ERRORS (passes with failed writes outside a disruption, and
# disruptions that began with no write in flight),
# H_UNVERIFIED (the final read-back never reached the disk; a pass's own
# read-back is retried until it does, before the next pass writes) and H_IO_HUNG
# (the loop had to be killed).
h_io_stop() {
	local pid n=0 f rc vrc o v k max=${1:-240}
	pid=$(cat "$H_IO_DIR/pid" 2>/dev/null)
	touch "$H_IO_DIR/stop"
	H_IO_HUNG=0
	while [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && [ $n -lt "$max" ]; do
		sleep 1; n=$((n + 1))
	done
	if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
		echo "the write loop did not finish its pass within $max s: killing it"
		H_IO_HUNG=1
		pkill -9 -P "$pid"; kill -9 "$pid"
	fi
	H_IO_PASSES=0 H_VERIFY_ERRORS=0 H_IO_ERRORS=0 H_UNVERIFIED=0 H_ACKED=0
	# (builtins for a pass that went well: under TCG a process costs a
	# fraction of a second, a debug run has twenty passes and more)
	for f in "$H_IO_DIR"/rc.*; do
		[ -e "$f" ] || continue
		k=${f##*rc.}
		H_IO_PASSES=$((H_IO_PASSES + 1))
		read -r rc <"$f"
		read -r vrc <"$H_IO_DIR/vrc.$k"
		read -r o <"$H_IO_DIR/out.$k"
		[[ "$o" =~ ^ackcheck\ write:\ ([0-9]+)\ acknowledged ]] &&
			H_ACKED=$((H_ACKED + BASH_REMATCH[1]))
		v=0
		[ "$vrc" = 0 ] || [ "$vrc" = final ] || v=$(grep -ac '^LOST ' "$H_IO_DIR/verify.$k" 2>/dev/null)
		if [ "$v" -gt 0 ]; then
			H_VERIFY_ERRORS=$((H_VERIFY_ERRORS + v))
			echo "pass $k ($(cat "$H_IO_DIR/t.$k")): $v acknowledged sectors lost$(h_pass_disrupted "$k" && echo ', during a deliberate disruption'):"
			grep -a '^LOST ' "$H_IO_DIR/verify.$k" | head -n 10 | sed 's/^/    /'
		elif [ "$vrc" != 0 ] && [ "$vrc" != final ]; then
			H_UNVERIFIED=$((H_UNVERIFIED + 1))
			echo "pass $k: read-back did not reach the disk: $(tail -n 1 "$H_IO_DIR/verify.$k")"
		fi
		[ "$rc" = 0 ] && continue
		if h_pass_disrupted "$k"; then
			echo "pass $k: $(cat "$H_IO_DIR/out.$k") during a deliberate disruption (not counted)"
			continue
		fi
		H_IO_ERRORS=$((H_IO_ERRORS + 1))
		echo "pass $k ($(cat "$H_IO_DIR/t.$k")), status $rc: $(cat "$H_IO_DIR/out.$k")"
	done
	v=$(h_io_idle)
	if [ "$v" != 0 ]; then
		H_IO_ERRORS=$((H_IO_ERRORS + v))
		echo "$v disruptions began with no write in flight (at $(tr '\n' ' ' <"$H_IO_DIR/idle"))"
	fi
	# The last word: every block ever acknowledged, read once more.
	h_ack_verify "$H_IO_DIR/verify.final" 60
	rc=$?
	H_FINAL_RC=$rc
	v=$(grep -ac '^LOST ' "$H_IO_DIR/verify.final")
	H_VERIFY_ERRORS=$((H_VERIFY_ERRORS + v))
	echo "final read-back: $(tail -n 1 "$H_IO_DIR/verify.final")"
	[ "$v" -gt 0 ] && grep -a '^LOST ' "$H_IO_DIR/verify.final" | head -n 10 | sed 's/^/    /'
	# 1 with LOST lines is counted above; any other failure (2: the disk
	# was not reached, 4: no state to check against) proves nothing.
	if [ "$rc" != 0 ] && [ "$v" = 0 ]; then
		H_UNVERIFIED=$((H_UNVERIFIED + 1))
		H_IO_ERRORS=$((H_IO_ERRORS + 1))
		echo "the final read-back concluded nothing (ackcheck verify status $rc)"
	fi
	# The dm device holds the (maybe dead) disk open: ib_srp could not
	# be unloaded.
	h_dm_remove "$H_IO_DM" 2>/dev/null
}

# ---- sessions and teardown ----
h_rc_qps() { rdma resource show qp 2>/dev/null | grep -c 'type RC' || true; }
h_cm_ids() { rdma resource show cm_id 2>/dev/null | grep -v 'state LISTEN' | grep -c 'cm-idn' || true; }

h_no_channels() { [ "$(h_rc_qps)" = 0 ] && [ "$(h_cm_ids)" = 0 ]; }

# The target's channels as the RDMA resource tracker shows them: the local
# QP numbers of ib_srpt's connected CM IDs (the RDMA/CM logins of ib_srp
# and of the hostile tool), one a line. Works for either module.
h_srpt_qpns() {
	rdma resource show cm_id 2>/dev/null | grep '\[ib_srpt\]' | grep -v 'state LISTEN' |
		sed -n 's/.* lqpn \([0-9][0-9]*\) .*/\1/p' | sort -n
}
# h_qp_exists QPN: some device has a QP with that local number.
h_qp_exists() { rdma resource show qp 2>/dev/null | grep -q " lqpn $1 "; }
# h_acl_session ACL_DIR: with a session logged in through the ACL, print
# the target QP number its info names ("LIO Session ID", our module's
# info); fail otherwise.
h_acl_session() {
	local i
	i=$(cat "$1/info" 2>/dev/null) || return 1
	grep -q 'TARG_SESS_STATE_LOGGED_IN' <<<"$i" || return 1
	sed -n 's/^LIO Session ID: \([0-9][0-9]*\) .*/\1/p' <<<"$i" | grep .
}

h_sessions_closed() {
	local a
	h_srp_logout || echo "ib_srp did not log out within 30 s"
	if ! wait_for 90 h_no_channels; then
		echo "after 90 s: $(h_rc_qps) RC QPs and $(h_cm_ids) connected CM IDs remain"
		rdma resource show qp | grep 'type RC' | head -n 5
		rdma resource show cm_id | grep -v 'state LISTEN' | head -n 5
		return 1
	fi
	if [ -n "$(cat "$H_TPG/dynamic_sessions" 2>/dev/null)" ]; then
		echo "dynamic_sessions not empty: $(cat "$H_TPG/dynamic_sessions")"
		return 1
	fi
	for a in "$H_TPG"/acls/*/info; do
		[ -r "$a" ] && echo "  $(basename "$(dirname "$a")") info: $(head -c 200 "$a" | tr '\n' ' ')"
	done >&2
	return 0
}

# h_unconfigure [all]: remove the TPG and its target port; the backstores
# (and the data fio verifies) stay unless asked.
h_unconfigure() {
	[ -n "${H_TPG:-}" ] && [ -d "$H_TPG" ] || return 0
	srpt_tpg_remove "$H_TPG" && rmdir "$(dirname "$H_TPG")" || return 1
	if [ "${1:-}" = all ]; then
		rmdir "$LIO"/core/rd_mcp_0/* 2>/dev/null
		rmdir "$LIO"/core/rd_mcp_0 2>/dev/null
	fi
	return 0
}

h_teardown() {
	local s
	run_deadline 60 h_srp_logout >/dev/null 2>&1
	run_deadline 60 modprobe -r ib_srp 2>/dev/null
	run_deadline 120 h_unconfigure all 2>&1 || { echo "could not remove the configfs tree"; return 1; }
	rmdir "$SRPT_CFS" 2>/dev/null
	if ! run_deadline 120 rmmod ib_srpt 2>&1; then
		echo "rmmod ib_srpt failed or hung: $(grep -E '^ib_srpt' /proc/modules)"
		return 1
	fi
	s=$( (grep -i srpt /proc/slabinfo 2>/dev/null; ls /sys/kernel/slab 2>/dev/null | grep -i srpt) | head -n 5)
	[ -z "$s" ] || { echo "slab caches left after rmmod: $s"; return 1; }
	return 0
}
