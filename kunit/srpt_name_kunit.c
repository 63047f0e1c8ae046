// SPDX-License-Identifier: GPL-2.0-only
/*
 * Names users write in configfs: srpt_parse_i_port_id() (target port and
 * initiator port IDs) and srpt_parse_acl_name() (ACLs, which may also be
 * IPv4/IPv6 addresses for RDMA/CM logins).
 */

#include "srpt_kunit.h"

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

/* A form srpt_parse_acl_name() never reports: "not written". */
#define SRPT_TEST_NO_FORM	((enum srpt_acl_form)0x5a)

static int srpt_test_acl(const char *name, u8 id[16], enum srpt_acl_form *form)
{
	*form = SRPT_TEST_NO_FORM;
	memset(id, SRPT_TEST_POISON, 16);
	return srpt_parse_acl_name(name, id, form);
}

static void srpt_acl_port_id_forms(struct kunit *test)
{
	enum srpt_acl_form form;
	u8 id[16];

	KUNIT_ASSERT_EQ(test, srpt_test_acl("0xfe800000000000000002c903000abcde", id, &form), 0);
	KUNIT_EXPECT_EQ(test, form, SRPT_ACL_PORT_ID);
	KUNIT_EXPECT_MEMEQ(test, id, srpt_test_id_full, 16);

	KUNIT_ASSERT_EQ(test, srpt_test_acl("fe800000000000000002c903000abcde", id, &form), 0);
	KUNIT_EXPECT_EQ(test, form, SRPT_ACL_PORT_ID);
	KUNIT_EXPECT_MEMEQ(test, id, srpt_test_id_full, 16);

	/* Four groups parse as a GUID, never as a (malformed) IPv6 address. */
	KUNIT_ASSERT_EQ(test, srpt_test_acl("0002:c903:000a:bcde", id, &form), 0);
	KUNIT_EXPECT_EQ(test, form, SRPT_ACL_GUID);
	KUNIT_EXPECT_MEMEQ(test, id, srpt_test_id_guid, 16);
}

/*
 * The same eight bytes 00 02 c9 03 00 0a bc de written as a port GUID
 * (four groups) and as a port ID (hex digits): the form, which decides
 * what an ACL names, tells them apart, even where the 16 bytes parsed are
 * the same. A port ID's digits are right-aligned: 16 of them fill bytes 8
 * to 15 like a GUID does, 32 of them put the eight bytes in bytes 0 to 7.
 */
struct srpt_test_guid_or_id {
	const char *name;
	enum srpt_acl_form form;
	bool low_half;		/* the eight bytes are bytes 8..15, 0..7 zero */
};

static const struct srpt_test_guid_or_id srpt_guid_or_id_rows[] = {
	{ "0002:c903:000a:bcde", SRPT_ACL_GUID, true },
	{ "2:c903:a:bcde", SRPT_ACL_GUID, true },
	{ "0002:C903:000A:BCDE\n", SRPT_ACL_GUID, true },
	{ "0x0002c903000abcde", SRPT_ACL_PORT_ID, true },
	{ "0002c903000abcde", SRPT_ACL_PORT_ID, true },
	{ "0X0002C903000ABCDE\n", SRPT_ACL_PORT_ID, true },
	{ "0x00000000000000000002c903000abcde", SRPT_ACL_PORT_ID, true },
	{ "0x0002c903000abcde0000000000000000", SRPT_ACL_PORT_ID, false },
};

static void srpt_guid_or_id_desc(const struct srpt_test_guid_or_id *r, char *desc)
{
	srpt_test_str_desc(&r->name, desc);
}

KUNIT_ARRAY_PARAM(srpt_guid_or_id, srpt_guid_or_id_rows, srpt_guid_or_id_desc);

