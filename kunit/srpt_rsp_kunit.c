// SPDX-License-Identifier: GPL-2.0-only
/*
 * Responses: srpt_build_cmd_rsp(), srpt_build_tskmgmt_rsp(), and the
 * mappings of SRP task management functions and task attributes to LIO.
 */

#include "srpt_kunit.h"

#define SRPT_TEST_RSP_BUF	512
#define SRPT_TEST_REQ_LIM	10

struct srpt_rsp_fixture {
	struct srpt_rdma_ch *ch;
	struct srpt_send_ioctx *ioctx;
	u8 *buf;
};

static int srpt_rsp_init(struct kunit *test)
{
	struct srpt_rsp_fixture *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);

	if (!f)
		return -ENOMEM;
	f->ch = kunit_kzalloc(test, sizeof(*f->ch), GFP_KERNEL);
	f->ioctx = kunit_kzalloc(test, sizeof(*f->ioctx), GFP_KERNEL);
	/* Larger than max_rsp_size, poisoned: detects writes past the limit. */
	f->buf = kunit_kmalloc(test, SRPT_TEST_RSP_BUF, GFP_KERNEL);
	if (!f->ch || !f->ioctx || !f->buf)
		return -ENOMEM;
	memset(f->buf, 0, SRPT_MAX_RSP_SIZE_DEFAULT);
	memset(f->buf + SRPT_MAX_RSP_SIZE_DEFAULT, SRPT_TEST_POISON,
	       SRPT_TEST_RSP_BUF - SRPT_MAX_RSP_SIZE_DEFAULT);
	spin_lock_init(&f->ch->spinlock);
	f->ch->lim.max_rsp_size = SRPT_MAX_RSP_SIZE_DEFAULT;
	f->ch->state = SRPT_CH_LIVE;
	srpt_test_set_credits(f->ch, SRPT_TEST_REQ_LIM);
	atomic_set(&f->ch->cred.req_lim_delta, 0);
	f->ioctx->ioctx.buf = f->buf;
	f->ioctx->ch = f->ch;
	f->ioctx->state = SRPT_CMD_NEW;
	f->ioctx->cmd.sense_buffer = f->ioctx->sense_data;
	f->ioctx->cmd.data_direction = DMA_NONE;
	test->priv = f;
	return 0;
}

static struct srp_rsp *srpt_test_rsp(struct kunit *test)
{
	struct srpt_rsp_fixture *f = test->priv;

	return (struct srp_rsp *)f->buf;
}

/* 18 bytes of fixed-format sense: ILLEGAL REQUEST, INVALID FIELD IN CDB. */
static void srpt_test_set_sense(struct srpt_send_ioctx *ioctx, u16 len)
{
	int i;

	for (i = 0; i < TRANSPORT_SENSE_BUFFER; i++)
		ioctx->sense_data[i] = 0x40 + i;
	ioctx->sense_data[0] = 0x70;
	ioctx->sense_data[2] = 0x05;
	ioctx->sense_data[12] = 0x24;
	ioctx->cmd.scsi_sense_length = len;
}

static void srpt_rsp_good_status(struct kunit *test)
{
	struct srpt_rsp_fixture *f = test->priv;
	struct srp_rsp *rsp = srpt_test_rsp(test);
	int len;

	len = srpt_build_cmd_rsp(f->ch, f->ioctx, 0x0102030405060708ULL, SAM_STAT_GOOD);
	KUNIT_EXPECT_EQ(test, len, (int)sizeof(struct srp_rsp));
	KUNIT_EXPECT_EQ(test, rsp->opcode, (u8)SRP_RSP);
	KUNIT_EXPECT_EQ(test, rsp->tag, 0x0102030405060708ULL);
	KUNIT_EXPECT_EQ(test, rsp->status, 0);
	KUNIT_EXPECT_EQ(test, rsp->flags, 0);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(rsp->req_lim_delta), 1U);
	KUNIT_EXPECT_EQ(test, f->buf[7], 1);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(rsp->sense_data_len), 0U);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(rsp->resp_data_len), 0U);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(rsp->data_in_res_cnt), 0U);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(rsp->data_out_res_cnt), 0U);
	KUNIT_EXPECT_EQ(test, srpt_credits_held(f->ch), SRPT_TEST_REQ_LIM + 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&f->ch->cred.req_lim_delta), 0);
}

