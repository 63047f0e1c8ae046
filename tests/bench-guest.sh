#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Guest side of `make bench` (run by scripts/vm.sh from scripts/bench.sh).
#
# Main part (BENCH_MAIN, default 1): for each round and each setup in
# BENCH_MODULES (order reversed in even rounds), serve one null_blk device
# (not memory backed: measures the transport, not a RAM copy) and run the
# fio jobs on the initiator's disk:
#   ours, distro  ib_srpt (our build / the kernel's) + LIO iblock + ib_srp
#   nvmet         the kernel's nvmet-rdma target + nvme-rdma host (nvme-cli)
#   bare          fio on the null_blk device itself (the ceiling)
# then, once per round, perftest loopback over the same rxe device
# (ib_write_bw/ib_read_bw 1 MiB, ib_send_lat 64 B, RDMA/CM mode).
# Writes one line per measurement to /out/bench.txt:
#   <setup> <round> <job> <iops> <MB/s> <mean latency us> <cpu us per I/O>
#   wire <round> <ib_write_bw|ib_read_bw|ib_send_lat> 0 <MB/s> <lat us> 0
#
# BENCH_SCALE=1: aggregate 4k random read IOPS and memory with 1, 4 and 16
# channels and 1 and 8 LUNs, ours and distro, to /out/scale.txt:
#   <module> <channels> <luns> <iops> <memfree KiB> <slab KiB> <cmd slots>
# BENCH_PROFILE=1: per-I/O counts (work items, context switches,
# allocations, lock contention, post/poll calls) and a perf profile for
# ours and distro, to /out/profile.txt and /out/perf-<module>-<job>.txt.
#
# BENCH_INSN=1: guest instructions per I/O (see insn_rounds), first.
#
# Environment: BENCH_MODULES ("distro ours nvmet bare"), BENCH_ROUNDS (3),
# BENCH_RUNTIME (seconds per job, 10), BENCH_JOBS (subset of the job names).
. "$REPO/tests/lib.sh"

rounds=${BENCH_ROUNDS:-3}
runtime=${BENCH_RUNTIME:-10}
modules=${BENCH_MODULES:-distro}
jobs=${BENCH_JOBS:-"randread-4k-qd1 randwrite-4k-qd1 randread-4k-qd32 randwrite-4k-qd32 read-1m-qd8 write-1m-qd8"}
res=/out/bench.txt
: >"$res"
NVME_NQN=nqn.2026-12.org.ib-srpt:bench
NVME_PORT=4420
WIRE_ADDR=10.99.0.1	# IPv4 address of v0 for perftest's RDMA/CM

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
/usr/sbin/ip addr add "$WIRE_ADDR/24" dev v0 2>/dev/null

# null_dev NAME: power on a 1 GiB null_blk device; prints its path.
null_dev() {
	local d=/sys/kernel/config/nullb/$1 dev
	[ -d /sys/kernel/config/nullb ] || modprobe null_blk nr_devices=0 || return 1
	mkdir "$d" && echo 1024 >"$d/size" && echo 512 >"$d/blocksize" &&
		echo 1 >"$d/power" || return 1
	dev=/dev/$1
	[ -b "$dev" ] || dev=/dev/nullb$(cat "$d/index")
	wait_for 5 test -b "$dev" && echo "$dev"
}

# ---- nvmet-rdma target + nvme-rdma host ----
NVMET=/sys/kernel/config/nvmet

