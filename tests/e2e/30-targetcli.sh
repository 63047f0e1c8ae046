#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The same target configured through targetcli instead of raw configfs:
# fileio backstore, /srpt target by the ib. name targetcli lists, LUN, ACL.
# timeout: 150
. "$REPO/tests/lib.sh"
set -e
rxe_setup
srpt_load
dbus_start
# Every targetcli command must succeed; its output goes to the log. The
# commands of each step run in one targetcli shell (tcb).
tc() {
	local o rc
	log "targetcli $*"
	o=$(targetcli "$@" 2>&1)
	rc=$?
	printf '%s\n' "$o" | grep -v -e 'Could not load preferences' -e 'dbroot' >&2
	[ "$rc" = 0 ] || die "targetcli $* exited with status $rc"
}

wwn=ib.$(gid0_hex)
tcb /tmp/tc-setup.out <<EOF
/srpt info
/backstores/fileio create name=tcf0 file_or_dev=/tmp/lun-tcf0.img size=64M write_back=false
/srpt create $wwn
/srpt/$wwn/luns create /backstores/fileio/tcf0
/srpt/$wwn/acls create ib.$(initiator_acl_name | sed 's/^0x//')
ls
EOF
grep -q "^Allowed WWNs list:.*$wwn" /tmp/tc-setup.out || die "targetcli /srpt info does not list $wwn"
# The RDMA/CM listener port is a fabric-wide configfs attribute.
echo "$RDMA_CM_PORT" >"$SRPT_CFS/discovery_auth/rdma_cm_port"
t=$(tpg_dir)
[ -d "$t/lun/lun_0" ] || die "targetcli did not create $t/lun/lun_0"
[ -d "$t/acls/$(initiator_acl_name)" ] || die "targetcli did not create ACL $(initiator_acl_name)"
expect_eq "tpgt_1 enable" "$(cat "$t/enable")" 1
srp_login
disk=$(srp_disk 0)
expect_eq "size of $disk" "$(blockdev --getsize64 "$disk")" $((64 * 1048576))
fio_verify "$disk" 4k randwrite 16M 16
targetcli sessions detail >/tmp/sessions 2>&1 || die "targetcli sessions detail failed"
cat /tmp/sessions >&2
# The distro module leaves the ACL's info empty; ours must fill it: one
# logged-in session, named by the initiator's ACL, with LUN 0 mapped.
if [ "$MODULE" = ours ]; then
	# targetcli names srpt ACLs ib.<hex> (configfs: 0x<hex>)
	grep -q "name: ib.$(initiator_acl_name | sed 's/^0x//') " /tmp/sessions ||
		die "targetcli sessions does not name the ACL ib.$(initiator_acl_name | sed 's/^0x//')"
	grep -q 'session-state: LOGGED_IN' /tmp/sessions ||
		die "targetcli sessions shows no logged-in session"
	grep -q 'mapped-lun: 0 ' /tmp/sessions ||
		die "targetcli sessions shows no mapped LUN 0"
fi
srp_logout

# saveconfig / clearconfig / targetctl restore round trip, then log in again.
printf '%s\n' "saveconfig /tmp/srpt-saved.json" "clearconfig confirm=True" | tcb
[ -d "$t" ] && die "clearconfig left $t"
log "targetctl restore /tmp/srpt-saved.json"
targetctl restore /tmp/srpt-saved.json >&2 || die "targetctl restore"
[ -n "$(find "$t/lun/lun_0" -maxdepth 1 -type l 2>/dev/null)" ] ||
	die "restore did not bring back lun_0"
[ -d "$t/acls/$(initiator_acl_name)" ] || die "restore did not bring back the ACL"
echo "$RDMA_CM_PORT" >"$SRPT_CFS/discovery_auth/rdma_cm_port"
srp_login
disk=$(srp_disk 0)
expect_eq "size of $disk after restore" "$(blockdev --getsize64 "$disk")" $((64 * 1048576))
dd if="$disk" of=/dev/null bs=1M count=8 iflag=direct status=none
srp_logout
tc clearconfig confirm=True
