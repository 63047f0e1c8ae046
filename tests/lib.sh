# SPDX-License-Identifier: GPL-2.0-only
#
# Guest-side helpers for the VM test bench (sourced by scripts run through
# scripts/vm.sh).
# Environment from vm.sh: REPO, KVER, KREL, MODULE
# (ours|distro|none), KO (path of our ib_srpt.ko), OUT (/out), TRANSPORT
# (rxe: soft-RoCE, the default; siw: soft-iWARP, with SIW_KO the siw.ko
# built by scripts/siw.sh when the kernel has none).
#
# Typical use:
#   . "$REPO/tests/lib.sh"
#   rxe_setup                       # soft-RoCE rxe0 over veth v0 (fd00::1),
#                                   # or with TRANSPORT=siw soft-iWARP siw0
#                                   # over v0 (10.90.0.1)
#   srpt_load                       # ours (insmod $KO) or distro (modprobe)
#   dev=$(bs_null nb0 256)          # 256 MiB memory-backed null_blk
#   srpt_target_create              # wwn + tpgt_1, RDMA/CM port 5555
#   srpt_lun 0 "$dev"               # iblock backstore on $dev as LUN 0
#   srpt_acl_add                    # ACL for the local ib_srp initiator
#   srpt_enable                     # (these four: srpt_serve "$bs")
#   srp_login                       # ib_srp add_target (extra opts allowed)
#   disk=$(srp_disk 0)              # /dev/sdX of LUN 0
#   fio_verify "$disk" 4k randwrite 32M
#   srp_logout; srpt_teardown; srpt_unload
# Every helper fails loudly (non-zero, message on stderr).

# SPLAT_RE, shared with the host scripts.
. "$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/scripts/lib.sh"

LIO=/sys/kernel/config/target
SRPT_CFS=$LIO/srpt
RDMA_CM_PORT=${RDMA_CM_PORT:-5555}
# The soft-RDMA device (RXE, named so for history: siw0 over iWARP) and the
# target's address on v0. iWARP runs over the kernel's TCP: siw listens on
# the addresses of its netdev, and the initiator's connection to that
# address, local to this guest, takes the loopback route. The scenarios use
# IPv4 addresses on both veth ends over siw.
TRANSPORT=${TRANSPORT:-rxe}
if [ "$TRANSPORT" = siw ]; then
	TARGET_ADDR=${TARGET_ADDR:-10.90.0.1}
	PEER_ADDR=${PEER_ADDR:-10.90.0.2}
	RXE=${RXE:-siw0}
else
	TARGET_ADDR=${TARGET_ADDR:-fd00::1}
	RXE=${RXE:-rxe0}
fi
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

log() { echo "[+$(cut -d' ' -f1 /proc/uptime)s] $*" >&2; }
die() { echo "FAIL: $*" >&2; return 1; }

# breaking WHAT: true when BREAK (comma list) names WHAT; scenarios use it to
# fail on purpose (e.g. BREAK=acl: the login scenario creates no ACL).
breaking() { [[ ",${BREAK:-}," == *",$1,"* ]]; }

# expect_eq WHAT GOT WANT: fail (with a message) unless GOT equals WANT.
expect_eq() {
	if [ "$2" != "$3" ]; then
		die "$1: got '$2', want '$3'"
		return 1
	fi
	log "ok: $1 = '$2'"
}

# wait_for SECONDS CMD... : poll CMD every 0.2 s until it succeeds.
wait_for() {
	local t=$1 i
	shift
	for ((i = 0; i < t * 5; i++)); do
		"$@" 2>/dev/null && return 0
		sleep 0.2
	done
	"$@"
}

# run_deadline SECONDS CMD...: run CMD; if it is not done after SECONDS,
# say so on stderr (with where it waits in the kernel), TERM then KILL it
# and return 124 without waiting for it further (a task stuck in the kernel
# cannot be reaped; the caller must not hang on it).
run_deadline() {
	local t=$1 pid i
	shift
	"$@" &
	pid=$!
	for ((i = 0; i < t * 5; i++)); do
		kill -0 "$pid" 2>/dev/null || { wait "$pid"; return; }
		sleep 0.2
	done
	echo "'$*' still running after $t s (hung: $(cat "/proc/$pid/wchan" 2>/dev/null))" >&2
	kill -TERM "$pid" 2>/dev/null
	sleep 3
	kill -KILL "$pid" 2>/dev/null
	sleep 1
	kill -0 "$pid" 2>/dev/null || wait "$pid"
	return 124
}

