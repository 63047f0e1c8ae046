#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# `make bench`: one guest boot; the same fio jobs against our ib_srpt, the
# distribution's ib_srpt, the kernel's nvmet-rdma target (nvme-rdma host)
# and the bare null_blk device, alternated BENCH_ROUNDS times (default 3),
# plus perftest loopback over the same rxe device each round. Prints a table
# of IOPS, MB/s, mean latency and guest CPU time per I/O (medians over
# rounds) and the ratios ours/distro, ours/nvmet and ours/ceiling (median and
# min..max over rounds), then one line per job:
#   ratio <job> <ours/distro>           (QD1 jobs: latency ratio; QD32: IOPS; 1M: MB/s)
#   ratio <job>-vs-nvmet <ours/nvmet>
#   ratio <job> n/a                     (our module did not build or load)
# Environment: KVER (6.12), MODULE (ours: compare; distro: distro only),
# KO (use this ib_srpt.ko instead of building one), CACHE, BENCH_ROUNDS (3),
# BENCH_RUNTIME (10 s per job), BENCH_JOBS (subset of job names),
# BENCH_PEERS ("nvmet bare": the other setups measured besides the ib_srpts),
# BENCH_WIRE (1: perftest), BENCH_SCALE (1: also the channel/LUN scaling
# table; `make bench-scale` runs only that), BENCH_PROFILE (1: also per-I/O
# event counts and perf profiles of ours and distro), BENCH_INSN (1:
# guest instructions per I/O per module from a QEMU TCG plugin, before
# everything else; INSN_ROUNDS, default 2, passes of it).
# Ends with "N passed, N failed".
set -uo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
. "$REPO/scripts/lib.sh"
runner_setup	# CACHE KVER MODULE
export CACHE KVER MODULE
rounds=${BENCH_ROUNDS:-3}
runtime=${BENCH_RUNTIME:-10}
main=${BENCH_MAIN:-1}
scale=${BENCH_SCALE:-0}
profile=${BENCH_PROFILE:-0}
peers=${BENCH_PEERS-nvmet bare}

# Fresh machine: QEMU, fio, nvme-cli, perftest, perf... (quiet when present).
"$REPO/scripts/deps.sh" vm || { echo "bench: scripts/deps.sh vm failed"; fail_summary 1; }

out=$(results_dir "bench-$KVER")
mkdir -p "$out"

srpts="distro ours"
note=
ko=
if [ "$MODULE" = distro ]; then
	srpts=distro
	note="MODULE=distro: measuring the distribution's ib_srpt only"
elif [ -n "${KO:-}" ]; then
	# A module built elsewhere (e.g. another checkout): used as it is.
	ko=$KO
	if [ ! -r "$ko" ]; then
		srpts=distro
		note="no module at KO=$ko: distro module only"
	fi
else
	ko=$CACHE/build-$KVER/ib_srpt.ko
	if ! runner_build_module bench "$out/build.log"; then
		srpts=distro
		note="our ib_srpt.ko did not build for $KVER (see $out/build.log): distro module only"
	fi
fi
modules="$srpts $peers"
[ -n "$note" ] && echo "bench: $note"
echo "bench: KVER=$KVER ${ko:+KO=$ko }setups: $modules, $rounds rounds, ${runtime}s per job" \
	"$([ "$scale" = 1 ] && echo '+ scaling')$([ "$profile" = 1 ] && echo ' + profile')"

# Guest instructions per I/O, counted by a QEMU TCG plugin (BENCH_INSN=1).
insn=${BENCH_INSN:-1}
insn_dir=
if [ "$insn" = 1 ]; then
	insn_dir=$(CACHE=$CACHE "$REPO/scripts/insn-plugin.sh") ||
		{ echo "bench: cannot build the instruction-counting plugin"; insn=0; }
fi
[ "$insn" = 1 ] && export VM_PLUGIN="$insn_dir/insn_plugin.so,out=$out/insn.bin"

njobs=$(echo ${BENCH_JOBS:-x x x x x x} | wc -w)
budget=240
[ "$main" = 1 ] && budget=$(( budget + rounds * ($(echo $modules | wc -w) * (60 + njobs * (runtime + 15)) + 240) ))
[ "$scale" = 1 ] && budget=$(( budget + 10 * (150 + runtime) ))
[ "$profile" = 1 ] && budget=$(( budget + 2 * (120 + 4 * (3 * runtime + 150)) ))
[ "$insn" = 1 ] && budget=$(( budget + ${INSN_ROUNDS:-2} * $(echo $modules | wc -w) * (120 + njobs * 60) ))
"$REPO/scripts/vm.sh" --kver "$KVER" --module "${srpts##* }" --quiet ${ko:+--ko "$ko"} \
	--run "$REPO/tests/bench-guest.sh" --out "$out" --timeout "$budget" \
	--env "BENCH_MODULES=$modules" --env "BENCH_ROUNDS=$rounds" \
	--env "BENCH_RUNTIME=$runtime" --env "BENCH_JOBS=${BENCH_JOBS:-}" \
	--env "BENCH_MAIN=$main" --env "BENCH_SCALE=$scale" --env "BENCH_PROFILE=$profile" \
	--env "BENCH_WIRE=${BENCH_WIRE:-1}" --env "BENCH_INSN=$insn" \
	--env "INSN_MARK=$insn_dir/insn_mark" --env "INSN_ROUNDS=${INSN_ROUNDS:-2}" \
	--env "BENCH_SCALE_MODULES=$srpts" --env "BENCH_PROFILE_MODULES=$srpts"
vmrc=$?

echo
irc=0
if [ "$insn" = 1 ]; then
	python3 "$REPO/scripts/insn-report.py" "$out" "$([ "$profile" = 1 ] && echo profile)" |
		tee "$out/insn-report.txt"
	irc=${PIPESTATUS[0]}
	echo
fi
python3 "$REPO/scripts/bench-report.py" "$out" "$modules" "$vmrc" "$KVER" "$main" "$scale" "$profile" |
	tee "$out/report.txt" | grep -vE '^[0-9]+ passed, [0-9]+ failed$'
rc=${PIPESTATUS[0]}
# One summary for both reports.
p=$(sed -nE 's/^([0-9]+) passed, ([0-9]+) failed$/\1/p' "$out/report.txt")
f=$(sed -nE 's/^([0-9]+) passed, ([0-9]+) failed$/\2/p' "$out/report.txt")
if [ "$insn" = 1 ]; then
	p=$(( ${p:-0} + $(sed -nE 's/^insn: ([0-9]+) passed.*/\1/p' "$out/insn-report.txt" | tail -n 1) ))
	f=$(( ${f:-0} + $(sed -nE 's/^insn: [0-9]+ passed, ([0-9]+) failed.*/\1/p' "$out/insn-report.txt" | tail -n 1) ))
fi
[ "$irc" = 0 ] || [ "${f:-0}" != 0 ] || f=1
echo "bench: results in $out"
print_summary "${p:-0}" "${f:-1}"
[ "$rc" = 0 ] && [ "$irc" = 0 ]
