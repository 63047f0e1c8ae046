#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# timeout: 1080
# Logins racing configuration changes, for RACE_SECONDS (default 30), and
# longer where the machine is slow: until the race has had accepted and
# failed hostile logins, two ACL cycles and two TPG toggles, for at most
# RACE_MAX_SECONDS (default 240):
#   - the hostile tool logs in, sends INQUIRY + READ and logs out (sanity
#     -n), again and again;
#   - a second Linux ib_srp login (initiator_ext "race", reading lun_1 as
#     its LUN 0) is added and removed again and again;
#   - meanwhile the hostile initiator's ACL and (every other time) the race
#     initiator's ACLs are removed and re-added, and, in a loop of its own,
#     the TPG is disabled and enabled.
# The fio initiator's channel is closed by every TPG disable (a deliberate
# disruption): it must come back afterwards.
# Asserts: no configfs write, login or logout hangs (each bounded; a hang
# fails with what hung), both accepted and refused logins happened, the
# configuration is afterwards exactly what it was before, a fresh login
# works, the fio initiator has its disk again and the RC QPs and connected
# CM IDs are back to their count before the race (no channel left over).
# The runner checks dmesg.
. "$REPO/tests/hostile/guest-lib.sh"
bad=0
SECS=${RACE_SECONDS:-30}
MAX_SECS=${RACE_MAX_SECONDS:-240}
[ "$MAX_SECS" -ge "$SECS" ] || MAX_SECS=$SECS
R=/tmp/f11
RACE_EXT=7261636500000000	# "race"
HACL=$H_TPG/acls/0x$H_IPORT
AT=/sys/class/infiniband_srp/srp-rxe0-1/add_target
rm -rf "$R"; mkdir -p "$R"

# What the TPG looks like: enable, the ACL and LUN trees with their links,
# the TPG attributes.
cfg_snapshot() {
	echo "enable $(cat "$H_TPG/enable")"
	(cd "$H_TPG" && find acls lun -maxdepth 3 | sort)
	(cd "$H_TPG" && find acls lun -maxdepth 3 -type l -printf '%p -> %l\n' | sort)
	(cd "$H_TPG/attrib" && grep -r . . 2>/dev/null | sort)
}

# cfgw WHAT CMD...: a configfs change bounded by 30 s; a hang is recorded
# in $R/hung (and the caller stops). Output goes to a file: a hung writer
# keeps it open, which would block a command substitution.
cfgw() {
	local what=$1 rc t0 o=$R/cfgw.$BASHPID
	shift
	t0=$(date +%s%N)
	run_deadline 30 "$@" >"$o" 2>&1
	rc=$?
	echo "$(( ($(date +%s%N) - t0) / 1000000 )) $what" >>"$R/cfgtimes"
	if [ "$rc" = 124 ]; then
		echo "configfs $what hung for more than 30 s: $(cat "$o")" >>"$R/hung"
		return 124
	fi
	[ "$rc" = 0 ] || echo "configfs $what failed: $(head -c 200 "$o")" >>"$R/cfgerr"
	return "$rc"
}
tpg_set() { echo "$1" >"$H_TPG/enable"; }
acl_del() { rm -f "$1/lun_0/map" && rmdir "$1/lun_0" "$1"; }
race_acls() { ls -d "$H_TPG"/acls/0x$RACE_EXT* 2>/dev/null; }

fio_host=$(sed -n 's/^H_SHOST=//p' "$H_STATE")
race_hosts() { srp_hosts | sed 's/^/host/' | grep -vx "$fio_host"; }

# Delete every race login; fail if its SCSI host does not go within 60 s.
race_logout() {
	local h p
	for h in $(race_hosts); do
		p=/sys/class/srp_remote_ports/port-${h#host}:1
		[ -e "$p/delete" ] && run_deadline 30 sh -c "echo 1 >'$p/delete'" >"$R/del.out" 2>&1
		if ! wait_for 60 eval "! test -e /sys/class/scsi_host/$h"; then
			echo "race login $h still there 60 s after its remote port was deleted" \
				"($(cat "$p/state" 2>/dev/null))" >>"$R/hung"
			return 1
		fi
	done
}

loop_hostile() {
	local ok=0 ref=0 rc
	while [ ! -e "$R/stop" ]; do
		timeout -k 5 60 "$HOSTILE" -a "$H_ADDR" -p "$RDMA_CM_PORT" -g "$H_GUID" -I "$H_IPORT" \
			-c sanity -n -t 30 >"$R/h.out" 2>&1
		rc=$?
		case $rc in
		0) ok=$((ok + 1)) ;;
		124|137)
			echo "hostile sanity login killed after 60 s: $(grep -E '^(PASS|FAIL)' "$R/h.out" | head -n 1)" >>"$R/hung"
			break ;;
		*)
			ref=$((ref + 1))
			grep -E '^FAIL' "$R/h.out" | head -n 1 |
				sed 's/0x[0-9a-f]\{4,\}/0x../g; s/ ([0-9.]* s)$//' >>"$R/h.fails" ;;
		esac
		echo "$ok $ref" >"$R/h.count"
	done
}

