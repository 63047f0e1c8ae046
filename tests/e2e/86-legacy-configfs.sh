#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Configured the way scripts older than targetcli do it: module parameters
# srp_max_req_size=8260 and rdma_cm_port, raw configfs mkdir/echo, the TPG
# named after its target port, LUNs from three backstores (null_blk via
# iblock, fileio, ramdisk). One ACL at a time, in every form the in-kernel
# driver accepts, each must let the initiator log in over the RDMA/CM:
# under the GUID-named port the initiator's port GUID, its IPv4 address and
# its IPv6 address; under the GID-named port its port ID with and without
# 0x. Names that can never match are refused with a message saying which
# form to use.
# timeout: 420
. "$REPO/tests/lib.sh"
set -e
V4=192.168.77.1
rxe_setup
/usr/sbin/ip addr add "$V4/24" dev v0
wait_for 10 grep -rqs "ffff:c0a8:4d01" /sys/class/infiniband/$RXE/ports/1/gids/ ||
	log "no IPv4 GID yet (the IPv4 login may fail)"
if [ "$MODULE" = ours ]; then
	srpt_load srp_max_req_size=8260 rdma_cm_port="$RDMA_CM_PORT"
else
	srpt_load srp_max_req_size=8260
fi
expect_eq "srp_max_req_size" "$(cat /sys/module/ib_srpt/parameters/srp_max_req_size)" 8260

dev=$(bs_null nb0 40)
bs0=$(lio_iblock nb0 "$dev")
bs1=$(lio_fileio f1 /tmp/lun-f1.img 24)
bs2=$LIO/core/rd_mcp_0/rd2
mkdir -p "$bs2"
echo "rd_pages=$((16 * 256))" >"$bs2/control"
echo 1 >"$bs2/enable"
sizes=($((40 * 1048576)) $((24 * 1048576)) $((16 * 1048576)))

gid=$(gid0_hex)
guid=$(echo "${gid:16:16}" | sed -E 's/(....)(....)(....)(....)/\1:\2:\3:\4/')
ipid=0000000000000000$(node_guid_hex)
mkdir -p "$SRPT_CFS"
[ "$MODULE" = ours ] || echo "$RDMA_CM_PORT" >"$SRPT_CFS/discovery_auth/rdma_cm_port"
expect_eq "RDMA/CM port" "$(cat "$SRPT_CFS/discovery_auth/rdma_cm_port")" "$RDMA_CM_PORT"

# Both names of the port, each with one TPG named after the port itself.
declare -A tpg
for p in "$guid" "0x$gid"; do
	t=$SRPT_CFS/$p/$p
	mkdir -p "$t" || die "mkdir $t"
	for i in 0 1 2; do
		b=$(eval echo "\$bs$i")
		mkdir "$t/lun/lun_$i"
		ln -s "$b" "$t/lun/lun_$i/$(basename "$b")"
	done
	echo 1 >"$t/enable"
	tpg[$p]=$t
done

# acl_login PORT ACL [add_target dest]: ACL alone, login, 3 LUNs, logout.
acl_login() {
	local t=${tpg[$1]} a=$2 dest=${3:-[$TARGET_ADDR]:$RDMA_CM_PORT} i d g
	log "ACL '$a' under $1"
	mkdir "$t/acls/$a" || { die "mkdir ACL $a"; return 1; }
	for i in 0 1 2; do
		mkdir "$t/acls/$a/lun_$i"
		ln -s "$t/lun/lun_$i" "$t/acls/$a/lun_$i/map"
	done
	g=$(target_guid)
	srp_initiator_load
	echo "id_ext=$g,ioc_guid=$g,dest=$dest" >"$(srp_dev_dir)/add_target" ||
		{ die "login with only ACL '$a' refused"; return 1; }
	for i in 0 1 2; do
		d=$(srp_disk $i) || return 1
		expect_eq "ACL $a: size of LUN $i" "$(blockdev --getsize64 "$d")" "${sizes[$i]}" || return 1
	done
	grep -q "InitiatorName: $a" "$t/acls/$a/info" || { die "ACL $a: info shows no session"; return 1; }
	dd if="$d" of=/dev/null bs=1M count=2 iflag=direct status=none
	srp_logout || return 1
	for i in 0 1 2; do
		rm "$t/acls/$a/lun_$i/map"
		rmdir "$t/acls/$a/lun_$i"
	done
	rmdir "$t/acls/$a"
}

pass=0
# Port GUID over the RDMA/CM: ours matches the port GUID half of the port
# ID (the in-kernel driver matches port GUID ACLs for IB CM logins only).
if [ "$MODULE" = ours ]; then
	acl_login "$guid" "$guid"
	pass=$((pass + 1))
fi
acl_login "$guid" "$V4" "$V4:$RDMA_CM_PORT"
acl_login "$guid" "$TARGET_ADDR"
acl_login "0x$gid" "0x$ipid"
acl_login "0x$gid" "$ipid"
pass=$((pass + 4))

if [ "$MODULE" = ours ]; then
	# What can never match is refused, and the kernel log says what to use.
	refused() { # PORT ACL
		if mkdir "${tpg[$1]}/acls/$2" 2>/dev/null; then
			die "ACL '$2' under $1 accepted; it can never match"
			return 1
		fi
		dmesg | tail -n 5 | grep -q "$2: .*\(names the initiator\|invalid ACL name\)" ||
			{ die "no message for the refused ACL '$2'"; return 1; }
		log "ACL '$2' under $1 refused: $(dmesg | tail -n 1 | cut -c1-160)"
	}
	refused "$guid" "0x0000000000001234$(node_guid_hex)"
	refused "0x$gid" "$guid"
	refused "0x$gid" "$TARGET_ADDR"
	refused "0x$gid" "ib.$ipid"
	if mkdir "$SRPT_CFS/ib.$gid" 2>/dev/null; then die "target port ib.$gid accepted"; fi
	dmesg | tail -n 3 | grep -q "ib.$gid: write a target port as 0x" || die "no message for ib.$gid"
	if mkdir "${tpg[0x$gid]%/*}/tpgt_01" 2>/dev/null; then die "TPG tpgt_01 accepted"; fi
	# A second TPG under the same port is fine.
	mkdir "${tpg[0x$gid]%/*}/tpgt_2" || die "second TPG tpgt_2 refused"
	rmdir "${tpg[0x$gid]%/*}/tpgt_2"
fi
log "$pass ACL forms logged in"
