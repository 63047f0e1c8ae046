// SPDX-License-Identifier: GPL-2.0-only
/*
 * Login: srpt_check_login_req(), srpt_imm_data_offset(),
 * srpt_fill_login_rsp(), srpt_fill_login_rej(), srpt_multichan_rsp_flags().
 */

#include "srpt_kunit.h"

static const u8 srpt_test_tport[16] = {
	0x00, 0x02, 0xc9, 0x03, 0x00, 0xa1, 0xb2, 0xc3,
	0x00, 0x02, 0xc9, 0x03, 0x00, 0xa1, 0xb2, 0xc3,
};

#define SRPT_TEST_MAX_REQ	8276

/* A login request that srpt_check_login_req() accepts. */
static struct srp_login_req *srpt_test_login_req(struct kunit *test)
{
	struct srp_login_req *req = kunit_kzalloc(test, sizeof(*req), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, req);
	req->opcode = SRP_LOGIN_REQ;
	req->tag = 0xfeedfacecafef00dULL;
	req->req_it_iu_len = cpu_to_be32(8260);
	req->req_buf_fmt = cpu_to_be16(SRP_BUF_FORMAT_DIRECT | SRP_BUF_FORMAT_INDIRECT);
	req->req_flags = SRP_MULTICHAN_SINGLE;
	memset(req->initiator_port_id, 0x42, 16);
	memcpy(req->target_port_id, srpt_test_tport, 16);
	return req;
}

static u32 srpt_test_check(const struct srp_login_req *req, bool enabled)
{
	return srpt_check_login_req(req, srpt_test_tport, SRPT_TEST_MAX_REQ, enabled);
}

static void srpt_login_accepts_valid(struct kunit *test)
{
	struct srp_login_req *req = srpt_test_login_req(test);

	KUNIT_EXPECT_EQ(test, srpt_test_check(req, true), 0U);
	/* Exactly at both IU length limits. */
	req->req_it_iu_len = cpu_to_be32(SRPT_MIN_IT_IU_LEN);
	KUNIT_EXPECT_EQ(test, srpt_test_check(req, true), 0U);
	req->req_it_iu_len = cpu_to_be32(SRPT_TEST_MAX_REQ);
	KUNIT_EXPECT_EQ(test, srpt_test_check(req, true), 0U);
	/* One of the two descriptor formats is enough. */
	req->req_buf_fmt = cpu_to_be16(SRP_BUF_FORMAT_DIRECT);
	KUNIT_EXPECT_EQ(test, srpt_test_check(req, true), 0U);
	req->req_buf_fmt = cpu_to_be16(SRP_BUF_FORMAT_INDIRECT);
	KUNIT_EXPECT_EQ(test, srpt_test_check(req, true), 0U);
}

static void srpt_login_iu_too_small(struct kunit *test)
{
	struct srp_login_req *req = srpt_test_login_req(test);

	req->req_it_iu_len = cpu_to_be32(SRPT_MIN_IT_IU_LEN - 1);
	KUNIT_EXPECT_EQ(test, srpt_test_check(req, true),
			(u32)SRP_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL);
	req->req_it_iu_len = cpu_to_be32(0);
	KUNIT_EXPECT_EQ(test, srpt_test_check(req, true),
			(u32)SRP_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL);
}

static void srpt_login_iu_too_large(struct kunit *test)
{
	struct srp_login_req *req = srpt_test_login_req(test);

	req->req_it_iu_len = cpu_to_be32(SRPT_TEST_MAX_REQ + 1);
	KUNIT_EXPECT_EQ(test, srpt_test_check(req, true),
			(u32)SRP_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE);
	/* A value that is negative as an int must not slip through. */
	req->req_it_iu_len = cpu_to_be32(0x80000000);
	KUNIT_EXPECT_EQ(test, srpt_test_check(req, true),
			(u32)SRP_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE);
	/* The limit is the caller's, not a constant. */
	req->req_it_iu_len = cpu_to_be32(8260);
	KUNIT_EXPECT_EQ(test, srpt_check_login_req(req, srpt_test_tport, 4096, true),
			(u32)SRP_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE);
}

