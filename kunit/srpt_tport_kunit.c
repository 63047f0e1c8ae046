// SPDX-License-Identifier: GPL-2.0-only
/*
 * A configfs target port outlives its HCA: srpt_tport_detach() keeps its
 * attributes when the device goes, srpt_attach_tports() lets the
 * same-named port of a device added later serve it again. The devices
 * here are fakes that only carry what these functions touch.
 */

#include "srpt_kunit.h"

#define SRPT_TEST_TPORT_GUID	"0002:c903:000a:bcde"
#define SRPT_TEST_GID	"0xfe800000000000000002c903000abcde"

static struct srpt_device *srpt_test_sdev(struct kunit *test, const char *guid,
					  const char *gid)
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
	sdev->port_cnt = 1;

	sport = &sdev->port[0];
	sport->sdev = sdev;
	sport->port = 1;
	mutex_init(&sport->mutex);
	INIT_LIST_HEAD(&sport->initiators);
	init_waitqueue_head(&sport->freed_channels);
	strscpy(sport->port_guid, guid, sizeof(sport->port_guid));
	strscpy(sport->port_gid, gid, sizeof(sport->port_gid));
	sport->gid_valid = true;
	sport->limits.srp_sq_size = SRPT_SQ_SIZE_DEFAULT;
	return sdev;
}

/*
 * A detached target port named @name with one TPG, enabled or not, on
 * srpt_tports until the test ends.
 */
static struct srpt_tport *srpt_test_new_tport(struct kunit *test,
					      const char *name,
					      bool guid_form, bool enabled)
{
	struct srpt_tport *tport = kunit_kzalloc(test, sizeof(*tport), GFP_KERNEL);
	struct srpt_tpg *stpg = kunit_kzalloc(test, sizeof(*stpg), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, tport);
	KUNIT_ASSERT_NOT_NULL(test, stpg);
	mutex_init(&tport->mutex);
	INIT_LIST_HEAD(&tport->tpg_list);
	strscpy(tport->name, name, sizeof(tport->name));
	tport->guid_form = guid_form;
	tport->limits.srp_sq_size = SRPT_SQ_SIZE_DEFAULT;
	stpg->tport = tport;
	stpg->live = enabled;
	list_add_tail(&stpg->entry, &tport->tpg_list);
	mutex_lock(&srpt_dev_mutex);
	list_add_tail(&tport->entry, &srpt_tports);
	mutex_unlock(&srpt_dev_mutex);
	return tport;
}

static void srpt_test_tport_del(struct srpt_tport *tport)
{
	mutex_lock(&srpt_dev_mutex);
	srpt_tport_detach(tport);
	list_del(&tport->entry);
	mutex_unlock(&srpt_dev_mutex);
}

static void srpt_test_attach(struct srpt_port *sport)
{
	mutex_lock(&srpt_dev_mutex);
	srpt_attach_tports(sport);
	mutex_unlock(&srpt_dev_mutex);
}

static void srpt_test_detach(struct srpt_tport *tport)
{
	mutex_lock(&srpt_dev_mutex);
	srpt_tport_detach(tport);
	mutex_unlock(&srpt_dev_mutex);
}

static void srpt_tport_reattach_keeps_attributes(struct kunit *test)
{
	struct srpt_device *sdev = srpt_test_sdev(test, SRPT_TEST_TPORT_GUID, SRPT_TEST_GID);
	struct srpt_tport *tport = srpt_test_new_tport(test, SRPT_TEST_TPORT_GUID, true, true);
	struct srpt_port *sport = &sdev->port[0];

	tport->limits.srp_sq_size = 1234;
	srpt_test_attach(sport);
	KUNIT_EXPECT_PTR_EQ(test, sport->guid_tport, tport);
	KUNIT_EXPECT_PTR_EQ(test, tport->sport, sport);
	/* The GID form has no configfs directory: nothing to serve there. */
	KUNIT_EXPECT_NULL(test, sport->gid_tport);
	KUNIT_EXPECT_TRUE(test, sport->enabled);
	KUNIT_EXPECT_EQ(test, sport->limits.srp_sq_size, 1234U);
	/* A target port does not pin its device. */
	KUNIT_EXPECT_EQ(test, kref_read(&sdev->refcnt), 1U);

	/* What was set while attached goes with the target port. */
	sport->limits.srp_sq_size = 777;
	srpt_test_detach(tport);
	KUNIT_EXPECT_NULL(test, sport->guid_tport);
	KUNIT_EXPECT_NULL(test, tport->sport);
	KUNIT_EXPECT_EQ(test, tport->limits.srp_sq_size, 777U);
	srpt_test_tport_del(tport);
}