/* Credits accumulated in req_lim_delta are returned once, plus one. */
static void srpt_rsp_credit_delta(struct kunit *test)
{
	struct srpt_rsp_fixture *f = test->priv;
	struct srp_rsp *rsp = srpt_test_rsp(test);

	atomic_set(&f->ch->cred.req_lim_delta, 5);
	srpt_build_cmd_rsp(f->ch, f->ioctx, 1, SAM_STAT_GOOD);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(rsp->req_lim_delta), 6U);
	KUNIT_EXPECT_EQ(test, atomic_read(&f->ch->cred.req_lim_delta), 0);
	KUNIT_EXPECT_EQ(test, srpt_credits_held(f->ch), SRPT_TEST_REQ_LIM + 6);

	srpt_build_cmd_rsp(f->ch, f->ioctx, 2, SAM_STAT_GOOD);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(rsp->req_lim_delta), 1U);
	KUNIT_EXPECT_EQ(test, srpt_credits_held(f->ch), SRPT_TEST_REQ_LIM + 7);

	atomic_set(&f->ch->cred.req_lim_delta, 300);
	srpt_build_cmd_rsp(f->ch, f->ioctx, 3, SAM_STAT_GOOD);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(rsp->req_lim_delta), 301U);
	KUNIT_EXPECT_EQ(test, f->buf[6], 0x01);	/* 301 = 0x12d, big-endian */
	KUNIT_EXPECT_EQ(test, f->buf[7], 0x2d);
	KUNIT_EXPECT_EQ(test, srpt_credits_held(f->ch), SRPT_TEST_REQ_LIM + 308);
}

static void srpt_rsp_check_condition_sense(struct kunit *test)
{
	struct srpt_rsp_fixture *f = test->priv;
	struct srp_rsp *rsp = srpt_test_rsp(test);
	int len;

	srpt_test_set_sense(f->ioctx, 18);
	len = srpt_build_cmd_rsp(f->ch, f->ioctx, 9, SAM_STAT_CHECK_CONDITION);
	KUNIT_EXPECT_EQ(test, len, (int)sizeof(struct srp_rsp) + 18);
	KUNIT_EXPECT_EQ(test, rsp->status, SAM_STAT_CHECK_CONDITION);
	KUNIT_EXPECT_EQ(test, rsp->flags, (u8)SRP_RSP_FLAG_SNSVALID);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(rsp->sense_data_len), 18U);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(rsp->resp_data_len), 0U);
	KUNIT_EXPECT_MEMEQ(test, rsp->data, f->ioctx->sense_data, 18);
	KUNIT_EXPECT_EQ(test, f->buf[36], 0x70);
	KUNIT_EXPECT_EQ(test, f->buf[38], 0x05);
	KUNIT_EXPECT_EQ(test, f->buf[48], 0x24);
}

/* Sense is cut to what fits in max_rsp_size; nothing is written beyond. */
static void srpt_rsp_sense_truncated(struct kunit *test)
{
	struct srpt_rsp_fixture *f = test->priv;
	struct srp_rsp *rsp = srpt_test_rsp(test);
	int len;

	f->ch->lim.max_rsp_size = sizeof(struct srp_rsp) + 10;
	memset(f->buf + f->ch->lim.max_rsp_size, SRPT_TEST_POISON,
	       SRPT_TEST_RSP_BUF - f->ch->lim.max_rsp_size);
	srpt_test_set_sense(f->ioctx, 18);
	len = srpt_build_cmd_rsp(f->ch, f->ioctx, 9, SAM_STAT_CHECK_CONDITION);
	KUNIT_EXPECT_EQ(test, len, (int)sizeof(struct srp_rsp) + 10);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(rsp->sense_data_len), 10U);
	KUNIT_EXPECT_TRUE(test, rsp->flags & SRP_RSP_FLAG_SNSVALID);
	KUNIT_EXPECT_MEMEQ(test, rsp->data, f->ioctx->sense_data, 10);
	KUNIT_EXPECT_TRUE(test, srpt_test_all_eq(f->buf + f->ch->lim.max_rsp_size,
						 SRPT_TEST_RSP_BUF - f->ch->lim.max_rsp_size,
						 SRPT_TEST_POISON));
}

