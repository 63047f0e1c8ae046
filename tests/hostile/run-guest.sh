#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Guest side of `make hostile` (run by scripts/vm.sh inside the test guest).
# Sets up soft-RoCE and the SRP target (ours or the distro's ib_srpt), two
# LUNs: lun_0 for a well-behaved Linux ib_srp initiator that writes and
# reads back every acknowledged write the whole time (ackcheck), lun_1 for the hostile initiator (its ACL maps
# it as LUN 0). Runs every hostile case (dmesg checked after each), the fault
# scripts in tests/hostile/faults/, then checks sessions, unload and slabs.
#
# Environment (from vm.env): REPO MODULE KO OUT; HOSTILE = path of the
# built tool; HOSTILE_CASES = comma list (default all; none: faults only);
# HOSTILE_FAULTS = 0
# to skip the fault scripts, 1 for all, or a comma list of their numbers
# (e.g. 05,08); HOSTILE_TIMEOUT = per-case seconds; HOSTILE_TRACE=1 records
# the ib_srpt trace events and saves them, with the blocked tasks, to
# /out/trace.<case> after a case that fails (for debugging; best with
# VM_TCG_THREAD=single: enabling events patches kernel text).
set -uo pipefail

HDIR=$REPO/tests/hostile
HOSTILE=${HOSTILE:-/var/cache/ib_srpt/hostile/hostile}
CASE_TIMEOUT=${HOSTILE_TIMEOUT:-120}
. "$HDIR/guest-lib.sh"

pass=0 fail=0 warnings=0
result() {	# result PASS|FAIL name [why]
	if [ "$1" = PASS ]; then
		pass=$((pass + 1)); echo "PASS $2"
	else
		fail=$((fail + 1)); echo "FAIL $2: $3"
	fi
}

echo "## hostile: kernel $(uname -r), module $MODULE"
t_start=$(date +%s)
if ! h_setup; then
	echo "## hostile: setup failed"
	dmesg | tail -n 40
	echo "0 passed, 1 failed"
	exit 1
fi
echo "## hostile: setup done in $(( $(date +%s) - t_start ))s (target GUID $H_GUID, writes on $H_DISK)"

h_io_start

TR=/sys/kernel/tracing
if [ "${HOSTILE_TRACE:-0}" = 1 ]; then
	mountpoint -q $TR || mount -t tracefs tracefs $TR
	echo 0 >$TR/options/record-cmd; echo 0 >$TR/options/record-tgid
	echo 65536 >$TR/buffer_size_kb
	echo 1 >$TR/events/ib_srpt/enable || echo "## hostile: cannot enable the ib_srpt trace events"
fi

# ---- the hostile initiator's cases ----
all_cases=$("$HOSTILE" -l | grep -v "(-c only)" | awk '{print $1}')
cases=$all_cases
if [ "${HOSTILE_CASES:-}" = none ]; then
	cases=	# the faults only, asked for by name
elif [ -n "${HOSTILE_CASES:-}" ] && [ "$HOSTILE_CASES" != all ]; then
	# "all" in a list (all,fuzz_live) stands for the tool's list
	cases=$(for c in $(echo "$HOSTILE_CASES" | tr ',' ' '); do
		if [ "$c" = all ]; then echo "$all_cases"; else echo "$c"; fi
	done)
fi
# A tool that lists nothing (or a selection that names nothing) must not
# pass on the faults alone.
ncases=$(echo "$cases" | grep -c .)
if [ "${HOSTILE_CASES:-}" = none ]; then
	:
elif [ "$ncases" = 0 ]; then
	result FAIL case_list "the hostile tool listed no cases"
