#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# RDMA/CM listener in a network namespace other than the initial one. A veth
# pair joins the namespace (n1, 10.91.0.1) to the initial one (n0,
# 10.91.0.2), with a soft-iWARP device on each end: rdma_rxe of 6.1 and
# 6.12 works in the initial namespace only, siw uses the kernel's TCP of
# the namespace that listens or connects. Checks: rdma_cm_port written
# inside the namespace is that namespace's (the initial one and the module
# parameter still read 0); a login from the initial namespace to that port
# fails; ib_srp logs in from inside the namespace and a write reads back;
# both namespaces then listen on the same port at once and the initial one
# logs in through its own listener; rdma_cm_listeners lists both in the
# initial namespace and only its own in the other; the namespace's listener
# survives the initial one's removal and module unload closes it. Then a
# namespace's listener must not outlive the namespace: deleted with `ip
# netns delete` (its processes gone), a namespace is still pinned by the
# RDMA/CM, so the initial namespace's admin sees its listener and closes it
# through rdma_cm_listeners, and a namespace whose last RDMA device is
# deleted loses its listener by itself; either way the namespace is then
# freed, which the removal of its veth pair's other end shows.
# timeout: 300
. "$REPO/tests/lib.sh"
set -e

NS=srptns
NS2=srptns2
IP=/usr/sbin/ip
RDMA=/usr/bin/rdma
DA=$SRPT_CFS/discovery_auth/rdma_cm_port
LS=$SRPT_CFS/discovery_auth/rdma_cm_listeners
NS_ADDR=10.91.0.1
INIT_ADDR=10.91.0.2

# nsx CMD...: run CMD in the namespace (network only: same mounts, so
# configfs and sysfs are the initial ones).
nsx() { /usr/bin/nsenter --net="/run/netns/$NS" "$@"; }

cleanup() {
	set +e
	srp_logout >/dev/null 2>&1
	[ -e "/run/netns/$NS" ] && [ -w "$DA" ] && nsx sh -c "echo 0 >$DA" 2>/dev/null
	srpt_teardown >/dev/null 2>&1
	$RDMA link delete siwin 2>/dev/null
	[ -e "/run/netns/$NS" ] && nsx $RDMA link delete siwns 2>/dev/null
	$RDMA link delete siwns 2>/dev/null
	$IP link delete n0 2>/dev/null
	$IP link delete w0 2>/dev/null
	$IP netns delete "$NS" 2>/dev/null
	$IP netns delete "$NS2" 2>/dev/null
	rm -f /tmp/netns-pat /tmp/netns-back
	return 0
}
trap cleanup EXIT

port_active() { grep -q ACTIVE "/sys/class/infiniband/$1/ports/1/state"; }

# login_from WHERE DEV ADDR: ib_srp add_target through DEV to ADDR, written
# from the namespace WHERE (ns|init): ib_srp resolves and connects in the
# writer's namespace.
add_target_from() {
	local where=$1 dev=$2 addr=$3 opts run=
	opts="id_ext=$SRPT_SERVICE_GUID,ioc_guid=$SRPT_SERVICE_GUID,dest=$addr:$RDMA_CM_PORT"
	[ "$where" = ns ] && run=nsx
	log "ib_srp add_target from the $where namespace via $dev: $opts"
	$run sh -c "echo '$opts' >/sys/class/infiniband_srp/srp-$dev-1/add_target"
}
login_from() { run_deadline 60 add_target_from "$@"; }

# target_port DEV BACKSTORE: target port of DEV's GID, LUN 0 and the ACL
# of the local initiator on DEV, enabled.
target_port() {
	RXE=$1
	mkdir -p "$SRPT_CFS/$(srpt_wwn)/tpgt_1" || die "target port for $1"
	srpt_lun 0 "$2"
	srpt_acl_add
	srpt_enable
}

# verify_io DISK PATTERN: write 1 MiB of PATTERN and read it back.
verify_io() {
	local disk=$1
	head -c 1048576 /dev/zero | tr '\0' "$2" >/tmp/netns-pat
	dd if=/tmp/netns-pat of="$disk" bs=1M count=1 oflag=direct status=none
	dd if="$disk" of=/tmp/netns-back bs=1M count=1 iflag=direct status=none
	cmp /tmp/netns-pat /tmp/netns-back || die "data read back from $disk differs"
	log "ok: 1 MiB of '$2' written to $disk and read back"
}

