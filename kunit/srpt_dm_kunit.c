// SPDX-License-Identifier: GPL-2.0-only
/*
 * Device Management MADs (IB spec 16.3): srpt_set_ioc(),
 * srpt_get_class_port_info(), srpt_get_iou(), srpt_get_ioc(),
 * srpt_get_svc_entries() and the srpt_mgmt_method_get() dispatcher.
 * Byte offsets are checked against the wire layout, not only the structs.
 */

#include "srpt_kunit.h"

#define SRPT_TEST_GUID		0x0002c90300a1b2c3ULL
#define SRPT_TEST_MAX_REQ_SIZE	4200

struct srpt_dm_fixture {
	struct ib_device *ibdev;
	struct srpt_device *sdev;
	struct srpt_port *sport;
	u64 saved_guid;
	unsigned int saved_max_req_size;
};

static int srpt_dm_init(struct kunit *test)
{
	struct srpt_dm_fixture *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);

	if (!f)
		return -ENOMEM;
	f->ibdev = kunit_kzalloc(test, sizeof(*f->ibdev), GFP_KERNEL);
	f->sdev = kunit_kzalloc(test, struct_size(f->sdev, port, 1), GFP_KERNEL);
	if (!f->ibdev || !f->sdev)
		return -ENOMEM;
	f->ibdev->attrs.vendor_id = 0x0002c9;
	f->ibdev->attrs.vendor_part_id = 4099;
	f->ibdev->attrs.hw_ver = 0xa0;
	f->sdev->device = f->ibdev;
	f->sdev->srq_size = 4095;
	f->sdev->port_cnt = 1;
	f->sport = &f->sdev->port[0];
	f->sport->sdev = f->sdev;
	f->sport->port = 1;
	f->sport->limits.srp_max_rdma_size = 65536;

	f->saved_guid = srpt_service_guid;
	f->saved_max_req_size = srp_max_req_size;
	srpt_service_guid = SRPT_TEST_GUID;
	srp_max_req_size = SRPT_TEST_MAX_REQ_SIZE;
	test->priv = f;
	return 0;
}

static void srpt_dm_exit(struct kunit *test)
{
	struct srpt_dm_fixture *f = test->priv;

	if (!f)
		return;
	srpt_service_guid = f->saved_guid;
	srp_max_req_size = f->saved_max_req_size;
}

static struct ib_dm_mad *srpt_test_dm_mad(struct kunit *test)
{
	struct ib_dm_mad *mad = kunit_kzalloc(test, sizeof(*mad), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, mad);
	return mad;
}

static u16 srpt_test_status(const struct ib_dm_mad *mad)
{
	return be16_to_cpu(mad->mad_hdr.status);
}

static void srpt_dm_set_ioc_nibbles(struct kunit *test)
{
	u8 c[128] = {};

	srpt_set_ioc(c, 1, 1);
	KUNIT_EXPECT_EQ(test, c[0], 0x10);
	srpt_set_ioc(c, 2, 0xa);
	KUNIT_EXPECT_EQ(test, c[0], 0x1a);
	srpt_set_ioc(c, 3, 3);
	KUNIT_EXPECT_EQ(test, c[1], 0x30);
	srpt_set_ioc(c, 16, 5);
	KUNIT_EXPECT_EQ(test, c[7], 0x05);
	/* Only the low four bits of the value are used. */
	srpt_set_ioc(c, 15, 0x1f);
	KUNIT_EXPECT_EQ(test, c[7], 0xf5);
	KUNIT_EXPECT_TRUE(test, srpt_test_all_eq(c + 2, 5, 0));
	KUNIT_EXPECT_TRUE(test, srpt_test_all_eq(c + 8, 120, 0));
}

