#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Descriptor tables in initiator memory: ib_srp with allow_ext_sg=1 and
# cmd_sg_entries=1 sends every I/O that needs more than one memory region
# with its descriptor table left in its own memory; the target fetches it.
# 4 MiB I/Os (more pages than one fast-registration MR holds) verified with
# fio, then the target must report fetched tables when the channel goes.
# timeout: 240
. "$REPO/tests/lib.sh"
set -e
rxe_setup
srpt_load
dev=$(bs_brd 96)
bs=$(lio_iblock ram0 "$dev")
srpt_serve "$bs"
modprobe -r ib_srp 2>/dev/null || true
modprobe -a sd_mod scsi_transport_srp
modprobe ib_srp allow_ext_sg=1 cmd_sg_entries=1 indirect_sg_entries=2048 ||
	die "modprobe ib_srp allow_ext_sg=1"
srp_login max_sect=8192
disk=$(srp_disk 0)
echo 4096 >"/sys/block/$(basename "$disk")/queue/max_sectors_kb" 2>/dev/null || true
log "max_sectors_kb $(cat "/sys/block/$(basename "$disk")/queue/max_sectors_kb")"
fio_verify "$disk" 4M write 64M 4
fio_verify "$disk" 64k randwrite 16M 8
mark=$(dmesg | wc -l)
srp_logout
modprobe -r ib_srp || true
released() {	# lines of channels released since the mark
	dmesg | tail -n +"$((mark + 1))" | grep 'remote descriptor tables'
}
wait_for 30 released >/dev/null || die "the target released no channel after the logout"
tables=$(released |
	sed -n 's/.*released after.*, \([0-9]\+\) remote descriptor tables.*/\1/p' |
	awk '{s += $1} END {print s + 0}')
log "descriptor tables fetched from initiator memory: $tables"
[ "$tables" -gt 0 ] || die "no descriptor table was fetched: the external-table path was not used"
