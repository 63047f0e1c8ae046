// SPDX-License-Identifier: GPL-2.0-only
/*
 * Under load: send queue reservation (srpt_sq_reserve(),
 * srpt_sq_pop_ready()), the entries of unsignaled responses, which IUs
 * take a credit, credits of a response that could not be posted, the
 * data length limit of a command, the
 * smallest response size, the per-channel counters of the ACL's info, the
 * IUs the target sends on its own (SRP_T_LOGOUT, SRP_CRED_REQ) and the
 * SRP_CRED_RSP it expects.
 */

#include <linux/kthread.h>
#include "srpt_kunit.h"

#define SRPT_TEST_SQ_WRS	10

struct srpt_load_fixture {
	struct srpt_rdma_ch *ch;
	struct srpt_send_ioctx *io[4];
};

static int srpt_load_init(struct kunit *test)
{
	struct srpt_load_fixture *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	int i;

	if (!f)
		return -ENOMEM;
	f->ch = kunit_kzalloc(test, sizeof(*f->ch), GFP_KERNEL);
	if (!f->ch)
		return -ENOMEM;
	kref_init(&f->ch->kref);
	spin_lock_init(&f->ch->spinlock);
	INIT_LIST_HEAD(&f->ch->sq.wait_list);
	f->ch->lim.sq_rdma_wrs = SRPT_TEST_SQ_WRS;
	atomic_set(&f->ch->sq.wr_avail, SRPT_TEST_SQ_WRS);
	f->ch->lim.max_data_len = SRPT_MAX_RDMA_SIZE_DEFAULT;
	for (i = 0; i < ARRAY_SIZE(f->io); i++) {
		f->io[i] = kunit_kzalloc(test, sizeof(*f->io[i]), GFP_KERNEL);
		if (!f->io[i])
			return -ENOMEM;
		f->io[i]->ch = f->ch;
		INIT_LIST_HEAD(&f->io[i]->sq_wait);
	}
	test->priv = f;
	return 0;
}

static enum srpt_sq_verdict srpt_test_reserve(struct srpt_load_fixture *f,
					      int i, u32 n_rdma)
{
	f->io[i]->n_rdma = n_rdma;
	return srpt_sq_reserve(f->ch, f->io[i]);
}

/* What fits is reserved; what never can is refused without waiting. */
static void srpt_sq_reserve_fits(struct kunit *test)
{
	struct srpt_load_fixture *f = test->priv;

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
	struct srpt_load_fixture *f = test->priv;

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
	struct srpt_load_fixture *f = test->priv;

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
	struct srpt_load_fixture *f = test->priv;

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

/* Only SRP_CMD and SRP_TSK_MGMT count against the request limit. */
static const struct {
	u8 opcode;
	bool takes;
} srpt_credit_rows[] = {
	{ SRP_CMD, true }, { SRP_TSK_MGMT, true },
	{ SRP_CRED_RSP, false }, { SRP_AER_RSP, false }, { SRP_I_LOGOUT, false },
	{ SRP_RSP, false }, { SRP_LOGIN_REQ, false }, { 0x77, false }, { 0xff, false },
};

static void srpt_credit_row_desc(typeof(srpt_credit_rows[0]) *r, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "opcode %#x", r->opcode);
}

KUNIT_ARRAY_PARAM(srpt_credit_rows, srpt_credit_rows, srpt_credit_row_desc);

static void srpt_credit_takers(struct kunit *test)
{
	typeof(srpt_credit_rows[0]) *r = test->param_value;

	KUNIT_EXPECT_EQ(test, srpt_iu_takes_credit(&r->opcode, 64), r->takes);
	/* Too short for its type: still a request, still a credit. */
	if (r->takes)
		KUNIT_EXPECT_TRUE(test, srpt_iu_takes_credit(&r->opcode, 1));
	/* Nothing received takes nothing. */
	KUNIT_EXPECT_FALSE(test, srpt_iu_takes_credit(&r->opcode, 0));
}

