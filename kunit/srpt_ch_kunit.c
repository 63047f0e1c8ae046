// SPDX-License-Identifier: GPL-2.0-only
/*
 * A channel's own machinery: the pool of send contexts from two threads at
 * once, the jobs of its control work and their references, and the
 * SRP_T_LOGOUT it sends.
 */

#include <linux/kthread.h>
#include "srpt_kunit.h"

/*
 * The send-context pool, driven from two threads at once: this one takes
 * contexts (the receive side), a kthread gives them back (completions).
 * No context may be handed out while in use, and at the end every one is
 * back exactly once.
 */
#define SRPT_TEST_POOL_CTXS		8
#define SRPT_TEST_POOL_ROUNDS	2000

struct srpt_ch_pool_race {
	struct srpt_rdma_ch	*ch;
	struct srpt_send_ioctx	*io[SRPT_TEST_POOL_CTXS];
	atomic_t		in_use[SRPT_TEST_POOL_CTXS];
	spinlock_t		lock;	/* the hand-over ring of the test */
	struct srpt_send_ioctx	*ring[SRPT_TEST_POOL_CTXS];
	unsigned int		head, tail;
	bool			done;
	unsigned long		returned;
	struct completion	exited;
};

static int srpt_ch_pool_returner(void *arg)
{
	struct srpt_ch_pool_race *r = arg;
	struct srpt_send_ioctx *io;
	bool done;

	for (;;) {
		io = NULL;
		spin_lock(&r->lock);
		if (r->head != r->tail)
			io = r->ring[r->tail++ % SRPT_TEST_POOL_CTXS];
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

static void srpt_ch_pool_two_threads(struct kunit *test)
{
	struct srpt_ch_pool_race *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
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
	for (n = 0; n < SRPT_TEST_POOL_CTXS; n++) {
		r->io[n] = kunit_kzalloc(test, sizeof(*r->io[n]), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, r->io[n]);
		r->io[n]->ioctx.index = n;
		r->io[n]->ch = r->ch;
		srpt_pool_put(r->ch, r->io[n]);
	}
	t = kthread_run(srpt_ch_pool_returner, r, "srpt-pool-test");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));

	for (i = 0; i < SRPT_TEST_POOL_ROUNDS; ) {
		io = srpt_pool_get(r->ch);
		if (!io) {
			spins++;
			cond_resched();
			continue;
		}
		if (atomic_xchg(&r->in_use[io->ioctx.index], 1))
			doubled++;
		spin_lock(&r->lock);
		r->ring[r->head++ % SRPT_TEST_POOL_CTXS] = io;
		spin_unlock(&r->lock);
		i++;
	}
	spin_lock(&r->lock);
	r->done = true;
	spin_unlock(&r->lock);
	KUNIT_ASSERT_GT(test, wait_for_completion_timeout(&r->exited, 30 * HZ), 0UL);

	KUNIT_EXPECT_EQ(test, doubled, 0UL);
	KUNIT_EXPECT_EQ(test, r->returned, (unsigned long)SRPT_TEST_POOL_ROUNDS);
	while ((io = srpt_pool_get(r->ch))) {
		KUNIT_EXPECT_EQ(test, atomic_xchg(&r->in_use[io->ioctx.index], 1), 0);
		seen++;
		if (seen > SRPT_TEST_POOL_CTXS)
			break;
	}
	KUNIT_EXPECT_EQ(test, seen, SRPT_TEST_POOL_CTXS);
	kunit_info(test, "%d rounds, %lu empty looks", SRPT_TEST_POOL_ROUNDS, spins);
}

/*
 * The control work's jobs: a credit job that runs before a logout's
 * grace time is over leaves the close queued for the rest of it; each
 * queueing holds one channel reference; a released channel queues nothing.
 */
static void srpt_ch_end_jobs_refs(struct kunit *test)
{
	struct srpt_test_ch *f = test->priv;
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

/* SRP_T_LOGOUT: opcode 0x80, reason big-endian at byte 4, tag at byte 8. */
static void srpt_ch_t_logout_layout(struct kunit *test)
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

struct srpt_test_poll {
	struct delayed_work	work;
	struct ib_cq		*cq;
	bool			done;
};

/* A soft-IRQ poll of @cq that ends 50 ms after it was scheduled. */
static void srpt_test_poll_end(struct work_struct *work)
{
	struct srpt_test_poll *p = container_of(to_delayed_work(work),
						struct srpt_test_poll, work);

	WRITE_ONCE(p->done, true);
	clear_bit(IRQ_POLL_F_SCHED, &p->cq->iop.state);
}

/* A channel frees its soft-IRQ CQ only once no poll of it is pending. */
static void srpt_ch_quiesce_cq_waits_for_poll(struct kunit *test)
{
	struct srpt_test_poll p = {};
	bool polled, pending;

	p.cq = kunit_kzalloc(test, sizeof(*p.cq), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p.cq);
	INIT_DELAYED_WORK(&p.work, srpt_test_poll_end);

	/* Polled by a work item: ib_free_cq() waits for it itself. */
	p.cq->poll_ctx = IB_POLL_WORKQUEUE;
	set_bit(IRQ_POLL_F_SCHED, &p.cq->iop.state);
	srpt_quiesce_cq(p.cq);

	p.cq->poll_ctx = IB_POLL_SOFTIRQ;
	schedule_delayed_work(&p.work, msecs_to_jiffies(50));
	srpt_quiesce_cq(p.cq);
	polled = READ_ONCE(p.done);
	pending = test_bit(IRQ_POLL_F_SCHED, &p.cq->iop.state);
	KUNIT_EXPECT_TRUE(test, polled);
	KUNIT_EXPECT_FALSE(test, pending);
	flush_delayed_work(&p.work);
}

static struct kunit_case srpt_ch_cases[] = {
	KUNIT_CASE_SLOW(srpt_ch_pool_two_threads),
	KUNIT_CASE(srpt_ch_end_jobs_refs),
	KUNIT_CASE(srpt_ch_t_logout_layout),
	KUNIT_CASE(srpt_ch_quiesce_cq_waits_for_poll),
	{}
};

static struct kunit_suite srpt_ch_suite = {
	.name = "ib_srpt_ch",
	.init = srpt_test_ch_init,
	.test_cases = srpt_ch_cases,
};

kunit_test_suite(srpt_ch_suite);
