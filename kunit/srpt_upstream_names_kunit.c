// SPDX-License-Identifier: GPL-2.0-only
/*
 * What an administrator coming from the in-kernel driver writes: the
 * srpt_service_guid module parameter (hexadecimal), TPG directory names,
 * and which initiator identity an ACL names (srpt_acl_matches()) for IB CM
 * and RDMA/CM logins on GUID- and GID-named target ports.
 */

#include "srpt_kunit.h"

struct srpt_compat_guid_row {
	const char *text;
	u64 guid;
};

static const struct srpt_compat_guid_row srpt_compat_guid_ok[] = {
	{ "0002c903000e8acd", 0x0002c903000e8acdULL },
	{ "0x0002c903000e8acd", 0x0002c903000e8acdULL },
	{ "0X0002C903000E8ACD", 0x0002c903000e8acdULL },
	{ "0002c903000e8acd\n", 0x0002c903000e8acdULL },
	/* Hexadecimal even without 0x and without letters. */
	{ "10", 0x10 },
	{ "0123", 0x123 },
	{ "ffffffffffffffff", ~0ULL },
	{ "0", 0 },
};

static void srpt_compat_guid_desc(const struct srpt_compat_guid_row *r, char *desc)
{
	srpt_test_str_desc(&r->text, desc);
}

KUNIT_ARRAY_PARAM(srpt_compat_guid_ok, srpt_compat_guid_ok, srpt_compat_guid_desc);

static void srpt_compat_service_guid_hex(struct kunit *test)
{
	const struct srpt_compat_guid_row *r = test->param_value;
	u64 guid = 0xa5a5a5a5a5a5a5a5ULL;

	KUNIT_EXPECT_EQ(test, srpt_parse_service_guid(r->text, &guid), 0);
	KUNIT_EXPECT_EQ(test, guid, r->guid);
}

static const char * const srpt_compat_guid_junk[] = {
	"", "\n", "0x", "0x\n", "+1", "-1", " 1", "0x0x12", "g",
	"10000000000000000",		/* 17 digits: above 64 bits */
	"0002:c903:000e:8acd", "0x12 ", "1\n\n",
};

KUNIT_ARRAY_PARAM(srpt_compat_guid_junk, srpt_compat_guid_junk, srpt_test_str_desc);

static void srpt_compat_service_guid_junk(struct kunit *test)
{
	const char * const *text = test->param_value;
	u64 guid = 42;

	KUNIT_EXPECT_EQ(test, srpt_parse_service_guid(*text, &guid), -EINVAL);
	KUNIT_EXPECT_EQ_MSG(test, guid, 42ULL, "a rejected value changed the GUID");
}

struct srpt_compat_tpg_row {
	const char *name;
	u16 tag;
};

static const struct srpt_compat_tpg_row srpt_compat_tpg_ok[] = {
	{ "tpgt_1", 1 },
	{ "tpgt_0", 0 },
	{ "tpgt_2", 2 },
	{ "tpgt_65535", 65535 },
	/* The target port's own name, as pre-targetcli scripts do. */
	{ "0xfe800000000000000002c903000abcde", 1 },
	{ "0002:c903:000a:bcde", 1 },
	{ "anything", 1 },
	{ "tpg_1", 1 },
};

static void srpt_compat_tpg_desc(const struct srpt_compat_tpg_row *r, char *desc)
{
	srpt_test_str_desc(&r->name, desc);
}

KUNIT_ARRAY_PARAM(srpt_compat_tpg_ok, srpt_compat_tpg_ok, srpt_compat_tpg_desc);

static void srpt_compat_tpg_names(struct kunit *test)
{
	const struct srpt_compat_tpg_row *r = test->param_value;
	u16 tag = 0xa5a5;

	KUNIT_EXPECT_EQ(test, srpt_tpg_name_tag(r->name, &tag), 0);
	KUNIT_EXPECT_EQ(test, tag, r->tag);
}

static const char * const srpt_compat_tpg_bad[] = {
	"tpgt", "tpgt_", "tpgt1", "tpgtx", "tpgt_01", "tpgt_+1", "tpgt_-1",
	"tpgt_1a", "tpgt_65536", "tpgt_ 1",
};