/* A response whose post failed gives its credits back for the next one. */
static void srpt_credit_undo_after_failed_post(struct kunit *test)
{
	struct srpt_load_fixture *f = test->priv;
	s32 delta;

	srpt_test_set_credits(f->ch, 3);
	atomic_set(&f->ch->cred.req_lim_delta, 4);
	delta = srpt_credit_delta(f->ch);
	KUNIT_EXPECT_EQ(test, delta, 5);
	KUNIT_EXPECT_EQ(test, srpt_credits_held(f->ch), 8);
	srpt_credit_undo(f->ch, delta);
	KUNIT_EXPECT_EQ(test, srpt_credits_held(f->ch), 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&f->ch->cred.req_lim_delta), 5);
	/* The next response carries them all: none lost, none doubled. */
	KUNIT_EXPECT_EQ(test, srpt_credit_delta(f->ch), 6);
	KUNIT_EXPECT_EQ(test, srpt_credits_held(f->ch), 9);
}

/* Credits handed back are counted; a failed post takes them back out. */
static void srpt_stats_credits_returned(struct kunit *test)
{
	struct srpt_load_fixture *f = test->priv;
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

/*
 * Credits, from two threads at once: this one is the receive side, the only
 * one that takes (srpt_credit_take(), no atomic instruction), a kthread
 * answers each request it is handed with a response's credit
 * (srpt_credit_delta()). A take never succeeds beyond what was granted,
 * and at the end exactly the login's credits are held again.
 */
#define SRPT_CRED_LIMIT		4
#define SRPT_CRED_ROUNDS	2000

struct srpt_cred_race {
	struct srpt_rdma_ch	*ch;
	atomic_t		owed;		/* requests not yet answered */
	atomic_t		granted;	/* counted before each grant */
	atomic_t		done;
	struct completion	exited;
};

static int srpt_cred_responder(void *arg)
{
	struct srpt_cred_race *r = arg;

	for (;;) {
		if (atomic_add_unless(&r->owed, -1, 0)) {
			atomic_inc(&r->granted);
			/* counted before the grant can be seen */
			smp_mb__after_atomic();
			srpt_credit_delta(r->ch);
			continue;
		}
		if (atomic_read(&r->done))
			break;
		usleep_range(5, 20);
	}
	complete(&r->exited);
	return 0;
}

static void srpt_credits_two_threads(struct kunit *test)
{
	struct srpt_cred_race *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	unsigned long over = 0, spins = 0;
	const u64 start = U32_MAX - SRPT_CRED_ROUNDS / 2;
	struct task_struct *t;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, r);
	r->ch = kunit_kzalloc(test, sizeof(*r->ch), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r->ch);
	r->ch->lim.rq_size = SRPT_CRED_LIMIT;
	/* counts about to wrap: the 32-bit difference must not care */
	r->ch->stats.credits_taken = start;
	srpt_test_set_credits(r->ch, SRPT_CRED_LIMIT);
	init_completion(&r->exited);
	t = kthread_run(srpt_cred_responder, r, "srpt-cred-test");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));

	for (i = 0; i < SRPT_CRED_ROUNDS; ) {
		if (!srpt_credit_take(r->ch)) {
			spins++;
			usleep_range(5, 20);
			continue;
		}
		i++;
		if (i > SRPT_CRED_LIMIT + atomic_read(&r->granted))
			over++;
		atomic_inc(&r->owed);
	}
	while (atomic_read(&r->owed))
		usleep_range(5, 20);
	atomic_set(&r->done, 1);
	KUNIT_ASSERT_GT(test, wait_for_completion_timeout(&r->exited, 30 * HZ), 0UL);

	KUNIT_EXPECT_EQ(test, over, 0UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->granted), SRPT_CRED_ROUNDS);
	KUNIT_EXPECT_EQ(test, srpt_credits_held(r->ch), SRPT_CRED_LIMIT);
	/* derived from the count taken, which started at @start here */
	KUNIT_EXPECT_EQ(test, srpt_ch_credits_returned(r->ch),
			(s64)(start + SRPT_CRED_ROUNDS));
	for (i = 0; i < SRPT_CRED_LIMIT; i++)
		KUNIT_EXPECT_TRUE(test, srpt_credit_take(r->ch));
	KUNIT_EXPECT_FALSE(test, srpt_credit_take(r->ch));
	KUNIT_EXPECT_EQ(test, srpt_credits_held(r->ch), 0);
	kunit_info(test, "%d requests, %lu refused looks", SRPT_CRED_ROUNDS, spins);
}

