#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Turn this project into a patch series against a kernel tree.
#
#   scripts/patch.sh          (make patch KTREE=...)        write the series
#   scripts/patch.sh --check  (make patch-check KTREE=...)  write it, then check it
#   scripts/patch.sh --kunit                                 also run the KUnit
#                             suites (kunit.py, UML) on the patched tree
#
# The series (git format-patch, with a cover letter):
#   1 RDMA/srpt: remove the old driver       git rm of drivers/infiniband/ulp/srpt/
#                                            and its Kconfig/Makefile references
#   2 RDMA/srpt: add the new driver          ib_srpt.c/.h, trace and compat
#                                            headers, Kconfig, kbuild Makefile
#   3 RDMA/srpt: add KUnit suites            kunit/, its .kunitconfig, the Kconfig
#                                            symbol
#   4 RDMA/srpt: document ...                Documentation/infiniband/ib_srpt.rst,
#                                            its toctree entry, MAINTAINERS F: line
# Signed-off-by lines and the cover letter's MAINTAINERS block are left for
# the submitter. testing.rst and performance.rst describe this project's test
# bench and stay out of the series.
#
# The kernel tree is a git repository under $CACHE/patch/linux-<KTREE>
# (unpacked from the linux-source tarball once per package version, committed
# as "base"; the upstream srpt driver is only ever removed by a mechanical
# `git rm`). Every tree left behind has the upstream driver deleted.
#
# --check: `git am` of the series on a reset of the pristine tree, a W=1
# in-tree build of drivers/infiniband/ulp/ after each patch (minimal config,
# build output cached in $CACHE/patch/build-<KTREE>), checkpatch.pl --strict
# on every patch.
# Each check prints one PASS/FAIL line; the run ends with "N passed, N failed"
# and exits non-zero on a failure.
#
# Environment:
#   KTREE=6.12|newest  kernel tree (default 6.12)
#   SRPT_SRC=<dir>     project directory (default: this checkout)
#   CACHE=<dir>        cache root (default /var/cache/ib_srpt)
#   OUT=<dir>          where the series goes (default $CACHE/patch/out-<KTREE>)
#   PATCH_AUTHOR=...   "Name <email>" for From: and Signed-off-by: (default a
#                      placeholder for the submitter to replace)
set -euo pipefail

t0=$(date +%s)
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/scripts/lib.sh"
src=$(cd "${SRPT_SRC:-$here}" && pwd)
CACHE=${CACHE:-/var/cache/ib_srpt}
KTREE=${KTREE:-6.12}
PATCH_AUTHOR=${PATCH_AUTHOR:-Submitter Name <submitter@example.org>}
base=$CACHE/patch
OUT=${OUT:-$base/out-$KTREE}
SRPT_REL=drivers/infiniband/ulp/srpt
tree=$base/linux-$KTREE
build=$base/build-$KTREE
kbuild=$base/kunit-build-$KTREE
logs=$base/logs-$KTREE
check=0 kunit=0
for a in "$@"; do
	case "$a" in
	--check) check=1 ;;
	--kunit) kunit=1 ;;
	*) echo "usage: $0 [--check] [--kunit]" >&2; exit 2 ;;
	esac
done

die() {
	say "$*"
	echo "0 passed, 1 failed"
	exit 1
}
g() { git -C "$tree" "$@"; }

"$here/scripts/deps.sh" kunit >/dev/null || die "scripts/deps.sh kunit failed"
mkdir -p "$base" "$logs"

# One user of this tree at a time.
exec 9>"$base/prepare-$KTREE.lock"
flock 9

# --- Locate the tarball (shared with kunit.sh and its sid download) --------
if [ "$KTREE" = newest ]; then
	mkdir -p "$CACHE/kunit"
	exec 8>"$CACHE/kunit/prepare-newest.lock"
	say "waiting for $CACHE/kunit/prepare-newest.lock (the sid download)"
	flock 8
fi
ktree_tarball "$KTREE" "$CACHE/kunit/sid-apt" || die "no source tarball for KTREE=$KTREE"
[ "$KTREE" = newest ] && exec 8>&-