static void srpt_tport_disabled_tpg_stays_disabled(struct kunit *test)
{
	struct srpt_device *sdev = srpt_test_sdev(test, SRPT_TEST_TPORT_GUID, SRPT_TEST_GID);
	struct srpt_tport *tport = srpt_test_new_tport(test, "ib.fe800000000000000002c903000abcde",
						   false, false);
	struct srpt_port *sport = &sdev->port[0];

	srpt_test_attach(sport);
	KUNIT_EXPECT_PTR_EQ(test, sport->gid_tport, tport);
	KUNIT_EXPECT_NULL(test, sport->guid_tport);
	KUNIT_EXPECT_FALSE(test, sport->enabled);
	srpt_test_tport_del(tport);
	KUNIT_EXPECT_NULL(test, sport->gid_tport);
}

static void srpt_tport_needs_same_name(struct kunit *test)
{
	struct srpt_device *sdev = srpt_test_sdev(test, "0002:c903:000a:bcdf",
						  "0xfe800000000000000002c903000abcdf");
	struct srpt_tport *a = srpt_test_new_tport(test, SRPT_TEST_TPORT_GUID, true, true);
	struct srpt_tport *b = srpt_test_new_tport(test, SRPT_TEST_GID, false, true);
	struct srpt_port *sport = &sdev->port[0];

	srpt_test_attach(sport);
	KUNIT_EXPECT_NULL(test, sport->guid_tport);
	KUNIT_EXPECT_NULL(test, sport->gid_tport);
	KUNIT_EXPECT_NULL(test, a->sport);
	KUNIT_EXPECT_NULL(test, b->sport);
	KUNIT_EXPECT_FALSE(test, sport->enabled);
	srpt_test_tport_del(a);
	srpt_test_tport_del(b);
}

static void srpt_tport_attached_once(struct kunit *test)
{
	struct srpt_device *a = srpt_test_sdev(test, SRPT_TEST_TPORT_GUID, SRPT_TEST_GID);
	struct srpt_device *b = srpt_test_sdev(test, SRPT_TEST_TPORT_GUID, SRPT_TEST_GID);
	struct srpt_tport *tport = srpt_test_new_tport(test, SRPT_TEST_TPORT_GUID, true, true);

	srpt_test_attach(&a->port[0]);
	KUNIT_EXPECT_PTR_EQ(test, tport->sport, &a->port[0]);
	/* Served by @a already: @b must not steal it. */
	srpt_test_attach(&b->port[0]);
	KUNIT_EXPECT_PTR_EQ(test, tport->sport, &a->port[0]);
	KUNIT_EXPECT_NULL(test, b->port[0].guid_tport);

	/* Once @a lets it go, the next device serves it. */
	srpt_test_detach(tport);
	KUNIT_EXPECT_NULL(test, a->port[0].guid_tport);
	srpt_test_attach(&b->port[0]);
	KUNIT_EXPECT_PTR_EQ(test, tport->sport, &b->port[0]);
	KUNIT_EXPECT_PTR_EQ(test, b->port[0].guid_tport, tport);
	srpt_test_tport_del(tport);
	KUNIT_EXPECT_NULL(test, b->port[0].guid_tport);
}

/*
 * A device re-added before the removal of its predecessor ended (an
 * asynchronous unregistration) found the name still served and skipped
 * it: the removal must hand the target port over.
 */
static void srpt_tport_removal_hands_over(struct kunit *test)
{
	struct srpt_device *old = srpt_test_sdev(test, SRPT_TEST_TPORT_GUID, SRPT_TEST_GID);
	struct srpt_device *new = srpt_test_sdev(test, SRPT_TEST_TPORT_GUID, SRPT_TEST_GID);
	struct srpt_tport *tport = srpt_test_new_tport(test, SRPT_TEST_TPORT_GUID, true, true);

	mutex_lock(&srpt_dev_mutex);
	list_add_tail(&old->list, &srpt_dev_list);
	srpt_attach_tports(&old->port[0]);
	list_add_tail(&new->list, &srpt_dev_list);
	srpt_attach_tports(&new->port[0]);
	mutex_unlock(&srpt_dev_mutex);
	KUNIT_EXPECT_PTR_EQ(test, tport->sport, &old->port[0]);
	KUNIT_EXPECT_NULL(test, new->port[0].guid_tport);

	old->removed = true;
	mutex_lock(&srpt_dev_mutex);
	srpt_detach_tports(old);
	list_del(&old->list);
	mutex_unlock(&srpt_dev_mutex);
	KUNIT_EXPECT_NULL(test, old->port[0].guid_tport);
	KUNIT_EXPECT_PTR_EQ(test, tport->sport, &new->port[0]);
	KUNIT_EXPECT_PTR_EQ(test, new->port[0].guid_tport, tport);
	KUNIT_EXPECT_TRUE(test, new->port[0].enabled);

	srpt_test_tport_del(tport);
	mutex_lock(&srpt_dev_mutex);
	list_del(&new->list);
	mutex_unlock(&srpt_dev_mutex);
}

