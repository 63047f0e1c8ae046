#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# What CI runs (make check): every test tier against our module.
#   1. lint: W=1 + sparse for 6.1 and 6.12, kernel-doc, checkpatch --strict
#   2. KUnit suites under User Mode Linux (6.12 tree)
#   3. end-to-end scenarios in a QEMU guest: on Debian's 6.12 the drop-in
#      ones (install and modprobe, the Debian package, legacy configfs,
#      network namespaces, tracing, e2e-6.12; targetcli, save and
#      restore, e2e-6.12-lio; ALUA failover, e2e-6.12-alua), on
#      Debian's 6.1 the data-path ones over soft-RoCE; login, fio verify
#      and logout over soft-iWARP on Debian's 6.12 (e2e-siw)
#   4. the fault scripts of the hostile tier under fio, Debian's 6.12
#      (all but 08, see below)
#   5. the debug kernel (scripts/debug-kernel.sh: the newest source in
#      Debian sid, 7.2 today, with KASAN, lockdep, KFENCE, kmemleak,
#      UBSAN, DEBUG_ATOMIC_SLEEP and the lockup detectors): the
#      data-path scenarios (e2e-debug), every hostile case, 20,000 IUs of
#      the live fuzzer (fuzz_live, seed CHECK_FUZZ_SEED) and faults 02, 03,
#      04, 06 (hostile-debug); any report fails them
# The data-path scenarios and the hostile cases run once on the debug
# kernel, which can see what they break; `make e2e` and `make hostile` run
# everything on any kernel.
# The e2e tiers on Debian's kernels run first, two at a time in guests
# with one vCPU each (CHECK_LANE=0: one at a time; see LANE_TIERS below).
# Each tier prints its own "N passed, N failed"; the totals close the run,
# with the time from the start (setup included).
# CHECK_TIERS="lint e2e-6.12 e2e-6.12-lio e2e-6.1 e2e-siw e2e-6.12-alua
# hostile e2e-debug hostile-debug kunit" selects tiers.
# The debug kernel and the UML kernel of the KUnit tier are built in the
# background, at the lowest CPU priority, while the guests of the first
# tiers run: the guests get the CPU whenever they want it, the builds take
# the rest (CHECK_PREP_BG=0 builds them first instead). The debug kernel
# starts as soon as the build tools are installed, while apt installs the
# rest of the packages (a new machine); the UML kernel waits for them.
# The KUnit suites and lint, which need no guest either, follow them
# there; their results are shown at the end.
set -uo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${CACHE:-/var/cache/ib_srpt}
TIERS=${CHECK_TIERS:-lint e2e-6.12 e2e-6.12-lio e2e-6.1 e2e-siw e2e-6.12-alua hostile e2e-debug hostile-debug kunit}
# The soft-iWARP tier: the scenarios every transport must pass, kept short.
SIW_SCENARIOS=${CHECK_SIW_SCENARIOS:-login,fio-verify,logout-rmmod,mr-pool}
# make check may use the bench while it is frozen for other runs.
export IB_SRPT_FINAL=1
mkdir -p "$CACHE/check"
t_start=$(date +%s)

# ONLY= (scripts/lib.sh): the named scenarios, cases, faults and KUnit
# suites, each in the tiers that run it by default; lint and the tiers that
# run none of them are left out.
REPO=$SRC
. "$SRC/scripts/lib.sh"
if [ -n "${ONLY:-}" ]; then
	only_check || { echo "0 passed, 1 failed"; exit 1; }
	export ONLY
fi

