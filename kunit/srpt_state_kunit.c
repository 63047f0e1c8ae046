// SPDX-License-Identifier: GPL-2.0-only
/*
 * State machines: srpt_set_cmd_state(), srpt_test_and_set_cmd_state() for
 * commands and srpt_set_ch_state() for channels (forward-only).
 */

#include "srpt_kunit.h"

static struct srpt_send_ioctx *srpt_test_ioctx(struct kunit *test,
					       enum srpt_cmd_state state)
{
	struct srpt_send_ioctx *ioctx = kunit_kzalloc(test, sizeof(*ioctx), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, ioctx);
	ioctx->state = state;
	return ioctx;
}

static struct srpt_rdma_ch *srpt_test_ch(struct kunit *test, enum srpt_ch_state state)
{
	struct srpt_rdma_ch *ch = kunit_kzalloc(test, sizeof(*ch), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, ch);
	spin_lock_init(&ch->spinlock);
	ch->state = state;
	return ch;
}

static void srpt_cmd_state_set_returns_previous(struct kunit *test)
{
	struct srpt_send_ioctx *ioctx = srpt_test_ioctx(test, SRPT_CMD_NEW);

	KUNIT_EXPECT_EQ(test, srpt_set_cmd_state(ioctx, SRPT_CMD_WAIT_DATA),
			SRPT_CMD_NEW);
	KUNIT_EXPECT_EQ(test, ioctx->state, SRPT_CMD_WAIT_DATA);
	KUNIT_EXPECT_EQ(test, srpt_set_cmd_state(ioctx, SRPT_CMD_EXECUTING),
			SRPT_CMD_WAIT_DATA);
	KUNIT_EXPECT_EQ(test, srpt_set_cmd_state(ioctx, SRPT_CMD_RSP_POSTED),
			SRPT_CMD_EXECUTING);
	KUNIT_EXPECT_EQ(test, ioctx->state, SRPT_CMD_RSP_POSTED);
	/* Setting the same state again is allowed and reports it. */
	KUNIT_EXPECT_EQ(test, srpt_set_cmd_state(ioctx, SRPT_CMD_RSP_POSTED),
			SRPT_CMD_RSP_POSTED);
}

/* A state may also move "backwards" (TMF after NEW): only FINISHED sticks. */
static void srpt_cmd_state_mgmt_path(struct kunit *test)
{
	struct srpt_send_ioctx *ioctx = srpt_test_ioctx(test, SRPT_CMD_NEW);

	KUNIT_EXPECT_EQ(test, srpt_set_cmd_state(ioctx, SRPT_CMD_TMF), SRPT_CMD_NEW);
	KUNIT_EXPECT_EQ(test, srpt_set_cmd_state(ioctx, SRPT_CMD_TMF_RSP_POSTED),
			SRPT_CMD_TMF);
	KUNIT_EXPECT_EQ(test, srpt_set_cmd_state(ioctx, SRPT_CMD_FINISHED),
			SRPT_CMD_TMF_RSP_POSTED);
	KUNIT_EXPECT_EQ(test, ioctx->state, SRPT_CMD_FINISHED);

	ioctx = srpt_test_ioctx(test, SRPT_CMD_EXECUTING);
	KUNIT_EXPECT_EQ(test, srpt_set_cmd_state(ioctx, SRPT_CMD_WAIT_DATA),
			SRPT_CMD_EXECUTING);
	KUNIT_EXPECT_EQ(test, ioctx->state, SRPT_CMD_WAIT_DATA);
}

static void srpt_cmd_state_done_is_final(struct kunit *test)
{
	struct srpt_send_ioctx *ioctx = srpt_test_ioctx(test, SRPT_CMD_FINISHED);
	enum srpt_cmd_state s;

	for (s = SRPT_CMD_NEW; s <= SRPT_CMD_FINISHED; s++) {
		KUNIT_EXPECT_EQ(test, srpt_set_cmd_state(ioctx, s), SRPT_CMD_FINISHED);
		KUNIT_EXPECT_EQ(test, ioctx->state, SRPT_CMD_FINISHED);
	}
}

static void srpt_cmd_state_test_and_set_match(struct kunit *test)
{
	struct srpt_send_ioctx *ioctx = srpt_test_ioctx(test, SRPT_CMD_WAIT_DATA);

	KUNIT_EXPECT_TRUE(test, srpt_test_and_set_cmd_state(ioctx, SRPT_CMD_WAIT_DATA,
							    SRPT_CMD_EXECUTING));
	KUNIT_EXPECT_EQ(test, ioctx->state, SRPT_CMD_EXECUTING);
	KUNIT_EXPECT_TRUE(test, srpt_test_and_set_cmd_state(ioctx, SRPT_CMD_EXECUTING,
							    SRPT_CMD_FINISHED));
	KUNIT_EXPECT_EQ(test, ioctx->state, SRPT_CMD_FINISHED);
}

static void srpt_cmd_state_test_and_set_mismatch(struct kunit *test)
{
	struct srpt_send_ioctx *ioctx = srpt_test_ioctx(test, SRPT_CMD_NEW);

	KUNIT_EXPECT_FALSE(test, srpt_test_and_set_cmd_state(ioctx, SRPT_CMD_WAIT_DATA,
							     SRPT_CMD_EXECUTING));
	KUNIT_EXPECT_EQ(test, ioctx->state, SRPT_CMD_NEW);
	KUNIT_EXPECT_FALSE(test, srpt_test_and_set_cmd_state(ioctx, SRPT_CMD_TMF,
							     SRPT_CMD_TMF_RSP_POSTED));
	KUNIT_EXPECT_EQ(test, ioctx->state, SRPT_CMD_NEW);

	ioctx = srpt_test_ioctx(test, SRPT_CMD_FINISHED);
	KUNIT_EXPECT_FALSE(test, srpt_test_and_set_cmd_state(ioctx, SRPT_CMD_WAIT_DATA,
							     SRPT_CMD_EXECUTING));
	KUNIT_EXPECT_EQ(test, ioctx->state, SRPT_CMD_FINISHED);
}