/*
 * Enabling and disabling a TPG act on the HCA port serving its target port
 * at that moment; without one, an enable fails and changes nothing, and a
 * port attached later is enabled only for a TPG that is live.
 */
static void srpt_tpg_enable_follows_port(struct kunit *test)
{
	struct srpt_device *old = srpt_test_sdev(test, SRPT_TEST_TPORT_GUID, SRPT_TEST_GID);
	struct srpt_device *new = srpt_test_sdev(test, SRPT_TEST_TPORT_GUID, SRPT_TEST_GID);
	struct srpt_tport *tport = srpt_test_new_tport(test, SRPT_TEST_TPORT_GUID, true, true);
	struct srpt_tpg *stpg = list_first_entry(&tport->tpg_list, struct srpt_tpg, entry);

	srpt_test_attach(&old->port[0]);
	KUNIT_EXPECT_TRUE(test, old->port[0].enabled);
	KUNIT_EXPECT_EQ(test, srpt_enable_tpg(&stpg->tpg, false), 0);
	KUNIT_EXPECT_FALSE(test, stpg->live);
	KUNIT_EXPECT_FALSE(test, old->port[0].enabled);
	KUNIT_EXPECT_EQ(test, srpt_enable_tpg(&stpg->tpg, true), 0);
	KUNIT_EXPECT_TRUE(test, stpg->live);
	KUNIT_EXPECT_TRUE(test, old->port[0].enabled);

	/* Being removed: the TPG can be disabled, not enabled again. */
	old->removed = true;
	KUNIT_EXPECT_EQ(test, srpt_enable_tpg(&stpg->tpg, false), 0);
	KUNIT_EXPECT_EQ(test, srpt_enable_tpg(&stpg->tpg, true), -ENODEV);
	KUNIT_EXPECT_FALSE(test, stpg->live);
	srpt_test_detach(tport);
	KUNIT_EXPECT_EQ(test, srpt_enable_tpg(&stpg->tpg, true), -ENODEV);
	KUNIT_EXPECT_FALSE(test, stpg->live);

	srpt_test_attach(&new->port[0]);
	KUNIT_EXPECT_PTR_EQ(test, tport->sport, &new->port[0]);
	KUNIT_EXPECT_FALSE(test, new->port[0].enabled);
	KUNIT_EXPECT_EQ(test, srpt_enable_tpg(&stpg->tpg, true), 0);
	KUNIT_EXPECT_TRUE(test, new->port[0].enabled);
	srpt_test_tport_del(tport);
}

/* The spellings srpt_make_tport() accepts name the port in each form. */
static void srpt_port_has_name_spellings(struct kunit *test)
{
	struct srpt_device *sdev = srpt_test_sdev(test, SRPT_TEST_TPORT_GUID, SRPT_TEST_GID);
	struct srpt_port *sport = &sdev->port[0];
	bool guid_form = false;

	KUNIT_EXPECT_TRUE(test, srpt_port_has_name(sport, "0002:C903:000A:BCDE", &guid_form));
	KUNIT_EXPECT_TRUE(test, guid_form);
	KUNIT_EXPECT_TRUE(test, srpt_port_has_name(sport, SRPT_TEST_GID, &guid_form));
	KUNIT_EXPECT_FALSE(test, guid_form);
	KUNIT_EXPECT_TRUE(test, srpt_port_has_name(sport, SRPT_TEST_GID + 2, &guid_form));
	KUNIT_EXPECT_FALSE(test, guid_form);
	KUNIT_EXPECT_TRUE(test, srpt_port_has_name(sport, "ib.FE800000000000000002C903000ABCDE",
						   &guid_form));
	KUNIT_EXPECT_FALSE(test, guid_form);
	KUNIT_EXPECT_FALSE(test, srpt_port_has_name(sport, "0002:c903:000a:bcdf", &guid_form));
	KUNIT_EXPECT_FALSE(test, srpt_port_has_name(sport, "0xfe800000000000000002c903000abcd",
						    &guid_form));
	/* A port whose GID could not be read has no name yet. */
	sport->gid_valid = false;
	KUNIT_EXPECT_FALSE(test, srpt_port_has_name(sport, SRPT_TEST_GID, &guid_form));
}

static struct kunit_case srpt_tport_cases[] = {
	KUNIT_CASE(srpt_tport_reattach_keeps_attributes),
	KUNIT_CASE(srpt_tport_disabled_tpg_stays_disabled),
	KUNIT_CASE(srpt_tport_needs_same_name),
	KUNIT_CASE(srpt_tport_attached_once),
	KUNIT_CASE(srpt_tport_removal_hands_over),
	KUNIT_CASE(srpt_tpg_enable_follows_port),
	KUNIT_CASE(srpt_port_has_name_spellings),
	{}
};

static struct kunit_suite srpt_tport_suite = {
	.name = "ib_srpt_tport",
	.test_cases = srpt_tport_cases,
};

kunit_test_suite(srpt_tport_suite);
