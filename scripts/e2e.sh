#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# `make e2e`: boot one guest (scripts/vm.sh) and run every end-to-end
# scenario of tests/e2e/ in it against ib_srpt (MODULE=ours: the module built
# by `make module` into $CACHE/build-$KVER, loaded by path; MODULE=distro: the
# kernel's own). Environment:
#   KVER=6.12|6.1  MODULE=ours|distro  CACHE=/var/cache/ib_srpt
#   KO=<path>      MODULE=ours: test this ib_srpt.ko instead of building one
#   E2E_ONLY=login,acl-refused,...  run only these scenarios (name or number)
#   BREAK=acl      fail on purpose: the login scenario runs without its ACL
#   E2E_TIMEOUT=S  default per-scenario timeout in the guest (240)
#   KO=path       use this ib_srpt.ko (MODULE=ours) instead of building one
#   TRANSPORT=rxe|siw  soft-RoCE (default) or soft-iWARP in the guest
# Results: $CACHE/results/e2e-<kver>-<module>[-siw]-<time>/ (per scenario: log,
# dmesg.txt, and dmesg-full.txt when it failed). Ends with "N passed, N failed".
set -uo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
. "$REPO/scripts/lib.sh"
runner_setup	# CACHE KVER MODULE
TRANSPORT=${TRANSPORT:-rxe}
export CACHE KVER MODULE TRANSPORT
case "$TRANSPORT" in
rxe|siw) ;;
*) echo "e2e: TRANSPORT=$TRANSPORT: use rxe or siw"; fail_summary 1 ;;
esac

out=$(results_dir "e2e-$KVER-$MODULE$([ "$TRANSPORT" = rxe ] || echo "-$TRANSPORT")")
mkdir -p "$out"

scenarios=()
for f in "$REPO"/tests/e2e/[0-9][0-9]-*.sh; do
	n=$(basename "$f" .sh)
	if [ -n "${E2E_ONLY:-}" ]; then
		[[ ",$E2E_ONLY," == *",$n,"* || ",$E2E_ONLY," == *",${n%%-*},"* ||
		   ",$E2E_ONLY," == *",${n#*-},"* ]] || continue
	fi
	scenarios+=("$n")