static void srpt_login_wrong_target_port(struct kunit *test)
{
	struct srp_login_req *req = srpt_test_login_req(test);

	req->target_port_id[15] ^= 1;
	KUNIT_EXPECT_EQ(test, srpt_test_check(req, true),
			(u32)SRP_LOGIN_REJ_UNABLE_ASSOCIATE_CHANNEL);
	req->target_port_id[15] ^= 1;
	req->target_port_id[0] ^= 0x80;
	KUNIT_EXPECT_EQ(test, srpt_test_check(req, true),
			(u32)SRP_LOGIN_REJ_UNABLE_ASSOCIATE_CHANNEL);
}

static void srpt_login_unsupported_fmt(struct kunit *test)
{
	struct srp_login_req *req = srpt_test_login_req(test);

	req->req_buf_fmt = 0;
	KUNIT_EXPECT_EQ(test, srpt_test_check(req, true),
			(u32)SRP_LOGIN_REJ_UNSUPPORTED_DESCRIPTOR_FMT);
	/* Other bits do not count; byte-swapped DIRECT|INDIRECT neither. */
	req->req_buf_fmt = cpu_to_be16((u16)~(SRP_BUF_FORMAT_DIRECT | SRP_BUF_FORMAT_INDIRECT));
	KUNIT_EXPECT_EQ(test, srpt_test_check(req, true),
			(u32)SRP_LOGIN_REJ_UNSUPPORTED_DESCRIPTOR_FMT);
	req->req_buf_fmt = cpu_to_be16((SRP_BUF_FORMAT_DIRECT | SRP_BUF_FORMAT_INDIRECT) << 8);
	KUNIT_EXPECT_EQ(test, srpt_test_check(req, true),
			(u32)SRP_LOGIN_REJ_UNSUPPORTED_DESCRIPTOR_FMT);
}

static void srpt_login_port_disabled(struct kunit *test)
{
	struct srp_login_req *req = srpt_test_login_req(test);

	KUNIT_EXPECT_EQ(test, srpt_test_check(req, false),
			(u32)SRP_LOGIN_REJ_INSUFFICIENT_RESOURCES);
}

/* Order: IU too small, too large, port ID, descriptor format, enabled. */
static void srpt_login_check_order(struct kunit *test)
{
	struct srp_login_req *req = srpt_test_login_req(test);

	req->req_it_iu_len = cpu_to_be32(8);
	req->target_port_id[3] ^= 0xff;
	req->req_buf_fmt = 0;
	KUNIT_EXPECT_EQ(test, srpt_test_check(req, false),
			(u32)SRP_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL);
	req->req_it_iu_len = cpu_to_be32(SRPT_TEST_MAX_REQ + 4);
	KUNIT_EXPECT_EQ(test, srpt_test_check(req, false),
			(u32)SRP_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE);
	req->req_it_iu_len = cpu_to_be32(1024);
	KUNIT_EXPECT_EQ(test, srpt_test_check(req, false),
			(u32)SRP_LOGIN_REJ_UNABLE_ASSOCIATE_CHANNEL);
	req->target_port_id[3] ^= 0xff;
	KUNIT_EXPECT_EQ(test, srpt_test_check(req, false),
			(u32)SRP_LOGIN_REJ_UNSUPPORTED_DESCRIPTOR_FMT);
	req->req_buf_fmt = cpu_to_be16(SRP_BUF_FORMAT_INDIRECT);
	KUNIT_EXPECT_EQ(test, srpt_test_check(req, false),
			(u32)SRP_LOGIN_REJ_INSUFFICIENT_RESOURCES);
	KUNIT_EXPECT_EQ(test, srpt_test_check(req, true), 0U);
}

