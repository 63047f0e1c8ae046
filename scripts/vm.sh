#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Boot a Debian kernel under QEMU (TCG) with the host's root file system as a
# read-only 9p lower layer under a tmpfs overlay, run one guest script in it,
# and bring its results back through a second, writable 9p export.
#
#   scripts/vm.sh --kver 6.12|6.1|<full uname -r> --module ours|distro \
#                 --run <guest script> --out <host dir> [--timeout SECONDS] \
#                 [--ko <path to ib_srpt.ko>] [--mem MiB] [--smp N] \
#                 [--env NAME=VALUE]... [--quiet]
#
# In the guest the script runs as root under /bin/bash with the environment
# from <out>/vm.env (REPO, KVER, MODULE, KO, OUT=/out, TRANSPORT and SIW_KO,
# and every --env); it can
# `. "$REPO/tests/lib.sh"` for the soft-RoCE / LIO / ib_srp helpers. Anything
# it writes below /out appears in <out> on the host. Afterwards <out> holds:
#   console.log  the serial console      guest.log  the script's output
#   dmesg.txt    the guest's full dmesg  rc         the script's exit status
#   splat.txt    oops/WARNING/BUG/hung-task/lockdep lines, if any
# TRANSPORT=rxe|siw (environment or --env) picks soft-RoCE (default) or
# soft-iWARP in the guest; siw.ko, missing from Debian's kernels, is built
# first (scripts/siw.sh) and passed as SIW_KO.
# VM_SMP=N: vCPUs when --smp is not given (2).
# VM_PLUGIN=<file.so>,<args> loads a QEMU TCG plugin (make bench).
# VM_TCG_THREAD=single runs both vCPUs on one host thread (about 20% slower
# than the default, multi): to tell a stale-translation fault of
# multi-threaded TCG from a real one.
# Debugging: VM_APPEND adds kernel parameters; VM_MONITOR=<socket path>
# opens a QEMU monitor there (e.g. `info registers -a` of a stuck guest).
# Exit status: the script's, or non-zero when the guest crashed, timed out
# (killed after --timeout seconds, default 900) or printed a kernel splat.
# The watchdog kills a guest sooner: no "## guest: up" within
# VM_BOOT_DEADLINE seconds (150; debug kernel 300), or dead before that
# line (a panic while the kernel boots), then booted again up to
# VM_BOOT_TRIES times in all (3); or, once up, neither its heartbeat nor its
# console moved for VM_SILENCE seconds (240; debug 360). Stopping vm.sh
# stops its QEMU.
# QEMU runs under the shared lock HEAVY_LOCK (default
# /var/cache/ib_srpt/heavy.lock); the timeout counts from when it is taken.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
. "$REPO/scripts/lib.sh"
CACHE=${CACHE:-/var/cache/ib_srpt}
LOCK=$(heavy_lock)

kver=${KVER:-6.12} module=${MODULE:-ours} run= out= timeout=900 ko= mem=3072 smp=${VM_SMP:-2}
quiet=0
envs=()
usage() { sed -n '/^#   scripts/,/^# In the guest/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
	case "$1" in
	--kver) kver=$2; shift 2 ;;
	--module) module=$2; shift 2 ;;
	--run) run=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--ko) ko=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--smp) smp=$2; shift 2 ;;
	--env)
		envs+=("$2")
		case $2 in TRANSPORT=*) TRANSPORT=${2#TRANSPORT=} ;; esac
		shift 2
		;;
	--quiet) quiet=1; shift ;;
	-h|--help) usage ;;
	*) echo "vm: unknown argument '$1'" >&2; usage ;;
	esac
done
[ -n "$run" ] && [ -n "$out" ] || usage
case "$module" in ours|distro|none) ;; *) echo "vm: --module ours|distro|none" >&2; exit 2 ;; esac