# --- The pristine tree as a git repository, once per version ---------------
# Commits "base" (the tarball as is) and "removal" (patch 1). Only git ever
# touches the upstream driver's files: nothing here reads them.
author_name=${PATCH_AUTHOR% <*}
author_mail=${PATCH_AUTHOR##*<}
author_mail=${author_mail%>}
export GIT_AUTHOR_NAME=$author_name GIT_AUTHOR_EMAIL=$author_mail
export GIT_COMMITTER_NAME=$author_name GIT_COMMITTER_EMAIL=$author_mail
sob="Signed-off-by: $PATCH_AUTHOR"

if [ "$(cat "$tree/.git/srpt-patch-version" 2>/dev/null)" != "$srcver" ]; then
	say "unpacking $(basename "$tarball") ($srcver) into $tree (a few minutes)"
	rm -rf "$tree" "$tree.tmp" "$build" "$kbuild"
	mkdir -p "$tree.tmp"
	tar -xJf "$tarball" -C "$tree.tmp" --strip-components=1 ||
		{ rm -rf "$tree.tmp"; die "cannot unpack $tarball"; }
	(
		cd "$tree.tmp"
		git init -q
		git config core.looseCompression 1
		git config gc.auto 0
		git add -f -A .
		git commit -q -m "Linux $srcver (linux-source tarball)"
		git tag base
		git rm -r -q "$SRPT_REL"
		sed -i "\|^source \"$SRPT_REL/Kconfig\"\$|d" drivers/infiniband/Kconfig
		sed -i '/^obj-\$(CONFIG_INFINIBAND_SRPT)[[:space:]]*+= srpt\/$/d' \
			drivers/infiniband/ulp/Makefile
		git add drivers/infiniband/Kconfig drivers/infiniband/ulp/Makefile
		git commit -q -F - <<-EOF
		RDMA/srpt: Remove the SRP target driver

		Remove drivers/infiniband/ulp/srpt/ and its Kconfig and Makefile
		references. The next patches add a new ib_srpt written from
		scratch in its place: same module name, module parameters,
		configfs layout and initiator-visible behaviour, so existing
		targetcli configurations keep working.

		Removing the old driver first keeps the replacement reviewable
		as plain additions; the tree builds at every step of the series.

		$sob
		EOF
		git tag removal
	) >"$logs/prepare.log" 2>&1 ||
		{ rm -rf "$tree.tmp"; die "cannot prepare the git tree (see $logs/prepare.log)"; }
	echo "$srcver" >"$tree.tmp/.git/srpt-patch-version"
	mv "$tree.tmp" "$tree"
fi

# Leave the tree on a branch without the upstream driver, whatever happens:
# at_base is 1 while the checked-out tree may hold it (a reset to "base"
# before `git am`).
at_base=0
restore_tree() {
	[ "$at_base" = 1 ] || return 0
	g am --abort >/dev/null 2>&1 || true
	g checkout -q -f series 2>/dev/null || g checkout -q -f removal
}
trap restore_tree EXIT

# --- Patches 2-4 on top of the removal --------------------------------------
for f in ib_srpt.c ib_srpt.h ib_srpt_trace.h ib_srpt_compat.h Kconfig Makefile \
	 kunit/.kunitconfig Documentation/ib_srpt.rst; do
	[ -f "$src/$f" ] || die "no $f in $src"
done
g checkout -q -f -B series removal
g clean -q -f -d -x
dst=$tree/$SRPT_REL
mkdir -p "$dst"

# The compat header for this kernel only: version checks resolved.
kv=$(make -s -C "$tree" kernelversion)
python3 - "$src/ib_srpt_compat.h" "$kv" "$tree" >"$dst/ib_srpt_compat.h" <<'EOF' ||
import os, re, sys
path, kv, tree = sys.argv[1], sys.argv[2], sys.argv[3]

def defined(name):
    # "#ifndef NAME" shims: does the tree's include/linux define NAME?
    pat = re.compile(r"#\s*define\s+" + re.escape(name) + r"\b")
    for d, _, files in os.walk(os.path.join(tree, "include", "linux")):
        for f in files:
            with open(os.path.join(d, f), errors="replace") as fh:
                if pat.search(fh.read()):
                    return True
    return False

ver = tuple(int(x) for x in re.findall(r"\d+", kv)[:3])
ops = {">=": lambda a, b: a >= b, "<": lambda a, b: a < b,
       ">": lambda a, b: a > b, "<=": lambda a, b: a <= b}
cond = re.compile(r"#if LINUX_VERSION_CODE (>=|<|>|<=) KERNEL_VERSION\((\d+), (\d+), (\d+)\)\s*$")
stack, out = [], []  # stack: [keep_this_branch, is_version_if]
for line in open(path):
    keep = all(k for k, _ in stack)
    m = cond.match(line)
    if m:
        stack.append([ops[m[1]](ver, tuple(int(m[i]) for i in (2, 3, 4))), True])
        continue
    m = re.match(r"#ifndef (\w+)\s*$", line)
    if m and m[1] != "IB_SRPT_COMPAT_H":
        stack.append([not defined(m[1]), True])
        continue
    if re.match(r"#\s*if", line):
        stack.append([True, False])
    elif re.match(r"#\s*else", line) and stack[-1][1]:
        stack[-1][0] = not stack[-1][0]
        continue
    elif re.match(r"#\s*endif", line):
        if stack.pop()[1]:
            continue
    if keep and "<linux/version.h>" not in line:
        out.append(line)
text = "".join(out)
text = re.sub(r"\n{3,}", "\n\n", text)
text = text.replace(" * Kernel version differences, all in one place. The driver is written\n"
                    " * against the newest API; older kernels are shimmed here.\n",
                    " * Target core and header differences, all in one place.\n")
if "LINUX_VERSION_CODE" in text or re.search(r"#ifndef (?!IB_SRPT_COMPAT_H)", text):
    sys.exit("unresolved version check left in ib_srpt_compat.h")
sys.stdout.write(text)
EOF
	die "cannot resolve ib_srpt_compat.h for $kv"

cp "$src/ib_srpt.c" "$src/ib_srpt.h" "$src/ib_srpt_trace.h" "$dst/"
# Makefile: the kbuild part of ours (between ifneq KERNELRELEASE and else).
{
	echo "# SPDX-License-Identifier: GPL-2.0-only"
	sed -n '/^ifneq (\$(KERNELRELEASE),)$/,/^else$/p' "$src/Makefile" |
		sed '1d;$d' | sed '/./,$!d'
} | cat -s >"$dst/Makefile"
grep -q '^obj-\$(CONFIG_INFINIBAND_SRPT) += ib_srpt.o$' "$dst/Makefile" ||
	die "no kbuild part in $src/Makefile"
# Kconfig without the KUnit symbol (patch 3 adds it).
sed '/^config INFINIBAND_SRPT_KUNIT_TEST$/,$d' "$src/Kconfig" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' \
	>"$dst/Kconfig"
# Put the references back where patch 1 took them out.
sed -i "s|^source \"drivers/infiniband/ulp/srp/Kconfig\"\$|&\nsource \"$SRPT_REL/Kconfig\"|" \
	"$tree/drivers/infiniband/Kconfig"
grep -q "^source \"$SRPT_REL/Kconfig\"\$" "$tree/drivers/infiniband/Kconfig" ||
	die "cannot add the Kconfig source line"
sed -i 's|^obj-\$(CONFIG_INFINIBAND_SRP)\([[:space:]]*\)+= srp/$|&\nobj-$(CONFIG_INFINIBAND_SRPT)\1+= srpt/|' \
	"$tree/drivers/infiniband/ulp/Makefile"
grep -q '^obj-\$(CONFIG_INFINIBAND_SRPT).*+= srpt/$' "$tree/drivers/infiniband/ulp/Makefile" ||
	die "cannot add the Makefile line"
g add -f -A
g commit -q -F - <<EOF
RDMA/srpt: Add a new SCSI RDMA Protocol target driver

Add ib_srpt, an SRP target for LIO written from scratch, in place of
the driver removed by the previous patch. It keeps the module name,
the module parameters, the configfs layout under /srpt and the target
port and ACL name forms, so targetcli/rtslib configurations and
initiators keep working unchanged.

Logins are accepted through the IB CM on InfiniBand ports and through
the RDMA/CM on RoCE and iWARP ports (rdma_cm_port), with one RDMA/CM
listener per network namespace. The data path uses the rdma_rw API,
immediate data, an optional shared receive queue per HCA and a send
queue budget that queues responses instead of overrunning the queue
pair. Device Management MADs answer srp_daemon's discovery. Channels,
TPGs, ACLs and HCAs can go away in any order: teardown waits for
in-flight commands, logs what it waits for, and a target port whose
HCA comes back (rdma link add, driver reload) is served again without
reconfiguration. Trace events and per-channel counters cover logins,
credits and the send queue.

$sob
EOF

# Patch 3: the KUnit suites and their Kconfig symbol.
mkdir -p "$dst/kunit"
cp "$src"/kunit/*.c "$src"/kunit/*.h "$src/kunit/.kunitconfig" "$dst/kunit/"
cp "$src/Kconfig" "$dst/Kconfig"
g add -f -A
g commit -q -F - <<EOF
RDMA/srpt: Add KUnit suites

Add KUnit suites for the parts of ib_srpt that do not need an HCA:
information unit parsing and descriptor checks, login request checks,
Device Management MAD replies, response building, channel state
transitions, target ports served again after an HCA comes back, send queue
pressure and the configfs name forms. The suites are compiled into the
driver (CONFIG_INFINIBAND_SRPT_KUNIT_TEST) so they reach its static
functions, and run under User Mode Linux:

  ./tools/testing/kunit/kunit.py run \\
	--kunitconfig=$SRPT_REL/kunit

$sob
EOF

# Patch 4: the admin guide, without this project's build and test bench.
mkdir -p "$tree/Documentation/infiniband"
python3 - "$src/Documentation/ib_srpt.rst" >"$tree/Documentation/infiniband/ib_srpt.rst" <<'EOF' ||
import re, sys
text = open(sys.argv[1]).read()
# Adornments are one repeated character.
text = re.sub(r"^(=+)[~]+$", lambda m: "=" * len(m[0]), text, flags=re.M)
# Sections about this project, not the driver: drop them.
for title in ("What is tested live", "How it differs from the in-kernel driver", "Testing"):
    text = re.sub(r"^%s\n=+\n.*?(?=^[^\n]+\n=+\n|\Z)" % re.escape(title), "",
                  text, flags=re.M | re.S)
# Out-of-tree installation hints.
text = re.sub(r" \(or ``insmod ib_srpt\.ko`` for an out-of-tree build;.*?``README\.md``\)",
              "", text, flags=re.S)
text = re.sub(r"Build and install ours \(``make install`` or ``make dkms``, see\s+``README\.md``\), then\s+",
              "``CONFIG_INFINIBAND_SRPT=m``, then\n   ", text, flags=re.S)
text = text.rstrip("\n") + "\n"
for bad in ("README.md", "make install", "make dkms", "make check", "testing.rst"):
    if bad in text:
        print("patch: Documentation: '%s' left in ib_srpt.rst" % bad, file=sys.stderr)
sys.stdout.write(text)
EOF
	die "cannot write Documentation/infiniband/ib_srpt.rst"
idx=$tree/Documentation/infiniband/index.rst
python3 - "$idx" <<'EOF' || die "cannot add the toctree entry to $idx"
import re, sys
p = sys.argv[1]
s = open(p).read()
m = re.search(r"\.\. toctree::\n(?:   :[^\n]*\n)*\n((?:   \S[^\n]*\n)+)", s)
entries = m[1].split("\n")[:-1] + ["   ib_srpt"]
entries = sorted(set(entries), key=lambda e: e.strip())
s = s[:m.start(1)] + "\n".join(entries) + "\n" + s[m.end(1):]
open(p, "w").write(s)
EOF
# The new file under the existing MAINTAINERS entry of the driver.
perl -0 -i -pe "s|(\nSCSI RDMA PROTOCOL \(SRP\) TARGET\n(?:[A-Z]:\t[^\n]*\n)*?)(F:\t\Q$SRPT_REL\E/\n)|\$1F:\tDocumentation/infiniband/ib_srpt.rst\n\$2|" \
	"$tree/MAINTAINERS"
grep -q '^F:	Documentation/infiniband/ib_srpt.rst$' "$tree/MAINTAINERS" ||
	say "MAINTAINERS: no 'SCSI RDMA PROTOCOL (SRP) TARGET' entry to extend"
g add -f -A
g commit -q -F - <<EOF
RDMA/srpt: Document the SRP target driver

Add an admin guide for ib_srpt to Documentation/infiniband/: module
parameters, configuration with targetcli (configfs names, ACLs, T10
protection information, persistent reservations, attributes), how
initiators log in over InfiniBand, RoCE and iWARP, network namespaces,
behaviour under load, trace events and counters, and teardown. List it
under the driver's MAINTAINERS entry.

$sob
EOF

# --- format-patch and the cover letter --------------------------------------
rm -rf "$OUT"
mkdir -p "$OUT"
g format-patch -q --cover-letter --no-signature -o "$OUT" base..series
cover=$(ls "$OUT"/0000-*.patch)
differs=$(python3 - "$src/Documentation/ib_srpt.rst" <<'EOF'
import re, sys
s = open(sys.argv[1]).read()
m = re.search(r"^How it differs from the in-kernel driver\n=+~*\n\n(.*?)(?=^[^\n]+\n=+~*\n|\Z)",
              s, flags=re.M | re.S)
print(m[1].strip() if m else "")
EOF
)
blurb=$(cat <<EOF
This series replaces the SCSI RDMA Protocol target driver in
$SRPT_REL/ with ib_srpt, a driver written from scratch for
LIO. It keeps the module name, the module parameters, the configfs
layout and the target port and ACL name forms, so existing targetcli
configurations and initiators (Linux ib_srp, srp_daemon) keep working.

Patch 1 removes the old driver, patch 2 adds the new one, patch 3 adds
KUnit suites that run under User Mode Linux
(./tools/testing/kunit/kunit.py run --kunitconfig=$SRPT_REL/kunit),
patch 4 adds the admin guide, Documentation/infiniband/ib_srpt.rst.
The tree builds at every patch.

Against Linux $kv. Tested with the KUnit suites, and with end-to-end
logins and I/O over soft-RoCE and soft-iWARP (fio verify, initiator
and HCA removal, target teardown under load) on Debian kernels and on a
KASAN/lockdep/kmemleak kernel.

Compared with the driver it replaces: $differs

MAINTAINERS (to be filled in by the submitter; patch 4 only adds the
documentation file to the existing entry):

SCSI RDMA PROTOCOL (SRP) TARGET
M:	<name> <email>
L:	linux-rdma@vger.kernel.org
L:	target-devel@vger.kernel.org
S:	<Supported|Maintained>
F:	Documentation/infiniband/ib_srpt.rst
F:	$SRPT_REL/
EOF
)
BLURB=$blurb python3 - "$cover" <<'EOF' || die "cannot write the cover letter"
import os, sys
p = sys.argv[1]
s = open(p).read()
s = s.replace("*** SUBJECT HERE ***", "RDMA/srpt: Replace the SRP target driver")
s = s.replace("*** BLURB HERE ***", os.environ["BLURB"])
open(p, "w").write(s)
EOF
say "series for Linux $kv ($KTREE, $srcver):"
for p in "$OUT"/*.patch; do
	echo "  $(basename "$p")"
done
echo "series: $OUT"

[ "$check" = 1 ] || [ "$kunit" = 1 ] || exit 0

# --- Checks -------------------------------------------------------------------
pass=0 fail=0
result() { # name status log
	local s=$(($(date +%s) - ct))
	if [ "$2" = 0 ]; then
		echo "PASS $1 (${s}s)"
		pass=$((pass + 1))
	else
		echo "FAIL $1 (${s}s, see $3)"
		fail=$((fail + 1))
	fi
}
patches=()
for p in "$OUT"/*.patch; do
	[[ "$p" == */0000-* ]] || patches+=("$p")
