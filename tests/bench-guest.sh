#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Guest side of `make bench` (run by scripts/vm.sh from scripts/bench.sh).
# For each round and each module in BENCH_MODULES (alternating order), load
# that ib_srpt, serve a null_blk LUN (not memory backed: measures the
# transport, not a RAM copy), log in, run the fio jobs, log out, unload.
# Writes one line per measurement to /out/bench.txt:
#   <module> <round> <job> <iops> <MB/s> <mean latency us> <cpu us per I/O>
# Environment: BENCH_MODULES ("ours distro" or "distro"), BENCH_ROUNDS (2),
# BENCH_RUNTIME (seconds per job, 10), BENCH_JOBS (subset of the job names).
. "$REPO/tests/lib.sh"

rounds=${BENCH_ROUNDS:-2}
runtime=${BENCH_RUNTIME:-10}
modules=${BENCH_MODULES:-distro}
jobs=${BENCH_JOBS:-"randread-4k-qd1 randwrite-4k-qd1 randread-4k-qd32 randwrite-4k-qd32 read-1m-qd8 write-1m-qd8"}
res=/out/bench.txt
: >"$res"

# job name -> fio arguments
job_args() {
	case "$1" in
	randread-4k-qd1) echo "--rw=randread --bs=4k --iodepth=1" ;;
	randwrite-4k-qd1) echo "--rw=randwrite --bs=4k --iodepth=1" ;;
	randread-4k-qd32) echo "--rw=randread --bs=4k --iodepth=32" ;;
	randwrite-4k-qd32) echo "--rw=randwrite --bs=4k --iodepth=32" ;;
	read-1m-qd8) echo "--rw=read --bs=1M --iodepth=8" ;;
	write-1m-qd8) echo "--rw=write --bs=1M --iodepth=8" ;;
	*) return 1 ;;
	esac
}

# Busy jiffies (all CPUs) from /proc/stat.
busy_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat; }
hz=$(getconf CLK_TCK)

rxe_setup || exit 1

# serve_and_login MODULE: writes the initiator disk to /tmp/bench-disk.
serve_and_login() {
	MODULE=$1
	srpt_load || return 1
	modprobe null_blk nr_devices=0 || return 1
	local d=/sys/kernel/config/nullb/bench bs
	mkdir "$d" && echo 1024 >"$d/size" && echo 512 >"$d/blocksize" &&
		echo 1 >"$d/power" || return 1
	local dev=/dev/bench
	[ -b "$dev" ] || dev=/dev/nullb$(cat "$d/index")
	bs=$(lio_iblock bench "$dev") || return 1
	srpt_target_create && srpt_lun 0 "$bs" && srpt_acl_add && srpt_enable &&
		srp_login && srp_disk 0 >/tmp/bench-disk
}

cleanup() {
	srp_logout >/dev/null 2>&1
	modprobe -r ib_srp 2>/dev/null
	srpt_teardown
	srpt_unload
	modprobe -r null_blk 2>/dev/null
	! grep -qw '^ib_srpt' /proc/modules
}

# A module that hangs (I/O that never completes, a logout that never ends)
# is dropped from the remaining rounds; if it cannot even be unloaded, no
# other module can be loaded and the bench stops there.
rc=0
dropped=
stuck=
for ((r = 1; r <= rounds; r++)); do
	order=$modules
	# Alternate which module goes first from one round to the next.
	[ $((r % 2)) = 0 ] && order=$(echo "$modules" | tr ' ' '\n' | tac | tr '\n' ' ')
	for m in $order; do
		[[ " $dropped " == *" $m "* ]] && continue
		if [ -n "$stuck" ]; then
			echo "$m $r skipped 0 0 0 0" >>"$res"
			continue
		fi
		echo "## bench round $r: $m"
		rm -f /tmp/bench-disk
		if ! run_deadline 120 serve_and_login "$m" >/tmp/bench-setup.log 2>&1; then
			echo "## bench: $m could not serve/login in round $r: $(grep FAIL /tmp/bench-setup.log | tail -n 1)"
			echo "$m $r setup-failed 0 0 0 0" >>"$res"
			dropped+=" $m"
			run_deadline 120 cleanup >/dev/null 2>&1 || stuck=$m
			continue
		fi
		disk=$(cat /tmp/bench-disk)
		for j in $jobs; do
			args=$(job_args "$j") || { echo "## bench: unknown job $j"; continue; }
			t0=$(busy_ticks)
			# shellcheck disable=SC2086
			run_deadline $((runtime + 60)) fio --name="$j" --filename="$disk" \
				--direct=1 --ioengine=libaio \
				$args --time_based --runtime="$runtime" --ramp_time=2 \
				--randrepeat=0 --norandommap --output-format=json \
				>/tmp/fio.json 2>/tmp/fio.err
			frc=$?
			t1=$(busy_ticks)
			if [ $frc -ne 0 ]; then
				echo "## bench: fio $j failed on $m (status $frc$([ $frc = 124 ] && echo ', hung')): $(tail -n 2 /tmp/fio.err)"
				echo "$m $r $j 0 0 0 0" >>"$res"
				if [ $frc = 124 ]; then
					dropped+=" $m"
					break
				fi
				continue
			fi
			# Busy CPU time is measured over ramp + runtime; I/Os only over
			# runtime: scale the ticks by runtime / (runtime + ramp).
			python3 - "$m" "$r" "$j" "$((t1 - t0))" "$hz" "$runtime" >>"$res" <<'EOF'
import json, sys
m, r, j, ticks, hz, rt = sys.argv[1:]
d = json.load(open("/tmp/fio.json"))["jobs"][0]
ios = iops = bw = lat = 0.0
for k in ("read", "write"):
    s = d[k]
    ios += s["total_ios"]
    iops += s["iops"]
    bw += s["bw_bytes"]
    if s["total_ios"]:
        lat = max(lat, s["lat_ns"]["mean"] / 1000.0)
busy_us = int(ticks) / int(hz) * 1e6 * int(rt) / (int(rt) + 2)
cpu = busy_us / ios if ios else 0
print(f"{m} {r} {j} {iops:.1f} {bw / 1e6:.2f} {lat:.1f} {cpu:.1f}")
EOF
			tail -n 1 "$res" | sed 's/^/## bench: /'
		done
		if ! run_deadline 120 cleanup >/tmp/bench-cleanup.log 2>&1; then
			echo "## bench: $m could not be logged out/unloaded in round $r"
			dropped+=" $m"
			stuck=$m
		fi
	done
done
[ -n "$stuck" ] && echo "## bench: ib_srpt ($stuck) stuck in the kernel: later measurements skipped"
exit $rc
