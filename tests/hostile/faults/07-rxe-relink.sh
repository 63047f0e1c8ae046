#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Hot-unplug the RDMA device under I/O (rdma link delete rxe0), add it back,
# and log in again. If the target does not pick the port up again on its
# own, the configuration is rebuilt (reported).
. "$REPO/tests/hostile/guest-lib.sh"
bad=0
h_disrupt_begin
h_bounded 120 rdma link delete rxe0 || { echo "rdma link delete hung or failed"; exit 1; }
sleep 2
rdma link add rxe0 type rxe netdev v0 && h_wait 30 h_port_active || { echo "cannot re-add rxe0"; exit 1; }
if h_sanity -n; then
	echo "target serves the re-added port with the old configuration"
else
	echo "target does not serve the re-added port: rebuilding the configuration"
	h_bounded 120 h_unconfigure || { echo "could not remove the old configuration"; bad=1; }
	h_configure || { echo "could not configure the re-added port"; bad=1; }
	h_sanity || { echo "no login after rebuilding"; bad=1; }
fi
h_srp_recover 30 || { echo "the Linux initiator could not log in again"; bad=1; }
h_disrupt_end
exit $bad