/* The smallest max_rsp_size leaves no room for sense data at all. */
static void srpt_rsp_sense_no_room(struct kunit *test)
{
	struct srpt_rsp_fixture *f = test->priv;
	struct srp_rsp *rsp = srpt_test_rsp(test);
	int len;

	/* Below what a login allows, but the builder must still cope. */
	f->ch->lim.max_rsp_size = sizeof(struct srp_rsp);
	memset(f->buf + f->ch->lim.max_rsp_size, SRPT_TEST_POISON,
	       SRPT_TEST_RSP_BUF - f->ch->lim.max_rsp_size);
	srpt_test_set_sense(f->ioctx, 18);
	len = srpt_build_cmd_rsp(f->ch, f->ioctx, 9, SAM_STAT_CHECK_CONDITION);
	KUNIT_EXPECT_EQ(test, len, (int)sizeof(struct srp_rsp));
	KUNIT_EXPECT_EQ(test, be32_to_cpu(rsp->sense_data_len), 0U);
	KUNIT_EXPECT_EQ(test, rsp->status, SAM_STAT_CHECK_CONDITION);
	KUNIT_EXPECT_TRUE(test, srpt_test_all_eq(f->buf + sizeof(struct srp_rsp),
						 SRPT_TEST_RSP_BUF - sizeof(struct srp_rsp),
						 SRPT_TEST_POISON));
}

static void srpt_rsp_sense_full_buffer(struct kunit *test)
{
	struct srpt_rsp_fixture *f = test->priv;
	struct srp_rsp *rsp = srpt_test_rsp(test);
	int len;

	srpt_test_set_sense(f->ioctx, TRANSPORT_SENSE_BUFFER);
	len = srpt_build_cmd_rsp(f->ch, f->ioctx, 9, SAM_STAT_CHECK_CONDITION);
	KUNIT_EXPECT_EQ(test, len, (int)sizeof(struct srp_rsp) + TRANSPORT_SENSE_BUFFER);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(rsp->sense_data_len), (u32)TRANSPORT_SENSE_BUFFER);
	KUNIT_EXPECT_MEMEQ(test, rsp->data, f->ioctx->sense_data, TRANSPORT_SENSE_BUFFER);
}

/* GOOD status carries no sense even if the command has sense bytes. */
static void srpt_rsp_sense_ignored_when_good(struct kunit *test)
{
	struct srpt_rsp_fixture *f = test->priv;
	struct srp_rsp *rsp = srpt_test_rsp(test);
	int len;

	srpt_test_set_sense(f->ioctx, 18);
	len = srpt_build_cmd_rsp(f->ch, f->ioctx, 9, SAM_STAT_GOOD);
	KUNIT_EXPECT_EQ(test, len, (int)sizeof(struct srp_rsp));
	KUNIT_EXPECT_EQ(test, rsp->flags, 0);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(rsp->sense_data_len), 0U);
}

/* A non-GOOD status without sense: no SNSVALID, header only. */
static void srpt_rsp_busy_without_sense(struct kunit *test)
{
	struct srpt_rsp_fixture *f = test->priv;
	struct srp_rsp *rsp = srpt_test_rsp(test);
	int len;

	len = srpt_build_cmd_rsp(f->ch, f->ioctx, 9, SAM_STAT_BUSY);
	KUNIT_EXPECT_EQ(test, len, (int)sizeof(struct srp_rsp));
	KUNIT_EXPECT_EQ(test, rsp->status, SAM_STAT_BUSY);
	KUNIT_EXPECT_EQ(test, rsp->flags, 0);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(rsp->sense_data_len), 0U);
}

struct srpt_resid_case {
	u32 scf;
	enum dma_data_direction dir;
	u8 flags;
	bool data_in;
};

static void srpt_test_residual(struct kunit *test, const struct srpt_resid_case *c)
{
	struct srpt_rsp_fixture *f = test->priv;
	struct srp_rsp *rsp = srpt_test_rsp(test);

	f->ioctx->cmd.se_cmd_flags = c->scf;
	f->ioctx->cmd.data_direction = c->dir;
	f->ioctx->cmd.residual_count = 0x12345;
	KUNIT_EXPECT_EQ(test, srpt_build_cmd_rsp(f->ch, f->ioctx, 4, SAM_STAT_GOOD),
			(int)sizeof(struct srp_rsp));
	KUNIT_EXPECT_EQ(test, rsp->flags, c->flags);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(rsp->data_in_res_cnt), c->data_in ? 0x12345U : 0U);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(rsp->data_out_res_cnt), c->data_in ? 0U : 0x12345U);
}

