// SPDX-License-Identifier: GPL-2.0-only
/*
 * srp-discover: ask one SRP target port's Device Management agent for its I/O
 * controllers and SRP services, over QP1 from user space, and print the
 * add_target lines an ib_srp host writes to log in. It works where srp_daemon
 * and ibsrpdm do not: on RoCE, which has no subnet administrator to find
 * targets with, so the target is named by its address (its GID).
 *
 *   srp-discover [-d IBDEV] [-p PORT] [-P RDMA_CM_PORT] [-c] [-v] TARGET
 *
 * See srp-discover.8. Exit status: 0 with at least one line printed, 1 when
 * the target answered no SRP service (or nothing answered), 2 on bad usage.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "dm_mad.h"

#define SRP_SERVICE_PREFIX	"SRP.T10:"
#define MAX_SLOTS		16
#define ENTRIES_PER_MAD		4

static const char *prog = "srp-discover";
static const char need_port[] =
	"RoCE, where ib_srp logs in through the RDMA/CM: give the target's RDMA/CM port with -P (or -c for IB CM lines)";
static const char need_lid[] =
	"InfiniBand, where MADs go by LID: give the target port's LID with -l (saquery, ibaddr)";
static int verbose, no_agent;

struct local_port {
	char ibdev[256];
	int port;
	int roce;		/* Ethernet link layer: RoCE */
	uint16_t pkey;
	char ndev[64];		/* RoCE: the netdev of the source GID */
};

static void usage(void)
{
	fprintf(stderr,
		"usage: %s [-d IBDEV] [-p PORT] [-P RDMA_CM_PORT] [-l LID] [-c] [-v] [-t MS] TARGET\n"
		"  TARGET  the target port's GID: an IPv4 or IPv6 address on RoCE,\n"
		"          or 32 hex digits, 0x optional (a configfs target port name)\n"
		"  -d, -p  the local HCA and port to ask from (default: every active port)\n"
		"  -P      the target's RDMA/CM port: dest= lines (RoCE)\n"
		"  -l      InfiniBand: the target port's LID (required there; e.g. from saquery)\n"
		"  -c      IB CM lines (dgid=, pkey=, service_id=), as ibsrpdm -c prints\n"
		"  -v      the I/O controller profiles, as comments on standard error\n"
		"  -t      the reply timeout per try in milliseconds (default 1000)\n",
		prog);
	exit(2);
}

/* A GID from an address or 32 hex digits; -1 when it is neither. */
static int parse_target(const char *s, uint8_t gid[16])
{
	struct in_addr a4;
	size_t i;

	if (inet_pton(AF_INET, s, &a4) == 1) {
		memset(gid, 0, 10);
		gid[10] = 0xff;
		gid[11] = 0xff;
		memcpy(gid + 12, &a4, 4);
		return 0;
	}
	if (inet_pton(AF_INET6, s, gid) == 1)
		return 0;
	if (!strncmp(s, "0x", 2))
		s += 2;		/* as in configfs target port names */
	if (strlen(s) != 32)
		return -1;
	for (i = 0; i < 16; i++)
		if (sscanf(s + 2 * i, "%2hhx", &gid[i]) != 1)
			return -1;
	return 0;
}

static int v4_mapped(const uint8_t *g)
{
	static const uint8_t pfx[12] = { [10] = 0xff, [11] = 0xff };

	return !memcmp(g, pfx, 12);
}

static int link_local(const uint8_t *g)
{
	return g[0] == 0xfe && (g[1] & 0xc0) == 0x80;
}

/*
 * RoCE: the local GID to send from, one of the target address's family and
 * scope, RoCE v2 preferred (routable; v1 only where the device has no v2).
 * Returns its index, or -1 when the port has none.
 */