static void srpt_login_imm_offset_granted(struct kunit *test)
{
	struct srp_login_req *req = srpt_test_login_req(test);

	req->req_flags = SRP_IMMED_REQUESTED;
	req->imm_data_offset = cpu_to_be16(68);
	KUNIT_EXPECT_EQ(test, srpt_imm_data_offset(req, 8260), (u16)68);
	/* The smallest allowed offset: srp_cmd + srp_imm_buf = 52. */
	req->imm_data_offset = cpu_to_be16(SRPT_IMM_DATA_OFFSET_MIN);
	KUNIT_EXPECT_EQ(test, (int)SRPT_IMM_DATA_OFFSET_MIN, 52);
	KUNIT_EXPECT_EQ(test, srpt_imm_data_offset(req, 8260), (u16)52);
	/* Multichannel flag bits do not matter. */
	req->req_flags = SRP_IMMED_REQUESTED | SRP_MULTICHAN_MULTI;
	KUNIT_EXPECT_EQ(test, srpt_imm_data_offset(req, 8260), (u16)52);
	/* The largest: it_iu_len - 1. */
	req->imm_data_offset = cpu_to_be16(8259);
	KUNIT_EXPECT_EQ(test, srpt_imm_data_offset(req, 8260), (u16)8259);
}

static void srpt_login_imm_offset_refused(struct kunit *test)
{
	struct srp_login_req *req = srpt_test_login_req(test);

	/* Not requested: the offset field is ignored. */
	req->req_flags = SRP_MULTICHAN_MULTI;
	req->imm_data_offset = cpu_to_be16(68);
	KUNIT_EXPECT_EQ(test, srpt_imm_data_offset(req, 8260), (u16)0);

	req->req_flags = SRP_IMMED_REQUESTED;
	req->imm_data_offset = cpu_to_be16(51);
	KUNIT_EXPECT_EQ(test, srpt_imm_data_offset(req, 8260), (u16)0);
	req->imm_data_offset = cpu_to_be16(48);
	KUNIT_EXPECT_EQ(test, srpt_imm_data_offset(req, 8260), (u16)0);
	req->imm_data_offset = 0;
	KUNIT_EXPECT_EQ(test, srpt_imm_data_offset(req, 8260), (u16)0);
	req->imm_data_offset = cpu_to_be16(8260);
	KUNIT_EXPECT_EQ(test, srpt_imm_data_offset(req, 8260), (u16)0);
	req->imm_data_offset = cpu_to_be16(0xffff);
	KUNIT_EXPECT_EQ(test, srpt_imm_data_offset(req, 8260), (u16)0);
	/* Byte order: 0x4400 little-endian would read as 68. */
	req->imm_data_offset = (__force __be16)cpu_to_le16(68);
	KUNIT_EXPECT_EQ(test, srpt_imm_data_offset(req, 1024), (u16)0);
}

static void srpt_login_rsp_contents(struct kunit *test)
{
	struct srp_login_rsp *rsp = kunit_kmalloc(test, sizeof(*rsp), GFP_KERNEL);
	u8 *b = (u8 *)rsp;

	KUNIT_ASSERT_NOT_NULL(test, rsp);
	memset(rsp, SRPT_TEST_POISON, sizeof(*rsp));
	srpt_fill_login_rsp(rsp, 0x0123456789abcdefULL, 126, 8260, 8260,
			    SRP_LOGIN_RSP_MULTICHAN_MAINTAINED | SRP_LOGIN_RSP_IMMED_SUPP);
	KUNIT_EXPECT_EQ(test, b[0], (u8)SRP_LOGIN_RSP);
	KUNIT_EXPECT_TRUE(test, srpt_test_all_eq(b + 1, 3, 0));
	/* req_lim_delta, big-endian at offset 4. */
	KUNIT_EXPECT_EQ(test, b[4], 0);
	KUNIT_EXPECT_EQ(test, b[7], 126);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(rsp->req_lim_delta), 126U);
	KUNIT_EXPECT_EQ(test, rsp->tag, 0x0123456789abcdefULL);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(rsp->max_it_iu_len), 8260U);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(rsp->max_ti_iu_len), 8260U);
	KUNIT_EXPECT_EQ(test, b[16], 0x00);
	KUNIT_EXPECT_EQ(test, b[19], 0x44);	/* 8260 = 0x2044 */
	KUNIT_EXPECT_EQ(test, be16_to_cpu(rsp->buf_fmt),
			SRP_BUF_FORMAT_DIRECT | SRP_BUF_FORMAT_INDIRECT);
	KUNIT_EXPECT_EQ(test, b[24], 0);
	KUNIT_EXPECT_EQ(test, b[25], 0x06);
	KUNIT_EXPECT_EQ(test, rsp->rsp_flags, (u8)0x82);
	KUNIT_EXPECT_TRUE(test, srpt_test_all_eq(rsp->reserved2, sizeof(rsp->reserved2), 0));
}