deps_failed() { echo "check: dependency setup failed"; echo "0 passed, 1 failed"; exit 1; }
# The build tools first: the debug kernel (from sid) needs nothing else
# and starts building while apt installs the rest (below).
"$SRC/scripts/deps.sh" tools || deps_failed
# The debug kernel (about 15 minutes cold) and the UML kernel (about 8):
# host builds no guest needs before the kunit and debug tiers. Under a lock
# of their own, not the heavy lock the guests take, and at nice 19.
prep() {
	export HEAVY_LOCK=$CACHE/check/prep.lock
	local t0
	if [[ " $TIERS " == *-debug* ]]; then
		t0=$(date +%s)
		if "$SRC/scripts/debug-kernel.sh" >"$CACHE/check/debug-kernel.log" 2>&1; then
			echo "check: debug kernel ready in $(( $(date +%s) - t0 ))s"
		else
			echo "check: building the debug kernel failed, see $CACHE/check/debug-kernel.log"
		fi
	fi
	# The debug tiers start now, while the UML kernel builds.
	touch "$CACHE/check/debug.done"
	while [ ! -e "$CACHE/check/deps.done" ]; do
		sleep 5
	done
	if [[ " $TIERS " == *" kunit "* ]]; then
		t0=$(date +%s)
		KUNIT_BUILD_ONLY=1 "$SRC/scripts/kunit.sh" >"$CACHE/check/kunit-build.log" 2>&1
		echo "check: UML kernel built (status $?) in $(( $(date +%s) - t0 ))s"
	fi
	# The KUnit suites (count-bounded, not time-bounded: slower here is
	# only later) and lint need no guest either.
	if [ "$KUNIT_BG" = 1 ]; then
		t0=$(date +%s)
		"$SRC/scripts/kunit.sh" >"$CACHE/check/kunit-bg.log" 2>&1
		echo $? >"$CACHE/check/kunit-bg.rc"
		echo "check: the KUnit suites ran in the background in $(( $(date +%s) - t0 ))s"
	fi
	if [ "$LINT_BG" = 1 ]; then
		t0=$(date +%s)
		"$SRC/scripts/lint.sh" >"$CACHE/check/lint-bg.log" 2>&1
		echo $? >"$CACHE/check/lint-bg.rc"
		echo "check: lint ran in the background in $(( $(date +%s) - t0 ))s"
	fi
}
prep_pid=
rm -f "$CACHE/check/debug.done" "$CACHE/check/deps.done" "$CACHE/check/lint-bg".* \
	"$CACHE/check/kunit-bg".*
LINT_BG=0 KUNIT_BG=0
if [ "${CHECK_PREP_BG:-1}" = 1 ] && [ -z "${ONLY:-}" ] && [[ " $TIERS " == *" lint "* ]]; then
	LINT_BG=1
fi
if [ "${CHECK_PREP_BG:-1}" = 1 ] && [[ " $TIERS " == *" kunit "* ]] &&
	{ [ -z "${ONLY:-}" ] || [ -n "$(only_kunit)" ]; }; then
	KUNIT_BG=1
fi
if [ "${CHECK_PREP_BG:-1}" = 1 ]; then
	# A session of its own: stopping make check stops the builds too.
	# A new session is a new scheduler autogroup, which competes with the
	# guests' as an equal whatever its tasks' nice: nice the group too.
	setsid nice -n 19 bash -c "echo 19 >/proc/self/autogroup 2>/dev/null
		$(declare -f prep); TIERS='$TIERS' SRC='$SRC' CACHE='$CACHE' LINT_BG=$LINT_BG KUNIT_BG=$KUNIT_BG prep" \
		>"$CACHE/check/prep.out" 2>&1 </dev/null &
	prep_pid=$!
	trap '[ -z "$prep_pid" ] || kill -- "-$prep_pid" 2>/dev/null' EXIT
	trap 'exit 130' INT TERM
fi
"$SRC/scripts/deps.sh" all || deps_failed
touch "$CACHE/check/deps.done"

# Our module for each Debian guest kernel (seconds); the tiers load it by
# path. The debug one is built once its kernel is there (need_prep).
for kv in 6.12 6.1; do
	make -C "$SRC" --no-print-directory module KVER=$kv >"$CACHE/check/build-$kv.log" 2>&1 ||
		echo "check: building ib_srpt.ko for $kv failed, see $CACHE/check/build-$kv.log"
done
# siw.ko for 6.12, which hostile and the lane's e2e tiers would otherwise
# both build at once into the same place.
"$SRC/scripts/siw.sh" 6.12 >/dev/null 2>"$CACHE/check/build-siw.log" ||
	echo "check: building siw.ko for 6.12 failed, see $CACHE/check/build-siw.log"

if [ "${CHECK_PREP_BG:-1}" != 1 ]; then
	prep >"$CACHE/check/prep.out" 2>&1
	cat "$CACHE/check/prep.out"
