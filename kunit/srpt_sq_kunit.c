// SPDX-License-Identifier: GPL-2.0-only
/*
 * The send queue budget: reservations in arrival order (srpt_sq_reserve(),
 * srpt_sq_pop_ready()), the RDMA WRs a transfer needs, the state after the
 * release cancelled the transfers, and the entries of unsignaled responses.
 */

#include "srpt_kunit.h"

/* What fits is reserved; what never can is refused without waiting. */
static void srpt_sq_reserve_fits(struct kunit *test)
{
	struct srpt_test_ch *f = test->priv;

	KUNIT_EXPECT_EQ(test, srpt_test_reserve(f, 0, 4), SRPT_SQ_RESERVED);
	KUNIT_EXPECT_EQ(test, atomic_read(&f->ch->sq.wr_avail), 6);
	KUNIT_EXPECT_EQ(test, srpt_test_reserve(f, 1, SRPT_TEST_SQ_WRS + 1),
			SRPT_SQ_TOO_BIG);
	KUNIT_EXPECT_EQ(test, atomic_read(&f->ch->sq.wr_avail), 6);
	KUNIT_EXPECT_TRUE(test, list_empty(&f->ch->sq.wait_list));
	KUNIT_EXPECT_EQ(test, srpt_test_reserve(f, 2, 6), SRPT_SQ_RESERVED);
	KUNIT_EXPECT_EQ(test, atomic_read(&f->ch->sq.wr_avail), 0);
}

/*
 * A transfer that does not fit waits, and so does a later small one that
 * would fit (first come, first served); returned space starts them in
 * order, each only when it fits.
 */
static void srpt_sq_reserve_waits_in_order(struct kunit *test)
{
	struct srpt_test_ch *f = test->priv;

	KUNIT_ASSERT_EQ(test, srpt_test_reserve(f, 0, 6), SRPT_SQ_RESERVED);
	KUNIT_EXPECT_EQ(test, srpt_test_reserve(f, 1, 7), SRPT_SQ_WAITING);
	KUNIT_EXPECT_EQ(test, srpt_test_reserve(f, 2, 1), SRPT_SQ_WAITING);
	KUNIT_EXPECT_EQ(test, atomic_read(&f->ch->sq.wr_avail), 4);
	KUNIT_EXPECT_PTR_EQ(test, srpt_sq_pop_ready(f->ch),
			    (struct srpt_send_ioctx *)NULL);

	/* The first transfer completes. */
	atomic_add(6, &f->ch->sq.wr_avail);
	KUNIT_EXPECT_PTR_EQ(test, srpt_sq_pop_ready(f->ch), f->io[1]);
	KUNIT_EXPECT_EQ(test, atomic_read(&f->ch->sq.wr_avail), 3);
	KUNIT_EXPECT_PTR_EQ(test, srpt_sq_pop_ready(f->ch), f->io[2]);
	KUNIT_EXPECT_EQ(test, atomic_read(&f->ch->sq.wr_avail), 2);
	KUNIT_EXPECT_PTR_EQ(test, srpt_sq_pop_ready(f->ch),
			    (struct srpt_send_ioctx *)NULL);
	KUNIT_EXPECT_TRUE(test, list_empty(&f->ch->sq.wait_list));
}

/*
 * With a work request of its own per send context, a one-WR transfer takes
 * nothing shared and owes nothing back (n_rdma 0), even while the shared
 * budget is used up and larger transfers wait for it; larger ones still
 * take from it, in order.
 */
static void srpt_sq_reserve_own_wr(struct kunit *test)
{
	struct srpt_test_ch *f = test->priv;

	f->ch->lim.ctx_rdma_wr = true;
	KUNIT_ASSERT_EQ(test, srpt_test_reserve(f, 0, SRPT_TEST_SQ_WRS),
			SRPT_SQ_RESERVED);
	KUNIT_EXPECT_EQ(test, f->io[0]->n_rdma, SRPT_TEST_SQ_WRS);
	KUNIT_EXPECT_EQ(test, srpt_test_reserve(f, 1, 2), SRPT_SQ_WAITING);
	KUNIT_EXPECT_EQ(test, srpt_test_reserve(f, 2, 1), SRPT_SQ_RESERVED);
	KUNIT_EXPECT_EQ(test, f->io[2]->n_rdma, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&f->ch->sq.wr_avail), 0);
	KUNIT_EXPECT_EQ(test, srpt_test_reserve(f, 3, 1), SRPT_SQ_RESERVED);
	KUNIT_EXPECT_EQ(test, f->io[3]->n_rdma, 0);

	/* The large transfer completes: the waiting one starts. */
	atomic_add(SRPT_TEST_SQ_WRS, &f->ch->sq.wr_avail);
	KUNIT_EXPECT_PTR_EQ(test, srpt_sq_pop_ready(f->ch), f->io[1]);
	KUNIT_EXPECT_EQ(test, f->io[1]->n_rdma, 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&f->ch->sq.wr_avail),
			SRPT_TEST_SQ_WRS - 2);

	/* Without own work requests a one-WR transfer takes from the budget. */
	f->ch->lim.ctx_rdma_wr = false;
	KUNIT_EXPECT_EQ(test, srpt_test_reserve(f, 2, 1), SRPT_SQ_RESERVED);
	KUNIT_EXPECT_EQ(test, f->io[2]->n_rdma, 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&f->ch->sq.wr_avail),
			SRPT_TEST_SQ_WRS - 3);
}

