// SPDX-License-Identifier: GPL-2.0-only
/*
 * Names users write in configfs: srpt_parse_i_port_id() (target port and
 * initiator port IDs) and srpt_parse_acl_name() (ACLs, which may also be
 * IPv4/IPv6 addresses for RDMA/CM logins).
 */

static const u8 srpt_test_id_full[16] = {
	0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x02, 0xc9, 0x03, 0x00, 0x0a, 0xbc, 0xde,
};

static const u8 srpt_test_id_guid[16] = {
	0, 0, 0, 0, 0, 0, 0, 0,
	0x00, 0x02, 0xc9, 0x03, 0x00, 0x0a, 0xbc, 0xde,
};

/* Parse @name into a poisoned buffer; the poison must be overwritten. */
static int srpt_test_parse(const char *name, u8 id[16])
{
	memset(id, SRPT_TEST_POISON, 16);
	return srpt_parse_i_port_id(id, name);
}

static void srpt_name_hex_with_prefix(struct kunit *test)
{
	u8 id[16];

	KUNIT_ASSERT_EQ(test, srpt_test_parse("0xfe800000000000000002c903000abcde", id), 0);
	KUNIT_EXPECT_MEMEQ(test, id, srpt_test_id_full, 16);
	KUNIT_ASSERT_EQ(test, srpt_test_parse("0Xfe800000000000000002c903000abcde", id), 0);
	KUNIT_EXPECT_MEMEQ(test, id, srpt_test_id_full, 16);
}

static void srpt_name_hex_without_prefix(struct kunit *test)
{
	u8 id[16];

	KUNIT_ASSERT_EQ(test, srpt_test_parse("fe800000000000000002c903000abcde", id), 0);
	KUNIT_EXPECT_MEMEQ(test, id, srpt_test_id_full, 16);
}

static void srpt_name_hex_case_insensitive(struct kunit *test)
{
	u8 id[16];

	KUNIT_ASSERT_EQ(test, srpt_test_parse("0xFE800000000000000002C903000ABCDE", id), 0);
	KUNIT_EXPECT_MEMEQ(test, id, srpt_test_id_full, 16);
	KUNIT_ASSERT_EQ(test, srpt_test_parse("Fe800000000000000002c903000AbCdE", id), 0);
	KUNIT_EXPECT_MEMEQ(test, id, srpt_test_id_full, 16);
}

/* Fewer than 32 digits: the value is right-aligned, leading bytes zero. */
static void srpt_name_hex_short(struct kunit *test)
{
	static const u8 one[16] = { [15] = 0x01 };
	static const u8 abc[16] = { [14] = 0x0a, [15] = 0xbc };
	static const u8 guid[16] = { 0, 0, 0, 0, 0, 0, 0, 0,
				     0x00, 0x02, 0xc9, 0x03, 0x00, 0x0a, 0xbc, 0xde };
	u8 id[16];

	KUNIT_ASSERT_EQ(test, srpt_test_parse("0x1", id), 0);
	KUNIT_EXPECT_MEMEQ(test, id, one, 16);
	KUNIT_ASSERT_EQ(test, srpt_test_parse("1", id), 0);
	KUNIT_EXPECT_MEMEQ(test, id, one, 16);
	KUNIT_ASSERT_EQ(test, srpt_test_parse("abc", id), 0);
	KUNIT_EXPECT_MEMEQ(test, id, abc, 16);
	KUNIT_ASSERT_EQ(test, srpt_test_parse("0x0002c903000abcde", id), 0);
	KUNIT_EXPECT_MEMEQ(test, id, guid, 16);
	/* 31 digits. */
	KUNIT_ASSERT_EQ(test, srpt_test_parse("e800000000000000002c903000abcde", id), 0);
	KUNIT_EXPECT_EQ(test, id[0], 0x0e);
	KUNIT_EXPECT_EQ(test, id[1], 0x80);
	KUNIT_EXPECT_EQ(test, id[15], 0xde);
}

static void srpt_name_trailing_newline(struct kunit *test)
{
	static const u8 one[16] = { [15] = 0x01 };
	u8 id[16];

	KUNIT_ASSERT_EQ(test, srpt_test_parse("0xfe800000000000000002c903000abcde\n", id), 0);
	KUNIT_EXPECT_MEMEQ(test, id, srpt_test_id_full, 16);
	KUNIT_ASSERT_EQ(test, srpt_test_parse("0002:c903:000a:bcde\n", id), 0);
	KUNIT_EXPECT_MEMEQ(test, id, srpt_test_id_guid, 16);
	KUNIT_ASSERT_EQ(test, srpt_test_parse("1\n", id), 0);
	KUNIT_EXPECT_MEMEQ(test, id, one, 16);
}

static void srpt_name_guid_form(struct kunit *test)
{
	u8 id[16];

	KUNIT_ASSERT_EQ(test, srpt_test_parse("0002:c903:000a:bcde", id), 0);
	KUNIT_EXPECT_MEMEQ(test, id, srpt_test_id_guid, 16);
	KUNIT_ASSERT_EQ(test, srpt_test_parse("0002:C903:000A:BCDE", id), 0);
	KUNIT_EXPECT_MEMEQ(test, id, srpt_test_id_guid, 16);
}

/* GUID groups of 1..4 digits are right-aligned within their 16 bits. */
static void srpt_name_guid_short_groups(struct kunit *test)
{
	static const u8 exp[16] = { 0, 0, 0, 0, 0, 0, 0, 0,
				    0x00, 0x01, 0x00, 0x23, 0x04, 0x56, 0x78, 0x9a };
	u8 id[16];

	KUNIT_ASSERT_EQ(test, srpt_test_parse("2:c903:a:bcde", id), 0);
	KUNIT_EXPECT_MEMEQ(test, id, srpt_test_id_guid, 16);
	KUNIT_ASSERT_EQ(test, srpt_test_parse("1:23:456:789a", id), 0);
	KUNIT_EXPECT_MEMEQ(test, id, exp, 16);
}

