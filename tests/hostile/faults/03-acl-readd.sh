#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Remove the Linux initiator's ACLs under I/O (its session must go away),
# then add them back (it must be able to log in again).
. "$REPO/tests/hostile/guest-lib.sh"
bad=0
acls=$(cd "$H_TPG/acls" && ls -d 0x"$H_FIO_EXT"*)
h_disrupt_begin
for a in $acls; do
	rm -f "$H_TPG/acls/$a/lun_0/map"
	rmdir "$H_TPG/acls/$a/lun_0" "$H_TPG/acls/$a" || { echo "cannot remove ACL $a"; bad=1; }
done
sleep 5
for a in $acls; do h_acl "$a" 0 || { echo "cannot re-add ACL $a"; bad=1; }; done
h_srp_recover 60 || { echo "the Linux initiator could not log in again"; bad=1; }
h_disrupt_end
h_sanity || { echo "hostile sanity failed"; bad=1; }
exit $bad