nvmet_serve_and_login() {
	local dev s p i u
	modprobe -a nvmet nvmet-rdma nvme-rdma || return 1
	dev=$(null_dev bench) || return 1
	s=$NVMET/subsystems/$NVME_NQN
	mkdir "$s" && echo 1 >"$s/attr_allow_any_host" || return 1
	mkdir "$s/namespaces/1" && echo "$dev" >"$s/namespaces/1/device_path" &&
		echo 1 >"$s/namespaces/1/enable" || return 1
	p=$NVMET/ports/1
	mkdir "$p" || return 1
	echo rdma >"$p/addr_trtype"
	echo ipv6 >"$p/addr_adrfam"
	echo "$TARGET_ADDR" >"$p/addr_traddr"
	echo "$NVME_PORT" >"$p/addr_trsvcid"
	ln -s "$s" "$p/subsystems/$NVME_NQN" || return 1
	u=$(cat /proc/sys/kernel/random/uuid)
	nvme connect -t rdma -a "$TARGET_ADDR" -s "$NVME_PORT" -n "$NVME_NQN" \
		--hostnqn="nqn.2014-08.org.nvmexpress:uuid:$u" --hostid="$u" >&2 ||
		return 1
	# The guest has no other NVMe device: the first namespace is ours
	# (nvmeXnY; the multipath's hidden per-path nvmeXcZnY have no node).
	for ((i = 0; i < 150; i++)); do
		for s in /sys/block/nvme*n*; do
			case "$(basename "$s")" in *c*n*) continue ;; esac
			[ -b "/dev/$(basename "$s")" ] && { echo "/dev/$(basename "$s")"; return 0; }
		done
		sleep 0.2
	done
	return 1
}

nvmet_cleanup() {
	local s=$NVMET/subsystems/$NVME_NQN p=$NVMET/ports/1
	nvme disconnect -n "$NVME_NQN" >/dev/null 2>&1
	rm -f "$p/subsystems/$NVME_NQN" 2>/dev/null
	rmdir "$p" 2>/dev/null
	[ -d "$s/namespaces/1" ] && { echo 0 >"$s/namespaces/1/enable"; rmdir "$s/namespaces/1"; }
	rmdir "$s" 2>/dev/null
	modprobe -r nvme_rdma nvmet_rdma nvmet 2>/dev/null
	srpt_teardown
	modprobe -r null_blk 2>/dev/null
	! [ -d "$s" ]
}

# ---- ib_srpt + ib_srp ----
srpt_serve_and_login() {
	local dev bs
	MODULE=$1
	srpt_load || return 1
	dev=$(null_dev bench) || return 1
	bs=$(lio_iblock bench "$dev") || return 1
	srpt_serve "$bs" && srp_login && srp_disk 0
}

srpt_cleanup() {
	srp_logout >/dev/null 2>&1
	modprobe -r ib_srp 2>/dev/null
	srpt_teardown
	srpt_unload
	modprobe -r null_blk 2>/dev/null
	! grep -qw '^ib_srpt' /proc/modules
}

# serve_and_login SETUP: prints the disk fio runs on.
serve_and_login() {
	case "$1" in
	ours|distro) srpt_serve_and_login "$1" ;;
	nvmet) nvmet_serve_and_login ;;
	bare) null_dev bench ;;
	esac
}

cleanup() {
	case "$1" in
	ours|distro) srpt_cleanup ;;
	nvmet) nvmet_cleanup ;;
	bare) srpt_teardown; modprobe -r null_blk 2>/dev/null; true ;;
	esac
}

# fio_job SETUP ROUND JOB DISK [extra fio args]: one measurement line.
fio_job() {
	local m=$1 r=$2 j=$3 disk=$4 args t0 t1 frc
	shift 4
	args=$(job_args "$j") || { echo "## bench: unknown job $j"; return 2; }
	t0=$(busy_ticks)
	# shellcheck disable=SC2086
	run_deadline $((runtime + 60)) fio --name="$j" --filename="$disk" \
		--direct=1 --ioengine=libaio \
		$args --time_based --runtime="$runtime" --ramp_time=2 \
		--randrepeat=0 --norandommap --output-format=json "$@" \
		>/tmp/fio.json 2>/tmp/fio.err
	frc=$?
	t1=$(busy_ticks)
	if [ $frc -ne 0 ]; then
		echo "## bench: fio $j failed on $m (status $frc$([ $frc = 124 ] && echo ', hung')): $(tail -n 2 /tmp/fio.err)"
		echo "$m $r $j 0 0 0 0" >>"$res"
		return $frc
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
}

