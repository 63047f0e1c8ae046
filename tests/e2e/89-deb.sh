#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The Debian package: `apt install ./ib-srpt-dkms_<version>_all.deb` (built
# on the host by `make deb`, passed as SRPT_DEB) builds the module with DKMS
# for every kernel here with headers (6.1 and 6.12: dh_dkms alone builds for
# the running and the newest one, the package's postinst for the rest);
# `modprobe ib_srpt` then loads that build and an initiator logs in and
# does verified I/O; `apt remove` takes every build away and `modprobe
# ib_srpt` resolves to the kernel's own module again.
# timeout: 1200
. "$REPO/tests/lib.sh"
set -e
[ "$MODULE" = ours ] || { log "MODULE=$MODULE: the package is ours only"; exit 0; }
[ -n "${SRPT_DEB:-}" ] && [ -r "$SRPT_DEB" ] || die "no package (make deb failed on the host?)"
rel=$(uname -r)
hidden=
cleanup() {
	for b in $hidden; do
		[ -e "$b.e2e-hidden" ] && mv "$b.e2e-hidden" "$b"
	done
	rm -f /etc/modprobe.d/ib_srpt.conf
	apt-get remove -y -qq ib-srpt-dkms ib-srpt-tools >/dev/null 2>&1 || true
}
trap cleanup EXIT
# DKMS compresses the module as the kernel's own are (6.12: .ko.xz).
file_build_id() {
	case "$1" in
	*.xz) xz -dc "$1" >/tmp/deb-ko.ko && set -- /tmp/deb-ko.ko ;;
	esac
	readelf -n "$1" | sed -n 's/.*Build ID: *//p'
}
loaded_build_id() {
	tail -c 20 /sys/module/ib_srpt/notes/.note.gnu.build-id | od -An -tx1 | tr -d ' \n'
}
rxe_setup
srpt_deps
rm -f /etc/modprobe.d/zz-ib-srpt-ours.conf
# Another scenario's `make dkms` may have registered the same version.
for v in $(dkms status -m ib_srpt 2>/dev/null | sed -n 's|^ib_srpt/\([^,:]*\).*|\1|p' | sort -u); do
	dkms remove -m ib_srpt -v "$v" --all >/dev/null 2>&1 || true
done
distro=$(modinfo -n ib_srpt)
case "$distro" in
*/kernel/*) log "before: modprobe ib_srpt would load $distro" ;;
*) die "before the package, ib_srpt resolves to $distro, not the kernel's" ;;
esac
# Each DKMS build takes minutes under TCG: make check (E2E_DKMS=0) builds
# for the running kernel only, the other kernels' headers moved aside for
# the install; E2E_DKMS=1 builds for all of them (6.1 and 6.12).
if [ "${E2E_DKMS:-0}" != 1 ]; then
	for b in /lib/modules/*/build; do
		[ "$b" = "/lib/modules/$rel/build" ] && continue
		mv "$b" "$b.e2e-hidden" && hidden="$hidden $b"
	done
fi
kernels=$(ls -d /lib/modules/*/build | cut -d/ -f4)
if [ "${E2E_DKMS:-0}" = 1 ]; then
	[ "$(echo "$kernels" | wc -w)" -ge 2 ] || die "fewer than two kernels with headers: $kernels"
fi

# man-db's trigger re-indexes every manual page after the install and the
# remove, which takes long under TCG; nothing here reads the index (the
# guest's writes are its own, the host keeps its setting).
rm -f /var/lib/man-db/auto-update
tools_deb=$(ls "$(dirname "$SRPT_DEB")"/ib-srpt-tools_*.deb 2>/dev/null | head -n 1)
[ -n "$tools_deb" ] || die "no ib-srpt-tools package beside $SRPT_DEB"
log "apt install $SRPT_DEB $tools_deb"
t0=$(date +%s)
apt-get install -y --no-install-recommends "$SRPT_DEB" "$tools_deb" >/tmp/deb-install.log 2>&1 ||
	{ tail -n 30 /tmp/deb-install.log >&2; die "apt install of the package"; }
log "installed in $(( $(date +%s) - t0 ))s"
cp /tmp/deb-install.log /out/89-deb/ 2>/dev/null || true
grep -E "Building for|Forcing|Installing to|Error|ib-srpt-dkms: " /tmp/deb-install.log >&2 || true
for b in $hidden; do
	mv "$b.e2e-hidden" "$b"
done
expect_eq "package state" "$(dpkg-query -W -f='${Status}' ib-srpt-dkms)" "install ok installed"
expect_eq "tools package state" "$(dpkg-query -W -f='${Status}' ib-srpt-tools)" "install ok installed"
expect_eq "srp-discover on the PATH" "$(command -v srp-discover)" /usr/sbin/srp-discover
[ -s /usr/share/man/man8/srp-discover.8.gz ] || die "no srp-discover man page"
rc=0
srp-discover >/dev/null 2>&1 || rc=$?
expect_eq "srp-discover without a target: exit status" "$rc" 2
for k in $kernels; do
	got=$(modinfo -k "$k" -n ib_srpt)
	expect_eq "$k: modprobe ib_srpt resolves to" "${got%.xz}" "/lib/modules/$k/updates/dkms/ib_srpt.ko"
	expect_eq "$k: vermagic of the DKMS build" "$(modinfo -F vermagic "$got" | cut -d' ' -f1)" "$k"
done

echo "options ib_srpt rdma_cm_port=$RDMA_CM_PORT" >/etc/modprobe.d/ib_srpt.conf
modprobe ib_srpt
expect_eq "build ID of the loaded ib_srpt" "$(loaded_build_id)" \
	"$(file_build_id "$(modinfo -n ib_srpt)")"
expect_eq "rdma_cm_port parameter (ours only)" \
	"$(cat /sys/module/ib_srpt/parameters/rdma_cm_port)" "$RDMA_CM_PORT"
dev=$(bs_null nb0 64)
bs=$(lio_iblock nb0 "$dev")
lio_serial "$bs" e2e-deb-nb0
mkdir -p "$SRPT_CFS/$(srpt_wwn)/tpgt_1"
serve_verify_unload "$bs" e2e-deb-nb0

log "apt remove ib-srpt-dkms ib-srpt-tools"
t0=$(date +%s)
apt-get remove -y ib-srpt-dkms ib-srpt-tools >/tmp/deb-remove.log 2>&1 ||
	{ tail -n 30 /tmp/deb-remove.log >&2; die "apt remove of the packages"; }
log "removed in $(( $(date +%s) - t0 ))s"
cp /tmp/deb-remove.log /out/89-deb/ 2>/dev/null || true
[ ! -e /usr/sbin/srp-discover ] || die "srp-discover is still there after apt remove"
for k in $kernels; do
	[ -z "$(ls /lib/modules/$k/updates/dkms/ib_srpt.ko* 2>/dev/null)" ] ||
		die "$k: the DKMS build is still there after apt remove"
	got=$(modinfo -k "$k" -n ib_srpt)
	case "$got" in
	*/kernel/*) log "$k: ib_srpt resolves to the kernel's $got" ;;
	*) die "$k: after apt remove, ib_srpt resolves to $got" ;;
	esac
done
[ -z "$(dkms status -m ib_srpt 2>/dev/null)" ] || die "dkms still lists ib_srpt: $(dkms status -m ib_srpt)"
modprobe ib_srpt
grep -q O /sys/module/ib_srpt/taint && die "the module loaded after apt remove is out of tree"
modprobe -r ib_srpt
log "package: installed for $(echo $kernels), loaded, served I/O, removed"