static void srpt_rsp_underflow_data_in(struct kunit *test)
{
	static const struct srpt_resid_case c = {
		SCF_UNDERFLOW_BIT, DMA_FROM_DEVICE, SRP_RSP_FLAG_DIUNDER, true };

	srpt_test_residual(test, &c);
}

static void srpt_rsp_overflow_data_in(struct kunit *test)
{
	static const struct srpt_resid_case c = {
		SCF_OVERFLOW_BIT, DMA_FROM_DEVICE, SRP_RSP_FLAG_DIOVER, true };

	srpt_test_residual(test, &c);
}

static void srpt_rsp_underflow_data_out(struct kunit *test)
{
	static const struct srpt_resid_case c = {
		SCF_UNDERFLOW_BIT, DMA_TO_DEVICE, SRP_RSP_FLAG_DOUNDER, false };

	srpt_test_residual(test, &c);
}

static void srpt_rsp_overflow_data_out(struct kunit *test)
{
	static const struct srpt_resid_case c = {
		SCF_OVERFLOW_BIT, DMA_TO_DEVICE, SRP_RSP_FLAG_DOOVER, false };

	srpt_test_residual(test, &c);
}

/* residual_count alone (no SCF_*FLOW_BIT) is not reported. */
static void srpt_rsp_no_residual_without_flag(struct kunit *test)
{
	struct srpt_rsp_fixture *f = test->priv;
	struct srp_rsp *rsp = srpt_test_rsp(test);

	f->ioctx->cmd.data_direction = DMA_FROM_DEVICE;
	f->ioctx->cmd.residual_count = 4096;
	srpt_build_cmd_rsp(f->ch, f->ioctx, 4, SAM_STAT_GOOD);
	KUNIT_EXPECT_EQ(test, rsp->flags, 0);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(rsp->data_in_res_cnt), 0U);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(rsp->data_out_res_cnt), 0U);
}

static void srpt_rsp_residual_and_sense(struct kunit *test)
{
	struct srpt_rsp_fixture *f = test->priv;
	struct srp_rsp *rsp = srpt_test_rsp(test);
	int len;

	f->ioctx->cmd.se_cmd_flags = SCF_UNDERFLOW_BIT;
	f->ioctx->cmd.data_direction = DMA_FROM_DEVICE;
	f->ioctx->cmd.residual_count = 512;
	srpt_test_set_sense(f->ioctx, 18);
	len = srpt_build_cmd_rsp(f->ch, f->ioctx, 4, SAM_STAT_CHECK_CONDITION);
	KUNIT_EXPECT_EQ(test, len, (int)sizeof(struct srp_rsp) + 18);
	KUNIT_EXPECT_EQ(test, rsp->flags,
			(u8)(SRP_RSP_FLAG_DIUNDER | SRP_RSP_FLAG_SNSVALID));
	KUNIT_EXPECT_EQ(test, be32_to_cpu(rsp->data_in_res_cnt), 512U);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(rsp->sense_data_len), 18U);
}

/* Send buffers are reused: nothing of a previous response may survive. */
static void srpt_rsp_reused_buffer(struct kunit *test)
{
	struct srpt_rsp_fixture *f = test->priv;
	struct srp_rsp *rsp = srpt_test_rsp(test);

	f->ioctx->cmd.se_cmd_flags = SCF_OVERFLOW_BIT;
	f->ioctx->cmd.data_direction = DMA_TO_DEVICE;
	f->ioctx->cmd.residual_count = 77;
	srpt_test_set_sense(f->ioctx, 18);
	srpt_build_cmd_rsp(f->ch, f->ioctx, 4, SAM_STAT_CHECK_CONDITION);
	KUNIT_ASSERT_EQ(test, rsp->flags,
			(u8)(SRP_RSP_FLAG_DOOVER | SRP_RSP_FLAG_SNSVALID));

	memset(&f->ioctx->cmd, 0, sizeof(f->ioctx->cmd));
	f->ioctx->cmd.sense_buffer = f->ioctx->sense_data;
	KUNIT_EXPECT_EQ(test, srpt_build_cmd_rsp(f->ch, f->ioctx, 5, SAM_STAT_GOOD),
			(int)sizeof(struct srp_rsp));
	KUNIT_EXPECT_EQ(test, rsp->tag, 5ULL);
	KUNIT_EXPECT_EQ(test, rsp->status, 0);
	KUNIT_EXPECT_EQ(test, rsp->flags, 0);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(rsp->data_out_res_cnt), 0U);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(rsp->sense_data_len), 0U);
}