# ---- perftest over the same rxe device (server and client in this guest) ----
# wire_test ROUND TOOL ARGS...: run the server, then the client, and record
# the client's average bandwidth (MB/s, perftest's MB = 2^20 bytes) or
# average latency (us).
wire_test() {
	local r=$1 tool=$2 spid out i
	shift 2
	# -F: no CPU frequency check (meaningless in a TCG guest).
	"$tool" -d "$RXE" -R -F "$@" >/tmp/wire-srv.log 2>&1 &
	spid=$!
	sleep 2
	run_deadline 120 "$tool" -d "$RXE" -R -F "$@" "$WIRE_ADDR" >/tmp/wire.log 2>&1
	for ((i = 0; i < 50; i++)); do
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.2
	done
	kill -KILL "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	cat /tmp/wire.log >>/out/wire.log
	out=$(python3 - "$tool" /tmp/wire.log <<'EOF'
import sys
tool, path = sys.argv[1:]
hdr = None
for ln in open(path):
    f = ln.split()
    if f and f[0] == "#bytes":
        hdr = f
        continue
    if hdr and f and f[0].isdigit():
        if tool.endswith("_lat"):
            # t_avg[usec] (one-way: half a round trip)
            print(f"0 {float(f[5]):.2f}")
        else:
            # BW average[MB/sec]
            print(f"{float(f[3]) * 1048576 / 1e6:.2f} 0")
        break
EOF
)
	[ -n "$out" ] || { echo "## bench: $tool failed: $(tail -n 2 /tmp/wire.log)"; return 1; }
	echo "wire $r $tool 0 $out 0" >>"$res"
	tail -n 1 "$res" | sed 's/^/## bench: /'
}

# ---------------------------------------------------------------- main
# A setup that hangs (I/O that never completes, a logout that never ends)
# is dropped from the remaining rounds; if ib_srpt cannot even be unloaded,
# no other module can be loaded and the ib_srpt rounds stop there.
# main_rounds FIRST LAST
dropped='' stuck=''
main_rounds() {
	local r m order disk frc j
	for ((r = $1; r <= $2; r++)); do
		order=$modules
		# Alternate the order from one round to the next.
		[ $((r % 2)) = 0 ] && order=$(echo "$modules" | tr ' ' '\n' | tac | tr '\n' ' ')
		for m in $order; do
			[[ " $dropped " == *" $m "* ]] && continue
			if [ -n "$stuck" ] && [ "$m" != bare ] && [ "$m" != nvmet ]; then
				echo "$m $r skipped 0 0 0 0" >>"$res"
				continue
			fi
			echo "## bench round $r: $m"
			# To a file: a command substitution would wait for a
			# setup step that hangs in the kernel.
			: >/tmp/bench-disk
			run_deadline 120 serve_and_login "$m" >/tmp/bench-disk 2>/tmp/bench-setup.log
			disk=$(tail -n 1 /tmp/bench-disk)
			if [ -z "$disk" ] || [ ! -b "$disk" ]; then
				echo "## bench: $m could not serve/login in round $r: $(grep -a FAIL /tmp/bench-setup.log | tail -n 1)"
				tail -n 5 /tmp/bench-setup.log | sed 's/^/## bench:   /'
				echo "$m $r setup-failed 0 0 0 0" >>"$res"
				dropped+=" $m"
				run_deadline 120 cleanup "$m" >/dev/null 2>&1 || stuck=$m
				continue
			fi
			for j in $jobs; do
				fio_job "$m" "$r" "$j" "$disk"
				frc=$?
				if [ $frc = 124 ]; then
					dropped+=" $m"
					break
				fi
			done
			if ! run_deadline 120 cleanup "$m" >/tmp/bench-cleanup.log 2>&1; then
				echo "## bench: $m could not be logged out/unloaded in round $r"
				dropped+=" $m"
				stuck=$m
			fi
		done
		if [ "${BENCH_WIRE:-1}" = 1 ]; then
			wire_test "$r" ib_write_bw -s 1048576 -n 200
			wire_test "$r" ib_read_bw -s 1048576 -n 200
			wire_test "$r" ib_send_lat -s 64 -n 2000
		fi
	done
	[ -n "$stuck" ] && echo "## bench: ib_srpt ($stuck) stuck in the kernel: later measurements skipped"
	return 0
}

# ---------------------------------------------------------------- scaling
# slab_kib: KiB held by all slab caches (active objects x object size).
slab_kib() { awk 'NR > 2 { s += $2 * $4 } END { printf "%d", s / 1024 }' /proc/slabinfo; }
memfree_kib() { awk '/^MemFree:/ { print $2 }' /proc/meminfo; }