/* Setting one slot leaves the other nibble of the byte alone. */
static void srpt_dm_set_ioc_preserves_neighbour(struct kunit *test)
{
	u8 c[128];

	memset(c, 0xff, sizeof(c));
	srpt_set_ioc(c, 1, 0);
	KUNIT_EXPECT_EQ(test, c[0], 0x0f);
	srpt_set_ioc(c, 4, 0);
	KUNIT_EXPECT_EQ(test, c[1], 0xf0);
	srpt_set_ioc(c, 4, 0x2);
	KUNIT_EXPECT_EQ(test, c[1], 0xf2);
	KUNIT_EXPECT_TRUE(test, srpt_test_all_eq(c + 2, 126, 0xff));
}

static void srpt_dm_class_port_info(struct kunit *test)
{
	struct ib_dm_mad *mad = srpt_test_dm_mad(test);
	struct ib_class_port_info *cif = (void *)mad->data;

	srpt_get_class_port_info(mad);
	KUNIT_EXPECT_EQ(test, mad->data[0], 1);		/* base_version */
	KUNIT_EXPECT_EQ(test, mad->data[1], 1);		/* class_version */
	KUNIT_EXPECT_EQ(test, cif->base_version, 1);
	KUNIT_EXPECT_EQ(test, cif->class_version, 1);
	KUNIT_EXPECT_EQ(test, ib_get_cpi_resp_time(cif), 20);
	KUNIT_EXPECT_EQ(test, mad->data[7] & 0x1f, 20);
	KUNIT_EXPECT_EQ(test, srpt_test_status(mad), 0);
}

static void srpt_dm_iou_info(struct kunit *test)
{
	struct ib_dm_mad *mad = srpt_test_dm_mad(test);
	struct ib_dm_iou_info *iou = (void *)mad->data;

	srpt_get_iou(mad);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(iou->change_id), 1);
	KUNIT_EXPECT_EQ(test, mad->data[0], 0);
	KUNIT_EXPECT_EQ(test, mad->data[1], 1);
	KUNIT_EXPECT_EQ(test, mad->data[2], 16);	/* max_controllers */
	KUNIT_EXPECT_EQ(test, mad->data[4], 0x10);	/* slot 1 present */
	KUNIT_EXPECT_TRUE(test, srpt_test_all_eq(iou->controller_list + 1, 127, 0));
	KUNIT_EXPECT_EQ(test, srpt_test_status(mad), 0);
}

static void srpt_dm_ioc_profile(struct kunit *test)
{
	struct srpt_dm_fixture *f = test->priv;
	struct ib_dm_mad *mad = srpt_test_dm_mad(test);
	struct ib_dm_ioc_profile *p = (void *)mad->data;
	const u8 *d = mad->data;

	srpt_get_ioc(f->sport, 1, mad);
	KUNIT_EXPECT_EQ(test, srpt_test_status(mad), 0);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(p->guid), SRPT_TEST_GUID);
	KUNIT_EXPECT_EQ(test, d[0], 0x00);
	KUNIT_EXPECT_EQ(test, d[7], 0xc3);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(p->vendor_id), 0x0002c9U);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(p->device_id), 4099U);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(p->device_version), 0xa0);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(p->subsys_vendor_id), 0x0002c9U);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(p->subsys_device_id), 0U);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(p->io_class), SRP_REV16A_IB_IO_CLASS);
	KUNIT_EXPECT_EQ(test, d[28], 0x01);
	KUNIT_EXPECT_EQ(test, d[29], 0x00);
	KUNIT_EXPECT_EQ(test, d[30], 0x60);		/* io_subclass 0x609e */
	KUNIT_EXPECT_EQ(test, d[31], 0x9e);
	KUNIT_EXPECT_EQ(test, d[32], 0x01);		/* protocol 0x0108 */
	KUNIT_EXPECT_EQ(test, d[33], 0x08);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(p->protocol_version), 1);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(p->send_queue_depth), 4095);
	KUNIT_EXPECT_EQ(test, d[40], 0x0f);
	KUNIT_EXPECT_EQ(test, d[41], 0xff);
	KUNIT_EXPECT_EQ(test, p->rdma_read_depth, 4);
	KUNIT_EXPECT_EQ(test, d[43], 4);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(p->send_size), (u32)SRPT_TEST_MAX_REQ_SIZE);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(p->rdma_size), 65536U);
	KUNIT_EXPECT_EQ(test, d[49], 0x01);		/* rdma_size 0x00010000 */
	KUNIT_EXPECT_EQ(test, p->op_cap_mask, 0x0f);
	KUNIT_EXPECT_EQ(test, d[52], 0x0f);
	KUNIT_EXPECT_EQ(test, p->num_svc_entries, 1);
	KUNIT_EXPECT_EQ(test, d[54], 1);
	KUNIT_EXPECT_NE(test, p->id_string[0], 0);
	KUNIT_EXPECT_LT(test, strnlen((const char *)p->id_string,
				      sizeof(p->id_string)), sizeof(p->id_string));
}

