// SPDX-License-Identifier: GPL-2.0-only
/*
 * srpt-dm: ask a target port's Device Management agent everything
 * srp_daemon asks, and what it should refuse, over QP1 from user space
 * (/dev/infiniband/umadN, no library), and check every reply field by field.
 *
 * srpt-dm -d rxe0 -g <32 hex: target GID> -G <16 hex: IOC GUID>
 *         -i <id string> -q <send queue depth> -s <send size>
 *         -r <rdma size>            the agent must answer as ib_srpt does
 * srpt-dm -d rxe0 -g <gid> -n      no DM agent: the MAD core answers
 *                                  every Get "unsupported method/attribute"
 *
 * Prints one PASS/FAIL line per check and "N passed, N failed"; exits 1 on
 * any failure.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../../tools/dm_mad.h"

static struct dm_port port;
static int passed, failed;
static uint8_t dgid[16];

static void check(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s ", ok ? "PASS" : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (ok)
		passed++;
	else
		failed++;
}

static void die(const char *what)
{
	perror(what);
	printf("%d passed, %d failed\n", passed, failed + 1);
	exit(1);
}

static int hexbytes(const char *s, uint8_t *out, size_t n)
{
	size_t i;

	if (strlen(s) != 2 * n)
		return -1;
	for (i = 0; i < n; i++)
		if (sscanf(s + 2 * i, "%2hhx", &out[i]) != 1)
			return -1;
	return 0;
}

/* One request and its reply: 0 with @rsp filled, or the umad status. */
static int transact(uint8_t class_version, uint8_t method, uint16_t attr_id,
		    uint32_t attr_mod, struct dm_mad *rsp)
{
	int st = dm_transact(&port, dgid, class_version, method, attr_id, attr_mod, rsp);

	if (st < 0)
		die("a MAD through umad");
	return st;
}

/* Header checks every reply must pass; returns the MAD status. */
static int reply(const char *what, uint8_t cv, uint8_t method, uint16_t attr,
		 uint32_t mod, uint8_t want_method, struct dm_mad *r)
{
	int st = transact(cv, method, attr, mod, r);

	if (st) {
		check(0, "%s: no reply (umad status %d: %s)", what, st, strerror(st));
		return -1;
	}
	check(r->mgmt_class == DM_CLASS && r->class_version == cv &&
	      r->method == want_method && be16toh(r->attr_id) == attr &&
	      be32toh(r->attr_mod) == mod,
	      "%s: reply header class 0x%02x version %u method 0x%02x attr 0x%04x mod 0x%08x",
	      what, r->mgmt_class, r->class_version, r->method,
	      be16toh(r->attr_id), be32toh(r->attr_mod));
	return be16toh(r->status);
}

static void expect_status(const char *what, uint8_t cv, uint8_t method,
			  uint16_t attr, uint32_t mod, uint8_t want_method,
			  int want)
{
	struct dm_mad r;
	int st = reply(what, cv, method, attr, mod, want_method, &r);

	if (st >= 0)
		check(st == want, "%s: status 0x%04x (want 0x%04x)", what, st, want);
}

static int all_zero(const uint8_t *p, size_t n)
{
	while (n--)
		if (*p++)
			return 0;
	return 1;
}