# scale_one MODULE CHANNELS LUNS: logins of two channels each (ib_srp caps
# ch_count at the number of CPUs), each login with its own initiator_ext
# (and ACL); 4k random reads at a total QD of 32 over every disk.
scale_one() {
	local m=$1 nch=$2 nlun=$3 per logins l i dev bs g ext disks mf0 sl0 mf1 sl1 iops
	MODULE=$m
	per=$((nch < 2 ? 1 : 2))
	logins=$((nch / per))
	srpt_load || return 1
	srpt_target_create || return 1
	for ((l = 0; l < nlun; l++)); do
		dev=$(null_dev "sc$l") || return 1
		bs=$(lio_iblock "sc$l" "$dev") || return 1
		srpt_lun "$l" "$bs" || return 1
	done
	for ((i = 1; i <= logins; i++)); do
		srpt_acl_add "0x$(printf '%016x' "$i")$(node_guid_hex)" || return 1
	done
	srpt_enable || return 1
	srp_initiator_load || return 1
	sync; echo 3 >/proc/sys/vm/drop_caches
	sleep 1
	mf0=$(memfree_kib) sl0=$(slab_kib)
	g=$(target_guid)
	for ((i = 1; i <= logins; i++)); do
		ext=$(printf '%016x' "$i")
		echo "id_ext=$g,ioc_guid=$g,initiator_ext=$ext,dest=[$TARGET_ADDR]:$RDMA_CM_PORT,ch_count=$per" \
			>"$(srp_dev_dir)/add_target" || { die "login $i"; return 1; }
	done
	for ((l = 0; l < nlun; l++)); do srp_disk "$l" 60 >/dev/null || return 1; done
	wait_for 60 eval '[ "$(srp_disks | wc -l)" -ge $((logins * nlun)) ]' || return 1
	sleep 2
	mf1=$(memfree_kib) sl1=$(slab_kib)
	disks=$(srp_disks | tr '\n' ':')
	disks=${disks%:}
	run_deadline $((runtime + 90)) fio --name=scale --filename="$disks" \
		--file_service_type=roundrobin --direct=1 --ioengine=libaio \
		--rw=randread --bs=4k --iodepth=16 --numjobs=2 --group_reporting \
		--time_based --runtime="$runtime" --ramp_time=2 --randrepeat=0 \
		--norandommap --output-format=json >/tmp/fio.json 2>/tmp/fio.err ||
		{ die "scale fio: $(tail -n 2 /tmp/fio.err)"; return 1; }
	# No backslash inside an f-string: the guest's Python 3.11 rejects it.
	iops=$(python3 -c 'import json; d = json.load(open("/tmp/fio.json"))["jobs"][0]; print("%.0f" % d["read"]["iops"])') ||
		{ die "scale: no IOPS in fio's output"; return 1; }
	echo "$m $nch $nlun $iops $((mf0 - mf1)) $((sl1 - sl0)) $(scale_slots)" >>/out/scale.txt
	tail -n 1 /out/scale.txt | sed 's/^/## scale: /'
}

# Command slots the target granted: per login, its request limit (the
# smallest over its channels) times its channels.
scale_slots() {
	local h n=0 d
	for h in $(srp_hosts); do
		d=/sys/class/scsi_host/host$h
		n=$((n + $(cat "$d/req_lim") * $(cat "$d/ch_count")))
	done
	echo "$n"
}

scale_rounds() {
	local m c
	: >/out/scale.txt
	for m in ${BENCH_SCALE_MODULES:-ours distro}; do
		for c in "1 1" "4 1" "16 1" "1 8" "16 8"; do
			echo "## scale: $m channels/luns $c"
			# shellcheck disable=SC2086
			run_deadline 240 scale_one "$m" $c >/tmp/scale.log 2>&1 ||
				{ echo "## scale: $m $c failed: $(grep -a FAIL /tmp/scale.log | tail -n 1)"
				  echo "$m $c 0 0 0 0" >>/out/scale.txt; }
			run_deadline 180 srpt_cleanup >/dev/null 2>&1 ||
				{ echo "## scale: $m stuck"; return 1; }
		done
	done
}

