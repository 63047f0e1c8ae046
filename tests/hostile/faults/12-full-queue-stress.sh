#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 1000
# Full queues. A second Linux ib_srp login (initiator_ext "qs",
# queue_size=256) to a LUN of its own (stress_rd, the TPG's lun_4) runs fio
# at iodepth 256 (a 4 KiB random-write job and a 1 MiB random read/write
# job side by side, verify=crc32c, direct I/O), once with the target port's
# srp_sq_size at the smallest value it accepts (found by trying) and once
# at its default, 4096 (srp_sq_size takes effect for new logins: the
# stress initiator logs in again for each).
#   phase A, no task management: fio without errors, 0 verify errors, and
#     0 SCSI timeouts (the disk's iotmo_cnt) and 0 aborts/resets in dmesg;
#   phase B, fio passes alongside TMFs (sg_reset -d, sg_reset -t, and a
#     1 s SCSI command timeout that makes the midlayer abort commands,
#     restored afterwards): 0 verify errors (a verify failure at a block
#     whose write failed is no loss and alone is forgiven), at least one
#     pass verified under TMFs, nothing hangs, and the disk works
#     afterwards (a clean fio verify pass). Beside fio, ackcheck writes
#     the 32 MiB phase B's fio leaves alone (a dm-linear device) and reads
#     every acknowledged block back after each pass and once at the end:
#     a fio pass that an I/O error ends never reads its writes back, this
#     loop always does. No sector lost, every read-back conclusive.
# A fio pass takes as long as the machine needs: it is hung only when the
# disk completes no command for 60 s (90 s under TMFs).
# Prints the commands completed (fio totals and the LUN's in_cmds).
# The fio initiator's channel is not touched. Everything is removed after.
. "$REPO/tests/hostile/guest-lib.sh"
bad=0
QS_EXT=7173000000000000	# "qs"
QD=256
D=/tmp/f12
A=$H_TPG/attrib/srp_sq_size
LUN=$H_TPG/lun/lun_4
rm -rf "$D"; mkdir -p "$D"
total_cmds=0
host= disk= node=$D/disk ack_pid=

say() { echo "$*"; }
no() { echo "FAIL: $*"; bad=1; }

# ---- setup: backstore, LUN, ACLs ----
orig=$(cat "$A" 2>/dev/null) || { echo "no srp_sq_size attribute at $A"; exit 1; }
h_rd stress_rd 96 || { echo "cannot create the stress_rd ramdisk"; exit 1; }
mkdir -p "$LUN" && { [ -L "$LUN/stress_rd" ] || ln -s "$LIO/core/rd_mcp_0/stress_rd" "$LUN/stress_rd"; } ||
	{ echo "cannot export stress_rd as lun_4"; exit 1; }
h_gid_acls rxe0 "$QS_EXT" 4 || { echo "cannot create the qs ACLs"; exit 1; }

