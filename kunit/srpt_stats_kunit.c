// SPDX-License-Identifier: GPL-2.0-only
/*
 * The per-channel counters behind the ACL's info: credits returned, the
 * high-water marks, and the lines themselves.
 */

#include "srpt_kunit.h"

/* Credits handed back are counted; a failed post takes them back out. */
static void srpt_stats_credits_returned(struct kunit *test)
{
	struct srpt_test_ch *f = test->priv;
	s32 delta;

	int i;

	f->ch->lim.rq_size = 8;
	srpt_test_set_credits(f->ch, 8);
	for (i = 0; i < 8; i++)
		KUNIT_EXPECT_TRUE(test, srpt_credit_take(f->ch));
	/* beyond the credits: refused, and nothing counted */
	KUNIT_EXPECT_FALSE(test, srpt_credit_take(f->ch));
	KUNIT_EXPECT_EQ(test, srpt_credits_held(f->ch), 0);
	KUNIT_EXPECT_EQ(test, srpt_ch_credits_returned(f->ch), 0);
	atomic_set(&f->ch->cred.req_lim_delta, 4);
	delta = srpt_credit_delta(f->ch);
	KUNIT_EXPECT_EQ(test, srpt_ch_credits_returned(f->ch), 5);
	srpt_credit_undo(f->ch, delta);
	KUNIT_EXPECT_EQ(test, srpt_ch_credits_returned(f->ch), 0);
	srpt_credit_delta(f->ch);
	srpt_credit_delta(f->ch);
	KUNIT_EXPECT_EQ(test, srpt_ch_credits_returned(f->ch), 7);
}

/* A high-water mark only rises. */
static void srpt_stats_max_only_rises(struct kunit *test)
{
	atomic_t hwm = ATOMIC_INIT(0);

	srpt_stat_max(&hwm, 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&hwm), 3);
	srpt_stat_max(&hwm, 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&hwm), 3);
	srpt_stat_max(&hwm, 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&hwm), 3);
	srpt_stat_max(&hwm, 9);
	KUNIT_EXPECT_EQ(test, atomic_read(&hwm), 9);
	srpt_stat_max(&hwm, -1);
	KUNIT_EXPECT_EQ(test, atomic_read(&hwm), 9);
}

/*
 * The send queue high-water mark is the most RDMA work requests reserved
 * at once; a reservation that waits or can never fit does not count.
 */
static void srpt_stats_sq_hwm(struct kunit *test)
{
	struct srpt_test_ch *f = test->priv;

	KUNIT_ASSERT_EQ(test, srpt_test_reserve(f, 0, 4), SRPT_SQ_RESERVED);
	KUNIT_EXPECT_EQ(test, atomic_read(&f->ch->stats.sq_hwm), 4);
	KUNIT_ASSERT_EQ(test, srpt_test_reserve(f, 1, 5), SRPT_SQ_RESERVED);
	KUNIT_EXPECT_EQ(test, atomic_read(&f->ch->stats.sq_hwm), 9);
	KUNIT_EXPECT_EQ(test, srpt_test_reserve(f, 2, 2), SRPT_SQ_WAITING);
	KUNIT_EXPECT_EQ(test, srpt_test_reserve(f, 3, SRPT_TEST_SQ_WRS + 1),
			SRPT_SQ_TOO_BIG);
	KUNIT_EXPECT_EQ(test, atomic_read(&f->ch->stats.sq_hwm), 9);
	/* The first transfer completes; the waiter starts: 5 + 2 in use. */
	atomic_add(4, &f->ch->sq.wr_avail);
	KUNIT_EXPECT_PTR_EQ(test, srpt_sq_pop_ready(f->ch), f->io[2]);
	KUNIT_EXPECT_EQ(test, atomic_read(&f->ch->stats.sq_hwm), 9);
	/* Everything in use at once. */
	KUNIT_ASSERT_EQ(test, srpt_test_reserve(f, 0, 3), SRPT_SQ_RESERVED);
	KUNIT_EXPECT_EQ(test, atomic_read(&f->ch->stats.sq_hwm), SRPT_TEST_SQ_WRS);
}

/*
 * The counters in the ACL's info: values as set, and none of the words
 * rtslib keys on, so targetcli still sees one connection per channel.
 */
static void srpt_stats_info_lines(struct kunit *test)
{
	static const char * const want[] = {
		"\n   Failed commands: 2  Dropped: 1  Aborts: 3\n",
		"\n   Credits granted: 128  returned: 7  held by initiator: 120\n",
		"\n   Send queue high-water: 5 of 10 RDMA WRs  Receive high-water: ",
		"  Receive high-water: 9 of 128 requests\n",
	};
	struct srpt_test_ch *f = test->priv;
	struct srpt_rdma_ch *ch = f->ch;
	char *page = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	int i, len;

	KUNIT_ASSERT_NOT_NULL(test, page);
	KUNIT_ASSERT_TRUE(test, IS_ALIGNED((unsigned long)page, PAGE_SIZE));
	ch->lim.rq_size = 128;
	atomic64_set(&ch->stats.failed, 2);
	atomic64_set(&ch->stats.dropped, 1);
	atomic64_set(&ch->stats.aborts, 3);
	/* 120 held = 128 granted - 15 taken + 7 returned */
	ch->stats.credits_taken = 15;
	srpt_test_set_credits(ch, 120);
	atomic_set(&ch->stats.sq_hwm, 5);
	atomic_set(&ch->stats.rq_hwm, 9);
	strscpy(page, "x\n", PAGE_SIZE);
	len = srpt_ch_stats_show(ch, page, 2);
	KUNIT_EXPECT_EQ(test, len, (int)strlen(page) - 2);
	KUNIT_EXPECT_TRUE(test, str_has_prefix(page, "x\n   Failed commands: "));
	for (i = 0; i < ARRAY_SIZE(want); i++)
		KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(page, want[i]), "%s", want[i]);
	KUNIT_EXPECT_NULL(test, strstr(page, "Address"));
	KUNIT_EXPECT_NULL(test, strstr(page, "_STATE_"));
	KUNIT_EXPECT_NULL(test, strstr(page, "Initiator"));
	KUNIT_EXPECT_NULL(test, strstr(page, "LIO Session ID"));
}

static struct kunit_case srpt_stats_cases[] = {
	KUNIT_CASE(srpt_stats_credits_returned),
	KUNIT_CASE(srpt_stats_max_only_rises),
	KUNIT_CASE(srpt_stats_sq_hwm),
	KUNIT_CASE(srpt_stats_info_lines),
	{}
};

static struct kunit_suite srpt_stats_suite = {
	.name = "ib_srpt_stats",
	.init = srpt_test_ch_init,
	.test_cases = srpt_stats_cases,
};

kunit_test_suite(srpt_stats_suite);