loop_srp() {
	local ok=0 ref=0 rc
	while [ ! -e "$R/stop" ]; do
		# add_target returns after ib_srp's SCSI scan: when the channel is
		# closed under it, that lasts until fast_io_fail_tmo (15 s) and more
		# One channel: when the second of two fails to connect and the
		# host is reset and removed later, 6.12's ib_srp once ran a
		# send completion of a freed IU in srp_free_ch_ib() (an oops in
		# the initiator, RIP 0x5a5a5a5a5a5a5a5a); the race is about the
		# target's logins and configuration, not ib_srp's channel count.
		run_deadline 120 sh -c "echo 'id_ext=$H_G16,ioc_guid=$H_G16,dest=[$H_ADDR]:$RDMA_CM_PORT,initiator_ext=$RACE_EXT,ch_count=1' >$AT" \
			>"$R/s.out" 2>&1
		rc=$?
		if [ "$rc" = 124 ]; then
			echo "ib_srp add_target (race login) hung for more than 120 s" >>"$R/hung"
			break
		elif [ "$rc" = 0 ]; then
			ok=$((ok + 1))
		elif grep -q 'File exists' "$R/s.out"; then
			sleep 1	# the previous race login is still being removed
		else
			ref=$((ref + 1))
		fi
		echo "$ok $ref" >"$R/s.count"
		sleep "0.$((RANDOM % 10))"
		race_logout || break
	done
}

loop_acl() {
	local n=0 a
	while [ ! -e "$R/stop" ]; do
		cfgw "rmdir of the hostile ACL" acl_del "$HACL" || [ ! -e "$R/hung" ] || break
		if [ $((n % 2)) = 0 ]; then
			for a in $(race_acls); do
				cfgw "rmdir of ACL $(basename "$a")" acl_del "$a" || [ ! -e "$R/hung" ] || break 2
			done
		fi
		sleep "0.$((RANDOM % 10))"
		cfgw "re-add of the hostile ACL" h_acl "0x$H_IPORT" 1 || [ ! -e "$R/hung" ] || break
		if [ $((n % 2)) = 0 ]; then
			cfgw "re-add of the race ACLs" h_gid_acls rxe0 "$RACE_EXT" 1 || [ ! -e "$R/hung" ] || break
		fi
		n=$((n + 1))
		echo "$n" >"$R/a.count"
		sleep "$((RANDOM % 2)).$((RANDOM % 10))"
	done
}

# TPG disable/enable in a loop of its own: it also races the ACL changes
loop_tpg() {
	local n=0
	while [ ! -e "$R/stop" ]; do
		sleep "$((1 + RANDOM % 3)).$((RANDOM % 10))"
		cfgw "echo 0 >enable" tpg_set 0 || [ ! -e "$R/hung" ] || break
		sleep "$((RANDOM % 2)).$((RANDOM % 10))"
		cfgw "echo 1 >enable" tpg_set 1 || [ ! -e "$R/hung" ] || break
		n=$((n + 1))
		echo "$n" >"$R/t.count"
	done
}

# ---- before ----
wait_for 30 h_disk_ok || echo "note: the fio disk was not readable before the race"
base_qp=$(h_rc_qps) base_cm=$(h_cm_ids)
before=$(cfg_snapshot)
echo "before: $base_qp RC QPs, $base_cm connected CM IDs"
h_gid_acls rxe0 "$RACE_EXT" 1 || { echo "cannot create the race ACLs"; exit 1; }