static void srpt_acl_guid_vs_port_id(struct kunit *test)
{
	const struct srpt_test_guid_or_id *r = test->param_value;
	static const u8 high[16] = {
		0x00, 0x02, 0xc9, 0x03, 0x00, 0x0a, 0xbc, 0xde,
		0, 0, 0, 0, 0, 0, 0, 0,
	};
	enum srpt_acl_form form;
	u8 id[16], pid[16];

	KUNIT_ASSERT_EQ(test, srpt_test_acl(r->name, id, &form), 0);
	KUNIT_EXPECT_EQ(test, form, r->form);
	KUNIT_EXPECT_MEMEQ(test, id, r->low_half ? srpt_test_id_guid : high, 16);
	/* srpt_parse_i_port_id() places the bytes the same way. */
	KUNIT_ASSERT_EQ(test, srpt_test_parse(r->name, pid), 0);
	KUNIT_EXPECT_MEMEQ(test, pid, id, 16);
}

/*
 * Where the form matters: on a GID-named target port an ACL names the
 * whole initiator port ID, so "0x0002c903000abcde" admits the initiator
 * whose port ID is 0...0 || 0002c903000abcde and the GUID spelling of the
 * same bytes admits nobody; on a GUID-named port both name the GUID.
 */
static void srpt_acl_guid_vs_port_id_match(struct kunit *test)
{
	struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6 };
	const struct sockaddr *src = (const struct sockaddr *)&sin6;

	KUNIT_EXPECT_TRUE(test, srpt_acl_matches("0x0002c903000abcde", false,
						 srpt_test_id_guid, src));
	KUNIT_EXPECT_FALSE(test, srpt_acl_matches("0002:c903:000a:bcde", false,
						  srpt_test_id_guid, src));
	KUNIT_EXPECT_TRUE(test, srpt_acl_matches("0002:c903:000a:bcde", true,
						 srpt_test_id_full, src));
	KUNIT_EXPECT_TRUE(test, srpt_acl_matches("0x0002c903000abcde", true,
						 srpt_test_id_full, src));
	/* Eight bytes in the upper half are a port ID with an extension. */
	KUNIT_EXPECT_FALSE(test, srpt_acl_matches("0x0002c903000abcde0000000000000000",
						  true, srpt_test_id_full, src));
}

static const char * const srpt_acl_ips[] = {
	"192.168.1.10", "10.0.0.1", "0.0.0.0", "255.255.255.255",
	"fd00::1", "::1", "fe80::202:c903:a:bcde", "2001:db8:0:0:1:2:3:4",
};

KUNIT_ARRAY_PARAM(srpt_acl_ips, srpt_acl_ips, srpt_test_str_desc);

static void srpt_acl_ip(struct kunit *test)
{
	const char * const *name = test->param_value;
	enum srpt_acl_form form;
	u8 id[16];

	KUNIT_EXPECT_EQ(test, srpt_test_acl(*name, id, &form), 0);
	KUNIT_EXPECT_EQ(test, form, SRPT_ACL_IP);
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
	enum srpt_acl_form form;
	u8 id[16];

	KUNIT_EXPECT_EQ(test, srpt_test_acl(*name, id, &form), -EINVAL);
	/* Nothing is written for a rejected name. */
	KUNIT_EXPECT_TRUE(test, srpt_test_all_eq(id, 16, SRPT_TEST_POISON));
}

struct srpt_test_portal {
	const char	*name;
	unsigned short	family;
	const char	*addr;		/* as %pISc prints it */
	u16		port;
	u32		scope;
};

static const struct srpt_test_portal srpt_test_portals[] = {
	{ "10.0.0.1:5555", AF_INET, "10.0.0.1", 5555 },
	{ "0.0.0.0:65535", AF_INET, "0.0.0.0", 65535 },
	{ "[fd00::1]:4420", AF_INET6, "fd00::1", 4420 },
	{ "[::]:1", AF_INET6, "::", 1 },
	{ "[fe80::2:c903:a:bcde%7]:5555", AF_INET6, "fe80::2:c903:a:bcde", 5555, 7 },
	/* The longest address with the longest numeric scope. */
	{ "[fe80:0000:0000:0000:0202:c9ff:fe03:abcd%4294967295]:65535", AF_INET6,
	  "fe80::202:c9ff:fe03:abcd", 65535, 4294967295U },
};