done
[ ${#scenarios[@]} -gt 0 ] || { echo "e2e: no scenario selected"; fail_summary 1; }

"$REPO/scripts/deps.sh" vm || { echo "e2e: dependency setup failed (scripts/deps.sh vm)"; fail_summary 1; }
echo "e2e: KVER=$KVER MODULE=$MODULE TRANSPORT=$TRANSPORT ${BREAK:+BREAK=$BREAK }scenarios: ${scenarios[*]}"

# Our module must be built first; a build failure fails every scenario.
# KO=<path> tests that module instead (nothing is built).
ko=${KO:-$CACHE/build-$KVER/ib_srpt.ko}
if [ "$MODULE" = ours ] && [ -n "${KO:-}" ]; then
	[ -r "$ko" ] || { echo "e2e: no module at KO=$ko"; fail_summary ${#scenarios[@]}; }
	ko_copy "$ko" "$out" && ko=$out/ib_srpt.ko
	echo "e2e: module KO=${KO} ($(ko_md5 "$ko"))"
elif [ "$MODULE" = ours ]; then
	if ! runner_build_module e2e "$out/build.log"; then
		tail -n 20 "$out/build.log"
		for n in "${scenarios[@]}"; do echo "FAIL $n 0 our module did not build"; done >"$out/results.txt"
		echo "e2e: our ib_srpt.ko did not build for $KVER; see $out/build.log"
		echo "e2e: results in $out"
		fail_summary ${#scenarios[@]}
	fi
fi

# 88-netns and 92-portals run soft-iWARP in a namespace whatever TRANSPORT
# is: rdma_rxe of 6.1 and 6.12 sends and receives in the initial network
# namespace only. Debian's kernels have no siw.ko; build it (cached) for
# the guest, as TRANSPORT=siw does in vm.sh. Without it they fail saying so.
if [[ " ${scenarios[*]} " == *" 88-netns "* || " ${scenarios[*]} " == *" 92-portals "* ]] &&
	[ -z "${SIW_KO:-}" ] &&
	[ "$TRANSPORT" != siw ]; then
	SIW_KO=$(CACHE=$CACHE "$REPO/scripts/siw.sh" "$KVER" 2>"$out/siw-build.log") ||
		{ echo "e2e: cannot build siw.ko for $KVER (see $out/siw-build.log)"; SIW_KO=; }
	export SIW_KO
fi

# 78-dm-mad's user-space Device Management client.
dm_tool=
if [[ " ${scenarios[*]} " == *" 78-dm-mad "* ]]; then
	make -s -C "$REPO/tests/hostile" O="$out" "$out/srpt-dm" >"$out/srpt-dm-build.log" 2>&1 &&
		dm_tool=$out/srpt-dm || echo "e2e: building srpt-dm failed (see $out/srpt-dm-build.log)"
fi

# 79-ib-cm's initiator: a kernel module, built for the guest kernel.
ibcm_ko=
if [[ " ${scenarios[*]} " == *" 79-ib-cm "* ]]; then
	if [ "$KVER" = debug ]; then
		kd=$(CACHE=$CACHE "$REPO/scripts/debug-kernel.sh" --kdir)
	else
		kd=/lib/modules/$(newest_headers "$KVER")/build
	fi
	mkdir -p "$out/ibcm"
	cp "$REPO/tests/ibcm/Kbuild" "$REPO/tests/ibcm/srpt_ibcm.c" "$out/ibcm/"
	make -C "$kd" M="$out/ibcm" modules >"$out/ibcm-build.log" 2>&1 &&
		ibcm_ko=$out/ibcm/srpt_ibcm.ko || echo "e2e: building srpt_ibcm.ko failed (see $out/ibcm-build.log)"
fi

# 89-deb's package, built from this tree with Debian's tooling.
deb_file=
if [[ " ${scenarios[*]} " == *" 89-deb "* ]]; then
	deb_file=$(DEB_OUT=$out/deb LINTIAN=0 CACHE=$CACHE "$REPO/scripts/deb.sh" 2>"$out/deb-build.log" | tail -n 1) ||
		{ echo "e2e: make deb failed (see $out/deb-build.log)"; deb_file=; }
fi

# Guest budget: sum of scenario timeouts plus boot and slack.
# (A scenario that times out also spends up to 150 s in cleanup.)
# The debug kernel runs about three times slower: its scenarios get twice
# their timeouts (and a quarter of the fio volume, tests/lib.sh).
mul=1
[ "$KVER" = debug ] && mul=2
budget=180
for n in "${scenarios[@]}"; do
	t=$(sed -n 's/^# timeout: *\([0-9]\+\).*/\1/p' "$REPO/tests/e2e/$n.sh" | head -n 1)
	budget=$((budget + ${t:-${E2E_TIMEOUT:-240}} * mul + 90))
done

start=$(date +%s)
"$REPO/scripts/vm.sh" --kver "$KVER" --module "$MODULE" --quiet --ko "$ko" \
	--run "$REPO/tests/e2e-guest.sh" --out "$out" --timeout "$budget" \
	--env "BREAK=${BREAK:-}" --env "E2E_ONLY=${E2E_ONLY:-}" \
	--env "E2E_TIMEOUT=${E2E_TIMEOUT:-240}" --env "E2E_DKMS=${E2E_DKMS:-0}" \
	--env "E2E_TIMEOUT_MUL=$mul" --env "SRPT_DM=$dm_tool" --env "SRPT_IBCM=$ibcm_ko" \
	--env "SRPT_DEB=$deb_file"
vmrc=$?
secs=$(( $(date +%s) - start ))

passed=0 failed=0
echo
echo "e2e results (KVER=$KVER MODULE=$MODULE TRANSPORT=$TRANSPORT, ${secs}s):"
for n in "${scenarios[@]}"; do
	line=$(grep -E "^(PASS|FAIL) $n " "$out/results.txt" 2>/dev/null | tail -n 1)
	if [ -z "$line" ]; then
		line="FAIL $n 0 no result (guest died or timed out; see console.log)"
		echo "$line" >>"$out/results.txt"
	fi
	read -r st _ s reason <<<"$line"
	if [ "$st" = PASS ]; then
		passed=$((passed + 1))
		printf '  PASS  %-22s %4ss\n' "$n" "$s"
	else
		failed=$((failed + 1))
		printf '  FAIL  %-22s %4ss  %s\n' "$n" "$s" "$reason"
		[ -f "$out/$n/dmesg-full.txt" ] && echo "        dmesg kept: $out/$n/dmesg-full.txt"
	fi
done
# A splat or crash outside any scenario still fails the run.
if [ "$vmrc" -ne 0 ] && [ "$failed" -eq 0 ]; then
	echo "  FAIL  guest                  vm.sh exited $vmrc (kernel splat, crash or timeout; see $out/console.log)"
	failed=$((failed + 1))
fi
if [ "$failed" -gt 0 ]; then
	echo "e2e: results in $out"
fi
print_summary "$passed" "$failed"