static const u8 srpt_tsk_codes[] = {
	SRP_TSK_MGMT_SUCCESS, SRP_TSK_MGMT_FUNC_NOT_SUPP, SRP_TSK_MGMT_FAILED,
};

static void srpt_tsk_code_desc(const u8 *code, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "response code %#x", *code);
}

KUNIT_ARRAY_PARAM(srpt_tsk_codes, srpt_tsk_codes, srpt_tsk_code_desc);

static void srpt_tsk_rsp_codes(struct kunit *test)
{
	const u8 *code = test->param_value;
	struct srpt_rsp_fixture *f = test->priv;
	struct srp_rsp *rsp = srpt_test_rsp(test);

	/* The SRP standard's values, which the initiator decodes. */
	KUNIT_EXPECT_EQ(test, SRP_TSK_MGMT_SUCCESS, 0x00);
	KUNIT_EXPECT_EQ(test, SRP_TSK_MGMT_FUNC_NOT_SUPP, 0x04);
	KUNIT_EXPECT_EQ(test, SRP_TSK_MGMT_FAILED, 0x05);
	memset(f->buf, 0, f->ch->lim.max_rsp_size);
	KUNIT_EXPECT_EQ(test, srpt_build_tskmgmt_rsp(f->ch, *code, f->ioctx, 0xabc0 + *code),
			(int)sizeof(struct srp_rsp) + 4);
	KUNIT_EXPECT_EQ(test, rsp->opcode, (u8)SRP_RSP);
	KUNIT_EXPECT_EQ(test, rsp->tag, 0xabc0ULL + *code);
	KUNIT_EXPECT_EQ(test, rsp->flags, (u8)SRP_RSP_FLAG_RSPVALID);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(rsp->resp_data_len), 4U);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(rsp->sense_data_len), 0U);
	KUNIT_EXPECT_EQ(test, rsp->data[0], 0);
	KUNIT_EXPECT_EQ(test, rsp->data[1], 0);
	KUNIT_EXPECT_EQ(test, rsp->data[2], 0);
	KUNIT_EXPECT_EQ(test, rsp->data[3], *code);
	KUNIT_EXPECT_EQ(test, f->buf[39], *code);
}

static void srpt_tsk_rsp_credits(struct kunit *test)
{
	struct srpt_rsp_fixture *f = test->priv;
	struct srp_rsp *rsp = srpt_test_rsp(test);

	atomic_set(&f->ch->cred.req_lim_delta, 3);
	srpt_build_tskmgmt_rsp(f->ch, SRP_TSK_MGMT_SUCCESS, f->ioctx, 1);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(rsp->req_lim_delta), 4U);
	KUNIT_EXPECT_EQ(test, atomic_read(&f->ch->cred.req_lim_delta), 0);
	KUNIT_EXPECT_EQ(test, srpt_credits_held(f->ch), SRPT_TEST_REQ_LIM + 4);
	srpt_build_tskmgmt_rsp(f->ch, SRP_TSK_MGMT_FAILED, f->ioctx, 2);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(rsp->req_lim_delta), 1U);
	KUNIT_EXPECT_EQ(test, srpt_credits_held(f->ch), SRPT_TEST_REQ_LIM + 5);
}

/* A TMF response must not carry residual or sense flags of the ioctx. */
static void srpt_tsk_rsp_ignores_cmd_state(struct kunit *test)
{
	struct srpt_rsp_fixture *f = test->priv;
	struct srp_rsp *rsp = srpt_test_rsp(test);

	memset(f->buf, SRPT_TEST_POISON, f->ch->lim.max_rsp_size);
	f->ioctx->cmd.se_cmd_flags = SCF_UNDERFLOW_BIT;
	f->ioctx->cmd.data_direction = DMA_FROM_DEVICE;
	f->ioctx->cmd.residual_count = 512;
	srpt_test_set_sense(f->ioctx, 18);
	KUNIT_EXPECT_EQ(test, srpt_build_tskmgmt_rsp(f->ch, SRP_TSK_MGMT_FUNC_NOT_SUPP,
						     f->ioctx, 3),
			(int)sizeof(struct srp_rsp) + 4);
	KUNIT_EXPECT_EQ(test, rsp->flags, (u8)SRP_RSP_FLAG_RSPVALID);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(rsp->data_in_res_cnt), 0U);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(rsp->sense_data_len), 0U);
	KUNIT_EXPECT_EQ(test, rsp->data[3], (u8)SRP_TSK_MGMT_FUNC_NOT_SUPP);
}

