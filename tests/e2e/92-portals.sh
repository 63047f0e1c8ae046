#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Network portals: RDMA/CM listeners on the addresses the admin names, as
# tpgt_1/np/<address>:<port> directories, with rdma_cm_port left at 0.
# Soft-RoCE rxe0 on v0 carries fd00::1, fd00::2 and 10.92.0.1:
#   np/[fd00::1]:5555 -> its listener attribute says listening, and
#   rdma_cm_listeners lists "net:[<init>] [fd00::1]:5555"; ib_srp's login
#   to [fd00::2]:5555 (same device, same port) is refused and the one to
#   [fd00::1]:5555 logs in and reads back what it wrote;
#   np/10.92.0.1:5556 (IPv4) is a second listener: both are listed, a login
#   to 10.92.0.1:5556 works and one to 10.92.0.1:5555 is refused; the
#   TPG's login_info gives one add_target line per served address
#   and a login with exactly its 10.92.0.1 line works;
#   names that are not <IPv4>:<port> or [<IPv6>]:<port>, port 0, an
#   address of no local interface and [::] on the port [fd00::1] holds are
#   refused; rmdir of [fd00::1]:5555 closes it (logins refused, unlisted);
#   deleting rxe0 closes 10.92.0.1:5556 ("closed: its RDMA device was
#   removed") without blocking the deletion.
# Then a namespace (veth + soft-iWARP inside): np directories made from
# inside it listen in it (10.93.0.1:5557 on the device, 0.0.0.0:5558 on
# all addresses), both namespaces list them, the initial one cannot listen
# on the namespace's address, rmdir from inside works; after `ip netns
# delete` and the deletion of its siw device the 0.0.0.0 one is closed
# (namespace without RDMA interface), unlisted, and the namespace is freed
# (its veth peer disappears).
# timeout: 300
. "$REPO/tests/lib.sh"
set -e

IP=/usr/sbin/ip
RDMA=/usr/bin/rdma
LS=$SRPT_CFS/discovery_auth/rdma_cm_listeners
DA=$SRPT_CFS/discovery_auth/rdma_cm_port
NS=srptnp
A6=fd00::1
B6=fd00::2
A4=10.92.0.1
NS_ADDR=10.93.0.1

nsx() { /usr/bin/nsenter --net="/run/netns/$NS" "$@"; }

cleanup() {
	set +e
	srp_logout >/dev/null 2>&1
	srpt_teardown >/dev/null 2>&1
	[ -e "/run/netns/$NS" ] && nsx $RDMA link delete siwnp 2>/dev/null
	$RDMA link delete siwnp 2>/dev/null
	$IP link delete p0 2>/dev/null
	$IP netns delete "$NS" 2>/dev/null
	rm -f /tmp/np-pat /tmp/np-back
	return 0
}
trap cleanup EXIT

# target_opts DEST|LINE: the add_target options for DEST ([v6]:port,
# v4:port), or LINE as it is (id_ext=...).
target_opts() {
	case "$1" in
	id_ext=*) echo "$1" ;;
	*) echo "id_ext=$G,ioc_guid=$G,dest=$1" ;;
	esac
}

# add_target DEST|LINE: the ib_srp add_target write through rxe0.
add_target() {
	sh -c "echo '$(target_opts "$1")' >$(srp_dev_dir)/add_target"
}

# login DEST|LINE: ib_srp add_target through rxe0.
login() {
	log "ib_srp add_target $(target_opts "$1")"
	run_deadline 60 add_target "$1"
}

# refused DEST: a login to DEST fails promptly and leaves no SCSI host.
refused() {
	log "expected to fail (no listener on $1):"
	login_refused "login to $1, where no portal listens" add_target "$1"
}

# served DEST PATTERN: log in to DEST, write 1 MiB of PATTERN, read it
# back, log out.
served() {
	local disk
	login "$1" || die "login to $1"
	disk=$(srp_disk 0)
	check_disk "$disk" $((64 * 1048576)) e2e-np
	head -c 1048576 /dev/zero | tr '\0' "$2" >/tmp/np-pat
	dd if=/tmp/np-pat of="$disk" bs=1M count=1 oflag=direct status=none
	dd if="$disk" of=/tmp/np-back bs=1M count=1 iflag=direct status=none
	cmp /tmp/np-pat /tmp/np-back || die "data read back through $1 differs"
	log "ok: logged in through $1, 1 MiB of '$2' written and read back"
	srp_logout
}

# bad_np NAME WHY: mkdir np/NAME must fail.
bad_np() {
	if mkdir "$T/np/$1" 2>/dev/null; then
		die "np/$1 was accepted ($2)"
	fi
	[ -d "$T/np/$1" ] && die "np/$1 exists after the refused mkdir"
	log "ok: np/$1 refused ($2): $(dmesg | grep -F "np $1" | tail -n 1 | sed 's/^\[[^]]*\] //')"
}

listener() { cat "$T/np/$1/listener"; }
gone() { ! $IP link show "$1" >/dev/null 2>&1; }

# ------------------------------------------------------------- setup
rxe_setup
$IP -6 addr add "$B6/64" dev v0 nodad
$IP -4 addr add "$A4/24" dev v0
srpt_load
mkdir -p "$SRPT_CFS/$(srpt_wwn)/tpgt_1"
T=$(tpg_dir)
dev=$(bs_null nbnp 64)
bs=$(lio_iblock nbnp "$dev")
lio_serial "$bs" e2e-np
srpt_lun 0 "$bs"
srpt_acl_add
srpt_enable
srp_initiator_load
G=$(target_guid)
init=$(readlink /proc/self/ns/net)
expect_eq "rdma_cm_port" "$(cat "$DA")" 0
expect_eq "rdma_cm_listeners with no listener" "$(cat "$LS")" ""

