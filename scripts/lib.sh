# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# Helpers shared by the scripts in scripts/ (sourced, never run); tests/lib.sh
# sources it too, for SPLAT_RE:
#   SPLAT_RE                 kernel splat lines (grep -E) in dmesg or a console
#   heavy_lock               path of the machine-wide lock that serializes
#                            heavy jobs (QEMU guests, kernel/module builds)
#   build_module_locked LOG  `make module` for KVER into CACHE under that lock
#   headers_releases [K]     releases with kernel headers (/lib/modules/<r>/build)
#   newest_headers [K]       the newest of them
#   ktree_tarball KTREE DIR  the linux-source tarball of a test kernel tree
#   say MSG                  "<script>: MSG" on stderr
#   scenario_in LIST NAME    the comma list LIST names scenario NN-name
# and for the runners that boot a guest (e2e.sh, hostile.sh, soak.sh,
# bench.sh):
#   runner_setup             CACHE, KVER and MODULE defaults
#   results_dir NAME         a new $CACHE/results/NAME-<UTC time>
#   runner_build_module WHAT LOG  `make module` for KVER, output in LOG
#   ko_copy KO DIR           a private copy of the module in DIR
#   ko_md5 KO, ko_id KO      what a runner says about the module it tests
#   fail_summary [N]         "0 passed, N failed", exit 1
#   print_summary P F        "P passed, F failed", true when F is 0
# The guest-side helpers are tests/lib.sh.

# Oopses, WARNINGs, BUGs, hung tasks, lockdep and RCU reports, sanitizers.
# shellcheck disable=SC2034 # used by the scripts that source this file
# SLUB debugging says "BUG <cache> (Not tainted): ..." or, with our
# out-of-tree module loaded, "BUG <cache> (Tainted: G O): ..."; kmemleak
# "N new suspected memory leaks". Before 6.11 a BUG() and a trap print
# "kernel BUG at", "invalid opcode:" and "divide error:" with no "Oops".
# RCU stalls (normal, expedited, tasks) set no taint flag. The lint tier
# checks the pattern against tests/splat-samples.txt.
# The guests also compare the taint flags (taint_new), which catch what
# no pattern names.
SPLAT_RE='(Oops|WARNING:|BUG:|BUG [^ ]+ \((Not tainted|Tainted: [^)]*)\)|kernel BUG at|invalid opcode:|divide error:|stack segment:|suspected memory leak|Kernel panic|blocked for more than [0-9]+ seconds|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|general protection fault|UBSAN:|KASAN:|INFO: task .* blocked|INFO: rcu_[a-z_]+ (self-)?detected (expedited )?stall|watchdog: BUG: soft lockup|detected hard LOCKUP|shared receive buffers lost)'

# say: a script's progress and errors, on stderr after its name.
say() { echo "$(basename "$0" .sh): $*" >&2; }

# scenario_in LIST NN-NAME: the comma list LIST names that scenario (or
# case, or fault) by its full name, its number or the name after it.
scenario_in() {
	[[ ",$1," == *",$2,"* || ",$1," == *",${2%%-*},"* ||
	   ",$1," == *",${2#*-},"* ]]
}

# debian_mirror: the Debian archive this machine's apt takes bookworm from
# (so that a mirror or proxy keeps working), else deb.debian.org.
debian_mirror() {
	local u
	u=$(apt-get indextargets --format '$(REPO_URI) $(CODENAME)' 'Identifier: Packages' 2>/dev/null |
		awk '$2 == "bookworm" {print $1; exit}')
	echo "${u:-http://deb.debian.org/debian/}"
}

# heavy_lock: HEAVY_LOCK if set, else /var/cache/ib_srpt/heavy.lock. The
# lock is one per machine: a run with its own CACHE still takes this one,
# so that two QEMU guests or heavy builds never run at the same time.
heavy_lock() {
	local l=${HEAVY_LOCK:-/var/cache/ib_srpt/heavy.lock}
	mkdir -p "$(dirname "$l")"
	echo "$l"
}

