#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Port attributes (our module: numeric ones read back, out-of-range values
# refused). Shared receive queue: attrib/use_srq=1 before login, two
# channels share the HCA's SRQ, fio verifies 4k random and 1M writes; then
# use_srq=0 while the initiator is logged in must close its channels and
# return (not hang), and after a new login data verifies on per-channel
# receive rings.
# timeout: 240
. "$REPO/tests/lib.sh"
set -e
rxe_setup
srpt_load
dev=$(bs_null nb0 64)
bs=$(lio_iblock nb0 "$dev")
srpt_target_create
srpt_lun 0 "$bs"
srpt_acl_add
if [ "${MODULE:-ours}" = ours ]; then
	# The numeric port attributes: a value in range reads back, one out of
	# range is refused and leaves the old value.
	q=$(tpg_dir)/attrib/srp_sq_size
	expect_eq "srp_sq_size default" "$(cat "$q")" 4096
	echo 2048 >"$q" || die "srp_sq_size=2048 refused"
	expect_eq "srp_sq_size after writing 2048" "$(cat "$q")" 2048
	# The in-kernel driver's range, 4..65535.
	if echo 3 >"$q" 2>/dev/null; then die "srp_sq_size=3 accepted"; fi
	expect_eq "srp_sq_size after writing 3" "$(cat "$q")" 2048
	if echo 65536 >"$q" 2>/dev/null; then die "srp_sq_size=65536 accepted"; fi
	echo 4 >"$q" || die "srp_sq_size=4 refused"
	echo 65535 >"$q" || die "srp_sq_size=65535 refused"
	echo 2048 >"$q"
	r=$(tpg_dir)/attrib/srp_max_rsp_size
	# A task-management response is 40 bytes: nothing smaller works.
	if echo 39 >"$r" 2>/dev/null; then die "srp_max_rsp_size=39 accepted"; fi
	dmesg | grep -q "srp_max_rsp_size: '39' is not a number in 40\.\..*task-management response is 40 bytes" ||
		die "no reason logged for refusing srp_max_rsp_size=39"
	echo 40 >"$r" || die "srp_max_rsp_size=40 refused"
	echo 256 >"$r" || die "srp_max_rsp_size=256 refused"
	expect_eq "srp_max_rsp_size after writing 256" "$(cat "$r")" 256
fi
a=$(tpg_dir)/attrib/use_srq
echo 1 >"$a" || die "use_srq=1 refused"
expect_eq "use_srq after writing 1" "$(cat "$a")" 1
if [ "${MODULE:-ours}" = ours ]; then
	dmesg | grep -q "using a shared receive queue" || die "no 'using a shared receive queue' in dmesg"
fi
srpt_enable
srp_login ch_count=2
disk=$(srp_disk 0)
fio_verify "$disk" 4k randwrite 16M 32
fio_verify "$disk" 1M write 16M 8
timeout 60 sh -c "echo 0 >'$a'" || die "use_srq=0 with live channels failed or hung"
expect_eq "use_srq after writing 0" "$(cat "$a")" 0
log "use_srq=0 with live channels returned"
srp_logout
srp_login
disk=$(srp_disk 0)
fio_verify "$disk" 4k randwrite 16M 32