KUNIT_ARRAY_PARAM(srpt_compat_tpg_bad, srpt_compat_tpg_bad, srpt_test_str_desc);

static void srpt_compat_tpg_names_bad(struct kunit *test)
{
	const char * const *name = test->param_value;
	u16 tag;

	KUNIT_EXPECT_EQ(test, srpt_tpg_name_tag(*name, &tag), -EINVAL);
}

static void srpt_compat_rtslib_names(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, srpt_rtslib_name("0xfe800000000000000002c903000abcde"));
	KUNIT_EXPECT_FALSE(test, srpt_rtslib_name("0xFE800000000000000002C903000ABCDE"));
	KUNIT_EXPECT_FALSE(test, srpt_rtslib_name("fe800000000000000002c903000abcde"));
	KUNIT_EXPECT_FALSE(test, srpt_rtslib_name("ib.fe800000000000000002c903000abcde"));
	KUNIT_EXPECT_FALSE(test, srpt_rtslib_name("0xfe800000000000000002c903000abcd"));
	KUNIT_EXPECT_FALSE(test, srpt_rtslib_name("0xfe800000000000000002c903000abcdef"));
	KUNIT_EXPECT_FALSE(test, srpt_rtslib_name("0002:c903:000a:bcde"));
	KUNIT_EXPECT_FALSE(test, srpt_rtslib_name("192.168.1.10"));
}

/* Which ACL names the target core can turn into an SRP TransportID. */
static void srpt_compat_pr_names(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, srpt_pr_name("0xfe800000000000000002c903000abcde"));
	KUNIT_EXPECT_TRUE(test, srpt_pr_name("0XFE800000000000000002C903000ABCDE"));
	KUNIT_EXPECT_TRUE(test, srpt_pr_name("fe800000000000000002c903000abcde"));
	KUNIT_EXPECT_TRUE(test, srpt_pr_name("0x1234"));
	KUNIT_EXPECT_FALSE(test, srpt_pr_name("0x123"));
	KUNIT_EXPECT_FALSE(test, srpt_pr_name("0x"));
	KUNIT_EXPECT_FALSE(test, srpt_pr_name("0xfe800000000000000002c903000abcde00"));
	KUNIT_EXPECT_FALSE(test, srpt_pr_name("0002:c903:000a:bcde"));
	KUNIT_EXPECT_FALSE(test, srpt_pr_name("192.168.1.10"));
	KUNIT_EXPECT_FALSE(test, srpt_pr_name("fd00::3"));
}

/* An initiator: port GUID 0002:c903:000a:bcde, initiator_ext 0x1234. */
static const u8 srpt_compat_ipid_ext[16] = {
	0, 0, 0, 0, 0, 0, 0x12, 0x34,
	0x00, 0x02, 0xc9, 0x03, 0x00, 0x0a, 0xbc, 0xde,
};

/* Who logs in through the IB CM: the initiator's GID from the path. */
static struct sockaddr *srpt_compat_ib_src(struct sockaddr_ib *sib, u64 guid)
{
	memset(sib, 0, sizeof(*sib));
	sib->sib_family = AF_IB;
	sib->sib_addr.sib_subnet_prefix = cpu_to_be64(0xfe80000000000000ULL);
	sib->sib_addr.sib_interface_id = cpu_to_be64(guid);
	return (struct sockaddr *)sib;
}

static struct sockaddr *srpt_compat_in4(struct sockaddr_in *sin, const char *a)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	in4_pton(a, -1, (u8 *)&sin->sin_addr.s_addr, -1, NULL);
	return (struct sockaddr *)sin;
}

static struct sockaddr *srpt_compat_in6(struct sockaddr_in6 *sin6, const char *a)
{
	memset(sin6, 0, sizeof(*sin6));
	sin6->sin6_family = AF_INET6;
	in6_pton(a, -1, sin6->sin6_addr.s6_addr, -1, NULL);
	return (struct sockaddr *)sin6;
}

/* One initiator port ID, 0x00000000000012340002c903000abcde, spelt four ways. */
static const char * const srpt_compat_gid_same[] = {
	"0x00000000000012340002c903000abcde",
	"00000000000012340002c903000abcde",
	"0x00000000000012340002C903000ABCDE",
	"0x12340002c903000abcde",
};

