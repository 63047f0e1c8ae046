#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# T10 protection information at rest over SRP. The session advertises no
# PI operations (TARGET_PROT_NORMAL), so for a PI-formatted backstore LIO
# generates the guard and reference tags on WRITE and checks them on READ.
# For pi_prot_type 1 and 3: a fileio backstore formatted with PI, fio
# write + verify through ib_srp; then one data block of the backing file
# is changed behind LIO's back, and a READ of it must fail with CHECK
# CONDITION and the guard-check sense (ASC 0x10, ASCQ 0x01) instead of
# returning the changed data; the blocks around it still read.
# timeout: 300
. "$REPO/tests/lib.sh"
set -e
rxe_setup
srpt_load
lba=2000
for type in 1 3; do
	img=/tmp/pi$type.img
	rm -f "$img" "$img.protection"
	bs=$(lio_fileio "pi$type" "$img" 32)
	echo "$type" >"$bs/attrib/pi_prot_type" || die "pi_prot_type=$type refused"
	echo 1 >"$bs/attrib/pi_prot_format" || die "pi_prot_format refused"
	[ -s "$img.protection" ] || die "no protection file after pi_prot_format"
	srpt_serve "$bs"
	srp_login
	disk=$(srp_disk 0)
	log "type $type: $disk, $(cat "$bs/attrib/pi_prot_type") / verify $(cat "$bs/attrib/pi_prot_verify")"
	run_deadline 120 fio --name=pi --filename="$disk" --direct=1 --ioengine=libaio \
		--rw=randwrite --bs=4k --iodepth=8 --size=16M --verify=crc32c \
		--do_verify=1 --verify_fatal=1 --output=/tmp/fio-pi.txt >/dev/null ||
		die "fio write + verify on the PI backstore failed: $(grep -i err /tmp/fio-pi.txt | head -n 2)"
	log "type $type: fio write and verify of 16 MiB passed"
	# A block the test knows, then its backing bytes changed in place.
	dd if=/dev/urandom of="$disk" bs=512 seek=$lba count=1 oflag=direct status=none
	sync
	printf 'corrupt' | dd of="$img" bs=1 seek=$((lba * 512 + 100)) conv=notrunc status=none
	echo 3 >/proc/sys/vm/drop_caches
	out=$(sg_raw -r 512 "$disk" 28 00 $(printf '%02x %02x %02x %02x' $((lba >> 24 & 255)) \
		$((lba >> 16 & 255)) $((lba >> 8 & 255)) $((lba & 255))) 00 00 01 00 2>&1) && rc=0 || rc=$?
	echo "$out" | grep -iE "status|sense|guard|asc" | head -n 4 >&2
	[ "$rc" != 0 ] || die "type $type: the READ of the changed block succeeded"
	echo "$out" | grep -qi "guard check failed" ||
		die "type $type: the READ failed without the guard-check sense (ASC 0x10/0x01)"
	log "type $type: READ of the changed block refused with the guard-check sense"
	dd if="$disk" of=/dev/null bs=512 skip=$((lba + 1)) count=64 iflag=direct status=none ||
		die "type $type: blocks after the changed one do not read"
	srp_logout
	srpt_teardown
	rm -f "$img" "$img.protection"
done