static void srpt_test_portal_desc(const struct srpt_test_portal *p, char *desc)
{
	strscpy(desc, p->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(srpt_test_portals, srpt_test_portals, srpt_test_portal_desc);

static void srpt_portal_name(struct kunit *test)
{
	const struct srpt_test_portal *p = test->param_value;
	struct sockaddr_storage ss;
	char got[INET6_ADDRSTRLEN];

	memset(&ss, 0xa5, sizeof(ss));
	KUNIT_ASSERT_EQ(test, srpt_portal_parse(&init_net, p->name, &ss), 0);
	KUNIT_EXPECT_EQ(test, ss.ss_family, p->family);
	snprintf(got, sizeof(got), "%pISc", &ss);
	KUNIT_EXPECT_STREQ(test, got, p->addr);
	if (p->family == AF_INET) {
		KUNIT_EXPECT_EQ(test, be16_to_cpu(((struct sockaddr_in *)&ss)->sin_port),
				p->port);
	} else {
		struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;

		KUNIT_EXPECT_EQ(test, be16_to_cpu(a6->sin6_port), p->port);
		KUNIT_EXPECT_EQ(test, a6->sin6_scope_id, p->scope);
	}
}

static const char * const srpt_portal_junk[] = {
	"", ":5555", "10.0.0.1", "10.0.0.1:", "10.0.0.1:0", "10.0.0.1:65536",
	"10.0.0.1:+5555", "10.0.0.1:5555x", "10.0.0.1: 5555", "fd00::1:5555",
	"[fd00::1]5555", "[fd00::1]:", "[]:5555", "[10.0.0.1]:5555",
	"fd00::1]:5555", "[fd00::1:5555", "256.0.0.1:5555", "[gggg::1]:5555",
	"host.example:5555",
	/* Ports are decimal: no octal, no leading zero, no hex. */
	"10.0.0.1:010", "10.0.0.1:08", "10.0.0.1:0x10", "[fd00::1]:05555",
	/* A scope only means something on a link-local address. */
	"[fd00::1%1]:5555", "[::%1]:5555",
	/* The scope of a link-local address must resolve. */
	"[fe80::1%]:5555", "[fe80::1%no-such-if0]:5555", "[fe80::1%07]:5555",
	/* Nothing may follow the address. */
	"1.2.3.4:5:6", "1.2.3.4x:5555", "1.2.3.4 :5555", "[fd00::1x]:5555",
	"[fd00::1 ]:5555", "[1.2.3.4]:5555",
};

KUNIT_ARRAY_PARAM(srpt_portal_junk, srpt_portal_junk, srpt_test_str_desc);

static void srpt_portal_rejects_junk(struct kunit *test)
{
	const char * const *name = test->param_value;
	struct sockaddr_storage ss;

	KUNIT_EXPECT_EQ(test, srpt_portal_parse(&init_net, *name, &ss), -EINVAL);
}

/* An IB CM login over RoCE is served where a portal covers its GID. */
struct srpt_test_covers {
	const char *portal;
	const char *gid;	/* IPv6 form; ::ffff:a.b.c.d is IPv4 */
	int ifindex;		/* of the GID's interface */
	bool covered;
};

static const struct srpt_test_covers srpt_test_covers[] = {
	{ "0.0.0.0:5555", "::ffff:10.0.0.1", 2, true },
	{ "10.0.0.1:5555", "::ffff:10.0.0.1", 2, true },
	{ "10.0.0.2:5555", "::ffff:10.0.0.1", 2, false },
	{ "[::]:5555", "::ffff:10.0.0.1", 2, false },
	{ "0.0.0.0:5555", "fd00::1", 2, false },
	{ "[::]:5555", "fe80::1", 2, true },
	{ "[fd00::1]:5555", "fd00::1", 2, true },
	{ "[fd00::1]:5555", "fd00::2", 2, false },
	{ "[fd00::1]:5555", "fe80::1", 2, false },
	{ "[fe80::1%3]:5555", "fe80::1", 3, true },
	{ "[fe80::1%3]:5555", "fe80::1", 4, false },
};

static void srpt_test_covers_desc(const struct srpt_test_covers *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s vs %s if %d", c->portal, c->gid,
		 c->ifindex);
}

KUNIT_ARRAY_PARAM(srpt_test_covers, srpt_test_covers, srpt_test_covers_desc);

static void srpt_portal_covers_gid(struct kunit *test)
{
	const struct srpt_test_covers *c = test->param_value;
	struct srpt_portal p = {};
	struct sockaddr_storage a;
	union ib_gid gid;

	KUNIT_ASSERT_EQ(test, srpt_portal_parse(&init_net, c->portal, &p.addr), 0);
	KUNIT_ASSERT_EQ(test, in6_pton(c->gid, -1, gid.raw, -1, NULL), 1);
	rdma_gid2ip((struct sockaddr *)&a, &gid);
	KUNIT_EXPECT_EQ(test, srpt_portal_covers(&p, (struct sockaddr *)&a,
						 c->ifindex), c->covered);
}

/* login_info's lines, as ib_srp's add_target parses them. */
static void srpt_login_info_lines(struct kunit *test)
{
	u64 saved = srpt_service_guid;
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6 };
	struct sockaddr_in a4 = { .sin_family = AF_INET };
	union ib_gid gid;
	char line[160];
	char *page;
	int at;

	page = (char *)get_zeroed_page(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, page);
	srpt_service_guid = 0x0002c903000abcdeULL;
	a4.sin_addr.s_addr = htonl(0x0a5c0001);
	KUNIT_ASSERT_EQ(test, in6_pton("fd00::1", -1, a6.sin6_addr.s6_addr, -1, NULL), 1);
	KUNIT_ASSERT_EQ(test, in6_pton("fe80::2:c903:a:bcdf", -1, gid.raw, -1, NULL), 1);

	srpt_rdma_cm_line(line, sizeof(line), (struct sockaddr *)&a4, 5556);
	KUNIT_EXPECT_STREQ(test, line,
			   "id_ext=0002c903000abcde,ioc_guid=0002c903000abcde,dest=10.92.0.1:5556\n");
	srpt_rdma_cm_line(line, sizeof(line), (struct sockaddr *)&a6, 5555);
	KUNIT_EXPECT_STREQ(test, line,
			   "id_ext=0002c903000abcde,ioc_guid=0002c903000abcde,dest=[fd00::1]:5555\n");
	srpt_ib_cm_line(line, sizeof(line), &gid, 0x8001);
	KUNIT_EXPECT_STREQ(test, line,
			   "id_ext=0002c903000abcde,ioc_guid=0002c903000abcde,dgid=fe800000000000000002c903000abcdf,pkey=8001,service_id=0002c903000abcde\n");

	/* Two portals covering one address give one line. */
	at = srpt_emit_line_once(page, 0, line);
	KUNIT_EXPECT_EQ(test, at, (int)strlen(line));
	KUNIT_EXPECT_EQ(test, srpt_emit_line_once(page, at, line), at);
	srpt_rdma_cm_line(line, sizeof(line), (struct sockaddr *)&a6, 5555);
	at = srpt_emit_line_once(page, at, line);
	KUNIT_EXPECT_EQ(test, at, (int)strlen(page));
	KUNIT_EXPECT_NOT_NULL(test, strstr(page, "dest=[fd00::1]:5555\n"));
	srpt_service_guid = saved;
	free_page((unsigned long)page);
}