fi
# need_debug: wait for the debug kernel (once), build the debug module.
# need_prep: wait for all the background builds.
debug_ready=0
need_debug() {
	local t0
	[ "$debug_ready" = 1 ] && return
	debug_ready=1
	t0=$(date +%s)
	while [ -n "$prep_pid" ] && [ ! -e "$CACHE/check/debug.done" ] &&
		kill -0 "$prep_pid" 2>/dev/null; do
		sleep 5
	done
	echo "check: waited $(( $(date +%s) - t0 ))s for the debug kernel"
	grep -a "debug kernel" "$CACHE/check/prep.out"
	make -C "$SRC" --no-print-directory module KVER=debug >"$CACHE/check/build-debug.log" 2>&1 ||
		echo "check: building ib_srpt.ko for debug failed, see $CACHE/check/build-debug.log"
}
need_prep() {
	local t0
	[ -n "$prep_pid" ] || return 0
	t0=$(date +%s)
	wait "$prep_pid"
	prep_pid=
	cat "$CACHE/check/prep.out"
	echo "check: waited $(( $(date +%s) - t0 ))s for the background builds"
}

total_pass=0 total_fail=0
summary=("$(printf '%-13s %4s        %4s         %4ds' setup - - $(( $(date +%s) - t_start )))")

# bg_tier NAME: what the background run of tier NAME printed, and its status.
bg_tier() {
	local rc
	cat "$CACHE/check/$1-bg.log" 2>/dev/null
	rc=$(cat "$CACHE/check/$1-bg.rc" 2>/dev/null) ||
		{ echo "check: the background $1 did not finish"; return 1; }
	return "$rc"
}

run_tier() { # name command...
	local name=$1 t0 rc
	shift
	t0=$(date +%s)
	echo "=== $name: $*"
	"$@" 2>&1 | tee "$CACHE/check/$name.log"
	rc=${PIPESTATUS[0]}
	count_tier "$name" "$rc" $(( $(date +%s) - t0 ))
}

# lane_tier NAME: the log of a tier the lane ran, then its counts.
lane_tier() {
	local name=$1 rc secs
	echo "=== $name (in the lane): $CACHE/check/$name.log"
	cat "$CACHE/check/$name.log" 2>/dev/null
	read -r rc secs <"$CACHE/check/$name.rc" 2>/dev/null ||
		{ echo "check: the lane did not finish $name"; rc=1 secs=0; }
	count_tier "$name" "$rc" "$secs"
}

