#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# targetcli round trip with every name form targetcli accepts for the srpt
# fabric: target port as ib.<gid>, 0x<gid>, bare <gid> and colon-separated
# GID; ACL as ib.<port id>, 0x<port id> and bare <port id>. Each round:
# build, `targetcli ls`, saveconfig, clearconfig, module reload (the
# RDMA/CM port comes from the module parameter rdma_cm_port, since
# saveconfig does not keep it), restoreconfig, the initiator logs in again
# with no hand edits and `targetcli sessions detail` lists it.
# timeout: 600
. "$REPO/tests/lib.sh"
set -e
[ "$MODULE" = ours ] || { log "MODULE=$MODULE: the distro module has no rdma_cm_port parameter"; exit 0; }
rxe_setup
dbus_start
tc() { log "targetcli $*"; targetcli "$@" >/tmp/tc.out 2>&1 || { cat /tmp/tc.out >&2; die "targetcli $*"; return 1; }
	grep -v -e 'Could not load preferences' -e 'dbroot' /tmp/tc.out >&2 || true; }
srpt_load rdma_cm_port="$RDMA_CM_PORT"
gid=$(gid0_hex)
ipid=0000000000000000$(node_guid_hex)
colon=$(echo "$gid" | sed -E 's/(....)/\1:/g; s/:$//')
t=$SRPT_CFS/0x$gid/tpgt_1
rounds=("ib.$gid ib.$ipid" "0x$gid 0x$ipid" "$gid $ipid" "$colon ib.$ipid")
r=0
for round in "${rounds[@]}"; do
	read -r tname aname <<<"$round"
	r=$((r + 1))
	log "round $r: target '$tname', ACL '$aname'"
	tc /backstores/fileio create name=rt$r file_or_dev=/tmp/lun-rt$r.img size=$((16 + r))M write_back=false
	tc /srpt create "$tname"
	tc "/srpt/ib.$gid/luns" create "/backstores/fileio/rt$r"
	tc "/srpt/ib.$gid/acls" create "$aname"
	[ -d "$t/acls/0x$ipid" ] || die "round $r: ACL 0x$ipid not in configfs"
	targetcli ls >/tmp/ls.out 2>&1 || { cat /tmp/ls.out >&2; die "round $r: targetcli ls"; }
	grep -q "ib.$ipid" /tmp/ls.out || die "round $r: targetcli ls does not show the ACL"
	tc saveconfig "/tmp/rt$r.json"
	tc clearconfig confirm=True
	[ -d "$t" ] && die "round $r: clearconfig left $t"
	srpt_teardown
	srpt_unload
	srpt_load rdma_cm_port="$RDMA_CM_PORT"
	tc restoreconfig "/tmp/rt$r.json"
	# rtslib names the LUN's link itself; it must point at rt$r.
	readlink "$(find "$t/lun/lun_0" -maxdepth 1 -type l | head -n 1)" | grep -q "/rt$r\$" ||
		die "round $r: restore did not bring back lun_0 on rt$r"
	[ -d "$t/acls/0x$ipid" ] || die "round $r: restore did not bring back the ACL"
	srp_login
	disk=$(srp_disk 0)
	expect_eq "round $r: size after restore" "$(blockdev --getsize64 "$disk")" $(((16 + r) * 1048576))
	fio_verify "$disk" 4k randwrite 4M 8
	targetcli sessions detail >/tmp/sessions 2>&1 || { cat /tmp/sessions >&2; die "round $r: targetcli sessions detail"; }
	cat /tmp/sessions >&2
	grep -q "name: ib.$ipid" /tmp/sessions || die "round $r: sessions detail does not list ib.$ipid"
	grep -q "mapped-lun: 0 backstore: fileio/rt$r" /tmp/sessions ||
		die "round $r: sessions detail does not list the mapped LUN"
	srp_logout
	tc clearconfig confirm=True
	rm -f "/tmp/lun-rt$r.img"
done
log "$r rounds: build, saveconfig, clearconfig, reload, restoreconfig, login, sessions detail"
