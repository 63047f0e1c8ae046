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
# One tool process for every case (each followed by its survival probe, a
# sanity login): a process per case cost a second or two more per case.
# It stops at the first failure or kernel complaint.
cases=$("$HOSTILE" -l | grep -v "(-c only)" | awk '{print $1}')
n=$(echo "$cases" | wc -w)
timeout -k 5 $((n * 150)) "$HOSTILE" -a "$H_ADDR" -p "$RDMA_CM_PORT" -g "$H_GUID" \
	-I "$H_IPORT" -c "$(echo $cases | tr ' ' ',')" -t 90 -x "$SPLAT_RE" >/tmp/srq.cases 2>&1
rc=$?
failed=$(grep -E '^FAIL ' /tmp/srq.cases | sed 's/^FAIL \([^:]*\):.*/\1/' | tr '\n' ' ')
grep -E '^(FAIL|stopped after) ' /tmp/srq.cases | sed 's/^/  /'
ran=$(grep -cE '^(PASS|FAIL) ' /tmp/srq.cases)
if [ "$rc" != 0 ] && [ -z "$failed" ]; then
	tail -n 5 /tmp/srq.cases | sed 's/^/  /'
	failed="(the tool exited with status $rc)"
fi
[ "$ran" = "$n" ] || failed+=" (ran $ran of $n cases)"
echo "SRQ: $ran of $n cases, failed: ${failed:-none}"
[ -z "$failed" ] || bad=1
h_sanity >/tmp/srq.sanity 2>&1 || { sed 's/^/  /' /tmp/srq.sanity; bad=1; }
h_disrupt_begin
run_deadline 60 sh -c "echo 0 >'$a'" || { echo "use_srq=0 failed or hung"; bad=1; }
h_srp_recover 60 || { echo "the Linux initiator did not log in again without the SRQ"; bad=1; }
h_disrupt_end
exit $bad