# build_module_locked LOG: build our ib_srpt.ko for KVER into
# CACHE/build-KVER (`make module`) under the heavy lock, output in LOG.
# Needs REPO, KVER and CACHE; returns make's status.
build_module_locked() {
	# The debug kernel builds under the same lock: never from inside it.
	if [ "$KVER" = debug ]; then
		CACHE=$CACHE "$REPO/scripts/debug-kernel.sh" >"$1" 2>&1 || return 1
	fi
	flock "$(heavy_lock)" make -s -C "$REPO" module KVER="$KVER" CACHE="$CACHE" >"$1" 2>&1
}

# headers_releases [RELEASE|SERIES]: kernel releases with headers installed
# (a /lib/modules/<release>/build directory), oldest first. A release with
# headers names only itself; a series (6.1, 6.12) every release of it
# (6.12.x..., 6.1-...); no argument: all of them.
headers_releases() {
	local k=${1:-} b r
	if [ -n "$k" ] && [ -d "/lib/modules/$k/build" ]; then
		echo "$k"
		return 0
	fi
	for b in /lib/modules/*/build; do
		[ -d "$b" ] || continue
		r=${b#/lib/modules/}
		r=${r%/build}
		[ -z "$k" ] || [[ "$r" == "$k".* || "$r" == "$k"-* ]] || continue
		echo "$r"
	done | sort -V
}

# newest_headers [RELEASE|SERIES]: the newest of headers_releases; prints
# nothing (status 0) when there is none.
newest_headers() { headers_releases "${1:-}" | tail -n 1; }

# unpack_tree TARBALL VERSION TREE [STALE_DIR...]: unpack a linux-source
# tarball into TREE once per VERSION (TREE/.srpt-kunit-version), without the
# upstream srpt driver (the originality rule: it never lands in a tree we
# prepare). A new version also removes the STALE_DIRs (build outputs of the
# old one). The caller holds the tree's prepare lock.
unpack_tree() {
	local tarball=$1 ver=$2 tree=$3 rel=drivers/infiniband/ulp/srpt
	shift 3
	if [ "$(cat "$tree/.srpt-kunit-version" 2>/dev/null)" != "$ver" ]; then
		echo "unpacking $(basename "$tarball") ($ver) into $tree" >&2
		rm -rf "$tree" "$tree.tmp" "$@"
		mkdir -p "$tree.tmp"
		# Unanchored exclude: matches <topdir>/drivers/.../srpt and below.
		tar -xJf "$tarball" -C "$tree.tmp" --strip-components=1 \
			--exclude="$rel" || return 1
		rm -rf "${tree:?}.tmp/$rel"
		echo "$ver" >"$tree.tmp/.srpt-kunit-version"
		mv "$tree.tmp" "$tree"
	fi
	rm -rf "${tree:?}/$rel"	# again, in case anything put it back
}

# ---------------------------------------------------------------- runners
# What the scripts that boot a test guest (e2e.sh, hostile.sh, soak.sh,
# bench.sh) share. Each ends with one line "N passed, N failed", also when
# it gives up before running anything, and exits non-zero on a failure.

# ------------------------------------------------------------ ONLY=
# One selector for every runner: ONLY=<name>[,<name>...] names e2e
# scenarios (10-login, 10 or login), hostile cases (tmf_abort_race),
# fault scripts (fault-03, 03-acl-readd or acl-readd) and KUnit suites
# (ib_srpt_desc, or a suite.test glob). Each runner takes what names its
# own items; make check skips the tiers it selects nothing in. A name that
# selects nothing anywhere is an error (only_check).

# only_has NAME...: true when ONLY lists one of the NAMEs.
only_has() {
	local n
	for n in "$@"; do
		[[ ",$ONLY," == *",$n,"* ]] && return 0
	done
	return 1
}
# only_e2e: the scenarios ONLY selects, comma separated.
only_e2e() {
	local f n
	for f in "$REPO"/tests/e2e/[0-9][0-9]-*.sh; do
		n=$(basename "$f" .sh)
		if scenario_in "$ONLY" "$n"; then echo "$n"; fi
	done | paste -sd, -
}
# only_cases: the hostile cases ONLY selects, comma separated.
only_cases() {
	local c
	for c in $(awk -F'"' '/^static const struct tcase cases\[\]/ {t = 1}
		t && /^\t\{ "/ {print $2} t && /^};/ {exit}' "$REPO/tests/hostile/hostile.c"); do
		if only_has "$c"; then echo "$c"; fi
	done | paste -sd, -
}
# only_faults: the fault scripts ONLY selects, as their numbers.
only_faults() {
	local f n
	for f in "$REPO"/tests/hostile/faults/[0-9][0-9]-*.sh; do
		n=$(basename "$f" .sh)
		if only_has "$n" "fault-${n%%-*}" "${n#*-}"; then echo "${n%%-*}"; fi
	done | paste -sd, -
}
# Each only_* is true whatever it selects (callers run under set -e and
# pipefail): a loop that ended on a name it skipped must not fail them.
# only_kunit: kunit.py filter globs for the suites ONLY selects.
only_kunit() {
	local s n
	for s in $(sed -n 's/^[[:space:]]*\.name = "\(ib_srpt[a-z0-9_]*\)",.*/\1/p' "$REPO"/kunit/*.c | sort -u); do
		for n in ${ONLY//,/ }; do
			if [ "$n" = "$s" ] || [[ "$n" == "$s".* ]]; then echo "$n"; fi
		done
	done | sort -u | paste -sd' ' -
}
# only_check: every name in ONLY selects something; says which do not.
only_check() {
	local n bad=
	for n in ${ONLY//,/ }; do
		(ONLY=$n; [ -n "$(only_e2e)$(only_cases)$(only_faults)$(only_kunit)" ]) || bad+=" $n"
	done
	[ -z "$bad" ] || { echo "ONLY: no scenario, case, fault or KUnit suite is named:$bad" >&2; return 1; }
}

# only_in LIST: the items of ONLY's selection SEL (comma list, stdin)
# that LIST (comma list; e2e items by full or short name) also has.
only_in() {
	local n out=
	for n in $(tr ',' ' '); do
		if scenario_in "$1" "$n"; then out+="$n,"; fi
	done
	echo "${out%,}"
}

# runner_setup: the defaults every runner documents: CACHE
# (/var/cache/ib_srpt), KVER (6.12), MODULE (ours). Exports nothing.
runner_setup() {
	CACHE=${CACHE:-/var/cache/ib_srpt}
	KVER=${KVER:-6.12}
	MODULE=${MODULE:-ours}
}

# results_dir NAME: a new directory for a run's results,
# $CACHE/results/NAME-<UTC date and time>, created here: two runs of one
# kind started in the same second (make check's lanes) get two (-2).
results_dir() {
	local d s= n=1
	d=$CACHE/results/$1-$(date -u +%Y%m%d-%H%M%S)
	mkdir -p "$CACHE/results" || return 1
	until mkdir "$d$s" 2>/dev/null; do
		[ -e "$d$s" ] || return 1	# not a name taken: no retry helps
		n=$((n + 1))
		s=-$n
	done
	echo "$d$s"
}

# runner_build_module WHAT LOG: say "WHAT: building our module for KVER"
# and build our ib_srpt.ko for KVER into CACHE/build-KVER
# (build_module_locked, output in LOG). True when the module is there.
runner_build_module() {
	echo "$1: building our module for $KVER"
	build_module_locked "$2" && [ -f "$CACHE/build-$KVER/ib_srpt.ko" ]
}

# ko_copy KO DIR: copy the module KO to DIR/ib_srpt.ko, the copy a guest
# loads: others may rebuild the module while the guest runs.
ko_copy() { cp "$1" "$2/ib_srpt.ko"; }

# ko_md5 KO: the first 12 digits of the module's MD5 sum; ko_id KO: that
# and its modification time ("<md5> from YYYY-MM-DD HH:MM:SS").
ko_md5() { md5sum <"$1" | cut -c1-12; }
ko_id() { echo "$(ko_md5 "$1") from $(stat -c %y "$1" | cut -c1-19)"; }

# fail_summary [N]: the summary of a run that gives up before its cases
# ran, "0 passed, N failed" (N default 1); exits 1.
fail_summary() {
	echo "0 passed, ${1:-1} failed"
	exit 1
}

# print_summary P F: the last line of a run, "P passed, F failed"; true
# when F is 0.
print_summary() {
	echo "$1 passed, $2 failed"
	[ "$2" = 0 ]
}

# ktree_tarball KTREE SIDDIR: locate the linux-source tarball of a test
# kernel tree and set the caller's tarball and srcver (its package version).
# KTREE 6.12: /usr/src/linux-source-6.12.tar.xz (scripts/deps.sh kunit
# installs it); newest: the newest linux-source-X.Y of Debian sid, fetched
# into SIDDIR with a private apt configuration (sid is never added to the
# system's sources) and refreshed every 12 hours. The caller serializes
# users of SIDDIR. Says why on stderr and returns 1 when there is none.
ktree_tarball() {
	local ktree=$1 sid=$2 pkg deb
	local -a aptopts
	case "$ktree" in
	6.12)
		tarball=/usr/src/linux-source-6.12.tar.xz
		srcver=$(dpkg-query -W -f='${Version}' linux-source-6.12) || return 1
		;;
	newest)
		mkdir -p "$sid/lists/partial" "$sid/archives/partial" "$sid/etc"
		echo "deb $(debian_mirror) sid main" >"$sid/etc/sources.list"
		aptopts=(-o "Dir::Etc::sourcelist=$sid/etc/sources.list"
			 -o "Dir::Etc::sourceparts=-"
			 -o "Dir::State::Lists=$sid/lists"
			 -o "Dir::Cache::pkgcache=$sid/pkgcache.bin"
			 -o "Dir::Cache::srcpkgcache=$sid/srcpkgcache.bin"
			 -o "APT::Get::List-Cleanup=0")
		if [ ! -f "$sid/updated" ] || [ -n "$(find "$sid/updated" -mmin +720)" ]; then
			echo "apt-get update (private sid lists)" >&2
			apt-get "${aptopts[@]}" update -qq >/dev/null ||
				{ echo "sid apt-get update failed" >&2; return 1; }
			touch "$sid/updated"
		fi
		pkg=$(apt-cache "${aptopts[@]}" search --names-only '^linux-source-[0-9]+\.[0-9]+$' |
			awk '{print $1}' | sort -V | tail -n 1)
		[ -n "$pkg" ] || { echo "no linux-source package in sid" >&2; return 1; }
		srcver=$(apt-cache "${aptopts[@]}" show --no-all-versions "$pkg" |
			sed -n 's/^Version: //p' | head -n 1)
		deb=$(ls "$sid/archives/${pkg}_"*.deb 2>/dev/null | sort -V | tail -n 1 || true)
		if [ -z "$deb" ] || [[ "$deb" != *"_${srcver//:/%3a}_"* ]]; then
			echo "downloading $pkg $srcver from sid" >&2
			rm -f "$sid/archives/${pkg}_"*.deb
			(cd "$sid/archives" && apt-get "${aptopts[@]}" download "$pkg" >/dev/null) ||
				{ echo "apt-get download $pkg failed" >&2; return 1; }
			deb=$(ls "$sid/archives/${pkg}_"*.deb | sort -V | tail -n 1)
		fi
		tarball=$sid/${pkg}.tar.xz
		if [ ! -f "$tarball" ] || [ "$(cat "$tarball.ver" 2>/dev/null)" != "$srcver" ]; then
			echo "extracting the tarball from $(basename "$deb")" >&2
			rm -rf "$sid/deb"
			mkdir -p "$sid/deb"
			dpkg-deb -x "$deb" "$sid/deb" || return 1
			mv "$sid/deb/usr/src/${pkg}.tar.xz" "$tarball" || return 1
			rm -rf "$sid/deb"
			echo "$srcver" >"$tarball.ver"
		fi
		;;
	*)
		echo "unknown KTREE '$ktree' (use 6.12 or newest)" >&2
		return 1
		;;
	esac
	[ -f "$tarball" ] || { echo "missing $tarball" >&2; return 1; }
}
