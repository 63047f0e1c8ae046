#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Minimal guest script for scripts/vm.sh: serve a null_blk LUN with the
# selected module, log in with ib_srp, write and verify 16 MiB, tear down.
#   scripts/vm.sh --kver 6.12 --module distro --run tests/smoke.sh --out /tmp/smoke
. "$REPO/tests/lib.sh"
set -e
disk=$(srpt_standard_setup 64)
sg_inq "$disk" | grep -E 'Vendor|Product'
fio_verify "$disk" 4k randwrite 16M
srp_logout
srpt_teardown
srpt_unload
srpt_leftovers
echo "smoke: ok ($MODULE on $(uname -r))"
