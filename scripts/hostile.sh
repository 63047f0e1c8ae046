#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# `make hostile`: build the hostile SRP initiator (tests/hostile/), boot the
# test guest (scripts/vm.sh) with the target module, run every hostile case
# and fault scenario while a Linux ib_srp initiator does fio verify I/O, and
# print the summary. Last line: "N passed, N failed"; non-zero on failure.
#
# Environment: KVER=6.1|6.12 (default 6.12), MODULE=ours|distro (default
# ours), CACHE (default /var/cache/ib_srpt), HOSTILE_CASES=a,b,c (default
# all), HOSTILE_FAULTS=0 to skip the fault scripts (or a comma list
# of their numbers, e.g. 05,08), HOSTILE_TIMEOUT=per-case
# seconds (default 120), ONLY= (the selector of every runner, scripts/lib.sh),
# VM_TIMEOUT=whole-guest seconds (default 2400),
# HOSTILE_SQ_SIZES=srp_sq_size values fault 12 stresses ("min 4096"; make
# check runs "min" only: the smallest send queue is where the defects were),
# HOSTILE_FUZZ_IUS (20000) and HOSTILE_FUZZ_SEED (random, printed) for the
# fuzz_live case.
set -uo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
. "$REPO/scripts/lib.sh"
runner_setup	# CACHE KVER MODULE
# ONLY= (scripts/lib.sh) selects cases and faults the variables leave open.
if [ -n "${ONLY:-}" ]; then
	c=$(only_cases) f=$(only_faults)
	[ -n "$c$f" ] || { echo "hostile: ONLY=$ONLY names no case or fault"; fail_summary 1; }
	HOSTILE_CASES=${HOSTILE_CASES:-${c:-none}}
	HOSTILE_FAULTS=${HOSTILE_FAULTS:-${f:-0}}
