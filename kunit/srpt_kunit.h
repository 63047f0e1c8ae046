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

#endif /* SRPT_KUNIT_H */
