#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Guest side of `make soak` (run by scripts/vm.sh). The hostile runner's
# setup (tests/hostile/guest-lib.sh: soft-RoCE, two ramdisk LUNs, a Linux
# ib_srp initiator with the acknowledged-write loop on lun_0), then for
# SOAK_MINUTES (default 20) one disruption every SOAK_GAP seconds (default
# 10), in turn (each at least once):
#   relogin   logout + login of the Linux initiator
#   tpg       TPG disable (a login must be refused) + enable; ib_srp
#             reconnects
#   aborts    ABORT TASK storm (hostile tmf_abort_race) and a credit
#             overrun (hostile credit_overrun) on lun_1, then a sanity login
#   lunreset  sg_reset -d (LOGICAL UNIT RESET) on its disk, three times
# Then: the write loop's verdict, all sessions closed, teardown (rmmod),
# and the slab caches of the target, LIO, RDMA and SCSI layers compared:
#   before    rxe up, target_core/RDMA modules loaded, no target module
#   loaded    after setup, before the soak     end   after the soak, same
#   after     after teardown (logout, configfs removed, rmmod)
# Tolerances: every named cache (not kmalloc-*) may end at most
# SOAK_OBJ_TOL (16) objects above where it started; the kmalloc-* caches
# together at most SOAK_KMALLOC_TOL_KB (2048) KiB; SUnreclaim in
# /proc/meminfo at most SOAK_SUNRECLAIM_TOL_KB (4096) KiB; checked for
# end vs loaded and after vs before. Ends with "N passed, N failed".
set -uo pipefail

HOSTILE=${HOSTILE:-/var/cache/ib_srpt/hostile/hostile}
. "$REPO/tests/hostile/guest-lib.sh"
MINUTES=${SOAK_MINUTES:-20}
GAP=${SOAK_GAP:-10}
OBJ_TOL=${SOAK_OBJ_TOL:-16}
KM_TOL=${SOAK_KMALLOC_TOL_KB:-2048}
SU_TOL=${SOAK_SUNRECLAIM_TOL_KB:-4096}
S=/tmp/soak
mkdir -p "$S"

pass=0 fail=0
verdict() {	# verdict PASS|FAIL NAME [WHY]
	if [ "$1" = PASS ]; then
		pass=$((pass + 1)); echo "PASS $2${3:+ ($3)}"
	else
		fail=$((fail + 1)); echo "FAIL $2: $3"
	fi
}
slog() { echo "## soak [$(( $(date +%s) - t_start ))s]: $*"; }

# ---- slab snapshots ----
# The caches of the layers the target uses. The guest boots with
# slab_nomerge (scripts/soak.sh), so each is its own cache.
SLAB_RE='^(srpt|ib_srpt|se_|t10_|target|tcm|rxe|ib_|rdma|iw_|cm_|scsi|sgpool|sd_|kmalloc-|kmalloc-rcl-|kmalloc-cg-|dma-kmalloc-)'
# slab_snap NAME: per-cache active objects and object size, and
# /proc/meminfo's MemFree, Slab and SUnreclaim, in $S/slab.NAME
slab_snap() {
	local f
	sync
	echo 3 >/proc/sys/vm/drop_caches
	# empty the per-CPU slabs, so that active objects are objects in use
	for f in /sys/kernel/slab/*/shrink; do echo 1 >"$f" 2>/dev/null; done
	{
		awk 'NR > 2 { print $1, $2, $4 }' /proc/slabinfo | grep -E "$SLAB_RE"
		awk '/^(MemFree|Slab|SUnreclaim):/ { sub(":", "", $1); print "mem:" $1, $2, 1024 }' /proc/meminfo
	} | sort >"$S/slab.$1"
}
# slab_cmp FROM TO: print the changes; fail (print why) beyond tolerance
slab_cmp() {
	join -a 1 -a 2 -e 0 -o 0,1.2,1.3,2.2,2.3 "$S/slab.$1" "$S/slab.$2" |
		awk -v otol="$OBJ_TOL" -v ktol="$KM_TOL" -v stol="$SU_TOL" -v from="$1" -v to="$2" '
		{
			n = $1; a = $2; b = $4; sz = ($5 > 0) ? $5 : $3
			if (n ~ /^mem:/) {
				printf "  %-28s %10d kB -> %10d kB (%+d kB)\n", substr(n, 5), a, b, b - a
				if (n == "mem:SUnreclaim" && b - a > stol) {
					bad = bad sprintf("SUnreclaim grew by %d kB (tolerance %d kB); ", b - a, stol)
				}
				next
			}
			if (n ~ /kmalloc-/) { km += (b - a) * sz; next }
			if (a != b)
				printf "  %-28s %10d -> %10d objects (%+d, %d bytes each)\n", n, a, b, b - a, sz
			if (b - a > otol)
				bad = bad sprintf("%s: %+d objects (tolerance %d); ", n, b - a, otol)
		}
		END {
			printf "  %-28s %+d kB in use\n", "kmalloc-* together", km / 1024
			if (km / 1024 > ktol)
				bad = bad sprintf("kmalloc-* caches grew by %d kB (tolerance %d kB); ", km / 1024, ktol)
			if (bad != "") { print "WHY " bad; exit 1 }
		}' >"$S/cmp.$1.$2"
	local rc=$?
	grep -v '^WHY ' "$S/cmp.$1.$2"
	grep '^WHY ' "$S/cmp.$1.$2" | sed 's/^WHY //' >"$S/why.$1.$2"
	return $rc
}

# ---- counters ----
# commands the target received on a LUN (LIO's port statistics)
in_cmds() { cat "$H_TPG/lun/lun_$1/statistics/scsi_tgt_port/in_cmds" 2>/dev/null || echo 0; }
io_writes() {	# writes the write loop had acknowledged, over all its passes
	cat "$H_IO_DIR"/out.* 2>/dev/null | sed -n 's/^ackcheck write: \([0-9]*\) acknowledged.*/\1/p' |
		awk '{ s += $1 } END { print s + 0 }'
}

