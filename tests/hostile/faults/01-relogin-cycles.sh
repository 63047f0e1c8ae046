#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# RELOGIN_CYCLES (default 10) logout/login cycles of the Linux initiator
# under the write loop. Each logout waits until the loop writes again
# (after a login it first reads back what it had), so that every logout
# cuts writes in flight.
. "$REPO/tests/hostile/guest-lib.sh"
bad=0
cycles=${RELOGIN_CYCLES:-10}
h_disrupt_begin
for i in $(seq "$cycles"); do
	if [ "$i" -gt 1 ] && ! h_io_flowing 60; then
		echo "cycle $i: no write acknowledged within 60 s of the login"
		bad=1
	fi
	echo "cycle $i: logout at $(date +%s)"
	run_deadline 60 h_srp_logout >/dev/null || { echo "cycle $i: logout did not complete"; bad=1; }
	if ! h_srp_login; then
		echo "cycle $i: login failed"
		bad=1
		break
	fi
	wait_for 30 h_disk_ok || { echo "cycle $i: disk not readable after login"; bad=1; }
done
h_disrupt_end
echo "$cycles cycles done, last disk $(h_srp_disk)"
h_sanity || bad=1
exit $bad