KUNIT_ARRAY_PARAM(srpt_compat_gid_same, srpt_compat_gid_same, srpt_test_str_desc);

/*
 * GID-named port: every ACL names the 16-byte initiator port ID, for IB CM
 * and RDMA/CM logins alike, in any spelling of the same value.
 */
static void srpt_compat_acl_gid_spellings(struct kunit *test)
{
	const char * const *name = test->param_value;
	struct sockaddr_ib sib;
	struct sockaddr_in6 sin6;
	struct sockaddr *ib = srpt_compat_ib_src(&sib, 0x0002c903000abcdeULL);
	struct sockaddr *rdma = srpt_compat_in6(&sin6, "fd00::2");

	KUNIT_EXPECT_TRUE_MSG(test, srpt_acl_matches(*name, false, srpt_compat_ipid_ext, ib),
			      "IB CM login");
	KUNIT_EXPECT_TRUE_MSG(test, srpt_acl_matches(*name, false, srpt_compat_ipid_ext, rdma),
			      "RDMA/CM login");
}

/* GID-named port: what does not name the initiator port ID. */
static void srpt_compat_acl_gid_port(struct kunit *test)
{
	struct sockaddr_ib sib;
	struct sockaddr_in6 sin6;
	struct sockaddr *ib = srpt_compat_ib_src(&sib, 0x0002c903000abcdeULL);
	struct sockaddr *rdma = srpt_compat_in6(&sin6, "fd00::2");

	/* initiator_ext counts: an ACL for ext 0 is another initiator port. */
	KUNIT_EXPECT_FALSE(test, srpt_acl_matches("0x00000000000000000002c903000abcde",
						  false, srpt_compat_ipid_ext, ib));
	/* Port GUID and address ACLs name nothing on a GID-named port. */
	KUNIT_EXPECT_FALSE(test, srpt_acl_matches("0002:c903:000a:bcde", false,
						  srpt_compat_ipid_ext, ib));
	KUNIT_EXPECT_FALSE(test, srpt_acl_matches("fd00::2", false,
						  srpt_compat_ipid_ext, rdma));
	KUNIT_EXPECT_FALSE(test, srpt_acl_matches("junk", false,
						  srpt_compat_ipid_ext, rdma));
}

/*
 * GUID-named port, IB CM login: the ACL names the port GUID from the
 * path, whatever the initiator port ID in the login request says.
 */
static void srpt_compat_acl_guid_port_ib_cm(struct kunit *test)
{
	struct sockaddr_ib sib;
	struct sockaddr *ib = srpt_compat_ib_src(&sib, 0x0002c903000abcdeULL);
	struct sockaddr *other = srpt_compat_ib_src(&(struct sockaddr_ib){},
						    0x0002c903000abcdfULL);
	static const u8 ipid_zero[16] = { };

	KUNIT_EXPECT_TRUE(test, srpt_acl_matches("0002:c903:000a:bcde", true,
						 srpt_compat_ipid_ext, ib));
	KUNIT_EXPECT_TRUE(test, srpt_acl_matches("2:C903:A:BCDE", true,
						 srpt_compat_ipid_ext, ib));
	KUNIT_EXPECT_TRUE(test, srpt_acl_matches("0x0002c903000abcde", true,
						 srpt_compat_ipid_ext, ib));
	KUNIT_EXPECT_TRUE(test, srpt_acl_matches("0002c903000abcde", true,
						 srpt_compat_ipid_ext, ib));
	/* The path decides, not the (initiator-chosen) port ID. */
	KUNIT_EXPECT_TRUE(test, srpt_acl_matches("0002:c903:000a:bcde", true,
						 ipid_zero, ib));
	KUNIT_EXPECT_FALSE(test, srpt_acl_matches("0002:c903:000a:bcde", true,
						  srpt_compat_ipid_ext, other));
	/* A full port ID or an address names nothing for an IB CM login. */
	KUNIT_EXPECT_FALSE(test, srpt_acl_matches("0x00000000000012340002c903000abcde",
						  true, srpt_compat_ipid_ext, ib));
	KUNIT_EXPECT_FALSE(test, srpt_acl_matches("fe80::2:c903:a:bcde", true,
						  srpt_compat_ipid_ext, ib));
	KUNIT_EXPECT_FALSE(test, srpt_acl_matches("0002:c903:000a:bcde", true,
						  srpt_compat_ipid_ext, NULL));
}

