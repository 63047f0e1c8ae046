/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SRP information unit layouts for the userspace hostile initiator.
 * Written from the SRP r16a / SRP-2 field tables; byte-for-byte the same
 * wire layout as the kernel's include/scsi/srp.h (checked by the static
 * asserts below). Multi-byte fields are big-endian on the wire, except the
 * tags, which the target echoes back opaquely.
 */
#ifndef HOSTILE_SRP_WIRE_H
#define HOSTILE_SRP_WIRE_H

#include <stdint.h>

#define PACKED __attribute__((packed))

enum {
	SRP_LOGIN_REQ = 0x00,
	SRP_TSK_MGMT = 0x01,
	SRP_CMD = 0x02,
	SRP_I_LOGOUT = 0x03,
	SRP_LOGIN_RSP = 0xc0,
	SRP_RSP = 0xc1,
	SRP_LOGIN_REJ = 0xc2,
	SRP_T_LOGOUT = 0x80,
	SRP_CRED_REQ = 0x81,
	SRP_AER_REQ = 0x82,
	SRP_CRED_RSP = 0x41,
	SRP_AER_RSP = 0x42,
};

/* Login request: supported buffer formats. */
enum { SRP_BUF_FORMAT_DIRECT = 1 << 1, SRP_BUF_FORMAT_INDIRECT = 1 << 2 };

/* Descriptor formats in srp_cmd.buf_fmt (low nibble data-in, high data-out). */
enum { FMT_NONE = 0, FMT_DIRECT = 1, FMT_INDIRECT = 2, FMT_IMM = 3 };

enum {
	TMF_ABORT_TASK = 0x01,
	TMF_ABORT_TASK_SET = 0x02,
	TMF_CLEAR_TASK_SET = 0x04,
	TMF_LUN_RESET = 0x08,
	TMF_CLEAR_ACA = 0x40,
};

/* Response codes in byte 3 of the SRP_RSP response data for TMFs. */
enum { TMF_RSP_COMPLETE = 0x00, TMF_RSP_FUNC_NOT_SUPP = 0x04, TMF_RSP_FAILED = 0x05 };

enum {
	REJ_UNABLE_ESTABLISH_CHANNEL = 0x00010000,
	REJ_INSUFFICIENT_RESOURCES = 0x00010001,
	REJ_REQ_IT_IU_LENGTH_TOO_LARGE = 0x00010002,
	REJ_UNABLE_ASSOCIATE_CHANNEL = 0x00010003,
	REJ_UNSUPPORTED_DESCRIPTOR_FMT = 0x00010004,
	REJ_MULTI_CHANNEL_UNSUPPORTED = 0x00010005,
	REJ_CHANNEL_LIMIT_REACHED = 0x00010006,
};

enum { LOGIN_MULTICHAN_MULTI = 0x01, LOGIN_IMMED_REQUESTED = 0x80 };
enum { LOGIN_RSP_IMMED_SUPP = 0x80 };

enum {
	RSP_FLAG_RSPVALID = 1 << 0,
	RSP_FLAG_SNSVALID = 1 << 1,
	RSP_FLAG_DOOVER = 1 << 2,
	RSP_FLAG_DOUNDER = 1 << 3,
	RSP_FLAG_DIOVER = 1 << 4,
	RSP_FLAG_DIUNDER = 1 << 5,
};

struct srp_direct_buf {
	uint64_t va;
	uint32_t key;
	uint32_t len;
} PACKED;

struct srp_indirect_hdr {
	struct srp_direct_buf table_desc;
	uint32_t len;		/* total length of all descriptors' data */
	/* struct srp_direct_buf desc_list[]; */
} PACKED;

/* RDMA/CM login request (carried as CM REQ private data). */
struct srp_login_req_rdma {
	uint64_t tag;
	uint16_t req_buf_fmt;
	uint8_t req_flags;
	uint8_t opcode;
	uint32_t req_it_iu_len;
	uint8_t initiator_port_id[16];
	uint8_t target_port_id[16];
	uint16_t imm_data_offset;
	uint8_t reserved[6];
} PACKED;

struct srp_login_rsp {
	uint8_t opcode;
	uint8_t reserved1[3];
	uint32_t req_lim_delta;
	uint64_t tag;
	uint32_t max_it_iu_len;
	uint32_t max_ti_iu_len;
	uint16_t buf_fmt;
	uint8_t rsp_flags;
	uint8_t reserved2[25];
} PACKED;

struct srp_login_rej {
	uint8_t opcode;
	uint8_t reserved1[3];
	uint32_t reason;
	uint64_t tag;
	uint8_t reserved2[8];
	uint16_t buf_fmt;
	uint8_t reserved3[6];
} PACKED;

struct srp_i_logout {
	uint8_t opcode;
	uint8_t reserved[7];
	uint64_t tag;
} PACKED;

/* SRP_CRED_RSP and SRP_AER_RSP share this shape. */
struct srp_short_rsp {
	uint8_t opcode;
	uint8_t reserved[7];
	uint64_t tag;
} PACKED;

struct srp_cred_req {
	uint8_t opcode;
	uint8_t sol_not;
	uint8_t reserved[2];
	uint32_t req_lim_delta;
	uint64_t tag;
} PACKED;

struct srp_tsk_mgmt {
	uint8_t opcode;
	uint8_t sol_not;
	uint8_t reserved1[6];
	uint64_t tag;
	uint8_t reserved2[4];
	uint8_t lun[8];
	uint8_t reserved3[2];
	uint8_t tsk_mgmt_func;
	uint8_t reserved4;
	uint64_t task_tag;
	uint8_t reserved5[8];
} PACKED;

struct srp_cmd {
	uint8_t opcode;
	uint8_t sol_not;
	uint8_t reserved1[3];
	uint8_t buf_fmt;
	uint8_t data_out_desc_cnt;
	uint8_t data_in_desc_cnt;
	uint64_t tag;
	uint8_t reserved2[4];
	uint8_t lun[8];
	uint8_t reserved3;
	uint8_t task_attr;
	uint8_t reserved4;
	uint8_t add_cdb_len;	/* bytes, multiple of 4 (bits 1:0 reserved) */
	uint8_t cdb[16];
	/* uint8_t add_data[]; additional CDB, then data-out, then data-in desc */
} PACKED;

struct srp_rsp {
	uint8_t opcode;
	uint8_t sol_not;
	uint8_t reserved1[2];
	uint32_t req_lim_delta;
	uint64_t tag;
	uint8_t reserved2[2];
	uint8_t flags;
	uint8_t status;
	uint32_t data_out_res_cnt;
	uint32_t data_in_res_cnt;
	uint32_t sense_data_len;
	uint32_t resp_data_len;
	/* uint8_t data[]; response data, then sense data */
} PACKED;

_Static_assert(sizeof(struct srp_direct_buf) == 16, "srp_direct_buf");
_Static_assert(sizeof(struct srp_indirect_hdr) == 20, "srp_indirect_buf");
_Static_assert(sizeof(struct srp_login_req_rdma) == 56, "srp_login_req_rdma");
_Static_assert(sizeof(struct srp_login_rsp) == 52, "srp_login_rsp");
_Static_assert(sizeof(struct srp_login_rej) == 32, "srp_login_rej");
_Static_assert(sizeof(struct srp_i_logout) == 16, "srp_i_logout");
_Static_assert(sizeof(struct srp_tsk_mgmt) == 48, "srp_tsk_mgmt");
_Static_assert(sizeof(struct srp_cmd) == 48, "srp_cmd");
_Static_assert(sizeof(struct srp_rsp) == 36, "srp_rsp");

#endif
