#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# `make deb`: build ib-srpt-dkms_<version>_all.deb (the module, as DKMS
# source) and ib-srpt-tools_<version>_<arch>.deb (srp-discover) with Debian's
# own tooling (debhelper and dh-dkms; packaging/debian/), then run lintian.
# The version is dkms.conf's plus the commit, e.g. 1.0+g1541f4f (the one
# `make dkms` uses). Installing the package builds the module with DKMS for
# the installed kernels with headers; removing it gives the kernel's own
# ib_srpt back.
# Environment: DEB_OUT (where the .deb goes; default ./out), CACHE (the
# build tree goes to $CACHE/deb), LINTIAN (0: skip lintian).
# Prints the tools package's path, then the DKMS package's on the last line.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${CACHE:-/var/cache/ib_srpt}
out=${DEB_OUT:-$REPO/out}
# shellcheck source=scripts/lib.sh
. "$REPO/scripts/lib.sh"

"$REPO/scripts/deps.sh" deb

v=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$REPO/dkms.conf")
h=$(git -C "$REPO" rev-parse --short HEAD 2>/dev/null || true)
ver=$v${h:++g$h}
tree=$CACHE/deb/ib-srpt-$ver
rm -rf "$tree"
mkdir -p "$tree" "$out"
cp -r "$REPO"/{Makefile,Kconfig,ib_srpt.c,ib_srpt.h,ib_srpt_compat.h,ib_srpt_trace.h,kunit,tools} "$tree/"
cp -r "$REPO/packaging/debian" "$tree/debian"
# dh_dkms puts the version where the template says #MODULE_VERSION#.
sed 's/^PACKAGE_VERSION=.*/PACKAGE_VERSION="#MODULE_VERSION#"/' "$REPO/dkms.conf" \
	>"$tree/debian/ib-srpt-dkms.dkms"
cat >"$tree/debian/changelog" <<EOT
ib-srpt ($ver) unstable; urgency=medium

  * Built from ${h:-an unversioned tree}.

 -- ib_srpt developers <ib-srpt@lists.example.org>  $(date -R)
EOT
say "building ib-srpt-dkms $ver in $tree"
(cd "$tree" && dpkg-buildpackage -b -us -uc -tc) >"$CACHE/deb/build.log" 2>&1 ||
	{ tail -n 30 "$CACHE/deb/build.log" >&2; say "dpkg-buildpackage failed (log: $CACHE/deb/build.log)"; exit 1; }
deb=ib-srpt-dkms_${ver}_all.deb
tools=ib-srpt-tools_${ver}_$(dpkg --print-architecture).deb
mv "$CACHE/deb/$deb" "$CACHE/deb/$tools" "$out/"
rm -f "$CACHE/deb/"ib-srpt_"$ver"_*.{buildinfo,changes} "$CACHE/deb/"ib-srpt-tools-dbgsym_"$ver"_*
if [ "${LINTIAN:-1}" = 1 ]; then
	say "lintian:"
	lintian --info "$out/$deb" "$out/$tools" >&2 || { say "lintian found errors"; exit 1; }
fi
echo "$out/$tools"
echo "$out/$deb"