# ---- the disruptions; each prints why it failed ----
ev_relogin() {
	local bad=0
	h_disrupt_begin
	run_deadline 60 h_srp_logout >/dev/null || { echo "logout did not complete within 60 s"; bad=1; }
	if h_srp_login >"$S/login.out"; then
		wait_for 30 h_disk_ok || { echo "disk not readable after login"; bad=1; }
	else
		echo "login failed: $(cat "$S/login.out")"; bad=1
		h_srp_recover 60 >/dev/null
	fi
	h_disrupt_end
	return $bad
}

ev_tpg() {
	local bad=0
	h_disrupt_begin
	if run_deadline 30 sh -c "echo 0 >'$H_TPG/enable'" >"$S/tpg.out" 2>&1; then
		sleep 2
		h_tool sanity -n >"$S/tpg.sanity" 2>&1 && { echo "a login succeeded while the TPG was disabled"; bad=1; }
	else
		echo "TPG disable failed or hung: $(cat "$S/tpg.out")"; bad=1
	fi
	run_deadline 30 sh -c "echo 1 >'$H_TPG/enable'" >"$S/tpg.out" 2>&1 ||
		{ echo "TPG enable failed or hung: $(cat "$S/tpg.out")"; bad=1; }
	h_srp_recover 60 >"$S/tpg.recover" || { echo "the Linux initiator did not get its disk back"; bad=1; }
	h_disrupt_end
	return $bad
}

ev_aborts() {
	local bad=0 c
	for c in tmf_abort_race credit_overrun; do
		if ! h_tool "$c" -n >"$S/ab.$c" 2>&1; then
			echo "$c: $(grep -E '^FAIL' "$S/ab.$c" | head -n 1)"; bad=1
		fi
	done
	h_sanity >"$S/ab.sanity" || { echo "no login after the abort storm: $(cat "$S/ab.sanity")"; bad=1; }
	return $bad
}

ev_lunreset() {
	local bad=0 i d n=$S/lr.disk
	d=$(h_srp_disk) && h_blknode "$d" "$n" || { echo "no disk"; return 1; }
	for i in 1 2 3; do
		run_deadline 90 sg_reset -d "$n" >"$S/lr.out" 2>&1 ||
			{ echo "sg_reset -d #$i: $(head -n 2 "$S/lr.out" | tr '\n' ' ')"; bad=1; }
		sleep 3
	done
	wait_for 30 h_disk_ok || { echo "disk not readable after the LUN resets"; bad=1; }
	return $bad
}

# ---- run ----
t_start=$(date +%s)
echo "## soak: kernel $(uname -r), module $MODULE, $MINUTES minutes, one disruption every ${GAP}s"
if ! { rxe_setup && rxe_port_active; } || ! srpt_deps || ! modprobe sd_mod; then
	verdict FAIL setup "soft-RoCE or the target/RDMA modules did not come up"
	echo "$pass passed, $fail failed"
	exit 1
fi
slab_snap before
if ! h_setup; then
	verdict FAIL setup "target setup or login failed"
	dmesg | tail -n 30
	echo "$pass passed, $fail failed"
	exit 1