/*
 * The send-context pool, driven from two threads at once: this one takes
 * contexts (the receive side), a kthread gives them back (completions).
 * No context may be handed out while in use, and at the end every one is
 * back exactly once.
 */
#define SRPT_POOL_CTXS		8
#define SRPT_POOL_ROUNDS	2000

struct srpt_pool_race {
	struct srpt_rdma_ch	*ch;
	struct srpt_send_ioctx	*io[SRPT_POOL_CTXS];
	atomic_t		in_use[SRPT_POOL_CTXS];
	spinlock_t		lock;	/* the hand-over ring of the test */
	struct srpt_send_ioctx	*ring[SRPT_POOL_CTXS];
	unsigned int		head, tail;
	bool			done;
	unsigned long		returned;
	struct completion	exited;
};

static int srpt_pool_returner(void *arg)
{
	struct srpt_pool_race *r = arg;
	struct srpt_send_ioctx *io;
	bool done;

	for (;;) {
		io = NULL;
		spin_lock(&r->lock);
		if (r->head != r->tail)
			io = r->ring[r->tail++ % SRPT_POOL_CTXS];
		done = r->done;
		spin_unlock(&r->lock);
		if (!io) {
			if (done)
				break;
			cond_resched();
			continue;
		}
		atomic_set(&r->in_use[io->ioctx.index], 0);
		srpt_pool_put(r->ch, io);
		r->returned++;
	}
	complete(&r->exited);
	return 0;
}

static void srpt_pool_two_threads(struct kunit *test)
{
	struct srpt_pool_race *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	struct task_struct *t;
	struct srpt_send_ioctx *io;
	unsigned long i, doubled = 0, spins = 0;
	int n, seen = 0;

	KUNIT_ASSERT_NOT_NULL(test, r);
	r->ch = kunit_kzalloc(test, sizeof(*r->ch), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r->ch);
	init_llist_head(&r->ch->io.free_ret);
	spin_lock_init(&r->lock);
	init_completion(&r->exited);
	for (n = 0; n < SRPT_POOL_CTXS; n++) {
		r->io[n] = kunit_kzalloc(test, sizeof(*r->io[n]), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, r->io[n]);
		r->io[n]->ioctx.index = n;
		r->io[n]->ch = r->ch;
		srpt_pool_put(r->ch, r->io[n]);
	}
	t = kthread_run(srpt_pool_returner, r, "srpt-pool-test");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));

	for (i = 0; i < SRPT_POOL_ROUNDS; ) {
		io = srpt_pool_get(r->ch);
		if (!io) {
			spins++;
			cond_resched();
			continue;
		}
		if (atomic_xchg(&r->in_use[io->ioctx.index], 1))
			doubled++;
		spin_lock(&r->lock);
		r->ring[r->head++ % SRPT_POOL_CTXS] = io;
		spin_unlock(&r->lock);
		i++;
	}
	spin_lock(&r->lock);
	r->done = true;
	spin_unlock(&r->lock);
	KUNIT_ASSERT_GT(test, wait_for_completion_timeout(&r->exited, 30 * HZ), 0UL);

	KUNIT_EXPECT_EQ(test, doubled, 0UL);
	KUNIT_EXPECT_EQ(test, r->returned, (unsigned long)SRPT_POOL_ROUNDS);
	while ((io = srpt_pool_get(r->ch))) {
		KUNIT_EXPECT_EQ(test, atomic_xchg(&r->in_use[io->ioctx.index], 1), 0);
		seen++;
		if (seen > SRPT_POOL_CTXS)
			break;
	}
	KUNIT_EXPECT_EQ(test, seen, SRPT_POOL_CTXS);
	kunit_info(test, "%d rounds, %lu empty looks", SRPT_POOL_ROUNDS, spins);
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
	struct srpt_load_fixture *f = test->priv;

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
	struct srpt_load_fixture *f = test->priv;
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

