// SPDX-License-Identifier: GPL-2.0-only
/*
 * A configfs target port outlives its HCA: srpt_adopt_port_ids() lets the
 * same-named port of a device added later serve it again, and
 * srpt_return_port_ids() gives it back when that device goes away too.
 * The devices here are fakes that only carry what these functions touch.
 */

#include "srpt_kunit.h"

#define SRPT_TEST_ADOPT_GUID	"0002:c903:000a:bcde"
#define SRPT_TEST_GID	"0xfe800000000000000002c903000abcde"

static struct srpt_device *srpt_test_sdev(struct kunit *test, const char *guid,
					  const char *gid, bool removed)
{
	struct srpt_device *sdev;
	struct srpt_port *sport;

	sdev = kunit_kzalloc(test, struct_size(sdev, port, 1), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sdev);
	sdev->device = kunit_kzalloc(test, sizeof(*sdev->device), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sdev->device);
	kref_init(&sdev->refcnt);
	mutex_init(&sdev->sdev_mutex);
	INIT_LIST_HEAD(&sdev->list);
	sdev->removed = removed;
	sdev->port_cnt = 1;

	sport = &sdev->port[0];
	sport->sdev = sdev;
	sport->port = 1;
	mutex_init(&sport->mutex);
	srpt_init_port_id(sport, &sport->port_guid_id);
	srpt_init_port_id(sport, &sport->port_gid_id);
	sport->guid_id = &sport->port_guid_id;
	sport->gid_id = &sport->port_gid_id;
	strscpy(sport->port_guid, guid, sizeof(sport->port_guid));
	strscpy(sport->port_gid, gid, sizeof(sport->port_gid));
	sport->gid_valid = true;
	sport->limits.srp_sq_size = SRPT_SQ_SIZE_DEFAULT;
	return sdev;
}

/* Give @id a configfs name and one TPG, enabled or not. */
static void srpt_test_name_slot(struct kunit *test, struct srpt_port_id *id,
				const char *name, bool enabled)
{
	struct srpt_tpg *stpg = kunit_kzalloc(test, sizeof(*stpg), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, stpg);
	strscpy(id->name, name, sizeof(id->name));
	stpg->sport_id = id;
	stpg->tpg.enabled = enabled;
	stpg->live = enabled;
	list_add_tail(&stpg->entry, &id->tpg_list);
}

/* Run srpt_adopt_port_ids() for @sport with @gone on the device list. */
static void srpt_test_adopt(struct srpt_device *gone, struct srpt_port *sport)
{
	mutex_lock(&srpt_dev_mutex);
	list_add_tail(&gone->list, &srpt_dev_list);
	srpt_adopt_port_ids(sport);
	list_del_init(&gone->list);
	mutex_unlock(&srpt_dev_mutex);
}

static unsigned int srpt_test_return(struct srpt_device *sdev)
{
	unsigned int pins;

	mutex_lock(&srpt_dev_mutex);
	pins = srpt_return_port_ids(sdev);
	mutex_unlock(&srpt_dev_mutex);
	return pins;
}

static void srpt_adopt_configured_name(struct kunit *test)
{
	struct srpt_device *old = srpt_test_sdev(test, SRPT_TEST_ADOPT_GUID, SRPT_TEST_GID, true);
	struct srpt_device *new = srpt_test_sdev(test, SRPT_TEST_ADOPT_GUID, SRPT_TEST_GID, false);
	struct srpt_port_id *id = &old->port[0].port_guid_id;
	struct srpt_port *sport = &new->port[0];

	srpt_test_name_slot(test, id, SRPT_TEST_ADOPT_GUID, true);
	old->port[0].limits.srp_sq_size = 1234;

	srpt_test_adopt(old, sport);
	KUNIT_EXPECT_PTR_EQ(test, sport->guid_id, id);
	KUNIT_EXPECT_PTR_EQ(test, id->sport, sport);
	KUNIT_EXPECT_PTR_EQ(test, id->home, &old->port[0]);
	/* The GID-form slot has no configfs directory: nothing to take over. */
	KUNIT_EXPECT_PTR_EQ(test, sport->gid_id, &sport->port_gid_id);
	KUNIT_EXPECT_TRUE(test, sport->enabled);
	KUNIT_EXPECT_EQ(test, sport->limits.srp_sq_size, 1234U);
	/* The adopted name pins the new device. */
	KUNIT_EXPECT_EQ(test, kref_read(&new->refcnt), 2U);

	KUNIT_EXPECT_EQ(test, srpt_test_return(new), 1U);
	KUNIT_EXPECT_PTR_EQ(test, sport->guid_id, &sport->port_guid_id);
	KUNIT_EXPECT_PTR_EQ(test, id->sport, &old->port[0]);
	srpt_sdev_put(new);
	KUNIT_EXPECT_EQ(test, kref_read(&new->refcnt), 1U);
}