# ---------------------------------------------------------------- soft-RoCE

rxe_port_active() {
	grep -q ACTIVE "/sys/class/infiniband/$RXE/ports/1/state"
}

# siw_load: the soft-iWARP driver, from the kernel or SIW_KO.
siw_load() {
	local deps
	grep -qw '^siw' /proc/modules && return 0
	modprobe -q siw 2>/dev/null && return 0
	[ -r "${SIW_KO:-}" ] || die "no siw module in $(uname -r) and no SIW_KO (scripts/siw.sh)" || return 1
	deps=$(modinfo -F depends "$SIW_KO" 2>/dev/null | tr ',' ' ')
	[ -z "$deps" ] || modprobe -a $deps || die "modprobe $deps" || return 1
	modprobe -q crc32c_generic 2>/dev/null || true
	insmod "$SIW_KO" || die "insmod $SIW_KO"
}

# veth_pair A B: a new veth pair A/B, both ends up. A scenario that deleted
# the RDMA device on A (92-portals does) leaves A behind with its addresses:
# a stale pair goes first, so the next device starts from a clean netdev.
veth_pair() {
	/usr/sbin/ip link delete "$1" 2>/dev/null
	/usr/sbin/ip link add "$1" type veth peer name "$2" || die "veth $1" || return 1
	/usr/sbin/ip link set "$1" up
	/usr/sbin/ip link set "$2" up
}

# siw_setup: soft-iWARP device $RXE on veth v0 with IPv4 addresses on both
# ends of the pair.
siw_setup() {
	[ -d "/sys/class/infiniband/$RXE" ] && return 0
	modprobe -a veth ib_core iw_cm rdma_cm || die "modprobe veth iw_cm rdma_cm" || return 1
	siw_load || return 1
	modprobe -a ib_uverbs rdma_ucm 2>/dev/null || true
	/usr/sbin/ip link set lo up
	veth_pair v0 v1 || return 1
	/usr/sbin/ip -4 addr add "$TARGET_ADDR/24" dev v0 || die "address $TARGET_ADDR" || return 1
	/usr/sbin/ip -4 addr add "$PEER_ADDR/24" dev v1 || die "address $PEER_ADDR" || return 1
	/usr/bin/rdma link add "$RXE" type siw netdev v0 || die "rdma link add $RXE type siw" || return 1
	wait_for 20 rxe_port_active || die "$RXE port not ACTIVE" || return 1
	wait_for 10 test -s "/sys/class/infiniband/$RXE/ports/1/gids/0"
	log "soft-iWARP $RXE on v0 ($TARGET_ADDR) active"
}