# --------------------------------------------------------------- setup
modprobe -a veth ib_core iw_cm rdma_cm || die "modprobe veth iw_cm rdma_cm"
siw_load
$IP netns add "$NS" || die "ip netns add $NS"
nsinode=$(nsx readlink /proc/self/ns/net)
log "namespace $NS is $nsinode, the initial one $(readlink /proc/self/ns/net)"
$IP link add n0 type veth peer name n1 netns "$NS" || die "veth into $NS"
# Logins to a local address take the loopback route, in either namespace.
$IP link set lo up
$IP link set n0 up
$IP -4 addr add "$INIT_ADDR/24" dev n0
nsx $IP link set lo up
nsx $IP link set n1 up
nsx $IP -4 addr add "$NS_ADDR/24" dev n1
# Both devices exist before any listener: siw opens a listener's TCP
# sockets in the namespace of whoever makes the device listen, which for a
# device added later is the one adding it.
nsx $RDMA link add siwns type siw netdev n1 || die "rdma link add siwns (in $NS)"
$RDMA link add siwin type siw netdev n0 || die "rdma link add siwin"
wait_for 20 port_active siwns || die "siwns not ACTIVE"
wait_for 20 port_active siwin || die "siwin not ACTIVE"

srpt_load
SRPT_SERVICE_GUID=$(sed 's/^0x//' /sys/module/ib_srpt/parameters/srpt_service_guid)
mkdir -p "$SRPT_CFS"
dev=$(bs_null nbns 64)
bs=$(lio_iblock nbns "$dev")
lio_serial "$bs" e2e-netns
target_port siwns "$bs"
srp_initiator_load

# ------------------------------------------ listener in the namespace only
nsx sh -c "echo $RDMA_CM_PORT >$DA" || die "write rdma_cm_port in $NS"
expect_eq "rdma_cm_port read in $NS" "$(nsx cat "$DA")" "$RDMA_CM_PORT"
expect_eq "rdma_cm_port read in the initial namespace" "$(cat "$DA")" 0
expect_eq "module parameter rdma_cm_port" \
	"$(cat /sys/module/ib_srpt/parameters/rdma_cm_port)" 0
dmesg | grep -F "in netns $nsinode" | grep -qF "RDMA/CM listener on port $RDMA_CM_PORT (" ||
	die "no listener message naming $nsinode"
log "ok: dmesg names the listener's namespace $nsinode"

log "expected to fail (no listener on that port in the initial namespace):"
login_refused "login from the initial namespace to its own $INIT_ADDR:$RDMA_CM_PORT, which only $NS listens on" \
	add_target_from init siwin "$INIT_ADDR"

login_from ns siwns "$NS_ADDR" || die "login from $NS to $NS_ADDR:$RDMA_CM_PORT"
disk=$(srp_disk 0)
check_disk "$disk" $((64 * 1048576)) e2e-netns
verify_io "$disk" N
srp_logout

# ------------------------------------ both namespaces, same port, at once
target_port siwin "$bs"
echo "$RDMA_CM_PORT" >"$DA" || die "write rdma_cm_port in the initial namespace"
expect_eq "rdma_cm_port read in the initial namespace" "$(cat "$DA")" "$RDMA_CM_PORT"
expect_eq "rdma_cm_port read in $NS" "$(nsx cat "$DA")" "$RDMA_CM_PORT"
login_from init siwin "$INIT_ADDR" || die "login from the initial namespace through its own listener"
disk=$(srp_disk 0)
dd if="$disk" of=/tmp/netns-back bs=1M count=1 iflag=direct status=none
cmp /tmp/netns-back /tmp/netns-pat ||
	die "the initial namespace's login reads other data than $NS wrote"
log "ok: the initial namespace reads what $NS wrote, through its own listener"
srp_logout
[ -r "$LS" ] || die "no $LS"
expect_eq "rdma_cm_listeners read in the initial namespace" "$(sort "$LS")" \
	"$(printf '%s %s\n' "$(readlink /proc/self/ns/net)" "$RDMA_CM_PORT" "$nsinode" "$RDMA_CM_PORT" | sort)"
