#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 900
# The module's unload path under load. LIO holds ib_srpt while its configfs
# tree exists (a bare rmmod is always refused), so the tree goes first, as
# `targetcli clearconfig` removes it: every target port under
# /sys/kernel/config/target/srpt (TPG disabled, ACLs, LUNs, TPG, port),
# then the fabric directory; the backstores stay. With the Linux initiator
# logged in and its write loop running:
#   - removing the tree finishes within 60 s and closes the target's
#     channels (their QPs are gone);
#   - `rmmod ib_srpt` then succeeds within 30 s, the module and its slab
#     caches are gone;
#   - the initiator sees errors, not a hang: its remote port leaves the
#     running state within 30 s and a direct read of its disk fails within
#     90 s (fast_io_fail_tmo is 15 s);
#   - the module is loaded again and the configuration restored
#     (h_configure, the TPG attributes as they were): it is the same as
#     before, a fresh login works, ib_srp gets its disk back and the write
#     pass that the unload cut off ends (within 300 s) with every
#     acknowledged write read back intact.
# Whatever happens, the module is loaded and configured again on exit, so
# that the later faults find their target.
. "$REPO/tests/hostile/guest-lib.sh"
bad=0
fail() { echo "$*"; bad=1; }
F=/tmp/f06
rm -rf "$F"; mkdir -p "$F"

# What the TPG looks like: enable, the ACL and LUN trees with their links,
# the TPG attributes.
cfg_snapshot() {
	echo "enable $(cat "$H_TPG/enable")"
	(cd "$H_TPG" && find acls lun -maxdepth 3 | sort)
	(cd "$H_TPG" && find acls lun -maxdepth 3 -type l -printf '%p -> %l\n' | sort)
	(cd "$H_TPG/attrib" && grep -r . . 2>/dev/null | sort)
}

# `targetcli clearconfig` for this fabric: every target port, then the
# fabric directory (which holds the module).
clear_tree() {
	local w t
	for w in "$SRPT_CFS"/*/; do
		w=${w%/}
		[ "$(basename "$w")" = discovery_auth ] && continue
		for t in "$w"/*/; do
			t=${t%/}
			[ -d "$t/lun" ] || continue
			srpt_tpg_remove "$t" || { echo "cannot remove $t"; return 1; }
		done
		rmdir "$w" || { echo "cannot remove $w"; return 1; }
	done
	rmdir "$SRPT_CFS" || { echo "cannot remove $SRPT_CFS"; return 1; }
}

# The TPG attributes saved before (name value lines in $F/attrib) written
# back where the reloaded module has another value.
attrib_restore() {
	local n v
	while read -r n v; do
		[ "$(cat "$H_TPG/attrib/$n" 2>/dev/null)" = "$v" ] && continue
		run_deadline 30 sh -c "echo '$v' >'$H_TPG/attrib/$n'" ||
			{ echo "cannot restore attribute $n=$v"; return 1; }
	done <"$F/attrib"
}

# However this script ends, the later faults need a loaded and configured
# target (runs before the disruption window closes).
restore() {
	grep -qw '^ib_srpt' /proc/modules || h_load_target || echo "exit: cannot load ib_srpt again"
	if [ ! -d "$H_TPG" ]; then
		h_configure && attrib_restore || echo "exit: cannot configure the target again"
	fi
	h_save
}

old_gone() {	# none of the target's QPs of before exists any more
	local q
	for q in $qps; do
		h_qp_exists "$q" && return 1
	done
	return 0
}