# modules_trim: hide the module directories of hardware and file systems
# these guests never load (graphics, sound, media, wireless, HBAs, ...)
# behind empty tmpfs mounts, so that a depmod (make install, DKMS, apt)
# reads 948 of Debian 6.12's 4230 compressed modules. Never on the debug
# kernel (few modules).
modules_trim() {
	local k=/lib/modules/$(uname -r)/kernel d n=0 mounted
	[ -z "${KMODDIR:-}" ] || return 0
	[ -d "$k" ] || return 0
	# one read of the mount table, not a mountpoint(1) per directory:
	# each process costs a tenth of a second under TCG
	mounted=$(cut -d' ' -f5 /proc/self/mountinfo)
	for d in sound drivers/{media,gpu,iio,usb,hid,input,comedi,staging,mtd} \
		drivers/{video,bluetooth,hwmon,platform,accel,mmc,ata,isdn} \
		drivers/{watchdog,i2c,atm,thunderbolt,message} \
		drivers/{misc,leds,thermal,w1,edac,mfd,hwtracing,nfc,rtc,spi} \
		drivers/net/{ethernet,wireless,usb,can} \
		net/{bluetooth,wireless,mac80211,netfilter,sched,6lowpan,ieee802154} \
		net/{nfc,openvswitch,bridge,can} \
		fs/{bcachefs,btrfs,xfs,ocfs2,smb,nfs,f2fs,nfsd,ceph,gfs2,ubifs} \
		fs/{ext4,jfs,reiserfs,ntfs3,udf,nilfs2,afs,orangefs,jffs2,nls} \
		"$k"/drivers/scsi/*/; do
		d=${d#"$k"/}
		d=${d%/}
		[ "$d" != drivers/scsi/device_handler ] || continue
		[ -d "$k/$d" ] || continue
		[[ $'\n'$mounted$'\n' == *$'\n'"$k/$d"$'\n'* ]] && continue
		mount -t tmpfs -o size=64k,mode=0755 modules-trim "$k/$d" && n=$((n + 1))
	done
	log "modules: $n directories hidden"
}

# rxe_setup: the soft-RDMA device of TRANSPORT (rxe: soft-RoCE, siw:
# soft-iWARP) over a veth pair, port ACTIVE.
rxe_setup() {
	[ "$TRANSPORT" = siw ] && { siw_setup; return; }
	[ -d "/sys/class/infiniband/$RXE" ] && return 0
	modprobe -a rdma_rxe veth || die "modprobe rdma_rxe veth" || return 1
	modprobe -q crc32_generic 2>/dev/null || true
	modprobe -a ib_uverbs rdma_ucm 2>/dev/null || true
	veth_pair v0 v1 || return 1
	/usr/sbin/ip -6 addr add "$TARGET_ADDR/64" dev v0 nodad
	/usr/bin/rdma link add "$RXE" type rxe netdev v0 || die "rdma link add" || return 1
	wait_for 20 rxe_port_active || die "$RXE port not ACTIVE" || return 1
	wait_for 10 test -s "/sys/class/infiniband/$RXE/ports/1/gids/0"
	log "soft-RoCE $RXE on v0 ($TARGET_ADDR) active"
}

# rxe_add DEV NETDEV ADDR: one more soft-RoCE device DEV over a new veth
# pair NETDEV/NETDEV-p with the IPv6 ADDR on NETDEV (rxe_setup's rxe0 on
# v0 stays), port ACTIVE. Undo with rxe_del DEV NETDEV. The helpers that
# name a device (srpt_wwn, tpg_dir, srpt_acl_add...) act on $RXE: set it
# (e.g. "local RXE=DEV" in a function) to work on DEV's target port.
rxe_add() {
	local dev=$1 nd=$2 addr=$3
	modprobe -a rdma_rxe veth || die "modprobe rdma_rxe veth" || return 1
	veth_pair "$nd" "$nd-p" || return 1
	/usr/sbin/ip -6 addr add "$addr/64" dev "$nd" nodad || die "address $addr" || return 1
	/usr/bin/rdma link add "$dev" type rxe netdev "$nd" || die "rdma link add $dev" || return 1
	wait_for 20 grep -q ACTIVE "/sys/class/infiniband/$dev/ports/1/state" ||
		die "$dev port not ACTIVE" || return 1
	wait_for 10 test -s "/sys/class/infiniband/$dev/ports/1/gids/0"
	log "soft-RoCE $dev on $nd ($addr) active"
}

rxe_del() {
	/usr/bin/rdma link delete "$1" 2>/dev/null
	/usr/sbin/ip link delete "$2" 2>/dev/null
	return 0
}

# 16 hex digits of the HCA node GUID (= the target's service GUID by default).
node_guid_hex() {
	tr -d ':\n' <"/sys/class/infiniband/$RXE/node_guid"
}

# 32 hex digits of GID index 0 of port 1.
gid0_hex() {
	tr -d ':\n' <"/sys/class/infiniband/$RXE/ports/1/gids/0"
}

# Configfs target port (wwn) name: 0x + 32 hex of GID 0.
srpt_wwn() { echo "0x$(gid0_hex)"; }

# The id_ext/ioc_guid the initiator must name.
target_guid() { echo "${SRPT_SERVICE_GUID:-$(node_guid_hex)}"; }

# ------------------------------------------------------------ target module

srpt_deps() {
	modprobe -a configfs target_core_mod target_core_iblock target_core_file \
		ib_core ib_cm iw_cm rdma_cm || die "modprobe target/rdma deps"
}

# srpt_load [module parameters...]: load ours (by path) or the distro module.
srpt_load() {
	srpt_deps || return 1
	grep -qw '^ib_srpt' /proc/modules && return 0
	case "$MODULE" in
	ours)
		# The distro ib_srpt must never come in by name in this mode.
		mkdir -p /etc/modprobe.d
		printf 'blacklist ib_srpt\ninstall ib_srpt /bin/false\n' \
			>/etc/modprobe.d/zz-ib-srpt-ours.conf
		[ -r "$KO" ] || die "our module $KO is missing (make module KVER=$KVER)" || return 1
		local deps
		deps=$(modinfo -F depends "$KO" 2>/dev/null | tr ',' ' ')
		[ -z "$deps" ] || modprobe -a $deps || die "modprobe $deps" || return 1
		insmod "$KO" "$@" || die "insmod $KO" || return 1
		# Out-of-tree modules taint with O: proves this is not the distro one.
		grep -q O /sys/module/ib_srpt/taint ||
			die "loaded ib_srpt is not the out-of-tree build" || return 1
		;;
	distro)
		rm -f /etc/modprobe.d/zz-ib-srpt-ours.conf
		modprobe ib_srpt "$@" || die "modprobe ib_srpt" || return 1
		;;
	*) die "MODULE=$MODULE: nothing to load"; return 1 ;;
	esac
	log "ib_srpt ($MODULE) loaded: $(srpt_module_file)"
}

srpt_module_file() {
	if [ "$MODULE" = ours ]; then echo "$KO"; else modinfo -n ib_srpt 2>/dev/null; fi
}

srpt_refcnt() { cat /sys/module/ib_srpt/refcnt 2>/dev/null || echo gone; }

srpt_unload() {
	grep -qw '^ib_srpt' /proc/modules || return 0
	[ -d "$SRPT_CFS" ] && rmdir "$SRPT_CFS" 2>/dev/null
	rmmod ib_srpt || die "rmmod ib_srpt (refcnt $(srpt_refcnt))"
}

# ------------------------------------------------------------- backstores

# bs_null NAME MIB: memory-backed null_blk device; prints /dev/<disk>.
bs_null() {
	local name=$1 mib=$2 d idx
	[ -d /sys/kernel/config/nullb ] || modprobe null_blk nr_devices=0 ||
		{ die "modprobe null_blk"; return 1; }
	d=/sys/kernel/config/nullb/$name
	mkdir "$d" || { die "mkdir $d"; return 1; }
	echo "$mib" >"$d/size"
	echo 1 >"$d/memory_backed"
	echo 512 >"$d/blocksize"
	echo 1 >"$d/power" || { die "null_blk power on"; return 1; }
	idx=$(cat "$d/index")
	if [ -b "/dev/$name" ]; then echo "/dev/$name"
	else wait_for 5 test -b "/dev/nullb$idx" && echo "/dev/nullb$idx"; fi
}

# bs_brd MIB: a brd ram disk; prints /dev/ram0.
bs_brd() {
	local mib=$1
	if ! grep -qw '^brd' /proc/modules; then
		modprobe brd rd_nr=1 rd_size=$((mib * 1024)) max_part=0 ||
			{ die "modprobe brd"; return 1; }
	fi
	wait_for 5 test -b /dev/ram0 && echo /dev/ram0
}

# lio_iblock NAME DEV: iblock backstore; prints its configfs dir.
lio_iblock() {
	local name=$1 dev=$2 d=$LIO/core/iblock_0/$1
	mkdir -p "$d" || { die "mkdir $d"; return 1; }
	echo "udev_path=$dev" >"$d/control"
	echo 1 >"$d/enable" || { die "enable iblock $name"; return 1; }
	echo "$d"
}

# lio_fileio NAME PATH MIB: fileio backstore on a tmpfs file.
lio_fileio() {
	local name=$1 path=$2 mib=$3 d=$LIO/core/fileio_0/$1
	mkdir -p "$d" || { die "mkdir $d"; return 1; }
	truncate -s "${mib}M" "$path"
	echo "fd_dev_name=$path,fd_dev_size=$((mib * 1048576))" >"$d/control"
	echo 1 >"$d/enable" || { die "enable fileio $name"; return 1; }
	echo "$d"
}

# lio_serial BACKSTORE_DIR SERIAL: set the VPD unit serial.
lio_serial() { echo "$2" >"$1/wwn/vpd_unit_serial"; }

# ----------------------------------------------------------- srpt configfs

tpg_dir() { echo "$SRPT_CFS/$(srpt_wwn)/tpgt_1"; }

# srpt_target_create: wwn for rxe0 port 1 + tpgt_1 + RDMA/CM listener.
srpt_target_create() {
	local w
	w=$SRPT_CFS/$(srpt_wwn)
	mkdir -p "$SRPT_CFS" || { die "mkdir $SRPT_CFS (fabric not registered?)"; return 1; }
	echo "$RDMA_CM_PORT" >"$SRPT_CFS/discovery_auth/rdma_cm_port" ||
		{ die "set rdma_cm_port"; return 1; }
	mkdir -p "$w" || { die "mkdir wwn $w"; return 1; }
	mkdir -p "$w/tpgt_1" || { die "mkdir $w/tpgt_1"; return 1; }
}

# srpt_lun LUN BACKSTORE_DIR
srpt_lun() {
	local lun=$1 bs=$2 t
	t=$(tpg_dir)
	mkdir "$t/lun/lun_$lun" || { die "mkdir lun_$lun"; return 1; }
	ln -s "$bs" "$t/lun/lun_$lun/$(basename "$bs")" || { die "link lun_$lun"; return 1; }
}

# The initiator port ID (ACL name) of the local ib_srp on port 1, which
# srpt_acl_add uses by default. ib_srp sends its id extension (0), then
# the interface ID of GID 0: the node GUID on rxe; over siw, GID 0 is the
# MAC address followed by zeros, so the interface ID is 0 there.
initiator_acl_name() {
	echo "${ACL_NAME:-0x0000000000000000$(gid0_hex | cut -c17-32)}"
}

# srpt_acl_add [NAME]: ACL mapping every LUN of the TPG.
srpt_acl_add() {
	local name=${1:-$(initiator_acl_name)} t l
	t=$(tpg_dir)
	mkdir "$t/acls/$name" || { die "mkdir acl $name"; return 1; }
	for l in "$t"/lun/lun_*; do
		[ -d "$l" ] || continue
		mkdir "$t/acls/$name/$(basename "$l")"
		ln -s "$l" "$t/acls/$name/$(basename "$l")/map" ||
			{ die "map $(basename "$l") for $name"; return 1; }
	done
}

srpt_enable() { echo 1 >"$(tpg_dir)/enable" || die "enable tpgt_1"; }

# srpt_tpg_remove TPG_DIR: disable the TPG, remove its ACLs (with their
# mapped LUNs), LUNs and network portals, then the TPG itself; fails when
# it is still there.
srpt_tpg_remove() {
	local t=$1 a l
	echo 0 >"$t/enable" 2>/dev/null
	for a in "$t"/acls/*; do
		[ -d "$a" ] || continue
		for l in "$a"/lun_*; do
			[ -d "$l" ] || continue
			find "$l" -maxdepth 1 -type l -delete
			rmdir "$l"
		done
		rmdir "$a"
	done
	for l in "$t"/lun/lun_*; do
		[ -d "$l" ] || continue
		find "$l" -maxdepth 1 -type l -delete
		rmdir "$l"
	done
	for l in "$t"/np/*; do
		[ -d "$l" ] && rmdir "$l"
	done
	rmdir "$t"
}

# srpt_teardown: remove every srpt and backstore object from configfs.
srpt_teardown() {
	local w t m
	if [ -d "$SRPT_CFS" ]; then
		for w in "$SRPT_CFS"/*/; do
			w=${w%/}
			[ "$(basename "$w")" = discovery_auth ] && continue
			[ -d "$w" ] || continue
			# Any TPG name: tpgt_N, the port's own name (old scripts)...
			for t in "$w"/*/; do
				t=${t%/}
				case "$(basename "$t")" in fabric_statistics|param) continue ;; esac
				[ -d "$t/lun" ] || continue
				srpt_tpg_remove "$t"
			done
			rmdir "$w"
		done
		echo 0 >"$SRPT_CFS/discovery_auth/rdma_cm_port" 2>/dev/null
		# The fabric directory pins the module: drop it too.
		rmdir "$SRPT_CFS" 2>/dev/null
	fi
	for m in "$LIO"/core/*_*/*/; do
		m=${m%/}
		[ -d "$m" ] || continue
		case "$(basename "$m")" in alua|statistics|pr|wwn) continue ;; esac
		# ALUA target port groups made for the backstore go first.
		for t in "$m"/alua/*/; do
			t=${t%/}
			[ "$(basename "$t")" = default_tg_pt_gp ] || rmdir "$t" 2>/dev/null
		done
		rmdir "$m" 2>/dev/null || log "cannot remove backstore $m"
	done
	for m in "$LIO"/core/*_*; do
		[ -d "$m" ] && rmdir "$m" 2>/dev/null
	done
	for m in /sys/kernel/config/nullb/*/; do
		[ -d "$m" ] || continue
		echo 0 >"$m/power" 2>/dev/null
		rmdir "$m"
	done
	rm -f /tmp/lun-*.img
	return 0
}