expect_eq "rdma_cm_listeners read in $NS" "$(nsx cat "$LS")" "$nsinode $RDMA_CM_PORT"
echo 0 >"$DA"
expect_eq "rdma_cm_port read in $NS after the initial one removed its listener" \
	"$(nsx cat "$DA")" "$RDMA_CM_PORT"

# ------------------------------- module unload closes the namespace's one
# An independent signal beside our own message: the RDMA core's list of
# CM IDs in the namespace.
# Either answer needs the tool to have answered.
ns_listening() {
	local o
	o=$(nsx rdma resource show cm_id 2>&1) || die "rdma resource show cm_id in $NS failed: $o"
	echo "$o" | grep -F '[ib_srpt]' | grep -F 'state LISTEN' |
		grep -qE ":$RDMA_CM_PORT( |\$)"
}
ns_listening || die "rdma resource show cm_id in $NS lists no ib_srpt listener on port $RDMA_CM_PORT before the unload"
srpt_teardown
srpt_unload
dmesg | grep -qF "RDMA/CM listener on port $RDMA_CM_PORT removed (netns $nsinode)" ||
	die "unloading ib_srpt did not close the listener of $nsinode"
! ns_listening || die "rdma resource show cm_id in $NS still lists an ib_srpt listener after the unload"
log "ok: module unload closed the listener of $nsinode (dmesg, rdma resource show cm_id)"

# ------------------- a namespace's listener does not outlive the namespace
# gone NAME: the veth end NAME, whose peer is in a deleted namespace, is
# gone, i.e. that namespace was freed.
gone() { ! $IP link show "$1" >/dev/null 2>&1; }
srpt_load
mkdir -p "$SRPT_CFS"

# Its processes and mount gone, a namespace with a listener stays (the
# RDMA/CM pins it); the initial namespace's admin lists and closes it.
$IP netns add "$NS2" || die "ip netns add $NS2"
ns2inode=$(/usr/bin/nsenter --net="/run/netns/$NS2" readlink /proc/self/ns/net)
$IP link add w0 type veth peer name w1 netns "$NS2" || die "veth into $NS2"
/usr/bin/nsenter --net="/run/netns/$NS2" sh -c "echo $RDMA_CM_PORT >$DA" ||
	die "write rdma_cm_port in $NS2"
$IP netns delete "$NS2"
sleep 3
gone w0 && die "$NS2 was freed while it had a listener (the RDMA/CM no longer pins it: revisit srpt_prune_listeners)"
grep -qxF "$ns2inode $RDMA_CM_PORT" "$LS" ||
	die "rdma_cm_listeners does not list the deleted namespace's listener: $(tr '\n' ';' <"$LS")"
log "ok: the listener of the deleted namespace $ns2inode is listed in the initial one"
if nsx sh -c "echo '$ns2inode 0' >$LS" 2>/dev/null; then
	die "$NS closed another namespace's listener through rdma_cm_listeners"
fi
echo "$ns2inode 0" >"$LS" || die "closing $ns2inode's listener through rdma_cm_listeners"
wait_for 30 gone w0 || die "$NS2 not freed 30 s after its listener was closed"
grep -qF "$ns2inode" "$LS" && die "rdma_cm_listeners still lists $ns2inode"
log "ok: closed from the initial namespace, the listener let $ns2inode go"

# A namespace whose last RDMA device goes loses its listener by itself.
nsx sh -c "echo $RDMA_CM_PORT >$DA" || die "write rdma_cm_port in $NS again"
$IP netns delete "$NS"
sleep 3
gone n0 && die "$NS was freed while it had a listener and an RDMA device"
$RDMA link delete siwns || die "rdma link delete siwns (from the initial namespace)"
wait_for 30 gone n0 || die "$NS not freed 30 s after its last RDMA device was deleted"
dmesg | grep -qF "netns $nsinode has no RDMA interface left" ||
	die "no message about closing the listener of $nsinode"
log "ok: with its last RDMA device gone, the listener let $nsinode go"