# ---------------------------------------------------------------- profile
# Counters per I/O on the whole guest (initiator + target: the initiator is
# the same for both modules, so differences are the target's).
PERF=$(ls /usr/bin/perf_* 2>/dev/null | sort -V | tail -n 1)
[ -x "$PERF" ] || PERF=perf
TR=/sys/kernel/tracing
KPROBES="rxe_post_send rxe_post_recv rxe_post_srq_recv rxe_req_notify_cq rxe_poll_cq queue_work_on target_submit transport_generic_free_cmd __ib_process_cq"

kprobes_on() {
	local f
	[ -d "$TR/events" ] || mount -t tracefs nodev "$TR" 2>/dev/null
	echo >"$TR/kprobe_events"
	for f in $KPROBES; do
		echo "p:kp_$f $f" >>"$TR/kprobe_events" 2>/dev/null
	done
	echo 1 >"$TR/events/kprobes/enable" 2>/dev/null
	echo 0 >"$TR/tracing_on"	# counted in kprobe_profile, not traced
}

PERF_EVENTS=cpu-clock,context-switches,cpu-migrations,sched:sched_switch,sched:sched_wakeup
PERF_EVENTS+=,workqueue:workqueue_queue_work,workqueue:workqueue_execute_start
PERF_EVENTS+=,kmem:kmalloc,kmem:kmem_cache_alloc,kmem:mm_page_alloc
PERF_EVENTS+=,lock:contention_begin,irq:softirq_entry,irq:irq_handler_entry

# Keep only the events this kernel has (perf stat refuses the whole list).
perf_events_check() {
	local e ok=
	for e in ${PERF_EVENTS//,/ }; do
		"$PERF" stat -a -e "$e" -- true >/dev/null 2>&1 && ok+=${ok:+,}$e
	done
	PERF_EVENTS=$ok
	echo "## profile: perf $PERF events $PERF_EVENTS"
}

kprobe_hits() { awk '{ print $1, $2 }' "$TR/kprobe_profile" 2>/dev/null | sed 's/^kp_//'; }

# perf report --sort sym lines on stdin; prints "<label> <module> <percent>"
# per kernel module (from /proc/kallsyms), idle and user space.
perf_by_module() {
	awk -v label="$1" 'NR == FNR { if ($4 ~ /^\[/) mod[$3] = $4; next }
		$2 == "[k]" || $2 == "[.]" {
			p = $1; sub("%", "", p)
			if ($2 == "[.]") m = "user"
			else if ($3 ~ /halt|idle|mwait/) m = "idle"
			else m = ($3 in mod) ? mod[$3] : "[vmlinux]"
			sum[m] += p
		}
		$2 == "[k]" && mod[$3] ~ /srpt|target_core/ {
			printf "%s %s:%s %s\n", label, mod[$3], $3, p
		}
		END { for (m in sum) printf "%s %s %.2f\n", label, m, sum[m] }' \
		/proc/kallsyms - | sort -k4 -rn
}

# perf script call chains on stdin; prints "<label> incl:<module> <percent>":
# the share of samples with a frame of that module anywhere on the stack
# (the module and all it calls: an upper bound on what it could save).
perf_inclusive() {
	awk -v label="$1" 'NR == FNR { if ($4 ~ /^\[/) mod[$3] = $4; next }
		/^[^ \t]/ { n++; delete seen; next }
		/^[ \t]+[0-9a-f]+ / {
			f = $2; sub(/\+0x.*/, "", f)
			m = mod[f]
			if (m ~ /srpt|target_core|rdma_rxe|ib_srp\]/ && !(m in seen)) {
				seen[m] = 1; incl[m]++
			}
		}
		END { for (m in incl) printf "%s incl:%s %.2f\n", label, m, 100 * incl[m] / n }' \
		/proc/kallsyms - | sort -k4 -rn
}

# Work items run per I/O, by function: which hops each layer adds.
wq_functions() {
	local m=$1 j=$2 disk=$3 args=$4 ios
	# shellcheck disable=SC2086
	"$PERF" record -a -e workqueue:workqueue_execute_start -o /tmp/wq.data \
		-- fio --name="$j" --filename="$disk" --direct=1 --ioengine=libaio \
		$args --time_based --runtime="$runtime" --randrepeat=0 \
		--norandommap --output-format=json >/tmp/fio.json 2>/dev/null || return 0
	ios=$(python3 -c 'import json; d = json.load(open("/tmp/fio.json"))["jobs"][0]; print(d["read"]["total_ios"] + d["write"]["total_ios"])')
	"$PERF" script -i /tmp/wq.data -F trace 2>/dev/null |
		grep -o 'function [^ ]*' | sort | uniq -c |
		awk -v n="$ios" -v label="$m $j" '{
			printf "%s %s %.3f\n", label, $3, $1 / n }' |
		sort -k4 -rn >>/out/profile-work.txt
	rm -f /tmp/wq.data
}

