#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Installed the admin way, loaded by name: `make install KO=...` puts our
# module in /lib/modules/<release>/updates (depmod), /etc/modprobe.d gives
# rdma_cm_port, plain `modprobe ib_srpt` must load ours (not the kernel's
# own ib_srpt in kernel/), and the initiator logs in without anyone writing
# discovery_auth/rdma_cm_port. Then DKMS: `make dkms` builds and installs
# for every installed kernel (6.1 and 6.12) and modprobe loads that build.
# timeout: 900
. "$REPO/tests/lib.sh"
set -e
[ "$MODULE" = ours ] || { log "MODULE=$MODULE: nothing to install"; exit 0; }
rel=$(uname -r)
upd=/lib/modules/$rel/updates/ib_srpt.ko
cleanup() {
	rm -f "$upd" /etc/modprobe.d/ib_srpt.conf
	rm -rf "/lib/modules/$rel/updates/dkms"
	depmod -a "$rel" 2>/dev/null || true
}
trap cleanup EXIT
file_build_id() { readelf -n "$1" | sed -n 's/.*Build ID: *//p'; }
loaded_build_id() {
	tail -c 20 /sys/module/ib_srpt/notes/.note.gnu.build-id | od -An -tx1 | tr -d ' \n'
}
rxe_setup
srpt_deps
# lib.sh's srpt_load would blacklist the name; this scenario loads by name.
rm -f /etc/modprobe.d/zz-ib-srpt-ours.conf
distro=$(modinfo -n ib_srpt)
log "before: modprobe ib_srpt would load $distro"

make -C "$REPO" --no-print-directory install KO="$KO" >&2
expect_eq "modinfo -n ib_srpt after make install" "$(modinfo -n ib_srpt)" "$upd"
echo "options ib_srpt rdma_cm_port=$RDMA_CM_PORT" >/etc/modprobe.d/ib_srpt.conf
modprobe ib_srpt
# The loaded module is that file: same GNU build ID (no srcversion without
# MODULE_VERSION), out-of-tree taint, a parameter only ours has.
expect_eq "build ID of the loaded ib_srpt" "$(loaded_build_id)" "$(file_build_id "$KO")"
grep -q O /sys/module/ib_srpt/taint || die "loaded ib_srpt is not out of tree"
expect_eq "rdma_cm_port parameter (ours only)" \
	"$(cat /sys/module/ib_srpt/parameters/rdma_cm_port)" "$RDMA_CM_PORT"
dmesg | grep -q "RDMA/CM listener on .*port $RDMA_CM_PORT" || die "no RDMA/CM listener at load"

dev=$(bs_null nb0 64)
bs=$(lio_iblock nb0 "$dev")
lio_serial "$bs" e2e-install-nb0
w=$SRPT_CFS/$(srpt_wwn)
mkdir -p "$w/tpgt_1"
expect_eq "discovery_auth/rdma_cm_port from the module parameter" \
	"$(cat "$SRPT_CFS/discovery_auth/rdma_cm_port")" "$RDMA_CM_PORT"
serve_verify_unload "$bs" e2e-install-nb0

# DKMS, for every installed kernel with headers (here 6.1 and 6.12): two
# module builds and depmods under TCG, several minutes, so only with
# E2E_DKMS=1 (make e2e E2E_ONLY=85 E2E_DKMS=1), not in make check.
if [ "${E2E_DKMS:-0}" != 1 ]; then
	log "make install and modprobe ib_srpt: ours (DKMS part skipped, E2E_DKMS=1 runs it)"
	exit 0
fi
command -v dkms >/dev/null || die "dkms is not installed (scripts/deps.sh dkms)"
rm -f "$upd"
depmod -a "$rel"
make -C "$REPO" --no-print-directory dkms KVER= >/tmp/dkms.log 2>&1 || { tail -n 30 /tmp/dkms.log >&2; die "make dkms"; }
tail -n 8 /tmp/dkms.log >&2
n=0
for k in $(ls -d /lib/modules/*/build | cut -d/ -f4); do
	got=$(modinfo -k "$k" -n ib_srpt)
	expect_eq "$k: modprobe ib_srpt resolves to" "$got" "/lib/modules/$k/updates/dkms/ib_srpt.ko"
	expect_eq "$k: vermagic of the DKMS build" "$(modinfo -F vermagic "$got" | cut -d' ' -f1)" "$k"
	n=$((n + 1))
done
[ "$n" -ge 2 ] || die "DKMS built for $n kernel(s), expected 6.1 and 6.12"
modprobe ib_srpt
expect_eq "build ID of the loaded ib_srpt (the DKMS build)" "$(loaded_build_id)" \
	"$(file_build_id "/lib/modules/$rel/updates/dkms/ib_srpt.ko")"
expect_eq "rdma_cm_port of the DKMS-built ib_srpt" \
	"$(cat /sys/module/ib_srpt/parameters/rdma_cm_port)" "$RDMA_CM_PORT"
modprobe -r ib_srpt
log "make install, make dkms and modprobe ib_srpt: ours every time"
