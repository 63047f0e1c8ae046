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
#   E2E_REPEAT=N   run each N times in a row (a flake hunt); the K-th run
#                  reports as <scenario>@K
#   ONLY=...       the selector every runner takes (scripts/lib.sh)
#   BREAK=acl      fail on purpose: the login scenario runs without its ACL
#   E2E_TIMEOUT=S  default per-scenario timeout in the guest (240)
#   KO=path       use this ib_srpt.ko (MODULE=ours) instead of building one
#   TRANSPORT=rxe|siw  soft-RoCE (default) or soft-iWARP in the guest
#   E2E_KMEMLEAK=each|end  on the debug kernel: scan for leaks after every
#                  scenario (default) or once after the last (make check)
# Results: $CACHE/results/e2e-<kver>-<module>[-siw]-<time>/ (per scenario: log,
# dmesg.txt, and dmesg-full.txt when it failed). Ends with "N passed, N failed".
set -uo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
. "$REPO/scripts/lib.sh"
runner_setup	# CACHE KVER MODULE
# ONLY= (scripts/lib.sh) selects scenarios when E2E_ONLY does not.
if [ -n "${ONLY:-}" ] && [ -z "${E2E_ONLY:-}" ]; then
	E2E_ONLY=$(only_e2e)
	[ -n "$E2E_ONLY" ] || { echo "e2e: ONLY=$ONLY names no scenario"; fail_summary 1; }
fi
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
	[ -z "${E2E_ONLY:-}" ] || scenario_in "$E2E_ONLY" "$n" || continue
	scenarios+=("$n")
	for ((k = 2; k <= ${E2E_REPEAT:-1}; k++)); do
		scenarios+=("$n@$k")
	done