/* The profile follows the module parameters and device attributes. */
static void srpt_dm_ioc_profile_tracks_params(struct kunit *test)
{
	struct srpt_dm_fixture *f = test->priv;
	struct ib_dm_mad *mad = srpt_test_dm_mad(test);
	struct ib_dm_ioc_profile *p = (void *)mad->data;

	srpt_service_guid = 0xfedcba9876543210ULL;
	srp_max_req_size = 996;
	f->sdev->srq_size = 4;
	f->ibdev->attrs.vendor_id = 0x001175;
	f->ibdev->attrs.vendor_part_id = 0x1017;
	f->ibdev->attrs.hw_ver = 2;
	srpt_get_ioc(f->sport, 1, mad);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(p->guid), 0xfedcba9876543210ULL);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(p->send_size), 996U);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(p->send_queue_depth), 4);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(p->vendor_id), 0x001175U);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(p->device_id), 0x1017U);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(p->device_version), 2);
}

static void srpt_dm_ioc_rdma_size_clamped(struct kunit *test)
{
	struct srpt_dm_fixture *f = test->priv;
	struct ib_dm_mad *mad = srpt_test_dm_mad(test);
	struct ib_dm_ioc_profile *p = (void *)mad->data;

	f->sport->limits.srp_max_rdma_size = 1U << 30;
	srpt_get_ioc(f->sport, 1, mad);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(p->rdma_size), 1U << 24);

	mad = srpt_test_dm_mad(test);
	p = (void *)mad->data;
	f->sport->limits.srp_max_rdma_size = 1U << 24;
	srpt_get_ioc(f->sport, 1, mad);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(p->rdma_size), 1U << 24);
}

struct srpt_ioc_slot_case {
	u32 slot;
	u16 status;
};

static const struct srpt_ioc_slot_case srpt_ioc_slot_cases[] = {
	{ 0, DM_MAD_STATUS_INVALID_FIELD },
	{ 2, DM_MAD_STATUS_NO_IOC },
	{ 16, DM_MAD_STATUS_NO_IOC },
	{ 17, DM_MAD_STATUS_INVALID_FIELD },
	{ 256, DM_MAD_STATUS_INVALID_FIELD },
	{ 0xffffffff, DM_MAD_STATUS_INVALID_FIELD },
};

static void srpt_ioc_slot_desc(const struct srpt_ioc_slot_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "slot %u", c->slot);
}

KUNIT_ARRAY_PARAM(srpt_ioc_slot, srpt_ioc_slot_cases, srpt_ioc_slot_desc);

static void srpt_dm_ioc_slot_bounds(struct kunit *test)
{
	const struct srpt_ioc_slot_case *c = test->param_value;
	struct srpt_dm_fixture *f = test->priv;
	struct ib_dm_mad *mad = srpt_test_dm_mad(test);

	srpt_get_ioc(f->sport, c->slot, mad);
	KUNIT_EXPECT_EQ(test, srpt_test_status(mad), c->status);
	/* No profile is leaked into a failed response. */
	KUNIT_EXPECT_EQ(test, ((struct ib_dm_ioc_profile *)mad->data)->guid, 0);
}

