#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# rmmod ib_srpt with live sessions and configuration: must be refused or
# clean, never hang. If it went, load it again and restore the setup.
. "$REPO/tests/hostile/guest-lib.sh"
run_deadline 120 rmmod ib_srpt 2>&1
rc=$?
case $rc in
124) echo "rmmod hung"; exit 1 ;;
0) echo "rmmod succeeded with live sessions: reloading"
   h_disrupt_begin
   h_load_target && h_configure && h_srp_recover 30 || { echo "could not restore"; exit 1; }
   h_disrupt_end ;;
*) echo "rmmod refused (status $rc)" ;;
esac
h_sanity || { echo "sanity failed afterwards"; exit 1; }
exit 0
