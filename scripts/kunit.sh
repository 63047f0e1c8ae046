#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Run the ib_srpt KUnit suites under User Mode Linux.
#
#   scripts/kunit.sh              (make kunit)               6.12 LTS tree
#   KTREE=newest scripts/kunit.sh (make kunit KTREE=newest)  newest Debian sid tree
#
# Prepares a kernel tree under $CACHE/kunit/ (unpacked once per source package
# version, with the upstream srpt driver removed), replaces its
# drivers/infiniband/ulp/srpt/ with symlinks to this project's files, and runs
# tools/testing/kunit/kunit.py with kunit/.kunitconfig. Ends with a line
# "N passed, N failed"; exits non-zero on any failure, crash or build error.
#
# Environment:
#   KTREE=6.12|newest  kernel tree to use (default 6.12)
#   SRPT_SRC=<dir>     project directory to test (default: this checkout)
#   CACHE=<dir>        cache root (default /var/cache/ib_srpt)
#   KUNIT_ARGS=...     extra kunit.py arguments (e.g. a suite glob)
#   ONLY=...           the selector every runner takes (scripts/lib.sh)
#   KUNIT_BUILD_ONLY=1 prepare and build the UML kernel, run nothing (make
#                      check builds it in the background while guests run)
set -euo pipefail

t0=$(date +%s)
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/scripts/lib.sh"
src=$(cd "${SRPT_SRC:-$here}" && pwd)
CACHE=${CACHE:-/var/cache/ib_srpt}
KTREE=${KTREE:-6.12}
HEAVY_LOCK=$(heavy_lock)
base=$CACHE/kunit
SRPT_REL=drivers/infiniband/ulp/srpt
PY=/usr/bin/python3

fail() {
	say "$*"
	echo "0 passed, 1 failed"
	exit 1
}

"$here/scripts/deps.sh" kunit || fail "scripts/deps.sh kunit failed"
# ONLY= (scripts/lib.sh) selects suites when KUNIT_ARGS does not.
if [ -n "${ONLY:-}" ] && [ -z "${KUNIT_ARGS:-}" ]; then
	KUNIT_ARGS=$(REPO=$src only_kunit)
	[ -n "$KUNIT_ARGS" ] || fail "ONLY=$ONLY names no KUnit suite"
fi
[ -x "$PY" ] || PY=python3
mkdir -p "$base"

# One preparer per tree at a time (unpacking, symlink replacement, build).
exec 9>"$base/prepare-$KTREE.lock"
flock 9

# --- Locate the source tarball for the requested tree ----------------------
# Sets tarball and srcver; the sid download lives in $base/sid-apt.
ktree_tarball "$KTREE" "$base/sid-apt" || fail "no source tarball for KTREE=$KTREE"

tree=$base/linux-$KTREE
build=$base/build-$KTREE

# --- Unpack once per version, never letting the upstream srpt sources out --
unpack_tree "$tarball" "$srcver" "$tree" "$build" || fail "cannot unpack $tarball"

# --- Put our files in place ------------------------------------------------
[ -f "$src/ib_srpt.c" ] || fail "no ib_srpt.c in $src"
[ -f "$src/kunit/.kunitconfig" ] || fail "no kunit/.kunitconfig in $src"
dst=$tree/$SRPT_REL
mkdir -p "$dst"
for f in Makefile Kconfig ib_srpt.c ib_srpt.h ib_srpt_compat.h ib_srpt_trace.h; do
	[ -e "$src/$f" ] && ln -s "$src/$f" "$dst/$f"
done
# A real kunit/ directory of symlinked files: a symlinked directory would
# make "../ib_srpt.h" resolve relative to the project, not to $dst.
mkdir -p "$dst/kunit"
cp -rs "$src/kunit/." "$dst/kunit/"

# Objects built from a previous source set may look newer than the files the
# symlinks point at now: always rebuild the driver.
rm -rf "${build:?}/$SRPT_REL"
mkdir -p "$build"

# --- Build and run under the shared heavy lock ------------------------------
log=$base/last-$KTREE.log
say "waiting for $HEAVY_LOCK"
set +e
if [ "${KUNIT_BUILD_ONLY:-0}" = 1 ]; then
	(cd "$tree" && flock "$HEAVY_LOCK" "$PY" tools/testing/kunit/kunit.py build \
		--arch=um --kunitconfig="$src/kunit" --build_dir="$build" --jobs=2) >"$base/build-only-$KTREE.log" 2>&1
	rc=$?
	say "UML build only: status $rc in $(( $(date +%s) - t0 ))s (log $base/build-only-$KTREE.log)"
	exit "$rc"
fi
# shellcheck disable=SC2086
(cd "$tree" && flock "$HEAVY_LOCK" "$PY" tools/testing/kunit/kunit.py run \
	--arch=um --kunitconfig="$src/kunit" --build_dir="$build" --jobs=2 \
	${KUNIT_ARGS:-}) 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
set -e

# --- Summary ---------------------------------------------------------------
elapsed=$(( $(date +%s) - t0 ))
summary=$(grep -E 'Testing complete\.' "$log" | tail -n 1 || true)
passed=0 failed=0
if [ -n "$summary" ]; then
	num() { echo "$summary" | grep -oE "$1: [0-9]+" | grep -oE '[0-9]+' || echo 0; }
	passed=$(num passed)
	failed=$(( $(num failed) + $(num crashed) + $(num errors) ))
fi
echo "----"
echo "kunit ($KTREE, $srcver): ${summary:-no test summary (build error or crash)}; ${elapsed}s"
if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then
	failed=1	# build error, crash or missing tests
fi
# Fewer results than the sources define is a failure too: every suite of
# kunit/*.c must report, and every KUNIT_CASE gives at least one result
# (a parameterised one gives one per row). Only for a run of everything.
if [ -z "${KUNIT_ARGS:-}" ] && [ -n "$summary" ]; then
	missing=
	for s in $(sed -n 's/^[[:space:]]*\.name = "\(ib_srpt[a-z0-9_]*\)",.*/\1/p' "$src"/kunit/*.c | sort -u); do
		grep -qE "\[(PASSED|FAILED|SKIPPED)\] $s =" "$log" || missing+=" $s"
	done
	ncases=$(cat "$src"/kunit/*.c | grep -cE '^[[:space:]]*KUNIT_CASE(_PARAM|_SLOW)?\(')
	if [ -n "$missing" ]; then
		echo "kunit: suites defined but not reported:$missing"
		failed=$((failed + 1))
	fi
	if [ $((passed + failed)) -lt "$ncases" ]; then
		echo "kunit: $((passed + failed)) results, fewer than the $ncases cases defined"
		failed=$((failed + 1))
	fi
	# Rows of a table case cannot be counted from the source: the floor
	# is recorded; raise it with new tests, lower it only on purpose.
	floor=$(grep -v '^#' "$src/kunit/min-results" 2>/dev/null | head -n 1)
	if [ -z "$floor" ]; then
		echo "kunit: kunit/min-results is missing"
		failed=$((failed + 1))
	elif [ $((passed + failed)) -lt "$floor" ]; then
		echo "kunit: $((passed + failed)) results, fewer than the $floor of kunit/min-results (a table lost rows?)"
		failed=$((failed + 1))
	fi
fi
echo "$passed passed, $failed failed"
[ "$rc" -eq 0 ] && [ "$failed" -eq 0 ]
