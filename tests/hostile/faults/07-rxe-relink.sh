#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Hot-unplug the RDMA device under I/O (rdma link delete rxe0), add it back,
# and log in again, twice. Our target must serve the re-added port with the
# configuration it had (same name, TPG, ACLs, LUNs, enabled); a target that
# does not is configured again (reported) so the later faults can run.
. "$REPO/tests/hostile/guest-lib.sh"
bad=0
h_disrupt_begin
for cycle in 1 2; do
	run_deadline 120 rdma link delete rxe0 || { echo "cycle $cycle: rdma link delete hung or failed"; exit 1; }
	sleep 2
	rdma link add rxe0 type rxe netdev v0 && wait_for 30 rxe_port_active ||
		{ echo "cycle $cycle: cannot re-add rxe0"; exit 1; }
	if wait_for 10 eval 'h_sanity -n >/dev/null'; then
		echo "cycle $cycle: target serves the re-added port with the old configuration"
	else
		echo "cycle $cycle: target does not serve the re-added port: rebuilding the configuration"
		dmesg | grep -E 'ib_srpt|srpt' | tail -n 5 | sed 's/^/    /'
		[ "$MODULE" = ours ] && bad=1
		run_deadline 120 h_unconfigure || { echo "could not remove the old configuration"; bad=1; }
		h_configure || { echo "could not configure the re-added port"; bad=1; }
		h_sanity || { echo "no login after rebuilding"; bad=1; }
	fi
	# ib_srp drops its targets with the device: it cannot reconnect itself.
	h_srp_recover 5 || { echo "cycle $cycle: the Linux initiator could not log in again"; bad=1; }
done
h_disrupt_end
exit $bad