# count_tier NAME RC SECONDS: add what the tier's log says to the totals.
count_tier() {
	local name=$1 rc=$2 secs=$3 log=$CACHE/check/$1.log line p f
	line=$(grep -E '^([A-Za-z]+: )?[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
	p=$(echo "$line" | sed -nE 's/^([A-Za-z]+: )?([0-9]+) passed.*/\2/p')
	f=$(echo "$line" | sed -nE 's/.* ([0-9]+) failed.*/\1/p')
	p=${p:-0} f=${f:-0}
	# A runner that died without its summary line, or lied with exit 0
	# while reporting failures, counts as one more failure; so does one
	# that ended well without saying what it ran.
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		f=1
	fi
	if [ -z "$line" ]; then
		echo "check: $name printed no 'N passed, N failed' line"
		[ "$f" != 0 ] || f=1
	elif [ "$p" = 0 ] && [ "$f" = 0 ]; then
		echo "check: $name ran no test"
		f=1
	fi
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
	summary+=("$(printf '%-13s %4d passed %4d failed  %4ds  (rc %d)' "$name" "$p" "$f" "$secs" "$rc")")
}

# multichannel needs two CPUs, which the lane's guests lack (below): it
# runs on the debug kernel only.
E2E_61_DEFAULT=login,fio-verify,acl-refused,two-luns,logout-rmmod,ext-sg,mr-pool,dm-mad,ib-cm,srq
# The debug kernel runs I/O about four times slower: there, the scenarios
# that move data or tear a channel down (login, fio-verify, multichannel,
# logout-rmmod, ext-sg, mr-pool, ib-cm, srq). acl-refused, two-luns and
# dm-mad run on 6.1 only; on the debug kernel, hostile-debug refuses logins
# and opens and closes many channels (disconnect_storm, the login cases).
E2E_DEBUG_DEFAULT=login,fio-verify,multichannel,logout-rmmod,ext-sg,mr-pool,ib-cm,srq
# dm-mad and ib-cm run on 6.1 and the debug kernel: not again here. The
# 6.12 scenarios are two tiers, so that the two lanes (below) take about
# as long: e2e-6.12-lio has the ones driving LIO's tools and features.
E2E_612_DEFAULT=install-modprobe,legacy-configfs,netns,deb,trace,portals,rtslib-patches
E2E_612_LIO_DEFAULT=targetcli,targetcli-restore,t10-pi,pr-fence
# alua (dm-multipath failover) runs with two vCPUs, after the lanes: in a
# one-vCPU guest beside another it failed once, its disk gone under
# sg_rtpg after the module reload.
E2E_612_ALUA_DEFAULT=alua
# Fault 08 (multipath failover) is left to make hostile: soft-RoCE
# sometimes moves rxe1's GSI QP to the error state for good across
# the link flap, and ib_srp's reconnect then hangs in the kernel.
# Faults 02, 03, 04 and 06 run on the debug kernel (hostile-debug),
# which sees more of what they can break: not again here. Fault 07 (the
# HCA removed under I/O) runs here: on 7.2, ib_srp's own removal of its
# SCSI host then crashes in blk_mq_tagset_busy_iter() (testing.rst).
CHECK_FAULTS_DEFAULT=01,05,07,09,10,11,12,13,14
# The live fuzzer's seed in make check: fixed, so that a failure replays
# (make fuzz-live draws new ones).
CHECK_FUZZ_SEED=${CHECK_FUZZ_SEED:-0xff0000ed1b}
# sel DEFAULT: what a tier runs of its DEFAULT list (all of it without ONLY).
sel() {
	if [ -z "${ONLY:-}" ]; then echo "$1"; return; fi
	local r=
	case "$2" in
	e2e) r=$(only_e2e | only_in "$1") ;;
	cases)
		if [[ ",$1," == *,all,* ]]; then r=$(only_cases)
		elif [ "$1" != none ]; then r=$(only_cases | only_in "$1"); fi
		r=${r:-none}
		;;
	faults) r=$(only_faults | only_in "$1"); r=${r:-0} ;;
	esac
	echo "$r"
}
# tier_list TIER: the e2e scenarios or the fault scripts TIER runs when
# ONLY does not narrow them, with their overrides.
tier_list() {
	case "$1" in
	e2e-6.12) echo "${E2E_612_SCENARIOS:-$E2E_612_DEFAULT}" ;;
	e2e-6.12-lio) echo "${E2E_612_LIO_SCENARIOS:-$E2E_612_LIO_DEFAULT}" ;;
	e2e-6.12-alua) echo "$E2E_612_ALUA_DEFAULT" ;;
	e2e-6.1) echo "${E2E_61_SCENARIOS:-$E2E_61_DEFAULT}" ;;
	e2e-debug) echo "${E2E_DEBUG_SCENARIOS:-$E2E_DEBUG_DEFAULT}" ;;
	e2e-siw) echo "$SIW_SCENARIOS" ;;
	hostile) echo "${CHECK_FAULTS:-$CHECK_FAULTS_DEFAULT}" ;;
	hostile-debug) echo "${CHECK_DEBUG_FAULTS:-02,03,04,06}" ;;
	esac
}
if [ -n "${ONLY:-}" ]; then
	keep=
	for t in $TIERS; do
		case "$t" in
		lint) continue ;;
		kunit) [ -n "$(only_kunit)" ] || continue ;;
		e2e-*) [ -n "$(sel "$(tier_list "$t")" e2e)" ] || continue ;;
		hostile) [ "$(sel "$(tier_list "$t")" faults)" != 0 ] || continue ;;
		hostile-debug)
			[ "$(sel "$(tier_list "$t")" faults)" != 0 ] ||
				[ -n "$(only_cases)" ] || continue ;;
		esac
		keep+="$t "
	done
	echo "check: ONLY=$ONLY runs the tiers: ${keep:-none}"
	TIERS=$keep
fi