newest_pass() {	# highest write pass number that has started
	local f n=0
	for f in "$H_IO_DIR"/out.*; do
		f=${f##*out.}
		[[ "$f" =~ ^[0-9]+$ ]] && [ "$f" -gt "$n" ] && n=$f
	done
	echo "$n"
}

# ---- before: live sessions, writes running ----
wait_for 30 h_disk_ok || fail "the initiator's disk is not readable before the unload"
io_pid=$(cat "$H_IO_DIR/pid" 2>/dev/null)
[ -n "$io_pid" ] && kill -0 "$io_pid" 2>/dev/null || fail "the write loop is not running"
qps=$(h_srpt_qpns | tr '\n' ' ')
[ -n "$qps" ] || { echo "no live target channel before the unload: nothing to test"; exit 1; }
before=$(cfg_snapshot)
(cd "$H_TPG/attrib" && for a in *; do
	[ -f "$a" ] && [ -w "$a" ] && echo "$a $(cat "$a")"
done) >"$F/attrib"
rport=/sys/class/srp_remote_ports/port-${H_SHOST#host}:1
rport_state() { cat "$rport/state" 2>/dev/null; }
rport_down() { [ -n "$(rport_state)" ] && [ "$(rport_state)" != running ]; }
[ "$(rport_state)" = running ] || fail "the initiator's remote port is not running before the unload: '$(rport_state)'"
echo "before: target channels (QPs) $qps; write pass $(newest_pass) running;" \
	"initiator $H_SHOST, remote port $(rport_state)"

# ---- remove the configfs tree ----
h_disrupt_begin
h_at_exit restore
n=$(newest_pass)
# the write pass the unload cuts off: the running one, or the next
{ [ "$n" = 0 ] || [ -e "$H_IO_DIR/rc.$n" ]; } && n=$((n + 1))
t0=$(date +%s)
run_deadline 60 clear_tree >"$F/clear" 2>&1
rc=$?
if [ "$rc" = 124 ]; then
	echo "removing the configfs tree hung (over 60 s): $(cat "$F/clear")"
	exit 1
fi
[ "$rc" = 0 ] || fail "removing the configfs tree failed: $(cat "$F/clear")"
echo "configfs tree removed in $(( $(date +%s) - t0 )) s"
[ -d "$SRPT_CFS" ] && fail "$SRPT_CFS is still there"
wait_for 30 old_gone || fail "the target's channels still have QPs 30 s after the tree went:" \
	"$(for q in $qps; do h_qp_exists "$q" && echo -n "$q "; done)"

# ---- rmmod ----
echo "ib_srpt refcnt before rmmod: $(srpt_refcnt)"
t0=$(date +%s)
run_deadline 30 rmmod ib_srpt >"$F/rmmod" 2>&1
rc=$?
case $rc in
0) echo "rmmod ib_srpt succeeded in $(( $(date +%s) - t0 )) s" ;;
124) echo "rmmod ib_srpt hung (over 30 s): $(cat "$F/rmmod")"; exit 1 ;;
*) fail "rmmod ib_srpt failed (status $rc, refcnt $(srpt_refcnt)): $(cat "$F/rmmod")" ;;
esac
if [ "$rc" = 0 ]; then
	grep -qw '^ib_srpt' /proc/modules && fail "ib_srpt is still in /proc/modules after rmmod"
	[ -d /sys/module/ib_srpt ] && fail "/sys/module/ib_srpt is still there after rmmod"
	s=$( (grep -i srpt /proc/slabinfo 2>/dev/null; ls /sys/kernel/slab 2>/dev/null | grep -i srpt) | head -n 5)
	[ -z "$s" ] || fail "slab caches left after rmmod: $s"
fi

# ---- the initiator: errors, no hang ----
if wait_for 30 rport_down; then
	echo "initiator remote port: $(rport_state)"
else
	fail "the initiator's remote port is '$(rport_state)' 30 s after the target went (want blocked or fail-fast)"
fi
if d=$(h_srp_disk) && h_blknode "$d" "$F/disk"; then
	t0=$(date +%s)
	run_deadline 90 dd if="$F/disk" of=/dev/null bs=4k count=1 iflag=direct status=none 2>"$F/dd"
	rc=$?
	case $rc in
	0) fail "a direct read of $d succeeded with the target unloaded" ;;
	124) fail "a direct read of $d hung (over 90 s) with the target unloaded" ;;
	*) echo "a direct read of $d failed after $(( $(date +%s) - t0 )) s: $(head -n 1 "$F/dd")" ;;
	esac
else
	echo "note: the initiator's disk is already gone (remote port $(rport_state))"
fi

# ---- load again, restore the configuration ----
if ! grep -qw '^ib_srpt' /proc/modules; then
	h_load_target || { echo "cannot load ib_srpt again"; exit 1; }
fi
h_configure || { echo "cannot configure the target again"; exit 1; }
attrib_restore || bad=1
h_save
after=$(cfg_snapshot)
if [ "$before" != "$after" ]; then
	echo "the restored configuration differs from before the unload:"
	diff <(echo "$before") <(echo "$after") | head -n 20 | sed 's/^/  /'
	bad=1
fi
h_sanity || fail "no fresh login after the reload"
h_srp_recover 120 || fail "the Linux initiator did not get its disk back"
if wait_for 300 test -e "$H_IO_DIR/rc.$n"; then
	echo "write pass $n (cut off by the unload) ended with status $(cat "$H_IO_DIR/rc.$n"); $(tail -n 1 "$H_IO_DIR/verify.$n")"
	[ "$(cat "$H_IO_DIR/vrc.$n")" = 0 ] || fail "write pass $n: the read-back after the unload did not find every acknowledged write"
else
	fail "write pass $n, cut off by the unload, has not ended 300 s after the restore"
fi
kill -0 "$io_pid" 2>/dev/null || fail "the write loop is gone"
h_disrupt_end
exit $bad