/* A WRITE(10) with one direct data-out descriptor of @len bytes. */
static struct srp_cmd *srpt_test_write_cmd(struct kunit *test, u32 len)
{
	struct srp_cmd *cmd = srpt_test_cmd(test, SRPT_FMT(SRP_DATA_DESC_DIRECT, 0),
					    1, 0, 0);

	cmd->cdb[0] = 0x2a;	/* WRITE(10) */
	srpt_test_put_direct(srpt_test_desc_pos(cmd), 0x10000, 0x77, len);
	return cmd;
}

/* Data lengths beyond srp_max_rdma_size are refused before LIO allocates. */
static void srpt_cmd_data_len_limit(struct kunit *test)
{
	struct srpt_load_fixture *f = test->priv;
	u32 max = SRPT_MAX_RDMA_SIZE_DEFAULT;
	struct srpt_data_desc d;

	KUNIT_EXPECT_EQ(test, srpt_check_cmd(f->ch, srpt_test_write_cmd(test, SZ_1M),
					     64, &d), 0);
	KUNIT_EXPECT_EQ(test, d.data_len, (u64)SZ_1M);
	KUNIT_EXPECT_EQ(test, srpt_check_cmd(f->ch, srpt_test_write_cmd(test, max),
					     64, &d), 0);
	KUNIT_EXPECT_EQ(test, srpt_check_cmd(f->ch, srpt_test_write_cmd(test, max + 1),
					     64, &d), -E2BIG);
	KUNIT_EXPECT_EQ(test, srpt_check_cmd(f->ch, srpt_test_write_cmd(test, SZ_512M),
					     64, &d), -E2BIG);
	/* The limit is the channel's, taken from the port at login. */
	f->ch->lim.max_data_len = SZ_64K;
	KUNIT_EXPECT_EQ(test, srpt_check_cmd(f->ch, srpt_test_write_cmd(test, SZ_1M),
					     64, &d), -E2BIG);
	/* A malformed IU stays malformed whatever its length. */
	KUNIT_EXPECT_EQ(test, srpt_check_cmd(f->ch, srpt_test_write_cmd(test, 512),
					     63, &d), -EINVAL);
}

/*
 * Once the release has cancelled the transfers, a command that reaches
 * the send queue must not wait on it: nobody would wake it.
 */
