#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The same hostile cases with the HCA's shared receive queue: use_srq=1
# under I/O (channels are closed, ib_srp logs in again on the SRQ), every
# case on its own connection with a sanity login (exact credits) after each,
# while fio keeps verifying through SRQ buffers; then use_srq=0 again.
. "$REPO/tests/hostile/guest-lib.sh"
bad=0
a=$H_TPG/attrib/use_srq
h_disrupt_begin
run_deadline 60 sh -c "echo 1 >'$a'" || { echo "use_srq=1 failed or hung"; exit 1; }
[ "$(cat "$a")" = 1 ] || { echo "use_srq reads $(cat "$a") after writing 1"; exit 1; }
h_srp_recover 60 || { echo "the Linux initiator did not log in again on the SRQ"; bad=1; }
h_disrupt_end
n=0 failed=
for c in $("$HOSTILE" -l | grep -v "(-c only)" | awk '{print $1}'); do
	n=$((n + 1))
	if ! h_tool "$c" >/tmp/srq.case 2>&1; then
		failed+=" $c"
		grep -E '^FAIL' /tmp/srq.case | head -n 2 | sed 's/^/  /'
	fi
	if ! h_sanity >/tmp/srq.sanity 2>&1; then
		sed 's/^/  /' /tmp/srq.sanity
		# Every later case would just time out against a broken target.
		failed+=" (target broken after $c: remaining cases skipped)"
		break
	fi
done
echo "SRQ: $n cases, failed:${failed:- none}"
[ -z "$failed" ] || bad=1
h_disrupt_begin
run_deadline 60 sh -c "echo 0 >'$a'" || { echo "use_srq=0 failed or hung"; bad=1; }
h_srp_recover 60 || { echo "the Linux initiator did not log in again without the SRQ"; bad=1; }
h_disrupt_end
exit $bad