# srpt_leftovers: print configfs objects that should be gone; fail if any.
srpt_leftovers() {
	local left
	left=$( { ls -d "$SRPT_CFS"/*/ 2>/dev/null | grep -v discovery_auth
		ls -d "$LIO"/core/*_*/*/ 2>/dev/null | grep -Ev '/(alua|statistics)/$'; } || true)
	[ -z "$left" ] && return 0
	echo "$left" >&2
	return 1
}

# ------------------------------------------------------------- initiator

# srp_dev_dir [IBDEV]: ib_srp's directory for port 1 of IBDEV (default $RXE).
srp_dev_dir() { echo "/sys/class/infiniband_srp/srp-${1:-$RXE}-1"; }

srp_initiator_load() {
	modprobe -a sd_mod scsi_transport_srp ib_srp || die "modprobe ib_srp"
}

# srp_dest [ADDR]: the add_target dest= value ([IPv6]:port or IPv4:port)
# of ADDR (default TARGET_ADDR).
srp_dest() {
	local a=${1:-$TARGET_ADDR}
	case "$a" in
	*:*) echo "[$a]:$RDMA_CM_PORT" ;;
	*) echo "$a:$RDMA_CM_PORT" ;;
	esac
}

# srp_target_opts GUID [ADDR]: the add_target options that name the target
# (id_ext, ioc_guid, dest); ADDR as for srp_dest.
srp_target_opts() { echo "id_ext=$1,ioc_guid=$1,dest=$(srp_dest "${2:-}")"; }