/*
 * rdma_cm_listeners: a namespace's rdma_cm_port pair is one line, a portal
 * one line, a closed one none; the pair's port is the namespace's.
 */
static void srpt_rdma_cm_listeners_lines(struct kunit *test)
{
	static const char * const names[] = {
		"[::]:5555", "0.0.0.0:5555", "[fd00::1]:5556", "192.0.2.1:5557",
	};
	unsigned int inum = init_net.ns.inum;
	struct srpt_portal *p;
	char *page, want[64];
	u16 port, after;
	ssize_t len;
	int i;

	p = kunit_kcalloc(test, ARRAY_SIZE(names), sizeof(*p), GFP_KERNEL);
	page = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	snprintf(want, sizeof(want), "net:[%u] 5555\nnet:[%u] [fd00::1]:5556\n",
		 inum, inum);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_NOT_NULL(test, page);
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		KUNIT_ASSERT_EQ(test, srpt_portal_parse(&init_net, names[i], &p[i].addr), 0);
		p[i].wildcard = i < 2;
		p[i].net = &init_net;
		p[i].inum = inum;
		p[i].listening = true;
		/* Only tested for NULL by what runs here. */
		p[i].cm_id = i < 3 ? (struct rdma_cm_id *)&p[i] : NULL;
	}
	mutex_lock(&srpt_rdma_cm_mutex);
	spin_lock(&srpt_portal_lock);
	for (i = 0; i < ARRAY_SIZE(names); i++)
		list_add_tail(&p[i].node, &srpt_portals);
	spin_unlock(&srpt_portal_lock);
	len = srpt_rdma_cm_listeners_show(NULL, page);
	port = srpt_net_port(&init_net);
	spin_lock(&srpt_portal_lock);
	for (i = 0; i < ARRAY_SIZE(names); i++)
		list_del(&p[i].node);
	spin_unlock(&srpt_portal_lock);
	after = srpt_net_port(&init_net);
	mutex_unlock(&srpt_rdma_cm_mutex);

	KUNIT_EXPECT_STREQ(test, page, want);
	KUNIT_EXPECT_EQ(test, len, (ssize_t)strlen(want));
	KUNIT_EXPECT_EQ(test, port, 5555);
	KUNIT_EXPECT_EQ(test, after, 0);
}

