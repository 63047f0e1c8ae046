#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Guest side of `make e2e` (run by scripts/vm.sh from scripts/e2e.sh): runs
# every tests/e2e/NN-*.sh scenario in this one boot, each under its own
# timeout, resets the target between scenarios, and writes per scenario
#   /out/<scenario>/log         its output
#   /out/<scenario>/dmesg.txt   the kernel log of that scenario
#   /out/<scenario>/dmesg-full.txt  the whole guest dmesg (failed ones only)
# and one line per scenario to /out/results.txt:
#   PASS|FAIL <scenario> <seconds> [reason]
# Environment: E2E_ONLY (comma list of scenario names or numbers to run),
# E2E_REPEAT (runs of each, in a row; the K-th is <scenario>@K),
# E2E_TIMEOUT (default per-scenario timeout, seconds), BREAK (see lib.sh),
# E2E_KMEMLEAK (on a kernel with kmemleak: "each" scans after every
# scenario, "end" once after the last, reported as the result "kmemleak").
. "$REPO/tests/lib.sh"

results=/out/results.txt
: >"$results"
default_timeout=${E2E_TIMEOUT:-240}

# selected SCENARIO RUN: RUN is SCENARIO, or SCENARIO@K for its K-th run
# (E2E_REPEAT); E2E_ONLY names a scenario (all its runs) or one run.
selected() {
	[ -z "${E2E_ONLY:-}" ] || [[ ",$E2E_ONLY," == *",$2,"* ]] ||
		scenario_in "$E2E_ONLY" "$1"
}

# Put the guest back into a clean state: initiator logged out, target
# configuration and backstores gone, modules unloaded.
reset_state() {
	local ok=0
	srp_logout >/dev/null 2>&1 || { echo "reset: ib_srp hosts remain"; ok=1; }
	modprobe -r ib_srp 2>/dev/null
	srpt_teardown || ok=1
	if ! srpt_leftovers 2>/tmp/leftovers; then
		echo "reset: configfs leftovers: $(tr '\n' ' ' </tmp/leftovers)"
		ok=1
	fi
	if grep -qw '^ib_srpt' /proc/modules; then
		srpt_unload >/dev/null 2>&1 || { echo "reset: cannot unload ib_srpt (refcnt $(srpt_refcnt))"; ok=1; }
	fi
	modprobe -r brd null_blk 2>/dev/null
	rm -f /tmp/lun-*.img
	return $ok
}

# state_clean: no ib_srp host, no ib_srpt, nothing in the target configfs.
state_clean() {
	[ -z "$(srp_hosts)" ] || { echo "ib_srp hosts remain: $(srp_hosts | tr '\n' ' ')"; return 1; }
	! grep -qw '^ib_srpt' /proc/modules || { echo "ib_srpt still loaded"; return 1; }
	srpt_leftovers 2>/dev/null || { echo "configfs leftovers"; return 1; }
}

modules_trim
if ! rxe_setup >/out/rxe-setup.log 2>&1; then
	echo "## e2e: soft-RDMA ($TRANSPORT) setup failed; see rxe-setup.log"
	cat /out/rxe-setup.log
fi

# Two kmemleak scans take about 15 s on the debug kernel: make check scans
# once after the last scenario; the report's backtraces name the leak.
kmemleak=${E2E_KMEMLEAK:-each}
kmemleak_why() {
	echo "kmemleak: $(grep -c '^unreferenced object' "$1") unreferenced objects, first from $( { grep -m1 -E '\[ib_srpt\]' "$1" || grep -m1 -E '\[[a-z_]+\]' "$1" || grep -m1 '^ *comm ' "$1"; } | sed 's/^ *//')"
}