static void srpt_sq_reserve_after_cancel(struct kunit *test)
{
	struct srpt_load_fixture *f = test->priv;

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
 * An SRP_CRED_RSP that overtakes the send completion of its SRP_CRED_REQ
 * finds the request busy; the completion must send what piled up.
 */
static void srpt_cred_done_sends_pending(struct kunit *test)
{
	struct srpt_load_fixture *f = test->priv;
	struct srpt_rdma_ch *ch = f->ch;
	struct ib_qp qp = { .qp_context = ch };
	struct ib_wc wc = { .status = IB_WC_SUCCESS, .qp = &qp };

	KUNIT_ASSERT_NOT_NULL(test, srpt_wq);
	INIT_DELAYED_WORK(&ch->end.work, srpt_end_work);
	/* Not live: the work, once it runs, sends nothing. */
	ch->state = SRPT_CH_DRAINING;

	ch->cred.busy = true;
	ch->cred.rsp_due = true;
	atomic_set(&ch->cred.req_lim_delta, 3);
	srpt_cred_done(NULL, &wc);
	KUNIT_EXPECT_FALSE(test, ch->cred.busy);
	/* The response is still due: it queues the next request itself. */
	KUNIT_EXPECT_FALSE(test, delayed_work_pending(&ch->end.work));

	ch->cred.busy = true;
	ch->cred.rsp_due = false;
	srpt_cred_done(NULL, &wc);
	KUNIT_EXPECT_TRUE(test, delayed_work_pending(&ch->end.work));
	KUNIT_EXPECT_EQ(test, ch->end.jobs, BIT(SRPT_END_CRED));
	KUNIT_EXPECT_EQ(test, kref_read(&ch->kref), 2);
	flush_delayed_work(&ch->end.work);
	KUNIT_EXPECT_EQ(test, ch->end.jobs, 0);
	KUNIT_EXPECT_EQ(test, kref_read(&ch->kref), 1);

	/* Nothing owed: nothing to send. */
	ch->cred.busy = true;
	atomic_set(&ch->cred.req_lim_delta, 0);
	srpt_cred_done(NULL, &wc);
	KUNIT_EXPECT_FALSE(test, delayed_work_pending(&ch->end.work));
}

/*
 * The control work's jobs: a credit job that runs before a logout's
 * grace time is over leaves the close queued for the rest of it; each
 * queueing holds one channel reference; a released channel queues nothing.
 */
static void srpt_end_jobs_refs(struct kunit *test)
{
	struct srpt_load_fixture *f = test->priv;
	struct srpt_rdma_ch *ch = f->ch;

	INIT_DELAYED_WORK(&ch->end.work, srpt_end_work);
	ch->state = SRPT_CH_DRAINING;
	KUNIT_EXPECT_TRUE(test, srpt_end_queue(ch, SRPT_END_CLOSE_AT, 60 * HZ));
	KUNIT_EXPECT_EQ(test, kref_read(&ch->kref), 2);
	/* A close pending at the grace time's end counts as a close pending. */
	KUNIT_EXPECT_FALSE(test, srpt_end_queue(ch, SRPT_END_CLOSE_AT, HZ));
	KUNIT_EXPECT_EQ(test, kref_read(&ch->kref), 2);
	KUNIT_EXPECT_TRUE(test, srpt_end_queue(ch, SRPT_END_CRED, 0));
	KUNIT_EXPECT_EQ(test, kref_read(&ch->kref), 2);
	/* The credit job runs now; the close waits for the grace time. */
	flush_delayed_work(&ch->end.work);
	KUNIT_EXPECT_EQ(test, ch->end.jobs, BIT(SRPT_END_CLOSE_AT));
	KUNIT_EXPECT_TRUE(test, delayed_work_pending(&ch->end.work));
	KUNIT_EXPECT_EQ(test, kref_read(&ch->kref), 2);
	KUNIT_EXPECT_FALSE(test, srpt_end_queue(ch, SRPT_END_CLOSE, 60 * HZ));
	KUNIT_EXPECT_EQ(test, kref_read(&ch->kref), 2);
	KUNIT_EXPECT_TRUE(test, cancel_delayed_work_sync(&ch->end.work));
	kref_put(&ch->kref, srpt_free_ch);
	ch->end.jobs = 0;

	ch->end.released = true;
	srpt_end_queue(ch, SRPT_END_CRED, 0);
	KUNIT_EXPECT_FALSE(test, delayed_work_pending(&ch->end.work));
	KUNIT_EXPECT_EQ(test, ch->end.jobs, 0);
	KUNIT_EXPECT_EQ(test, kref_read(&ch->kref), 1);
}

/* One direct descriptor of 4 KiB in the direction @fmt names, opcode @op. */
static struct srp_cmd *srpt_test_dir_cmd(struct kunit *test, u8 fmt, u8 op)
{
	struct srp_cmd *cmd = srpt_test_cmd(test, fmt, 1, 1, 0);

	cmd->cdb[0] = op;
	srpt_test_put_direct(srpt_test_desc_pos(cmd), 0x10000, 0x77, SZ_4K);
	return cmd;
}

struct srpt_dir_row {
	u8 op;
	u16 sa;		/* service action of VARIABLE_LENGTH_CMD */
	int want_out;	/* result with a data-out descriptor */
	int want_in;	/* result with a data-in descriptor */
};

static const struct srpt_dir_row srpt_dir_rows[] = {
	{ WRITE_10, 0, 0, -EPROTO },
	{ WRITE_6, 0, 0, -EPROTO },
	{ WRITE_16, 0, 0, -EPROTO },
	{ WRITE_SAME_16, 0, 0, -EPROTO },
	{ COMPARE_AND_WRITE, 0, 0, -EPROTO },
	{ UNMAP, 0, 0, -EPROTO },
	{ MODE_SELECT_10, 0, 0, -EPROTO },
	{ PERSISTENT_RESERVE_OUT, 0, 0, -EPROTO },
	{ VARIABLE_LENGTH_CMD, WRITE_32, 0, -EPROTO },
	{ READ_10, 0, -EPROTO, 0 },
	{ READ_6, 0, -EPROTO, 0 },
	{ READ_16, 0, -EPROTO, 0 },
	{ INQUIRY, 0, -EPROTO, 0 },
	{ REPORT_LUNS, 0, -EPROTO, 0 },
	{ MODE_SENSE, 0, -EPROTO, 0 },
	{ SERVICE_ACTION_IN_16, 0, -EPROTO, 0 },
	{ PERSISTENT_RESERVE_IN, 0, -EPROTO, 0 },
	{ VARIABLE_LENGTH_CMD, READ_32, -EPROTO, 0 },
	/* No fixed direction: the descriptor decides. */
	{ VERIFY, 0, 0, 0 },
	{ 0xc0, 0, 0, 0 },
	{ VARIABLE_LENGTH_CMD, 0x8801, 0, 0 },
};

static void srpt_dir_row_desc(const struct srpt_dir_row *r, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "opcode %#x sa %#x", r->op, r->sa);
}