/* An SRP value and what it maps to in LIO. */
struct srpt_map_row {
	int in;
	int out;
};

static void srpt_map_desc(const struct srpt_map_row *r, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%#x", r->in);
}

/* Task management functions; anything the SRP standard does not define is -1. */
static const struct srpt_map_row srpt_tmf_rows[] = {
	{ SRP_TSK_ABORT_TASK, TMR_ABORT_TASK },
	{ SRP_TSK_ABORT_TASK_SET, TMR_ABORT_TASK_SET },
	{ SRP_TSK_CLEAR_TASK_SET, TMR_CLEAR_TASK_SET },
	{ SRP_TSK_LUN_RESET, TMR_LUN_RESET },
	{ SRP_TSK_CLEAR_ACA, TMR_CLEAR_ACA },
	{ 0x00, -1 }, { 0x03, -1 }, { 0x10, -1 }, { 0x20, -1 }, { 0x80, -1 },
	{ 0xff, -1 }, { -1, -1 }, { 0x41, -1 },
};

KUNIT_ARRAY_PARAM(srpt_tmf_rows, srpt_tmf_rows, srpt_map_desc);

static void srpt_tmf_mapping(struct kunit *test)
{
	const struct srpt_map_row *r = test->param_value;

	KUNIT_EXPECT_EQ(test, srpt_tmf_to_tcm(r->in), r->out);
}

/*
 * Give the fixture's command a receive buffer on a channel that is going
 * away (so reposting it does not reach an HCA).
 */
static void srpt_test_hold_recv(struct kunit *test)
{
	struct srpt_rsp_fixture *f = test->priv;
	struct srpt_port *sport = kunit_kzalloc(test, sizeof(*sport), GFP_KERNEL);
	struct srpt_device *sdev = kunit_kzalloc(test, sizeof(*sdev), GFP_KERNEL);
	struct srpt_recv_ioctx *recv = kunit_kzalloc(test, sizeof(*recv), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, sport);
	KUNIT_ASSERT_NOT_NULL(test, sdev);
	KUNIT_ASSERT_NOT_NULL(test, recv);
	sport->sdev = sdev;
	f->ch->sport = sport;
	f->ch->state = SRPT_CH_DRAINING;
	init_llist_head(&f->ch->io.free_ret);
	f->ioctx->recv_ioctx = recv;
}

/* An answered command's credit goes back in its response, and only there. */
static void srpt_rsp_credit_once_answered(struct kunit *test)
{
	struct srpt_rsp_fixture *f = test->priv;
	struct srp_rsp *rsp = srpt_test_rsp(test);

	srpt_test_hold_recv(test);
	srpt_build_cmd_rsp(f->ch, f->ioctx, 1, SAM_STAT_GOOD);
	srpt_release_recv(f->ioctx);
	KUNIT_EXPECT_NULL(test, f->ioctx->recv_ioctx);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(rsp->req_lim_delta), 1U);
	KUNIT_EXPECT_EQ(test, atomic_read(&f->ch->cred.req_lim_delta), 0);
	srpt_build_cmd_rsp(f->ch, f->ioctx, 2, SAM_STAT_GOOD);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(rsp->req_lim_delta), 1U);
}

/* A command released without a response (aborted) owes exactly one credit. */
static void srpt_rsp_credit_once_aborted(struct kunit *test)
{
	struct srpt_rsp_fixture *f = test->priv;
	struct srp_rsp *rsp = srpt_test_rsp(test);

	srpt_test_hold_recv(test);
	srpt_release_cmd(&f->ioctx->cmd);
	KUNIT_EXPECT_NULL(test, f->ioctx->recv_ioctx);
	KUNIT_EXPECT_EQ(test, atomic_read(&f->ch->cred.req_lim_delta), 1);
	/* back in the pool, once */
	KUNIT_EXPECT_PTR_EQ(test, srpt_pool_get(f->ch), f->ioctx);
	KUNIT_EXPECT_NULL(test, srpt_pool_get(f->ch));
	/* the next response carries it: its own credit plus the aborted one */
	srpt_build_cmd_rsp(f->ch, f->ioctx, 3, SAM_STAT_GOOD);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(rsp->req_lim_delta), 2U);
}

