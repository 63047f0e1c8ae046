#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# What CI runs (make check): every test tier against our module.
#   1. lint: W=1 + sparse for 6.1 and 6.12, kernel-doc, checkpatch --strict
#   2. KUnit suites under User Mode Linux (6.12 tree)
#   3. end-to-end scenarios in a QEMU guest: on Debian's 6.12 the drop-in
#      ones (targetcli, install and modprobe, legacy configfs, save and
#      restore, network namespaces, tracing), on Debian's 6.1 the data-path
#      ones over soft-RoCE; login, fio verify and logout over soft-iWARP on
#      Debian's 6.12 (e2e-siw)
#   4. the fault scripts of the hostile tier under fio, Debian's 6.12
#      (all but 08, see below)
#   5. the debug kernel (scripts/debug-kernel.sh: 6.12 from Debian's source
#      with KASAN, lockdep, KFENCE, kmemleak, DEBUG_ATOMIC_SLEEP): the
#      data-path scenarios (e2e-debug), every hostile case and faults 02,
#      03, 04, 06, 07 (hostile-debug); any report fails them
# The data-path scenarios and the hostile cases run once on the 6.12 code,
# on the kernel that can see what they break; `make e2e` and `make hostile`
# run everything on any kernel.
# Each tier prints its own "N passed, N failed"; the totals close the run.
# CHECK_TIERS="lint kunit e2e-6.12 e2e-6.1 e2e-siw hostile e2e-debug
# hostile-debug" selects tiers.
set -uo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${CACHE:-/var/cache/ib_srpt}
TIERS=${CHECK_TIERS:-lint kunit e2e-6.12 e2e-6.1 e2e-siw hostile e2e-debug hostile-debug}
# The soft-iWARP tier: the scenarios every transport must pass, kept short.
SIW_SCENARIOS=${CHECK_SIW_SCENARIOS:-login,fio-verify,logout-rmmod,mr-pool}
# make check may use the bench while it is frozen for other runs.
export IB_SRPT_FINAL=1
mkdir -p "$CACHE/check"

"$SRC/scripts/deps.sh" all || { echo "check: dependency setup failed"; echo "0 passed, 1 failed"; exit 1; }

# The debug kernel (cached; about 30 minutes cold) and our module for each
# guest kernel (seconds); the tiers load it by path.
kvs="6.12 6.1"
if [[ " $TIERS " == *-debug* ]]; then
	t0=$(date +%s)
	if "$SRC/scripts/debug-kernel.sh" >"$CACHE/check/debug-kernel.log" 2>&1; then
		kvs+=" debug"
		echo "check: debug kernel ready in $(( $(date +%s) - t0 ))s"
	else
		echo "check: building the debug kernel failed, see $CACHE/check/debug-kernel.log"
	fi
fi
for kv in $kvs; do
	make -C "$SRC" --no-print-directory module KVER=$kv >"$CACHE/check/build-$kv.log" 2>&1 ||
		echo "check: building ib_srpt.ko for $kv failed, see $CACHE/check/build-$kv.log"
done

total_pass=0 total_fail=0
summary=()
start=$(date +%s)

run_tier() { # name command...
	local name=$1 log=$CACHE/check/$1.log t0 rc line p f
	shift
	t0=$(date +%s)
	echo "=== $name: $*"
	"$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	line=$(grep -E '^([A-Za-z]+: )?[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
	p=$(echo "$line" | sed -nE 's/^([A-Za-z]+: )?([0-9]+) passed.*/\2/p')
	f=$(echo "$line" | sed -nE 's/.* ([0-9]+) failed.*/\1/p')
	p=${p:-0} f=${f:-0}
	# A runner that died without its summary line, or lied with exit 0
	# while reporting failures, counts as one more failure.
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		f=1
	fi
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
	summary+=("$(printf '%-10s %4d passed %4d failed  %4ds  (rc %d)' "$name" "$p" "$f" $(( $(date +%s) - t0 )) "$rc")")
}

E2E_61_DEFAULT=login,fio-verify,acl-refused,two-luns,multichannel,logout-rmmod,ext-sg,mr-pool,dm-mad,ib-cm,srq
E2E_612_DEFAULT=targetcli,install-modprobe,legacy-configfs,targetcli-restore,dm-mad,ib-cm,t10-pi,pr-fence,netns,deb,trace,alua,portals
for t in $TIERS; do
	case "$t" in
	lint) run_tier lint "$SRC/scripts/lint.sh" ;;
	kunit) run_tier kunit "$SRC/scripts/kunit.sh" ;;
	e2e-siw)
		run_tier "$t" env KVER=6.12 MODULE=ours TRANSPORT=siw \
			E2E_ONLY="$SIW_SCENARIOS" "$SRC/scripts/e2e.sh"
		;;
	e2e-6.1)
		# The data path against the older kernel's RDMA and LIO cores;
		# install, configfs and tracing scenarios run on 6.12 only.
		run_tier "$t" env KVER=6.1 MODULE=ours TRANSPORT=rxe \
			E2E_ONLY="${E2E_61_SCENARIOS:-$E2E_61_DEFAULT}" "$SRC/scripts/e2e.sh"
		;;
	e2e-debug)
		run_tier "$t" env KVER=debug MODULE=ours TRANSPORT=rxe \
			E2E_ONLY="${E2E_DEBUG_SCENARIOS:-$E2E_61_DEFAULT}" "$SRC/scripts/e2e.sh"
		;;
	hostile-debug) run_tier "$t" env KVER=debug MODULE=ours TRANSPORT=rxe \
			 HOSTILE_FAULTS="${CHECK_DEBUG_FAULTS:-02,03,04,06,07}" \
			 HOSTILE_SQ_SIZES="${HOSTILE_SQ_SIZES:-min}" "$SRC/scripts/hostile.sh" ;;
	e2e-6.12)
		run_tier "$t" env KVER=6.12 MODULE=ours TRANSPORT=rxe \
			E2E_ONLY="${E2E_612_SCENARIOS:-$E2E_612_DEFAULT}" "$SRC/scripts/e2e.sh"
		;;
	e2e-*) run_tier "$t" env KVER="${t#e2e-}" MODULE=ours TRANSPORT=rxe "$SRC/scripts/e2e.sh" ;;
	# Fault 08 (multipath failover) is left to make hostile: soft-RoCE
	# sometimes moves rxe1's GSI QP to the error state for good across
	# the link flap, and ib_srp's reconnect then hangs in the kernel.
	hostile) run_tier hostile env KVER=6.12 MODULE=ours TRANSPORT=rxe \
			 HOSTILE_CASES="${CHECK_HOSTILE_CASES:-none}" \
			 HOSTILE_FAULTS="${CHECK_FAULTS:-01,02,03,04,05,06,07,09,10,11,12,13,14}" \
			 HOSTILE_SQ_SIZES="${HOSTILE_SQ_SIZES:-min}" "$SRC/scripts/hostile.sh" ;;
	*) echo "check: unknown tier $t"; total_fail=$((total_fail + 1)) ;;
	esac
done

echo
echo "=== make check summary ($(( $(date +%s) - start ))s)"
printf '%s\n' "${summary[@]}"
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" = 0 ]
