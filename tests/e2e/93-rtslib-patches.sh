#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The rtslib-fb patches of packaging/rtslib/, applied to a copy of Debian's
# rtslib_fb in the guest (PYTHONPATH; nothing outside /tmp changes), and
# everything they add driven through targetcli:
#  - a GID-named and a GUID-named target port (hhhh:hhhh:hhhh:hhhh), a LUN,
#    ACLs (a port ID; a port GUID and an IPv6 address on the GUID-named
#    port), a network portal
#    on [fd00::1]:5556 made with `portals create`, the relative target port
#    ID 0x21 and the RDMA/CM port 5557 (written in configfs: targetcli has
#    no command for them);
#  - `targetcli ls` lists both ports and the portal; saveconfig records
#    each of them; clearconfig, rdma_cm_port 0 and a module reload leave
#    none behind; restoreconfig brings each back (rtpi before the TPG is
#    enabled); ib_srp logs in through the restored portal and verifies I/O;
#  - deleting a target port whose TPG has a portal succeeds.
# timeout: 600
. "$REPO/tests/lib.sh"
set -e
[ "$MODULE" = ours ] || { log "MODULE=$MODULE: the distro module has no portals"; exit 0; }
rxe_setup
dbus_start
p=/tmp/rtslib-patched
rm -rf "$p"
mkdir -p "$p"
cp -r /usr/lib/python3/dist-packages/rtslib_fb "$p/"
rm -rf "$p/rtslib_fb/__pycache__"
for f in "$REPO"/packaging/rtslib/*.patch; do
	patch -s -d "$p/rtslib_fb" -p2 <"$f" || die "patch $(basename "$f") does not apply"
done
export PYTHONPATH=$p
tc() { log "targetcli $*"; targetcli "$@" >/tmp/tc.out 2>&1 || { cat /tmp/tc.out >&2; die "targetcli $*"; return 1; }
	grep -v -e 'Could not load preferences' -e 'dbroot' /tmp/tc.out >&2 || true; }
srpt_load
gid=$(gid0_hex)
guid=${gid:16:16}
gcolon=$(echo "$guid" | sed -E 's/(....)/\1:/g; s/:$//')
ipid=0000000000000000$(node_guid_hex)
iguid=0002c9030000abcd
IPACL=fd00::2
PORT_NP=5556 PORT_CM=5557
T=$SRPT_CFS/0x$gid/tpgt_1
TG=$SRPT_CFS/$gcolon/tpgt_1
printf '%s\n' "/backstores/fileio create name=rp file_or_dev=/tmp/lun-rp.img size=17M write_back=false" \
	"/srpt create ib.$gid" "/srpt create ib.$guid" | tcb
[ -d "$TG" ] || die "no GUID-named target port $gcolon in configfs"
# targetcli enabled the TPG (auto_enable_tpgt); LIO takes an rtpi only while
# a TPG is disabled, which is also how restoreconfig must write it.
echo 0 >"$T/enable"
echo 0x21 >"$T/rtpi" || die "rtpi 0x21 refused"
echo 1 >"$T/enable"
echo "$PORT_CM" >"$SRPT_CFS/discovery_auth/rdma_cm_port" || die "rdma_cm_port $PORT_CM refused"
printf '%s\n' "/srpt/ib.$gid/luns create /backstores/fileio/rp" \
	"/srpt/ib.$gid/acls create ib.$ipid" \
	"/srpt/ib.$gid/portals create ip_address=$TARGET_ADDR ip_port=$PORT_NP" \
	"/srpt/ib.$guid/acls create ib.$iguid" "/srpt/ib.$guid/acls create $IPACL" "ls /srpt" | tcb /tmp/tcs.out
[ -d "$T/np/[$TARGET_ADDR]:$PORT_NP" ] || die "portals create made no portal in configfs"
[ -d "$TG/acls/$(echo "$iguid" | sed -E 's/(....)/\1:/g; s/:$//')" ] ||
	die "the GUID ACL is not in configfs: $(ls "$TG/acls")"
grep -q "\[$TARGET_ADDR\]:$PORT_NP" /tmp/tcs.out || die "targetcli ls does not show the portal"
grep -q "ib.$guid" /tmp/tcs.out || die "targetcli ls does not show the GUID-named port"
grep -q "ib.$iguid" /tmp/tcs.out || die "targetcli ls does not show the GUID ACL"
[ -d "$TG/acls/$IPACL" ] || die "the IP ACL $IPACL is not in configfs"
grep -q "$IPACL" /tmp/tcs.out || die "targetcli ls does not show the IP ACL"

printf '%s\n' "saveconfig /tmp/rp.json" "clearconfig confirm=True" | tcb
python3 - "$gid" "$guid" "$TARGET_ADDR" "$PORT_NP" "$PORT_CM" "$iguid" "$IPACL" <<'PY' || die "saveconfig misses something (above)"
import json, sys
gid, guid, addr, np, cm, iguid, ipacl = sys.argv[1:]
c = json.load(open("/tmp/rp.json"))
t = {x["wwn"]: x for x in c["targets"] if x["fabric"] == "srpt"}
bad = []
g = t.get("ib." + gid)
if not g or [(p["ip_address"], p["port"]) for p in g["tpgs"][0].get("portals", [])] != [("[%s]" % addr, int(np))]:
    bad.append("the portal [%s]:%s" % (addr, np))
if not g or g["tpgs"][0].get("rtpi") != 0x21:
    bad.append("rtpi 0x21")
u = t.get("ib." + guid)
if not u or sorted(a["node_wwn"] for a in u["tpgs"][0]["node_acls"]) != sorted(["ib." + iguid, ipacl]):
    bad.append("the GUID-named port with its GUID and IP ACLs")
if {"name": "srpt", "rdma_cm_port": int(cm)} not in c.get("fabric_modules", []):
    bad.append("rdma_cm_port %s" % cm)
for b in bad:
    print("saveconfig: no", b)
sys.exit(1 if bad else 0)
PY
log "ok: saveconfig has the portal, rtpi, the GUID-named port and its ACLs, rdma_cm_port"
[ -z "$(ls -d "$SRPT_CFS"/0x* "$SRPT_CFS"/*:* 2>/dev/null)" ] || die "clearconfig left $(ls "$SRPT_CFS")"
echo 0 >"$SRPT_CFS/discovery_auth/rdma_cm_port"
srpt_unload
srpt_load
tc restoreconfig /tmp/rp.json
expect_eq "rdma_cm_port after restoreconfig" "$(cat "$SRPT_CFS/discovery_auth/rdma_cm_port")" "$PORT_CM"
expect_eq "rtpi after restoreconfig" "$(cat "$T/rtpi")" 0x21
[ -d "$T/np/[$TARGET_ADDR]:$PORT_NP" ] || die "restoreconfig did not bring the portal back"
[ -d "$TG/acls/$(echo "$iguid" | sed -E 's/(....)/\1:/g; s/:$//')" ] && [ -d "$TG/acls/$IPACL" ] ||
	die "restoreconfig did not bring the GUID-named port and its two ACLs back"
RDMA_CM_PORT=$PORT_NP srp_login
disk=$(srp_disk 0)
fio_verify "$disk" 4k randwrite 4M 8
log "ok: a login through the restored portal [$TARGET_ADDR]:$PORT_NP serves verified I/O"
srp_logout
tc /srpt delete "ib.$gid"
[ ! -d "$SRPT_CFS/0x$gid" ] || die "deleting a target port with a portal left $SRPT_CFS/0x$gid"
tc clearconfig confirm=True
rm -f /tmp/lun-rp.img
log "rtslib patches: ls, saveconfig, clearconfig, reload, restoreconfig, login, delete"
