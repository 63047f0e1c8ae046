#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# `make bench`: one guest boot; the same fio jobs against our ib_srpt and the
# distribution's, alternated BENCH_ROUNDS times (default 2), then a table of
# IOPS, MB/s, mean latency, guest CPU time per I/O and ours/distro ratios with
# their spread (min..max over rounds), and one line per job:
#   ratio <job> <ours/distro>     (QD1 jobs: latency ratio; QD32: IOPS; 1M: MB/s)
#   ratio <job> n/a               (our module did not build or load)
# Environment: KVER (6.12), MODULE (ours: compare ours with distro; distro:
# distro only), CACHE, BENCH_ROUNDS (2), BENCH_RUNTIME (10 s per job),
# BENCH_JOBS (subset of job names). Ends with "N passed, N failed".
set -uo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${CACHE:-/var/cache/ib_srpt}
KVER=${KVER:-6.12}
MODULE=${MODULE:-ours}
export CACHE KVER MODULE
rounds=${BENCH_ROUNDS:-2}
runtime=${BENCH_RUNTIME:-10}

run_id=bench-$KVER-$(date -u +%Y%m%d-%H%M%S)
out=$CACHE/results/$run_id
mkdir -p "$out"

"$REPO/scripts/deps.sh" vm || { echo "bench: dependency setup failed (scripts/deps.sh vm)"; echo "0 passed, 1 failed"; exit 1; }
modules="distro ours"
note=
if [ "$MODULE" = distro ]; then
	modules=distro
	note="MODULE=distro: measuring the distribution's ib_srpt only"
else
	ko=$CACHE/build-$KVER/ib_srpt.ko
	echo "bench: building our module for $KVER"
	if ! flock /var/cache/ib_srpt/heavy.lock make -s -C "$REPO" module KVER="$KVER" CACHE="$CACHE" \
		>"$out/build.log" 2>&1 || [ ! -f "$ko" ]; then
		modules=distro
		note="our ib_srpt.ko did not build for $KVER (see $out/build.log): distro module only"
	fi
fi
[ -n "$note" ] && echo "bench: $note"
echo "bench: KVER=$KVER modules: $modules, $rounds rounds, ${runtime}s per job"

njobs=$(echo ${BENCH_JOBS:-x x x x x x} | wc -w)
budget=$(( 180 + rounds * $(echo $modules | wc -w) * (60 + njobs * (runtime + 12)) ))
"$REPO/scripts/vm.sh" --kver "$KVER" --module "${modules%% *}" --quiet \
	--run "$REPO/tests/bench-guest.sh" --out "$out" --timeout "$budget" \
	--env "BENCH_MODULES=$modules" --env "BENCH_ROUNDS=$rounds" \
	--env "BENCH_RUNTIME=$runtime" --env "BENCH_JOBS=${BENCH_JOBS:-}"
vmrc=$?

echo
python3 - "$out/bench.txt" "$modules" "$vmrc" "$KVER" <<'EOF'
import statistics as st, sys
path, modules, vmrc, kver = sys.argv[1], sys.argv[2].split(), int(sys.argv[3]), sys.argv[4]
rows = {}
order = []
failed = []
notes = []
try:
    lines = open(path).read().split("\n")
except OSError:
    lines = []
for ln in lines:
    f = ln.split()
    if len(f) != 7:
        continue
    m, r, j = f[0], int(f[1]), f[2]
    iops, mbs, lat, cpu = map(float, f[3:])
    if j == "skipped":
        notes.append(f"{m} skipped in round {r}: ib_srpt stuck in the kernel")
        continue
    if j == "setup-failed":
        if m == "ours":
            notes.append(f"our module did not load/serve in round {r}: no ratios from that round")
        else:
            failed.append(f"{m} round {r}: setup failed")
        continue
    if iops == 0:
        failed.append(f"{m} round {r} {j}: fio failed")
        continue
    if j not in order:
        order.append(j)
    rows.setdefault((m, j), {})[r] = (iops, mbs, lat, cpu)

def kind(j):
    return "lat" if j.endswith("-qd1") else ("mbs" if "-1m-" in j else "iops")

def mean(vals):
    return st.mean(vals) if vals else float("nan")

print(f"bench results (KVER={kver}; mean over rounds; ratio = ours/distro, spread = min..max over rounds)")
hdr = f"{'job':<19} {'module':<7} {'IOPS':>8} {'MB/s':>8} {'lat us':>9} {'cpu us/IO':>10}"
print(hdr)
print("-" * len(hdr) + "  ratio ours/distro")
ratios = {}
passed = 0
for j in order:
    for m in modules:
        d = rows.get((m, j), {})
        if not d:
            print(f"{j:<19} {m:<7} {'-':>8} {'-':>8} {'-':>9} {'-':>10}")
            continue
        passed += 1
        v = list(zip(*d.values()))
        line = f"{j:<19} {m:<7} {mean(v[0]):8.0f} {mean(v[1]):8.2f} {mean(v[2]):9.1f} {mean(v[3]):10.1f}"
        if m == "ours" and "distro" in modules:
            dd = rows.get(("distro", j), {})
            idx = {"iops": 0, "mbs": 1, "lat": 2}[kind(j)]
            rs = [d[r][idx] / dd[r][idx] for r in d if r in dd and dd[r][idx] > 0]
            if rs:
                ratios[j] = rs
                what = {"iops": "IOPS", "mbs": "MB/s", "lat": "latency"}[kind(j)]
                line += f"  {what} {st.mean(rs):.2f} ({min(rs):.2f}..{max(rs):.2f})"
                cr = [d[r][3] / dd[r][3] for r in d if r in dd and dd[r][3] > 0]
                if cr:
                    line += f", cpu/IO {st.mean(cr):.2f}"
        print(line)
if "ours" not in modules:
    print("(our module not measured: no ratios)")
for n in notes:
    print(f"note: {n}")
for f in failed:
    print(f"failed: {f}")
if vmrc != 0:
    failed.append(f"guest: vm.sh exited {vmrc}")
    print(f"failed: guest run (vm.sh exited {vmrc}; see console.log)")
if not order:
    failed.append("no measurement")
print()
for j in order:
    if j in ratios:
        print(f"ratio {j} {st.mean(ratios[j]):.3f}")
    else:
        print(f"ratio {j} n/a")
print(f"{passed} passed, {len(failed)} failed")
sys.exit(1 if failed else 0)
EOF
rc=$?
[ $rc -ne 0 ] && echo "bench: results in $out"
exit $rc