# srp_login [extra add_target options, e.g. ch_count=2]
srp_login() {
	local g opts d
	srp_initiator_load || return 1
	g=$(target_guid)
	opts=$(srp_target_opts "$g")
	[ $# -gt 0 ] && opts+=",$(IFS=,; echo "$*")"
	d=$(srp_dev_dir "$RXE")
	wait_for 10 test -w "$d/add_target" || { die "no $d"; return 1; }
	log "ib_srp add_target $opts"
	echo "$opts" >"$d/add_target" || { die "add_target rejected ($opts)"; return 1; }
}

# srp_hosts: SCSI host numbers created by ib_srp.
srp_hosts() {
	local h
	for h in /sys/class/scsi_host/host*; do
		[ -e "$h/proc_name" ] || continue
		[ "$(cat "$h/proc_name" 2>/dev/null)" = ib_srp ] && basename "$h" | sed 's/^host//'
	done
	return 0
}

# srp_disk LUN [TIMEOUT]: wait for and print /dev/sdX of that LUN.
srp_disk() {
	local lun=$1 t=${2:-30} i h d
	for ((i = 0; i < t * 5; i++)); do
		for h in $(srp_hosts); do
			for d in /sys/class/scsi_disk/"$h":*:*:"$lun"; do
				[ -d "$d/device/block" ] || continue
				d=$(ls "$d/device/block" | head -n 1)
				[ -b "/dev/$d" ] && { echo "/dev/$d"; return 0; }
			done
		done
		sleep 0.2
	done
	die "no disk for LUN $lun after ${t}s"
}

# srp_host_disks HOST: /dev/sdX of each disk of SCSI host HOST (N or hostN).
srp_host_disks() {
	local d
	for d in /sys/class/scsi_disk/"${1#host}":*; do
		[ -d "$d/device/block" ] && echo "/dev/$(ls "$d/device/block" | head -n 1)"
	done
	return 0
}

# srp_disks: the disks of every ib_srp SCSI host.
srp_disks() {
	local h
	for h in $(srp_hosts); do
		srp_host_disks "$h"
	done
	return 0
}

srp_no_hosts() { [ -z "$(srp_hosts)" ]; }

# login_refused WHAT CMD...: CMD, an ib_srp add_target write, must fail
# promptly (a hung login is not a refused one: over 20 s fails, as does
# success), and no SCSI host may appear then or 3 s later.
login_refused() {
	local what=$1 t0 rc=0 secs
	shift
	t0=$(date +%s)
	run_deadline 60 "$@" || rc=$?
	secs=$(( $(date +%s) - t0 ))
	[ "$rc" != 0 ] || die "$what: the login succeeded"
	[ "$rc" != 124 ] || die "$what: the login hung instead of being refused"
	[ "$secs" -le 20 ] || die "$what: the login took ${secs}s to fail, not a prompt refusal"
	srp_no_hosts || die "$what: an ib_srp host after the refused login: $(srp_hosts)"
	sleep 3
	srp_no_hosts || die "$what: an ib_srp host 3 s after the refused login: $(srp_hosts)"
	log "ok: $what: refused after ${secs}s (status $rc), no host then or 3 s later"
}

# srp_logout: delete every ib_srp remote port and wait for its SCSI host to go.
srp_logout() {
	local p t0 i
	[ -n "$(srp_hosts)" ] || return 0
	t0=$(cut -d' ' -f1 /proc/uptime)
	for p in /sys/class/srp_remote_ports/*; do
		[ -e "$p/delete" ] || continue
		echo 1 >"$p/delete"
	done
	for ((i = 0; i < 450; i++)); do
		srp_no_hosts && break
		# Still there after 15 s: record what blocks it (once).
		[ $i = 75 ] && echo w >/proc/sysrq-trigger
		sleep 0.2
	done
	srp_no_hosts || { die "ib_srp hosts remain 90s after delete: $(srp_hosts)"; return 1; }
	log "ib_srp logged out in $(awk -v a="$t0" '{printf "%.1f", $1 - a}' /proc/uptime)s"
}

# check_disk DISK SIZE_BYTES SERIAL: size, LIO vendor and unit serial number.
check_disk() {
	local disk=$1 size=$2 serial=$3 got
	expect_eq "size of $disk" "$(blockdev --getsize64 "$disk")" "$size" || return 1
	got=$(sg_inq "$disk" | sed -n 's/^ *Vendor identification: *//p' | sed 's/ *$//')
	expect_eq "vendor of $disk" "$got" LIO-ORG || return 1
	got=$(sg_vpd -p sn "$disk" | sed -n 's/^ *Unit serial number: *//p' | sed 's/ *$//')
	expect_eq "unit serial of $disk" "$got" "$serial" || return 1
}

# ------------------------------------------------------------- I/O

# fio_verify DEV BS RW SIZE [iodepth]: write then read back with crc32c.
# The debug kernel (KASAN, lockdep, kmemleak) runs I/O about four times
# slower under TCG; it is there to see the driver's paths, not volume:
# fio_verify sizes are divided by E2E_IO_DIV (default 4 there, 1 elsewhere).
case "$(uname -r)" in
*-srpt-debug) E2E_IO_DIV=${E2E_IO_DIV:-4} ;;
*) E2E_IO_DIV=${E2E_IO_DIV:-1} ;;
esac

