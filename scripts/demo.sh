#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# `make demo`: boot a guest, serve a LUN with ib_srpt (MODULE=ours by default;
# falls back to the distribution's module, and says so, when ours does not
# build), log in with the Linux ib_srp initiator, write and verify data, run a
# short fio and print what happened. Environment: KVER (6.12), MODULE, CACHE.
set -uo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
. "$REPO/scripts/lib.sh"
CACHE=${CACHE:-/var/cache/ib_srpt}
KVER=${KVER:-6.12}
MODULE=${MODULE:-ours}
export CACHE KVER MODULE
out=$CACHE/results/demo-$KVER-$(date -u +%Y%m%d-%H%M%S)
mkdir -p "$out"
# The guest needs QEMU, busybox, the 6.12 kernel, rdma-core, targetcli, fio:
# deps.sh says what it installs before it does.
echo "demo: checking what the demo needs (QEMU, guest kernels, rdma-core, targetcli, fio...)"
if ! "$REPO/scripts/deps.sh" vm; then
	echo "demo: installing the dependencies failed (scripts/deps.sh vm)"
	echo "0 passed, 1 failed"
	exit 1
fi
if [ "$MODULE" = ours ]; then
	echo "demo: building our ib_srpt for $KVER"
	if ! build_module_locked "$out/build.log" || [ ! -f "$CACHE/build-$KVER/ib_srpt.ko" ]; then
		echo "demo: our module does not build yet (see $out/build.log): using the distribution's ib_srpt instead"
		MODULE=distro
	fi
fi
echo "demo: booting a QEMU guest (kernel $KVER, ib_srpt $MODULE); this takes about a minute"
"$REPO/scripts/vm.sh" --kver "$KVER" --module "$MODULE" --quiet --timeout 600 \
	--run "$REPO/tests/demo-guest.sh" --out "$out" >"$out/vm.log" 2>&1
rc=$?
echo
cat "$out/demo.txt" 2>/dev/null
echo
if [ $rc -eq 0 ]; then
	echo "1 passed, 0 failed"
else
	tail -n 5 "$out/vm.log"
	echo "demo: results in $out"
	echo "0 passed, 1 failed"
fi
exit $rc