profile_one() {
	local m=$1 j=$2 disk=$3 args h0 ios
	args=$(job_args "$j")
	h0=$(kprobe_hits)
	# shellcheck disable=SC2086
	"$PERF" stat -a -x, -o /tmp/perf-stat.txt -e "$PERF_EVENTS" \
		-- fio --name="$j" --filename="$disk" --direct=1 --ioengine=libaio $args \
		--time_based --runtime="$runtime" --randrepeat=0 --norandommap \
		--output-format=json >/tmp/fio.json 2>/tmp/fio.err || return 1
	ios=$(python3 -c 'import json; d = json.load(open("/tmp/fio.json"))["jobs"][0]; print(d["read"]["total_ios"] + d["write"]["total_ios"])')
	{
		echo "# $m $j ios $ios"
		awk -F, -v n="$ios" '$1 ~ /^[0-9.]+$/ { printf "%s %s %.3f\n", "'"$m $j"'", $3, $1 / n }' /tmp/perf-stat.txt
		# Temporary files: the guest has no /dev/fd for <(...).
		echo "$h0" | sort >/tmp/kp0.txt
		kprobe_hits | sort >/tmp/kp1.txt
		join /tmp/kp0.txt /tmp/kp1.txt |
			awk -v n="$ios" '{ printf "%s %s %.3f\n", "'"$m $j"'", $1, ($3 - $2) / n }'
	} >>/out/profile.txt
	"$PERF" record -F 999 -a -g -o /tmp/perf.data -- fio --name="$j" --filename="$disk" \
		--direct=1 --ioengine=libaio $args --time_based --runtime="$runtime" \
		--randrepeat=0 --norandommap >/dev/null 2>&1 &&
		"$PERF" report -i /tmp/perf.data --stdio --no-children --sort sym \
			--percent-limit 0.7 -g none 2>/dev/null | grep -v '^$' | head -n 60 \
			>"/out/perf-$m-$j.txt"
	# Which module the time is in (perf puts modules into vmlinux): the
	# share a target can win back at most.
	"$PERF" report -i /tmp/perf.data --stdio --no-children --sort sym \
		--percent-limit 0 -g none 2>/dev/null | perf_by_module "$m $j" \
		>>/out/profile-modules.txt
	"$PERF" script -i /tmp/perf.data 2>/dev/null | perf_inclusive "$m $j" \
		>>/out/profile-modules.txt
	rm -f /tmp/perf.data
	wq_functions "$m" "$j" "$disk" "$args"
}

profile_rounds() {
	local m j disk
	: >/out/profile.txt
	: >/out/profile-modules.txt
	: >/out/profile-work.txt
	srpt_deps
	kprobes_on
	perf_events_check
	grep -h . "$TR/kprobe_events" | sed 's/^/## profile: kprobe /' 
	for m in ${BENCH_PROFILE_MODULES:-ours distro}; do
		: >/tmp/bench-disk
		run_deadline 120 serve_and_login "$m" >/tmp/bench-disk 2>/tmp/bench-setup.log
		disk=$(tail -n 1 /tmp/bench-disk)
		[ -b "$disk" ] || { echo "## profile: $m setup failed"; cleanup "$m"; continue; }
		for j in ${BENCH_PROFILE_JOBS:-randread-4k-qd32 randwrite-4k-qd32 randread-4k-qd1 randwrite-4k-qd1}; do
			run_deadline $((4 * runtime + 240)) profile_one "$m" "$j" "$disk" ||
				echo "## profile: $m $j failed: $(tail -n 2 /tmp/fio.err)"
		done
		run_deadline 120 cleanup "$m" >/dev/null 2>&1 || { echo "## profile: $m stuck"; break; }
	done
	sed 's/^/## profile: /' /out/profile.txt
	sed 's/^/## profile-modules: /' /out/profile-modules.txt
	sed 's/^/## profile-work: /' /out/profile-work.txt
}

