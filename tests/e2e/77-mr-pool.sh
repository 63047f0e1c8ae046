#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A command that needs more than a channel can ever give fails at once, and
# what the channel is sized for works. The target port has srp_sq_size 16;
# ib_srp with never_register=1 describes each segment of an I/O by its own
# descriptor (allow_ext_sg: the table stays in its memory), and a 4 MiB
# direct write from a buffer whose pages were faulted in a random order (no
# huge page) has about 1024 segments, so it arrives with as many
# descriptors, each an RDMA READ for the target.
#  - soft-RoCE: the channel's send queue holds RDMA work requests for a
#    transfer of srp_max_rdma_size (16 MiB) gathered 16 pages per request,
#    a few hundred: the write must fail within 60 s with the target's
#    "needs N RDMA work requests" (a target that waits for room it can
#    never get leaves it hanging), and a 4 KiB write then works.
#  - soft-iWARP (one page per RDMA READ, each with a memory registration):
#    the channel has registrations for srp_max_rdma_size in single pages,
#    so the write must succeed and read back; a command beyond that pool
#    is hostile fault 14's.
# timeout: 240
. "$REPO/tests/lib.sh"
set -e
rxe_setup
srpt_load
dev=$(bs_brd 64)
bs=$(lio_iblock ram0 "$dev")
srpt_serve "$bs"
echo 16 >"$(tpg_dir)/attrib/srp_sq_size" || die "srp_sq_size=16 refused"
modprobe -r ib_srp 2>/dev/null || true
modprobe -a sd_mod scsi_transport_srp
modprobe ib_srp never_register=1 allow_ext_sg=1 cmd_sg_entries=1 indirect_sg_entries=2048 ||
	die "modprobe ib_srp never_register=1"
srp_login max_sect=8192
disk=$(srp_disk 0)
q=/sys/block/$(basename "$disk")/queue
echo 4096 >"$q/max_sectors_kb" || die "max_sectors_kb 4096 refused (max_hw_sectors_kb $(cat "$q/max_hw_sectors_kb"))"
cat >/tmp/mr-pool.py <<'PY'
import errno, mmap, os, random, sys
n = 4 << 20
m = mmap.mmap(-1, n)
try:
    m.madvise(mmap.MADV_NOHUGEPAGE)
except OSError as e:		# EINVAL: a kernel without THP has no huge page to avoid
    if e.errno != errno.EINVAL:
        raise
pages = list(range(n // 4096))
random.shuffle(pages)
for p in pages:		# physically scattered: one segment per page
    m[p * 4096] = 1
m[:] = os.urandom(n)
fd = os.open(sys.argv[1], os.O_RDWR | os.O_DIRECT)
try:
    if os.write(fd, m) != n:
        sys.exit("short write")
except OSError as e:		# the refusal the soft-RoCE case expects
    print("write: %s" % e, file=sys.stderr)
    sys.exit(3)
back = mmap.mmap(-1, n)
os.lseek(fd, 0, os.SEEK_SET)
if os.readv(fd, [back]) != n or back[:] != m[:]:
    sys.exit("read back differs")
PY
mark=$(dmesg | wc -l)
t0=$(date +%s)
if [ "$TRANSPORT" = siw ]; then
	run_deadline 60 python3 /tmp/mr-pool.py "$disk" ||
		die "the 4 MiB write of scattered pages failed over iWARP, which the channel is sized for"
	log "ok: the 4 MiB write of scattered pages worked and read back in $(( $(date +%s) - t0 )) s"
	dmesg | tail -n +"$((mark + 1))" | grep -F "needs" && die "the target refused a command"
	rm -f /tmp/mr-pool.py
	exit 0
fi
rc=0
run_deadline 60 python3 /tmp/mr-pool.py "$disk" || rc=$?
[ "$rc" != 0 ] || die "the 4 MiB write of scattered pages succeeded: it did not need more than srp_sq_size 16 gives"
[ "$rc" = 3 ] || die "the write test did not get as far as an I/O error (exit status $rc)"
[ $(( $(date +%s) - t0 )) -lt 60 ] || die "the 4 MiB write of scattered pages hung for 60 s"
log "ok: the 4 MiB write of scattered pages failed after $(( $(date +%s) - t0 )) s"
dmesg | tail -n +"$((mark + 1))" | grep -F "needs" | head -3
dmesg | tail -n +"$((mark + 1))" | grep -qE "needs [0-9]+ RDMA work requests" ||
	die "the target did not say the command needs more RDMA work requests than the channel has"
run_deadline 30 dd if=/dev/urandom of="$disk" bs=4k count=1 oflag=direct status=none ||
	die "a 4 KiB write on the same session failed"
log "ok: a 4 KiB write works afterwards"
rm -f /tmp/mr-pool.py