static void srpt_dm_svc_entries(struct kunit *test)
{
	struct ib_dm_mad *mad = srpt_test_dm_mad(test);
	struct ib_dm_svc_entries *se = (void *)mad->data;

	srpt_get_svc_entries(SRPT_TEST_GUID, 1, 0, 0, mad);
	KUNIT_EXPECT_EQ(test, srpt_test_status(mad), 0);
	KUNIT_EXPECT_STREQ(test, (char *)se->service_entries[0].name,
			   "SRP.T10:0002c90300a1b2c3");
	KUNIT_EXPECT_EQ(test, be64_to_cpu(se->service_entries[0].id), SRPT_TEST_GUID);
	/* id at byte 40 of the entry, big-endian. */
	KUNIT_EXPECT_EQ(test, mad->data[40], 0x00);
	KUNIT_EXPECT_EQ(test, mad->data[41], 0x02);
	KUNIT_EXPECT_EQ(test, mad->data[47], 0xc3);
}

static void srpt_dm_svc_entries_name_format(struct kunit *test)
{
	struct ib_dm_mad *mad = srpt_test_dm_mad(test);
	struct ib_dm_svc_entries *se = (void *)mad->data;

	srpt_get_svc_entries(0xABCDEF0123456789ULL, 1, 0, 0, mad);
	KUNIT_EXPECT_EQ(test, srpt_test_status(mad), 0);
	KUNIT_EXPECT_STREQ(test, (char *)se->service_entries[0].name,
			   "SRP.T10:abcdef0123456789");

	mad = srpt_test_dm_mad(test);
	se = (void *)mad->data;
	srpt_get_svc_entries(0x1, 1, 0, 0, mad);
	KUNIT_EXPECT_STREQ(test, (char *)se->service_entries[0].name,
			   "SRP.T10:0000000000000001");
	KUNIT_EXPECT_EQ(test, be64_to_cpu(se->service_entries[0].id), 1ULL);
}

struct srpt_svc_case {
	u16 slot;
	u8 hi, lo;
	u16 status;
};

static const struct srpt_svc_case srpt_svc_cases[] = {
	{ 0, 0, 0, DM_MAD_STATUS_INVALID_FIELD },
	{ 17, 0, 0, DM_MAD_STATUS_INVALID_FIELD },
	{ 0xffff, 0, 0, DM_MAD_STATUS_INVALID_FIELD },
	{ 2, 0, 0, DM_MAD_STATUS_NO_IOC },
	{ 16, 0, 0, DM_MAD_STATUS_NO_IOC },
	{ 1, 0, 1, DM_MAD_STATUS_INVALID_FIELD },	/* hi < lo */
	{ 1, 2, 0, DM_MAD_STATUS_INVALID_FIELD },
	{ 1, 2, 2, DM_MAD_STATUS_INVALID_FIELD },
	{ 1, 255, 0, DM_MAD_STATUS_INVALID_FIELD },
	/* Entry 1 does not exist: the controller has one service, entry 0. */
	{ 1, 1, 0, DM_MAD_STATUS_INVALID_FIELD },
	{ 1, 1, 1, DM_MAD_STATUS_INVALID_FIELD },
	{ 1, 0, 0, 0 },
};

static void srpt_svc_desc(const struct srpt_svc_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "slot %u hi %u lo %u", c->slot,
		 c->hi, c->lo);
}

KUNIT_ARRAY_PARAM(srpt_svc, srpt_svc_cases, srpt_svc_desc);

static void srpt_dm_svc_entries_bounds(struct kunit *test)
{
	const struct srpt_svc_case *c = test->param_value;
	struct ib_dm_mad *mad = srpt_test_dm_mad(test);

	srpt_get_svc_entries(SRPT_TEST_GUID, c->slot, c->hi, c->lo, mad);
	KUNIT_EXPECT_EQ(test, srpt_test_status(mad), c->status);
}