static const char * const srpt_name_junk[] = {
	"",
	"\n",
	"0x",
	"0X\n",
	"x12",
	"0x0x12",
	"0xfe800000000000000002c903000abcde0",	/* 33 digits */
	"fe800000000000000002c903000abcde00",	/* 34 digits */
	"0x12g4",
	"hello",
	"0x 12",
	"-1",
	"+1",
	"0002:c903:000a",			/* three groups */
	"0002:c903:000a:bcde:0001",		/* five groups */
	"00002:c903:000a:bcde",			/* five digits in a group */
	"0002::000a:bcde",			/* empty group */
	"0002:c903:000a:",
	":c903:000a:bcde",
	"0002:c9g3:000a:bcde",
	"0002-c903-000a-bcde",
};

KUNIT_ARRAY_PARAM(srpt_name_junk, srpt_name_junk, srpt_test_str_desc);

static void srpt_name_rejects_junk(struct kunit *test)
{
	const char * const *name = test->param_value;
	u8 id[16];

	KUNIT_EXPECT_EQ(test, srpt_test_parse(*name, id), -EINVAL);
}

static int srpt_test_acl(const char *name, u8 id[16], bool *is_ip)
{
	enum srpt_acl_form form = SRPT_ACL_PORT_ID;
	int ret;

	memset(id, SRPT_TEST_POISON, 16);
	ret = srpt_parse_acl_name(name, id, &form);
	*is_ip = form == SRPT_ACL_IP;
	return ret;
}

static void srpt_acl_port_id_forms(struct kunit *test)
{
	u8 id[16];
	bool is_ip;

	is_ip = true;
	KUNIT_ASSERT_EQ(test, srpt_test_acl("0xfe800000000000000002c903000abcde", id, &is_ip), 0);
	KUNIT_EXPECT_FALSE(test, is_ip);
	KUNIT_EXPECT_MEMEQ(test, id, srpt_test_id_full, 16);

	is_ip = true;
	KUNIT_ASSERT_EQ(test, srpt_test_acl("fe800000000000000002c903000abcde", id, &is_ip), 0);
	KUNIT_EXPECT_FALSE(test, is_ip);
	KUNIT_EXPECT_MEMEQ(test, id, srpt_test_id_full, 16);

	/* Four groups parse as a GUID, never as a (malformed) IPv6 address. */
	is_ip = true;
	KUNIT_ASSERT_EQ(test, srpt_test_acl("0002:c903:000a:bcde", id, &is_ip), 0);
	KUNIT_EXPECT_FALSE(test, is_ip);
	KUNIT_EXPECT_MEMEQ(test, id, srpt_test_id_guid, 16);
}

static const char * const srpt_acl_ips[] = {
	"192.168.1.10", "10.0.0.1", "0.0.0.0", "255.255.255.255",
	"fd00::1", "::1", "fe80::202:c903:a:bcde", "2001:db8:0:0:1:2:3:4",
};

KUNIT_ARRAY_PARAM(srpt_acl_ips, srpt_acl_ips, srpt_test_str_desc);

static void srpt_acl_ip(struct kunit *test)
{
	const char * const *name = test->param_value;
	u8 id[16];
	bool is_ip = false;

	KUNIT_EXPECT_EQ(test, srpt_test_acl(*name, id, &is_ip), 0);
	KUNIT_EXPECT_TRUE(test, is_ip);
	/* The port ID is left alone for address ACLs. */
	KUNIT_EXPECT_TRUE(test, srpt_test_all_eq(id, 16, SRPT_TEST_POISON));
}

static const char * const srpt_acl_junk[] = {
	"", "hello", "1.2.3", "256.1.1.1", "1.2.3.4.5", "fd00:::1",
	"fd00::1::2", "0x", "0x12g4", "0002:c903",
	"0xfe800000000000000002c903000abcde0", "gggg::1",
};

KUNIT_ARRAY_PARAM(srpt_acl_junk, srpt_acl_junk, srpt_test_str_desc);

static void srpt_acl_rejects_junk(struct kunit *test)
{
	const char * const *name = test->param_value;
	u8 id[16];
	bool is_ip;

	KUNIT_EXPECT_EQ(test, srpt_test_acl(*name, id, &is_ip), -EINVAL);
}

static struct kunit_case srpt_name_cases[] = {
	KUNIT_CASE(srpt_name_hex_with_prefix),
	KUNIT_CASE(srpt_name_hex_without_prefix),
	KUNIT_CASE(srpt_name_hex_case_insensitive),
	KUNIT_CASE(srpt_name_hex_short),
	KUNIT_CASE(srpt_name_trailing_newline),
	KUNIT_CASE(srpt_name_guid_form),
	KUNIT_CASE(srpt_name_guid_short_groups),
	KUNIT_CASE_PARAM(srpt_name_rejects_junk, srpt_name_junk_gen_params),
	KUNIT_CASE(srpt_acl_port_id_forms),
	KUNIT_CASE_PARAM(srpt_acl_ip, srpt_acl_ips_gen_params),
	KUNIT_CASE_PARAM(srpt_acl_rejects_junk, srpt_acl_junk_gen_params),
	{}
};

static struct kunit_suite srpt_name_suite = {
	.name = "ib_srpt_name",
	.test_cases = srpt_name_cases,
};