static int pick_sgid(const char *ibdev, int port, const uint8_t *dgid, char *ndev, int len)
{
	static const uint8_t zero[16];
	char what[64], buf[128];
	uint8_t g[16];
	int i, best = -1, best_score = 0, score;

	for (i = 0; i < 256; i++) {
		snprintf(what, sizeof(what), "gids/%d", i);
		if (dm_sysfs_read(ibdev, port, what, buf, sizeof(buf)))
			break;
		if (inet_pton(AF_INET6, buf, g) != 1 || !memcmp(g, zero, 16))
			continue;
		if (v4_mapped(g) != v4_mapped(dgid) || link_local(g) != link_local(dgid))
			continue;
		snprintf(what, sizeof(what), "gid_attrs/types/%d", i);
		if (dm_sysfs_read(ibdev, port, what, buf, sizeof(buf)))
			continue;
		score = strstr(buf, "v2") ? 2 : 1;
		if (score > best_score) {
			best = i;
			best_score = score;
		}
	}
	if (best >= 0) {
		snprintf(what, sizeof(what), "gid_attrs/ndevs/%d", best);
		if (dm_sysfs_read(ibdev, port, what, ndev, len))
			ndev[0] = 0;
	}
	return best;
}

/*
 * Open @lp for asking @dgid: an active InfiniBand or RoCE port with a umad
 * device and, on RoCE, a source GID of the target's family. 0 or -1.
 */
static int open_port(struct dm_port *p, struct local_port *lp, const uint8_t *dgid,
		     unsigned int timeout_ms, uint16_t dlid)
{
	char buf[64];

	if (dm_sysfs_read(lp->ibdev, lp->port, "state", buf, sizeof(buf)) ||
	    !strstr(buf, "ACTIVE"))
		return -1;
	if (dm_sysfs_read(lp->ibdev, lp->port, "link_layer", buf, sizeof(buf)))
		return -1;
	lp->roce = !strcmp(buf, "Ethernet");
	if (!lp->roce && strcmp(buf, "InfiniBand"))
		return -1;
	lp->pkey = 0xffff;
	if (!dm_sysfs_read(lp->ibdev, lp->port, "pkeys/0", buf, sizeof(buf)))
		lp->pkey = strtoul(buf, NULL, 16);
	if (dm_open(p, lp->ibdev, lp->port) < 0) {
		if (verbose)
			fprintf(stderr, "# %s port %d: no umad device (%s)\n",
				lp->ibdev, lp->port, strerror(errno));
		return -1;
	}
	p->timeout_ms = timeout_ms;
	if (!lp->roce)
		p->dlid = dlid;
	if (lp->roce) {
		p->sgid_index = pick_sgid(lp->ibdev, lp->port, dgid, lp->ndev, sizeof(lp->ndev));
		if (p->sgid_index < 0) {
			if (verbose)
				fprintf(stderr, "# %s port %d: no address of the target's family and scope\n",
					lp->ibdev, lp->port);
			dm_close(p);
			return -1;
		}
	}
	return 0;
}

/* One Get; its MAD status (0: @r filled), or -1 when nothing answered. */
static int get(struct dm_port *p, const uint8_t *dgid, uint16_t attr, uint32_t mod,
	       struct dm_mad *r)
{
	int st = dm_transact(p, dgid, 1, DM_METHOD_GET, attr, mod, r);

	if (st < 0) {
		fprintf(stderr, "%s: %s\n", prog, strerror(errno));
		return -1;
	}
	if (st > 0)
		return -1;
	if (r->method != DM_METHOD_GET_RESP || dm_be16((uint8_t *)&r->attr_id) != attr)
		return -1;
	return dm_be16((uint8_t *)&r->status);
}