static struct ib_mad *srpt_test_get_req(struct kunit *test, u16 attr_id, u32 attr_mod)
{
	struct ib_mad *rq = kunit_kzalloc(test, sizeof(*rq), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, rq);
	rq->mad_hdr.base_version = IB_MGMT_BASE_VERSION;
	rq->mad_hdr.mgmt_class = IB_MGMT_CLASS_DEVICE_MGMT;
	rq->mad_hdr.class_version = 1;
	rq->mad_hdr.method = IB_MGMT_METHOD_GET;
	rq->mad_hdr.attr_id = cpu_to_be16(attr_id);
	rq->mad_hdr.attr_mod = cpu_to_be32(attr_mod);
	return rq;
}

static struct ib_dm_mad *srpt_test_get(struct kunit *test, u16 attr_id, u32 attr_mod)
{
	struct srpt_dm_fixture *f = test->priv;
	struct ib_dm_mad *rsp = srpt_test_dm_mad(test);

	srpt_mgmt_method_get(f->sport, srpt_test_get_req(test, attr_id, attr_mod), rsp);
	return rsp;
}

static void srpt_dm_get_class_port_info(struct kunit *test)
{
	struct ib_dm_mad *rsp = srpt_test_get(test, DM_ATTR_CLASS_PORT_INFO, 0);

	KUNIT_EXPECT_EQ(test, srpt_test_status(rsp), 0);
	KUNIT_EXPECT_EQ(test, rsp->data[0], 1);
	KUNIT_EXPECT_EQ(test, rsp->data[1], 1);
	KUNIT_EXPECT_EQ(test, ib_get_cpi_resp_time((void *)rsp->data), 20);
}

static void srpt_dm_get_iou_info(struct kunit *test)
{
	struct ib_dm_mad *rsp = srpt_test_get(test, DM_ATTR_IOU_INFO, 0);

	KUNIT_EXPECT_EQ(test, srpt_test_status(rsp), 0);
	KUNIT_EXPECT_EQ(test, rsp->data[1], 1);
	KUNIT_EXPECT_EQ(test, rsp->data[2], 16);
	KUNIT_EXPECT_EQ(test, rsp->data[4], 0x10);
	KUNIT_EXPECT_EQ(test, rsp->data[5], 0);
}

static void srpt_dm_get_ioc_profile(struct kunit *test)
{
	struct ib_dm_mad *rsp = srpt_test_get(test, DM_ATTR_IOC_PROFILE, 1);
	struct ib_dm_ioc_profile *p = (void *)rsp->data;

	KUNIT_EXPECT_EQ(test, srpt_test_status(rsp), 0);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(p->guid), SRPT_TEST_GUID);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(p->protocol), SRP_PROTOCOL);

	rsp = srpt_test_get(test, DM_ATTR_IOC_PROFILE, 2);
	KUNIT_EXPECT_EQ(test, srpt_test_status(rsp), DM_MAD_STATUS_NO_IOC);
	rsp = srpt_test_get(test, DM_ATTR_IOC_PROFILE, 0);
	KUNIT_EXPECT_EQ(test, srpt_test_status(rsp), DM_MAD_STATUS_INVALID_FIELD);
	/* attr_mod is big-endian: slot 1 read in the wrong order is 1 << 24. */
	rsp = srpt_test_get(test, DM_ATTR_IOC_PROFILE, 1U << 24);
	KUNIT_EXPECT_EQ(test, srpt_test_status(rsp), DM_MAD_STATUS_INVALID_FIELD);
}

