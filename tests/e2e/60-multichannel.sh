#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Multichannel login: ib_srp ch_count=2 opens two RDMA channels to the same
# target port; I/O on both CPUs verifies.
# timeout: 120
. "$REPO/tests/lib.sh"
set -e
disk=$(srpt_standard_setup 64 ch_count=2)
h=$(srp_hosts | head -n 1)
expect_eq "ib_srp ch_count" "$(cat "/sys/class/scsi_host/host$h/ch_count")" 2
expect_eq "ib_srp SCSI hosts" "$(srp_hosts | wc -l)" 1
# 16 MiB per job; on the debug kernel a quarter (E2E_IO_DIV, tests/lib.sh).
mb=$(( 16 / E2E_IO_DIV ))
[ "$mb" -ge 4 ] || mb=4
fio --name=mc --filename="$disk" --direct=1 --ioengine=libaio --rw=randwrite --bs=4k \
	--size=${mb}M --iodepth=16 --numjobs=2 --offset_increment=${mb}M --verify=crc32c \
	--verify_fatal=1 --cpus_allowed_policy=split --cpus_allowed=0-1 \
	--group_reporting --output-format=terse >/tmp/mc.out 2>&1 ||
	{ cat /tmp/mc.out >&2; die "fio verify on two CPUs"; }
log "fio verify with 2 jobs on 2 CPUs: ok"