KUNIT_ARRAY_PARAM(srpt_dir_rows, srpt_dir_rows, srpt_dir_row_desc);

/* A descriptor whose direction contradicts the CDB never reaches LIO. */
static void srpt_cmd_dir_matches_cdb(struct kunit *test)
{
	const struct srpt_dir_row *r = test->param_value;
	struct srpt_load_fixture *f = test->priv;
	struct srp_cmd *out, *in;
	struct srpt_data_desc d;

	out = srpt_test_dir_cmd(test, SRPT_FMT(SRP_DATA_DESC_DIRECT, 0), r->op);
	in = srpt_test_dir_cmd(test, SRPT_FMT(0, SRP_DATA_DESC_DIRECT), r->op);
	if (r->op == VARIABLE_LENGTH_CMD) {
		put_unaligned_be16(r->sa, &out->cdb[8]);
		put_unaligned_be16(r->sa, &in->cdb[8]);
	}
	KUNIT_EXPECT_EQ(test, srpt_check_cmd(f->ch, out, 128, &d), r->want_out);
	KUNIT_EXPECT_EQ(test, d.dir, DMA_TO_DEVICE);
	KUNIT_EXPECT_EQ(test, srpt_check_cmd(f->ch, in, 128, &d), r->want_in);
	KUNIT_EXPECT_EQ(test, d.dir, DMA_FROM_DEVICE);
}

/* A WRITE without data, or with a zero-length descriptor, transfers nothing. */
static void srpt_cmd_dir_no_data(struct kunit *test)
{
	struct srpt_load_fixture *f = test->priv;
	struct srp_cmd *cmd = srpt_test_cmd(test, 0, 0, 0, 0);
	struct srpt_data_desc d;

	cmd->cdb[0] = WRITE_10;
	KUNIT_EXPECT_EQ(test, srpt_check_cmd(f->ch, cmd, 64, &d), 0);
	cmd = srpt_test_dir_cmd(test, SRPT_FMT(0, SRP_DATA_DESC_DIRECT), WRITE_10);
	srpt_test_put_direct(srpt_test_desc_pos(cmd), 0x10000, 0x77, 0);
	KUNIT_EXPECT_EQ(test, srpt_check_cmd(f->ch, cmd, 64, &d), 0);
}