fio_verify() {
	# rc is set by "|| rc=": a bare failing fio would end a "set -e"
	# scenario before its output is shown.
	local dev=$1 bs=$2 rw=$3 size=$4 qd=${5:-16} rc=0 n
	if [ "$E2E_IO_DIV" -gt 1 ] && [[ "$size" =~ ^([0-9]+)M$ ]]; then
		n=$(( BASH_REMATCH[1] / E2E_IO_DIV ))
		size=$(( n < 4 ? 4 : n ))M
	fi
	fio --name="verify-$bs-$rw" --filename="$dev" --direct=1 --ioengine=libaio \
		--rw="$rw" --bs="$bs" --size="$size" --iodepth="$qd" \
		--verify=crc32c --do_verify=1 --verify_fatal=1 --verify_dump=0 \
		--randrepeat=0 --norandommap=0 --output-format=terse --terse-version=3 \
		>/tmp/fio-verify.out 2>&1 || rc=$?
	if [ $rc -ne 0 ]; then
		cat /tmp/fio-verify.out >&2
		die "fio verify $bs $rw $size on $dev (rc $rc)"
		return 1
	fi
	log "fio verify $bs $rw $size on $dev: ok"
}

# ------------------------------------------------------------- standard setup

# srpt_serve BACKSTORE_DIR: the target port and TPG, the backstore as LUN 0,
# the ACL of the local ib_srp initiator, TPG enabled.
srpt_serve() {
	srpt_target_create || return 1
	srpt_lun 0 "$1" || return 1
	srpt_acl_add || return 1
	srpt_enable
}