# ---------------------------------------------------- instruction counts
# BENCH_INSN=1 (QEMU runs tests/bench/insn_plugin.c): for each setup but
# bare, INSN_ROUNDS times, each job as a fixed number of I/Os between two
# runs of the marker program ($INSN_MARK). The plugin numbers the marks in
# the order they run, as insn_n does here. /out/insn.txt gets one line per
# job: <setup> <round> <job> <end mark> <I/Os>; /out/insn-kallsyms-<setup>-
# <round>.txt the text symbols while that setup was loaded.
insn_n=0
insn_mark() { "$INSN_MARK" && insn_n=$((insn_n + 1)); }

insn_job() { # setup round job disk
	local m=$1 r=$2 j=$3 disk=$4 args n ios
	args=$(job_args "$j") || return 2
	case "$j" in *-1m-*) n=${INSN_IOS_1M:-300} ;; *) n=${INSN_IOS_4K:-3000} ;; esac
	insn_mark || return 1
	# shellcheck disable=SC2086
	run_deadline 300 fio --name="$j" --filename="$disk" --direct=1 \
		--ioengine=libaio $args --number_ios="$n" --size=1G \
		--randrepeat=1 --randseed=4242 --norandommap --iomem=shmhuge \
		--output-format=json >/tmp/fio.json 2>/tmp/fio.err
	local frc=$?
	insn_mark || return 1
	[ $frc = 0 ] || { echo "## insn: fio $j on $m failed: $(tail -n 1 /tmp/fio.err)"; return $frc; }
	ios=$(python3 -c 'import json; d = json.load(open("/tmp/fio.json"))["jobs"][0]; print(d["read"]["total_ios"] + d["write"]["total_ios"])')
	echo "$m $r $j $insn_n $ios" >>/out/insn.txt
	echo "## insn: $m round $r $j: $ios I/Os, mark $insn_n"
}

insn_rounds() {
	local r m j disk
	: >/out/insn.txt
	# fio's buffers in huge pages: from scattered 4 KiB pages a 1 MiB
	# I/O is split into as many commands as the page layout dictates.
	echo 64 >/proc/sys/vm/nr_hugepages
	[ "$(cat /proc/sys/vm/nr_hugepages)" -ge 16 ] ||
		echo "## insn: only $(cat /proc/sys/vm/nr_hugepages) huge pages"
	for ((r = 1; r <= ${INSN_ROUNDS:-2}; r++)); do
		for m in $modules; do
			[ "$m" = bare ] && continue
			: >/tmp/bench-disk
			run_deadline 120 serve_and_login "$m" >/tmp/bench-disk 2>/tmp/bench-setup.log
			disk=$(tail -n 1 /tmp/bench-disk)
			if [ ! -b "$disk" ]; then
				echo "## insn: $m setup failed"
				run_deadline 120 cleanup "$m" >/dev/null 2>&1
				continue
			fi
			grep -E '^[0-9a-f]+ [tT] ' /proc/kallsyms >"/out/insn-kallsyms-$m-$r.txt"
			# No merging: a sequential 1M job would otherwise become
			# as many commands as the timing of its merges allows.
			echo 2 >"/sys/block/$(basename "$(readlink -f "$disk")")/queue/nomerges" ||
				echo "## insn: cannot turn off merges on $disk"
			for j in $jobs; do
				insn_job "$m" "$r" "$j" "$disk" || break
			done
			run_deadline 120 cleanup "$m" >/dev/null 2>&1 || { echo "## insn: $m stuck"; return 1; }
		done
	done
}

# Round 1, then the profile and the scaling table, then the other rounds:
# a run cut short still has something of every part.
[ "${BENCH_INSN:-0}" = 1 ] && insn_rounds
[ "${BENCH_MAIN:-1}" = 1 ] && main_rounds 1 1
[ "${BENCH_PROFILE:-0}" = 1 ] && profile_rounds
[ "${BENCH_SCALE:-0}" = 1 ] && scale_rounds
[ "${BENCH_MAIN:-1}" = 1 ] && main_rounds 2 "$rounds"
dmesg >/out/guest-dmesg.txt
exit 0
