// SPDX-License-Identifier: GPL-2.0-only
/*
 * Credits: which IUs take one, what a response whose post failed gives
 * back, the take and the grant from two threads at once, and the
 * SRP_CRED_REQ the target sends on its own with the SRP_CRED_RSP it expects.
 */

#include <linux/kthread.h>
#include "srpt_kunit.h"

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
	struct srpt_test_ch *f = test->priv;
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

/*
 * Credits, from two threads at once: this one is the receive side, the only
 * one that takes (srpt_credit_take(), no atomic instruction), a kthread
 * answers each request it is handed with a response's credit
 * (srpt_credit_delta()). A take never succeeds beyond what was granted,
 * and at the end exactly the login's credits are held again.
 */
#define SRPT_TEST_CRED_LIMIT		4
#define SRPT_TEST_CRED_ROUNDS	2000

struct srpt_credit_race {
	struct srpt_rdma_ch	*ch;
	atomic_t		owed;		/* requests not yet answered */
	atomic_t		granted;	/* counted before each grant */
	atomic_t		done;
	struct completion	exited;
};

static int srpt_credit_responder(void *arg)
{
	struct srpt_credit_race *r = arg;

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

static void srpt_credit_two_threads(struct kunit *test)
{
	struct srpt_credit_race *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	unsigned long over = 0, spins = 0;
	const u64 start = U32_MAX - SRPT_TEST_CRED_ROUNDS / 2;
	struct task_struct *t;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, r);
	r->ch = kunit_kzalloc(test, sizeof(*r->ch), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r->ch);
	r->ch->lim.rq_size = SRPT_TEST_CRED_LIMIT;
	/* counts about to wrap: the 32-bit difference must not care */
	r->ch->stats.credits_taken = start;
	srpt_test_set_credits(r->ch, SRPT_TEST_CRED_LIMIT);
	init_completion(&r->exited);
	t = kthread_run(srpt_credit_responder, r, "srpt-cred-test");
	KUNIT_ASSERT_FALSE(test, IS_ERR(t));

	for (i = 0; i < SRPT_TEST_CRED_ROUNDS; ) {
		if (!srpt_credit_take(r->ch)) {
			spins++;
			usleep_range(5, 20);
			continue;
		}
		i++;
		if (i > SRPT_TEST_CRED_LIMIT + atomic_read(&r->granted))
			over++;
		atomic_inc(&r->owed);
	}
	while (atomic_read(&r->owed))
		usleep_range(5, 20);
	atomic_set(&r->done, 1);
	KUNIT_ASSERT_GT(test, wait_for_completion_timeout(&r->exited, 30 * HZ), 0UL);

	KUNIT_EXPECT_EQ(test, over, 0UL);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->granted), SRPT_TEST_CRED_ROUNDS);
	KUNIT_EXPECT_EQ(test, srpt_credits_held(r->ch), SRPT_TEST_CRED_LIMIT);
	/* derived from the count taken, which started at @start here */
	KUNIT_EXPECT_EQ(test, srpt_ch_credits_returned(r->ch),
			(s64)(start + SRPT_TEST_CRED_ROUNDS));
	for (i = 0; i < SRPT_TEST_CRED_LIMIT; i++)
		KUNIT_EXPECT_TRUE(test, srpt_credit_take(r->ch));
	KUNIT_EXPECT_FALSE(test, srpt_credit_take(r->ch));
	KUNIT_EXPECT_EQ(test, srpt_credits_held(r->ch), 0);
	kunit_info(test, "%d requests, %lu refused looks", SRPT_TEST_CRED_ROUNDS, spins);
}

/*
 * An SRP_CRED_RSP that overtakes the send completion of its SRP_CRED_REQ
 * finds the request busy; the completion must send what piled up.
 */
static void srpt_credit_req_done_sends_pending(struct kunit *test)
{
	struct srpt_test_ch *f = test->priv;
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

/* SRP_CRED_REQ: opcode 0x81, req_lim_delta big-endian at 4, tag at 8. */
static void srpt_credit_req_layout(struct kunit *test)
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
static void srpt_credit_rsp_matching(struct kunit *test)
{
	struct srpt_test_ch *f = test->priv;
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

static struct kunit_case srpt_credit_cases[] = {
	KUNIT_CASE_PARAM(srpt_credit_takers, srpt_credit_rows_gen_params),
	KUNIT_CASE(srpt_credit_undo_after_failed_post),
	KUNIT_CASE(srpt_credit_two_threads),
	KUNIT_CASE(srpt_credit_req_done_sends_pending),
	KUNIT_CASE(srpt_credit_req_layout),
	KUNIT_CASE(srpt_credit_rsp_matching),
	{}
};

static struct kunit_suite srpt_credit_suite = {
	.name = "ib_srpt_credit",
	.init = srpt_test_ch_init,
	.test_cases = srpt_credit_cases,
};

kunit_test_suite(srpt_credit_suite);