# coverage: every e2e scenario is in the list of a tier of this run, and
# every fault script but 08 (above) too: a scenario or fault added without
# a tier, or a tier left out of TIERS, fails here instead of running
# nowhere. Run when make check runs every tier (no CHECK_TIERS, no ONLY).
coverage() {
	local t e2e= faults= f n bad=
	for t in $TIERS; do
		case "$t" in
		e2e-*) e2e+=",$(tier_list "$t")" ;;
		hostile*) faults+=",$(tier_list "$t")" ;;
		esac
	done
	for f in "$SRC"/tests/e2e/[0-9][0-9]-*.sh; do
		n=$(basename "$f" .sh)
		scenario_in "$e2e" "$n" || bad+=" $n"
	done
	for f in "$SRC"/tests/hostile/faults/[0-9][0-9]-*.sh; do
		n=$(basename "$f" .sh)
		n=${n%%-*}
		[ "$n" = 08 ] || [[ ",$faults," == *",$n,"* ]] || bad+=" fault-$n"
	done
	if [ -n "$bad" ]; then
		echo "check: in no tier of this run:$bad"
		echo "0 passed, 1 failed"
		return 1
	fi
	echo "check: every e2e scenario, and every fault but 08, is in a tier of this run"
	echo "1 passed, 0 failed"
}

# tier_cmd TIER: run one tier's runner; it prints "N passed, N failed".
# The e2e runners get the modules built above (KO=): one of their own
# builds would delete the module another tier is about to copy.
tier_cmd() {
	local t=$1
	case "$t" in
	lint) "$SRC/scripts/lint.sh" ;;
	kunit) "$SRC/scripts/kunit.sh" ;;
	e2e-siw)
		env KVER=6.12 MODULE=ours TRANSPORT=siw KO="$CACHE/build-6.12/ib_srpt.ko" \
			E2E_ONLY="$(sel "$(tier_list "$t")" e2e)" "$SRC/scripts/e2e.sh"
		;;
	e2e-6.1)
		# The data path against the older kernel's RDMA and LIO cores;
		# install, configfs and tracing scenarios run on 6.12 only.
		env KVER=6.1 MODULE=ours TRANSPORT=rxe KO="$CACHE/build-6.1/ib_srpt.ko" \
			E2E_ONLY="$(sel "$(tier_list "$t")" e2e)" "$SRC/scripts/e2e.sh"
		;;
	e2e-debug)
		env KVER=debug MODULE=ours TRANSPORT=rxe E2E_KMEMLEAK=end KO="$CACHE/build-debug/ib_srpt.ko" \
			E2E_ONLY="$(sel "$(tier_list "$t")" e2e)" "$SRC/scripts/e2e.sh"
		;;
	hostile-debug) env KVER=debug MODULE=ours TRANSPORT=rxe \
			 HOSTILE_CASES="$(sel "${CHECK_DEBUG_CASES:-all,fuzz_live}" cases)" \
			 HOSTILE_FUZZ_SEED="${HOSTILE_FUZZ_SEED:-$CHECK_FUZZ_SEED}" \
			 HOSTILE_FAULTS="$(sel "$(tier_list "$t")" faults)" \
			 HOSTILE_SQ_SIZES="${HOSTILE_SQ_SIZES:-min}" "$SRC/scripts/hostile.sh" ;;
	e2e-6.12)
		env KVER=6.12 MODULE=ours TRANSPORT=rxe KO="$CACHE/build-6.12/ib_srpt.ko" \
			E2E_ONLY="$(sel "$(tier_list "$t")" e2e)" "$SRC/scripts/e2e.sh"
		;;
	e2e-6.12-lio)
		env KVER=6.12 MODULE=ours TRANSPORT=rxe KO="$CACHE/build-6.12/ib_srpt.ko" \
			E2E_ONLY="$(sel "$(tier_list "$t")" e2e)" "$SRC/scripts/e2e.sh"
		;;
	e2e-6.12-alua)
		env KVER=6.12 MODULE=ours TRANSPORT=rxe KO="$CACHE/build-6.12/ib_srpt.ko" \
			E2E_ONLY="$(sel "$(tier_list "$t")" e2e)" "$SRC/scripts/e2e.sh"
		;;
	hostile) env KVER=6.12 MODULE=ours TRANSPORT=rxe \
			 HOSTILE_CASES="${CHECK_HOSTILE_CASES:-none}" \
			 HOSTILE_FAULTS="$(sel "$(tier_list "$t")" faults)" \
			 HOSTILE_SQ_SIZES="${HOSTILE_SQ_SIZES:-min}" "$SRC/scripts/hostile.sh" ;;
	*) echo "check: unknown tier $t"; echo "0 passed, 1 failed"; return 1 ;;
	esac
}

