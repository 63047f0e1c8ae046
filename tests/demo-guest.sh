#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Guest side of `make demo`: serve a LUN, log in, write and verify data, run a
# short fio, and say what happened in a few lines (written to /out/demo.txt).
. "$REPO/tests/lib.sh"
say() { echo "$*" | tee -a /out/demo.txt; }
: >/out/demo.txt
fail() { say "demo: FAILED: $*"; exit 1; }
t0=$(cut -d' ' -f1 /proc/uptime)
rxe_setup 2>/tmp/demo.log || fail "soft-RoCE setup"
say "1. Guest up (kernel $(uname -r)); soft-RoCE device rxe0 on veth v0, address $TARGET_ADDR."
srpt_load 2>>/tmp/demo.log || fail "loading ib_srpt ($MODULE)"
say "2. Loaded ib_srpt ($MODULE: $(srpt_module_file)); target port $(srpt_wwn), RDMA/CM port $RDMA_CM_PORT."
dev=$(bs_null demo 128 2>>/tmp/demo.log) && bs=$(lio_iblock demo "$dev" 2>>/tmp/demo.log) &&
	lio_serial "$bs" demo-lun0 && srpt_serve "$bs" 2>>/tmp/demo.log || fail "LIO configuration"
say "3. LUN 0 = 128 MiB null_blk ($dev) via LIO iblock, ACL for initiator $(initiator_acl_name)."
srp_login 2>>/tmp/demo.log || fail "ib_srp login"
disk=$(srp_disk 0 2>>/tmp/demo.log) || fail "no disk appeared"
vendor=$(sg_inq "$disk" | sed -n 's/^ *Vendor identification: *//p' | sed 's/ *$//')
serial=$(sg_vpd -p sn "$disk" | sed -n 's/^ *Unit serial number: *//p')
say "4. Linux ib_srp logged in to [$TARGET_ADDR]:$RDMA_CM_PORT: $disk, $(( $(blockdev --getsize64 "$disk") / 1048576 )) MiB, vendor $vendor, serial $serial."
fio_verify "$disk" 4k randwrite 32M 16 2>>/tmp/demo.log || fail "write + crc32c verify"
say "5. Wrote 32 MiB of 4 KiB random writes and read them back: crc32c verify OK."
fio --name=demo --filename="$disk" --direct=1 --ioengine=libaio --rw=randread --bs=4k \
	--iodepth=32 --time_based --runtime=8 --output-format=json >/tmp/demo.json 2>>/tmp/demo.log ||
	fail "fio randread"
read -r iops lat <<<"$(python3 -c 'import json; d=json.load(open("/tmp/demo.json"))["jobs"][0]["read"]; print("%.0f %.0f" % (d["iops"], d["lat_ns"]["mean"] / 1000))')"
say "6. fio 4 KiB random read, QD32, 8 s: $iops IOPS, mean latency $lat us (QEMU TCG, no KVM)."
srp_logout 2>>/tmp/demo.log && srpt_teardown && srpt_unload 2>>/tmp/demo.log || fail "logout/unload"
say "7. Logged out, removed the configuration, unloaded ib_srpt: clean ($(awk -v a="$t0" '{printf "%.0f", $1 - a}' /proc/uptime) s in the guest)."
