#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# `make soak`: one guest boot (scripts/vm.sh, with slab_nomerge so that each
# slab cache is its own) running tests/soak-guest.sh: acknowledged writes,
# each read back, on a Linux ib_srp login for SOAK_MINUTES (default 20) while that initiator
# logs out and in, the TPG is disabled and enabled, ABORT TASK storms and
# credit overruns come from the hostile initiator and LOGICAL UNIT RESETs
# from sg_reset; then teardown and the slab caches / memory before and after.
# Not part of `make check`.
#
# Environment: KVER=6.1|6.12 (6.12), MODULE=ours|distro (ours), CACHE,
# KO (our module; default $CACHE/build-$KVER/ib_srpt.ko), SOAK_MINUTES (20),
# SOAK_GAP (seconds between disruptions, 10), SOAK_OBJ_TOL (16 objects per
# named cache), SOAK_KMALLOC_TOL_KB (2048), SOAK_SUNRECLAIM_TOL_KB (4096).
# Last line: "N passed, N failed"; exit status non-zero on failure.
set -uo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
. "$REPO/scripts/lib.sh"
runner_setup	# CACHE KVER MODULE
MINUTES=${SOAK_MINUTES:-20}
tool_dir=$CACHE/hostile/bin-soak-$KVER-$MODULE
out=$(results_dir "soak-$KVER-$MODULE")

give_up() { say "$*"; fail_summary 1; }

case "$MINUTES" in ''|*[!0-9]*) give_up "SOAK_MINUTES must be a whole number of minutes" ;; esac
"$REPO/scripts/deps.sh" vm || give_up "dependency setup failed"
mkdir -p "$tool_dir" "$out"
make -s -C "$REPO/tests/hostile" O="$tool_dir" >&2 || give_up "building the hostile tool failed"

args=(--kver "$KVER" --module "$MODULE" --run "$REPO/tests/soak-guest.sh" --out "$out"
      --quiet --timeout $(( MINUTES * 60 + 1200 ))
      --env "HOSTILE=$tool_dir/hostile" --env "SOAK_MINUTES=$MINUTES")
for v in SOAK_GAP SOAK_OBJ_TOL SOAK_KMALLOC_TOL_KB SOAK_SUNRECLAIM_TOL_KB; do
	[ -n "${!v:-}" ] && args+=(--env "$v=${!v}")
done
if [ "$MODULE" = ours ]; then
	ko=${KO:-$CACHE/build-$KVER/ib_srpt.ko}
	[ -r "$ko" ] || give_up "no module at $ko: run 'make module KVER=$KVER' first"
	ko_copy "$ko" "$out" || give_up "cannot copy $ko"
	say "module $(ko_id "$ko")"
	args+=(--ko "$out/ib_srpt.ko")
fi

say "KVER=$KVER MODULE=$MODULE, $MINUTES minutes; results in $out"
t0=$(date +%s)
VM_APPEND="${VM_APPEND:+$VM_APPEND }slab_nomerge" "$REPO/scripts/vm.sh" "${args[@]}"
vmrc=$?
secs=$(( $(date +%s) - t0 ))

log=$out/guest.log
echo "== soak: KVER=$KVER MODULE=$MODULE, $MINUTES minutes, ${secs}s in all (with the lock wait), results in $out"
grep -aE '^(PASS|FAIL) |^## soak: (commands|errors)' "$log" 2>/dev/null | sed 's/^## //'
summary=$(grep -aE '^[0-9]+ passed, [0-9]+ failed$' "$log" 2>/dev/null | tail -n 1)
if [ -z "$summary" ]; then
	say "the guest produced no summary (vm.sh status $vmrc); see $out/console.log"
	tail -n 20 "$out/console.log" 2>/dev/null | sed 's/^/    /' >&2
	fail_summary 1
fi
read -r p _ f _ <<<"$summary"
if [ "$vmrc" != 0 ] && [ "$f" = 0 ]; then
	say "vm.sh reported status $vmrc (kernel splat or timeout; see $out/splat.txt)"
	f=1
fi
print_summary "$p" "$f"
