/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Device Management MADs from user space: QP1 through /dev/infiniband/umadN,
 * no library. Shared by srp-discover and the test client tests/hostile/srpt_dm.c.
 */
#ifndef DM_MAD_H
#define DM_MAD_H

#include <stdint.h>

#define DM_CLASS		0x06
#define DM_METHOD_GET		0x01
#define DM_METHOD_SET		0x02
#define DM_METHOD_GET_RESP	0x81
#define DM_ATTR_CLASS_PORT_INFO	0x0001
#define DM_ATTR_IOU_INFO	0x0010
#define DM_ATTR_IOC_PROFILE	0x0011
#define DM_ATTR_SVC_ENTRIES	0x0012
#define DM_ST_UNSUP_METHOD	0x0008
#define DM_ST_UNSUP_METHOD_ATTR	0x000c
#define DM_ST_INVALID_FIELD	0x001c
#define DM_ST_NO_IOC		0x0100

/* A MAD as it goes on the wire: 24-byte header, 40 reserved, 192 data. */
struct dm_mad {
	uint8_t base_version, mgmt_class, class_version, method;
	uint16_t status, class_specific;
	uint64_t tid;
	uint16_t attr_id, resv;
	uint32_t attr_mod;
	uint8_t dm_reserved[40];
	uint8_t data[192];
} __attribute__((packed));

/* One local HCA port with a DM class agent registered on its umad device. */
struct dm_port {
	int fd;
	int agent_id;
	int sgid_index;		/* the source GID of requests (RoCE: its family) */
	uint16_t dlid;		/* InfiniBand: the target port's LID; 0: GRH only (RoCE) */
	unsigned int timeout_ms;	/* per try; the umad core retries once */
	uint32_t tid;
};

int dm_open(struct dm_port *p, const char *ibdev, int port);
void dm_close(struct dm_port *p);
int dm_transact(struct dm_port *p, const uint8_t dgid[16], uint8_t class_version,
		uint8_t method, uint16_t attr_id, uint32_t attr_mod,
		struct dm_mad *rsp);
int dm_sysfs_read(const char *ibdev, int port, const char *what, char *buf, int len);

static inline uint16_t dm_be16(const uint8_t *p)
{
	return p[0] << 8 | p[1];
}

static inline uint32_t dm_be32(const uint8_t *p)
{
	return (uint32_t)dm_be16(p) << 16 | dm_be16(p + 2);
}

static inline uint64_t dm_be64(const uint8_t *p)
{
	return (uint64_t)dm_be32(p) << 32 | dm_be32(p + 4);
}

#endif