# ------------------------------------------------- one IPv6 portal
mkdir "$T/np/[$A6]:5555" || die "mkdir np/[$A6]:5555"
expect_eq "listener of [$A6]:5555" "$(listener "[$A6]:5555")" "listening in $init"
expect_eq "rdma_cm_listeners" "$(cat "$LS")" "$init [$A6]:5555"
refused "[$B6]:5555"
served "[$A6]:5555" P

# ------------------------------------------------ a second one, IPv4
mkdir "$T/np/$A4:5556" || die "mkdir np/$A4:5556"
expect_eq "rdma_cm_listeners with two portals" "$(sort "$LS")" \
	"$(printf '%s\n' "$init [$A6]:5555" "$init $A4:5556" | sort)"
served "$A4:5556" Q
refused "$A4:5555"

# --------------------------------- login_info: what a host writes
# One line per address a listener serves on rxe0 ([$B6] has none; the
# link-local GID is left out), and a login with exactly one of them.
LI=$T/login_info
expect_eq "login_info with two portals" "$(sort "$LI")" \
	"$(printf 'id_ext=%s,ioc_guid=%s,dest=%s\n' "$G" "$G" "[$A6]:5555" "$G" "$G" "$A4:5556" | sort)"
served "$(grep -F "dest=$A4:5556" "$LI")" L

# --------------------------------------------------------- bad input
bad_np "$A6:5557" "IPv6 without brackets"
bad_np "$A4:0" "port 0"
bad_np "$A4" "no port"
bad_np "[$A6]:65536" "port out of range"
bad_np "10.92.0.77:5557" "address of no interface"
bad_np "[$A6]:5555x" "port with trailing garbage"
bad_np "[::]:5555" "all IPv6 addresses, on the port [$A6]:5555 holds"

# ------------------------------------------------------------- rmdir
rmdir "$T/np/[$A6]:5555" || die "rmdir np/[$A6]:5555"
expect_eq "rdma_cm_listeners after rmdir" "$(cat "$LS")" "$init $A4:5556"
expect_eq "login_info after rmdir" "$(cat "$LI")" "id_ext=$G,ioc_guid=$G,dest=$A4:5556"
refused "[$A6]:5555"

# ------------------------------------------------ the device goes away
run_deadline 60 $RDMA link delete "$RXE" || die "rdma link delete $RXE (blocked by a portal?)"
expect_eq "listener of $A4:5556 after its device went" "$(listener "$A4:5556")" \
	"closed: its RDMA device was removed"
expect_eq "rdma_cm_listeners after the device went" "$(cat "$LS")" ""
expect_eq "login_info after the device went" "$(cat "$LI")" ""
rmdir "$T/np/$A4:5556" || die "rmdir np/$A4:5556 after its device went"

# --------------------------------------------------- a namespace's portals
modprobe -a veth iw_cm || die "modprobe veth iw_cm"
siw_load
$IP netns add "$NS" || die "ip netns add $NS"
nsinode=$(nsx readlink /proc/self/ns/net)
$IP link add p0 type veth peer name p1 netns "$NS" || die "veth into $NS"
$IP link set p0 up
nsx $IP link set lo up
nsx $IP link set p1 up
nsx $IP -4 addr add "$NS_ADDR/24" dev p1
nsx $RDMA link add siwnp type siw netdev p1 || die "rdma link add siwnp (in $NS)"
nsx sh -c "mkdir '$T/np/$NS_ADDR:5557'" || die "mkdir np/$NS_ADDR:5557 from $NS"
nsx sh -c "mkdir '$T/np/0.0.0.0:5558'" || die "mkdir np/0.0.0.0:5558 from $NS"
expect_eq "listener of $NS_ADDR:5557" "$(listener "$NS_ADDR:5557")" "listening in $nsinode"
expect_eq "rdma_cm_listeners in the initial namespace" "$(sort "$LS")" \
	"$(printf '%s\n' "$nsinode $NS_ADDR:5557" "$nsinode 0.0.0.0:5558" | sort)"
expect_eq "rdma_cm_listeners in $NS" "$(nsx sort "$LS")" \
	"$(printf '%s\n' "$nsinode $NS_ADDR:5557" "$nsinode 0.0.0.0:5558" | sort)"
bad_np "$NS_ADDR:5557x" "port with trailing garbage"
if mkdir "$T/np/$NS_ADDR:5559" 2>/dev/null; then
	die "the initial namespace listened on $NS_ADDR, which only $NS has"
fi
log "ok: np/$NS_ADDR:5559 made in the initial namespace is refused (the address is $NS's)"
nsx rmdir "$T/np/$NS_ADDR:5557" || die "rmdir np/$NS_ADDR:5557 from $NS"
expect_eq "rdma_cm_listeners after rmdir in $NS" "$(cat "$LS")" "$nsinode 0.0.0.0:5558"
# The namespace's last RDMA device goes after the namespace was deleted:
# its portal on all addresses (bound to no device) closes with it.
$IP netns delete "$NS"
sleep 2
gone p0 && die "$NS was freed while its portal listened"
run_deadline 60 $RDMA link delete siwnp || die "rdma link delete siwnp"
wait_for 30 gone p0 || die "$NS not freed 30 s after its last RDMA device was deleted"
expect_eq "listener of 0.0.0.0:5558" "$(listener 0.0.0.0:5558)" \
	"closed: its network namespace has no RDMA interface left"
expect_eq "rdma_cm_listeners after $NS went" "$(cat "$LS")" ""
log "ok: $NS's portal closed with it and the namespace was freed"
rmdir "$T/np/0.0.0.0:5558" || die "rmdir the closed portal"
