#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Remove the Linux initiator's ACLs under I/O: its session must go away
# (its channels' QPs are destroyed on the target within 60 s), then add
# them back: it must log in again, as a new session (new channels).
# The channels are the target's connected RDMA/CM IDs (comm [ib_srpt] in
# `rdma resource show cm_id`); with our module the ACL's info must also
# name the session (logged in, its QP number) before and after.
. "$REPO/tests/hostile/guest-lib.sh"
bad=0
acls=$(cd "$H_TPG/acls" && ls -d 0x"$H_FIO_EXT"*)
fio_session() {	# "ACL QPN" of the fio initiator's logged-in session
	local a q
	for a in $acls; do
		q=$(h_acl_session "$H_TPG/acls/$a") && { echo "$a $q"; return 0; }
	done
	return 1
}
old_gone() {	# none of the QPs in $old exists any more
	local q
	for q in $old; do
		h_qp_exists "$q" && return 1
	done
	return 0
}

# ---- before: the session is there ----
wait_for 30 h_disk_ok || echo "note: the fio disk was not readable before the removal"
old=$(h_srpt_qpns | tr '\n' ' ')
[ -n "$old" ] || { echo "no target channel before the removal: nothing to test"; exit 1; }
echo "target channels before: QPs $old"
if [ "$MODULE" = ours ]; then
	if s=$(fio_session); then
		echo "session before: ACL ${s% *}, QP ${s#* }"
		[[ " $old " == *" ${s#* } "* ]] ||
			{ echo "the ACL's session QP ${s#* } is not among the target's channels ($old)"; bad=1; }
	else
		echo "no ACL of the fio initiator shows a logged-in session"; bad=1
	fi
fi

# ---- remove the ACLs: the session goes ----
h_disrupt_begin
for a in $acls; do
	rm -f "$H_TPG/acls/$a/lun_0/map"
	run_deadline 60 rmdir "$H_TPG/acls/$a/lun_0" "$H_TPG/acls/$a" ||
		{ echo "cannot remove ACL $a (or it hung)"; bad=1; }
done
t0=$(date +%s)
if wait_for 60 old_gone; then
	echo "the session's channels were gone $(( $(date +%s) - t0 )) s after the ACLs"
else
	echo "60 s after the ACLs were removed the target still has the session's QPs:" \
		"$(for q in $old; do h_qp_exists "$q" && echo -n "$q "; done)"
	rdma resource show cm_id 2>/dev/null | grep '\[ib_srpt\]' | grep -v LISTEN | head -n 4 | sed 's/^/  /'
	bad=1
fi

# ---- add them back: a new session ----
for a in $acls; do h_acl "$a" 0 || { echo "cannot re-add ACL $a"; bad=1; }; done
h_srp_recover 60 || { echo "the Linux initiator could not log in again"; bad=1; }
h_disrupt_end
new=$(h_srpt_qpns | tr '\n' ' ')
echo "target channels after: QPs ${new:-none}"
[ -n "$new" ] || { echo "no target channel after the ACLs came back"; bad=1; }
for q in $new; do
	[[ " $old " == *" $q "* ]] && { echo "QP $q of the removed session is still a channel"; bad=1; }
done
if [ "$MODULE" = ours ]; then
	if s=$(wait_for 30 fio_session); then
		echo "session after: ACL ${s% *}, QP ${s#* }"
		[[ " $new " == *" ${s#* } "* ]] ||
			{ echo "the ACL's session QP ${s#* } is not among the target's channels ($new)"; bad=1; }
	else
		echo "no ACL of the fio initiator shows a logged-in session after the re-add"; bad=1
	fi
fi
h_sanity || { echo "hostile sanity failed"; bad=1; }
exit $bad