done
[ ${#scenarios[@]} -gt 0 ] || { echo "e2e: no scenario selected"; fail_summary 1; }
# A name that matches nothing would be dropped without a word.
for w in ${E2E_ONLY:+${E2E_ONLY//,/ }}; do
	for f in "$REPO"/tests/e2e/[0-9][0-9]-*.sh; do
		scenario_in "$w" "$(basename "$f" .sh)" && continue 2
	done
	echo "e2e: E2E_ONLY: no scenario named $w"
	fail_summary 1
done

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

# 78-dm-mad's user-space Device Management client and discovery tool.
dm_tool= discover_tool=
if [[ " ${scenarios[*]} " == *" 78-dm-mad "* ]]; then
	make -s -C "$REPO/tests/hostile" O="$out" "$out/srpt-dm" >"$out/srpt-dm-build.log" 2>&1 &&
		dm_tool=$out/srpt-dm || echo "e2e: building srpt-dm failed (see $out/srpt-dm-build.log)"
	make -s -C "$REPO/tools" O="$out" "$out/srp-discover" >"$out/srp-discover-build.log" 2>&1 &&
		discover_tool=$out/srp-discover ||
		echo "e2e: building srp-discover failed (see $out/srp-discover-build.log)"
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
	cp "$REPO/tests/ibcm-initiator/Kbuild" "$REPO/tests/ibcm-initiator/srpt_ibcm.c" "$out/ibcm/"
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
budget_for() { # scenario...
	local b=180 n t
	for n in "$@"; do
		t=$(sed -n 's/^# timeout: *\([0-9]\+\).*/\1/p' "$REPO/tests/e2e/${n%@*}.sh" | head -n 1)
		b=$((b + ${t:-${E2E_TIMEOUT:-240}} * mul + 90))
	done
	echo "$b"
}
# why_died DIR: the first thing that shows why the guest of DIR died.
why_died() {
	local w
	w=$(cat "$1/.watchdog" 2>/dev/null)
	[ -n "$w" ] || w=$(grep -aE -m1 'Kernel panic|Oops|BUG:|general protection' "$1/console.log" 2>/dev/null |
		sed 's/^\[[^]]*\] //')
	[ -n "$w" ] || w=$(head -n 1 "$1/splat.txt" 2>/dev/null | sed 's/^\[[^]]*\] //')
	echo "${w:-no result and no kernel report; see $1/console.log}"
}

# One guest runs the scenarios; when it dies (panic, watchdog) the one it
# was running fails with the reason, and a fresh guest runs the rest. So
# does a guest that gave up on the rest after a hang or a dirty state.
start=$(date +%s)
: >"$out/results.txt"
declare -A sdir
todo=("${scenarios[@]}")
boot=0 vmrc=0
max_boots=${E2E_MAX_BOOTS:-4}
while [ ${#todo[@]} -gt 0 ]; do
	boot=$((boot + 1))
	bout=$out
	[ "$boot" = 1 ] || bout=$out/boot$boot
	mkdir -p "$bout"
	only=$(IFS=,; echo "${todo[*]}")
	[ "$boot" = 1 ] || echo "e2e: boot $boot for: ${todo[*]}"
	"$REPO/scripts/vm.sh" --kver "$KVER" --module "$MODULE" --quiet --ko "$ko" \
		--run "$REPO/tests/e2e-guest.sh" --out "$bout" --timeout "$(budget_for "${todo[@]}")" \
		--env "BREAK=${BREAK:-}" --env "E2E_ONLY=$only" --env "E2E_REPEAT=${E2E_REPEAT:-1}" \
		--env "E2E_TIMEOUT=${E2E_TIMEOUT:-240}" --env "E2E_DKMS=${E2E_DKMS:-0}" \
		--env "E2E_KMEMLEAK=${E2E_KMEMLEAK:-each}" \
		--env "E2E_TIMEOUT_MUL=$mul" --env "SRPT_DM=$dm_tool" \
		--env "SRP_DISCOVER=$discover_tool" --env "SRPT_IBCM=$ibcm_ko" --env "SRPT_DEB=$deb_file"
	rc=$?
	[ "$rc" = 0 ] || vmrc=$rc
	[ "$bout" = "$out" ] || cat "$bout/results.txt" >>"$out/results.txt" 2>/dev/null
	cur=$(cat "$bout/current" 2>/dev/null)
	next=() progress=0
	for n in "${todo[@]}"; do
		line=$(grep -E "^(PASS|FAIL) $n " "$bout/results.txt" 2>/dev/null | tail -n 1)
		if [[ "$line" == "FAIL $n 0 not run: "* ]]; then
			# given up on by that guest: a fresh one runs it
			sed -i "/^FAIL $n 0 not run: /d" "$out/results.txt"
			next+=("$n")
		elif [ -n "$line" ]; then
			sdir[$n]=$bout
			progress=1
		elif [ "$rc" != 0 ] && [ "$n" = "$cur" ]; then
			echo "FAIL $n 0 guest died: $(why_died "$bout")" >>"$out/results.txt"
			sdir[$n]=$bout
			progress=1
		else
			next+=("$n")
		fi
	done
	if [ ${#next[@]} -gt 0 ] && { [ "$progress" = 0 ] || [ "$boot" -ge "$max_boots" ]; }; then
		for n in "${next[@]}"; do
			echo "FAIL $n 0 not run: $( [ "$progress" = 0 ] && echo "the guest ran nothing ($(why_died "$bout"))" || echo "$max_boots boots used")" >>"$out/results.txt"
		done
		break
	fi
	todo=("${next[@]}")
done
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
		d=${sdir[$n]:-$out}
		[ -f "$d/$n/dmesg-full.txt" ] && echo "        dmesg kept: $d/$n/dmesg-full.txt"
	fi
done
# E2E_KMEMLEAK=end: each boot's one scan after its last scenario.
while read -r _ _ _ reason; do
	failed=$((failed + 1))
	printf '  FAIL  %-22s %4ss  %s\n' kmemleak 0 "$reason"
done < <(grep -E '^FAIL kmemleak ' "$out/results.txt" 2>/dev/null)
# A splat or crash outside any scenario still fails the run.
if [ "$vmrc" -ne 0 ] && [ "$failed" -eq 0 ]; then
	echo "  FAIL  guest                  vm.sh exited $vmrc (kernel splat, crash or timeout; see $out/console.log)"
	failed=$((failed + 1))
fi
if [ "$failed" -gt 0 ]; then
	echo "e2e: results in $out"
fi
print_summary "$passed" "$failed"