fi
# A fault number that names no script would be skipped without a word.
case ${HOSTILE_FAULTS:-1} in
0|1) ;;
*)
	for n in ${HOSTILE_FAULTS//,/ }; do
		compgen -G "$REPO/tests/hostile/faults/$n-*.sh" >/dev/null ||
			{ echo "hostile: HOSTILE_FAULTS: no fault script $n"; fail_summary 1; }
	done
	;;
esac
# The debug kernel runs about three times slower: twice the time.
# fuzz_live takes about a second per 50 to 150 IUs (budget: 20).
fuzz_s=$(( ${HOSTILE_FUZZ_IUS:-20000} / 20 ))
if [ "$KVER" = debug ]; then
	VM_TIMEOUT=${VM_TIMEOUT:-$((4800 + fuzz_s))}
	HOSTILE_TIMEOUT=${HOSTILE_TIMEOUT:-240}
fi
VM_TIMEOUT=${VM_TIMEOUT:-$((2400 + fuzz_s))}
tool_dir=$CACHE/hostile/bin-$KVER-$MODULE
out=$CACHE/hostile-out/$KVER-$MODULE


"$REPO/scripts/deps.sh" vm || { say "dependency setup failed"; fail_summary 1; }
mkdir -p "$tool_dir"
# Always rebuilt (seconds): the binaries are shared by every checkout, and
# another one's may be newer than this one's sources.
if ! make -s -B -C "$REPO/tests/hostile" O="$tool_dir" >&2; then
	say "building the tool failed"
	fail_summary 1
fi

# Fault 14 runs over soft-iWARP: Debian's kernels have no siw.ko.
if [ "$KVER" != debug ] && [ -z "${SIW_KO:-}" ]; then
	SIW_KO=$(CACHE=$CACHE "$REPO/scripts/siw.sh" "$KVER" 2>"$CACHE/hostile-siw-$KVER.log") ||
		{ say "cannot build siw.ko for $KVER (see $CACHE/hostile-siw-$KVER.log)"; SIW_KO=; }
	export SIW_KO
fi

ko=
if [ "$MODULE" = ours ]; then
	ko=${KO:-$CACHE/build-$KVER/ib_srpt.ko}
	if [ ! -r "$ko" ]; then
		say "no module at $ko: run 'make module KVER=$KVER' first"
		fail_summary 1
	fi
fi

# One guest boot per run of cases; when a case leaves the target broken
# (oops, or a fresh login no longer works) the guest stops and reports the
# cases it did not run, and the next boot starts with those.
MAX_BOOTS=${HOSTILE_MAX_BOOTS:-12}
cases=${HOSTILE_CASES:-all}
t0=$(date +%s)
rm -rf "$out"
mkdir -p "$out"
if [ -n "$ko" ]; then
	# A private copy: others may rebuild the module while the boots run.
	ko_copy "$ko" "$out" && ko=$out/ib_srpt.ko
	say "module $(ko_id "$ko")"
fi
boot=0 vmrc_any=0
faults=${HOSTILE_FAULTS:-1}
while :; do
	boot=$((boot + 1))
	bout=$out/boot$boot
	args=(--kver "$KVER" --module "$MODULE" --run "$REPO/tests/hostile/run-guest.sh"
	      --out "$bout" --timeout "$VM_TIMEOUT" --quiet
	      --env "HOSTILE=$tool_dir/hostile"
	      --env "HOSTILE_CASES=$cases"
	      --env "HOSTILE_FAULTS=$faults"
	      --env "HOSTILE_TIMEOUT=${HOSTILE_TIMEOUT:-120}"
	      --env "HOSTILE_SQ_SIZES=${HOSTILE_SQ_SIZES:-min 4096}"
	      --env "HOSTILE_TRACE=${HOSTILE_TRACE:-0}"
	      --env "HOSTILE_FUZZ_IUS=${HOSTILE_FUZZ_IUS:-20000}"
	      --env "HOSTILE_FUZZ_SEED=${HOSTILE_FUZZ_SEED:-}"
	      --env "HOSTILE_FUZZ_SIMPLE=${HOSTILE_FUZZ_SIMPLE:-1}"
	      --env "HOSTILE_RESTART=$([ "$boot" -lt "$MAX_BOOTS" ] && echo 1 || echo 0)")
	[ -n "$ko" ] && args+=(--ko "$ko")
	say "boot $boot: cases $cases"
	"$REPO/scripts/vm.sh" "${args[@]}" >&2
	rc=$?
	[ "$rc" != 0 ] && vmrc_any=$rc
	cat "$bout/guest.log" >>"$out/guest.log" 2>/dev/null
	[ -s "$bout/splat.txt" ] && cat "$bout/splat.txt" >>"$out/splat.txt"
	# (an empty list: the broken target's case was the last one)
	if [ -s "$bout/remaining" ] && [ -n "$(tr -d '[:space:]' <"$bout/remaining")" ] &&
		[ "$boot" -lt "$MAX_BOOTS" ]; then
		cases=$(cat "$bout/remaining")
		faults=${HOSTILE_FAULTS:-1}
		continue
	fi
	# The guest died (panic, watchdog): the item it was running fails with
	# the reason, a fresh guest runs the rest of its plan.
	if ! grep -qaE '^[0-9]+ passed, [0-9]+ failed$' "$bout/guest.log" 2>/dev/null &&
		[ -s "$bout/current" ] && [ -s "$bout/plan" ]; then
		cur=$(cat "$bout/current")
		why=$(cat "$bout/.watchdog" 2>/dev/null)
		[ -n "$why" ] || why=$(grep -aE -m1 'Kernel panic|Oops|BUG:|general protection' "$bout/console.log" 2>/dev/null | sed 's/^\[[^]]*\] //')
		{
			echo "FAIL ${cur##* }: guest died: ${why:-no summary; see $bout/console.log}"
			echo "$(grep -acE '^PASS ' "$bout/guest.log") passed, $(( $(grep -acE '^FAIL ' "$bout/guest.log") + 1 )) failed"
		} >>"$out/guest.log"
		rest=$(awk -v c="${cur% fault_*}" 'f { print } $0 == c { f = 1 }' "$bout/plan")
		if [ "$boot" -lt "$MAX_BOOTS" ] && [ "$cur" != "final checks" ]; then
			cases=$(echo "$rest" | sed -n 's/^case //p' | paste -sd, -)
			faults=$(echo "$rest" | sed -n 's/^fault //p' | paste -sd, -)
			cases=${cases:-none} faults=${faults:-0}
			say "guest died in '$cur'; boot $((boot + 1)) runs the rest (cases $cases, faults $faults)"
			continue
		fi
		break
	fi
	if ! grep -qaE '^[0-9]+ passed, [0-9]+ failed$' "$bout/guest.log" 2>/dev/null; then
		say "boot $boot produced no summary (vm.sh status $rc); see $bout/console.log"
		tail -n 20 "$bout/console.log" 2>/dev/null | sed 's/^/    /' >&2
		echo "0 passed, 1 failed" >>"$out/guest.log"
	fi
	break
done
secs=$(( $(date +%s) - t0 ))

log=$out/guest.log
echo "== hostile: KVER=$KVER MODULE=$MODULE, $boot boot(s), ${secs}s, results in $out"
grep -aE '^(PASS|FAIL) |^    dmesg: |^  [a-z_0-9]+: |^## hostile: target broken' "$log" | sed 's/^## //'
p=0 f=0 v=0 w=0
while read -r a _ b _; do p=$((p + a)); f=$((f + b)); done < <(grep -aE '^[0-9]+ passed, [0-9]+ failed$' "$log")
while read -r x; do v=$((v + x)); done < <(grep -aoE '^## hostile: verify errors [0-9]+' "$log" | awk '{print $NF}')
while read -r x; do w=$((w + x)); done < <(grep -aoE '^## hostile: kernel warnings [0-9]+' "$log" | awk '{print $NF}')
splats=0
[ -s "$out/splat.txt" ] && splats=$(sort -u "$out/splat.txt" | wc -l)
echo "hostile: cases run $((p + f)), passed $p, failed $f"
echo "hostile: kernel warnings seen $w (vm.sh splat lines: $splats)"
echo "hostile: acknowledged sectors lost $v"
[ "$splats" -gt 0 ] && sort -u "$out/splat.txt" | head -n 10 | sed 's/^/    /'
if [ "$vmrc_any" != 0 ] && [ "$f" = 0 ]; then
	say "vm.sh reported status $vmrc_any"
	f=1
fi
print_summary "$p" "$f"