# srpt_standard_setup [MIB [srp_login options...]]: rxe + module + one
# null_blk LUN 0 (srpt_serve) + login; prints the initiator-side disk. For
# scripts that just need a LUN. (rxe_setup and srpt_load do nothing when
# done already: a scenario may load the module itself first.)
srpt_standard_setup() {
	local mib=${1:-128} dev bs
	shift $(($# > 0 ? 1 : 0))
	rxe_setup || return 1
	srpt_load || return 1
	dev=$(bs_null nb0 "$mib") || return 1
	bs=$(lio_iblock nb0 "$dev") || return 1
	srpt_serve "$bs" || return 1
	srp_login "$@" || return 1
	srp_disk 0
}

# dbus_start: targetcli needs a system D-Bus (it asks tcmu-runner over it).
dbus_start() {
	[ -S /run/dbus/system_bus_socket ] && return 0
	mkdir -p /run/dbus
	dbus-daemon --system --fork --nopidfile 2>/dev/null ||
		dbus-daemon --system --fork || die "cannot start dbus-daemon"
	wait_for 5 test -S /run/dbus/system_bus_socket
}

# tcb [OUT]: the targetcli commands on stdin in one targetcli shell
# (tests/tcbatch.py; a python start costs seconds under TCG), each echoed
# with its output to OUT (default /tmp/tcb.out) and the log. Fails at the
# first command that fails, naming it.
tcb() {
	local out=${1:-/tmp/tcb.out} rc=0
	/usr/bin/python3 "$REPO/tests/tcbatch.py" >"$out" 2>&1 || rc=$?
	grep -v -e 'Could not load preferences' -e 'dbroot' "$out" >&2
	[ "$rc" = 0 ] || { die "targetcli: $(grep -m1 '^tcbatch:' "$out" || echo "status $rc")"; return 1; }
}

# ------------------------------------------------------------- dmesg checks

# dmesg_splats FILE: print kernel splat lines (SPLAT_RE) found in FILE.
dmesg_splats() { grep -aE "$SPLAT_RE" "$1"; }

# taint_new BEFORE: print "kernel tainted: <flags>" when taint flags are set
# now that were not in BEFORE (a /proc/sys/kernel/tainted value); false if
# none. O and E (an out-of-tree, unsigned module: ours) do not count.
taint_new() {
	local now new flags='' i letters=PFSRMBUDAWCIOELKXTN
	now=$(cat /proc/sys/kernel/tainted)
	new=$(( now & ~$1 & ~((1 << 12) | (1 << 13)) ))
	[ "$new" != 0 ] || return 1
	for ((i = 0; i < ${#letters}; i++)); do
		(( new & (1 << i) )) && flags+=${letters:i:1}
	done
	(( new >> ${#letters} )) && flags+="+$(( new >> ${#letters} << ${#letters} ))"
	echo "kernel tainted: $flags (was $1, now $now)"
}

# kmemleak_report FILE: on a kernel with kmemleak (the debug kernel), scan
# for unreferenced objects and write their reports to FILE; status 1 when
# there are any, or when the debug kernel's kmemleak cannot be used. An
# object is reported only by a scan that finds it unreferenced and unchanged
# since the scan before (the first scan that sees it records its checksum),
# hence two scans; and only when it is older than kmemleak's minimum age
# (5 s) as that second scan starts: it starts 6 s after this call at the
# earliest. The first scan judges no new object's age, so it need not wait
# (about 10 s on the debug kernel: the second then starts at once).
# guest-init.sh clears what boot left behind.
kmemleak_report() {
	local k=/sys/kernel/debug/kmemleak t0
	read -r t0 _ </proc/uptime
	: >"$1"
	if [ ! -w "$k" ]; then
		[ "${KVER:-}" != debug ] && return 0
		echo "kmemleak: $k missing on the debug kernel" >"$1"
		return 1
	fi
	if ! { echo scan >"$k" &&
		sleep "$(awk -v t0="$t0" '{ w = t0 + 6 - $1; printf "%.2f", (w > 0 ? w : 0) }' /proc/uptime)" &&
		echo scan >"$k" && cat "$k" >"$1"; } 2>/dev/null; then
		echo "kmemleak: scan refused ($(dmesg | grep -m1 'kmemleak:.*disabled'))" >>"$1"
		return 1
	fi
	echo clear >"$k"
	[ ! -s "$1" ]
}

# serve_verify_unload BS SERIAL: LUN 0 on BS in tpgt_1 (already made), the
# initiator's ACL, enable, log in, check the 64 MiB disk (SERIAL) and
# fio-verify it, log out, tear down and unload ib_srpt.
serve_verify_unload() {
	local disk
	srpt_lun 0 "$1" || return 1
	srpt_acl_add || return 1
	srpt_enable || return 1
	srp_login || return 1
	disk=$(srp_disk 0) || return 1
	check_disk "$disk" $((64 * 1048576)) "$2" || return 1
	fio_verify "$disk" 4k randwrite 8M 8 || return 1
	srp_logout || return 1
	srpt_teardown || return 1
	modprobe -r ib_srpt || return 1
	! grep -qw '^ib_srpt' /proc/modules || die "modprobe -r left ib_srpt loaded"
}