# ---- helpers ----
qs_login() {
	local h
	h=$(h_srp_add rxe0 "$H_ADDR" "$H_G16" "$QS_EXT,queue_size=$QD") || { echo "$h"; return 1; }
	host=$h
	disk=$(h_host_disk "$h") || { echo "no disk for $h"; return 1; }
	h_blknode "$disk" "$node" || { echo "no device node for $disk"; return 1; }
}
qs_logout() {
	local p
	[ -n "$host" ] || return 0
	p=/sys/class/srp_remote_ports/port-${host#host}:1
	[ -e "$p/delete" ] && run_deadline 30 sh -c "echo 1 >'$p/delete'" >/dev/null 2>&1
	wait_for 60 eval "! test -e /sys/class/scsi_host/$host" ||
		{ echo "stress login $host still there 60 s after its remote port was deleted"; return 1; }
	host= disk=
}
sdattr() { cat "/sys/block/${disk#/dev/}/device/$1" 2>/dev/null || echo 0; }
hexdec() { printf '%d' "$1" 2>/dev/null || echo 0; }
in_cmds() { cat "$LUN/statistics/scsi_tgt_port/in_cmds" 2>/dev/null || echo 0; }

# Commands the stress disk has completed (reads + writes, its block stat).
done_ios() { awk '{ print $1 + $5 }' "/sys/block/${disk#/dev/}/stat" 2>/dev/null || echo 0; }

# fio_run STALL OUT SIZE4K SIZE1M: the two jobs at iodepth $QD, side by
# side. A pass takes as long as this machine needs; it is judged hung only
# when the disk completes no command for STALL seconds while fio runs: fio
# is then killed and the status is 124 (also when it cannot be reaped).
fio_run() {
	local stall=$1 out=$2 pid n last idle=0 i
	fio --filename="$node" --direct=1 \
		--ioengine=libaio --iodepth="$QD" --verify=crc32c --verify_fatal=0 --randrepeat=0 \
		--name=rand4k --rw=randwrite --bs=4k --size="$3" --offset=0 \
		--name=mix1m --rw=randrw --rwmixread=50 --bs=1M --size="$4" --offset=32M \
		>"$out" 2>&1 &
	pid=$!
	last=$(done_ios)
	while kill -0 "$pid" 2>/dev/null; do
		sleep 1
		n=$(done_ios)
		if [ "$n" != "$last" ]; then
			last=$n idle=0
			continue
		fi
		idle=$((idle + 1))
		[ "$idle" -lt "$stall" ] && continue
		echo "fio_run: no command completed for $stall s: killing fio" >>"$out"
		kill -TERM "$pid" 2>/dev/null
		for i in $(seq 10); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 1
		done
		kill -KILL "$pid" 2>/dev/null
		sleep 1
		# (a task stuck in the kernel cannot be reaped: do not wait)
		kill -0 "$pid" 2>/dev/null || wait "$pid" 2>/dev/null
		return 124
	done
	wait "$pid"
}
# fio's verify failures in output file $1, one line each: "<requested
# block offset> <length> <line>" (offset and length -1 when the line does
# not say).
H_VERIFY_RE='verify failed|bad magic|bad header|verify: bad'
h_verify_failures() {
	grep -aE "$H_VERIFY_RE" "$1" | awk '{
		o = -1; l = -1
		if (match($0, /requested block: offset=[0-9]+, length=[0-9]+/)) {
			split(substr($0, RSTART, RLENGTH), f, /[=,]/)
			o = f[2]; l = f[4]
		}
		print o, l, $0
	}'
}