/* Two racing completions: exactly one of them wins. */
static void srpt_cmd_state_test_and_set_once(struct kunit *test)
{
	struct srpt_send_ioctx *ioctx = srpt_test_ioctx(test, SRPT_CMD_RSP_POSTED);

	KUNIT_EXPECT_TRUE(test, srpt_test_and_set_cmd_state(ioctx, SRPT_CMD_RSP_POSTED,
							    SRPT_CMD_FINISHED));
	KUNIT_EXPECT_FALSE(test, srpt_test_and_set_cmd_state(ioctx, SRPT_CMD_RSP_POSTED,
							     SRPT_CMD_FINISHED));
	KUNIT_EXPECT_EQ(test, ioctx->state, SRPT_CMD_FINISHED);
}

static void srpt_ch_state_forward(struct kunit *test)
{
	struct srpt_rdma_ch *ch = srpt_test_ch(test, SRPT_CH_LOGGING_IN);

	KUNIT_EXPECT_TRUE(test, srpt_set_ch_state(ch, SRPT_CH_LIVE));
	KUNIT_EXPECT_EQ(test, ch->state, SRPT_CH_LIVE);
	KUNIT_EXPECT_TRUE(test, srpt_set_ch_state(ch, SRPT_CH_DRAINING));
	KUNIT_EXPECT_EQ(test, ch->state, SRPT_CH_DRAINING);
	KUNIT_EXPECT_TRUE(test, srpt_set_ch_state(ch, SRPT_CH_DRAINED));
	KUNIT_EXPECT_EQ(test, ch->state, SRPT_CH_DRAINED);
}

static void srpt_ch_state_skip_ahead(struct kunit *test)
{
	struct srpt_rdma_ch *ch = srpt_test_ch(test, SRPT_CH_LOGGING_IN);

	KUNIT_EXPECT_TRUE(test, srpt_set_ch_state(ch, SRPT_CH_DRAINING));
	KUNIT_EXPECT_EQ(test, ch->state, SRPT_CH_DRAINING);

	ch = srpt_test_ch(test, SRPT_CH_LIVE);
	KUNIT_EXPECT_TRUE(test, srpt_set_ch_state(ch, SRPT_CH_DRAINED));
	KUNIT_EXPECT_EQ(test, ch->state, SRPT_CH_DRAINED);
}

static void srpt_ch_state_never_backwards(struct kunit *test)
{
	struct srpt_rdma_ch *ch = srpt_test_ch(test, SRPT_CH_DRAINING);

	KUNIT_EXPECT_FALSE(test, srpt_set_ch_state(ch, SRPT_CH_LIVE));
	KUNIT_EXPECT_EQ(test, ch->state, SRPT_CH_DRAINING);
	KUNIT_EXPECT_FALSE(test, srpt_set_ch_state(ch, SRPT_CH_LOGGING_IN));
	KUNIT_EXPECT_EQ(test, ch->state, SRPT_CH_DRAINING);
}

/* Repeating the current state is not a change (a second DREQ, say). */
static void srpt_ch_state_same_is_no_change(struct kunit *test)
{
	struct srpt_rdma_ch *ch = srpt_test_ch(test, SRPT_CH_LIVE);

	KUNIT_EXPECT_FALSE(test, srpt_set_ch_state(ch, SRPT_CH_LIVE));
	KUNIT_EXPECT_EQ(test, ch->state, SRPT_CH_LIVE);
	KUNIT_EXPECT_TRUE(test, srpt_set_ch_state(ch, SRPT_CH_DRAINING));
	KUNIT_EXPECT_FALSE(test, srpt_set_ch_state(ch, SRPT_CH_DRAINING));
	KUNIT_EXPECT_EQ(test, ch->state, SRPT_CH_DRAINING);
}

static void srpt_ch_state_disconnected_is_final(struct kunit *test)
{
	struct srpt_rdma_ch *ch = srpt_test_ch(test, SRPT_CH_DRAINED);
	enum srpt_ch_state s;

	for (s = SRPT_CH_LOGGING_IN; s <= SRPT_CH_DRAINED; s++) {
		KUNIT_EXPECT_FALSE(test, srpt_set_ch_state(ch, s));
		KUNIT_EXPECT_EQ(test, ch->state, SRPT_CH_DRAINED);
	}
}

static struct kunit_case srpt_state_cases[] = {
	KUNIT_CASE(srpt_cmd_state_set_returns_previous),
	KUNIT_CASE(srpt_cmd_state_mgmt_path),
	KUNIT_CASE(srpt_cmd_state_done_is_final),
	KUNIT_CASE(srpt_cmd_state_test_and_set_match),
	KUNIT_CASE(srpt_cmd_state_test_and_set_mismatch),
	KUNIT_CASE(srpt_cmd_state_test_and_set_once),
	KUNIT_CASE(srpt_ch_state_forward),
	KUNIT_CASE(srpt_ch_state_skip_ahead),
	KUNIT_CASE(srpt_ch_state_never_backwards),
	KUNIT_CASE(srpt_ch_state_same_is_no_change),
	KUNIT_CASE(srpt_ch_state_disconnected_is_final),
	{}
};

static struct kunit_suite srpt_state_suite = {
	.name = "ib_srpt_state",
	.test_cases = srpt_state_cases,
};

kunit_test_suite(srpt_state_suite);