done

# git am on a reset of the pristine tree.
ct=$(date +%s)
log=$logs/am.log
at_base=1
g checkout -q -f -B check base
if g am -q "${patches[@]}" >"$log" 2>&1 && g diff --quiet series check; then
	at_base=0
	result "git am (${#patches[@]} patches on Linux $kv)" 0 "$log"
else
	result "git am (${#patches[@]} patches on Linux $kv)" 1 "$log"
	restore_tree
	at_base=0
fi

if [ "$check" = 1 ]; then
	# In-tree W=1 build of the driver and its suites, minimal config.
	ct=$(date +%s)
	log=$logs/build.log
	syms=(MODULES NET INET BLOCK SCSI CONFIGFS_FS TARGET_CORE INFINIBAND
	      INFINIBAND_ADDR_TRANS INFINIBAND_SRPT KUNIT INFINIBAND_SRPT_KUNIT_TEST)
	say "in-tree W=1 build: waiting for $(heavy_lock)"
	exec 7>"$(heavy_lock)"
	flock 7
	want="m:TARGET_CORE m:INFINIBAND y:INFINIBAND_ADDR_TRANS m:INFINIBAND_SRPT y:KUNIT y:INFINIBAND_SRPT_KUNIT_TEST"
	rc=0
	(
		set -e
		mk() { make -s -C "$tree" O="$build" -j2 "$@"; }
		cfg() {
			for s in "${syms[@]}"; do
				"$tree/scripts/config" --file "$build/.config" -e "$s"
			done
			for s in TARGET_CORE INFINIBAND INFINIBAND_SRPT; do
				"$tree/scripts/config" --file "$build/.config" -m "$s"
			done
			mk olddefconfig
		}
		if [ ! -f "$build/.config" ] || [ "$(cat "$build/.srpt-syms" 2>/dev/null)" != "${syms[*]}" ]; then
			rm -rf "$build"
			mkdir -p "$build"
			mk allnoconfig
			cfg
			echo "${syms[*]}" >"$build/.srpt-syms"
		fi
		mk modules_prepare
		# Every patch builds: drivers/infiniband/ulp/ after each of them.
		for n in $(seq $((${#patches[@]} - 1)) -1 0); do
			g checkout -q "check~$n"
			echo "== check~$n: $(g log -1 --format=%s)"
			cfg
			rm -rf "${build:?}/$SRPT_REL"
			mk W=1 drivers/infiniband/ulp/
		done
		g checkout -q check
		for w in $want; do
			grep -q "^CONFIG_${w#*:}=${w%%:*}\$" "$build/.config" ||
				{ echo "config: CONFIG_${w#*:} is not ${w%%:*}"; exit 1; }
		done
		[ -f "$build/$SRPT_REL/ib_srpt.o" ]
	) >"$log" 2>&1 7>&- 9>&- || rc=$?
	exec 7>&-
	grep -E 'warning:|error:' "$log" >"$log.issues" && rc=1
	[ -s "$log.issues" ] || cp "$log" "$log.issues"
	result "in-tree build W=1 after each patch (INFINIBAND_SRPT=m, KUnit symbol on)" $rc "$log.issues"

	# checkpatch --strict on every patch, from the tree. Files a patch adds
	# or removes under drivers/infiniband/ulp/srpt/ are covered by the
	# driver's MAINTAINERS entry, so checkpatch's "does MAINTAINERS need
	# updating?" question is answered there (patch 4 edits MAINTAINERS).
	for p in "${patches[@]}"; do
		ct=$(date +%s)
		name=$(basename "$p")
		log=$logs/checkpatch-${name%.patch}.log
		rc=0
		(cd "$tree" && perl scripts/checkpatch.pl --strict --show-types \
			--ignore FILE_PATH_CHANGES "$p") >"$log" 2>&1 || rc=$?
		grep -q '^total: 0 errors, 0 warnings, 0 checks' "$log" || rc=1
		if [[ "$name" == 0001-* ]]; then
			# The removal: its body is the upstream driver; report only
			# pass/fail, never its messages.
			result "checkpatch --strict $name (removal, output not shown)" $rc "$log"
		else
			result "checkpatch --strict $name" $rc "$log"
			[ $rc = 0 ] || grep -E '^(ERROR|WARNING|CHECK):' "$log" | head -n 20 | sed 's/^/    /'
		fi
	done
fi

if [ "$kunit" = 1 ]; then
	ct=$(date +%s)
	log=$logs/kunit.log
	say "kunit.py on the patched tree: waiting for $(heavy_lock)"
	set +e
	(cd "$tree" && flock "$(heavy_lock)" python3 tools/testing/kunit/kunit.py run \
		--arch=um --kunitconfig="$SRPT_REL/kunit" --build_dir="$kbuild" --jobs=2) \
		>"$log" 2>&1 9>&-
	rc=$?
	set -e
	summary=$(grep -E 'Testing complete\.' "$log" | tail -n 1 || true)
	echo "kunit on the patched tree: ${summary:-no test summary}"
	result "kunit.py run --kunitconfig=$SRPT_REL/kunit" $rc "$log"
	rm -f "$tree/.kunitconfig"
fi

echo "patch ($KTREE, Linux $kv): $(( $(date +%s) - t0 ))s"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
