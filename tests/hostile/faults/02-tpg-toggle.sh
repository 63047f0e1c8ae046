#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Disable the TPG under I/O: logins must then be refused; enable it again:
# logins work and the Linux initiator gets its disk back.
. "$REPO/tests/hostile/guest-lib.sh"
bad=0
h_disrupt_begin
echo 0 >"$H_TPG/enable" || { echo "cannot disable the TPG"; exit 1; }
sleep 3
if h_tool sanity -n >/tmp/f.out 2>&1; then
	echo "a login succeeded while the TPG was disabled"; bad=1
else
	grep -E '^FAIL' /tmp/f.out | sed 's/^/disabled: /'
fi
echo 1 >"$H_TPG/enable" || { echo "cannot enable the TPG"; exit 1; }
h_sanity || { echo "no login after re-enable"; bad=1; }
h_srp_recover 60 || { echo "the Linux initiator did not get its disk back"; bad=1; }
h_disrupt_end
exit $bad