static void srpt_login_rsp_values(struct kunit *test)
{
	struct srp_login_rsp *rsp = kunit_kmalloc(test, sizeof(*rsp), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rsp);
	memset(rsp, SRPT_TEST_POISON, sizeof(*rsp));
	srpt_fill_login_rsp(rsp, 7, 0x00010203, 996, 256,
			    SRP_LOGIN_RSP_MULTICHAN_NO_CHAN);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(rsp->req_lim_delta), 0x00010203U);
	KUNIT_EXPECT_EQ(test, rsp->tag, 7ULL);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(rsp->max_it_iu_len), 996U);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(rsp->max_ti_iu_len), 256U);
	KUNIT_EXPECT_EQ(test, rsp->rsp_flags, (u8)0);
}

static const u32 srpt_rej_reasons[] = {
	SRP_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL,
	SRP_LOGIN_REJ_INSUFFICIENT_RESOURCES,
	SRP_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE,
	SRP_LOGIN_REJ_UNABLE_ASSOCIATE_CHANNEL,
	SRP_LOGIN_REJ_UNSUPPORTED_DESCRIPTOR_FMT,
	SRP_LOGIN_REJ_MULTI_CHANNEL_UNSUPPORTED,
	SRP_LOGIN_REJ_CHANNEL_LIMIT_REACHED,
};

static void srpt_rej_reason_desc(const u32 *reason, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "reason %#x", *reason);
}

KUNIT_ARRAY_PARAM(srpt_rej_reason, srpt_rej_reasons, srpt_rej_reason_desc);

static void srpt_login_rej_contents(struct kunit *test)
{
	const u32 reason = *(const u32 *)test->param_value;
	struct srp_login_rej *rej = kunit_kmalloc(test, sizeof(*rej), GFP_KERNEL);
	u64 tag = 0xa1b2c3d4e5f60718ULL ^ reason;
	u8 *b = (u8 *)rej;

	KUNIT_ASSERT_NOT_NULL(test, rej);
	memset(rej, SRPT_TEST_POISON, sizeof(*rej));
	srpt_fill_login_rej(rej, tag, reason);
	KUNIT_EXPECT_EQ(test, b[0], (u8)SRP_LOGIN_REJ);
	KUNIT_EXPECT_TRUE(test, srpt_test_all_eq(b + 1, 3, 0));
	KUNIT_EXPECT_EQ(test, be32_to_cpu(rej->reason), reason);
	KUNIT_EXPECT_EQ(test, b[5], 0x01);
	KUNIT_EXPECT_EQ(test, b[7], reason & 0xff);
	KUNIT_EXPECT_EQ(test, rej->tag, tag);
	KUNIT_EXPECT_TRUE(test, srpt_test_all_eq(b + 16, 8, 0));
	KUNIT_EXPECT_EQ(test, be16_to_cpu(rej->buf_fmt),
			SRP_BUF_FORMAT_DIRECT | SRP_BUF_FORMAT_INDIRECT);
	KUNIT_EXPECT_TRUE(test, srpt_test_all_eq(b + 26, 6, 0));
}