elif [ -z "${HOSTILE_CASES:-}" ] || [[ ",$HOSTILE_CASES," == *,all,* ]]; then
	ncases=$(echo "$all_cases" | grep -c .)
	# entries of the cases[] table, less those run only on request
	nsrc=$(awk '/^static const struct tcase cases\[\]/ {t = 1} t && /^\t\{ "/ {n++}
		t && /"\(-c only\)/ {o++} t && /^};/ {exit} END {print n - o}' "$HDIR/hostile.c")
	nonly=0
	if [ "$ncases" != $((nsrc - nonly)) ]; then
		result FAIL case_list "the tool lists $ncases cases, hostile.c defines $((nsrc - nonly))"
	fi
fi
# A name the tool does not know fails here (the tool would refuse the
# whole run).
known=" $("$HOSTILE" -l | awk '{print $1}' | tr '\n' ' ') "
for c in $cases; do
	[[ "$known" == *" $c "* ]] && continue
	result FAIL "$c" "no such case in the hostile tool"
	cases=$(echo "$cases" | grep -vxF -- "$c")
done
# The plan and what runs now: if the guest dies, the host fails the
# current item and boots a fresh guest for the rest of the plan.
faults_sel=
if [ "${HOSTILE_FAULTS:-1}" != 0 ]; then
	for f in "$HDIR"/faults/*.sh; do
		num=$(basename "$f" | cut -d- -f1)
		[ "${HOSTILE_FAULTS:-1}" = 1 ] || [[ ",$HOSTILE_FAULTS," == *",$num,"* ]] || continue
		faults_sel+="$num "
	done
fi
{
	for c in $cases; do echo "case $c"; done
	for num in $faults_sel; do echo "fault $num"; done
} >/out/plan
dead=
remaining=
# One tool process runs the cases in a row: a process start costs seconds
# under TCG. It marks each case in dmesg (-M) and stops after the first
# that fails or after which the kernel complains (-x); each case's part of
# dmesg is judged here on its own. After a failure or a kernel warning the
# target is probed as before, and a fresh tool process runs the cases left
# (or, the target broken, the next boot does). fuzz_live (its own timeout)
# and, with HOSTILE_TRACE=1, every case run alone.
todo=$(echo $cases)
# While the cases run, the write loop rests 45 s between passes
# (h_io_pace), and the Linux initiator's session must keep its channels
# throughout: a case that disturbs it shows as its QPs gone afterwards,
# whether or not a write was in flight.
fio_qps=
if [ -n "$todo" ]; then
	fio_qps=$(h_srpt_qpns | tr '\n' ' ')
	h_io_pace 45
fi
while [ -n "$todo" ] && [ -z "$dead" ]; do
	set -- $todo
	batch=$1
	shift
	if [ "$batch" != fuzz_live ] && [ "${HOSTILE_TRACE:-0}" != 1 ]; then
		while [ $# -gt 0 ] && [ "$1" != fuzz_live ]; do batch+=" $1"; shift; done
	fi
	todo=$*
	set -- $batch
	# fuzz_live sends HOSTILE_FUZZ_IUS IUs: 50 to 150 a second
	ct=$CASE_TIMEOUT
	[ "$1" != fuzz_live ] || ct=$(( CASE_TIMEOUT + ${HOSTILE_FUZZ_IUS:-20000} / 20 ))
	first=0
	read -r first 2>/dev/null </tmp/hostile.mark
	first=$((first + 1))
	echo "case $1" >/out/current
	# streamed: a guest that dies mid-run keeps the verdicts so far
	timeout -k 5 $(( $# * (ct + 60) )) "$HOSTILE" -a "$H_ADDR" -p "$RDMA_CM_PORT" -g "$H_GUID" \
		-I "$H_IPORT" -c "${batch// /,}" -t "$ct" -M -x "$SPLAT_RE" -C /out/current 2>&1 |
		tee /tmp/hostile.batch | grep --line-buffered -v -E '^[0-9]+ passed, [0-9]+ failed$'
	rc=${PIPESTATUS[0]}
	last=0
	read -r last 2>/dev/null </tmp/hostile.mark
	# (a tool that ran nothing, not even its first case's mark: that case
	# fails without a verdict rather than be tried again and again)
	if [ "$last" -lt "$first" ]; then
		last=$first
		echo "$last" >/tmp/hostile.mark
		cat /proc/sys/kernel/tainted >"/tmp/hostile.taint.$last"
	fi
	h_splats_load "$first"
	mapfile -t blines </tmp/hostile.batch
	broken= splat_in= notrun=
	id=$first
	for c in $batch; do
		if [ "$id" -gt "$last" ]; then
			notrun+="$c "	# not reached: the next tool process runs it
			continue
		fi
		next=
		[ "$id" -ge "$last" ] || next=$((id + 1))
		h_splats_of "$id" "$next"
		splat=$H_SPLAT
		if [ -n "$splat" ]; then
			n=$(echo "$splat" | wc -l)
			warnings=$((warnings + n))
			echo "$splat" | head -n 10 | sed 's/^/    dmesg: /'
		fi
		line=
		for l in "${blines[@]}"; do
			case $l in "PASS $c "*|"PASS $c:"*|"FAIL $c "*|"FAIL $c:"*) line=$l ;; esac
		done
		if [ "${HOSTILE_TRACE:-0}" = 1 ]; then
			if [[ "$line" != PASS* ]]; then
				echo w >/proc/sysrq-trigger
				{ cat $TR/trace; echo "## blocked tasks"; dmesg | tail -n 300; } >"/out/trace.$c"
			fi
			echo >$TR/trace
		fi
		if [ -z "$line" ] && { [ "$rc" = 124 ] || [ "$rc" = 137 ]; }; then
			result FAIL "$c" "the tool hung (killed by the runner)"
		elif [ -n "$splat" ] && [[ "$line" == FAIL* ]]; then
			fail=$((fail + 1))	# verdict printed by the tool, splat lines above
		elif [ -n "$splat" ]; then
			result FAIL "$c" "kernel warning: $(echo "$splat" | head -n 1)"
		elif [[ "$line" == PASS* ]]; then
			pass=$((pass + 1))
		else
			fail=$((fail + 1))
			[ -n "$line" ] || echo "FAIL $c: tool exit status $rc, no verdict"
		fi
		[[ "$line" == PASS* ]] || broken=$c
		[ -z "$splat" ] || [ -n "$splat_in" ] || splat_in=$c
		id=$((id + 1))
	done
	todo="$notrun$todo"
	# After an oops or a failure, is the target still serving? If not, the
	# host boots a fresh guest for the remaining cases (HOSTILE_RESTART=1).
	if [ -n "$broken$splat_in" ]; then
		c=${splat_in:-$broken}
		if ! timeout -k 5 120 "$HOSTILE" -a "$H_ADDR" -p "$RDMA_CM_PORT" -g "$H_GUID" -I "$H_IPORT" \
			-c sanity -t 60 >/tmp/hostile.probe 2>&1 || [ -n "$splat_in" ]; then
			echo "## hostile: target broken after case $c$( [ -n "$splat_in" ] && echo ' (kernel oops/warning)')"
			[ "${HOSTILE_RESTART:-1}" = 1 ] && dead=$c
		fi
	fi
done
[ -z "$dead" ] || remaining=$(echo $todo | tr ' ' ',')
h_io_pace
if [ -n "$cases" ] && [ -z "$dead" ]; then
	gone=
	for q in $fio_qps; do
		h_qp_exists "$q" || gone+="$q "
	done
	if [ -z "$fio_qps" ]; then
		result FAIL linux_session_kept "the Linux initiator had no channel before the cases"
	elif [ -n "$gone" ]; then
		result FAIL linux_session_kept "its channels (QPs ${fio_qps% }) before the cases, gone after them: ${gone% } (now: $(h_srpt_qpns | tr '\n' ' '))"
	else
		result PASS linux_session_kept
		echo "  the Linux initiator kept its channels (QPs ${fio_qps% }) through the cases"
	fi
fi
if [ -n "$dead" ]; then
	echo "$remaining" >/out/remaining
	echo "## hostile: not run in this boot (target broken): $remaining"
	h_io_stop 20
	echo "## hostile: write passes $H_IO_PASSES, acknowledged writes $H_ACKED, sectors lost $H_VERIFY_ERRORS, other I/O errors $H_IO_ERRORS (hung: $H_IO_HUNG)"
	echo "## hostile: cases run $((pass + fail)), passed $pass, failed $fail"
	echo "## hostile: kernel warnings $(h_splats_since 0 | wc -l)"
	echo "## hostile: verify errors $H_VERIFY_ERRORS"
	echo "$pass passed, $fail failed"
	exit 1
fi

# ---- fault scenarios (guest scripts, each prints PASS/FAIL lines) ----
if [ "${HOSTILE_FAULTS:-1}" != 0 ]; then
	for f in "$HDIR"/faults/*.sh; do
		[ -f "$f" ] || continue
		num=$(basename "$f" | cut -d- -f1)
		[ "${HOSTILE_FAULTS:-1}" = 1 ] || [[ ",$HOSTILE_FAULTS," == *",$num,"* ]] || continue
		name=fault_$(basename "$f" .sh)
		echo "fault $num $name" >/out/current
		mark=$(h_dmesg_mark "$name")
		# streamed, so that a fault that hangs shows how far it got;
		# a script may ask for more than 600 s with "# timeout: N"
		ft=$(sed -n 's/^# timeout: *\([0-9][0-9]*\).*/\1/p' "$f" | head -n 1)
		ft=${ft:-600}
		# the debug kernel runs about three times slower
		[[ "$(uname -r)" != *-srpt-debug ]] || ft=$((ft * 2))
		ft0=$(date +%s)
		idle0=$(h_io_idle)
		timeout -k 5 "$ft" bash "$f" 2>&1 | sed -u 's/^/  /'
		rc=${PIPESTATUS[0]}
		echo "## hostile: $name took $(( $(date +%s) - ft0 ))s"
		# A script killed before its exit handler ran leaves its
		# disruption window open: close it here, so that it ends with
		# this fault and forgives nothing of the next ones.
		if [ -e "$H_IO_DIR/disrupt.now" ]; then
			echo "  ($name left its disruption window open: closed now)"
			h_disrupt_end
		fi
		splat=$(h_splats_since "$mark")
		if [ -n "$splat" ]; then
			warnings=$((warnings + $(echo "$splat" | wc -l)))
			echo "$splat" | head -n 10 | sed 's/^/    dmesg: /'
			result FAIL "$name" "kernel warning: $(echo "$splat" | head -n 1)"
		elif [ "$(h_io_idle)" != "$idle0" ]; then
			result FAIL "$name" "a disruption began with no write in flight (h_disrupt_begin)"
		elif [ "$rc" = 0 ]; then
			result PASS "$name"
		else
			result FAIL "$name" "exit status $rc$( [ "$rc" = 124 ] && echo ' (timed out)')"
		fi
	done
fi

# ---- the well-behaved initiator's verdict ----
echo "final checks" >/out/current
h_io_stop
echo "## hostile: write passes $H_IO_PASSES, acknowledged writes $H_ACKED, sectors lost $H_VERIFY_ERRORS, read-backs that missed the disk $H_UNVERIFIED, other I/O errors $H_IO_ERRORS"
if [ "$H_VERIFY_ERRORS" = 0 ] && [ "$H_IO_ERRORS" = 0 ] && [ "$H_ACKED" -gt 0 ] &&
   [ "$H_IO_HUNG" = 0 ] && [ "$H_UNVERIFIED" = 0 ]; then
	result PASS acked_writes_kept
else
	result FAIL acked_writes_kept "$H_IO_PASSES passes, $H_ACKED writes acknowledged, $H_VERIFY_ERRORS sectors lost, $H_UNVERIFIED read-backs that concluded nothing, $H_IO_ERRORS I/O errors, hung: $H_IO_HUNG"
fi

why=$(h_io_selftest) && result PASS ackcheck_detects_loss || result FAIL ackcheck_detects_loss "$why"
h_dm_remove "$H_IO_DM" 2>/dev/null

# ---- teardown checks ----
mark=$(h_dmesg_mark "teardown")
why=$(h_sessions_closed) && result PASS all_sessions_closed || result FAIL all_sessions_closed "$why"
why=$(h_teardown) && result PASS rmmod_clean || result FAIL rmmod_clean "$why"
splat=$(h_splats_since "$mark")
if [ -n "$splat" ]; then
	warnings=$((warnings + $(echo "$splat" | wc -l)))
	echo "$splat" | head -n 10 | sed 's/^/    dmesg: /'
	result FAIL teardown_dmesg "kernel warning: $(echo "$splat" | head -n 1)"
fi
if ! kmemleak_report /out/kmemleak.txt; then
	sed -n '1,40p' /out/kmemleak.txt | sed 's/^/    kmemleak: /'
	result FAIL kmemleak "$(grep -c '^unreferenced object' /out/kmemleak.txt) unreferenced objects after rmmod"
fi
all=$(h_splats_since 0)
[ -n "$all" ] && warnings=$(echo "$all" | wc -l)

echo "## hostile: cases run $((pass + fail)), passed $pass, failed $fail"
echo "## hostile: kernel warnings $warnings"
echo "## hostile: verify errors $H_VERIFY_ERRORS"
echo "## hostile: took $(( $(date +%s) - t_start ))s"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