fi
verdict PASS setup "target GUID $H_GUID, writes on $H_DISK"
slab_snap loaded
c0_0=$(in_cmds 0) c1_0=$(in_cmds 1)

h_io_start
events="relogin tpg aborts lunreset"
declare -A n_ok n_bad
for e in $events; do n_ok[$e]=0; n_bad[$e]=0; done
end=$(( $(date +%s) + MINUTES * 60 ))
k=0
# every kind of disruption at least once, however short the soak
while [ "$(date +%s)" -lt "$end" ] || [ "$k" -lt 4 ]; do
	sleep "$GAP"
	e=$(echo $events | cut -d' ' -f$(( k % 4 + 1 )))
	k=$((k + 1))
	if "ev_$e" >"$S/ev.out" 2>&1; then
		n_ok[$e]=$(( ${n_ok[$e]} + 1 ))
		slog "$e #$k ok"
	else
		n_bad[$e]=$(( ${n_bad[$e]} + 1 ))
		slog "$e #$k FAILED: $(head -n 3 "$S/ev.out" | tr '\n' ' ')"
	fi
done
slog "soak time over after $k disruptions; stopping the write loop"
h_io_stop
c0_1=$(in_cmds 0) c1_1=$(in_cmds 1)

# ---- verdicts ----
for e in $events; do
	t=$(( ${n_ok[$e]} + ${n_bad[$e]} ))
	if [ "$t" = 0 ]; then
		verdict FAIL "$e" "never ran (soak too short for SOAK_GAP=$GAP)"
	elif [ "${n_bad[$e]}" = 0 ]; then
		verdict PASS "$e" "$t of $t"
	else
		verdict FAIL "$e" "${n_bad[$e]} of $t failed"
	fi
done
fcmds=$(io_writes)
slog "commands completed: $fcmds acknowledged writes in $H_IO_PASSES passes (each pass read back);" \
	"target received $((c0_1 - c0_0)) on lun_0 (write loop) and $((c1_1 - c1_0)) on lun_1 (hostile tool)"
slog "errors: acknowledged sectors lost $H_VERIFY_ERRORS, failed passes outside disruptions $H_IO_ERRORS," \
	"read-backs that missed the disk $H_UNVERIFIED, write loop hung: $H_IO_HUNG"
if [ "$H_VERIFY_ERRORS" = 0 ] && [ "$H_IO_ERRORS" = 0 ] && [ "$H_IO_PASSES" -gt 0 ] && [ "$H_IO_HUNG" = 0 ]; then
	verdict PASS acked_writes_kept "$H_IO_PASSES passes, $fcmds writes"
else
	verdict FAIL acked_writes_kept "$H_IO_PASSES passes, $H_VERIFY_ERRORS sectors lost, $H_IO_ERRORS failed passes, hung: $H_IO_HUNG"
fi
if [ "$((c0_1 - c0_0))" -gt 0 ]; then
	verdict PASS target_commands "$((c0_1 - c0_0 + c1_1 - c1_0)) received"
else
	verdict FAIL target_commands "the target counted no commands on lun_0 (in_cmds $c0_0 -> $c0_1)"
fi

# the same state as "loaded": logged in, configured, no I/O
h_srp_recover 60 >/dev/null 2>&1
slab_snap end
echo "## soak: slab caches and memory, loaded -> end of soak (target configured, initiator logged in):"
if slab_cmp loaded end; then
	verdict PASS slab_during_soak
else
	verdict FAIL slab_during_soak "$(cat "$S/why.loaded.end")"
fi

why=$(h_sessions_closed) && verdict PASS all_sessions_closed || verdict FAIL all_sessions_closed "$why"
why=$(h_teardown) && verdict PASS rmmod_clean || verdict FAIL rmmod_clean "$why"
slab_snap after
echo "## soak: slab caches and memory, before the target -> after teardown:"
if slab_cmp before after; then
	verdict PASS slab_after_teardown
else
	verdict FAIL slab_after_teardown "$(cat "$S/why.before.after")"
fi
splat=$(h_splats_since 0)
if [ -z "$splat" ]; then
	verdict PASS dmesg_clean
else
	echo "$splat" | head -n 10 | sed 's/^/    dmesg: /'
	verdict FAIL dmesg_clean "$(echo "$splat" | wc -l) kernel warning lines"
fi
# the four snapshots (name, active objects, object size) for the record
cp "$S"/slab.* "${OUT:-/out}/" 2>/dev/null
echo "## soak: took $(( $(date +%s) - t_start ))s"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