aborted=
for path in "$REPO"/tests/e2e/[0-9][0-9]-*.sh; do
for ((rep = 1; rep <= ${E2E_REPEAT:-1}; rep++)); do
	[ -f "$path" ] || continue
	name=$(basename "$path" .sh)
	[ "$rep" = 1 ] || name+="@$rep"
	selected "$(basename "$path" .sh)" "$name" || continue
	dir=/out/$name
	mkdir -p "$dir"
	if [ -n "$aborted" ]; then
		echo "FAIL $name 0 not run: $aborted" >>"$results"
		echo "## FAIL $name (not run: $aborted)"
		continue
	fi
	# A previous scenario may have left state its cleanup could not remove:
	# retry once, and do not run on top of it (its failure would be ours).
	if ! state_clean; then
		run_deadline 150 reset_state >"$dir/pre-reset.log" 2>&1
		if ! state_clean; then
			echo "FAIL $name 0 not run: state left dirty by an earlier scenario ($(state_clean 2>&1 | head -n 1))" >>"$results"
			echo "## FAIL $name (not run: state left dirty by an earlier scenario)"
			continue
		fi
	fi
	t=$(sed -n 's/^# timeout: *\([0-9]\+\).*/\1/p' "$path" | head -n 1)
	t=$(( ${t:-$default_timeout} * ${E2E_TIMEOUT_MUL:-1} ))
	echo "## RUN  $name (timeout ${t}s)"
	# What the host reports as failed if the guest dies now (e2e.sh).
	echo "$name" >/out/current
	echo "e2e: begin $name" >/dev/kmsg
	taint0=$(cat /proc/sys/kernel/tainted)
	start=$(date +%s)
	# In the background so a task stuck in the kernel cannot stall us.
	timeout -k 5 "$t" /bin/bash "$path" >"$dir/log" 2>&1 &
	pid=$!
	reason=
	while kill -0 "$pid" 2>/dev/null; do
		if [ $(( $(date +%s) - start )) -gt $(( t + 15 )) ]; then
			reason="hung: still running $((t + 15))s after start (task stuck in the kernel?)"
			aborted="$name hung"
			break
		fi
		sleep 1
	done
	if [ -z "$reason" ]; then
		wait "$pid"
		rc=$?
		case $rc in
		0) ;;
		124|137) reason="timed out after ${t}s" ;;
		*) reason="exit status $rc: $(grep -a 'FAIL' "$dir/log" | tail -n 1)" ;;
		esac
	fi
	if [ -z "$aborted" ]; then
		run_deadline 150 reset_state >"$dir/reset.log" 2>&1
		case $? in
		0) ;;
		124)
			[ -n "$reason" ] && reason+="; "
			reason+="cleanup hung (logout/teardown/unload stuck in the kernel)"
			aborted="cleanup after $name hung"
			;;
		*) [ -z "$reason" ] && reason="cleanup: $(head -n 1 "$dir/reset.log")" ;;
		esac
	fi
	echo "e2e: end $name" >/dev/kmsg
	secs=$(( $(date +%s) - start ))
	dmesg | sed -n "/e2e: begin $name\$/,/e2e: end $name\$/p" >"$dir/dmesg.txt"
	if splats=$(dmesg_splats "$dir/dmesg.txt"); then
		echo "$splats" >"$dir/splat.txt"
		[ -n "$reason" ] && reason+="; "
		reason+="kernel splat: $(head -n 1 "$dir/splat.txt" | sed 's/^\[[^]]*\] //')"
	fi
	if tainted=$(taint_new "$taint0"); then
		[ -n "$reason" ] && reason+="; "
		reason+=$tainted
	fi
	if [ "$kmemleak" = each ]; then
		kl0=$(date +%s)
		if ! kmemleak_report "$dir/kmemleak.txt"; then
			[ -n "$reason" ] && reason+="; "
			reason+=$(kmemleak_why "$dir/kmemleak.txt")
		fi
		[ ! -w /sys/kernel/debug/kmemleak ] ||
			echo "## kmemleak scans after $name: $(( $(date +%s) - kl0 ))s"
	fi
	if [ -z "$reason" ]; then
		echo "PASS $name $secs" >>"$results"
		echo "## PASS $name (${secs}s)"
	else
		dmesg >"$dir/dmesg-full.txt"
		echo "FAIL $name $secs $reason" >>"$results"
		echo "## FAIL $name (${secs}s): $reason"
		tail -n 15 "$dir/log" | sed 's/^/##   | /'
	fi
done
done
if [ "$kmemleak" = end ] && [ -z "$aborted" ]; then
	kl0=$(date +%s)
	if ! kmemleak_report /out/kmemleak.txt; then
		echo "FAIL kmemleak 0 $(kmemleak_why /out/kmemleak.txt)" >>"$results"
		echo "## FAIL kmemleak: $(kmemleak_why /out/kmemleak.txt)"
		sed -n '1,40p' /out/kmemleak.txt | sed 's/^/##   | /'
	fi
	[ ! -w /sys/kernel/debug/kmemleak ] ||
		echo "## kmemleak scans after the last scenario: $(( $(date +%s) - kl0 ))s"
fi
sync
exit 0