/* The smallest srp_max_rsp_size holds a task management response. */
static void srpt_rsp_size_min_holds_tmf(struct kunit *test)
{
	struct srpt_load_fixture *f = test->priv;
	u8 *buf = kunit_kmalloc(test, 64, GFP_KERNEL);
	int len;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	memset(buf, SRPT_TEST_POISON, 64);
	f->ch->lim.max_rsp_size = SRPT_MAX_RSP_SIZE_MIN;
	f->io[0]->ioctx.buf = buf;
	len = srpt_build_tskmgmt_rsp(f->ch, SRP_TSK_MGMT_SUCCESS, f->io[0], 1);
	KUNIT_EXPECT_LE(test, len, (int)f->ch->lim.max_rsp_size);
	KUNIT_EXPECT_TRUE(test, srpt_test_all_eq(buf + SRPT_MAX_RSP_SIZE_MIN,
						 64 - SRPT_MAX_RSP_SIZE_MIN,
						 SRPT_TEST_POISON));
}

/* SRP_T_LOGOUT: opcode 0x80, reason big-endian at byte 4, tag at byte 8. */
static void srpt_t_logout_layout(struct kunit *test)
{
	u8 *b = kunit_kmalloc(test, 32, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, b);
	memset(b, SRPT_TEST_POISON, 32);
	KUNIT_EXPECT_EQ(test, srpt_build_t_logout(b, SRPT_LOGOUT_BAD_IU_TYPE,
						  0x0102030405060708ULL), 16);
	KUNIT_EXPECT_EQ(test, b[0], 0x80);
	KUNIT_EXPECT_TRUE(test, srpt_test_all_eq(b + 1, 3, 0));
	KUNIT_EXPECT_EQ(test, b[4], 0);
	KUNIT_EXPECT_EQ(test, b[7], 0x02);
	KUNIT_EXPECT_EQ(test, get_unaligned((u64 *)(b + 8)), 0x0102030405060708ULL);
	KUNIT_EXPECT_TRUE(test, srpt_test_all_eq(b + 16, 16, SRPT_TEST_POISON));
	/* The reasons are the SRP standard's codes. */
	KUNIT_EXPECT_EQ(test, SRPT_LOGOUT_NO_REASON, 0);
	KUNIT_EXPECT_EQ(test, SRPT_LOGOUT_RSP_WITHOUT_REQ, 3);
	KUNIT_EXPECT_EQ(test, SRPT_LOGOUT_MULTICHANNEL, 4);
}

/* SRP_CRED_REQ: opcode 0x81, req_lim_delta big-endian at 4, tag at 8. */
static void srpt_cred_req_layout(struct kunit *test)
{
	u8 *b = kunit_kmalloc(test, 32, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, b);
	memset(b, SRPT_TEST_POISON, 32);
	KUNIT_EXPECT_EQ(test, srpt_build_cred_req(b, 300, 7), 16);
	KUNIT_EXPECT_EQ(test, b[0], 0x81);
	KUNIT_EXPECT_TRUE(test, srpt_test_all_eq(b + 1, 3, 0));
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(b + 4), 300U);
	KUNIT_EXPECT_EQ(test, get_unaligned((u64 *)(b + 8)), 7ULL);
	KUNIT_EXPECT_TRUE(test, srpt_test_all_eq(b + 16, 16, SRPT_TEST_POISON));
}

static void srpt_test_no_work(struct work_struct *w)
{
}