# The lanes: the e2e tiers on Debian's kernels run first, two at a time,
# each in a guest with one vCPU; the tiers that hunt races (hostile and
# the debug ones) follow one at a time with two. One guest with two vCPUs
# keeps the two cores about 60% busy; two with one each keep them busy
# without slowing each other much: e2e-6.1 took 287 s beside e2e-siw
# (250 s alone with two vCPUs), e2e-siw 125 s (120). Two lanes take the
# tiers in this order, each the next one left, so that both take about
# as long. (Beside a guest with two vCPUs a one-vCPU guest ran four to
# five times slower, and scenarios overran their timeouts: the lanes
# never run beside the race tiers.) CHECK_LANE=0 runs every tier alone
# with two vCPUs.
LANE_TIERS="e2e-6.12 e2e-6.12-lio e2e-6.1 e2e-siw"
lane=
fg=
if [ "${CHECK_LANE:-1}" != 0 ]; then
	for t in $LANE_TIERS; do
		[[ " $TIERS " == *" $t "* ]] && lane+="$t "
	done
fi
for t in $TIERS; do
	[[ " $lane " == *" $t "* ]] && continue
	if { [ "$t" != lint ] || [ "$LINT_BG" != 1 ]; } &&
		{ [ "$t" != kunit ] || [ "$KUNIT_BG" != 1 ]; }; then
		fg+="$t "
	fi
done
rm -rf "$CACHE"/check/claim-*
# claim TIER WHO: true for the one runner that gets to run TIER.
claim() { mkdir "$CACHE/check/claim-$1" 2>/dev/null && echo "$2" >"$CACHE/check/claim-$1/by"; }
if [ -z "${CHECK_TIERS:-}" ] && [ -z "${ONLY:-}" ]; then
	run_tier coverage coverage
fi
lane_pid=
if [ -n "$lane" ]; then
	echo "check: two lanes, one vCPU a guest: $lane"
	rm -f "$CACHE"/check/e2e-*.rc
	# The second lane: its own heavy lock, its own process group (set
	# -m), which the exit trap stops whole.
	set -m
	(
		export HEAVY_LOCK=$CACHE/check/lane.lock VM_SMP=1
		for t in $lane; do
			claim "$t" lane || continue
			t0=$(date +%s)
			tier_cmd "$t" >"$CACHE/check/$t.log" 2>&1 </dev/null
			echo "$? $(( $(date +%s) - t0 ))" >"$CACHE/check/$t.rc"
		done
	) >"$CACHE/check/lane.out" 2>&1 </dev/null &
	lane_pid=$!
	set +m
	trap '[ -z "$prep_pid" ] || kill -- "-$prep_pid" 2>/dev/null
		[ -z "$lane_pid" ] || kill -- "-$lane_pid" 2>/dev/null' EXIT
	# The first lane is this shell.
	for t in $lane; do
		claim "$t" fg || continue
		VM_SMP=1 run_tier "$t" tier_cmd "$t"
	done
	t0=$(date +%s)
	wait "$lane_pid"
	lane_pid=
	echo "check: waited $(( $(date +%s) - t0 ))s for the second lane"
	cat "$CACHE/check/lane.out"
	for t in $lane; do
		[ "$(cat "$CACHE/check/claim-$t/by" 2>/dev/null)" = lane ] && lane_tier "$t"
	done
fi
for t in $fg; do
	case "$t" in
	kunit) need_prep ;;
	*-debug) need_debug ;;
	esac
	run_tier "$t" tier_cmd "$t"
done
if [ "$KUNIT_BG" = 1 ]; then
	need_prep
	run_tier kunit bg_tier kunit
fi
if [ "$LINT_BG" = 1 ]; then
	need_prep
	run_tier lint bg_tier lint
fi

echo
echo "=== make check summary ($(( $(date +%s) - t_start ))s from the start, setup included)"
printf '%s\n' "${summary[@]}"
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" = 0 ]