static void srpt_login_rej_every_check(struct kunit *test)
{
	struct srp_login_req *req = srpt_test_login_req(test);
	struct srp_login_rej *rej = kunit_kzalloc(test, sizeof(*rej), GFP_KERNEL);
	u32 reason;

	KUNIT_ASSERT_NOT_NULL(test, rej);
	req->req_it_iu_len = cpu_to_be32(SRPT_TEST_MAX_REQ * 2);
	reason = srpt_test_check(req, true);
	srpt_fill_login_rej(rej, req->tag, reason);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(rej->reason),
			(u32)SRP_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE);
	KUNIT_EXPECT_EQ(test, rej->tag, req->tag);

	req->req_it_iu_len = cpu_to_be32(1024);
	reason = srpt_test_check(req, false);
	srpt_fill_login_rej(rej, req->tag, reason);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(rej->reason),
			(u32)SRP_LOGIN_REJ_INSUFFICIENT_RESOURCES);
}

static void srpt_login_multichan_flags(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, srpt_multichan_rsp_flags(SRP_MULTICHAN_MULTI, false),
			(u8)SRP_LOGIN_RSP_MULTICHAN_MAINTAINED);
	KUNIT_EXPECT_EQ(test, srpt_multichan_rsp_flags(SRP_MULTICHAN_MULTI, true),
			(u8)SRP_LOGIN_RSP_MULTICHAN_MAINTAINED);
	KUNIT_EXPECT_EQ(test, srpt_multichan_rsp_flags(SRP_MULTICHAN_SINGLE, true),
			(u8)SRP_LOGIN_RSP_MULTICHAN_TERMINATED);
	KUNIT_EXPECT_EQ(test, srpt_multichan_rsp_flags(SRP_MULTICHAN_SINGLE, false),
			(u8)SRP_LOGIN_RSP_MULTICHAN_NO_CHAN);
}

/* Only bit 0 selects multichannel; the immediate-data bit is unrelated. */
static void srpt_login_multichan_other_bits(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, srpt_multichan_rsp_flags(SRP_IMMED_REQUESTED, true),
			(u8)SRP_LOGIN_RSP_MULTICHAN_TERMINATED);
	KUNIT_EXPECT_EQ(test, srpt_multichan_rsp_flags(SRP_IMMED_REQUESTED, false),
			(u8)SRP_LOGIN_RSP_MULTICHAN_NO_CHAN);
	KUNIT_EXPECT_EQ(test,
			srpt_multichan_rsp_flags(SRP_IMMED_REQUESTED | SRP_MULTICHAN_MULTI,
						 true),
			(u8)SRP_LOGIN_RSP_MULTICHAN_MAINTAINED);
}

static struct kunit_case srpt_login_cases[] = {
	KUNIT_CASE(srpt_login_accepts_valid),
	KUNIT_CASE(srpt_login_iu_too_small),
	KUNIT_CASE(srpt_login_iu_too_large),
	KUNIT_CASE(srpt_login_wrong_target_port),
	KUNIT_CASE(srpt_login_unsupported_fmt),
	KUNIT_CASE(srpt_login_port_disabled),
	KUNIT_CASE(srpt_login_check_order),
	KUNIT_CASE(srpt_login_imm_offset_granted),
	KUNIT_CASE(srpt_login_imm_offset_refused),
	KUNIT_CASE(srpt_login_rsp_contents),
	KUNIT_CASE(srpt_login_rsp_values),
	KUNIT_CASE_PARAM(srpt_login_rej_contents, srpt_rej_reason_gen_params),
	KUNIT_CASE(srpt_login_rej_every_check),
	KUNIT_CASE(srpt_login_multichan_flags),
	KUNIT_CASE(srpt_login_multichan_other_bits),
	{}
};

static struct kunit_suite srpt_login_suite = {
	.name = "ib_srpt_login",
	.test_cases = srpt_login_cases,
};

kunit_test_suite(srpt_login_suite);