/* Task attributes; reserved values are SIMPLE. */
static const struct srpt_map_row srpt_task_attr_rows[] = {
	{ 0, TCM_SIMPLE_TAG }, { 1, TCM_HEAD_TAG }, { 2, TCM_ORDERED_TAG },
	{ 4, TCM_ACA_TAG },
	{ 3, TCM_SIMPLE_TAG }, { 5, TCM_SIMPLE_TAG }, { 6, TCM_SIMPLE_TAG },
	{ 7, TCM_SIMPLE_TAG }, { 0x80, TCM_SIMPLE_TAG }, { 0xff, TCM_SIMPLE_TAG },
};

KUNIT_ARRAY_PARAM(srpt_task_attr_rows, srpt_task_attr_rows, srpt_map_desc);

static void srpt_task_attr_mapping(struct kunit *test)
{
	const struct srpt_map_row *r = test->param_value;

	KUNIT_EXPECT_EQ(test, srpt_task_attr_to_tcm(r->in), r->out);
}

/* The smallest srp_max_rsp_size holds a task management response. */
static void srpt_rsp_size_min_holds_tmf(struct kunit *test)
{
	struct srpt_rsp_fixture *f = test->priv;
	u8 *buf = f->buf;
	int len;

	memset(buf, SRPT_TEST_POISON, 64);
	f->ch->lim.max_rsp_size = SRPT_MAX_RSP_SIZE_MIN;
	len = srpt_build_tskmgmt_rsp(f->ch, SRP_TSK_MGMT_SUCCESS, f->ioctx, 1);
	KUNIT_EXPECT_LE(test, len, (int)f->ch->lim.max_rsp_size);
	KUNIT_EXPECT_TRUE(test, srpt_test_all_eq(buf + SRPT_MAX_RSP_SIZE_MIN,
						 64 - SRPT_MAX_RSP_SIZE_MIN,
						 SRPT_TEST_POISON));
}

static struct kunit_case srpt_rsp_cases[] = {
	KUNIT_CASE(srpt_rsp_good_status),
	KUNIT_CASE(srpt_rsp_credit_delta),
	KUNIT_CASE(srpt_rsp_credit_once_answered),
	KUNIT_CASE(srpt_rsp_credit_once_aborted),
	KUNIT_CASE(srpt_rsp_check_condition_sense),
	KUNIT_CASE(srpt_rsp_sense_truncated),
	KUNIT_CASE(srpt_rsp_sense_no_room),
	KUNIT_CASE(srpt_rsp_sense_full_buffer),
	KUNIT_CASE(srpt_rsp_sense_ignored_when_good),
	KUNIT_CASE(srpt_rsp_busy_without_sense),
	KUNIT_CASE(srpt_rsp_underflow_data_in),
	KUNIT_CASE(srpt_rsp_overflow_data_in),
	KUNIT_CASE(srpt_rsp_underflow_data_out),
	KUNIT_CASE(srpt_rsp_overflow_data_out),
	KUNIT_CASE(srpt_rsp_no_residual_without_flag),
	KUNIT_CASE(srpt_rsp_residual_and_sense),
	KUNIT_CASE(srpt_rsp_reused_buffer),
	KUNIT_CASE_PARAM(srpt_tsk_rsp_codes, srpt_tsk_codes_gen_params),
	KUNIT_CASE(srpt_tsk_rsp_credits),
	KUNIT_CASE(srpt_tsk_rsp_ignores_cmd_state),
	KUNIT_CASE_PARAM(srpt_tmf_mapping, srpt_tmf_rows_gen_params),
	KUNIT_CASE_PARAM(srpt_task_attr_mapping, srpt_task_attr_rows_gen_params),
	KUNIT_CASE(srpt_rsp_size_min_holds_tmf),
	{}
};

static struct kunit_suite srpt_rsp_suite = {
	.name = "ib_srpt_rsp",
	.init = srpt_rsp_init,
	.test_cases = srpt_rsp_cases,
};

kunit_test_suite(srpt_rsp_suite);