# h_verify_unexplained OUT: the verify failures in fio output OUT that are
# not explained by a failed write. A block whose write failed with an I/O
# error was never acknowledged: old data there is no data loss, so a
# verify failure in the range of such a write ("io_u error ...: write
# offset=O, buflen=L") is explained. Every other one, in the same pass or
# not, is data loss. Prints the count; the failures go to OUT.unexplained.
h_verify_unexplained() {
	local o=$1
	rm -f "$o.unexplained"
	{
		grep -ao 'io_u error.*: write offset=[0-9]*, buflen=[0-9]*' "$o" |
			sed 's/.*write offset=\([0-9]*\), buflen=\([0-9]*\)/W \1 \2/'
		h_verify_failures "$o" | sed 's/^/V /'
	} | awk -v out="$o.unexplained" '
		$1 == "W" { ws[++nw] = $2; we[nw] = $2 + $3; next }
		{
			vo = $2; vl = $3
			if (vo >= 0)
				for (i = 1; i <= nw; i++)
					if (vo < we[i] && vo + vl > ws[i])
						next
			n++
			$1 = $2 = $3 = ""
			print substr($0, 4) >out
		}
		END { print n + 0 }'
}
verrs() { grep -acE "$H_VERIFY_RE" "$1"; }
ios() {	# commands issued by every job of a fio output
	grep -ao 'issued rwts: total=[0-9]*,[0-9]*,[0-9]*' "$1" | sed 's/.*total=//' |
		awk -F, '{ s += $1 + $2 + $3 } END { print s + 0 }'
}
# SCSI aborts, resets, timeouts of the stress host/disk in dmesg since mark $1
eh_lines() {
	local n=${host#host} d=${disk#/dev/}
	dmesg | sed -n "/hostile-mark $1:/,\$p" |
		grep -aE "(host$n([^0-9]|\$)|(^|[^0-9])$n:0:[0-9]+:[0-9]+|\\[$d\\]|dev $d,)" |
		grep -aiE 'abort|reset|timing out|timed out|offline|I/O error|FAILED Result' || true
}

# tmf_driver SECONDS: sg_reset -d, sg_reset -t and a 1 s command timeout in
# turn until SECONDS have passed or $D/stop.tmf exists; counts in $D/tmf.
tmf_driver() {
	local t0 to d=0 t=0 s=0 df=0 tf=0
	t0=$(date +%s)
	to=$(cat "/sys/block/${disk#/dev/}/device/timeout")
	while [ $(( $(date +%s) - t0 )) -lt "$1" ] && [ ! -e "$D/stop.tmf" ]; do
		sleep 2
		if run_deadline 60 sg_reset -d "$node" >/dev/null 2>&1; then d=$((d + 1)); else df=$((df + 1)); fi
		sleep 3
		if run_deadline 90 sg_reset -t "$node" >/dev/null 2>&1; then t=$((t + 1)); else tf=$((tf + 1)); fi
		sleep 2
		echo 1 >"/sys/block/${disk#/dev/}/device/timeout" 2>/dev/null && s=$((s + 1))
		sleep 6
		echo "$to" >"/sys/block/${disk#/dev/}/device/timeout" 2>/dev/null
		echo "$d $df $t $tf $s" >"$D/tmf"
	done
	echo "$to" >"/sys/block/${disk#/dev/}/device/timeout" 2>/dev/null
	echo "$d $df $t $tf $s" >"$D/tmf"
}

# ack_verify OUT: ackcheck verify of the phase B region into OUT, tried
# again while the disk is not reached (a reset in progress); its status.
ack_verify() {
	local i r=2
	for i in $(seq 60); do
		h_ackcheck verify "$D/ack" "$D/ack.state" >"$1" 2>&1
		r=$?
		[ "$r" = 2 ] || break
		sleep 1
	done
	return "$r"
}
# ack_start: the acknowledged-write loop on the stress disk's last 32 MiB.
ack_start() {
	local mm dm
	rm -f "$D"/ack.*
	h_dm_remove f12ack 2>/dev/null
	mm=$(cat "/sys/block/${disk#/dev/}/dev") &&
		dm=$(h_dm f12ack "0 65536 linear $mm 131072") &&
		h_blknode "${dm#/dev/}" "$D/ack" || return 1
	(
		k=0
		while [ ! -e "$D/ack.stop" ]; do
			k=$((k + 1))
			h_ackcheck write "$D/ack" "$D/ack.state" -b 8192 -n 1024 -t 8 \
				-S "$D/ack.stop" >"$D/ack.w.$k" 2>&1
			# Until a read-back reaches the disk, no new pass: its
			# writes could cover a lost one. (Stopped meanwhile: the
			# final read-back reads the same state.)
			while ack_verify "$D/ack.v.$k"; r=$?
				[ "$r" = 2 ] && [ ! -e "$D/ack.stop" ]; do :; done
			[ "$r" = 2 ] && r=final
			echo "$k $r" >>"$D/ack.log"
		done
	) </dev/null >/dev/null 2>&1 &
	ack_pid=$!
}
# ack_stop SQ: stop the loop, read everything back once more, judge.
ack_stop() {
	local r acked lost bad_rb
	touch "$D/ack.stop"
	if ! wait_for 180 eval "! kill -0 $ack_pid 2>/dev/null"; then
		no "sq $1 phase B: the acknowledged-write loop did not stop within 180 s"
		pkill -9 -P "$ack_pid"; kill -9 "$ack_pid" 2>/dev/null
	fi
	ack_verify "$D/ack.final"
	r=$?
	acked=$(cat "$D"/ack.w.* 2>/dev/null | sed -n 's/^ackcheck write: \([0-9]*\) acknowledged.*/\1/p' |
		awk '{ s += $1 } END { print s + 0 }')
	lost=$(cat "$D"/ack.v.* "$D/ack.final" 2>/dev/null | grep -ac '^LOST ')
	bad_rb=$(awk '$2 != 0 && $2 != "final"' "$D/ack.log" 2>/dev/null | wc -l)
	echo "phase B acknowledged writes: $(wc -l <"$D/ack.log" 2>/dev/null || echo 0) passes," \
		"$acked acknowledged, $lost sectors lost, final read-back: $(tail -n 1 "$D/ack.final")"
	[ "$lost" = 0 ] || { no "sq $1 phase B: $lost acknowledged sectors lost"; cat "$D"/ack.v.* "$D/ack.final" | grep -a '^LOST ' | head -n 4 | sed 's/^/    /'; }
	[ "$bad_rb" = 0 ] && [ "$r" = 0 ] || [ "$lost" != 0 ] ||
		no "sq $1 phase B: a read-back of the acknowledged writes concluded nothing (final status $r, $bad_rb passes)"
	[ "$acked" -gt 0 ] || no "sq $1 phase B: no write acknowledged beside fio"
	h_dm_remove f12ack 2>/dev/null
}

# run_size SQ: log in with srp_sq_size SQ, phase A, phase B, log out.
run_size() {
	local sq=$1 m out rc v u n0 n1 tmo0 tmo1 err0 err1 eh k passes=0 ok=0 vb=0 cmds=0 ioerr=0
	local tpid
	echo "--- srp_sq_size $sq"
	run_deadline 30 sh -c "echo $sq >'$A'" >/dev/null 2>&1 && [ "$(cat "$A")" = "$sq" ] ||
		{ no "srp_sq_size $sq not accepted (reads $(cat "$A"))"; return; }
	if ! qs_login; then
		no "sq $sq: stress login failed"
		return
	fi
	# ib_srp lowers can_queue to the credits the target granted, minus one
	echo "login $host $disk: can_queue $(cat "/sys/class/scsi_host/$host/can_queue")," \
		"queue_depth $(sdattr queue_depth), timeout $(sdattr timeout) s"

	# -- phase A --
	m=$(h_dmesg_mark "f12 sq $sq phase A")
	n0=$(in_cmds) tmo0=$(hexdec "$(sdattr iotmo_cnt)") err0=$(hexdec "$(sdattr ioerr_cnt)")
	out=$D/a.$sq
	fio_run 60 "$out" 32M 64M
	rc=$?
	n1=$(in_cmds) tmo1=$(hexdec "$(sdattr iotmo_cnt)") err1=$(hexdec "$(sdattr ioerr_cnt)")
	v=$(verrs "$out") k=$(ios "$out")
	eh=$(eh_lines "$m")
	cmds=$((cmds + k))
	echo "phase A: fio exit $rc, $k commands (target in_cmds +$((n1 - n0))), verify errors $v," \
		"SCSI timeouts $((tmo1 - tmo0)), SCSI errors $((err1 - err0)), abort/reset lines $(echo -n "$eh" | grep -c .)"
	if [ "$rc" = 124 ]; then no "sq $sq phase A: fio hung (no command completed for 60 s)"
	elif [ "$rc" != 0 ]; then { no "sq $sq phase A: fio exit status $rc"; grep -aE 'err=|error' "$out" | head -n 4 | sed 's/^/    /'; }
	fi
	[ "$v" = 0 ] || { no "sq $sq phase A: $v verify errors"; grep -aE 'verify|bad' "$out" | head -n 4 | sed 's/^/    /'; }
	[ "$tmo1" = "$tmo0" ] || no "sq $sq phase A: $((tmo1 - tmo0)) SCSI command timeouts"
	[ -z "$eh" ] || { no "sq $sq phase A: SCSI error handling in dmesg"; echo "$eh" | head -n 5 | sed 's/^/    /'; }
	if [ "$rc" = 124 ]; then
		qs_logout || bad=1
		total_cmds=$((total_cmds + cmds))
		return
	fi

	# -- phase B: fio passes while TMFs run for 45 s --
	m=$(h_dmesg_mark "f12 sq $sq phase B")
	n0=$(in_cmds)
	rm -f "$D/stop.tmf" "$D/tmf"
	ack_start || no "sq $sq phase B: cannot start the acknowledged-write loop"
	tmf_driver 45 </dev/null >/dev/null 2>&1 &
	tpid=$!
	while kill -0 "$tpid" 2>/dev/null; do
		passes=$((passes + 1))
		out=$D/b.$sq.$passes
		fio_run 90 "$out" 16M 32M
		rc=$?
		v=$(verrs "$out") k=$(ios "$out")
		cmds=$((cmds + k))
		if [ "$rc" = 124 ]; then
			no "sq $sq phase B: fio pass $passes hung (no command completed for 90 s)"
			break
		fi
		# A block whose write failed (an aborted command) was never
		# acknowledged: a verify failure there is no data loss. Only
		# those are forgiven, not the pass's other verify failures.
		if [ "$v" != 0 ]; then
			u=$(h_verify_unexplained "$out")
			[ "$u" = "$v" ] ||
				echo "phase B pass $passes: $((v - u)) of $v verify errors at blocks whose write failed (not counted)"
			if [ "$u" != 0 ]; then
				vb=$((vb + u))
				no "sq $sq phase B: pass $passes, $u verify errors"
				head -n 4 "$out.unexplained" | sed 's/^/    /'
			fi
		fi
		# a pass that ends with status 0 has read back and verified its data
		[ "$rc" = 0 ] && ok=$((ok + 1))
		grep -aq 'io_u error' "$out" && ioerr=$((ioerr + 1))
	done
	touch "$D/stop.tmf"
	wait_for 120 eval "! kill -0 $tpid 2>/dev/null" || no "sq $sq phase B: a TMF (sg_reset) hung for over 120 s"
	[ -z "${ack_pid:-}" ] || ack_stop "$sq"
	ack_pid=
	read -r d df t tf s 2>/dev/null <"$D/tmf" || d=0 df=0 t=0 tf=0 s=0
	n1=$(in_cmds)
	eh=$(eh_lines "$m")
	echo "phase B: $passes fio passes ($ok completed and verified, $ioerr with I/O errors), $vb verify errors;" \
		"sg_reset -d $d ok/$df failed, -t $t ok/$tf failed, short-timeout windows $s;" \
		"target in_cmds +$((n1 - n0)); abort/reset lines in dmesg $(echo -n "$eh" | grep -c .)"
	[ "$ok" -ge 1 ] || no "sq $sq phase B: no fio pass completed and verified under TMFs"
	[ $((d + t)) -ge 1 ] || no "sq $sq phase B: no TMF was delivered (sg_reset -d/-t all failed)"

	# -- afterwards: the disk still works --
	out=$D/c.$sq
	# (timeout(1) would wait for a dd stuck in the kernel: run_deadline gives up)
	if wait_for 60 eval "run_deadline 20 dd if=$node of=/dev/null bs=4k count=1 iflag=direct status=none >/dev/null 2>&1" &&
		fio_run 60 "$out" 8M 16M &&
		[ "$(verrs "$out")" = 0 ]; then
		echo "after the TMFs: clean verify pass ($(ios "$out") commands), device state $(sdattr state)"
		cmds=$((cmds + $(ios "$out")))
	else
		no "sq $sq: the disk does not work after the TMFs (device state $(sdattr state))"
		grep -aE 'err=|error|verify' "$out" 2>/dev/null | head -n 4 | sed 's/^/    /'
	fi
	total_cmds=$((total_cmds + cmds))
	qs_logout || bad=1
}

# ---- the smallest srp_sq_size the target accepts ----
min=
for size in ${HOSTILE_SQ_SIZES:-min 4096}; do
	if [ "$size" != min ]; then
		run_size "$size"
		continue
	fi
	min=
	for v in $(seq 1 64); do
		if run_deadline 10 sh -c "echo $v >'$A'" >/dev/null 2>&1; then
			min=$v
			break
		fi
	done
	if [ -z "$min" ]; then
		no "srp_sq_size accepts no value from 1 to 64"
	else
		echo "srp_sq_size: smallest accepted value $min (was $orig)"
		run_size "$min"
	fi
done

# ---- cleanup ----
qs_logout || bad=1
run_deadline 30 sh -c "echo $orig >'$A'" >/dev/null 2>&1 && [ "$(cat "$A")" = "$orig" ] ||
	{ no "cannot restore srp_sq_size $orig"; }
for a in "$H_TPG"/acls/0x$QS_EXT*; do
	[ -d "$a" ] || continue
	rm -f "$a/lun_0/map"; rmdir "$a/lun_0" "$a" || { no "cannot remove ACL $a"; }
done
rm -f "$LUN/stress_rd"; rmdir "$LUN" || no "cannot remove lun_4"
rmdir "$LIO/core/rd_mcp_0/stress_rd" || no "cannot remove stress_rd (still in use?)"
echo "commands completed by the stress initiator's fio: $total_cmds"
h_sanity || no "hostile sanity failed afterwards"
exit $bad