# ---- the race ----
h_disrupt_begin
t0=$(date +%s)
loop_hostile </dev/null & p1=$!
loop_srp </dev/null & p2=$!
loop_acl </dev/null & p3=$!
loop_tpg </dev/null & p4=$!
# The coverage asked for below, reached so far.
covered() {
	local ok ref a t
	read -r ok ref 2>/dev/null <"$R/h.count" || return 1
	read -r a 2>/dev/null <"$R/a.count" || return 1
	read -r t 2>/dev/null <"$R/t.count" || return 1
	[ "$ok" -ge 1 ] && [ "$ref" -ge 1 ] && [ "$a" -ge 2 ] && [ "$t" -ge 2 ]
}
# RACE_SECONDS, then on until covered (a slow machine needs longer for the
# same number of logins and changes) or RACE_MAX_SECONDS.
while [ ! -e "$R/hung" ]; do
	el=$(( $(date +%s) - t0 ))
	[ "$el" -ge "$MAX_SECS" ] && break
	[ "$el" -ge "$SECS" ] && covered && break
	sleep 1
done
touch "$R/stop"
# Every step of a loop is bounded (120 s at most, plus a 60 s logout wait).
for p in $p1 $p2 $p3 $p4; do
	wait_for 200 eval "! kill -0 $p 2>/dev/null" || echo "a race loop did not stop within 200 s" >>"$R/hung"
done
read -r h_ok h_ref 2>/dev/null <"$R/h.count" || h_ok=0 h_ref=0
read -r s_ok s_ref 2>/dev/null <"$R/s.count" || s_ok=0 s_ref=0
read -r n_acl 2>/dev/null <"$R/a.count" || n_acl=0
read -r n_tpg 2>/dev/null <"$R/t.count" || n_tpg=0
echo "race: $(( $(date +%s) - t0 )) s; hostile logins $h_ok accepted, $h_ref failed;" \
	"ib_srp race logins $s_ok accepted, $s_ref refused; ACL cycles $n_acl; TPG toggles $n_tpg"
[ -s "$R/h.fails" ] && sort "$R/h.fails" | uniq -c | sort -rn | head -n 5 | sed 's/^/  hostile: /'
[ -s "$R/cfgtimes" ] && sort -rn "$R/cfgtimes" | head -n 3 |
	awk '{ t = $1; $1 = ""; printf "  slowest configfs change:%s %.1f s\n", $0, t / 1000 }'
[ -s "$R/cfgerr" ] && sort "$R/cfgerr" | uniq -c | head -n 5 | sed 's/^/  /'
if [ "$h_ok" -lt 1 ] || [ "$h_ref" -lt 1 ] || [ "$n_acl" -lt 2 ] || [ "$n_tpg" -lt 2 ]; then
	echo "the race did not exercise both outcomes in $MAX_SECS s (need accepted and failed logins, ACL cycles and TPG toggles)"
	bad=1
fi

# ---- restore the configuration ----
cfgw "final echo 1 >enable" tpg_set 1 || echo "cannot enable the TPG again"
cfgw "final re-add of the hostile ACL" h_acl "0x$H_IPORT" 1 || echo "cannot re-add the hostile ACL"
race_logout || { echo "a race login could not be removed"; sed 's/^/  /' "$R/hung" | tail -n 1; bad=1; }
for a in $(race_acls); do
	cfgw "final rmdir of ACL $(basename "$a")" acl_del "$a" || bad=1
done
after=$(cfg_snapshot)
if [ "$before" != "$after" ]; then
	echo "the configuration differs from before the race:"
	diff <(echo "$before") <(echo "$after") | head -n 20 | sed 's/^/  /'
	bad=1
fi

# ---- afterwards ----
if [ -e "$R/hung" ]; then
	sed 's/^/HUNG: /' "$R/hung"
	echo "something hung: not waiting for recovery"
	h_disrupt_end
	exit 1
fi
h_sanity || { echo "no fresh login after the race"; bad=1; }
h_srp_recover 60 || { echo "the Linux initiator did not get its disk back"; bad=1; }
h_disrupt_end
at_base() { [ "$(h_rc_qps)" = "$base_qp" ] && [ "$(h_cm_ids)" = "$base_cm" ]; }
if wait_for 90 at_base; then
	echo "after: $(h_rc_qps) RC QPs, $(h_cm_ids) connected CM IDs (as before)"
else
	echo "channels left over: $(h_rc_qps) RC QPs (before $base_qp), $(h_cm_ids) connected CM IDs (before $base_cm) after 90 s"
	rdma resource show qp | grep 'type RC' | head -n 6 | sed 's/^/  /'
	rdma resource show cm_id | grep -v 'state LISTEN' | head -n 6 | sed 's/^/  /'
	bad=1
fi
if [ -e "$R/hung" ]; then
	sed 's/^/HUNG: /' "$R/hung"
	bad=1
fi
exit $bad