static void srpt_dm_get_svc_entries(struct kunit *test)
{
	struct ib_dm_mad *rsp = srpt_test_get(test, DM_ATTR_SVC_ENTRIES, 1 << 16);
	struct ib_dm_svc_entries *se = (void *)rsp->data;

	KUNIT_EXPECT_EQ(test, srpt_test_status(rsp), 0);
	KUNIT_EXPECT_STREQ(test, (char *)se->service_entries[0].name,
			   "SRP.T10:0002c90300a1b2c3");
	KUNIT_EXPECT_EQ(test, be64_to_cpu(se->service_entries[0].id), SRPT_TEST_GUID);

	rsp = srpt_test_get(test, DM_ATTR_SVC_ENTRIES, 1 << 16 | 1 << 8 | 0);
	KUNIT_EXPECT_EQ(test, srpt_test_status(rsp), DM_MAD_STATUS_INVALID_FIELD);
	rsp = srpt_test_get(test, DM_ATTR_SVC_ENTRIES, 2 << 16);
	KUNIT_EXPECT_EQ(test, srpt_test_status(rsp), DM_MAD_STATUS_NO_IOC);
	rsp = srpt_test_get(test, DM_ATTR_SVC_ENTRIES, 0);
	KUNIT_EXPECT_EQ(test, srpt_test_status(rsp), DM_MAD_STATUS_INVALID_FIELD);
	rsp = srpt_test_get(test, DM_ATTR_SVC_ENTRIES, 17 << 16);
	KUNIT_EXPECT_EQ(test, srpt_test_status(rsp), DM_MAD_STATUS_INVALID_FIELD);
	rsp = srpt_test_get(test, DM_ATTR_SVC_ENTRIES, 1 << 16 | 0 << 8 | 1);
	KUNIT_EXPECT_EQ(test, srpt_test_status(rsp), DM_MAD_STATUS_INVALID_FIELD);
	rsp = srpt_test_get(test, DM_ATTR_SVC_ENTRIES, 1 << 16 | 2 << 8 | 0);
	KUNIT_EXPECT_EQ(test, srpt_test_status(rsp), DM_MAD_STATUS_INVALID_FIELD);
}

static const u16 srpt_unsup_attrs[] = {
	0x0000, 0x0002, 0x0013, 0x0099, 0xffff,
	0x1000,		/* DM_ATTR_IOU_INFO byte-swapped */
};

static void srpt_unsup_attr_desc(const u16 *attr, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "attr %#x", *attr);
}

KUNIT_ARRAY_PARAM(srpt_unsup_attr, srpt_unsup_attrs, srpt_unsup_attr_desc);

static void srpt_dm_get_unsupported_attr(struct kunit *test)
{
	const u16 *attr = test->param_value;
	struct ib_dm_mad *rsp = srpt_test_get(test, *attr, 1);

	KUNIT_EXPECT_EQ(test, srpt_test_status(rsp), DM_MAD_STATUS_UNSUP_METHOD_ATTR);
}

static struct kunit_case srpt_dm_cases[] = {
	KUNIT_CASE(srpt_dm_set_ioc_nibbles),
	KUNIT_CASE(srpt_dm_set_ioc_preserves_neighbour),
	KUNIT_CASE(srpt_dm_class_port_info),
	KUNIT_CASE(srpt_dm_iou_info),
	KUNIT_CASE(srpt_dm_ioc_profile),
	KUNIT_CASE(srpt_dm_ioc_profile_tracks_params),
	KUNIT_CASE(srpt_dm_ioc_rdma_size_clamped),
	KUNIT_CASE_PARAM(srpt_dm_ioc_slot_bounds, srpt_ioc_slot_gen_params),
	KUNIT_CASE(srpt_dm_svc_entries),
	KUNIT_CASE(srpt_dm_svc_entries_name_format),
	KUNIT_CASE_PARAM(srpt_dm_svc_entries_bounds, srpt_svc_gen_params),
	KUNIT_CASE(srpt_dm_get_class_port_info),
	KUNIT_CASE(srpt_dm_get_iou_info),
	KUNIT_CASE(srpt_dm_get_ioc_profile),
	KUNIT_CASE(srpt_dm_get_svc_entries),
	KUNIT_CASE_PARAM(srpt_dm_get_unsupported_attr, srpt_unsup_attr_gen_params),
	{}
};

static struct kunit_suite srpt_dm_suite = {
	.name = "ib_srpt_dm",
	.init = srpt_dm_init,
	.exit = srpt_dm_exit,
	.test_cases = srpt_dm_cases,
};

kunit_test_suite(srpt_dm_suite);