# Resolve "6.12" / "6.1" to the newest installed matching release.
resolve_kver() {
	local k=$1 d
	if [ -d "/lib/modules/$k/kernel" ]; then echo "$k"; return; fi
	d=$(ls -d /lib/modules/"$k".*-amd64 /lib/modules/"$k"-*-amd64 2>/dev/null |
		grep -E "/$k([.-][0-9]+)*[-+]" | sort -V | tail -n 1 || true)
	[ -n "$d" ] || { say "no installed kernel for '$k' under /lib/modules"; exit 2; }
	basename "$d"
}
# KVER=debug: the KASAN/lockdep/kmemleak kernel of scripts/debug-kernel.sh,
# its modules shown to the guest at /lib/modules/<release> (guest-init.sh).
kmoddir=
if [ "$kver" = debug ]; then
	ddir=$(CACHE=$CACHE "$REPO/scripts/debug-kernel.sh") ||
		{ say "no debug kernel (scripts/debug-kernel.sh failed)"; exit 2; }
	rel=$(cat "$ddir/release")
	series=debug
	vmlinuz=$ddir/bzImage
	kmoddir=$ddir/mods/lib/modules/$rel
else
	rel=$(resolve_kver "$kver")
	series=$(echo "$rel" | grep -oE '^[0-9]+\.[0-9]+')
	vmlinuz=/boot/vmlinuz-$rel