/* Only the SRP_CRED_RSP of the outstanding SRP_CRED_REQ is expected. */
static void srpt_cred_rsp_matching(struct kunit *test)
{
	struct srpt_load_fixture *f = test->priv;
	struct srp_cred_rsp rsp = { .opcode = SRP_CRED_RSP, .tag = 5 };
	const u8 *iu = (const u8 *)&rsp;

	INIT_DELAYED_WORK(&f->ch->end.work, srpt_test_no_work);
	/* None outstanding: any SRP_CRED_RSP answers no request. */
	KUNIT_EXPECT_FALSE(test, srpt_cred_rsp_expected(f->ch, iu, sizeof(rsp)));
	f->ch->cred.rsp_due = true;
	f->ch->cred.tag = 4;
	KUNIT_EXPECT_FALSE(test, srpt_cred_rsp_expected(f->ch, iu, sizeof(rsp)));
	f->ch->cred.tag = 5;
	KUNIT_EXPECT_FALSE(test, srpt_cred_rsp_expected(f->ch, iu, sizeof(rsp) - 1));
	KUNIT_EXPECT_TRUE(test, srpt_cred_rsp_expected(f->ch, iu, sizeof(rsp)));
	KUNIT_EXPECT_FALSE(test, f->ch->cred.rsp_due);
	/* Answered once: a repeat is a response to no request. */
	KUNIT_EXPECT_FALSE(test, srpt_cred_rsp_expected(f->ch, iu, sizeof(rsp)));
}

/*
 * Unsignaled responses: at most SRPT_UNSIG_RSP_MAX may occupy the send
 * queue before a signaled completion proves them done; then the next one
 * is signaled (the take fails) and its completion frees the entries.
 */
static void srpt_unsig_bounded(struct kunit *test)
{
	struct srpt_load_fixture *f = test->priv;
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
static void srpt_unsig_retire_once(struct kunit *test)
{
	struct srpt_load_fixture *f = test->priv;
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
static void srpt_unsig_retire_wraps(struct kunit *test)
{
	struct srpt_load_fixture *f = test->priv;
	struct srpt_rdma_ch *ch = f->ch;

	atomic_set(&ch->sq.unsig_avail, SRPT_UNSIG_RSP_MAX - 4);
	atomic_set(&ch->sq.unsig_retired, (int)(U32_MAX - 1));
	srpt_unsig_retire(ch, 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&ch->sq.unsig_avail), SRPT_UNSIG_RSP_MAX);
	KUNIT_EXPECT_EQ(test, (u32)atomic_read(&ch->sq.unsig_retired), 2U);
}

static struct kunit_case srpt_load_cases[] = {
	KUNIT_CASE(srpt_sq_reserve_fits),
	KUNIT_CASE(srpt_sq_reserve_waits_in_order),
	KUNIT_CASE(srpt_sq_reserve_whole_queue),
	KUNIT_CASE(srpt_sq_reserve_own_wr),
	KUNIT_CASE(srpt_credits_two_threads),
	KUNIT_CASE(srpt_sq_rdma_wrs_for),
	KUNIT_CASE(srpt_unsig_bounded),
	KUNIT_CASE(srpt_unsig_retire_once),
	KUNIT_CASE(srpt_unsig_retire_wraps),
	KUNIT_CASE_PARAM(srpt_credit_takers, srpt_credit_rows_gen_params),
	KUNIT_CASE(srpt_credit_undo_after_failed_post),
	KUNIT_CASE(srpt_stats_credits_returned),
	KUNIT_CASE(srpt_stats_max_only_rises),
	KUNIT_CASE_SLOW(srpt_pool_two_threads),
	KUNIT_CASE(srpt_stats_sq_hwm),
	KUNIT_CASE(srpt_stats_info_lines),
	KUNIT_CASE(srpt_cmd_data_len_limit),
	KUNIT_CASE(srpt_sq_reserve_after_cancel),
	KUNIT_CASE(srpt_cred_done_sends_pending),
	KUNIT_CASE(srpt_end_jobs_refs),
	KUNIT_CASE_PARAM(srpt_cmd_dir_matches_cdb, srpt_dir_rows_gen_params),
	KUNIT_CASE(srpt_cmd_dir_no_data),
	KUNIT_CASE(srpt_rsp_size_min_holds_tmf),
	KUNIT_CASE(srpt_t_logout_layout),
	KUNIT_CASE(srpt_cred_req_layout),
	KUNIT_CASE(srpt_cred_rsp_matching),
	{}
};

static struct kunit_suite srpt_queue_pressure_suite = {
	.name = "ib_srpt_queue_pressure",
	.init = srpt_load_init,
	.test_cases = srpt_load_cases,
};

kunit_test_suite(srpt_queue_pressure_suite);