/* The whole budget can be used, and comes back complete. */
static void srpt_sq_reserve_whole_queue(struct kunit *test)
{
	struct srpt_test_ch *f = test->priv;

	KUNIT_ASSERT_EQ(test, srpt_test_reserve(f, 0, SRPT_TEST_SQ_WRS),
			SRPT_SQ_RESERVED);
	KUNIT_EXPECT_EQ(test, srpt_test_reserve(f, 1, 1), SRPT_SQ_WAITING);
	atomic_add(SRPT_TEST_SQ_WRS, &f->ch->sq.wr_avail);
	KUNIT_EXPECT_PTR_EQ(test, srpt_sq_pop_ready(f->ch), f->io[1]);
	atomic_add(1, &f->ch->sq.wr_avail);
	KUNIT_EXPECT_EQ(test, atomic_read(&f->ch->sq.wr_avail), SRPT_TEST_SQ_WRS);
}

/*
 * The send queue always has room for one largest transfer. The expected
 * values are worked out by hand: 4 KiB pages, at most 16 SGEs per RDMA
 * work request (the driver's own cap, below the HCA's 32), 16 work
 * requests of slack, and the default srp_max_rdma_size of 16 MiB.
 */
static void srpt_sq_rdma_wrs_for(struct kunit *test)
{
	struct ib_device_attr attrs = {
		.max_send_sge = 32,
		.max_sge_rd = 32,
	};

	KUNIT_ASSERT_EQ_MSG(test, PAGE_SIZE, 4096UL,
			    "the literals below assume 4 KiB pages");

	/* 16 MiB = 4096 pages; 16 SGEs each: 4096 / 16 = 256, + 16 = 272. */
	KUNIT_EXPECT_EQ(test, srpt_rdma_wrs_for(&attrs, SZ_16M), 272U);
	/* One byte more is a 4097th page: ceil(4097 / 16) = 257, + 16. */
	KUNIT_EXPECT_EQ(test, srpt_rdma_wrs_for(&attrs, SZ_16M + 1), 273U);
	/* 64 KiB + 1 byte = 17 pages: ceil(17 / 16) = 2, + 16 = 18. */
	KUNIT_EXPECT_EQ(test, srpt_rdma_wrs_for(&attrs, SZ_64K + 1), 18U);

	/* One SGE per RDMA READ: 4096 work requests, + 16 = 4112. */
	attrs.max_sge_rd = 1;
	KUNIT_EXPECT_EQ(test, srpt_rdma_wrs_for(&attrs, SZ_16M), 4112U);

	/* Not reported: the send SGE limit (16 of 32) holds: 1 + 16 = 17. */
	attrs.max_sge_rd = 0;
	KUNIT_EXPECT_EQ(test, srpt_rdma_wrs_for(&attrs, 1), 17U);
	KUNIT_EXPECT_EQ(test, srpt_rdma_wrs_for(&attrs, SZ_16M), 272U);

	/* 6 send SGEs: ceil(4096 / 6) = 683 (6 * 682 = 4092), + 16 = 699. */
	attrs.max_send_sge = 6;
	KUNIT_EXPECT_EQ(test, srpt_rdma_wrs_for(&attrs, SZ_16M), 699U);
}

/*
 * Once the release has cancelled the transfers, a command that reaches
 * the send queue must not wait on it: nobody would wake it.
 */
static void srpt_sq_reserve_after_cancel(struct kunit *test)
{
	struct srpt_test_ch *f = test->priv;

	KUNIT_EXPECT_EQ(test, srpt_test_reserve(f, 0, SRPT_TEST_SQ_WRS),
			SRPT_SQ_RESERVED);
	srpt_cancel_xfers(f->ch, &f->ch->sq.wait_list);
	KUNIT_EXPECT_EQ(test, srpt_test_reserve(f, 1, 4), SRPT_SQ_CLOSED);
	KUNIT_EXPECT_TRUE(test, list_empty(&f->ch->sq.wait_list));
	srpt_sq_release(f->ch, SRPT_TEST_SQ_WRS);
	KUNIT_EXPECT_EQ(test, srpt_test_reserve(f, 2, 1), SRPT_SQ_CLOSED);
	KUNIT_EXPECT_EQ(test, atomic_read(&f->ch->sq.wr_avail), SRPT_TEST_SQ_WRS);
}

