#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# targetcli with every name form it accepts for the srpt fabric: target
# port as ib.<gid>, 0x<gid>, bare <gid> and colon-separated GID; ACL as
# ib.<port id>, 0x<port id> and bare <port id>. Each form creates the port,
# a LUN and the ACL, which must reach configfs and `targetcli ls`.
# saveconfig writes one canonical form whatever the input was, so the round
# trip runs once, after the last form: saveconfig, clearconfig, module
# reload (the RDMA/CM port comes from the module parameter rdma_cm_port,
# since saveconfig does not keep it), restoreconfig, the initiator logs in
# again with no hand edits and `targetcli sessions detail` lists it.
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
	log "form $r: target '$tname', ACL '$aname'"
	# One targetcli shell per form: a python start costs seconds here.
	{
		if [ "$r" = 1 ]; then
			echo "/backstores/fileio create name=rt file_or_dev=/tmp/lun-rt.img size=17M write_back=false"
		else
			echo "/srpt delete ib.$gid"
		fi
		echo "/srpt create $tname"
		echo "/srpt/ib.$gid/luns create /backstores/fileio/rt"
		echo "/srpt/ib.$gid/acls create $aname"
		echo "ls /srpt"
	} >/tmp/tc-form.in
	tcb /tmp/ls.out </tmp/tc-form.in
	[ -d "$t/acls/0x$ipid" ] || { cat /tmp/ls.out >&2; die "form $r: ACL 0x$ipid not in configfs"; }
	[ -d "$t/lun/lun_0" ] || { cat /tmp/ls.out >&2; die "form $r: no lun_0 in configfs"; }
	grep -q "ib.$ipid" /tmp/ls.out || { cat /tmp/ls.out >&2; die "form $r: targetcli ls does not show the ACL"; }
done

printf '%s\n' "saveconfig /tmp/rt.json" "clearconfig confirm=True" | tcb
[ -d "$t" ] && die "clearconfig left $t"
srpt_teardown
srpt_unload
srpt_load rdma_cm_port="$RDMA_CM_PORT"
tc restoreconfig /tmp/rt.json
# rtslib names the LUN's link itself; it must point at rt.
readlink "$(find "$t/lun/lun_0" -maxdepth 1 -type l | head -n 1)" | grep -q "/rt\$" ||
	die "restore did not bring back lun_0 on rt"
[ -d "$t/acls/0x$ipid" ] || die "restore did not bring back the ACL"
srp_login
disk=$(srp_disk 0)
expect_eq "size after restore" "$(blockdev --getsize64 "$disk")" $((17 * 1048576))
fio_verify "$disk" 4k randwrite 4M 8
targetcli sessions detail >/tmp/sessions 2>&1 || { cat /tmp/sessions >&2; die "targetcli sessions detail"; }
cat /tmp/sessions >&2
grep -q "name: ib.$ipid" /tmp/sessions || die "sessions detail does not list ib.$ipid"
grep -q "mapped-lun: 0 backstore: fileio/rt" /tmp/sessions ||
	die "sessions detail does not list the mapped LUN"
srp_logout
tc clearconfig confirm=True
rm -f /tmp/lun-rt.img
log "$r name forms created; saveconfig, clearconfig, reload, restoreconfig, login, sessions detail"