static void print_line(const struct local_port *lp, const uint8_t *dgid, int rdma_cm_port,
		       uint64_t id_ext, uint64_t ioc_guid, uint64_t service_id)
{
	char a[INET6_ADDRSTRLEN];
	int i;

	printf("id_ext=%016llx,ioc_guid=%016llx,", (unsigned long long)id_ext,
	       (unsigned long long)ioc_guid);
	if (rdma_cm_port) {
		if (v4_mapped(dgid)) {
			inet_ntop(AF_INET, dgid + 12, a, sizeof(a));
			printf("dest=%s:%d\n", a, rdma_cm_port);
		} else {
			inet_ntop(AF_INET6, dgid, a, sizeof(a));
			/* A link-local address needs the initiator's interface. */
			printf("dest=[%s%s%s]:%d\n", a, link_local(dgid) && lp->ndev[0] ? "%" : "",
			       link_local(dgid) ? lp->ndev : "", rdma_cm_port);
		}
		return;
	}
	printf("dgid=");
	for (i = 0; i < 16; i++)
		printf("%02x", dgid[i]);
	printf(",pkey=%04x,service_id=%016llx\n", lp->pkey, (unsigned long long)service_id);
}

/* The SRP services of the controller in @slot; the number of lines printed. */
static int list_slot(struct dm_port *p, const struct local_port *lp, const uint8_t *dgid,
		     int slot, int rdma_cm_port)
{
	struct dm_mad r;
	const uint8_t *d = r.data;
	char id[65], name[41];
	uint64_t ioc_guid;
	int n, first, last, i, st, lines = 0;

	st = get(p, dgid, DM_ATTR_IOC_PROFILE, slot, &r);
	if (st) {
		fprintf(stderr, "%s: IOControllerProfile %d: status 0x%04x\n", prog, slot, st);
		return 0;
	}
	ioc_guid = dm_be64(d);
	n = d[54];
	memcpy(id, d + 64, 64);
	id[64] = 0;
	if (verbose)
		fprintf(stderr,
			"# slot %d: IOC GUID %016llx '%s', I/O class 0x%04x, protocol 0x%04x, queue depth %u, send size %u, RDMA size %u, %d service entries\n",
			slot, (unsigned long long)ioc_guid, id, dm_be16(d + 28),
			dm_be16(d + 32), dm_be16(d + 40), dm_be32(d + 44), dm_be32(d + 48), n);
	for (first = 0; first < n; first = last + 1) {
		last = first + ENTRIES_PER_MAD - 1 < n - 1 ? first + ENTRIES_PER_MAD - 1 : n - 1;
		st = get(p, dgid, DM_ATTR_SVC_ENTRIES, slot << 16 | last << 8 | first, &r);
		if (st) {
			fprintf(stderr, "%s: ServiceEntries %d, %d-%d: status 0x%04x\n",
				prog, slot, first, last, st);
			break;
		}
		for (i = 0; i <= last - first; i++) {
			const uint8_t *e = d + 48 * i;
			char *end;
			uint64_t id_ext;

			memcpy(name, e, 40);
			name[40] = 0;
			if (strncmp(name, SRP_SERVICE_PREFIX, strlen(SRP_SERVICE_PREFIX)))
				continue;
			id_ext = strtoull(name + strlen(SRP_SERVICE_PREFIX), &end, 16);
			if (end == name + strlen(SRP_SERVICE_PREFIX) || *end)
				continue;
			print_line(lp, dgid, rdma_cm_port, id_ext, ioc_guid, dm_be64(e + 40));
			lines++;
		}
	}
	return lines;
}

/* Every controller of the I/O unit behind @dgid: lines printed, or -1. */
static int discover(struct dm_port *p, const struct local_port *lp, const uint8_t *dgid,
		    int rdma_cm_port)
{
	struct dm_mad r;
	int st, slot, max, lines = 0;

	st = get(p, dgid, DM_ATTR_IOU_INFO, 0, &r);
	if (st < 0)
		return -1;
	if (st) {
		fprintf(stderr, "%s: no Device Management agent there (IOUnitInfo status 0x%04x)\n",
			prog, st);
		no_agent = 1;
		return 0;
	}
	max = r.data[2] < MAX_SLOTS ? r.data[2] : MAX_SLOTS;
	for (slot = 1; slot <= max; slot++) {
		uint8_t b = r.data[4 + (slot - 1) / 2];

		/* Slot 1 is the high nibble; 1 means a controller is present. */
		if (((slot & 1) ? b >> 4 : b & 0xf) == 1)
			lines += list_slot(p, lp, dgid, slot, rdma_cm_port);
	}
	return lines;
}