/*
 * Unsignaled responses: at most SRPT_UNSIG_RSP_MAX may occupy the send
 * queue before a signaled completion proves them done; then the next one
 * is signaled (the take fails) and its completion frees the entries.
 */
static void srpt_sq_unsig_bounded(struct kunit *test)
{
	struct srpt_test_ch *f = test->priv;
	struct srpt_rdma_ch *ch = f->ch;
	u32 snap;
	int i;

	atomic_set(&ch->sq.unsig_avail, SRPT_UNSIG_RSP_MAX);
	for (i = 0; i < SRPT_UNSIG_RSP_MAX; i++) {
		KUNIT_ASSERT_TRUE(test, srpt_unsig_take(ch));
		srpt_unsig_posted(ch);
	}
	KUNIT_EXPECT_FALSE(test, srpt_unsig_take(ch));
	KUNIT_EXPECT_EQ(test, atomic_read(&ch->sq.unsig_avail), 0);

	/* The response that found no entry is signaled. */
	snap = srpt_unsig_snapshot(ch);
	KUNIT_EXPECT_EQ(test, snap, (u32)SRPT_UNSIG_RSP_MAX);
	srpt_unsig_retire(ch, snap);
	KUNIT_EXPECT_EQ(test, atomic_read(&ch->sq.unsig_avail), SRPT_UNSIG_RSP_MAX);
	KUNIT_EXPECT_TRUE(test, srpt_unsig_take(ch));
}

/*
 * Completions of signaled responses processed out of order, or twice for
 * the same snapshot, never free an entry twice: the count of free entries
 * never exceeds SRPT_UNSIG_RSP_MAX.
 */
static void srpt_sq_unsig_retire_once(struct kunit *test)
{
	struct srpt_test_ch *f = test->priv;
	struct srpt_rdma_ch *ch = f->ch;
	u32 early, late;
	int i;

	atomic_set(&ch->sq.unsig_avail, SRPT_UNSIG_RSP_MAX);
	for (i = 0; i < 3; i++) {
		KUNIT_ASSERT_TRUE(test, srpt_unsig_take(ch));
		srpt_unsig_posted(ch);
	}
	early = srpt_unsig_snapshot(ch);
	for (i = 0; i < 2; i++) {
		KUNIT_ASSERT_TRUE(test, srpt_unsig_take(ch));
		srpt_unsig_posted(ch);
	}
	late = srpt_unsig_snapshot(ch);
	KUNIT_EXPECT_EQ(test, atomic_read(&ch->sq.unsig_avail), SRPT_UNSIG_RSP_MAX - 5);

	srpt_unsig_retire(ch, late);
	KUNIT_EXPECT_EQ(test, atomic_read(&ch->sq.unsig_avail), SRPT_UNSIG_RSP_MAX);
	srpt_unsig_retire(ch, early);
	srpt_unsig_retire(ch, late);
	KUNIT_EXPECT_EQ(test, atomic_read(&ch->sq.unsig_avail), SRPT_UNSIG_RSP_MAX);
}

/* The running counts may wrap: retiring across the wrap frees the difference. */
static void srpt_sq_unsig_retire_wraps(struct kunit *test)
{
	struct srpt_test_ch *f = test->priv;
	struct srpt_rdma_ch *ch = f->ch;

	atomic_set(&ch->sq.unsig_avail, SRPT_UNSIG_RSP_MAX - 4);
	atomic_set(&ch->sq.unsig_retired, (int)(U32_MAX - 1));
	srpt_unsig_retire(ch, 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&ch->sq.unsig_avail), SRPT_UNSIG_RSP_MAX);
	KUNIT_EXPECT_EQ(test, (u32)atomic_read(&ch->sq.unsig_retired), 2U);
}

static struct kunit_case srpt_sq_cases[] = {
	KUNIT_CASE(srpt_sq_reserve_fits),
	KUNIT_CASE(srpt_sq_reserve_waits_in_order),
	KUNIT_CASE(srpt_sq_reserve_whole_queue),
	KUNIT_CASE(srpt_sq_reserve_own_wr),
	KUNIT_CASE(srpt_sq_rdma_wrs_for),
	KUNIT_CASE(srpt_sq_reserve_after_cancel),
	KUNIT_CASE(srpt_sq_unsig_bounded),
	KUNIT_CASE(srpt_sq_unsig_retire_once),
	KUNIT_CASE(srpt_sq_unsig_retire_wraps),
	{}
};

static struct kunit_suite srpt_sq_suite = {
	.name = "ib_srpt_sq",
	.init = srpt_test_ch_init,
	.test_cases = srpt_sq_cases,
};

kunit_test_suite(srpt_sq_suite);
