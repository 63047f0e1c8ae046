/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Helpers shared by the ib_srpt KUnit suites. Each suite is a
 * kunit/srpt_<area>_kunit.c file that ib_srpt.c #includes at its end
 * (under CONFIG_INFINIBAND_SRPT_KUNIT_TEST), so that it can call the
 * driver's static functions; each registers its own suite.
 */
#ifndef SRPT_KUNIT_H
#define SRPT_KUNIT_H

#include <kunit/test.h>
#include <linux/string.h>
#include <linux/overflow.h>
#include <linux/ctype.h>
#include "../ib_srpt.h"

/* Fill with a pattern so that tests can tell "zeroed" from "never written". */
#define SRPT_TEST_POISON	0xa5

/* Byte at offset @off of a structure viewed as raw memory. */
static inline u8 srpt_test_byte(const void *p, size_t off)
{
	return ((const u8 *)p)[off];
}

/* True if @len bytes at @p all equal @v. */
static inline bool srpt_test_all_eq(const void *p, size_t len, u8 v)
{
	const u8 *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		if (b[i] != v)
			return false;
	return true;
}

/*
 * Description of a string row of a KUNIT_ARRAY_PARAM table: quoted, with
 * control characters escaped so that the KTAP result stays one line.
 */
static inline void srpt_test_str_desc(const char * const *s, char *desc)
{
	char *p = desc, *end = desc + KUNIT_PARAM_DESC_SIZE - 4;
	const char *c;

	*p++ = '"';
	for (c = *s; *c && p < end; c++) {
		if (*c == '\n') {
			*p++ = '\\';
			*p++ = 'n';
		} else {
			*p++ = isprint(*c) ? *c : '?';
		}
	}
	*p++ = '"';
	*p = '\0';
}

/* Make the initiator of @ch hold @n credits, whatever it has taken. */
static inline void srpt_test_set_credits(struct srpt_rdma_ch *ch, s32 n)
{
	atomic_set(&ch->cred.granted, (u32)ch->stats.credits_taken + n);
}

/* The send queue budget of srpt_test_ch_init()'s channel, in RDMA WRs. */
#define SRPT_TEST_SQ_WRS	10

/* A channel with a send queue budget and four send contexts on it. */
struct srpt_test_ch {
	struct srpt_rdma_ch *ch;
	struct srpt_send_ioctx *io[4];
};

/* A suite's .init: a struct srpt_test_ch in test->priv. */
static inline int srpt_test_ch_init(struct kunit *test)
{
	struct srpt_test_ch *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
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

/* Reserve @n_rdma WRs of the send queue for send context @i. */
static inline enum srpt_sq_verdict srpt_test_reserve(struct srpt_test_ch *f,
						     int i, u32 n_rdma)
{
	f->io[i]->n_rdma = n_rdma;
	return srpt_sq_reserve(f->ch, f->io[i]);
}

#endif /* SRPT_KUNIT_H */