/* GUID-named port, RDMA/CM login: the ACL names the initiator's address. */
static void srpt_compat_acl_guid_port_rdma_cm(struct kunit *test)
{
	struct sockaddr_in sin;
	struct sockaddr_in6 sin6;
	struct sockaddr *v4 = srpt_compat_in4(&sin, "192.168.1.10");
	struct sockaddr *mapped = srpt_compat_in6(&(struct sockaddr_in6){},
						  "::ffff:192.168.1.10");
	struct sockaddr *v6 = srpt_compat_in6(&sin6, "fd00::2");

	KUNIT_EXPECT_TRUE(test, srpt_acl_matches("192.168.1.10", true,
						 srpt_compat_ipid_ext, v4));
	KUNIT_EXPECT_TRUE(test, srpt_acl_matches("192.168.1.10", true,
						 srpt_compat_ipid_ext, mapped));
	KUNIT_EXPECT_FALSE(test, srpt_acl_matches("192.168.1.11", true,
						  srpt_compat_ipid_ext, v4));
	KUNIT_EXPECT_TRUE(test, srpt_acl_matches("fd00::2", true,
						 srpt_compat_ipid_ext, v6));
	KUNIT_EXPECT_TRUE(test, srpt_acl_matches("[fd00::2]", true,
						 srpt_compat_ipid_ext, v6));
	KUNIT_EXPECT_TRUE(test, srpt_acl_matches("fd00:0:0:0:0:0:0:2", true,
						 srpt_compat_ipid_ext, v6));
	KUNIT_EXPECT_FALSE(test, srpt_acl_matches("fd00::3", true,
						  srpt_compat_ipid_ext, v6));
	/*
	 * RDMA/CM has no port GUID in its path: a port GUID ACL names the
	 * port GUID half of the initiator port ID (initiator_ext ignored).
	 */
	KUNIT_EXPECT_TRUE(test, srpt_acl_matches("0002:c903:000a:bcde", true,
						 srpt_compat_ipid_ext, v6));
	KUNIT_EXPECT_TRUE(test, srpt_acl_matches("0x0002c903000abcde", true,
						 srpt_compat_ipid_ext, v4));
	KUNIT_EXPECT_FALSE(test, srpt_acl_matches("0002:c903:000a:bcdf", true,
						  srpt_compat_ipid_ext, v6));
	/* A full port ID names nothing on a GUID-named port. */
	KUNIT_EXPECT_FALSE(test, srpt_acl_matches("0x00000000000012340002c903000abcde",
						  true, srpt_compat_ipid_ext, v6));
}

static struct kunit_case srpt_compat_cases[] = {
	KUNIT_CASE_PARAM(srpt_compat_service_guid_hex, srpt_compat_guid_ok_gen_params),
	KUNIT_CASE_PARAM(srpt_compat_service_guid_junk, srpt_compat_guid_junk_gen_params),
	KUNIT_CASE_PARAM(srpt_compat_tpg_names, srpt_compat_tpg_ok_gen_params),
	KUNIT_CASE_PARAM(srpt_compat_tpg_names_bad, srpt_compat_tpg_bad_gen_params),
	KUNIT_CASE(srpt_compat_rtslib_names),
	KUNIT_CASE(srpt_compat_pr_names),
	KUNIT_CASE_PARAM(srpt_compat_acl_gid_spellings, srpt_compat_gid_same_gen_params),
	KUNIT_CASE(srpt_compat_acl_gid_port),
	KUNIT_CASE(srpt_compat_acl_guid_port_ib_cm),
	KUNIT_CASE(srpt_compat_acl_guid_port_rdma_cm),
	{}
};

static struct kunit_suite srpt_upstream_names_suite = {
	.name = "ib_srpt_upstream_names",
	.test_cases = srpt_compat_cases,
};

kunit_test_suite(srpt_upstream_names_suite);