/*
 * rdma_cm_port's pair: two wildcard listeners on the port, replaced as a
 * whole by another port, gone with 0; portals are left alone.
 */
static void srpt_rdma_cm_listen_pair(struct kunit *test)
{
	struct srpt_portal *p;
	int n;

	KUNIT_ASSERT_EQ(test, srpt_net_port(&init_net), 0);
	KUNIT_ASSERT_EQ(test, srpt_rdma_cm_listen(&init_net, 5555), 0);
	KUNIT_EXPECT_EQ(test, srpt_net_port(&init_net), 5555);
	KUNIT_EXPECT_EQ(test, srpt_rdma_cm_listen(&init_net, 5556), 0);
	KUNIT_EXPECT_EQ(test, srpt_net_port(&init_net), 5556);
	n = 0;
	mutex_lock(&srpt_rdma_cm_mutex);
	list_for_each_entry(p, &srpt_portals, node) {
		KUNIT_EXPECT_TRUE(test, p->wildcard && p->listening && p->cm_id);
		KUNIT_EXPECT_EQ(test, srpt_portal_port(p), 5556);
		KUNIT_EXPECT_TRUE(test, net_eq(p->net, &init_net));
		n++;
	}
	mutex_unlock(&srpt_rdma_cm_mutex);
	KUNIT_EXPECT_EQ(test, n, 2);
	KUNIT_EXPECT_EQ(test, srpt_rdma_cm_listen(&init_net, 0), 0);
	KUNIT_EXPECT_EQ(test, srpt_net_port(&init_net), 0);
	KUNIT_EXPECT_TRUE(test, list_empty(&srpt_portals));
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
	KUNIT_CASE_PARAM(srpt_acl_guid_vs_port_id, srpt_guid_or_id_gen_params),
	KUNIT_CASE(srpt_acl_guid_vs_port_id_match),
	KUNIT_CASE_PARAM(srpt_acl_ip, srpt_acl_ips_gen_params),
	KUNIT_CASE_PARAM(srpt_acl_rejects_junk, srpt_acl_junk_gen_params),
	KUNIT_CASE_PARAM(srpt_portal_name, srpt_test_portals_gen_params),
	KUNIT_CASE_PARAM(srpt_portal_rejects_junk, srpt_portal_junk_gen_params),
	KUNIT_CASE_PARAM(srpt_portal_covers_gid, srpt_test_covers_gen_params),
	KUNIT_CASE(srpt_login_info_lines),
	KUNIT_CASE(srpt_rdma_cm_listeners_lines),
	KUNIT_CASE(srpt_rdma_cm_listen_pair),
	{}
};

static struct kunit_suite srpt_name_suite = {
	.name = "ib_srpt_name",
	.test_cases = srpt_name_cases,
};

kunit_test_suite(srpt_name_suite);
