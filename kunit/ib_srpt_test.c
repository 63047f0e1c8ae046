// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit suites for ib_srpt. This file is #included at the end of ib_srpt.c
 * (under CONFIG_INFINIBAND_SRPT_KUNIT_TEST) so that the suites can call the
 * driver's static functions. Each suite lives in its own file next to this
 * one; they share the helpers below. Run them with `make kunit`.
 */
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
static bool srpt_test_all_eq(const void *p, size_t len, u8 v)
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
static void srpt_test_str_desc(const char * const *s, char *desc)
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

#include "srpt_desc_test.c"
#include "srpt_login_test.c"
#include "srpt_dm_test.c"
#include "srpt_rsp_test.c"
#include "srpt_name_test.c"
#include "srpt_state_test.c"
#include "srpt_adopt_test.c"
#include "srpt_load_test.c"
#include "srpt_compat_test.c"

kunit_test_suites(&srpt_desc_suite,
		  &srpt_login_suite,
		  &srpt_dm_suite,
		  &srpt_rsp_suite,
		  &srpt_name_suite,
		  &srpt_state_suite,
		  &srpt_adopt_suite,
		  &srpt_load_suite,
		  &srpt_compat_suite);