/* Ask from each candidate port until one reaches the target. */
int main(int argc, char **argv)
{
	const char *ibdev = NULL;
	int port = 0, rdma_cm_port = 0, ib_cm = 0, opt, n = -1, p;
	unsigned long dlid = 0;
	int missing = 0;
	unsigned int timeout_ms = 1000;
	struct local_port lp;
	struct dm_port dp;
	uint8_t dgid[16];
	struct dirent *e;
	DIR *dir;

	while ((opt = getopt(argc, argv, "d:p:P:l:cvt:h")) != -1) {
		switch (opt) {
		case 'd':
			ibdev = optarg;
			break;
		case 'p':
			port = atoi(optarg);
			break;
		case 'P':
			rdma_cm_port = atoi(optarg);
			break;
		case 'l':
			dlid = strtoul(optarg, NULL, 0);
			break;
		case 'c':
			ib_cm = 1;
			break;
		case 'v':
			verbose = 1;
			break;
		case 't':
			timeout_ms = strtoul(optarg, NULL, 0);
			break;
		default:
			usage();
		}
	}
	if (optind != argc - 1 || parse_target(argv[optind], dgid) ||
	    (rdma_cm_port && ib_cm) || rdma_cm_port < 0 || rdma_cm_port > 65535 ||
	    port < 0 || !timeout_ms || dlid > 0xbfff)
		usage();

	dir = opendir("/sys/class/infiniband");
	if (!dir) {
		fprintf(stderr, "%s: no RDMA devices (/sys/class/infiniband)\n", prog);
		return 1;
	}
	while (n < 0 && (e = readdir(dir))) {
		if (e->d_name[0] == '.' || (ibdev && strcmp(e->d_name, ibdev)))
			continue;
		for (p = port ? port : 1; n < 0 && p <= (port ? port : 255); p++) {
			char buf[16];

			memset(&lp, 0, sizeof(lp));
			snprintf(lp.ibdev, sizeof(lp.ibdev), "%s", e->d_name);
			lp.port = p;
			if (dm_sysfs_read(lp.ibdev, p, "state", buf, sizeof(buf)))
				break;	/* no such port: the device's last was p - 1 */
			if (open_port(&dp, &lp, dgid, timeout_ms, dlid))
				continue;
			/* What the port needs that the command line lacks. */
			if ((lp.roce && !rdma_cm_port && !ib_cm) || (!lp.roce && !dlid)) {
				fprintf(stderr, "%s: %s port %d: %s\n", prog, lp.ibdev, p,
					lp.roce ? need_port : need_lid);
				missing = 1;
				dm_close(&dp);
				continue;
			}
			/* InfiniBand: IB CM lines, whatever -P says. */
			if (verbose)
				fprintf(stderr, "# asking from %s port %d (%s)\n", lp.ibdev, p,
					lp.roce ? "RoCE" : "InfiniBand");
			n = discover(&dp, &lp, dgid, lp.roce ? rdma_cm_port : 0);
			dm_close(&dp);
		}
	}
	closedir(dir);
	if (n < 0 && missing)
		return 2;
	if (n < 0)
		fprintf(stderr, "%s: no Device Management agent answered from %s%s\n", prog,
			ibdev ? ibdev : "any active port", ibdev ? "" : " (is ib_umad loaded?)");
	else if (!n && !no_agent)
		fprintf(stderr, "%s: the target offers no SRP service\n", prog);
	return n > 0 ? 0 : 1;
}
