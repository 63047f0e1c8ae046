// SPDX-License-Identifier: GPL-2.0-only
/*
 * Device Management MADs over /dev/infiniband/umadN: open the umad device of
 * one HCA port, register a DM class agent that only receives the replies to
 * its own requests, send a Get/Set and wait for the matching reply.
 */
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <rdma/ib_user_mad.h>
#include "dm_mad.h"

#define GSI_QKEY	0x80010000u

struct dm_umad {
	struct ib_user_mad_hdr hdr;
	struct dm_mad mad;
};

/*
 * Read /sys/class/infiniband/@ibdev/ports/@port/@what into @buf, the last
 * newline dropped. Returns 0, or -1 with errno set.
 */
int dm_sysfs_read(const char *ibdev, int port, const char *what, char *buf, int len)
{
	char path[512];
	ssize_t n;
	int f;

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/%d/%s", ibdev, port, what);
	f = open(path, O_RDONLY);
	if (f < 0)
		return -1;
	n = read(f, buf, len - 1);
	close(f);
	if (n < 0)
		return -1;
	while (n > 0 && buf[n - 1] == '\n')
		n--;
	buf[n] = 0;
	return 0;
}

static int read_line(const char *path, char *buf, int len)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -1;
	ok = fgets(buf, len, f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

/* The umad device node of @ibdev port @port, opened; -1 with errno. */
static int open_umad(const char *ibdev, int port)
{
	char path[320], name[64], num[16];
	struct dirent *e;
	DIR *d = opendir("/sys/class/infiniband_mad");

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "umad", 4))
			continue;
		snprintf(path, sizeof(path), "/sys/class/infiniband_mad/%s/ibdev", e->d_name);
		if (read_line(path, name, sizeof(name)) || strcmp(name, ibdev))
			continue;
		snprintf(path, sizeof(path), "/sys/class/infiniband_mad/%s/port", e->d_name);
		if (read_line(path, num, sizeof(num)) || atoi(num) != port)
			continue;
		snprintf(path, sizeof(path), "/dev/infiniband/%s", e->d_name);
		closedir(d);
		return open(path, O_RDWR);
	}
	closedir(d);
	errno = ENODEV;
	return -1;
}

/* Returns 0, or -1 with errno set (ENODEV: no umad device for the port). */
int dm_open(struct dm_port *p, const char *ibdev, int port)
{
	struct ib_user_mad_reg_req reg;

	memset(p, 0, sizeof(*p));
	p->timeout_ms = 1000;
	p->tid = 0x5d000000;
	p->fd = open_umad(ibdev, port);
	if (p->fd < 0)
		return -1;
	if (ioctl(p->fd, IB_USER_MAD_ENABLE_PKEY) < 0)
		goto fail;
	/* No methods: this agent only receives the replies to its requests. */
	memset(&reg, 0, sizeof(reg));
	reg.qpn = 1;
	reg.mgmt_class = DM_CLASS;
	reg.mgmt_class_version = 1;
	if (ioctl(p->fd, IB_USER_MAD_REGISTER_AGENT, &reg) < 0)
		goto fail;
	p->agent_id = reg.id;
	return 0;
fail:
	close(p->fd);
	p->fd = -1;
	return -1;
}

void dm_close(struct dm_port *p)
{
	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
}

/*
 * Send one request to the DM agent at @dgid and wait for its reply.
 * Returns 0 with @rsp filled, the umad status of the send (ETIMEDOUT when
 * nothing answered), or -1 with errno set on a local failure.
 */
int dm_transact(struct dm_port *p, const uint8_t dgid[16], uint8_t class_version,
		uint8_t method, uint16_t attr_id, uint32_t attr_mod,
		struct dm_mad *rsp)
{
	struct pollfd pfd = { .fd = p->fd, .events = POLLIN };
	struct dm_umad rq, in;
	ssize_t n;

	memset(&rq, 0, sizeof(rq));
	rq.hdr.id = p->agent_id;
	rq.hdr.timeout_ms = p->timeout_ms;
	rq.hdr.retries = 1;
	rq.hdr.qpn = htobe32(1);
	rq.hdr.qkey = htobe32(GSI_QKEY);
	if (p->dlid) {
		/* Within an InfiniBand subnet: routed by LID, no GRH. */
		rq.hdr.lid = htobe16(p->dlid);
	} else {
		rq.hdr.grh_present = 1;
		rq.hdr.gid_index = p->sgid_index;
		rq.hdr.hop_limit = 64;
		memcpy(rq.hdr.gid, dgid, 16);
	}
	rq.mad.base_version = 1;
	rq.mad.mgmt_class = DM_CLASS;
	rq.mad.class_version = class_version;
	rq.mad.method = method;
	rq.mad.tid = htobe64(++p->tid);
	rq.mad.attr_id = htobe16(attr_id);
	rq.mad.attr_mod = htobe32(attr_mod);
	if (write(p->fd, &rq, sizeof(rq)) != sizeof(rq))
		return -1;
	for (;;) {
		/* The umad core reports the timeout itself; this is a backstop. */
		if (poll(&pfd, 1, 2 * p->timeout_ms + 5000) != 1) {
			errno = ETIME;
			return -1;
		}
		n = read(p->fd, &in, sizeof(in));
		if (n < (ssize_t)sizeof(in.hdr))
			return -1;
		if ((be64toh(in.mad.tid) & 0xffffffff) != p->tid)
			continue;	/* a late reply to an earlier request */
		if (in.hdr.status)
			return in.hdr.status;
		*rsp = in.mad;
		return 0;
	}
}