int main(int argc, char **argv)
{
	const char *ibdev = NULL, *id = NULL;
	unsigned long long guid = 0;
	unsigned int sq = 0, send_size = 0, rdma_size = 0, slot;
	int no_agent = 0, have_gid = 0, opt, st;
	char what[96];
	struct dm_mad r;
	const uint8_t *d = r.data;

	while ((opt = getopt(argc, argv, "d:g:G:i:q:s:r:n")) != -1) {
		switch (opt) {
		case 'd': ibdev = optarg; break;
		case 'g': have_gid = !hexbytes(optarg, dgid, 16); break;
		case 'G': guid = strtoull(optarg, NULL, 16); break;
		case 'i': id = optarg; break;
		case 'q': sq = strtoul(optarg, NULL, 0); break;
		case 's': send_size = strtoul(optarg, NULL, 0); break;
		case 'r': rdma_size = strtoul(optarg, NULL, 0); break;
		case 'n': no_agent = 1; break;
		default: goto usage;
		}
	}
	if (!ibdev || !have_gid || (!no_agent && (!guid || !id || !sq || !send_size || !rdma_size)))
		goto usage;

	if (dm_open(&port, ibdev, 1) < 0)
		die(ibdev);
	port.timeout_ms = 1500;

	if (no_agent) {
		/* ib_mad's generate_unmatched_resp(): nobody serves the class. */
		expect_status("no agent: Get IOUnitInfo", 1, DM_METHOD_GET,
			      DM_ATTR_IOU_INFO, 0, DM_METHOD_GET_RESP, DM_ST_UNSUP_METHOD_ATTR);
		expect_status("no agent: Get IOControllerProfile 1", 1, DM_METHOD_GET,
			      DM_ATTR_IOC_PROFILE, 1, DM_METHOD_GET_RESP, DM_ST_UNSUP_METHOD_ATTR);
		goto out;
	}

	st = reply("ClassPortInfo", 1, DM_METHOD_GET, DM_ATTR_CLASS_PORT_INFO, 0, DM_METHOD_GET_RESP, &r);
	if (st >= 0)
		/* base 1, class 1, capability mask 0, RespTimeValue 20 */
		check(st == 0 && d[0] == 1 && d[1] == 1 && dm_be16(d + 2) == 0 &&
		      (dm_be32(d + 4) & 0x1f) == 20,
		      "ClassPortInfo: status 0x%04x base %u class %u cap 0x%04x resp time %u",
		      st, d[0], d[1], dm_be16(d + 2), dm_be32(d + 4) & 0x1f);

	st = reply("IOUnitInfo", 1, DM_METHOD_GET, DM_ATTR_IOU_INFO, 0, DM_METHOD_GET_RESP, &r);
	if (st >= 0)
		/* one controller, in slot 1 (high nibble of the first byte) */
		check(st == 0 && dm_be16(d) == 1 && d[2] == 16 && d[4] == 0x10 &&
		      all_zero(d + 5, 127),
		      "IOUnitInfo: status 0x%04x change id %u max controllers %u slots 1-2 0x%02x",
		      st, dm_be16(d), d[2], d[4]);

	st = reply("IOControllerProfile 1", 1, DM_METHOD_GET, DM_ATTR_IOC_PROFILE, 1,
		   DM_METHOD_GET_RESP, &r);
	if (st >= 0) {
		check(st == 0, "IOControllerProfile 1: status 0x%04x", st);
		check(dm_be64(d) == guid, "IOC GUID %016llx (want %016llx)",
		      (unsigned long long)dm_be64(d), guid);
		check(dm_be16(d + 28) == 0x0100 && dm_be16(d + 30) == 0x609e,
		      "I/O class 0x%04x subclass 0x%04x (want 0x0100 0x609e)",
		      dm_be16(d + 28), dm_be16(d + 30));
		check(dm_be16(d + 32) == 0x0108 && dm_be16(d + 34) == 0x0001,
		      "protocol 0x%04x version 0x%04x (want 0x0108 0x0001)",
		      dm_be16(d + 32), dm_be16(d + 34));
		check(dm_be16(d + 40) == sq, "send queue depth %u (want %u)",
		      dm_be16(d + 40), sq);
		check(d[43] == 4, "rdma_read_depth %u (want 4)", d[43]);
		check(dm_be32(d + 44) == send_size, "send_size %u (want %u)",
		      dm_be32(d + 44), send_size);
		check(dm_be32(d + 48) == rdma_size, "rdma_size %u (want %u)",
		      dm_be32(d + 48), rdma_size);
		check(d[52] == 0x0f && d[53] == 0, "capability mask 0x%02x, service capability 0x%02x (want 0x0f 0x00)",
		      d[52], d[53]);
		check(d[54] == 1, "service entries %u (want 1)", d[54]);
		check(!strncmp((char *)d + 64, id, 64) && all_zero(d + 64 + strlen(id), 64 - strlen(id)),
		      "ID string '%.64s' (want '%s')", (char *)d + 64, id);
	}
	for (slot = 2; slot <= 16; slot++) {
		snprintf(what, sizeof(what), "IOControllerProfile %u (empty slot)", slot);
		expect_status(what, 1, DM_METHOD_GET, DM_ATTR_IOC_PROFILE, slot, DM_METHOD_GET_RESP, DM_ST_NO_IOC);
	}
	expect_status("IOControllerProfile 0", 1, DM_METHOD_GET, DM_ATTR_IOC_PROFILE, 0,
		      DM_METHOD_GET_RESP, DM_ST_INVALID_FIELD);
	expect_status("IOControllerProfile 17", 1, DM_METHOD_GET, DM_ATTR_IOC_PROFILE, 17,
		      DM_METHOD_GET_RESP, DM_ST_INVALID_FIELD);

	/* AttributeModifier: slot << 16 | last << 8 | first */
	st = reply("ServiceEntries 1, 0-0", 1, DM_METHOD_GET, DM_ATTR_SVC_ENTRIES, 1 << 16,
		   DM_METHOD_GET_RESP, &r);
	if (st >= 0) {
		snprintf(what, sizeof(what), "SRP.T10:%016llx", guid);
		check(st == 0 && !strcmp((char *)d, what) && dm_be64(d + 40) == guid &&
		      all_zero(d + 48, 192 - 48),
		      "ServiceEntries 1, 0-0: status 0x%04x name '%.40s' id %016llx (want '%s' %016llx)",
		      st, (char *)d, (unsigned long long)dm_be64(d + 40), what, guid);
	}
	expect_status("ServiceEntries 1, 1-1 (beyond the count)", 1, DM_METHOD_GET,
		      DM_ATTR_SVC_ENTRIES, 1 << 16 | 1 << 8 | 1, DM_METHOD_GET_RESP, DM_ST_INVALID_FIELD);
	expect_status("ServiceEntries 1, 0-1 (beyond the count)", 1, DM_METHOD_GET,
		      DM_ATTR_SVC_ENTRIES, 1 << 16 | 1 << 8, DM_METHOD_GET_RESP, DM_ST_INVALID_FIELD);
	expect_status("ServiceEntries 1, 1-0 (last before first)", 1, DM_METHOD_GET,
		      DM_ATTR_SVC_ENTRIES, 1 << 16 | 1, DM_METHOD_GET_RESP, DM_ST_INVALID_FIELD);
	expect_status("ServiceEntries 2, 0-0 (empty slot)", 1, DM_METHOD_GET,
		      DM_ATTR_SVC_ENTRIES, 2 << 16, DM_METHOD_GET_RESP, DM_ST_NO_IOC);
	expect_status("ServiceEntries 17, 0-0", 1, DM_METHOD_GET,
		      DM_ATTR_SVC_ENTRIES, 17 << 16, DM_METHOD_GET_RESP, DM_ST_INVALID_FIELD);

	expect_status("Set IOUnitInfo", 1, DM_METHOD_SET, DM_ATTR_IOU_INFO, 0,
		      DM_METHOD_GET_RESP, DM_ST_UNSUP_METHOD_ATTR);
	expect_status("Get attribute 0x0099", 1, DM_METHOD_GET, 0x0099, 0,
		      DM_METHOD_GET_RESP, DM_ST_UNSUP_METHOD_ATTR);
	expect_status("method 0x14 (not in the DM class)", 1, 0x14, DM_ATTR_IOU_INFO, 0,
		      0x94, DM_ST_UNSUP_METHOD);
	/* No agent serves class version 2: ib_mad itself answers a Get. */
	expect_status("Get IOUnitInfo, class version 2", 2, DM_METHOD_GET, DM_ATTR_IOU_INFO, 0,
		      DM_METHOD_GET_RESP, DM_ST_UNSUP_METHOD_ATTR);
out:
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
usage:
	fprintf(stderr, "usage: %s -d ibdev -g gid -G guid -i id -q depth -s send_size -r rdma_size | -d ibdev -g gid -n\n",
		argv[0]);
	return 2;
}