static void srpt_adopt_disabled_tpg_stays_disabled(struct kunit *test)
{
	struct srpt_device *old = srpt_test_sdev(test, SRPT_TEST_ADOPT_GUID, SRPT_TEST_GID, true);
	struct srpt_device *new = srpt_test_sdev(test, SRPT_TEST_ADOPT_GUID, SRPT_TEST_GID, false);
	struct srpt_port *sport = &new->port[0];

	srpt_test_name_slot(test, &old->port[0].port_gid_id, "ib.fe800000000000000002c903000abcde",
			    false);
	srpt_test_adopt(old, sport);
	KUNIT_EXPECT_PTR_EQ(test, sport->gid_id, &old->port[0].port_gid_id);
	KUNIT_EXPECT_FALSE(test, sport->enabled);
	KUNIT_EXPECT_EQ(test, srpt_test_return(new), 1U);
	srpt_sdev_put(new);
}

static void srpt_adopt_needs_same_name(struct kunit *test)
{
	struct srpt_device *old = srpt_test_sdev(test, SRPT_TEST_ADOPT_GUID, SRPT_TEST_GID, true);
	struct srpt_device *new = srpt_test_sdev(test, "0002:c903:000a:bcdf",
						 "0xfe800000000000000002c903000abcdf", false);
	struct srpt_port *sport = &new->port[0];

	srpt_test_name_slot(test, &old->port[0].port_guid_id, SRPT_TEST_ADOPT_GUID, true);
	srpt_test_name_slot(test, &old->port[0].port_gid_id, SRPT_TEST_GID, true);
	srpt_test_adopt(old, sport);
	KUNIT_EXPECT_PTR_EQ(test, sport->guid_id, &sport->port_guid_id);
	KUNIT_EXPECT_PTR_EQ(test, sport->gid_id, &sport->port_gid_id);
	KUNIT_EXPECT_FALSE(test, sport->enabled);
	KUNIT_EXPECT_EQ(test, kref_read(&new->refcnt), 1U);
	KUNIT_EXPECT_EQ(test, srpt_test_return(new), 0U);
}

static void srpt_adopt_not_from_live_or_unnamed(struct kunit *test)
{
	struct srpt_device *live = srpt_test_sdev(test, SRPT_TEST_ADOPT_GUID, SRPT_TEST_GID, false);
	struct srpt_device *gone = srpt_test_sdev(test, SRPT_TEST_ADOPT_GUID, SRPT_TEST_GID, true);
	struct srpt_device *new = srpt_test_sdev(test, SRPT_TEST_ADOPT_GUID, SRPT_TEST_GID, false);
	struct srpt_port *sport = &new->port[0];

	/* A live device keeps its own name. */
	srpt_test_name_slot(test, &live->port[0].port_guid_id, SRPT_TEST_ADOPT_GUID, true);
	srpt_test_adopt(live, sport);
	KUNIT_EXPECT_PTR_EQ(test, sport->guid_id, &sport->port_guid_id);
	KUNIT_EXPECT_PTR_EQ(test, live->port[0].port_guid_id.sport, &live->port[0]);

	/* A removed device whose names have no configfs directory. */
	srpt_test_adopt(gone, sport);
	KUNIT_EXPECT_PTR_EQ(test, sport->guid_id, &sport->port_guid_id);
	KUNIT_EXPECT_PTR_EQ(test, sport->gid_id, &sport->port_gid_id);
	KUNIT_EXPECT_EQ(test, kref_read(&new->refcnt), 1U);
}

static void srpt_adopt_only_once(struct kunit *test)
{
	struct srpt_device *old = srpt_test_sdev(test, SRPT_TEST_ADOPT_GUID, SRPT_TEST_GID, true);
	struct srpt_device *a = srpt_test_sdev(test, SRPT_TEST_ADOPT_GUID, SRPT_TEST_GID, false);
	struct srpt_device *b = srpt_test_sdev(test, SRPT_TEST_ADOPT_GUID, SRPT_TEST_GID, false);
	struct srpt_port_id *id = &old->port[0].port_guid_id;

	srpt_test_name_slot(test, id, SRPT_TEST_ADOPT_GUID, true);
	srpt_test_adopt(old, &a->port[0]);
	KUNIT_EXPECT_PTR_EQ(test, id->sport, &a->port[0]);
	/* Served by @a already: @b must not steal it. */
	srpt_test_adopt(old, &b->port[0]);
	KUNIT_EXPECT_PTR_EQ(test, id->sport, &a->port[0]);
	KUNIT_EXPECT_PTR_EQ(test, b->port[0].guid_id, &b->port[0].port_guid_id);

	/* Once @a goes away the name is free again for the next device. */
	KUNIT_EXPECT_EQ(test, srpt_test_return(a), 1U);
	srpt_sdev_put(a);
	srpt_test_adopt(old, &b->port[0]);
	KUNIT_EXPECT_PTR_EQ(test, id->sport, &b->port[0]);
	KUNIT_EXPECT_EQ(test, srpt_test_return(b), 1U);
	srpt_sdev_put(b);
}

static struct kunit_case srpt_adopt_cases[] = {
	KUNIT_CASE(srpt_adopt_configured_name),
	KUNIT_CASE(srpt_adopt_disabled_tpg_stays_disabled),
	KUNIT_CASE(srpt_adopt_needs_same_name),
	KUNIT_CASE(srpt_adopt_not_from_live_or_unnamed),
	KUNIT_CASE(srpt_adopt_only_once),
	{}
};

static struct kunit_suite srpt_adopt_suite = {
	.name = "ib_srpt_adopt",
	.test_cases = srpt_adopt_cases,
};

kunit_test_suite(srpt_adopt_suite);
