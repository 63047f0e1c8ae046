#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Static checks, tier 1: for the 6.1 and 6.12 headers a W=1 build and a
# sparse (C=1) pass, then kernel-doc and checkpatch --strict on the driver
# and its KUnit suites, then the patch series against the 6.12 tree
# (scripts/patch.sh --check; LINT_PATCH=0 skips it). Every check is one line
# PASS/FAIL; the run ends with "N passed, N failed" and exits non-zero on any
# failure.
set -uo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
. "$SRC/scripts/lib.sh"
CACHE=${CACHE:-/var/cache/ib_srpt}
KVERS=${LINT_KVERS:-6.1 6.12}
TOOLS=$CACHE/tools
LOG=$CACHE/lint
FILES=(ib_srpt.c ib_srpt.h ib_srpt_compat.h ib_srpt_trace.h)

"$SRC/scripts/deps.sh" build >/dev/null || exit 1
mkdir -p "$TOOLS" "$LOG"
pass=0 fail=0

result() { # name ok? logfile
	if [ "$2" = 0 ]; then
		echo "PASS $1"
		pass=$((pass + 1))
	else
		echo "FAIL $1 (see $3)"
		sed -n '1,40p' "$3" | sed 's/^/    /'
		fail=$((fail + 1))
	fi
}

kdir_for() {
	local rel
	rel=$(newest_headers "$1")
	[ -z "$rel" ] || echo "/lib/modules/$rel/build"
}

# checkpatch.pl and its data files come from the linux-source tarball; only
# scripts/ is unpacked, never the driver directories.
if [ ! -x "$TOOLS/scripts/checkpatch.pl" ]; then
	"$SRC/scripts/deps.sh" kunit >/dev/null || exit 1
	tarball=$(ls /usr/src/linux-source-6.12.tar.xz 2>/dev/null | head -n 1)
	tar -xJf "$tarball" -C "$TOOLS" --strip-components=1 \
		linux-source-6.12/scripts/checkpatch.pl \
		linux-source-6.12/scripts/spelling.txt \
		linux-source-6.12/scripts/const_structs.checkpatch ||
		{ echo "lint: cannot unpack checkpatch.pl" >&2; exit 1; }
fi

for kv in $KVERS; do
	kdir=$(kdir_for "$kv")
	out=$CACHE/lint-build-$kv
	log=$LOG/build-$kv.log
	if [ -z "$kdir" ]; then
		echo "no headers for $kv" >"$log"
		result "build $kv W=1 C=1" 1 "$log"
		continue
	fi
	rm -rf "$out"
	KDIR=$kdir BUILD_OUT=$out "$SRC/scripts/build.sh" W=1 C=1 >"$log" 2>&1
	rc=$?
	if [ $rc = 0 ] && grep -Eq 'warning:|error:' "$log"; then
		rc=1
	fi
	grep -E 'warning:|error:' "$log" >"$log.issues" || true
	[ -s "$log.issues" ] || cp "$log" "$log.issues"
	result "build $kv W=1 C=1 (sparse)" $rc "$log.issues"
done

kdoc=$(ls /usr/lib/linux-kbuild-6.12*/scripts/kernel-doc 2>/dev/null | head -n 1)
log=$LOG/kernel-doc.log
(cd "$SRC" && perl "$kdoc" -none -Wall "${FILES[@]}") >"$log" 2>&1
rc=$?
[ -s "$log" ] && rc=1
result "kernel-doc -none -Wall" $rc "$log"

log=$LOG/man.log
MAN_OUT=$LOG/man "$SRC/scripts/man.sh" >"$log" 2>&1
result "man pages (kernel-doc -man, every API name)" $? "$log"

log=$LOG/checkpatch.log
# The compat header is where version checks belong; nowhere else.
cp_run() { perl "$TOOLS/scripts/checkpatch.pl" --strict --no-tree --show-types "$@"; }
(cd "$SRC" && cp_run -f ib_srpt.c ib_srpt.h ib_srpt_trace.h kunit/*.c &&
	cp_run --ignore LINUX_VERSION_CODE,CONSTANT_COMPARISON -f ib_srpt_compat.h) >"$log" 2>&1
rc=$?
grep -q '^total: 0 errors, 0 warnings, 0 checks' "$log" || rc=1
grep -Ev '^total: 0 errors, 0 warnings, 0 checks|^$|has no obvious style problems|^NOTE:' "$log" \
	>"$log.issues" || true
result "checkpatch --strict" $rc "$log.issues"

# The kernel report pattern every runner greps with, against known lines.
log=$LOG/splat.log
: >"$log"
while IFS= read -r line; do
	case "$line" in
	"+ "*) grep -qaE "$SPLAT_RE" <<<"${line#+ }" || echo "missed: ${line#+ }" >>"$log" ;;
	"- "*) ! grep -qaE "$SPLAT_RE" <<<"${line#- }" || echo "matched: ${line#- }" >>"$log" ;;
	esac
done <"$SRC/tests/splat-samples.txt"
[ "$(grep -c '^[+-] ' "$SRC/tests/splat-samples.txt")" -ge 20 ] || echo "too few samples" >>"$log"
result "kernel report pattern (tests/splat-samples.txt)" "$([ -s "$log" ] && echo 1 || echo 0)" "$log"

# Sub-tier: the patch series against the 6.12 tree (make patch-check
# KTREE=6.12; under a minute warm). LINT_PATCH=0 skips it.
if [ "${LINT_PATCH:-1}" = 1 ]; then
	log=$LOG/patch.log
	KTREE=6.12 CACHE=$CACHE "$SRC/scripts/patch.sh" --check >"$log" 2>&1
	rc=$?
	grep -E '^(PASS|FAIL) ' "$log" >"$log.issues" || cp "$log" "$log.issues"
	[ $rc = 0 ] || grep -q '^FAIL ' "$log.issues" || tail -n 20 "$log" >>"$log.issues"
	result "patch series 6.12 (git am, in-tree W=1 build, checkpatch --strict)" $rc "$log.issues"
fi

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