fi
[ -r "$vmlinuz" ] || { say "missing $vmlinuz (run scripts/deps.sh vm)"; exit 2; }
[ -n "$ko" ] || ko=$CACHE/build-$series/ib_srpt.ko
run=$(realpath "$run")
[ -r "$run" ] || { say "no guest script $run"; exit 2; }
mkdir -p "$out"
out=$(realpath "$out")
# The guest has its own /tmp, /run and /dev: carry scripts from there along.
case "$run" in
/tmp/*|/run/*|/dev/*) cp "$run" "$out/run-script.sh"; run=/out/run-script.sh ;;
esac
rm -f "$out/rc" "$out/splat.txt" "$out/console.log" "$out/guest.log" "$out/dmesg.txt"

# ---- initramfs: busybox + the modules needed to mount the 9p/overlay root ----
# (built into the debug kernel)
initrd_modules=(virtio_pci 9pnet_virtio 9p overlay)
[ -z "$kmoddir" ] || initrd_modules=()
build_initramfs() {
	local img=$1 tmp m f
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' RETURN
	mkdir -p "$tmp"/{bin,dev,proc,sys,mods,newroot,lower,rw}
	cp /bin/busybox "$tmp/bin/busybox"
	: >"$tmp/mods/order"
	[ ${#initrd_modules[@]} = 0 ] ||
	modprobe -S "$rel" --show-depends -a "${initrd_modules[@]}" |
		awk '$1 == "insmod" { print $2 }' | awk '!seen[$0]++' |
		while read -r f; do
			m=$(basename "$f"); m=${m%.xz}; m=${m%.zst}; m=${m%.gz}
			case "$f" in
			*.xz) xz -dc "$f" >"$tmp/mods/$m" ;;
			*.zst) zstd -qdc "$f" >"$tmp/mods/$m" ;;
			*.gz) gzip -dc "$f" >"$tmp/mods/$m" ;;
			*) cp "$f" "$tmp/mods/$m" ;;
			esac
			echo "$m" >>"$tmp/mods/order"
		done
	cat >"$tmp/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox mkdir -p /sbin /usr/bin /usr/sbin
/bin/busybox --install -s
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
fail() { echo "initramfs: $*"; echo o >/proc/sysrq-trigger; sleep 10; }
for m in $(cat /mods/order); do insmod /mods/$m || fail "insmod $m failed"; done
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose root /lower ||
	fail "cannot mount host root over 9p"
mount -t tmpfs -o mode=0755,size=75% rw /rw
mkdir -p /rw/upper /rw/work
mount -t overlay -o lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work overlay /newroot ||
	fail "cannot mount overlay root"
mkdir -p /newroot/out
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 out /newroot/out ||
	fail "cannot mount the results export"
[ -f /newroot/out/vm.env ] || fail "no /out/vm.env"
umount /proc /sys
umount /dev 2>/dev/null
exec switch_root /newroot /bin/bash "$ibsrpt_init"
EOF
	chmod +x "$tmp/init"
	(cd "$tmp" && find . | cpio -o -H newc --quiet | gzip -1) >"$img.$$.tmp"
	mv "$img.$$.tmp" "$img"
}
# Keyed by kernel release and by this script's content (the init lives here).
key=$(sha1sum "$0" | cut -c1-10)
initrd=$CACHE/initramfs/$rel-$key.cpio.gz
if [ ! -s "$initrd" ]; then
	mkdir -p "$CACHE/initramfs"
	say "building $initrd"
	build_initramfs "$initrd"
fi

# ---- soft-iWARP: build siw.ko when the guest kernel has none ----
TRANSPORT=${TRANSPORT:-rxe}
siw_ko=${SIW_KO:-}
if [ "$TRANSPORT" = siw ] && [ -z "$siw_ko" ] &&
	[ -z "$(find "/lib/modules/$rel/kernel" -name 'siw.ko*' 2>/dev/null)" ]; then
	siw_ko=$(CACHE=$CACHE "$REPO/scripts/siw.sh" "$rel") ||
		{ say "TRANSPORT=siw: cannot build siw.ko for $rel"; exit 2; }
fi

# ---- guest environment ----
{
	printf 'REPO=%q\nKVER=%q\nKREL=%q\nMODULE=%q\nKO=%q\nRUN=%q\nOUT=/out\n' \
		"$REPO" "$series" "$rel" "$module" "$ko" "$run"
	printf 'VM_TIMEOUT=%q\nTRANSPORT=%q\nSIW_KO=%q\n' "$timeout" "$TRANSPORT" "$siw_ko"
	printf 'KMODDIR=%q\n' "$kmoddir"
	for e in "${envs[@]}"; do
		printf '%s=%q\n' "${e%%=*}" "${e#*=}"
	done
} >"$out/vm.env"

append="console=ttyS0 panic=-1 loglevel=4 log_buf_len=8M"
append+=" ibsrpt_init=$REPO/tests/guest-init.sh"
append+=" hung_task_panic=0 nokaslr tsc=reliable mitigations=off"
# Debian's kernels have KFENCE and SLUB debugging compiled in but off:
# sample every 100 ms; sanity-check, red-zone and poison the caches this
# driver, the target core and the RDMA core allocate from (kmalloc, the
# target core's se_* and t10_*). Poisoning every cache (the file system's
# and the memory manager's too) made the guests about 35% slower.
# The debug kernel has its own settings (scripts/debug-kernel.config).
if [ -z "$kmoddir" ]; then
	append+=" kfence.sample_interval=100 slub_debug=FZP,kmalloc-*,se_*,t10_*"
else
	# acpi=noirq: PCI interrupts from the MP table (debug-kernel.config).
	append+=" kmemleak=on acpi=noirq"
fi
[ "$quiet" = 1 ] && append+=" quiet"
# Debugging aids: extra kernel parameters, a QEMU monitor socket.
append+=${VM_APPEND:+ $VM_APPEND}
monitor=none
[ -n "${VM_MONITOR:-}" ] && monitor="unix:$VM_MONITOR,server,nowait"

qemu=(qemu-system-x86_64 -accel "tcg${VM_TCG_THREAD:+,thread=$VM_TCG_THREAD}" -cpu max -m "$mem" -smp "$smp"
	-nodefaults -display none -no-reboot
	-monitor "$monitor"
	-serial stdio
	-kernel "$vmlinuz" -initrd "$initrd" -append "$append"
	-fsdev "local,path=/,readonly=on,security_model=none,multidevs=remap,id=r"
	-device virtio-9p-pci,fsdev=r,mount_tag=root
	-fsdev "local,path=$out,security_model=none,multidevs=remap,id=o"
	-device virtio-9p-pci,fsdev=o,mount_tag=out
	-device virtio-rng-pci)
# make bench: a TCG plugin (tests/bench/insn_plugin.c) with its arguments.
[ -n "${VM_PLUGIN:-}" ] && qemu+=(-plugin "$VM_PLUGIN")

mkdir -p "$(dirname "$LOCK")"
say "kernel $rel, module $module, script $run"
say "results in $out (timeout ${timeout}s after the heavy lock is taken)"
# While $CACHE/FREEZE exists the bench serves only runs started with
# IB_SRPT_FINAL=1 (the release check); everything else stops at once.
FREEZE=$CACHE/FREEZE
export FREEZE IB_SRPT_FINAL=${IB_SRPT_FINAL:-0}
if [ -e "$FREEZE" ] && [ "$IB_SRPT_FINAL" != 1 ]; then
	say "the bench is frozen for a final check ($FREEZE); not booting"
	exit 3
fi
# The watchdog: a guest that has not said "## guest: up" within the boot
# deadline, or whose heartbeat (tests/guest-init.sh touches /out/.heartbeat
# every 15 s) and console have both stood still for the silence limit, is
# dead, not slow: QEMU is killed and a hang costs minutes, not the budget.
# A boot that hung, or a guest that died before "## guest: up" (before any
# test or module of ours ran: under TCG a kernel's own early text patching
# can trap on a stale translation, "Oops: int3" at boot), is tried again
# (VM_BOOT_TRIES in all), its console kept; a guest that died after
# booting is the runner's to report.
boot_deadline=${VM_BOOT_DEADLINE:-$([ -n "$kmoddir" ] && echo 300 || echo 150)}
silence=${VM_SILENCE:-$([ -n "$kmoddir" ] && echo 360 || echo 240)}
tries=${VM_BOOT_TRIES:-3}
qpid=$out/.qemu.pid
kill_qemu() {
	local p
	p=$(cat "$qpid" 2>/dev/null) || return 0
	[ -n "$p" ] && kill -TERM "$p" 2>/dev/null && sleep 2 && kill -KILL "$p" 2>/dev/null
	return 0
}
# Stopping vm.sh (Ctrl-C, or a runner above it killed) stops its QEMU too:
# timeout puts QEMU in a process group of its own, out of the signal's reach.
trap 'say "stopped: killing QEMU"; kill_qemu; exit 130' INT TERM HUP
# Whoever started vm.sh (a runner, make): when it is gone (killed alone,
# e.g. pkill of e2e.sh), nobody waits for this guest any more.
vm_parent=$PPID
parent_gone() { [ "$vm_parent" != 1 ] && ! kill -0 "$vm_parent" 2>/dev/null; }
watchdog() { # start-time
	local t_up= now last
	while sleep 5; do
		now=$(date +%s)
		if parent_gone; then
			echo "orphaned: vm.sh's parent (pid $vm_parent) is gone" >"$out/.watchdog"
			kill_qemu
			return
		fi
		if [ -z "$t_up" ]; then
			if grep -aq '^## guest: up' "$out/console.log" 2>/dev/null; then
				t_up=$now
				continue
			fi
			if [ $((now - $1)) -ge "$boot_deadline" ]; then
				echo "boot: no '## guest: up' within ${boot_deadline}s; console ends: $(tail -c 120 "$out/console.log" 2>/dev/null | tr -d '\n')" >"$out/.watchdog"
				kill_qemu
				return
			fi
			continue
		fi
		last=$(stat -c %Y "$out/console.log" "$out/.heartbeat" 2>/dev/null | sort -n | tail -n 1)
		if [ $((now - ${last:-$t_up})) -ge "$silence" ] && [ $((now - t_up)) -ge "$silence" ]; then
			echo "silence: no heartbeat and no console output for ${silence}s" >"$out/.watchdog"
			kill_qemu
			return
		fi
	done
}

t0=$(date +%s)
try=0
while :; do
	try=$((try + 1))
	[ "$try" = 1 ] || t0=$(date +%s)
	rm -f "$out/.lock-taken" "$out/.watchdog" "$out/.heartbeat" "$qpid" "$out/console.log"
	set +e
	flock "$LOCK" bash -c 'date +%s >"$2/.lock-taken"
		if [ -e "$FREEZE" ] && [ "$IB_SRPT_FINAL" != 1 ]; then
			echo "vm: the bench is frozen for a final check; not booting" >&2
			exit 3
		fi
		echo "vm: lock taken after $(( $(date +%s) - $1 ))s, booting" >&2; shift 2
		exec timeout -k 10 "$@"' _ "$t0" "$out" "$timeout" "${qemu[@]}" -pidfile "$qpid" </dev/null 2>&1 |
		stdbuf -oL tr -d '\r' | tee "$out/console.log" |
		if [ "$quiet" = 1 ]; then
			grep --line-buffered -avE '^\[ *[0-9]+\.[0-9]+\] ' || true
		else cat; fi &
	ppid=$!
	# The watchdog starts when the lock is taken (the boot starts then).
	(
		while [ ! -s "$out/.lock-taken" ] && kill -0 "$ppid" 2>/dev/null; do sleep 1; done
		[ -s "$out/.lock-taken" ] && watchdog "$(cat "$out/.lock-taken")"
	) &
	wpid=$!
	# A plain wait returns on a trapped signal. With pipefail the
	# pipeline's status is QEMU's (timeout's): the rest exit 0.
	wait "$ppid"
	qrc=$?
	kill "$wpid" 2>/dev/null
	wait "$wpid" 2>/dev/null
	set -e
	why=
	if [ -s "$out/.watchdog" ]; then
		[[ "$(cat "$out/.watchdog")" == boot:* ]] && why="hung: $(cat "$out/.watchdog")"
	elif [ ! -s "$out/rc" ] && [ -s "$out/.lock-taken" ] &&
		! grep -aq '^## guest: up' "$out/console.log" 2>/dev/null; then
		why="died before it was up: $(grep -aEm1 "$SPLAT_RE" "$out/console.log" 2>/dev/null ||
			tail -c 120 "$out/console.log" 2>/dev/null | tr -d '\n')"
	fi
	if [ -n "$why" ] && [ "$try" -lt "$tries" ]; then
		say "boot $try of $tries $why"
		cp "$out/console.log" "$out/console-failed-boot$try.log" 2>/dev/null || true
		rm -f "$out/splat.txt"
		say "booting again"
		continue
	fi
	break
done
t1=$(cat "$out/.lock-taken" 2>/dev/null || echo "$t0")
secs="$(( $(date +%s) - t1 ))s (after $(( t1 - t0 ))s waiting for the lock)"

rc=0
if [ -s "$out/.watchdog" ]; then
	say "FAILED: guest killed by the watchdog: $(cat "$out/.watchdog")"
	rc=124
elif [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
	say "FAILED: guest stopped answering and was killed after the ${timeout}s timeout"
	rc=124
elif [ ! -s "$out/rc" ]; then
	say "FAILED: guest ended without reporting a result (crash or panic? qemu rc $qrc); see $out/console.log"
	rc=125
else
	rc=$(cat "$out/rc")
fi
# Kernel splats on the console count even if the guest could not save dmesg.
kpat="^\\[ *[0-9]+\\.[0-9]+\\].*$SPLAT_RE"
if grep -aEq "$kpat" "$out/console.log" "$out/dmesg.txt" 2>/dev/null; then
	{ grep -ahE "$kpat" "$out/console.log" "$out/dmesg.txt" 2>/dev/null || true; } |
		sort -u >>"$out/splat.txt"
fi
if [ -s "$out/splat.txt" ]; then
	say "FAILED: kernel splat in the guest:"
	head -n 20 "$out/splat.txt" | sed 's/^/vm:   /' >&2
	[ "$rc" = 0 ] && rc=126
fi
say "guest ran $secs, status $rc; results in $out"
exit "$rc"
