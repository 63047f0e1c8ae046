// SPDX-License-Identifier: GPL-2.0-only
/*
 * ib_srpt - SCSI RDMA Protocol (SRP) target for the LIO target core, over
 * InfiniBand (IB CM, Device Management), RoCE and iWARP (RDMA/CM).
 *
 * One struct srpt_device per HCA, srpt_port per port, srpt_rdma_ch (own QP
 * and CQs) per login. Data moves with the rdma_rw API: RDMA READs fetch
 * data-out before execution, data-in RDMA WRITEs are chained in front of
 * the SRP_RSP send. Callees precede callers. The sections, in file order
 * (each opens with a "==== <name> ====" banner): module parameters;
 * references, channel states, counters, async events; Device Management
 * MADs; I/O context rings, command states, QP states; send contexts,
 * receive buffers, RDMA contexts; send queue budget and unsignaled
 * responses; credits and responses; SRP_CMD descriptors and checks;
 * receiving IUs (srpt_recv_done -> srpt_handle_new_iu -> srpt_handle_cmd);
 * send completions, data and responses (srpt_write_pending,
 * srpt_queue_response -> srpt_send_done); channels; teardown; target
 * ports, TPGs, initiators and ACLs; login (srpt_login -> srpt_alloc_ch,
 * srpt_link_ch, srpt_accept_ch); RDMA/CM (requests, listeners); IB CM;
 * shared receive queue; HCAs and ports; configfs; module init and exit.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/init.h>
#include <linux/slab.h>
#include <linux/err.h>
#include <linux/ctype.h>
#include <linux/kthread.h>
#include <linux/string.h>
#include <linux/delay.h>
#include <linux/irq_poll.h>
#include <linux/inet.h>
#include <linux/atomic.h>
#include <linux/overflow.h>
#include <linux/ratelimit.h>
#include <linux/configfs.h>
#include <linux/nsproxy.h>
#include <linux/netdevice.h>
#include <linux/if_arp.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <rdma/ib.h>
#include <rdma/ib_cache.h>
#include <scsi/scsi_proto.h>
#include <scsi/scsi_common.h>
#include <scsi/scsi_tcq.h>
#include <target/target_core_base.h>
#include <target/target_core_fabric.h>
#include "ib_srpt.h"
#define CREATE_TRACE_POINTS
#include "ib_srpt_trace.h"

#define DRV_NAME	"ib_srpt"

MODULE_AUTHOR("ib_srpt developers");
MODULE_DESCRIPTION("SCSI RDMA Protocol target driver");
MODULE_LICENSE("GPL");

/* SRP_RSP response codes of a task management function, SRP r16a 6.9. */
enum {
	SRP_TSK_MGMT_SUCCESS		= 0x00,
	SRP_TSK_MGMT_FUNC_NOT_SUPP	= 0x04,
	SRP_TSK_MGMT_FAILED		= 0x05,
};

/* SRP task attributes, SRP r16a table 24. */
enum {
	SRP_CMD_SIMPLE_Q	= 0x0,
	SRP_CMD_HEAD_OF_Q	= 0x1,
	SRP_CMD_ORDERED_Q	= 0x2,
	SRP_CMD_ACA		= 0x4,
};

/* Seconds between "still waiting" messages while channels drain. */
#define SRPT_DRAIN_REPORT_SECS	5
/* Unanswered requests' credits wait this long before an SRP_CRED_REQ. */
#define SRPT_CRED_REQ_DELAY	msecs_to_jiffies(20)
/* How long an SRP_T_LOGOUT may take to be delivered before the close. */
#define SRPT_LOGOUT_GRACE	msecs_to_jiffies(1000)

/* ==== Module parameters ================================================= */

static unsigned int srp_max_req_size = SRPT_MAX_REQ_SIZE_DEFAULT;
module_param(srp_max_req_size, uint, 0444);
MODULE_PARM_DESC(srp_max_req_size,
		 "Largest initiator-to-target IU accepted (at least 996, default 8276).");

static int srpt_srq_size = SRPT_SRQ_SIZE_DEFAULT;
module_param(srpt_srq_size, int, 0444);
MODULE_PARM_DESC(srpt_srq_size,
		 "Shared receive queue size (4..65535, default 4095).");

static bool ib_cm_on_roce;
module_param(ib_cm_on_roce, bool, 0444);
MODULE_PARM_DESC(ib_cm_on_roce,
		 "Also answer Device Management MADs and accept IB CM logins on RoCE ports (default: InfiniBand ports only).");

static u64 srpt_service_guid;

/* Hexadecimal, as IB tools print GUIDs; "0x" and one newline optional. */
static int srpt_parse_service_guid(const char *val, u64 *guid)
{
	u64 v;

	/* kstrtou64() skips "0x" for base 16, but would also take a '+'. */
	if (!isxdigit(val[0]) || kstrtou64(val, 16, &v))
		return -EINVAL;
	*guid = v;
	return 0;
}

static int srpt_set_u64_guid(const char *val, const struct kernel_param *kp)
{
	if (srpt_parse_service_guid(val, kp->arg)) {
		pr_err("srpt_service_guid: '%s' is not a GUID (1 to 16 hex digits, with or without 0x)\n",
		       val);
		return -EINVAL;
	}
	return 0;
}

static int srpt_get_u64_guid(char *buffer, const struct kernel_param *kp)
{
	return sprintf(buffer, "0x%016llx\n", *(u64 *)kp->arg);
}

static const struct kernel_param_ops srpt_guid_ops = {
	.set = srpt_set_u64_guid,
	.get = srpt_get_u64_guid,
};
module_param_cb(srpt_service_guid, &srpt_guid_ops, &srpt_service_guid, 0444);
MODULE_PARM_DESC(srpt_service_guid,
		 "Target port ID (id_ext and IOC GUID), hexadecimal with or without 0x; default: node GUID of the first HCA.");

static u16 srpt_rdma_cm_port_param;
static u16 srpt_net_port(const struct net *net);

static int srpt_set_rdma_cm_port(const char *val, const struct kernel_param *kp)
{
	if (kstrtou16(val, 0, kp->arg)) {
		pr_err("rdma_cm_port: '%s' is not a port number (0..65535, 0: no RDMA/CM listener)\n",
		       val);
		return -EINVAL;
	}
	return 0;
}

/* Initial namespace only; live value (discovery_auth/rdma_cm_port). */
static int srpt_get_rdma_cm_port(char *buffer, const struct kernel_param *kp)
{
	return sprintf(buffer, "%u\n", srpt_net_port(&init_net));
}

static const struct kernel_param_ops srpt_rdma_cm_port_ops = {
	.set = srpt_set_rdma_cm_port,
	.get = srpt_get_rdma_cm_port,
};
module_param_cb(rdma_cm_port, &srpt_rdma_cm_port_ops, &srpt_rdma_cm_port_param, 0444);
MODULE_PARM_DESC(rdma_cm_port,
		 "RDMA/CM listener port for RoCE and iWARP logins in the initial network namespace (0: none, default); discovery_auth/rdma_cm_port changes it later.");

static struct ib_client srpt_client;
static const struct target_core_fabric_ops srpt_template;
/*
 * srpt_wq runs the control work (ports, and each channel's end.work:
 * close, release, credit and logout timers); srpt_io_wq the data path's
 * io.work, the other of a channel's two work items. The release
 * flushes io.work: on the same WQ_MEM_RECLAIM queue its rescuer could wait
 * for itself.
 */
static struct workqueue_struct *srpt_wq;
static struct workqueue_struct *srpt_io_wq;

static LIST_HEAD(srpt_dev_list);
static DEFINE_MUTEX(srpt_dev_mutex);
/* Configfs target ports, attached or not; under srpt_dev_mutex. */
static LIST_HEAD(srpt_tports);

static void srpt_recv_done(struct ib_cq *cq, struct ib_wc *wc);
static void srpt_send_done(struct ib_cq *cq, struct ib_wc *wc);
static void srpt_rdma_read_done(struct ib_cq *cq, struct ib_wc *wc);
static void srpt_zerolength_write_done(struct ib_cq *cq, struct ib_wc *wc);
static bool srpt_end_queue(struct srpt_rdma_ch *ch, enum srpt_end_job job,
			   unsigned long delay);
static bool srpt_close_ch(struct srpt_rdma_ch *ch);
static bool srpt_close_ch_async(struct srpt_rdma_ch *ch);
static void srpt_logout_ch(struct srpt_rdma_ch *ch, u32 reason);
static void srpt_xfer_cancel(struct srpt_send_ioctx *ioctx);
static void srpt_put_send_ioctx(struct srpt_send_ioctx *ioctx);
static int srpt_refresh_port(struct srpt_port *sport);

/* Parsed data buffer descriptors of an SRP_CMD. */
struct srpt_data_desc {
	enum dma_data_direction		dir;
	u8				fmt;
	u32				nbufs;
	const struct srp_direct_buf	*bufs;
	const struct srp_direct_buf	*ext_tbl;
	u64				data_len;
	u32				imm_off;
};

/* Multichannel logins share the port ID: name channels by QP too. */
#define srpt_ch_log(pr, ch, fmt, ...) \
	pr("ch %s: " fmt, (ch)->log_name, ##__VA_ARGS__)
#define srpt_ch_err(ch, fmt, ...) srpt_ch_log(pr_err, ch, fmt, ##__VA_ARGS__)
#define srpt_ch_info(ch, fmt, ...) srpt_ch_log(pr_info, ch, fmt, ##__VA_ARGS__)
#define srpt_ch_debug(ch, fmt, ...) srpt_ch_log(pr_debug, ch, fmt, ##__VA_ARGS__)
#define srpt_ch_err_ratelimited(ch, fmt, ...) \
	srpt_ch_log(pr_err_ratelimited, ch, fmt, ##__VA_ARGS__)
#define srpt_ch_warn_ratelimited(ch, fmt, ...) \
	srpt_ch_log(pr_warn_ratelimited, ch, fmt, ##__VA_ARGS__)
#define srpt_ch_info_ratelimited(ch, fmt, ...) \
	srpt_ch_log(pr_info_ratelimited, ch, fmt, ##__VA_ARGS__)

struct srpt_ch_state_sym {
	enum srpt_ch_state state;
	const char *name;
};

#define SRPT_CH_STATE_TABLE(table, ...) \
	static const struct srpt_ch_state_sym table[] = { __VA_ARGS__ }
srpt_ch_state_symbols(SRPT_CH_STATE_TABLE, srpt_ch_state_names);

/* ==== References, channel states, counters, async events ================ */

static const char *srpt_ch_state_name(enum srpt_ch_state s)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(srpt_ch_state_names); i++)
		if (srpt_ch_state_names[i].state == s)
			return srpt_ch_state_names[i].name;
	return "UNKNOWN";
}

/* kref_put_mutex() release: called with srpt_dev_mutex held, drops it. */
static void srpt_sdev_release(struct kref *kref)
{
	struct srpt_device *sdev = container_of(kref, struct srpt_device, refcnt);

	list_del(&sdev->list);
	mutex_unlock(&srpt_dev_mutex);
	kfree(sdev);
}

static void srpt_sdev_get(struct srpt_device *sdev)
{
	kref_get(&sdev->refcnt);
}

static void srpt_sdev_put(struct srpt_device *sdev)
{
	/* The last put unlinks the device: never put with the mutex held. */
	kref_put_mutex(&sdev->refcnt, srpt_sdev_release, &srpt_dev_mutex);
}

/* States only move forward: a late event cannot revive a channel. */
static bool srpt_set_ch_state(struct srpt_rdma_ch *ch, enum srpt_ch_state new_state)
{
	enum srpt_ch_state old;
	unsigned long flags;
	bool changed = false;

	spin_lock_irqsave(&ch->spinlock, flags);
	old = ch->state;
	if (new_state > ch->state) {
		ch->state = new_state;
		changed = true;
	}
	spin_unlock_irqrestore(&ch->spinlock, flags);
	if (changed)
		trace_srpt_ch_state(ch, old, new_state);
	return changed;
}

/**
 * srpt_stat_max() - raise a high-water mark of &struct srpt_ch_stats.
 * @hwm: the mark.
 * @v: the current value.
 *
 * Lockless; a single read when @v is no new maximum.
 */
static void srpt_stat_max(atomic_t *hwm, int v)
{
	int old = atomic_read(hwm);

	do {
		if (v <= old)
			return;
	} while (!atomic_try_cmpxchg(hwm, &old, v));
}

/* Add to a counter of &struct srpt_ch_stats that has a single writer. */
static inline void srpt_stat_add(u64 *ctr, u64 v)
{
	WRITE_ONCE(*ctr, *ctr + v);
}

static u64 srpt_ch_bytes_in(const struct srpt_rdma_ch *ch)
{
	return READ_ONCE(ch->stats.bytes_in_imm) +
	       READ_ONCE(ch->stats.bytes_in_rdma);
}

/**
 * srpt_credits_held() - credits the initiator holds.
 * @ch: channel.
 *
 * All granted (&srpt_rdma_ch.cred.granted) less all taken (&struct
 * srpt_ch_stats.credits_taken), in 32 bits: the counts wrap, the
 * difference never exceeds rq_size.
 *
 * Return: the credits held, 0 to rq_size.
 */
static inline s32 srpt_credits_held(const struct srpt_rdma_ch *ch)
{
	return (s32)((u32)atomic_read(&ch->cred.granted) -
		     (u32)READ_ONCE(ch->stats.credits_taken));
}

/*
 * Credits handed back so far, in responses and SRP_CRED_REQs, net of posts
 * that failed: what the initiator holds is rq_size minus what was taken
 * plus that.
 */
static s64 srpt_ch_credits_returned(const struct srpt_rdma_ch *ch)
{
	s64 taken = READ_ONCE(ch->stats.credits_taken);

	return srpt_credits_held(ch) - (s64)ch->lim.rq_size + taken;
}

/**
 * srpt_event_handler() - asynchronous IB event callback.
 * @handler: handler registered with ib_register_event_handler().
 * @event: the event.
 *
 * Port changes refresh the port; a port error marks it down until active.
 */
static void srpt_event_handler(struct ib_event_handler *handler,
			       struct ib_event *event)
{
	struct srpt_device *sdev =
		container_of(handler, struct srpt_device, event_handler);
	struct srpt_port *sport;
	u32 port_num;

	if (event->device != sdev->device)
		return;

	switch (event->event) {
	case IB_EVENT_PORT_ERR:
	case IB_EVENT_PORT_ACTIVE:
	case IB_EVENT_LID_CHANGE:
	case IB_EVENT_PKEY_CHANGE:
	case IB_EVENT_SM_CHANGE:
	case IB_EVENT_CLIENT_REREGISTER:
	case IB_EVENT_GID_CHANGE:
		port_num = event->element.port_num;
		if (port_num < 1 || port_num > sdev->port_cnt) {
			pr_warn("%s: event %s for invalid port %u\n",
				dev_name(&sdev->device->dev),
				ib_event_msg(event->event), port_num);
			return;
		}
		sport = &sdev->port[port_num - 1];
		if (event->event == IB_EVENT_PORT_ERR) {
			sport->lid = 0;
			sport->sm_lid = 0;
			pr_info("%s port %u: down\n",
				dev_name(&sdev->device->dev), port_num);
		} else {
			queue_work(srpt_wq, &sport->work);
		}
		break;
	default:
		pr_debug("%s: async event %s\n", dev_name(&sdev->device->dev),
			 ib_event_msg(event->event));
		break;
	}
}

/**
 * srpt_srq_event() - SRQ event callback.
 * @event: the event.
 * @ctx: the device.
 */
static void srpt_srq_event(struct ib_event *event, void *ctx)
{
	struct srpt_device *sdev = ctx;

	pr_info("%s: SRQ event %s\n", dev_name(&sdev->device->dev),
		ib_event_msg(event->event));
}

/**
 * srpt_qp_event() - QP event callback; atomic context.
 * @event: the event.
 * @ptr: channel.
 *
 * COMM_EST (data before the RTU) is passed to the CM. A fatal QP error
 * closes the channel: no CM event may ever come.
 */
static void srpt_qp_event(struct ib_event *event, void *ptr)
{
	struct srpt_rdma_ch *ch = ptr;

	pr_debug("QP event %s on ch %s (%s)\n", ib_event_msg(event->event),
		 ch->sess_name, srpt_ch_state_name(ch->state));

	switch (event->event) {
	case IB_EVENT_COMM_EST:
		if (ch->lim.using_rdma_cm)
			rdma_notify(ch->rdma_cm.cm_id, event->event);
		else
			ib_cm_notify(ch->ib_cm.cm_id, event->event);
		break;
	case IB_EVENT_QP_LAST_WQE_REACHED:
		srpt_ch_debug(ch, "last WQE reached\n");
		complete(&ch->end.last_wqe);
		break;
	case IB_EVENT_QP_FATAL:
	case IB_EVENT_QP_REQ_ERR:
	case IB_EVENT_QP_ACCESS_ERR:
	case IB_EVENT_PATH_MIG_ERR:
		srpt_ch_err(ch, "QP event %s, closing the channel\n", ib_event_msg(event->event));
		srpt_close_ch_async(ch);
		break;
	default:
		srpt_ch_err(ch, "unexpected QP event %s\n", ib_event_msg(event->event));
		break;
	}
}

/* Device Management: one IOC (slot 1) and one service entry per port. */

/* ClassPortInfo RespTimeValue: 4.096 us * 2^20, about 4.3 seconds. */
#define SRPT_DM_RESP_TIME_VALUE		20
/* Outstanding RDMA READs per channel, advertised in the IOC profile. */
#define SRPT_DM_RDMA_READ_DEPTH		4
/* IBTA: 7 retries for ever; a briefly full initiator only slows us down. */
#define SRPT_RNR_RETRY_FOREVER		7
/* Pending RDMA/CM connection requests: a multipath boot logs in at once. */
#define SRPT_RDMA_CM_BACKLOG		256
/* The IOC profile's rdma_size is capped at what initiators expect (16 MiB). */
#define SRPT_DM_MAX_RDMA_SIZE		BIT(24)

/* ==== Device Management MADs (InfiniBand discovery) ===================== */

/* srp_daemon and ib_srp use IB CM and DM MADs on InfiniBand only. */
static bool srpt_serves_ib_cm(struct ib_device *dev, u32 port)
{
	return rdma_protocol_ib(dev, port) ||
	       (ib_cm_on_roce && rdma_cap_ib_cm(dev, port) &&
		rdma_cap_ib_mad(dev, port));
}

/**
 * srpt_set_ioc() - set one slot of an IOUnitInfo controller list.
 * @c_list: controller list, four bits per slot.
 * @slot: 1..16 (slot 1 is the high nibble of @c_list[0]); others ignored.
 * @value: slot state, low four bits.
 */
static void srpt_set_ioc(u8 *c_list, u32 slot, u8 value)
{
	u8 *byte;

	if (slot < 1 || slot > SRPT_MAX_IOC_SLOTS)
		return;

	byte = &c_list[(slot - 1) / 2];
	value &= 0xf;
	if (slot & 1)
		*byte = (*byte & 0x0f) | (value << 4);
	else
		*byte = (*byte & 0xf0) | value;
}

/**
 * srpt_get_class_port_info() - fill in a ClassPortInfo attribute.
 * @mad: response MAD; its status is left untouched.
 */
static void srpt_get_class_port_info(struct ib_dm_mad *mad)
{
	struct ib_class_port_info *cif = (struct ib_class_port_info *)mad->data;

	memset(cif, 0, sizeof(*cif));
	cif->base_version = IB_MGMT_BASE_VERSION;
	cif->class_version = IB_MGMT_BASE_VERSION;
	ib_set_cpi_resp_time(cif, SRPT_DM_RESP_TIME_VALUE);
}

/**
 * srpt_get_iou() - fill in an IOUnitInfo attribute (only slot 1 installed).
 * @mad: response MAD.
 */
static void srpt_get_iou(struct ib_dm_mad *mad)
{
	struct ib_dm_iou_info *ioui = (struct ib_dm_iou_info *)mad->data;

	memset(ioui, 0, sizeof(*ioui));
	ioui->change_id = cpu_to_be16(1);
	ioui->max_controllers = SRPT_MAX_IOC_SLOTS;
	srpt_set_ioc(ioui->controller_list, 1, 1);
}

/**
 * srpt_get_ioc() - fill in an IOControllerProfile attribute.
 * @sport: port the request arrived on.
 * @slot: I/O controller slot.
 * @mad: response MAD; status INVALID_FIELD for a slot outside 1..16,
 *       NO_IOC for an empty one.
 */
static void srpt_get_ioc(struct srpt_port *sport, u32 slot,
			 struct ib_dm_mad *mad)
{
	struct srpt_device *sdev = sport->sdev;
	const struct ib_device_attr *attrs = &sdev->device->attrs;
	struct ib_dm_ioc_profile *iocp;

	if (!slot || slot > SRPT_MAX_IOC_SLOTS) {
		mad->mad_hdr.status = cpu_to_be16(DM_MAD_STATUS_INVALID_FIELD);
		return;
	}
	if (slot > 1) {
		mad->mad_hdr.status = cpu_to_be16(DM_MAD_STATUS_NO_IOC);
		return;
	}

	iocp = (struct ib_dm_ioc_profile *)mad->data;
	memset(iocp, 0, sizeof(*iocp));
	iocp->guid = cpu_to_be64(srpt_service_guid);
	iocp->vendor_id = cpu_to_be32(attrs->vendor_id);
	iocp->device_id = cpu_to_be32(attrs->vendor_part_id);
	iocp->device_version = cpu_to_be16(attrs->hw_ver);
	iocp->subsys_vendor_id = cpu_to_be32(attrs->vendor_id);
	iocp->subsys_device_id = 0;
	iocp->io_class = cpu_to_be16(SRP_REV16A_IB_IO_CLASS);
	iocp->io_subclass = cpu_to_be16(SRP_IO_SUBCLASS);
	iocp->protocol = cpu_to_be16(SRP_PROTOCOL);
	iocp->protocol_version = cpu_to_be16(SRP_PROTOCOL_VERSION);
	iocp->send_queue_depth = cpu_to_be16(sdev->srq_size);
	iocp->rdma_read_depth = SRPT_DM_RDMA_READ_DEPTH;
	iocp->send_size = cpu_to_be32(srp_max_req_size);
	iocp->rdma_size = cpu_to_be32(min_t(u32,
					    sport->limits.srp_max_rdma_size,
					    SRPT_DM_MAX_RDMA_SIZE));
	iocp->op_cap_mask = SRP_SEND_TO_IOC | SRP_SEND_FROM_IOC |
			    SRP_RDMA_READ_FROM_IOC | SRP_RDMA_WRITE_FROM_IOC;
	iocp->num_svc_entries = 1;
	snprintf((char *)iocp->id_string, sizeof(iocp->id_string),
		 "SRP target on %s", dev_name(&sdev->device->dev));
}

/**
 * srpt_get_svc_entries() - fill in a ServiceEntries attribute.
 * @ioc_guid: I/O controller GUID, also the IB CM service ID.
 * @slot: I/O controller slot.
 * @hi: last entry requested.
 * @lo: first entry requested.
 * @mad: response MAD; status INVALID_FIELD for a bad slot or range, NO_IOC
 *       for an empty slot.
 */
static void srpt_get_svc_entries(u64 ioc_guid, u16 slot, u8 hi, u8 lo,
				 struct ib_dm_mad *mad)
{
	struct ib_dm_svc_entries *svc_entries;

	if (!slot || slot > SRPT_MAX_IOC_SLOTS) {
		mad->mad_hdr.status = cpu_to_be16(DM_MAD_STATUS_INVALID_FIELD);
		return;
	}
	if (slot > 1) {
		mad->mad_hdr.status = cpu_to_be16(DM_MAD_STATUS_NO_IOC);
		return;
	}
	/* One service per controller: the only valid range is 0-0. */
	if (hi || lo) {
		mad->mad_hdr.status = cpu_to_be16(DM_MAD_STATUS_INVALID_FIELD);
		return;
	}

	svc_entries = (struct ib_dm_svc_entries *)mad->data;
	memset(svc_entries, 0, sizeof(*svc_entries));
	/* srp_daemon reads the id_ext from the name and uses id as service ID. */
	snprintf((char *)svc_entries->service_entries[0].name,
		 sizeof(svc_entries->service_entries[0].name),
		 "SRP.T10:%016llx", ioc_guid);
	svc_entries->service_entries[0].id = cpu_to_be64(ioc_guid);
}

/**
 * srpt_mgmt_method_get() - answer a Device Management Get request.
 * @sp: port the request arrived on.
 * @rq_mad: request MAD.
 * @rsp_mad: response, header copied from @rq_mad; unknown attributes get
 *           DM_MAD_STATUS_UNSUP_METHOD_ATTR.
 */
static void srpt_mgmt_method_get(struct srpt_port *sp, struct ib_mad *rq_mad,
				 struct ib_dm_mad *rsp_mad)
{
	u32 attr_mod = be32_to_cpu(rq_mad->mad_hdr.attr_mod);

	switch (be16_to_cpu(rq_mad->mad_hdr.attr_id)) {
	case DM_ATTR_CLASS_PORT_INFO:
		srpt_get_class_port_info(rsp_mad);
		break;
	case DM_ATTR_IOU_INFO:
		srpt_get_iou(rsp_mad);
		break;
	case DM_ATTR_IOC_PROFILE:
		srpt_get_ioc(sp, attr_mod, rsp_mad);
		break;
	case DM_ATTR_SVC_ENTRIES:
		/* AttributeModifier = slot << 16 | last << 8 | first. */
		srpt_get_svc_entries(srpt_service_guid, attr_mod >> 16,
				     (attr_mod >> 8) & 0xff, attr_mod & 0xff,
				     rsp_mad);
		break;
	default:
		rsp_mad->mad_hdr.status =
			cpu_to_be16(DM_MAD_STATUS_UNSUP_METHOD_ATTR);
		break;
	}
}

/**
 * srpt_dm_answer() - build the response to a Device Management request.
 * @sport: port the request arrived on.
 * @rq_mad: request.
 * @dm_mad: response, all of it written: the request's header with the
 *          response method and a status, the attribute or zeroes.
 */
static void srpt_dm_answer(struct srpt_port *sport, struct ib_mad *rq_mad,
			   struct ib_dm_mad *dm_mad)
{
	memset(dm_mad, 0, sizeof(*dm_mad));
	memcpy(&dm_mad->mad_hdr, &rq_mad->mad_hdr, sizeof(dm_mad->mad_hdr));
	dm_mad->mad_hdr.method = IB_MGMT_METHOD_GET_RESP;
	dm_mad->mad_hdr.status = 0;

	switch (rq_mad->mad_hdr.method) {
	case IB_MGMT_METHOD_GET:
		srpt_mgmt_method_get(sport, rq_mad, dm_mad);
		break;
	case IB_MGMT_METHOD_SET:
		dm_mad->mad_hdr.status =
			cpu_to_be16(DM_MAD_STATUS_UNSUP_METHOD_ATTR);
		break;
	default:
		dm_mad->mad_hdr.method = rq_mad->mad_hdr.method |
					 IB_MGMT_METHOD_RESP;
		dm_mad->mad_hdr.status =
			cpu_to_be16(DM_MAD_STATUS_UNSUP_METHOD);
		break;
	}
}

/**
 * srpt_mad_send_handler() - release a sent Device Management response.
 * @mad_agent: MAD agent.
 * @mad_wc: send completion.
 */
static void srpt_mad_send_handler(struct ib_mad_agent *mad_agent,
				  struct ib_mad_send_wc *mad_wc)
{
	rdma_destroy_ah(mad_wc->send_buf->ah, 0);
	ib_free_send_mad(mad_wc->send_buf);
}

/**
 * srpt_mad_recv_handler() - answer a received Device Management MAD.
 * @mad_agent: the port's MAD agent (context: struct srpt_port).
 * @send_buf: unused.
 * @mad_wc: receive completion; the request is always released.
 */
static void srpt_mad_recv_handler(struct ib_mad_agent *mad_agent,
				  struct ib_mad_send_buf *send_buf,
				  struct ib_mad_recv_wc *mad_wc)
{
	struct srpt_port *sport = mad_agent->context;
	struct ib_mad *rq_mad = mad_wc->recv_buf.mad;
	struct ib_mad_send_buf *rsp;
	struct ib_ah *ah;

	ah = ib_create_ah_from_wc(mad_agent->qp->pd, mad_wc->wc,
				  mad_wc->recv_buf.grh, mad_agent->port_num);
	if (IS_ERR(ah))
		goto free_recv;

	rsp = ib_create_send_mad(mad_agent, mad_wc->wc->src_qp,
				 mad_wc->wc->pkey_index, 0,
				 IB_MGMT_DEVICE_HDR, IB_MGMT_DEVICE_DATA,
				 GFP_KERNEL, IB_MGMT_BASE_VERSION);
	if (IS_ERR(rsp))
		goto destroy_ah;
	rsp->ah = ah;

	srpt_dm_answer(sport, rq_mad, rsp->mad);
	if (ib_post_send_mad(rsp, NULL))
		goto free_send;

	ib_free_recv_mad(mad_wc);
	return;

free_send:
	ib_free_send_mad(rsp);
destroy_ah:
	rdma_destroy_ah(ah, 0);
free_recv:
	ib_free_recv_mad(mad_wc);
}

/**
 * srpt_refresh_port() - reread port attributes, set up DM MAD handling.
 * @sport: port.
 *
 * Updates LIDs, GID 0 and the port names. Registers the DM agent where the
 * IB CM is served; on InfiniBand also sets IsDeviceManagementSupported
 * (set by us iff @sport->mad_agent). Failure (common on SR-IOV VFs) only
 * hides the port from srp_daemon: reported once, otherwise ignored.
 *
 * Return: 0 or the error of ib_query_port().
 */
static int srpt_refresh_port(struct srpt_port *sport)
{
	struct ib_device *dev = sport->sdev->device;
	struct ib_port_modify port_modify;
	struct ib_mad_reg_req reg_req;
	struct ib_mad_agent *agent;
	struct ib_port_attr port_attr;
	const char *what;
	union ib_gid gid;
	u64 ifid;
	int ret;

	ret = ib_query_port(dev, sport->port, &port_attr);
	if (ret)
		return ret;

	sport->sm_lid = port_attr.sm_lid;
	sport->lid = port_attr.lid;

	ret = rdma_query_gid(dev, sport->port, 0, &gid);
	/* The names are read by srpt_lookup_port() under srpt_dev_mutex. */
	mutex_lock(&srpt_dev_mutex);
	if (ret) {
		sport->gid_valid = false;
	} else {
		sport->gid = gid;
		ifid = be64_to_cpu(gid.global.interface_id);
		snprintf(sport->port_guid, sizeof(sport->port_guid),
			 "%04x:%04x:%04x:%04x", (u16)(ifid >> 48),
			 (u16)(ifid >> 32), (u16)(ifid >> 16), (u16)ifid);
		snprintf(sport->port_gid, sizeof(sport->port_gid),
			 "0x%016llx%016llx",
			 be64_to_cpu(gid.global.subnet_prefix), ifid);
		sport->gid_valid = true;
	}
	mutex_unlock(&srpt_dev_mutex);

	if (!srpt_serves_ib_cm(dev, sport->port) || sport->mad_agent)
		return 0;

	/* IsDM is read by the subnet manager: there is none on RoCE. */
	memset(&port_modify, 0, sizeof(port_modify));
	port_modify.set_port_cap_mask = IB_PORT_DEVICE_MGMT_SUP;
	ret = rdma_protocol_ib(dev, sport->port) ?
	      ib_modify_port(dev, sport->port, 0, &port_modify) : 0;
	if (ret) {
		what = "enabling device management";
		goto dm_failed;
	}

	/* All but Trap/TrapRepress: undefined ones get "unsupported method". */
	memset(&reg_req, 0, sizeof(reg_req));
	reg_req.mgmt_class = IB_MGMT_CLASS_DEVICE_MGMT;
	reg_req.mgmt_class_version = IB_MGMT_BASE_VERSION;
	bitmap_set(reg_req.method_mask, 1, IB_MGMT_METHOD_RESP - 1);
	__clear_bit(IB_MGMT_METHOD_TRAP, reg_req.method_mask);
	__clear_bit(IB_MGMT_METHOD_TRAP_REPRESS, reg_req.method_mask);

	agent = ib_register_mad_agent(dev, sport->port, IB_QPT_GSI, &reg_req, 0,
				      srpt_mad_send_handler,
				      srpt_mad_recv_handler, sport, 0);
	if (IS_ERR(agent)) {
		memset(&port_modify, 0, sizeof(port_modify));
		port_modify.clr_port_cap_mask = IB_PORT_DEVICE_MGMT_SUP;
		if (rdma_protocol_ib(dev, sport->port))
			ib_modify_port(dev, sport->port, 0, &port_modify);
		ret = PTR_ERR(agent);
		what = "registering the DM MAD agent";
		goto dm_failed;
	}

	sport->mad_agent = agent;
	return 0;

dm_failed:
	if (!sport->dm_warned)
		pr_warn("%s-%u: %s failed (%d); srp_daemon will not find this port\n",
			dev_name(&dev->dev), sport->port, what, ret);
	sport->dm_warned = true;
	return 0;
}

/**
 * srpt_unregister_mad_agent() - stop answering Device Management MADs.
 * @sdev: device.
 * @port_cnt: ports 1..@port_cnt; those without an agent are skipped.
 */
static void srpt_unregister_mad_agent(struct srpt_device *sdev, int port_cnt)
{
	struct ib_port_modify port_modify = {
		.clr_port_cap_mask = IB_PORT_DEVICE_MGMT_SUP,
	};
	struct srpt_port *sport;
	int i;

	if (port_cnt > 0 && WARN_ON_ONCE((u32)port_cnt > sdev->port_cnt))
		port_cnt = sdev->port_cnt;

	for (i = 1; i <= port_cnt; i++) {
		sport = &sdev->port[i - 1];
		if (!sport->mad_agent)
			continue;
		if (rdma_protocol_ib(sdev->device, i))
			ib_modify_port(sdev->device, i, 0, &port_modify);
		ib_unregister_mad_agent(sport->mad_agent);
		sport->mad_agent = NULL;
	}
}

/* ==== I/O context rings, command states, QP states ====================== */

/**
 * srpt_alloc_ioctx() - allocate an I/O context and its DMA-mapped buffer.
 * @sdev: device.
 * @ioctx_size: size of the structure embedding struct srpt_ioctx.
 * @buf_size: usable bytes in the buffer.
 * @offset: where the IU starts in the buffer.
 * @dir: DMA direction.
 *
 * Return: the context, or NULL.
 */
static struct srpt_ioctx *srpt_alloc_ioctx(struct srpt_device *sdev,
					   size_t ioctx_size, u32 buf_size,
					   u32 offset,
					   enum dma_data_direction dir)
{
	struct srpt_ioctx *ioctx;

	ioctx = kzalloc(ioctx_size, GFP_KERNEL);
	if (!ioctx)
		goto err;

	ioctx->buf = kmalloc(buf_size + offset, GFP_KERNEL);
	if (!ioctx->buf)
		goto err_free_ioctx;

	ioctx->dma = ib_dma_map_single(sdev->device, ioctx->buf,
				       buf_size + offset, dir);
	if (ib_dma_mapping_error(sdev->device, ioctx->dma))
		goto err_free_buf;
	ioctx->offset = offset;
	return ioctx;

err_free_buf:
	kfree(ioctx->buf);
err_free_ioctx:
	kfree(ioctx);
err:
	return NULL;
}

/**
 * srpt_free_ioctx() - free a context from srpt_alloc_ioctx().
 * @sdev: device.
 * @ioctx: context, may be NULL.
 * @buf_size: as allocated.
 * @dir: as allocated.
 */
static void srpt_free_ioctx(struct srpt_device *sdev, struct srpt_ioctx *ioctx,
			    u32 buf_size, enum dma_data_direction dir)
{
	if (!ioctx)
		return;
	ib_dma_unmap_single(sdev->device, ioctx->dma, buf_size + ioctx->offset,
			    dir);
	kfree(ioctx->buf);
	kfree(ioctx);
}

/**
 * srpt_alloc_ioctx_ring() - allocate a ring of I/O contexts.
 * @sdev: device.
 * @ring_size: number of contexts.
 * @ioctx_size: size of the structure embedding struct srpt_ioctx.
 * @buf_size: usable bytes per buffer.
 * @offset: where the IU starts in each buffer.
 * @dir: DMA direction.
 *
 * Return: @ring_size pointers, or NULL.
 */
static struct srpt_ioctx **srpt_alloc_ioctx_ring(struct srpt_device *sdev,
						 int ring_size, size_t ioctx_size,
						 u32 buf_size, u32 offset,
						 enum dma_data_direction dir)
{
	struct srpt_ioctx **ring;
	int i;

	WARN_ON_ONCE(ioctx_size != sizeof(struct srpt_recv_ioctx) &&
		     ioctx_size != sizeof(struct srpt_send_ioctx));

	ring = kvcalloc(ring_size, sizeof(ring[0]), GFP_KERNEL);
	if (!ring)
		return NULL;
	for (i = 0; i < ring_size; i++) {
		ring[i] = srpt_alloc_ioctx(sdev, ioctx_size, buf_size, offset,
					   dir);
		if (!ring[i])
			goto err_free;
		ring[i]->index = i;
	}
	return ring;

err_free:
	while (--i >= 0)
		srpt_free_ioctx(sdev, ring[i], buf_size, dir);
	kvfree(ring);
	return NULL;
}

/**
 * srpt_free_ioctx_ring() - free a ring of I/O contexts.
 * @ioctx_ring: ring, may be NULL.
 * @sdev: device.
 * @ring_size: number of contexts.
 * @buf_size: as allocated.
 * @dir: as allocated.
 */
static void srpt_free_ioctx_ring(struct srpt_ioctx **ioctx_ring,
				 struct srpt_device *sdev, int ring_size,
				 u32 buf_size, enum dma_data_direction dir)
{
	int i;

	if (!ioctx_ring)
		return;
	for (i = 0; i < ring_size; i++)
		srpt_free_ioctx(sdev, ioctx_ring[i], buf_size, dir);
	kvfree(ioctx_ring);
}

/**
 * srpt_set_cmd_state() - set the state of a command.
 * @ioctx: send I/O context of the command.
 * @new: new state.
 *
 * A command that reached SRPT_CMD_FINISHED keeps that state; any other
 * move is allowed (see &enum srpt_cmd_state for the two that go back).
 *
 * Return: the previous state.
 */
static enum srpt_cmd_state
srpt_set_cmd_state(struct srpt_send_ioctx *ioctx, enum srpt_cmd_state new)
{
	enum srpt_cmd_state previous = READ_ONCE(ioctx->state);

	/* Lockless: two to four transitions per command, from any context. */
	do {
		if (previous == SRPT_CMD_FINISHED)
			break;
	} while (!try_cmpxchg(&ioctx->state, &previous, new));
	return previous;
}

/*
 * End a command whose response was posted. From %SRPT_CMD_RSP_POSTED and
 * %SRPT_CMD_TMF_RSP_POSTED the only move left is to %SRPT_CMD_FINISHED,
 * which whatever races with this (an abort, the release) writes too: a
 * plain store does, without srpt_set_cmd_state()'s locked exchange.
 */
static enum srpt_cmd_state srpt_cmd_finish(struct srpt_send_ioctx *ioctx)
{
	enum srpt_cmd_state prev = READ_ONCE(ioctx->state);

	WRITE_ONCE(ioctx->state, SRPT_CMD_FINISHED);
	return prev;
}

/**
 * srpt_test_and_set_cmd_state() - change a command's state if it is @old.
 * @ioctx: send context.
 * @old: expected state.
 * @new: new state.
 *
 * Return: true if it was @old and is now @new.
 */
static bool srpt_test_and_set_cmd_state(struct srpt_send_ioctx *ioctx,
					enum srpt_cmd_state old,
					enum srpt_cmd_state new)
{
	WARN_ON_ONCE(old == SRPT_CMD_FINISHED);
	return try_cmpxchg(&ioctx->state, &old, new);
}

/**
 * srpt_post_recv() - post a receive buffer.
 * @sdev: device.
 * @ch: channel; its QP, or the device's SRQ when the channel uses it.
 * @ioctx: receive buffer.
 *
 * Return: 0 or the ib_post_recv() error.
 */
static inline int srpt_post_recv(struct srpt_device *sdev,
				 struct srpt_rdma_ch *ch,
				 struct srpt_recv_ioctx *ioctx)
{
	u32 len = ch ? ch->lim.recv_len : srp_max_req_size;
	int ret;

	/* Built at the first post; a repost only syncs and posts. */
	if (unlikely(ioctx->sge.length != len)) {
		ioctx->sge.addr = ioctx->ioctx.dma + ioctx->ioctx.offset;
		ioctx->sge.length = len;
		ioctx->sge.lkey = sdev->lkey;
		ioctx->ioctx.cqe.done = srpt_recv_done;
		ioctx->wr.wr_cqe = &ioctx->ioctx.cqe;
		ioctx->wr.next = NULL;
		ioctx->wr.sg_list = &ioctx->sge;
		ioctx->wr.num_sge = 1;
	}
	ib_dma_sync_single_for_device(sdev->device, ioctx->sge.addr, len,
				      DMA_FROM_DEVICE);

	if (ch && !ch->lim.use_srq)
		return ib_post_recv(ch->qp, &ioctx->wr, NULL);
	ret = ib_post_srq_recv(sdev->srq, &ioctx->wr, NULL);
	if (!ret)
		atomic_inc(&sdev->srq_posted);
	return ret;
}

/**
 * srpt_zerolength_write() - post a zero-length RDMA WRITE.
 * @ch: channel, QP in the error state.
 *
 * Flushed after everything posted before it: its completion means drained.
 *
 * Return: 0 or the ib_post_send() error.
 */
static int srpt_zerolength_write(struct srpt_rdma_ch *ch)
{
	struct ib_rdma_wr wr = {
		.wr = {
			.next		= NULL,
			{ .wr_cqe	= &ch->end.zw_cqe, },
			.opcode		= IB_WR_RDMA_WRITE,
			.send_flags	= IB_SEND_SIGNALED,
		}
	};

	ch->end.zw_cqe.done = srpt_zerolength_write_done;
	return ib_post_send(ch->qp, &wr.wr, NULL);
}

/*
 * Close on error; also on a flush when we did not start the close (an
 * unsignaled rdma_rw WR fails with no CQE of ours, only flushes follow).
 */
static void srpt_wc_failed(struct srpt_rdma_ch *ch, enum ib_wc_status status,
			   const char *what, u64 tag)
{
	bool flush = status == IB_WC_WR_FLUSH_ERR;

	if (flush && READ_ONCE(ch->state) != SRPT_CH_LIVE)
		return;
	/* Said once per channel: the completions behind it fail too. */
	if (!srpt_close_ch_async(ch))
		return;
	if (!flush)
		srpt_ch_info(ch, "%s (tag %#llx) failed: %s; closing\n", what,
			     tag, ib_wc_status_msg(status));
	else
		srpt_ch_info(ch, "%s (tag %#llx) flushed on a live channel: its queue pair failed or the initiator disconnected; closing\n",
			     what, tag);
}

static void srpt_zerolength_write_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_rdma_ch *ch = wc->qp->qp_context;

	if (srpt_set_ch_state(ch, SRPT_CH_DRAINED))
		srpt_end_queue(ch, SRPT_END_RELEASE, 0);
	else
		srpt_ch_err(ch, "drain completion in state %s\n",
			    srpt_ch_state_name(ch->state));
}

/* An IB CM channel's QP to @state, with the attributes the CM gives. */
static int srpt_ch_qp_cm_state(struct srpt_rdma_ch *ch, struct ib_qp *qp,
			       enum ib_qp_state state)
{
	struct ib_qp_attr attr = { .qp_state = state };
	int mask, ret;

	ret = ib_cm_init_qp_attr(ch->ib_cm.cm_id, &attr, &mask);
	if (ret)
		return ret;
	if (state == IB_QPS_INIT) {
		attr.qp_access_flags = IB_ACCESS_LOCAL_WRITE;
		mask |= IB_QP_ACCESS_FLAGS;
	}
	return ib_modify_qp(qp, &attr, mask);
}

/**
 * srpt_init_ch_qp() - move a new IB CM channel's QP to INIT.
 * @ch: channel.
 * @qp: its QP.
 *
 * Return: 0 or a negative errno.
 */
static int srpt_init_ch_qp(struct srpt_rdma_ch *ch, struct ib_qp *qp)
{
	return srpt_ch_qp_cm_state(ch, qp, IB_QPS_INIT);
}

/**
 * srpt_ch_qp_rtr() - move an IB CM channel's QP to RTR (CM attributes).
 * @ch: channel.
 * @qp: its QP.
 *
 * Return: 0 or a negative errno.
 */
static int srpt_ch_qp_rtr(struct srpt_rdma_ch *ch, struct ib_qp *qp)
{
	return srpt_ch_qp_cm_state(ch, qp, IB_QPS_RTR);
}

/**
 * srpt_ch_qp_rts() - move an IB CM channel's QP to RTS.
 * @ch: channel.
 * @qp: its QP.
 *
 * Return: 0 or a negative errno.
 */
static int srpt_ch_qp_rts(struct srpt_rdma_ch *ch, struct ib_qp *qp)
{
	return srpt_ch_qp_cm_state(ch, qp, IB_QPS_RTS);
}

/**
 * srpt_ch_qp_err() - move a channel's QP to the error state.
 * @ch: channel.
 *
 * Return: 0 or the ib_modify_qp() error.
 */
static int srpt_ch_qp_err(struct srpt_rdma_ch *ch)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };

	return ib_modify_qp(ch->qp, &attr, IB_QP_STATE);
}

/* ==== Send contexts, receive buffers, RDMA contexts ===================== */

/*
 * The free send contexts of a channel, without its lock. The receive side
 * is their only consumer (srpt_recv_done(), or &srpt_rdma_ch.io.work while
 * &srpt_rdma_ch.io.processing_wait_list hands it the IUs; the flag is stored
 * with release and loaded with acquire at each hand-over): it pops from
 * &srpt_rdma_ch.io.free_own, which nothing else touches, and takes over
 * &srpt_rdma_ch.io.free_ret whole when that is empty. Contexts come back from
 * any context onto io.free_ret. One locked instruction each way.
 */
static struct srpt_send_ioctx *srpt_pool_get(struct srpt_rdma_ch *ch)
{
	struct llist_node *n = ch->io.free_own;

	if (unlikely(!n)) {
		n = llist_del_all(&ch->io.free_ret);
		if (!n)
			return NULL;
	}
	ch->io.free_own = n->next;
	return llist_entry(n, struct srpt_send_ioctx, free_node);
}

/* Any context. A full barrier: see srpt_put_send_ioctx(). */
static void srpt_pool_put(struct srpt_rdma_ch *ch,
			  struct srpt_send_ioctx *ioctx)
{
	llist_add(&ioctx->free_node, &ch->io.free_ret);
}

/**
 * srpt_get_send_ioctx() - take a free send context of a channel.
 * @ch: channel.
 *
 * A credit comes back to the initiator with its response, a little before
 * the context of that response is free again, so an initiator that uses
 * its credits to the last one can find none free: the IU then waits (see
 * srpt_recv_done()), it is never dropped.
 *
 * Return: a reset context, or NULL if none is free right now.
 */
static struct srpt_send_ioctx *srpt_get_send_ioctx(struct srpt_rdma_ch *ch)
{
	struct srpt_send_ioctx *ioctx = srpt_pool_get(ch);

	if (!ioctx)
		return NULL;

	WARN_ON_ONCE(ioctx->ch != ch);
	ioctx->state = SRPT_CMD_NEW;
	ioctx->n_segs = 0;
	ioctx->n_rdma = 0;
	ioctx->recv_ioctx = NULL;
	ioctx->rbufs = NULL;
	ioctx->n_rbufs = 0;
	ioctx->imm_data = false;
	ioctx->imm_copy = false;
	ioctx->tmf_credit = false;
	/*
	 * Sense is only written with a status other than GOOD and a sense
	 * length (the target core, srpt_set_sense()): otherwise the buffer is
	 * still clean from its allocation or the last re-zeroing.
	 */
	if (unlikely(ioctx->cmd.scsi_sense_length || ioctx->cmd.scsi_status))
		memset(ioctx->sense_data, 0, sizeof(ioctx->sense_data));
	memset(&ioctx->cmd, 0, sizeof(ioctx->cmd));
	return ioctx;
}

/**
 * srpt_put_send_ioctx() - return a send context to its channel.
 * @ioctx: context.
 *
 * Any context: restarting IUs that wait for a context is left to
 * &srpt_rdma_ch.io.work.
 */
static void srpt_put_send_ioctx(struct srpt_send_ioctx *ioctx)
{
	struct srpt_rdma_ch *ch = ioctx->ch;

	srpt_pool_put(ch, ioctx);
	/*
	 * An IU inside its credits may be waiting for exactly this context.
	 * The push is fully ordered, and so is srpt_wait_for_ioctx()'s flag
	 * store against its look at io.free_ret: one of the two sees the other.
	 */
	if (unlikely(smp_load_acquire(&ch->io.processing_wait_list)))
		queue_work(srpt_io_wq, &ch->io.work);
}

/* srpt_repost_recv(), inline for srpt_release_recv() on the data path. */
static __always_inline void srpt_repost_recv_inline(struct srpt_rdma_ch *ch,
						    struct srpt_recv_ioctx *recv)
{
	int ret;

	if (!ch->lim.use_srq && ch->state > SRPT_CH_LIVE)
		return;
	ret = srpt_post_recv(ch->sport->sdev, ch, recv);
	if (unlikely(ret))
		srpt_ch_err_ratelimited(ch, "repost of receive buffer failed: %d\n",
					ret);
}

/**
 * srpt_repost_recv() - give a receive buffer back to the HCA.
 * @ch: channel the IU arrived on.
 * @recv: buffer.
 *
 * Credits are not touched here: an answered IU's credit travels in its
 * own response (srpt_credit_delta()), and whoever drops an IU without an
 * answer adds it to req_lim_delta. A per-channel buffer of a channel that
 * is going away is not reposted; SRQ buffers always are, since other
 * channels share them.
 */
static noinline void srpt_repost_recv(struct srpt_rdma_ch *ch,
				      struct srpt_recv_ioctx *recv)
{
	srpt_repost_recv_inline(ch, recv);
}

/* Repost the receive IU a command still holds. */
static __always_inline void srpt_release_recv(struct srpt_send_ioctx *ioctx)
{
	struct srpt_recv_ioctx *recv = ioctx->recv_ioctx;

	if (!recv)
		return;
	ioctx->recv_ioctx = NULL;
	ioctx->rbufs = NULL;
	srpt_repost_recv_inline(ioctx->ch, recv);
}

/* srpt_unmap_segs() for any number and kind of segments. */
static noinline void srpt_unmap_segs_all(struct srpt_rdma_ch *ch,
					 struct srpt_send_ioctx *ioctx)
{
	enum dma_data_direction dir = target_reverse_dma_direction(&ioctx->cmd);
	unsigned int i;

	for (i = 0; i < ioctx->n_segs; i++) {
		struct srpt_xfer_seg *ctx = &ioctx->segs[i];

		rdma_rw_ctx_destroy(&ctx->rw, ch->qp, ch->sport->port,
				    ctx->sg, ctx->nents, dir);
		if (ctx->sg != ioctx->cmd.t_data_sg)
			kfree(ctx->sg);
	}
	if (ioctx->segs != &ioctx->seg0)
		kvfree(ioctx->segs);
	ioctx->segs = NULL;
	ioctx->n_segs = 0;
}

/**
 * srpt_unmap_segs() - release the RDMA contexts of a command.
 * @ch: channel.
 * @ioctx: command.
 *
 * Inline for the common command, one segment over the whole buffer.
 */
static __always_inline void srpt_unmap_segs(struct srpt_rdma_ch *ch,
					    struct srpt_send_ioctx *ioctx)
{
	struct srpt_xfer_seg *ctx = &ioctx->seg0;

	if (!ioctx->n_segs)
		return;
	if (unlikely(ioctx->n_segs != 1 || ioctx->segs != ctx ||
		     ctx->sg != ioctx->cmd.t_data_sg)) {
		srpt_unmap_segs_all(ch, ioctx);
		return;
	}
	rdma_rw_ctx_destroy(&ctx->rw, ch->qp, ch->sport->port, ctx->sg,
			    ctx->nents, target_reverse_dma_direction(&ioctx->cmd));
	ioctx->segs = NULL;
	ioctx->n_segs = 0;
}

/*
 * A view of @len bytes at @off of @sgl, so each remote buffer of an
 * indirect descriptor maps the command's pages without a copy. kfree() it.
 */
static struct scatterlist *srpt_view_sg(struct scatterlist *sgl, u64 off,
					u32 len, unsigned int *nents)
{
	struct scatterlist *sg, *view, *v;
	unsigned int n = 0;
	u64 pos = 0, end = off + len;

	for (sg = sgl; sg; sg = sg_next(sg)) {
		if (pos + sg->length > off && pos < end)
			n++;
		pos += sg->length;
		if (pos >= end)
			break;
	}
	if (!n)
		return NULL;
	view = kmalloc_array(n, sizeof(*view), GFP_KERNEL);
	if (!view)
		return NULL;
	sg_init_table(view, n);

	pos = 0;
	v = view;
	for (sg = sgl; sg && v < view + n; sg = sg_next(sg)) {
		u64 s = max(pos, off), e = min(pos + sg->length, end);

		if (s < e) {
			sg_set_page(v, sg_page(sg), e - s,
				    sg->offset + (s - pos));
			v++;
		}
		pos += sg->length;
	}
	*nents = n;
	return view;
}

/* Could this command ever map? Else waiting for MRs would never end. */
static bool srpt_mrs_never_fit(struct srpt_rdma_ch *ch,
			       const struct srpt_send_ioctx *ioctx, u32 *need)
{
	struct ib_device *dev = ch->sport->sdev->device;
	unsigned int i;
	u32 len;

	*need = 0;
	for (i = 0; i < ioctx->n_rbufs; i++) {
		len = be32_to_cpu(ioctx->rbufs[i].len);
		if (len)
			*need += rdma_rw_mr_factor(dev, ch->sport->port,
						   DIV_ROUND_UP(len, PAGE_SIZE));
	}
	return *need > ch->lim.rdma_ctxs;
}

/* Nothing is mapped any more: say whether waiting for MRs can help. */
static noinline int srpt_map_failed(struct srpt_rdma_ch *ch,
				    struct srpt_send_ioctx *ioctx, int ret)
{
	u32 need;

	if (ret == -EAGAIN && srpt_mrs_never_fit(ch, ioctx, &need)) {
		srpt_ch_warn_ratelimited(ch, "tag %#llx needs %u memory registrations, the queue pair has %u: failed; raise srp_sq_size\n",
					 ioctx->tag, need, ch->lim.rdma_ctxs);
		ret = -E2BIG;
	}
	return ret;
}

/* srpt_map_segs() for any descriptors: a segment per remote buffer. */
static noinline int srpt_map_segs_all(struct srpt_rdma_ch *ch,
				      struct srpt_send_ioctx *ioctx,
				      enum dma_data_direction dir)
{
	struct se_cmd *cmd = &ioctx->cmd;
	u32 total = cmd->data_length;
	u64 off = 0;
	unsigned int i;
	int ret;

	ioctx->n_segs = 0;
	ioctx->n_rdma = 0;
	if (ioctx->n_rbufs <= 1) {
		ioctx->segs = &ioctx->seg0;
	} else {
		ioctx->segs = kvcalloc(ioctx->n_rbufs, sizeof(*ioctx->segs),
				       GFP_KERNEL);
		if (!ioctx->segs)
			return -ENOMEM;
	}

	for (i = 0; i < ioctx->n_rbufs && off < total; i++) {
		const struct srp_direct_buf *db = &ioctx->rbufs[i];
		struct srpt_xfer_seg *ctx = &ioctx->segs[ioctx->n_segs];
		u32 len = min_t(u64, be32_to_cpu(db->len), total - off);

		if (!len)
			continue;
		if (ioctx->n_rbufs == 1 && len == total) {
			ctx->sg = cmd->t_data_sg;
			ctx->nents = cmd->t_data_nents;
		} else {
			ctx->sg = srpt_view_sg(cmd->t_data_sg, off, len,
					       &ctx->nents);
			if (!ctx->sg) {
				ret = -ENOMEM;
				goto err;
			}
		}
		ret = rdma_rw_ctx_init(&ctx->rw, ch->qp, ch->sport->port,
				       ctx->sg, ctx->nents, 0,
				       be64_to_cpu(db->va),
				       be32_to_cpu(db->key), dir);
		if (ret < 0) {
			if (ctx->sg != cmd->t_data_sg)
				kfree(ctx->sg);
			goto err;
		}
		ioctx->n_rdma += ret;
		ioctx->n_segs++;
		off += len;
	}
	return 0;

err:
	srpt_unmap_segs(ch, ioctx);
	return srpt_map_failed(ch, ioctx, ret);
}

/**
 * srpt_map_segs() - set up the RDMA transfers of a command.
 * @ch: channel.
 * @ioctx: command, with its remote descriptors and LIO data buffer.
 * @dir: DMA direction from the HCA's point of view.
 *
 * Inline for the common command, one descriptor covering the whole buffer.
 *
 * Return: 0 or a negative errno; on error nothing is left allocated.
 * -EAGAIN: the QP's MR pool is empty for now; -E2BIG: it is too small for
 * this command ever to map.
 */
static __always_inline int srpt_map_segs(struct srpt_rdma_ch *ch,
					 struct srpt_send_ioctx *ioctx,
					 enum dma_data_direction dir)
{
	struct se_cmd *cmd = &ioctx->cmd;
	struct srpt_xfer_seg *ctx = &ioctx->seg0;
	u32 total = cmd->data_length;
	int ret;

	if (unlikely(ioctx->n_rbufs != 1 || !total ||
		     be32_to_cpu(ioctx->rbufs[0].len) < total))
		return srpt_map_segs_all(ch, ioctx, dir);
	ioctx->segs = ctx;
	ctx->sg = cmd->t_data_sg;
	ctx->nents = cmd->t_data_nents;
	ret = rdma_rw_ctx_init(&ctx->rw, ch->qp, ch->sport->port, ctx->sg,
			       ctx->nents, 0, be64_to_cpu(ioctx->rbufs[0].va),
			       be32_to_cpu(ioctx->rbufs[0].key), dir);
	if (unlikely(ret < 0)) {
		ioctx->segs = NULL;
		ioctx->n_segs = 0;
		ioctx->n_rdma = 0;
		return srpt_map_failed(ch, ioctx, ret);
	}
	ioctx->n_rdma = ret;
	ioctx->n_segs = 1;
	return 0;
}

/**
 * srpt_post_rw() - post the RDMA transfers of a command, optionally
 * followed by a send.
 * @ch: channel.
 * @ioctx: command with its RDMA contexts set up.
 * @cqe: completion entry for the last RDMA work request, or NULL.
 * @next: work request chained after the transfers, or NULL.
 *
 * Return: 0 or the ib_post_send() error.
 */
static inline int srpt_post_rw(struct srpt_rdma_ch *ch,
			       struct srpt_send_ioctx *ioctx,
			       struct ib_cqe *cqe, struct ib_send_wr *next)
{
	struct ib_send_wr *first = next;
	int i;

	for (i = ioctx->n_segs - 1; i >= 0; i--) {
		first = rdma_rw_ctx_wrs(&ioctx->segs[i].rw, ch->qp,
					ch->sport->port, cqe, first);
		cqe = NULL;
	}
	return ib_post_send(ch->qp, first, NULL);
}

/* A transfer mapped but never reserved: its contexts go, nothing to give back. */
static void srpt_xfer_unmap(struct srpt_rdma_ch *ch,
			    struct srpt_send_ioctx *ioctx)
{
	srpt_unmap_segs(ch, ioctx);
	ioctx->n_rdma = 0;
}

/**
 * enum srpt_sq_verdict - outcome of a send queue reservation.
 * @SRPT_SQ_RESERVED: the work requests are reserved; post them.
 * @SRPT_SQ_WAITING: the command waits on &srpt_rdma_ch.sq.wait_list;
 *		     srpt_sq_release() posts it once space is free.
 * @SRPT_SQ_TOO_BIG: the transfer needs more than the whole send queue.
 * @SRPT_SQ_CLOSED: the channel's release cancelled its transfers; a
 *		    command that queued now would never be woken.
 */
enum srpt_sq_verdict {
	SRPT_SQ_RESERVED,
	SRPT_SQ_WAITING,
	SRPT_SQ_TOO_BIG,
	SRPT_SQ_CLOSED,
};

/* ==== Send queue budget and unsignaled responses ======================== */

/**
 * srpt_sq_take() - take RDMA work requests from the send queue budget.
 * @ch: channel.
 * @n: work requests.
 *
 * Return: true if they were available.
 */
static bool srpt_sq_take(struct srpt_rdma_ch *ch, u32 n)
{
	int avail = atomic_sub_return(n, &ch->sq.wr_avail);

	if (avail < 0) {
		atomic_add(n, &ch->sq.wr_avail);
		return false;
	}
	srpt_stat_max(&ch->stats.sq_hwm, ch->lim.sq_rdma_wrs - avail);
	return true;
}

/*
 * The send queue work requests @ioctx holds, for the caller to give back
 * (srpt_sq_put(), srpt_sq_release()): every give-back goes through here.
 */
static inline u32 srpt_sq_detach(struct srpt_send_ioctx *ioctx)
{
	u32 n = ioctx->n_rdma;

	ioctx->n_rdma = 0;
	return n;
}

/**
 * srpt_sq_pop_ready() - take the first waiting command if its transfer fits.
 * @ch: channel.
 *
 * Return: the command, its work requests reserved, or NULL.
 */
static struct srpt_send_ioctx *srpt_sq_pop_ready(struct srpt_rdma_ch *ch)
{
	struct srpt_send_ioctx *ioctx;
	unsigned long flags;

	spin_lock_irqsave(&ch->spinlock, flags);
	ioctx = list_first_entry_or_null(&ch->sq.wait_list,
					 struct srpt_send_ioctx, sq_wait);
	if (ioctx && srpt_sq_take(ch, ioctx->n_rdma))
		list_del_init(&ioctx->sq_wait);
	else
		ioctx = NULL;
	spin_unlock_irqrestore(&ch->spinlock, flags);
	return ioctx;
}

static void srpt_xfer_resume(struct srpt_send_ioctx *ioctx);

/* Start the waiting transfers that fit now, in order. */
static void srpt_sq_resume(struct srpt_rdma_ch *ch)
{
	struct srpt_send_ioctx *ioctx;

	while ((ioctx = srpt_sq_pop_ready(ch)))
		srpt_xfer_resume(ioctx);
}

/* Give back @n RDMA work requests. Return: whether transfers wait. */
static inline bool srpt_sq_put(struct srpt_rdma_ch *ch, u32 n)
{
	if (n)
		atomic_add(n, &ch->sq.wr_avail);
	/* No lock when nobody waits: pairs with srpt_sq_wait(). */
	smp_mb__after_atomic();
	return unlikely(!list_empty_careful(&ch->sq.wait_list));
}

/*
 * Give back the send queue space of a transfer that was reserved but will
 * never be posted (its channel is going away).
 */
static void srpt_sq_unreserve(struct srpt_rdma_ch *ch,
			      struct srpt_send_ioctx *ioctx)
{
	atomic_add(srpt_sq_detach(ioctx), &ch->sq.wr_avail);
}

/**
 * srpt_sq_release() - give back RDMA work requests and start waiting
 * transfers that fit now.
 * @ch: channel.
 * @n: work requests that completed.
 *
 * Process context: a transfer started here may fail its command through
 * the target core (the soft-IRQ send completion uses srpt_sq_put() and
 * leaves the start to &srpt_rdma_ch.io.work).
 */
static inline void srpt_sq_release(struct srpt_rdma_ch *ch, u32 n)
{
	if (srpt_sq_put(ch, n))
		srpt_sq_resume(ch);
}

/* srpt_sq_reserve() when others wait or the queue is full or closed. */
static enum srpt_sq_verdict srpt_sq_wait(struct srpt_rdma_ch *ch,
					 struct srpt_send_ioctx *ioctx)
{
	unsigned long flags;

	spin_lock_irqsave(&ch->spinlock, flags);
	if (unlikely(ch->sq.closed)) {
		spin_unlock_irqrestore(&ch->spinlock, flags);
		return SRPT_SQ_CLOSED;
	}
	if (list_empty(&ch->sq.wait_list) && srpt_sq_take(ch, ioctx->n_rdma)) {
		spin_unlock_irqrestore(&ch->spinlock, flags);
		return SRPT_SQ_RESERVED;
	}
	list_add_tail(&ioctx->sq_wait, &ch->sq.wait_list);
	spin_unlock_irqrestore(&ch->spinlock, flags);
	/*
	 * srpt_sq_release() looks at the wait list without the lock: pairs
	 * with its barrier, so space returned after our failed take is seen
	 * here or our entry there. This may post @ioctx before returning.
	 */
	smp_mb();
	if (atomic_read(&ch->sq.wr_avail) > 0)
		srpt_sq_release(ch, 0);
	return SRPT_SQ_WAITING;
}

/**
 * srpt_sq_reserve() - reserve send queue space for a command's RDMA transfer.
 * @ch: channel.
 * @ioctx: command, with @ioctx->n_rdma set by srpt_map_segs(); afterwards
 *	   the work requests to give back to &srpt_rdma_ch.sq.wr_avail.
 *
 * Transfers start in arrival order: while others wait, a new one queues
 * behind them even if it would fit, so a large transfer cannot starve.
 * Returning "queue full" to the target core instead would make it retry
 * at once, in a loop, and only for the commands it owns.
 *
 * Return: an &enum srpt_sq_verdict.
 */
static inline enum srpt_sq_verdict srpt_sq_reserve(struct srpt_rdma_ch *ch,
						   struct srpt_send_ioctx *ioctx)
{
	/*
	 * The context's own RDMA WR (&srpt_rdma_ch.lim.ctx_rdma_wr), free since
	 * its last transfer completed: n_rdma 0, nothing to give back.
	 */
	if (likely(ioctx->n_rdma == 1 && ch->lim.ctx_rdma_wr)) {
		ioctx->n_rdma = 0;
		return SRPT_SQ_RESERVED;
	}
	if (unlikely(ioctx->n_rdma > ch->lim.sq_rdma_wrs))
		return SRPT_SQ_TOO_BIG;
	/*
	 * Nobody waits: no lock. A release that closes the queue meanwhile
	 * made the channel not live first, and the poster checks that.
	 */
	if (likely(list_empty_careful(&ch->sq.wait_list) &&
		   !READ_ONCE(ch->sq.closed)) && srpt_sq_take(ch, ioctx->n_rdma))
		return SRPT_SQ_RESERVED;
	return srpt_sq_wait(ch, ioctx);
}

/**
 * srpt_unsig_take() - reserve a send queue entry for an unsignaled response.
 * @ch: channel.
 *
 * Return: false when %SRPT_UNSIG_RSP_MAX unsignaled responses may still
 * occupy the send queue: the response is then signaled.
 */
static bool srpt_unsig_take(struct srpt_rdma_ch *ch)
{
	return atomic_dec_if_positive(&ch->sq.unsig_avail) >= 0;
}

/**
 * srpt_unsig_posted() - count an unsignaled response once it is posted.
 * @ch: channel.
 *
 * Counted after the post, so that a signaled work request whose snapshot
 * (srpt_unsig_snapshot()) includes it was posted after it.
 */
static void srpt_unsig_posted(struct srpt_rdma_ch *ch)
{
	/* The post before the count: pairs with srpt_unsig_snapshot(). */
	smp_mb__before_atomic();
	atomic_inc(&ch->sq.unsig_posted);
}

/**
 * srpt_unsig_snapshot() - unsignaled responses posted so far.
 * @ch: channel.
 *
 * Return: the count to store with a signaled work request before it is
 * posted; when it completes, these are done too (a send queue completes in
 * order).
 */
static u32 srpt_unsig_snapshot(struct srpt_rdma_ch *ch)
{
	return atomic_read_acquire(&ch->sq.unsig_posted);
}

/**
 * srpt_unsig_retire() - free the entries of unsignaled responses.
 * @ch: channel.
 * @snap: srpt_unsig_snapshot() of a signaled work request that completed.
 *
 * Signaled completions may be processed out of order: only a snapshot
 * newer than the last one retired frees anything, and only the difference.
 */
static void srpt_unsig_retire(struct srpt_rdma_ch *ch, u32 snap)
{
	int old = atomic_read(&ch->sq.unsig_retired);

	do {
		if ((s32)(snap - (u32)old) <= 0)
			return;
	} while (!atomic_try_cmpxchg(&ch->sq.unsig_retired, &old, snap));
	atomic_add(snap - (u32)old, &ch->sq.unsig_avail);
}

/*
 * A failed post breaks the QP: close the channel, but keep the command
 * until the drain (srpt_release_ch()); posted WRs may still use
 * its buffers.
 */
static void srpt_post_failed(struct srpt_send_ioctx *ioctx)
{
	struct srpt_rdma_ch *ch = ioctx->ch;
	unsigned long flags;

	bool closed;

	spin_lock_irqsave(&ch->spinlock, flags);
	closed = ch->sq.closed;
	if (!closed)
		list_add_tail(&ioctx->sq_wait, &ch->sq.post_failed);
	spin_unlock_irqrestore(&ch->spinlock, flags);
	if (closed) {
		srpt_sq_unreserve(ch, ioctx);
		srpt_xfer_cancel(ioctx);
		return;
	}
	srpt_close_ch_async(ch);
}

/**
 * srpt_abort_cmd() - end a command whose data transfer failed.
 * @ioctx: command.
 *
 * One waiting for data-out is failed through the target core (CHECK
 * CONDITION if the channel lives); one with its response posted is released.
 */
static void srpt_abort_cmd(struct srpt_send_ioctx *ioctx)
{
	enum srpt_cmd_state state;

	if (srpt_test_and_set_cmd_state(ioctx, SRPT_CMD_WAIT_DATA,
					SRPT_CMD_EXECUTING)) {
		transport_generic_request_failure(&ioctx->cmd,
						  TCM_CHECK_CONDITION_ABORT_CMD);
		return;
	}

	state = srpt_set_cmd_state(ioctx, SRPT_CMD_FINISHED);
	switch (state) {
	case SRPT_CMD_RSP_POSTED:
	case SRPT_CMD_TMF_RSP_POSTED:
		transport_generic_free_cmd(&ioctx->cmd, 0);
		break;
	case SRPT_CMD_FINISHED:
		break;
	default:
		srpt_ch_err(ioctx->ch, "abort of tag %llu in state %d\n",
			    ioctx->tag, state);
		break;
	}
}

/**
 * srpt_rdma_read_done() - the RDMA READ of a data-out buffer completed.
 * @cq: completion queue.
 * @wc: work completion.
 */
/*
 * RDMA READs of data or of a descriptor table completed (soft-IRQ): the
 * rest needs process context, srpt_io_work(). @rdma_cqe.done says which.
 */
static void srpt_rdma_read_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_rdma_ch *ch = wc->qp->qp_context;
	struct srpt_send_ioctx *ioctx =
		container_of(wc->wr_cqe, struct srpt_send_ioctx, rdma_cqe);

	ioctx->xfer_status = wc->status;
	if (llist_add(&ioctx->xfer_node, &ch->io.xfer_done))
		queue_work(srpt_io_wq, &ch->io.work);
}

static void srpt_table_done(struct ib_cq *cq, struct ib_wc *wc)
{
	srpt_rdma_read_done(cq, wc);
}

/*
 * The data-out of @ioctx is here, or its RDMA READ failed. Return: the
 * send queue work requests to give back.
 */
static u32 srpt_read_finish(struct srpt_rdma_ch *ch,
			    struct srpt_send_ioctx *ioctx)
{
	u32 n = srpt_sq_detach(ioctx);

	srpt_unmap_segs(ch, ioctx);

	if (unlikely(ioctx->xfer_status != IB_WC_SUCCESS)) {
		srpt_wc_failed(ch, ioctx->xfer_status, "RDMA READ", ioctx->tag);
		srpt_abort_cmd(ioctx);
	} else if (srpt_test_and_set_cmd_state(ioctx, SRPT_CMD_WAIT_DATA,
					       SRPT_CMD_EXECUTING)) {
		srpt_stat_add(&ch->stats.bytes_in_rdma, ioctx->cmd.data_length);
		target_execute_cmd(&ioctx->cmd);
	} else {
		srpt_ch_err(ch, "tag %#llx in unexpected state %d after RDMA READ\n",
			    ioctx->tag, ioctx->state);
	}
	return n;
}

/* ==== Credits and responses ============================================= */

/*
 * A request arrived: the receive side takes one of the initiator's credits.
 * It is the only writer of credits_taken, so taking needs no atomic
 * instruction. A credit the initiator uses reached it in a response posted
 * after the grant was added, and the request completed after that: the
 * grant is seen here. Return: false if it had none left.
 */
static inline bool srpt_credit_take(struct srpt_rdma_ch *ch)
{
	if (unlikely(srpt_credits_held(ch) <= 0))
		return false;
	srpt_stat_add(&ch->stats.credits_taken, 1);
	return true;
}

/**
 * srpt_credit_delta() - credits to return with the next response.
 * @ch: channel.
 *
 * Return: one for the request being answered plus credits of IUs that got
 * no response (dropped, aborted).
 */
static inline s32 srpt_credit_delta(struct srpt_rdma_ch *ch)
{
	s32 delta = 1;
	u32 granted;

	/* Usually nothing is owed: skip the exchange. */
	if (unlikely(atomic_read(&ch->cred.req_lim_delta)))
		delta += atomic_xchg(&ch->cred.req_lim_delta, 0);
	/* Ordered before the response that carries it: srpt_credit_take(). */
	granted = atomic_add_return(delta, &ch->cred.granted);
	trace_srpt_credit(ch, delta,
			  (s32)(granted - (u32)READ_ONCE(ch->stats.credits_taken)));
	return delta;
}

/**
 * srpt_credit_undo() - take back the credits of a response never sent.
 * @ch: channel.
 * @delta: what srpt_credit_delta() returned for it.
 *
 * They go back to req_lim_delta, for the next response to carry.
 */
static void srpt_credit_undo(struct srpt_rdma_ch *ch, s32 delta)
{
	atomic_sub(delta, &ch->cred.granted);
	atomic_add(delta, &ch->cred.req_lim_delta);
}

/**
 * srpt_credit_return() - give back the credit of a request that gets no
 * response.
 * @ch: channel.
 *
 * The next response carries it; if none comes soon, an SRP_CRED_REQ does
 * (srpt_send_cred_req()), so the initiator's request limit is never stuck
 * below what it is owed.
 */
static void srpt_credit_return(struct srpt_rdma_ch *ch)
{
	atomic_inc(&ch->cred.req_lim_delta);
	if (READ_ONCE(ch->state) == SRPT_CH_LIVE)
		srpt_end_queue(ch, SRPT_END_CRED, SRPT_CRED_REQ_DELAY);
}

/**
 * srpt_build_cmd_rsp() - build an SRP_RSP for a SCSI command.
 * @ch: channel.
 * @ioctx: command; its response buffer receives the IU.
 * @tag: initiator tag.
 * @status: SCSI status.
 *
 * Residual counts come from the target core's over/underflow flags; sense
 * data is cut so the IU never exceeds the negotiated response size.
 *
 * Return: length of the IU.
 */
static int srpt_build_cmd_rsp(struct srpt_rdma_ch *ch,
			      struct srpt_send_ioctx *ioctx, u64 tag,
			      int status)
{
	struct se_cmd *cmd = &ioctx->cmd;
	struct srp_rsp *srp_rsp = ioctx->ioctx.buf + 0;
	u32 max_sense = ch->lim.max_rsp_size - sizeof(*srp_rsp);
	u32 sense_len = 0;

	memset(srp_rsp, 0, sizeof(*srp_rsp));
	srp_rsp->opcode = SRP_RSP;
	ioctx->rsp_credits = srpt_credit_delta(ch);
	srp_rsp->req_lim_delta = cpu_to_be32(ioctx->rsp_credits);
	srp_rsp->tag = tag;
	srp_rsp->status = status;

	if (cmd->se_cmd_flags & (SCF_UNDERFLOW_BIT | SCF_OVERFLOW_BIT)) {
		bool under = cmd->se_cmd_flags & SCF_UNDERFLOW_BIT;
		__be32 res = cpu_to_be32(cmd->residual_count);

		if (cmd->data_direction == DMA_FROM_DEVICE) {
			srp_rsp->flags |= under ? SRP_RSP_FLAG_DIUNDER :
						  SRP_RSP_FLAG_DIOVER;
			srp_rsp->data_in_res_cnt = res;
		} else if (cmd->data_direction == DMA_TO_DEVICE) {
			srp_rsp->flags |= under ? SRP_RSP_FLAG_DOUNDER :
						  SRP_RSP_FLAG_DOOVER;
			srp_rsp->data_out_res_cnt = res;
		}
	}

	if (status && cmd->scsi_sense_length) {
		sense_len = min_t(u32, cmd->scsi_sense_length, max_sense);
		sense_len = min_t(u32, sense_len, sizeof(ioctx->sense_data));
		if (sense_len < cmd->scsi_sense_length)
			srpt_ch_debug(ch, "sense cut from %u to %u bytes\n",
				      cmd->scsi_sense_length,
				      sense_len);
		srp_rsp->flags |= SRP_RSP_FLAG_SNSVALID;
		srp_rsp->sense_data_len = cpu_to_be32(sense_len);
		memcpy(srp_rsp->data, ioctx->sense_data, sense_len);
	}
	return sizeof(*srp_rsp) + sense_len;
}

/**
 * srpt_build_tskmgmt_rsp() - build the SRP_RSP of a task management request.
 * @ch: channel.
 * @rsp_code: SRP_TSK_MGMT_* code.
 * @ioctx: request; the IU goes into its buffer.
 * @tag: initiator tag.
 *
 * Return: length of the IU.
 */
static int srpt_build_tskmgmt_rsp(struct srpt_rdma_ch *ch, u8 rsp_code,
				  struct srpt_send_ioctx *ioctx, u64 tag)
{
	struct srp_rsp *srp_rsp = ioctx->ioctx.buf + 0;
	int resp_len = 4;

	BUILD_BUG_ON(sizeof(*srp_rsp) + 4 > SRPT_MAX_RSP_SIZE_MIN);
	memset(srp_rsp, 0, sizeof(*srp_rsp) + resp_len);
	srp_rsp->opcode = SRP_RSP;
	ioctx->rsp_credits = srpt_credit_delta(ch);
	srp_rsp->req_lim_delta = cpu_to_be32(ioctx->rsp_credits);
	srp_rsp->tag = tag;
	srp_rsp->flags |= SRP_RSP_FLAG_RSPVALID;
	srp_rsp->resp_data_len = cpu_to_be32(resp_len);
	srp_rsp->data[3] = rsp_code;
	return sizeof(*srp_rsp) + resp_len;
}

/* Return: a TMR_* value, or -1 if unsupported. */
static int srpt_tmf_to_tcm(int fn)
{
	switch (fn) {
	case SRP_TSK_ABORT_TASK:
		return TMR_ABORT_TASK;
	case SRP_TSK_ABORT_TASK_SET:
		return TMR_ABORT_TASK_SET;
	case SRP_TSK_CLEAR_TASK_SET:
		return TMR_CLEAR_TASK_SET;
	case SRP_TSK_LUN_RESET:
		return TMR_LUN_RESET;
	case SRP_TSK_CLEAR_ACA:
		return TMR_CLEAR_ACA;
	default:
		return -1;
	}
}

/* Reserved task attributes are treated as SIMPLE. */
static int srpt_task_attr_to_tcm(u8 attr)
{
	switch (attr) {
	case SRP_CMD_HEAD_OF_Q:
		return TCM_HEAD_TAG;
	case SRP_CMD_ORDERED_Q:
		return TCM_ORDERED_TAG;
	case SRP_CMD_ACA:
		return TCM_ACA_TAG;
	case SRP_CMD_SIMPLE_Q:
	default:
		return TCM_SIMPLE_TAG;
	}
}

/* Aborting a task that no longer exists did what was asked: success. */
static u8 srpt_tmf_rsp_code(u8 response)
{
	switch (response) {
	case TMR_FUNCTION_COMPLETE:
	case TMR_TASK_DOES_NOT_EXIST:
		return SRP_TSK_MGMT_SUCCESS;
	case TMR_TASK_MGMT_FUNCTION_NOT_SUPPORTED:
	case TMR_FUNCTION_REJECTED:
		return SRP_TSK_MGMT_FUNC_NOT_SUPP;
	default:
		return SRP_TSK_MGMT_FAILED;
	}
}

/* ==== SRP_CMD descriptors and checks, descriptor tables ================= */

/* Return: 0 if the lengths of @tbl's @n descriptors add up to @len. */
static int srpt_check_ext_table(const struct srp_direct_buf *tbl, u32 n,
				u64 len)
{
	u64 sum = 0;
	u32 i;

	for (i = 0; i < n; i++)
		sum += be32_to_cpu(tbl[i].len);
	return sum == len ? 0 : -EINVAL;
}

/* Sets &srpt_data_desc.ext_tbl when the table must be fetched first. */
static int srpt_get_indirect_tbl(const struct srp_indirect_buf *ib, u64 room,
				 u32 cnt, struct srpt_data_desc *d)
{
	u32 tbl_len, n;

	if (room < sizeof(*ib))
		return -EINVAL;
	tbl_len = be32_to_cpu(ib->table_desc.len);
	if (tbl_len == 0 || tbl_len % sizeof(struct srp_direct_buf))
		return -EINVAL;
	n = tbl_len / sizeof(struct srp_direct_buf);
	if ((u64)cnt * sizeof(struct srp_direct_buf) > room - sizeof(*ib))
		return -EINVAL;
	if (n < cnt)
		return -EINVAL;
	if (n > cnt) {
		if (n > SRPT_MAX_EXT_DESCS)
			return -EINVAL;
		d->nbufs = n;
		d->ext_tbl = &ib->table_desc;
		d->data_len = be32_to_cpu(ib->len);
		return 0;
	}
	if (srpt_check_ext_table(ib->desc_list, n, be32_to_cpu(ib->len)))
		return -EINVAL;
	d->nbufs = n;
	d->bufs = ib->desc_list;
	d->data_len = be32_to_cpu(ib->len);
	return 0;
}

/**
 * srpt_get_desc_tbl() - parse the data buffer descriptors of an SRP_CMD.
 * @srp_cmd: the command IU.
 * @iu_len: bytes received; nothing beyond is read.
 * @imm_data_offset: negotiated immediate data offset, 0 if none.
 * @d: result; &srpt_data_desc.ext_tbl set if the table is in initiator
 *     memory (srpt_fetch_table()).
 *
 * Bounds are checked in 64 bits so no initiator value can wrap them; kept
 * in one function so every dependent bound is on one screen.
 *
 * Return: 0, or -EINVAL for a malformed or unsupported IU.
 */
static int srpt_get_desc_tbl(const struct srp_cmd *srp_cmd, u32 iu_len,
			     u16 imm_data_offset, struct srpt_data_desc *d)
{
	const void *desc;
	u64 desc_off, room;
	u8 out_fmt, in_fmt;
	u32 cnt;

	memset(d, 0, sizeof(*d));
	d->dir = DMA_NONE;

	/* Not even the format byte is read from a shorter IU. */
	if (iu_len < sizeof(*srp_cmd))
		return -EINVAL;
	out_fmt = srp_cmd->buf_fmt >> 4;
	in_fmt = srp_cmd->buf_fmt & 0xf;
	desc_off = offsetof(struct srp_cmd, add_data) +
		   (srp_cmd->add_cdb_len & ~3);
	if (desc_off > iu_len)
		return -EINVAL;
	room = iu_len - desc_off;
	desc = (const u8 *)srp_cmd + desc_off;

	if (out_fmt && in_fmt)
		return -EINVAL;
	if (out_fmt) {
		d->dir = DMA_TO_DEVICE;
		d->fmt = out_fmt;
		cnt = srp_cmd->data_out_desc_cnt;
	} else if (in_fmt) {
		d->dir = DMA_FROM_DEVICE;
		d->fmt = in_fmt;
		cnt = srp_cmd->data_in_desc_cnt;
	} else {
		return 0;
	}

	switch (d->fmt) {
	case SRP_DATA_DESC_DIRECT: {
		const struct srp_direct_buf *db = desc;

		if (room < sizeof(*db))
			return -EINVAL;
		d->nbufs = 1;
		d->bufs = db;
		d->data_len = be32_to_cpu(db->len);
		return 0;
	}
	case SRP_DATA_DESC_INDIRECT:
		return srpt_get_indirect_tbl(desc, room, cnt, d);
	case SRP_DATA_DESC_IMM: {
		const struct srp_imm_buf *imm = desc;
		u32 len;

		if (d->dir != DMA_TO_DEVICE || !imm_data_offset)
			return -EINVAL;
		if (room < sizeof(*imm) ||
		    imm_data_offset < desc_off + sizeof(*imm))
			return -EINVAL;
		len = be32_to_cpu(imm->len);
		if ((u64)imm_data_offset + len > iu_len)
			return -EINVAL;
		d->imm_off = imm_data_offset;
		d->data_len = len;
		return 0;
	}
	default:
		return -EINVAL;
	}
}

/*
 * The target core takes the direction from the fabric, never the CDB: a
 * WRITE with a data-in descriptor would write uninitialized pages to the
 * LUN and send them to the initiator. Only opcodes whose direction SPC/SBC
 * fix are listed; DMA_BIDIRECTIONAL leaves it to the descriptor.
 */
static enum dma_data_direction srpt_cdb_dir(const u8 *cdb)
{
	switch (cdb[0]) {
	case READ_6: case READ_10: case READ_12: case READ_16:
	case INQUIRY: case REQUEST_SENSE: case READ_CAPACITY:
	case SERVICE_ACTION_IN_16: case MODE_SENSE: case MODE_SENSE_10:
	case LOG_SENSE: case REPORT_LUNS: case PERSISTENT_RESERVE_IN:
	case RECEIVE_DIAGNOSTIC: case READ_BUFFER: case MAINTENANCE_IN:
	case RECEIVE_COPY_RESULTS:
		return DMA_FROM_DEVICE;
	case WRITE_6: case WRITE_10: case WRITE_12: case WRITE_16:
	case WRITE_VERIFY: case WRITE_VERIFY_12: case WRITE_VERIFY_16:
	case WRITE_SAME: case WRITE_SAME_16: case COMPARE_AND_WRITE:
	case UNMAP: case MODE_SELECT: case MODE_SELECT_10: case LOG_SELECT:
	case PERSISTENT_RESERVE_OUT: case SEND_DIAGNOSTIC: case WRITE_BUFFER:
	case MAINTENANCE_OUT: case EXTENDED_COPY:
		return DMA_TO_DEVICE;
	case VARIABLE_LENGTH_CMD:
		switch (get_unaligned_be16(&cdb[8])) {
		case READ_32:
			return DMA_FROM_DEVICE;
		case WRITE_32: case WRITE_SAME_32:
			return DMA_TO_DEVICE;
		}
		return DMA_BIDIRECTIONAL;
	default:
		return DMA_BIDIRECTIONAL;
	}
}

/* srpt_check_cmd() for every command; srpt_check_rw() decides the common ones. */
static int srpt_check_cmd_full(const struct srpt_rdma_ch *ch,
			       const struct srp_cmd *srp_cmd, u32 iu_len,
			       struct srpt_data_desc *d)
{
	int ret = srpt_get_desc_tbl(srp_cmd, iu_len, ch->lim.imm_data_offset, d);

	if (ret)
		return ret;
	/* The target core reads as many CDB bytes as the opcode implies. */
	if (scsi_command_size(srp_cmd->cdb) >
	    sizeof(srp_cmd->cdb) + (srp_cmd->add_cdb_len & ~3))
		return -EINVAL;
	if (d->data_len > ch->lim.max_data_len)
		return -E2BIG;
	if (d->data_len) {
		enum dma_data_direction dir = srpt_cdb_dir(srp_cmd->cdb);

		if (dir != DMA_BIDIRECTIONAL && dir != d->dir)
			return -EPROTO;
	}
	return 0;
}

/* srpt_check_rw() for a WRITE with its data in the IU. */
static __always_inline bool srpt_check_imm_write(const struct srpt_rdma_ch *ch,
						 const struct srp_cmd *srp_cmd,
						 u32 iu_len,
						 struct srpt_data_desc *d)
{
	const struct srp_imm_buf *imm = (const void *)srp_cmd->add_data;
	u32 off = ch->lim.imm_data_offset, len = be32_to_cpu(imm->len);

	if (unlikely(off < sizeof(*srp_cmd) + sizeof(*imm) ||
		     (u64)off + len > iu_len || len > ch->lim.max_data_len))
		return false;
	d->dir = DMA_TO_DEVICE;
	d->fmt = SRP_DATA_DESC_IMM;
	d->nbufs = 0;
	d->bufs = NULL;
	d->ext_tbl = NULL;
	d->data_len = len;
	d->imm_off = off;
	return true;
}

/*
 * The common command: READ or WRITE (10) or (16), no additional CDB, one
 * direct descriptor in the direction of the opcode, or a WRITE's data in
 * the IU, within the size limit.
 * What srpt_check_cmd_full() would accept, decided in a few loads, without
 * its generic descriptor parsing (a KUnit fuzz suite compares the two).
 * Return: true with @d set; false when the full checks must decide.
 */
static __always_inline bool srpt_check_rw(const struct srpt_rdma_ch *ch,
					  const struct srp_cmd *srp_cmd,
					  u32 iu_len, struct srpt_data_desc *d)
{
	const struct srp_direct_buf *db = (const void *)srp_cmd->add_data;
	enum dma_data_direction dir;
	u32 len;

	if (unlikely(iu_len < sizeof(*srp_cmd) + sizeof(*db) ||
		     srp_cmd->add_cdb_len))
		return false;
	switch (srp_cmd->cdb[0]) {
	case READ_10:
	case READ_16:
		if (srp_cmd->buf_fmt != SRP_DATA_DESC_DIRECT)
			return false;
		dir = DMA_FROM_DEVICE;
		break;
	case WRITE_10:
	case WRITE_16:
		if (srp_cmd->buf_fmt == SRP_DATA_DESC_IMM << 4)
			return srpt_check_imm_write(ch, srp_cmd, iu_len, d);
		if (srp_cmd->buf_fmt != SRP_DATA_DESC_DIRECT << 4)
			return false;
		dir = DMA_TO_DEVICE;
		break;
	default:
		return false;
	}
	len = be32_to_cpu(db->len);
	if (unlikely(len > ch->lim.max_data_len))
		return false;
	d->dir = dir;
	d->fmt = SRP_DATA_DESC_DIRECT;
	d->nbufs = 1;
	d->bufs = db;
	d->ext_tbl = NULL;
	d->data_len = len;
	d->imm_off = 0;
	return true;
}

/*
 * Return: 0; -EINVAL (malformed); -E2BIG (over srp_max_rdma_size: the
 * target core would pin any length); -EPROTO (direction contradicts the CDB).
 */
static int srpt_check_cmd(const struct srpt_rdma_ch *ch,
			  const struct srp_cmd *srp_cmd, u32 iu_len,
			  struct srpt_data_desc *d)
{
	if (likely(srpt_check_rw(ch, srp_cmd, iu_len, d)))
		return 0;
	return srpt_check_cmd_full(ch, srp_cmd, iu_len, d);
}

static void srpt_submit_cmd(struct srpt_send_ioctx *ioctx)
{
	struct srpt_recv_ioctx *recv = ioctx->recv_ioctx;
	struct srp_cmd *srp_cmd = recv->ioctx.buf + recv->ioctx.offset;

	if (target_submit_prep(&ioctx->cmd, srp_cmd->cdb, NULL, 0, NULL, 0,
			       NULL, 0, GFP_KERNEL))
		return;
	srpt_target_submit(&ioctx->cmd);
}

static void srpt_table_ctx_destroy(struct srpt_send_ioctx *ioctx)
{
	struct srpt_rdma_ch *ch = ioctx->ch;

	rdma_rw_ctx_destroy(&ioctx->seg0.rw, ch->qp, ch->sport->port,
			    &ioctx->ext_sg, 1, DMA_FROM_DEVICE);
	atomic_dec(&ch->io.tbl_fetches);
}

static void srpt_table_fail(struct srpt_send_ioctx *ioctx)
{
	srpt_set_cmd_state(ioctx, SRPT_CMD_NEW);
	atomic64_inc(&ioctx->ch->stats.bad_ius);
	transport_send_check_condition_and_sense(&ioctx->cmd,
						 TCM_INVALID_FIELD_IN_COMMAND_IU,
						 0);
	target_put_sess_cmd(&ioctx->cmd);
}

/*
 * The descriptor table of @ioctx is here, or its fetch failed. A failed READ
 * (faulting rkey) leaves the QP in error: the channel closes.
 */
static u32 srpt_table_finish(struct srpt_rdma_ch *ch,
			     struct srpt_send_ioctx *ioctx)
{
	u32 n = srpt_sq_detach(ioctx);

	srpt_table_ctx_destroy(ioctx);
	if (unlikely(ioctx->xfer_status != IB_WC_SUCCESS)) {
		srpt_wc_failed(ch, ioctx->xfer_status, "descriptor table fetch",
			       ioctx->tag);
		srpt_table_fail(ioctx);
	} else if (srpt_check_ext_table(ioctx->ext_tbl, ioctx->n_rbufs,
					ioctx->cmd.data_length)) {
		srpt_ch_info_ratelimited(ch, "descriptor table of tag %#llx does not add up to %u bytes\n",
					 ioctx->tag, ioctx->cmd.data_length);
		srpt_table_fail(ioctx);
	} else {
		atomic64_inc(&ch->stats.ext_tables);
		ioctx->rbufs = ioctx->ext_tbl;
		srpt_set_cmd_state(ioctx, SRPT_CMD_NEW);
		srpt_submit_cmd(ioctx);
	}
	return n;
}

/*
 * Finish the transfers the send completions handed over, in completion
 * order, in process context as target_execute_cmd() and a command's
 * submission need. Also starts the transfers that wait for send queue
 * room, which soft-IRQ completions only notice.
 */
static void srpt_xfer_finish_all(struct srpt_rdma_ch *ch)
{
	struct llist_node *list = llist_reverse_order(llist_del_all(&ch->io.xfer_done));
	struct srpt_send_ioctx *ioctx, *next;
	u32 n = 0;

	llist_for_each_entry_safe(ioctx, next, list, xfer_node) {
		if (ioctx->rdma_cqe.done == srpt_table_done)
			n += srpt_table_finish(ch, ioctx);
		else
			n += srpt_read_finish(ch, ioctx);
	}
	/* One give-back for the batch. */
	srpt_sq_release(ch, n);
}

/* @ioctx in SRPT_CMD_FETCH_TABLE, its send queue space reserved. */
static void srpt_post_table_read(struct srpt_send_ioctx *ioctx)
{
	struct srpt_rdma_ch *ch = ioctx->ch;
	struct ib_send_wr *first;

	if (unlikely(READ_ONCE(ch->state) != SRPT_CH_LIVE)) {
		srpt_sq_unreserve(ch, ioctx);
		srpt_table_ctx_destroy(ioctx);
		srpt_table_fail(ioctx);
		return;
	}
	ioctx->rdma_cqe.done = srpt_table_done;
	first = rdma_rw_ctx_wrs(&ioctx->seg0.rw, ch->qp, ch->sport->port,
				&ioctx->rdma_cqe, NULL);
	if (unlikely(ib_post_send(ch->qp, first, NULL))) {
		srpt_ch_err_ratelimited(ch, "posting the table fetch of tag %#llx failed\n",
					ioctx->tag);
		srpt_post_failed(ioctx);
	}
}

/*
 * The command reaches the target core once the table is here
 * (srpt_table_done()); beyond SRPT_MAX_TBL_FETCHES per channel it is
 * answered BUSY, which the initiator retries.
 */
static void srpt_fetch_table(struct srpt_send_ioctx *ioctx,
			     const struct srp_direct_buf *td, u32 n)
{
	struct srpt_rdma_ch *ch = ioctx->ch;
	u32 len = n * sizeof(*td);
	int ret;

	if (atomic_inc_return(&ch->io.tbl_fetches) > SRPT_MAX_TBL_FETCHES)
		goto busy;
	ioctx->ext_tbl = kmalloc(len, GFP_KERNEL);
	if (!ioctx->ext_tbl)
		goto busy;
	ioctx->n_rbufs = n;
	sg_init_one(&ioctx->ext_sg, ioctx->ext_tbl, len);
	ret = rdma_rw_ctx_init(&ioctx->seg0.rw, ch->qp, ch->sport->port,
			       &ioctx->ext_sg, 1, 0, be64_to_cpu(td->va),
			       be32_to_cpu(td->key), DMA_FROM_DEVICE);
	if (ret < 0)
		goto busy;
	ioctx->n_rdma = ret;
	srpt_set_cmd_state(ioctx, SRPT_CMD_FETCH_TABLE);
	switch (srpt_sq_reserve(ch, ioctx)) {
	case SRPT_SQ_RESERVED:
		srpt_post_table_read(ioctx);
		return;
	case SRPT_SQ_WAITING:
		return;
	case SRPT_SQ_TOO_BIG:
	case SRPT_SQ_CLOSED:
		ioctx->n_rdma = 0;
		srpt_table_ctx_destroy(ioctx);
		srpt_table_fail(ioctx);
		return;
	}
	return;

busy:
	atomic_dec(&ch->io.tbl_fetches);
	target_send_busy(&ioctx->cmd);
	target_put_sess_cmd(&ioctx->cmd);
}

/* ==== Receiving IUs ===================================================== */

/**
 * srpt_handle_cmd() - process an SRP_CMD.
 * @ch: channel.
 * @recv: receive buffer holding the IU; the command keeps it until its
 *	  response is posted, since descriptors and immediate data live there.
 * @ioctx: free send context for the command.
 *
 * A malformed IU, or one whose data length exceeds srp_max_rdma_size, is
 * answered with CHECK CONDITION, ILLEGAL REQUEST, INVALID FIELD IN COMMAND
 * INFORMATION UNIT.
 */
static void srpt_handle_cmd(struct srpt_rdma_ch *ch,
			    struct srpt_recv_ioctx *recv,
			    struct srpt_send_ioctx *ioctx)
{
	struct srp_cmd *srp_cmd = recv->ioctx.buf + recv->ioctx.offset;
	struct se_cmd *cmd = &ioctx->cmd;
	struct scatterlist *sgl = NULL;
	struct srpt_data_desc d;
	u32 sgl_cnt = 0;
	int bad, ret;

	ioctx->tag = srp_cmd->tag;
	ioctx->recv_ioctx = recv;
	srpt_stat_add(&ch->stats.cmds, 1);
	bad = srpt_check_cmd(ch, srp_cmd, recv->byte_len, &d);
	if (bad) {
		atomic64_inc(&ch->stats.bad_ius);
		if (bad == -E2BIG)
			srpt_ch_info_ratelimited(ch, "tag %#llx: %llu data bytes exceed srp_max_rdma_size %u\n",
						 srp_cmd->tag, d.data_len,
						 ch->lim.max_data_len);
		else if (bad == -EPROTO)
			srpt_ch_info_ratelimited(ch, "tag %#llx: data-%s descriptor for opcode %#x refused\n",
						 srp_cmd->tag,
						 d.dir == DMA_TO_DEVICE ? "out" : "in",
						 srp_cmd->cdb[0]);
		else
			srpt_ch_info_ratelimited(ch, "malformed SRP_CMD tag %#llx (buf_fmt %#x, %u bytes)\n",
						 srp_cmd->tag,
						 srp_cmd->buf_fmt, recv->byte_len);
		d.dir = DMA_NONE;
		d.data_len = 0;
	}
	trace_srpt_cmd_start(ch, srp_cmd, d.data_len, d.dir);

	ret = target_init_cmd(cmd, ch->sess, ioctx->sense_data,
			      scsilun_to_int(&srp_cmd->lun), d.data_len,
			      srpt_task_attr_to_tcm(srp_cmd->task_attr), d.dir,
			      TARGET_SCF_ACK_KREF);
	if (ret) {
		/* The session is shutting down; drop the IU. */
		srpt_credit_return(ch);
		srpt_release_recv(ioctx);
		srpt_put_send_ioctx(ioctx);
		return;
	}
	cmd->tag = srp_cmd->tag;

	if (bad) {
		transport_send_check_condition_and_sense(cmd, TCM_INVALID_FIELD_IN_COMMAND_IU,
							 0);
		target_put_sess_cmd(cmd);
		return;
	}
	if (d.ext_tbl) {
		srpt_fetch_table(ioctx, d.ext_tbl, d.nbufs);
		return;
	}

	if (d.fmt == SRP_DATA_DESC_IMM) {
		ioctx->imm_data = true;
		srpt_stat_add(&ch->stats.bytes_in_imm, d.data_len);
		if (d.data_len) {
			sg_init_one(&ioctx->imm_sg, (u8 *)srp_cmd + d.imm_off,
				    d.data_len);
			/*
			 * Block backends need sector-aligned segments: hand
			 * over only an aligned buffer, copy anything else.
			 */
			ioctx->imm_copy = !IS_ALIGNED((unsigned long)srp_cmd + d.imm_off,
						      SECTOR_SIZE);
			if (!ioctx->imm_copy) {
				sgl = &ioctx->imm_sg;
				sgl_cnt = 1;
			}
		}
	} else {
		ioctx->rbufs = d.bufs;
		ioctx->n_rbufs = d.nbufs;
	}

	if (target_submit_prep(cmd, srp_cmd->cdb, sgl, sgl_cnt, NULL, 0, NULL,
			       0, GFP_KERNEL))
		return;
	srpt_target_submit(cmd);
}

/**
 * srpt_tmf_decode() - what an SRP_TSK_MGMT asks of the target core.
 * @tsk: the IU, all of its fixed part received.
 * @lun: receives the LUN in the target core's form, as for an SRP_CMD.
 *
 * Return: the TMR_* function; TMR_UNKNOWN for one SRP does not define,
 * which the target core answers TMR_FUNCTION_REJECTED (FUNCTION NOT
 * SUPPORTED, srpt_tmf_rsp_code()) when the LUN exists.
 */
static u8 srpt_tmf_decode(struct srp_tsk_mgmt *tsk, u64 *lun)
{
	int fn = srpt_tmf_to_tcm(tsk->tsk_mgmt_func);

	*lun = scsilun_to_int(&tsk->lun);
	return fn < 0 ? TMR_UNKNOWN : fn;
}

/**
 * srpt_handle_tsk_mgmt() - process an SRP_TSK_MGMT.
 * @ch: channel.
 * @recv: receive buffer holding the IU.
 * @ioctx: free send context.
 *
 * An unsupported function is answered FUNCTION NOT SUPPORTED.
 */
static void srpt_handle_tsk_mgmt(struct srpt_rdma_ch *ch,
				 struct srpt_recv_ioctx *recv,
				 struct srpt_send_ioctx *ioctx)
{
	struct srp_tsk_mgmt *tsk = recv->ioctx.buf + recv->ioctx.offset;
	u64 task_tag = tsk->task_tag;
	u64 lun;
	u8 tcm_tmr = srpt_tmf_decode(tsk, &lun);
	int ret;

	ioctx->tag = tsk->tag;
	atomic64_inc(&ch->stats.tmfs);
	trace_srpt_tmf(ch, tsk);
	srpt_set_cmd_state(ioctx, SRPT_CMD_TMF);
	srpt_ch_debug(ch, "TMF %#x tag %#llx task %#llx lun %llu\n",
		      tsk->tsk_mgmt_func, tsk->tag, task_tag, lun);
	srpt_repost_recv(ch, recv);
	ioctx->tmf_credit = true;

	ret = target_submit_tmr(&ioctx->cmd, ch->sess, NULL, lun, ioctx,
				tcm_tmr, GFP_KERNEL, task_tag,
				TARGET_SCF_ACK_KREF);
	if (ret) {
		srpt_credit_return(ch);
		srpt_put_send_ioctx(ioctx);
		return;
	}
	ioctx->cmd.tag = ioctx->tag;
}

/* Does this SRP_CRED_RSP carry our outstanding SRP_CRED_REQ's tag? */
static bool srpt_cred_rsp_expected(struct srpt_rdma_ch *ch, const u8 *iu,
				   u32 len)
{
	const struct srp_cred_rsp *rsp = (const void *)iu;
	unsigned long flags;
	bool ok;

	if (len < sizeof(*rsp))
		return false;
	spin_lock_irqsave(&ch->spinlock, flags);
	ok = ch->cred.rsp_due && rsp->tag == ch->cred.tag;
	if (ok)
		ch->cred.rsp_due = false;
	spin_unlock_irqrestore(&ch->spinlock, flags);
	if (ok && atomic_read(&ch->cred.req_lim_delta) > 0)
		srpt_end_queue(ch, SRPT_END_CRED, 0);
	return ok;
}

/**
 * srpt_iu_takes_credit() - whether an IU counts against the request limit.
 * @iu: the IU.
 * @len: bytes received.
 *
 * SRP's request limit covers SRP_CMD and SRP_TSK_MGMT. The initiator's
 * responses (SRP_CRED_RSP, SRP_AER_RSP), SRP_I_LOGOUT and IUs the target
 * does not know take no credit, so none is given back for them either;
 * otherwise a peer could inflate its request limit without bound.
 *
 * Return: true if @iu consumed a credit.
 */
static bool srpt_iu_takes_credit(const u8 *iu, u32 len)
{
	return len >= 1 && (iu[0] == SRP_CMD || iu[0] == SRP_TSK_MGMT);
}

/* What srpt_handle_new_iu() does with an IU, by srpt_classify_iu(). */
enum srpt_iu_kind {
	SRPT_IU_CMD,		/* SRP_CMD of at least sizeof(struct srp_cmd) */
	SRPT_IU_TSK_MGMT,	/* SRP_TSK_MGMT of at least its size */
	SRPT_IU_SHORT,		/* either, too short: dropped, credit returned */
	SRPT_IU_I_LOGOUT,	/* the initiator logs out */
	SRPT_IU_CRED_RSP,	/* expected, or a response to no request */
	SRPT_IU_AER_RSP,	/* always a response to no request */
	SRPT_IU_BAD_TYPE,	/* empty, unknown or target-to-initiator */
};

/**
 * srpt_classify_iu() - what an IU is, from its first byte and its length.
 * @iu: the IU; nothing is read when @len is zero.
 * @len: bytes received.
 *
 * Return: its kind. SRPT_IU_CMD and SRPT_IU_TSK_MGMT guarantee that the
 * fixed part of the IU was received.
 */
static enum srpt_iu_kind srpt_classify_iu(const u8 *iu, u32 len)
{
	if (len < 1)
		return SRPT_IU_BAD_TYPE;
	switch (iu[0]) {
	case SRP_CMD:
		return len < sizeof(struct srp_cmd) ? SRPT_IU_SHORT : SRPT_IU_CMD;
	case SRP_TSK_MGMT:
		return len < sizeof(struct srp_tsk_mgmt) ? SRPT_IU_SHORT :
							   SRPT_IU_TSK_MGMT;
	case SRP_I_LOGOUT:
		return SRPT_IU_I_LOGOUT;
	case SRP_CRED_RSP:
		return SRPT_IU_CRED_RSP;
	case SRP_AER_RSP:
		return SRPT_IU_AER_RSP;
	default:
		return SRPT_IU_BAD_TYPE;
	}
}

/**
 * srpt_handle_new_iu() - process a newly received information unit.
 * @ch: live channel the IU arrived on.
 * @recv: receive buffer.
 *
 * Requests that are too short for their type are dropped and their credit
 * is given back later. IUs that are unknown or not meant for a target, and
 * responses to requests this target never sent, make it log the initiator
 * out with the SRP_T_LOGOUT reason for them.
 *
 * Return: false if the IU needs a send context and none is free: it was
 * not consumed and must be tried again (srpt_wait_for_ioctx()).
 */
static bool srpt_handle_new_iu(struct srpt_rdma_ch *ch,
			       struct srpt_recv_ioctx *recv)
{
	u8 *iu = recv->ioctx.buf + recv->ioctx.offset;
	enum srpt_iu_kind kind = srpt_classify_iu(iu, recv->byte_len);
	struct srpt_send_ioctx *ioctx;

	switch (kind) {
	case SRPT_IU_CMD:
	case SRPT_IU_TSK_MGMT:
		ioctx = srpt_get_send_ioctx(ch);
		if (unlikely(!ioctx))
			return false;
		if (kind == SRPT_IU_CMD)
			srpt_handle_cmd(ch, recv, ioctx);
		else
			srpt_handle_tsk_mgmt(ch, recv, ioctx);
		return true;
	case SRPT_IU_SHORT:
		srpt_ch_info_ratelimited(ch, "IU %#x of %u bytes is too short\n",
					 iu[0], recv->byte_len);
		goto drop;
	case SRPT_IU_I_LOGOUT:
		srpt_ch_info(ch, "initiator logout\n");
		trace_srpt_initiator_logout(ch);
		srpt_close_ch(ch);
		goto repost;
	case SRPT_IU_CRED_RSP:
		if (srpt_cred_rsp_expected(ch, iu, recv->byte_len))
			goto repost;
		fallthrough;
	case SRPT_IU_AER_RSP:
		/* This target sends no SRP_AER_REQ. */
		srpt_ch_info_ratelimited(ch, "response IU %#x to no request\n",
					 iu[0]);
		srpt_logout_ch(ch, SRPT_LOGOUT_RSP_WITHOUT_REQ);
		goto ignore;
	case SRPT_IU_BAD_TYPE:
		if (recv->byte_len < 1)
			srpt_ch_info_ratelimited(ch, "empty IU\n");
		else
			srpt_ch_info_ratelimited(ch, "IU with opcode %#x (%u bytes) is not accepted from an initiator\n",
						 iu[0], recv->byte_len);
		srpt_logout_ch(ch, SRPT_LOGOUT_BAD_IU_TYPE);
		goto ignore;
	}

drop:
	/* A request that gets no response: its credit comes back later. */
	srpt_credit_return(ch);
ignore:
	atomic64_inc(&ch->stats.bad_ius);
repost:
	srpt_repost_recv(ch, recv);
	return true;
}

/*
 * Queue @recv, replayed in order by srpt_put_send_ioctx(); a context freed
 * since the failed look-up is noticed here, under the same lock.
 */
static void srpt_wait_for_ioctx(struct srpt_rdma_ch *ch,
				struct srpt_recv_ioctx *recv)
{
	unsigned long flags;

	spin_lock_irqsave(&ch->spinlock, flags);
	list_add(&recv->wait_list, &ch->io.wait_list);
	/* From here io.work consumes the send contexts: srpt_pool_get(). */
	smp_store_release(&ch->io.processing_wait_list, true);
	spin_unlock_irqrestore(&ch->spinlock, flags);
	/* Pairs with srpt_put_send_ioctx(); io.free_own is empty (we just looked). */
	smp_mb();
	if (!llist_empty(&ch->io.free_ret))
		queue_work(srpt_io_wq, &ch->io.work);
}

/**
 * srpt_recv_done() - an IU arrived.
 * @cq: completion queue.
 * @wc: work completion.
 *
 * IUs that arrive before the login completed, or while earlier ones wait
 * for a send context, are queued and replayed in arrival order. An error
 * other than a flush closes the channel.
 */
static void srpt_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_rdma_ch *ch = wc->qp->qp_context;
	struct srpt_recv_ioctx *recv =
		container_of(wc->wr_cqe, struct srpt_recv_ioctx, ioctx.cqe);
	enum srpt_ch_state state;
	unsigned long flags;

	if (ch->lim.use_srq)
		atomic_dec(&ch->sport->sdev->srq_posted);
	if (unlikely(wc->status != IB_WC_SUCCESS)) {
		srpt_wc_failed(ch, wc->status, "receive", 0);
		if (ch->lim.use_srq)
			srpt_repost_recv(ch, recv);
		return;
	}

	recv->byte_len = wc->byte_len;
	ib_dma_sync_single_for_cpu(ch->sport->sdev->device,
				   recv->ioctx.dma + recv->ioctx.offset,
				   recv->byte_len, DMA_FROM_DEVICE);
	if (srpt_iu_takes_credit(recv->ioctx.buf + recv->ioctx.offset,
				 recv->byte_len) &&
	    unlikely(!srpt_credit_take(ch))) {
		atomic64_inc(&ch->stats.bad_ius);
		srpt_ch_warn_ratelimited(ch, "initiator exceeded its %d credits\n",
					 ch->lim.rq_size);
		srpt_repost_recv(ch, recv);
		return;
	}
	srpt_stat_max(&ch->stats.rq_hwm, ch->lim.rq_size - srpt_credits_held(ch));

	/*
	 * Fast path without the lock: only this completion context and the
	 * RTU (which sets the flag before the state) make the wait list busy.
	 */
	state = smp_load_acquire(&ch->state);
	/* Acquire: a flag io.work cleared hands back the send contexts. */
	if (state != SRPT_CH_LIVE || smp_load_acquire(&ch->io.processing_wait_list)) {
		spin_lock_irqsave(&ch->spinlock, flags);
		state = ch->state;
		if (state == SRPT_CH_LOGGING_IN || ch->io.processing_wait_list) {
			list_add_tail(&recv->wait_list, &ch->io.wait_list);
			spin_unlock_irqrestore(&ch->spinlock, flags);
			return;
		}
		spin_unlock_irqrestore(&ch->spinlock, flags);
	}

	if (likely(state == SRPT_CH_LIVE)) {
		if (unlikely(!srpt_handle_new_iu(ch, recv)))
			srpt_wait_for_ioctx(ch, recv);
	} else if (ch->lim.use_srq) {
		srpt_repost_recv(ch, recv);
	}
}

/*
 * @ch live, io.processing_wait_list set. Stops on an empty list, a channel no
 * longer live (the release recycles the rest) or no free send context
 * (srpt_put_send_ioctx() restarts it).
 */
static void srpt_process_wait_list(struct srpt_rdma_ch *ch)
{
	struct srpt_recv_ioctx *recv;
	unsigned long flags;

	for (;;) {
		spin_lock_irqsave(&ch->spinlock, flags);
		if (list_empty(&ch->io.wait_list) || ch->state != SRPT_CH_LIVE) {
			/* srpt_recv_done() consumes send contexts again. */
			smp_store_release(&ch->io.processing_wait_list, false);
			spin_unlock_irqrestore(&ch->spinlock, flags);
			return;
		}
		recv = list_first_entry(&ch->io.wait_list,
					struct srpt_recv_ioctx, wait_list);
		list_del_init(&recv->wait_list);
		spin_unlock_irqrestore(&ch->spinlock, flags);
		if (srpt_handle_new_iu(ch, recv))
			continue;

		spin_lock_irqsave(&ch->spinlock, flags);
		list_add(&recv->wait_list, &ch->io.wait_list);
		spin_unlock_irqrestore(&ch->spinlock, flags);
		/* Pairs with srpt_put_send_ioctx(), which kicks us otherwise. */
		smp_mb();
		if (llist_empty(&ch->io.free_ret))
			return;
	}
}

/**
 * srpt_io_work() - the data path's process-context work of a channel.
 * @w: &srpt_rdma_ch.io.work.
 *
 * Hands completed RDMA READs and descriptor tables to the target core and
 * starts transfers waiting for send queue room; then, while
 * &srpt_rdma_ch.io.processing_wait_list gives it the send contexts,
 * replays the IUs that waited (every queueing for them sets the flag
 * first). A channel no longer live replays nothing, so the release can
 * flush this work to finish the transfers.
 */
static void srpt_io_work(struct work_struct *w)
{
	struct srpt_rdma_ch *ch = container_of(w, struct srpt_rdma_ch, io.work);

	srpt_xfer_finish_all(ch);
	/* Acquire: pairs with the release that hands us the send contexts. */
	if (smp_load_acquire(&ch->io.processing_wait_list))
		srpt_process_wait_list(ch);
}

/* ==== Send completions, data and responses (target core callbacks) ====== */

/**
 * srpt_unsig_send_done() - an unsignaled response failed.
 * @cq: completion queue.
 * @wc: work completion; unsignaled work requests complete only in error.
 *
 * Its command ended when it was posted; only the channel is left to close.
 */
static void srpt_unsig_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_rdma_ch *ch = wc->qp->qp_context;

	if (wc->status != IB_WC_SUCCESS)
		srpt_wc_failed(ch, wc->status, "unsignaled response", 0);
}

/**
 * srpt_send_done() - a response send completed.
 * @cq: completion queue.
 * @wc: work completion.
 *
 * The data-in RDMA WRITEs were chained in front of the send and are
 * unsignaled, so this also ends them and returns their send queue space.
 */
static void srpt_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_rdma_ch *ch = wc->qp->qp_context;
	struct srpt_send_ioctx *ioctx =
		container_of(wc->wr_cqe, struct srpt_send_ioctx, ioctx.cqe);
	enum srpt_cmd_state state;
	u32 n = srpt_sq_detach(ioctx);

	state = srpt_cmd_finish(ioctx);
	if (state != SRPT_CMD_RSP_POSTED && state != SRPT_CMD_TMF_RSP_POSTED)
		srpt_ch_err(ch, "send completion for tag %#llx in state %d\n",
			    ioctx->tag, state);

	srpt_unsig_retire(ch, ioctx->unsig_snap);
	if (unlikely(wc->status != IB_WC_SUCCESS))
		srpt_wc_failed(ch, wc->status, "response", ioctx->tag);
	else if (ioctx->n_segs)
		srpt_stat_add(&ch->stats.bytes_out, ioctx->cmd.data_length);

	srpt_unmap_segs(ch, ioctx);
	/*
	 * Only our reference: every path of the target core that calls a
	 * response callback takes the command off its LUN and state lists
	 * when the callback returns, and the responses we send ourselves
	 * (a malformed SRP_CMD, srpt_table_fail(), target_send_busy()) are
	 * for commands that never got a LUN. transport_generic_free_cmd()
	 * would repeat that cleanup.
	 */
	target_put_sess_cmd(&ioctx->cmd);
	/* A waiting transfer may fail its command: io.work starts them. */
	if (srpt_sq_put(ch, n))
		queue_work(srpt_io_wq, &ch->io.work);
}

/* For commands completing after their channel stopped being live. */
static void srpt_drop_cmd(struct srpt_send_ioctx *ioctx)
{
	atomic64_inc(&ioctx->ch->stats.dropped);
	srpt_set_cmd_state(ioctx, SRPT_CMD_FINISHED);
	srpt_unmap_segs(ioctx->ch, ioctx);
	transport_generic_free_cmd(&ioctx->cmd, 0);
}

/* Fixed-format sense, for failures the target core does not know of. */
static void srpt_set_sense(struct srpt_send_ioctx *ioctx, u8 key, u8 asc,
			   u8 ascq)
{
	u8 *sense = ioctx->sense_data;

	memset(sense, 0, SRPT_FIXED_SENSE_LEN);
	sense[0] = 0x70;		/* current error, fixed format */
	sense[2] = key;
	sense[7] = SRPT_FIXED_SENSE_LEN - 8;	/* additional sense length */
	sense[12] = asc;
	sense[13] = ascq;
	ioctx->cmd.scsi_status = SAM_STAT_CHECK_CONDITION;
	ioctx->cmd.scsi_sense_length = SRPT_FIXED_SENSE_LEN;
}

/**
 * srpt_post_response() - post a command's response, after its data.
 * @ioctx: command in state %SRPT_CMD_RSP_POSTED or %SRPT_CMD_TMF_RSP_POSTED,
 *	   its RDMA contexts (if any) set up and their send queue space
 *	   reserved.
 *
 * The response itself needs no reservation: each send context owns one
 * response slot of the send queue. The receive buffer goes back to the
 * HCA before the response hands the initiator a new credit for it. An
 * inline response without data is posted unsignaled while
 * srpt_unsig_take() allows, and its command ends here.
 *
 * Context: a response callback of the target core (srpt_queue_response()),
 * or srpt_sq_resume() for a transfer that waited for the send queue, which
 * always has data and so is never unsignaled.
 */
static void srpt_post_response(struct srpt_send_ioctx *ioctx)
{
	struct srpt_rdma_ch *ch = ioctx->ch;
	struct srpt_device *sdev = ch->sport->sdev;
	struct se_cmd *cmd = &ioctx->cmd;
	bool tmr = cmd->se_cmd_flags & SCF_SCSI_TMR_CDB;
	struct ib_send_wr *send_wr = &ioctx->rsp_wr;
	bool unsig = false;
	int flags = 0;
	int len, ret;

	if (unlikely(READ_ONCE(ch->state) != SRPT_CH_LIVE)) {
		srpt_sq_unreserve(ch, ioctx);
		srpt_drop_cmd(ioctx);
		return;
	}

	if (tmr) {
		u8 code = srpt_tmf_rsp_code(cmd->se_tmr_req->response);

		len = srpt_build_tskmgmt_rsp(ch, code, ioctx, ioctx->tag);
		trace_srpt_tmf_rsp(ioctx, code);
	} else {
		len = srpt_build_cmd_rsp(ch, ioctx, ioctx->tag,
					 cmd->scsi_status);
		if (cmd->scsi_status != SAM_STAT_GOOD)
			atomic64_inc(&ch->stats.failed);
		trace_srpt_cmd_done(ioctx);
	}
	/* The work request and its SGE were built with the context. */
	if (len <= ch->lim.max_inline) {
		/* Copied at post time, from the CPU's view of the buffer. */
		ioctx->rsp_sge.addr = (uintptr_t)ioctx->ioctx.buf;
		flags = IB_SEND_INLINE;
		/* Without data nothing stays in use: see SRPT_UNSIG_RSP_MAX. */
		unsig = !tmr && !ioctx->n_segs && srpt_unsig_take(ch);
	} else {
		ib_dma_sync_single_for_device(sdev->device, ioctx->ioctx.dma,
					      len, DMA_TO_DEVICE);
		ioctx->rsp_sge.addr = ioctx->ioctx.dma;
	}
	ioctx->rsp_sge.length = len;
	if (unsig) {
		send_wr->wr_cqe = &ch->sq.unsig_cqe;
	} else {
		flags |= IB_SEND_SIGNALED;
		ioctx->unsig_snap = srpt_unsig_snapshot(ch);
		send_wr->wr_cqe = &ioctx->ioctx.cqe;
	}
	send_wr->send_flags = flags;

	srpt_release_recv(ioctx);
	ioctx->tmf_credit = false;
	if (ioctx->n_segs)
		ret = srpt_post_rw(ch, ioctx, NULL, send_wr);
	else
		ret = ib_post_send(ch->qp, send_wr, NULL);
	if (unlikely(ret)) {
		srpt_ch_err_ratelimited(ch, "posting response for tag %#llx failed: %d\n",
					ioctx->tag, ret);
		if (unsig)
			atomic_inc(&ch->sq.unsig_avail);
		srpt_credit_undo(ch, ioctx->rsp_credits);
		srpt_post_failed(ioctx);
		return;
	}
	if (unsig) {
		srpt_unsig_posted(ch);
		srpt_cmd_finish(ioctx);
		/*
		 * Only our reference: this runs inside a response callback,
		 * after which the target core takes the command off its LUN
		 * and state lists itself (transport_generic_free_cmd() would
		 * do it first, and the core then again).
		 */
		target_put_sess_cmd(&ioctx->cmd);
	}
}

/* @ioctx in SRPT_CMD_WAIT_DATA, send queue space reserved. */
static void srpt_post_read(struct srpt_send_ioctx *ioctx)
{
	struct srpt_rdma_ch *ch = ioctx->ch;
	int ret;

	if (unlikely(READ_ONCE(ch->state) != SRPT_CH_LIVE)) {
		srpt_sq_unreserve(ch, ioctx);
		srpt_unmap_segs(ch, ioctx);
		srpt_abort_cmd(ioctx);
		return;
	}
	ioctx->rdma_cqe.done = srpt_rdma_read_done;
	ret = srpt_post_rw(ch, ioctx, &ioctx->rdma_cqe, NULL);
	if (unlikely(ret)) {
		srpt_ch_err_ratelimited(ch, "posting RDMA READ for tag %#llx failed: %d\n",
					ioctx->tag, ret);
		srpt_post_failed(ioctx);
	}
}

static void srpt_xfer_resume(struct srpt_send_ioctx *ioctx)
{
	if (ioctx->state == SRPT_CMD_FETCH_TABLE)
		srpt_post_table_read(ioctx);
	else if (ioctx->state == SRPT_CMD_WAIT_DATA)
		srpt_post_read(ioctx);
	else
		srpt_post_response(ioctx);
}

/* After the drain: end a command that waited for room or failed to post. */
static void srpt_xfer_cancel(struct srpt_send_ioctx *ioctx)
{
	ioctx->n_rdma = 0;
	if (ioctx->state == SRPT_CMD_FETCH_TABLE) {
		srpt_table_ctx_destroy(ioctx);
		srpt_table_fail(ioctx);
		return;
	}
	srpt_unmap_segs(ioctx->ch, ioctx);
	if (ioctx->state == SRPT_CMD_WAIT_DATA)
		srpt_abort_cmd(ioctx);
	else
		srpt_drop_cmd(ioctx);
}

/**
 * srpt_queue_response() - send the response of a command or TMF.
 * @cmd: LIO command.
 *
 * For a read with data the RDMA WRITEs go first, chained in one post with
 * the SRP_RSP send; when the send queue has no room for them the command
 * waits for it (srpt_sq_reserve()). A response without data never waits.
 *
 * Return: 0, or -EAGAIN/-ENOMEM to make the target core retry later (only
 * when the RDMA contexts cannot be set up for lack of memory or MRs).
 */
static int srpt_queue_response(struct se_cmd *cmd)
{
	struct srpt_send_ioctx *ioctx =
		container_of(cmd, struct srpt_send_ioctx, cmd);
	struct srpt_rdma_ch *ch = ioctx->ch;
	bool tmr = cmd->se_cmd_flags & SCF_SCSI_TMR_CDB;
	enum srpt_cmd_state prev;
	bool with_data;
	int ret;

	with_data = !tmr && cmd->data_direction == DMA_FROM_DEVICE &&
		    cmd->data_length && cmd->t_data_sg &&
		    (cmd->scsi_status == SAM_STAT_GOOD ||
		     (cmd->se_cmd_flags & SCF_TREAT_READ_AS_NORMAL));

	prev = srpt_set_cmd_state(ioctx, tmr ? SRPT_CMD_TMF_RSP_POSTED :
					       SRPT_CMD_RSP_POSTED);
	if (unlikely(prev == SRPT_CMD_FINISHED)) {
		srpt_ch_debug(ch, "no response for aborted tag %#llx\n",
			      ioctx->tag);
		return 0;
	}

	if (unlikely(READ_ONCE(ch->state) != SRPT_CH_LIVE)) {
		srpt_drop_cmd(ioctx);
		return 0;
	}

	ioctx->n_rdma = 0;
	if (with_data) {
		ret = srpt_map_segs(ch, ioctx, DMA_TO_DEVICE);
		if (ret == -ENOMEM || ret == -EAGAIN) {
			srpt_set_cmd_state(ioctx, prev);
			return ret;
		}
		if (!ret) {
			switch (srpt_sq_reserve(ch, ioctx)) {
			case SRPT_SQ_RESERVED:
				break;
			case SRPT_SQ_WAITING:
				return 0;
			case SRPT_SQ_CLOSED:
				srpt_xfer_unmap(ch, ioctx);
				srpt_drop_cmd(ioctx);
				return 0;
			case SRPT_SQ_TOO_BIG:
				srpt_ch_warn_ratelimited(ch, "tag %#llx needs %u RDMA work requests, the send queue holds %u: raise srp_sq_size\n",
							 ioctx->tag,
							 ioctx->n_rdma, ch->lim.sq_rdma_wrs);
				ret = -E2BIG;
				break;
			}
		}
		if (ret) {
			/* The data cannot be delivered: say so, do not hang. */
			srpt_xfer_unmap(ch, ioctx);
			srpt_set_sense(ioctx, ABORTED_COMMAND, 0, 0);
		}
	}
	srpt_post_response(ioctx);
	return 0;
}

static void srpt_queue_tm_rsp(struct se_cmd *cmd)
{
	srpt_queue_response(cmd);
}

/* No response; srpt_release_cmd() frees with the last reference. */
static void srpt_aborted_task(struct se_cmd *cmd)
{
	struct srpt_send_ioctx *ioctx =
		container_of(cmd, struct srpt_send_ioctx, cmd);

	atomic64_inc(&ioctx->ch->stats.aborts);
	srpt_set_cmd_state(ioctx, SRPT_CMD_FINISHED);
}

/* srpt_write_pending() of data to fetch: RDMA READs, now or when there is room. */
static noinline int srpt_fetch_data(struct srpt_send_ioctx *ioctx)
{
	struct srpt_rdma_ch *ch = ioctx->ch;
	struct se_cmd *cmd = &ioctx->cmd;
	int ret;

	if (unlikely(READ_ONCE(ch->state) != SRPT_CH_LIVE))
		return -EIO;

	/*
	 * No locked exchange: nothing else moves the command now. The
	 * target core calls no other callback of it before its data is here
	 * (an abort waits for that), and no transfer of it is posted.
	 */
	WRITE_ONCE(ioctx->state, SRPT_CMD_WAIT_DATA);
	ret = srpt_map_segs(ch, ioctx, DMA_FROM_DEVICE);
	if (ret)
		/* -EAGAIN: the QP's MR pool is empty until transfers end. */
		return ret == -ENOMEM || ret == -EAGAIN ? ret : -EIO;
	if (!ioctx->n_segs) {
		srpt_set_cmd_state(ioctx, SRPT_CMD_EXECUTING);
		target_execute_cmd(cmd);
		return 0;
	}
	switch (srpt_sq_reserve(ch, ioctx)) {
	case SRPT_SQ_RESERVED:
		srpt_post_read(ioctx);
		return 0;
	case SRPT_SQ_WAITING:
		return 0;
	case SRPT_SQ_CLOSED:
		srpt_xfer_unmap(ch, ioctx);
		return -EIO;
	case SRPT_SQ_TOO_BIG:
	default:
		srpt_ch_warn_ratelimited(ch, "tag %#llx needs %u RDMA work requests, the send queue holds %u: raise srp_sq_size\n",
					 ioctx->tag, ioctx->n_rdma,
					 ch->lim.sq_rdma_wrs);
		srpt_xfer_unmap(ch, ioctx);
		return -EIO;
	}
}

/*
 * Immediate data is already here (copied if unaligned, see
 * &srpt_send_ioctx.imm_copy); else RDMA READs are posted now or when the
 * send queue has room. Return: 0; -ENOMEM/-EAGAIN retry; -EIO fails it.
 */
static int srpt_write_pending(struct se_cmd *cmd)
{
	struct srpt_send_ioctx *ioctx =
		container_of(cmd, struct srpt_send_ioctx, cmd);

	if (ioctx->imm_data) {
		if (ioctx->imm_copy) {
			u32 len = min(cmd->data_length, ioctx->imm_sg.length);

			if (sg_copy_from_buffer(cmd->t_data_sg, cmd->t_data_nents,
						sg_virt(&ioctx->imm_sg), len) != len)
				return -EIO;
		}
		/*
		 * A plain store: nothing else moves a command that never waits
		 * for data before the target core has it back (an abort ends it
		 * only after target_execute_cmd()).
		 */
		WRITE_ONCE(ioctx->state, SRPT_CMD_EXECUTING);
		target_execute_cmd(cmd);
		return 0;
	}
	return srpt_fetch_data(ioctx);
}

static int srpt_get_tcm_cmd_state(struct se_cmd *cmd)
{
	return container_of(cmd, struct srpt_send_ioctx, cmd)->state;
}

/* A command ends without a response: its credit comes back later. */
static noinline void srpt_release_unanswered(struct srpt_send_ioctx *ioctx)
{
	srpt_credit_return(ioctx->ch);
	srpt_release_recv(ioctx);
	ioctx->tmf_credit = false;
}

/**
 * srpt_release_cmd() - LIO callback: the last command reference is gone.
 * @cmd: LIO command.
 *
 * A command that got no response (aborted, or its channel died) still holds
 * its receive buffer and maybe RDMA contexts.
 */
static void srpt_release_cmd(struct se_cmd *cmd)
{
	struct srpt_send_ioctx *ioctx =
		container_of(cmd, struct srpt_send_ioctx, cmd);
	struct srpt_rdma_ch *ch = ioctx->ch;

	/* The target core owns the data buffers: only our contexts go. */
	if (WARN_ON_ONCE(ioctx->n_segs))
		srpt_unmap_segs_all(ch, ioctx);
	if (unlikely(ioctx->ext_tbl)) {
		kfree(ioctx->ext_tbl);
		ioctx->ext_tbl = NULL;
	}
	if (unlikely(ioctx->recv_ioctx || ioctx->tmf_credit))
		srpt_release_unanswered(ioctx);
	ioctx->state = SRPT_CMD_FINISHED;
	srpt_put_send_ioctx(ioctx);
}

static struct srpt_rdma_ch *srpt_sess_to_ch(struct se_session *sess)
{
	return sess ? sess->fabric_sess_ptr : NULL;
}

/**
 * srpt_close_session() - LIO callback: close the channel of a session.
 * @se_sess: session, e.g. of an ACL being removed.
 *
 * The target core waits for the session's removal, which the channel's
 * release does once its commands have finished.
 */
static void srpt_close_session(struct se_session *se_sess)
{
	struct srpt_rdma_ch *ch = srpt_sess_to_ch(se_sess);

	if (ch)
		srpt_logout_ch(ch, SRPT_LOGOUT_NO_REASON);
}

/* ==== Channels: login checks, rings, QP and CQs ========================= */

/* Return: 0, or the SRP_LOGIN_REJ_* reason to reject with. */
static u32 srpt_check_login_req(const struct srp_login_req *req,
				const u8 t_port_id[16], u32 max_req_size,
				bool port_enabled)
{
	u32 it_iu_len = be32_to_cpu(req->req_it_iu_len);

	if (req->opcode != SRP_LOGIN_REQ)
		return SRP_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL;
	if (it_iu_len < SRPT_MIN_IT_IU_LEN)
		return SRP_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL;
	if (it_iu_len > max_req_size)
		return SRP_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE;
	if (memcmp(req->target_port_id, t_port_id, 16))
		return SRP_LOGIN_REJ_UNABLE_ASSOCIATE_CHANNEL;
	if (!(be16_to_cpu(req->req_buf_fmt) &
	      (SRP_BUF_FORMAT_DIRECT | SRP_BUF_FORMAT_INDIRECT)))
		return SRP_LOGIN_REJ_UNSUPPORTED_DESCRIPTOR_FMT;
	if (!port_enabled)
		return SRP_LOGIN_REJ_INSUFFICIENT_RESOURCES;
	return 0;
}

/* Return: 0 if no immediate data was asked for or the offset cannot work. */
static u16 srpt_imm_data_offset(const struct srp_login_req *req, u32 it_iu_len)
{
	u16 off = be16_to_cpu(req->imm_data_offset);

	if (!(req->req_flags & SRP_IMMED_REQUESTED))
		return 0;
	if (off < SRPT_IMM_DATA_OFFSET_MIN || off >= it_iu_len)
		return 0;
	return off;
}

static void srpt_fill_login_rsp(struct srp_login_rsp *rsp, u64 tag, u32 req_lim,
				u32 max_it_iu_len, u32 max_ti_iu_len,
				u8 rsp_flags)
{
	memset(rsp, 0, sizeof(*rsp));
	rsp->opcode = SRP_LOGIN_RSP;
	rsp->tag = tag;
	rsp->req_lim_delta = cpu_to_be32(req_lim);
	rsp->max_it_iu_len = cpu_to_be32(max_it_iu_len);
	rsp->max_ti_iu_len = cpu_to_be32(max_ti_iu_len);
	rsp->buf_fmt = cpu_to_be16(SRP_BUF_FORMAT_DIRECT |
				   SRP_BUF_FORMAT_INDIRECT);
	rsp->rsp_flags = rsp_flags;
}

static void srpt_fill_login_rej(struct srp_login_rej *rej, u64 tag, u32 reason)
{
	memset(rej, 0, sizeof(*rej));
	rej->opcode = SRP_LOGIN_REJ;
	rej->tag = tag;
	rej->reason = cpu_to_be32(reason);
	rej->buf_fmt = cpu_to_be16(SRP_BUF_FORMAT_DIRECT |
				   SRP_BUF_FORMAT_INDIRECT);
}

static u8 srpt_multichan_rsp_flags(u8 req_flags, bool closed_others)
{
	if (req_flags & SRP_MULTICHAN_MULTI)
		return SRP_LOGIN_RSP_MULTICHAN_MAINTAINED;
	return closed_others ? SRP_LOGIN_RSP_MULTICHAN_TERMINATED :
			       SRP_LOGIN_RSP_MULTICHAN_NO_CHAN;
}

static void srpt_free_ch(struct kref *kref)
{
	struct srpt_rdma_ch *ch = container_of(kref, struct srpt_rdma_ch, kref);

	kfree_rcu(ch, rcu);
}

static void srpt_free_ch_rings(struct srpt_rdma_ch *ch)
{
	struct srpt_device *sdev = ch->sport->sdev;

	if (ch->end.logout_ioctx)
		srpt_free_ioctx(sdev, ch->end.logout_ioctx,
				sizeof(struct srp_t_logout), DMA_TO_DEVICE);
	ch->end.logout_ioctx = NULL;
	if (ch->cred.ioctx)
		srpt_free_ioctx(sdev, ch->cred.ioctx,
				sizeof(struct srp_cred_req), DMA_TO_DEVICE);
	ch->cred.ioctx = NULL;

	srpt_free_ioctx_ring((struct srpt_ioctx **)ch->io.recv_ring, sdev,
			     ch->lim.rq_size, ch->lim.recv_len, DMA_FROM_DEVICE);
	ch->io.recv_ring = NULL;
	srpt_free_ioctx_ring((struct srpt_ioctx **)ch->io.send_ring, sdev,
			     ch->lim.rq_size, ch->lim.max_rsp_size, DMA_TO_DEVICE);
	ch->io.send_ring = NULL;
}

/* @ch has rq_size, max_rsp_size and the receive layout set. */
static int srpt_alloc_ch_rings(struct srpt_rdma_ch *ch)
{
	struct srpt_device *sdev = ch->sport->sdev;
	int i;

	ch->io.send_ring = (struct srpt_send_ioctx **)
		srpt_alloc_ioctx_ring(sdev, ch->lim.rq_size,
				      sizeof(struct srpt_send_ioctx),
				      ch->lim.max_rsp_size, 0, DMA_TO_DEVICE);
	if (!ch->io.send_ring)
		return -ENOMEM;
	for (i = 0; i < ch->lim.rq_size; i++) {
		struct srpt_send_ioctx *ioctx = ch->io.send_ring[i];

		ioctx->ch = ch;
		ioctx->state = SRPT_CMD_FINISHED;
		ioctx->ioctx.cqe.done = srpt_send_done;
		ioctx->rsp_sge.lkey = sdev->lkey;
		ioctx->rsp_wr.sg_list = &ioctx->rsp_sge;
		ioctx->rsp_wr.num_sge = 1;
		ioctx->rsp_wr.opcode = IB_WR_SEND;
		srpt_pool_put(ch, ioctx);
	}
	ch->end.logout_ioctx = srpt_alloc_ioctx(sdev, sizeof(struct srpt_ioctx),
						sizeof(struct srp_t_logout), 0,
						DMA_TO_DEVICE);
	ch->cred.ioctx = srpt_alloc_ioctx(sdev, sizeof(struct srpt_ioctx),
					  sizeof(struct srp_cred_req), 0,
					  DMA_TO_DEVICE);
	if (!ch->end.logout_ioctx || !ch->cred.ioctx)
		goto err;
	if (ch->lim.use_srq)
		return 0;

	ch->io.recv_ring = (struct srpt_recv_ioctx **)
		srpt_alloc_ioctx_ring(sdev, ch->lim.rq_size,
				      sizeof(struct srpt_recv_ioctx),
				      ch->lim.recv_len, ch->lim.recv_offset,
				      DMA_FROM_DEVICE);
	if (!ch->io.recv_ring)
		goto err;
	for (i = 0; i < ch->lim.rq_size; i++)
		INIT_LIST_HEAD(&ch->io.recv_ring[i]->wait_list);
	return 0;

err:
	srpt_free_ch_rings(ch);
	return -ENOMEM;
}

/* Destroy a channel's QP the way it was created. */
static void srpt_destroy_qp(struct srpt_rdma_ch *ch)
{
	if (ch->lim.using_rdma_cm)
		rdma_destroy_qp(ch->rdma_cm.cm_id);
	else
		ib_destroy_qp(ch->qp);
	ch->qp = NULL;
}

/* Without memory registration, for data in page-sized segments. */
static u32 srpt_rdma_wrs_for(const struct ib_device_attr *attrs, u32 len)
{
	u32 sge = min_t(u32, attrs->max_send_sge, SRPT_DEF_SG_PER_WQE);

	if (attrs->max_sge_rd)
		sge = min_t(u32, sge, attrs->max_sge_rd);
	sge = max(sge, 1U);
	return DIV_ROUND_UP(DIV_ROUND_UP(len, PAGE_SIZE), sge) +
	       SRPT_RDMA_WR_SLACK;
}

/* Through the CM the channel logged in with; caps become what was granted. */
static int srpt_create_qp(struct srpt_rdma_ch *ch,
			  struct ib_qp_init_attr *qp_init)
{
	struct ib_pd *pd = ch->sport->sdev->pd;
	int ret;

	if (ch->lim.using_rdma_cm) {
		ret = rdma_create_qp(ch->rdma_cm.cm_id, pd, qp_init);
		ch->qp = ret ? NULL : ch->rdma_cm.cm_id->qp;
		return ret;
	}
	ch->qp = ib_create_qp(pd, qp_init);
	ret = PTR_ERR_OR_ZERO(ch->qp);
	if (ret)
		ch->qp = NULL;
	return ret;
}

/*
 * ib_poll_handler() still touches its CQ after irq_poll_complete(), which
 * is what lets ib_free_cq() go on to free it: a soft-IRQ poll that stalls
 * there for a millisecond (a vCPU descheduled) reads freed memory. Wait
 * until the poll is neither scheduled nor running (a soft-IRQ handler is
 * an RCU reader). With the QP gone a soft device (rxe, siw) schedules no
 * more polls; an HCA may still signal a completion written before the QP
 * was destroyed, and a poll it schedules between the last check here and
 * ib_free_cq() is a window only the RDMA core can close.
 */
static void srpt_quiesce_cq(struct ib_cq *cq)
{
	if (cq->poll_ctx != IB_POLL_SOFTIRQ)
		return;
	do {
		while (test_bit(IRQ_POLL_F_SCHED, &cq->iop.state))
			usleep_range(1000, 2000);
		synchronize_rcu();
	} while (test_bit(IRQ_POLL_F_SCHED, &cq->iop.state));
}

/* Context: the QP is destroyed or was never created. */
static void srpt_free_cqs(struct srpt_rdma_ch *ch)
{
	if (ch->recv_cq && ch->recv_cq != ch->cq)
		ib_free_cq(ch->recv_cq);
	if (ch->cq) {
		srpt_quiesce_cq(ch->cq);
		ib_free_cq(ch->cq);
	}
	ch->recv_cq = NULL;
	ch->cq = NULL;
}

/*
 * Send completions are polled in soft-IRQ context: a response's completion
 * frees its command without a work item. Receives submit commands, which
 * sleeps: their CQ is polled by a work item. SRQ receives share the send
 * CQ, so that the drain write completes after them all.
 * RDMA WRs take up to two more each for MR registration; all flush.
 */
static int srpt_alloc_cqs(struct srpt_rdma_ch *ch, u32 rsp_wrs, u32 sq_size)
{
	struct ib_device *dev = ch->sport->sdev->device;
	u32 send_cqe = rsp_wrs + 3 * sq_size;
	int ret;

	ch->cq = ib_alloc_cq_any(dev, ch, ch->lim.use_srq ? ch->lim.rq_size + send_cqe :
					   send_cqe,
				 ch->lim.use_srq ? IB_POLL_WORKQUEUE : IB_POLL_SOFTIRQ);
	if (IS_ERR(ch->cq)) {
		ret = PTR_ERR(ch->cq);
		ch->cq = NULL;
		return ret;
	}
	if (ch->lim.use_srq) {
		ch->recv_cq = ch->cq;
		return 0;
	}
	/*
	 * One more than the receive ring: ib_drain_rq() flushes its own work
	 * request into this CQ while all the flushed receives may still be
	 * unpolled (a full CQ makes siw refuse the drain with -ENOMEM).
	 */
	ch->recv_cq = ib_alloc_cq_any(dev, ch, ch->lim.rq_size + 1,
				      IB_POLL_WORKQUEUE);
	if (IS_ERR(ch->recv_cq)) {
		ret = PTR_ERR(ch->recv_cq);
		ch->recv_cq = NULL;
		srpt_free_cqs(ch);
		return ret;
	}
	return 0;
}

/* Return: 0, or a negative errno with neither created. */
static int srpt_create_cq_qp(struct srpt_rdma_ch *ch, u32 rsp_wrs, u32 sq_size)
{
	struct srpt_port *sport = ch->sport;
	struct srpt_device *sdev = sport->sdev;
	const struct ib_device_attr *attrs = &sdev->device->attrs;
	struct ib_qp_init_attr qp_init = {};
	int ret;

	ret = srpt_alloc_cqs(ch, rsp_wrs, sq_size);
	if (ret)
		return ret;

	qp_init.qp_context = ch;
	qp_init.event_handler = srpt_qp_event;
	qp_init.send_cq = ch->cq;
	qp_init.recv_cq = ch->recv_cq;
	qp_init.sq_sig_type = IB_SIGNAL_REQ_WR;
	qp_init.qp_type = IB_QPT_RC;
	qp_init.cap.max_send_wr = rsp_wrs;
	qp_init.cap.max_rdma_ctxs = sq_size;
	qp_init.cap.max_send_sge = min(attrs->max_send_sge, SRPT_DEF_SG_PER_WQE);
	qp_init.port_num = sport->port;
	if (ch->lim.use_srq) {
		qp_init.srq = sdev->srq;
	} else {
		qp_init.cap.max_recv_wr = ch->lim.rq_size;
		qp_init.cap.max_recv_sge = 1;
	}

	qp_init.cap.max_inline_data = min_t(u32, ch->lim.max_rsp_size, SRPT_RSP_INLINE);
	ret = srpt_create_qp(ch, &qp_init);
	if (ret && qp_init.cap.max_inline_data) {
		/* Some HCAs have no inline data: responses then use the lkey. */
		qp_init.cap.max_inline_data = 0;
		qp_init.cap.max_send_wr = rsp_wrs;
		qp_init.cap.max_recv_wr = ch->lim.use_srq ? 0 : ch->lim.rq_size;
		ret = srpt_create_qp(ch, &qp_init);
	}
	if (!ret && qp_init.cap.max_send_wr <= rsp_wrs) {
		srpt_destroy_qp(ch);
		ret = -ENOMEM;
	}
	if (ret) {
		srpt_free_cqs(ch);
		return ret;
	}
	snprintf(ch->log_name, sizeof(ch->log_name), "%s/qp %u", ch->sess_name,
		 ch->qp->qp_num);
	ch->lim.max_inline = qp_init.cap.max_inline_data;
	ch->lim.sq_rdma_wrs = qp_init.cap.max_send_wr - rsp_wrs;
	ch->lim.rdma_ctxs = sq_size;
	/*
	 * Where the budget still holds the largest transfer after it, each
	 * send context gets one RDMA WR of its own: the common one-WR
	 * transfer then reserves and returns nothing shared.
	 */
	ch->lim.ctx_rdma_wr = ch->lim.sq_rdma_wrs >= ch->lim.rq_size +
		max_t(u32, ch->lim.rq_size,
		      srpt_rdma_wrs_for(&sport->sdev->device->attrs,
					ch->lim.max_data_len));
	if (ch->lim.ctx_rdma_wr)
		ch->lim.sq_rdma_wrs -= ch->lim.rq_size;
	atomic_set(&ch->sq.wr_avail, ch->lim.sq_rdma_wrs);
	ch->sq.unsig_cqe.done = srpt_unsig_send_done;
	atomic_set(&ch->sq.unsig_avail, ch->lim.max_inline ? SRPT_UNSIG_RSP_MAX : 0);
	atomic_set(&ch->sq.unsig_posted, 0);
	atomic_set(&ch->sq.unsig_retired, 0);
	return 0;
}

/**
 * srpt_create_ch_ib() - create a channel's CQ and QP, post its receives.
 * @ch: channel with rq_size and max_data_len set.
 *
 * The send queue holds a response per send context, the drain write, an
 * SRP_T_LOGOUT, an SRP_CRED_REQ, %SRPT_UNSIG_RSP_MAX unsignaled responses
 * and srp_sq_size RDMA contexts (at least the largest transfer), so a
 * response never lacks room. The RDMA part is halved until the HCA agrees.
 *
 * Return: 0 or a negative errno.
 */
static int srpt_create_ch_ib(struct srpt_rdma_ch *ch)
{
	struct srpt_device *sdev = ch->sport->sdev;
	u32 sq_size = READ_ONCE(ch->sport->limits.srp_sq_size);
	/* Responses, drain write, SRP_T_LOGOUT, SRP_CRED_REQ, unsignaled. */
	u32 rsp_wrs = ch->lim.rq_size + 3 + SRPT_UNSIG_RSP_MAX;
	int i, ret;

	sq_size = max(sq_size, srpt_rdma_wrs_for(&sdev->device->attrs,
						 ch->lim.max_data_len));
	while ((ret = srpt_create_cq_qp(ch, rsp_wrs, sq_size))) {
		if (sq_size <= SRPT_SQ_SIZE_MIN) {
			srpt_ch_err(ch, "no CQ and QP for %u responses and %u RDMA contexts: %d\n",
				    rsp_wrs, sq_size, ret);
			return ret;
		}
		sq_size = max_t(u32, sq_size / 2, SRPT_SQ_SIZE_MIN);
	}
	srpt_ch_debug(ch, "cq %d entries, %u RDMA work requests, rq %d\n",
		      ch->cq->cqe, ch->lim.sq_rdma_wrs, ch->lim.rq_size);

	if (!ch->lim.using_rdma_cm) {
		ret = srpt_init_ch_qp(ch, ch->qp);
		if (ret)
			goto err_destroy_qp;
	}
	if (!ch->lim.use_srq) {
		for (i = 0; i < ch->lim.rq_size; i++) {
			ret = srpt_post_recv(sdev, ch, ch->io.recv_ring[i]);
			if (ret)
				goto err_destroy_qp;
		}
	}
	return 0;

err_destroy_qp:
	srpt_ch_err(ch, "QP setup failed: %d\n", ret);
	srpt_destroy_qp(ch);
	srpt_free_cqs(ch);
	return ret;
}

static void srpt_destroy_ch_ib(struct srpt_rdma_ch *ch)
{
	if (ch->qp)
		ib_destroy_qp(ch->qp);
	ch->qp = NULL;
	srpt_free_cqs(ch);
}

/* ==== Teardown: close, logout, credits requests, release ================ */

static void srpt_disconnect_cm(struct srpt_rdma_ch *ch)
{
	int ret;

	if (ch->lim.using_rdma_cm) {
		ret = rdma_disconnect(ch->rdma_cm.cm_id);
	} else {
		ret = ib_send_cm_dreq(ch->ib_cm.cm_id, NULL, 0);
		if (ret < 0)
			ret = ib_send_cm_drep(ch->ib_cm.cm_id, NULL, 0);
	}
	if (ret < 0)
		srpt_ch_debug(ch, "CM disconnect: %d\n", ret);
}

/**
 * srpt_close_ch() - close an RDMA channel.
 * @ch: channel.
 *
 * CM disconnect, QP to error, then the drain write whose flush starts the
 * release. May sleep briefly; may be called any number of times.
 *
 * Return: true if this call started the close.
 */
static bool srpt_close_ch(struct srpt_rdma_ch *ch)
{
	int ret;

	if (!srpt_set_ch_state(ch, SRPT_CH_DRAINING)) {
		srpt_ch_debug(ch, "already closing\n");
		return false;
	}
	trace_srpt_ch_close(ch, _RET_IP_);

	kref_get(&ch->kref);
	srpt_disconnect_cm(ch);
	ret = srpt_ch_qp_err(ch);
	if (ret < 0)
		srpt_ch_err(ch, "QP to error state failed: %d\n", ret);
	ret = srpt_zerolength_write(ch);
	if (ret < 0) {
		srpt_ch_err(ch, "drain write failed: %d\n", ret);
		if (srpt_set_ch_state(ch, SRPT_CH_DRAINED))
			srpt_end_queue(ch, SRPT_END_RELEASE, 0);
	}
	kref_put(&ch->kref, srpt_free_ch);
	return true;
}

/*
 * Any context (QP events, completion errors). A channel not yet on its
 * initiator port belongs to its login, which ends it. A close already
 * pending, such as the grace time of an SRP_T_LOGOUT, is brought forward.
 * Return: true if no close was pending.
 */
static bool srpt_close_ch_async(struct srpt_rdma_ch *ch)
{
	if (!READ_ONCE(ch->initiator) || READ_ONCE(ch->state) > SRPT_CH_LIVE)
		return false;
	return srpt_end_queue(ch, SRPT_END_CLOSE, 0);
}

/* @ch drained; @list is sq.wait_list or sq.post_failed. */
static void srpt_cancel_xfers(struct srpt_rdma_ch *ch, struct list_head *list)
{
	struct srpt_send_ioctx *ioctx;
	unsigned long flags;

	for (;;) {
		spin_lock_irqsave(&ch->spinlock, flags);
		WRITE_ONCE(ch->sq.closed, true);
		ioctx = list_first_entry_or_null(list, struct srpt_send_ioctx,
						 sq_wait);
		if (ioctx)
			list_del_init(&ioctx->sq_wait);
		spin_unlock_irqrestore(&ch->spinlock, flags);
		if (!ioctx)
			return;
		/* A failed post had its work requests reserved: give them back. */
		if (list == &ch->sq.post_failed)
			srpt_sq_unreserve(ch, ioctx);
		srpt_xfer_cancel(ioctx);
	}
}

static int srpt_build_t_logout(void *buf, u32 reason, u64 tag)
{
	struct srp_t_logout *lo = buf;

	BUILD_BUG_ON(sizeof(*lo) != 16);
	memset(lo, 0, sizeof(*lo));
	lo->opcode = SRP_T_LOGOUT;
	lo->reason = cpu_to_be32(reason);
	lo->tag = tag;
	return sizeof(*lo);
}

static int srpt_build_cred_req(void *buf, s32 delta, u64 tag)
{
	struct srp_cred_req *cr = buf;

	BUILD_BUG_ON(sizeof(*cr) != 16);
	memset(cr, 0, sizeof(*cr));
	cr->opcode = SRP_CRED_REQ;
	cr->req_lim_delta = cpu_to_be32(delta);
	cr->tag = tag;
	return sizeof(*cr);
}

/* SRP_T_LOGOUT and SRP_CRED_REQ each have a slot, see srpt_create_ch_ib(). */
static int srpt_post_ctl(struct srpt_rdma_ch *ch, struct srpt_ioctx *ioctx,
			 int len, void (*done)(struct ib_cq *, struct ib_wc *))
{
	struct ib_sge sge = {
		.addr = ioctx->dma,
		.length = len,
		.lkey = ch->sport->sdev->lkey,
	};
	struct ib_send_wr wr = {
		.wr_cqe = &ioctx->cqe,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};

	ib_dma_sync_single_for_device(ch->sport->sdev->device, ioctx->dma, len,
				      DMA_TO_DEVICE);
	ioctx->cqe.done = done;
	return ib_post_send(ch->qp, &wr, NULL);
}

/* Soft-IRQ: closing disconnects the CM, which may sleep (iWARP). */
static void srpt_logout_done(struct ib_cq *cq, struct ib_wc *wc)
{
	srpt_close_ch_async(wc->qp->qp_context);
}

/*
 * Tell the initiator why we close, then close on the SRP_T_LOGOUT's
 * completion or after SRPT_LOGOUT_GRACE. A channel not live yet closes at
 * once; one whose logout is under way is left to it.
 */
static void srpt_logout_ch(struct srpt_rdma_ch *ch, u32 reason)
{
	unsigned long flags;
	bool send, sent;

	spin_lock_irqsave(&ch->spinlock, flags);
	sent = ch->end.logout_sent;
	send = ch->state == SRPT_CH_LIVE && !sent;
	if (send)
		ch->end.logout_sent = true;
	spin_unlock_irqrestore(&ch->spinlock, flags);
	if (sent)
		return;
	if (!send) {
		srpt_close_ch(ch);
		return;
	}

	srpt_ch_info(ch, "logging the initiator out, reason %#x\n", reason);
	trace_srpt_target_logout(ch, reason);
	srpt_end_queue(ch, SRPT_END_CLOSE_AT, SRPT_LOGOUT_GRACE);
	if (srpt_post_ctl(ch, ch->end.logout_ioctx,
			  srpt_build_t_logout(ch->end.logout_ioctx->buf, reason, 0),
			  srpt_logout_done))
		srpt_close_ch(ch);
}

static void srpt_cred_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_rdma_ch *ch = wc->qp->qp_context;
	unsigned long flags;

	bool again;

	spin_lock_irqsave(&ch->spinlock, flags);
	ch->cred.busy = false;
	/* An SRP_CRED_RSP that came first found us busy: send what is owed. */
	again = !ch->cred.rsp_due && atomic_read(&ch->cred.req_lim_delta) > 0;
	spin_unlock_irqrestore(&ch->spinlock, flags);
	if (wc->status != IB_WC_SUCCESS) {
		srpt_wc_failed(ch, wc->status, "SRP_CRED_REQ", 0);
		return;
	}
	if (again)
		srpt_end_queue(ch, SRPT_END_CRED, 0);
}

/*
 * Credits no response carried. One SRP_CRED_REQ at a time; responses and
 * requests both take from req_lim_delta, so no credit is given twice.
 */
static void srpt_send_cred_req(struct srpt_rdma_ch *ch)
{
	unsigned long flags;
	s32 delta = 0;
	u64 tag;

	spin_lock_irqsave(&ch->spinlock, flags);
	if (ch->state == SRPT_CH_LIVE && !ch->cred.busy && !ch->cred.rsp_due)
		delta = atomic_xchg(&ch->cred.req_lim_delta, 0);
	if (delta > 0) {
		ch->cred.busy = true;
		ch->cred.rsp_due = true;
		tag = ++ch->cred.tag;
	}
	spin_unlock_irqrestore(&ch->spinlock, flags);
	if (delta <= 0)
		return;

	atomic_add(delta, &ch->cred.granted);
	trace_srpt_credit(ch, delta, srpt_credits_held(ch));
	srpt_ch_debug(ch, "SRP_CRED_REQ with %d credits\n", delta);
	if (srpt_post_ctl(ch, ch->cred.ioctx,
			  srpt_build_cred_req(ch->cred.ioctx->buf, delta, tag),
			  srpt_cred_done)) {
		srpt_credit_undo(ch, delta);
		spin_lock_irqsave(&ch->spinlock, flags);
		ch->cred.busy = false;
		ch->cred.rsp_due = false;
		spin_unlock_irqrestore(&ch->spinlock, flags);
	}
}

/*
 * Off the CM callbacks: wait for the commands, remove the session, destroy
 * the CM ID before the QP (no CM callback may touch a freed QP), free.
 */
static void srpt_release_ch(struct srpt_rdma_ch *ch)
{
	struct srpt_port *sport = ch->sport;
	struct srpt_device *sdev = sport->sdev;
	struct srpt_recv_ioctx *recv, *tmp;
	struct srpt_initiator *iport = ch->initiator;

	srpt_ch_debug(ch, "releasing\n");
	/* A channel closed while its login ran is released once, after it. */
	wait_for_completion(&ch->end.login_done);
	if (!ch->lim.use_srq) {
		ib_drain_rq(ch->qp);
	} else if (ch->qp) {
		/*
		 * SRQ receives may still be in the CQ; ib_free_cq() would lose
		 * their buffers. A send posted after the last WQE completes
		 * after them all (srpt_recv_done() reposts each).
		 */
		if (!wait_for_completion_timeout(&ch->end.last_wqe,
						 SRPT_LAST_WQE_TIMEOUT))
			srpt_ch_info(ch, "no last-WQE event from the HCA: receives still in flight may not return to the SRQ\n");
		ib_drain_sq(ch->qp);
	}

	/*
	 * Transfers that completed before the drain reach the target core;
	 * the channel is not live, so no waiting IU is replayed.
	 */
	flush_work(&ch->io.work);
	srpt_cancel_xfers(ch, &ch->sq.post_failed);
	srpt_cancel_xfers(ch, &ch->sq.wait_list);

	if (ch->sess) {
		target_stop_session(ch->sess);
		target_wait_for_sess_cmds(ch->sess);
		target_remove_session(ch->sess);
		ch->sess = NULL;
	}
	/* Freeing the commands above may have queued them again. */
	flush_work(&ch->io.work);

	list_for_each_entry_safe(recv, tmp, &ch->io.wait_list, wait_list) {
		list_del_init(&recv->wait_list);
		if (ch->lim.use_srq)
			srpt_post_recv(sdev, ch, recv);
	}

	mutex_lock(&sport->mutex);
	list_del_init(&ch->list);
	if (iport && list_empty(&iport->ch_list)) {
		list_del(&iport->entry);
		kfree_rcu(iport, rcu);
	}
	mutex_unlock(&sport->mutex);

	if (ch->lim.using_rdma_cm)
		rdma_destroy_id(ch->rdma_cm.cm_id);
	else
		ib_destroy_cm_id(ch->ib_cm.cm_id);
	srpt_destroy_ch_ib(ch);
	srpt_free_ch_rings(ch);

	srpt_ch_info(ch, "released after %llu commands, %lld TMFs, %llu bytes in, %llu bytes out, %lld bad IUs, %lld remote descriptor tables\n",
		     READ_ONCE(ch->stats.cmds),
		     atomic64_read(&ch->stats.tmfs),
		     srpt_ch_bytes_in(ch),
		     READ_ONCE(ch->stats.bytes_out),
		     atomic64_read(&ch->stats.bad_ius),
		     atomic64_read(&ch->stats.ext_tables));
	atomic_dec(&sport->refcount);
	wake_up(&sport->freed_channels);
	srpt_sdev_put(sdev);
	kref_put(&ch->kref, srpt_free_ch);
}

/**
 * srpt_end_queue() - give the channel's control work a job.
 * @ch: channel.
 * @job: what to do.
 * @delay: when, in jiffies from now; for %SRPT_END_CLOSE_AT the grace time.
 *
 * Any context. Each queueing of &srpt_rdma_ch.end.work holds a channel
 * reference, which the work drops when it has run. A job with a delay
 * does not postpone one already pending: a close pending comes sooner.
 * Once the release has started nothing is queued.
 *
 * Return: true if neither @job nor, for %SRPT_END_CLOSE, a close at the
 * end of a grace time was pending.
 */
static bool srpt_end_queue(struct srpt_rdma_ch *ch, enum srpt_end_job job,
			   unsigned long delay)
{
	unsigned long flags, mask = BIT(job);
	bool idle, queued = false;

	if (job == SRPT_END_CLOSE)
		mask |= BIT(SRPT_END_CLOSE_AT);
	spin_lock_irqsave(&ch->spinlock, flags);
	idle = !(ch->end.jobs & mask);
	if (!ch->end.released) {
		if (job == SRPT_END_CLOSE_AT && !(ch->end.jobs & BIT(job)))
			ch->end.close_at = jiffies + delay;
		ch->end.jobs |= BIT(job);
		kref_get(&ch->kref);
		if (delay)
			queued = queue_delayed_work(srpt_wq, &ch->end.work, delay);
		else
			queued = !mod_delayed_work(srpt_wq, &ch->end.work, 0);
		/* Not the last: the pending queueing holds one. */
		if (!queued)
			kref_put(&ch->kref, srpt_free_ch);
	}
	spin_unlock_irqrestore(&ch->spinlock, flags);
	return idle;
}

/*
 * The channel's control work: release, close and credits, off the
 * completion and event handlers. One instance runs at a time, so the
 * release never races a close or an SRP_CRED_REQ.
 */
static void srpt_end_work(struct work_struct *w)
{
	struct srpt_rdma_ch *ch = container_of(to_delayed_work(w),
					       struct srpt_rdma_ch, end.work);
	unsigned long flags, jobs;

	spin_lock_irqsave(&ch->spinlock, flags);
	jobs = ch->end.jobs;
	ch->end.jobs = 0;
	if (jobs & BIT(SRPT_END_RELEASE)) {
		ch->end.released = true;
		/* A queueing that raced with this run: its reference. */
		if (cancel_delayed_work(&ch->end.work))
			kref_put(&ch->kref, srpt_free_ch);
	} else if ((jobs & BIT(SRPT_END_CLOSE_AT)) &&
		   time_before(jiffies, ch->end.close_at)) {
		/* A credit job came first: the grace time is not over. */
		ch->end.jobs = BIT(SRPT_END_CLOSE_AT);
		kref_get(&ch->kref);
		if (!queue_delayed_work(srpt_wq, &ch->end.work,
					ch->end.close_at - jiffies))
			kref_put(&ch->kref, srpt_free_ch);
		jobs &= ~BIT(SRPT_END_CLOSE_AT);
	}
	spin_unlock_irqrestore(&ch->spinlock, flags);

	if (jobs & BIT(SRPT_END_RELEASE)) {
		srpt_release_ch(ch);
	} else {
		if (jobs & (BIT(SRPT_END_CLOSE) | BIT(SRPT_END_CLOSE_AT)))
			srpt_close_ch(ch);
		/* Only a live channel sends one. */
		if (jobs & BIT(SRPT_END_CRED))
			srpt_send_cred_req(ch);
	}
	kref_put(&ch->kref, srpt_free_ch);
}

/* ==== Target ports, TPGs, initiators and ACLs =========================== */

/*
 * Return: channels of @se_tpg (NULL: of any TPG) still on @sport, closed
 * first if @close.
 */
static unsigned int srpt_tpg_channels(struct srpt_port *sport,
				      struct se_portal_group *se_tpg,
				      bool close)
{
	struct srpt_initiator *iport;
	struct srpt_rdma_ch *ch;
	unsigned int n = 0;

	mutex_lock(&sport->mutex);
	list_for_each_entry(iport, &sport->initiators, entry)
		list_for_each_entry(ch, &iport->ch_list, list) {
			if (se_tpg && READ_ONCE(ch->se_tpg) != se_tpg)
				continue;
			n++;
			if (close)
				srpt_logout_ch(ch, SRPT_LOGOUT_NO_REASON);
		}
	mutex_unlock(&sport->mutex);
	return n;
}

/**
 * srpt_release_sport() - close a port's channels and wait until gone.
 * @sport: port.
 *
 * Logs while channels drain, so a stuck initiator is not a silent hang.
 */
static void srpt_release_sport(struct srpt_port *sport)
{
	srpt_tpg_channels(sport, NULL, true);
	while (!wait_event_timeout(sport->freed_channels,
				   atomic_read(&sport->refcount) == 0,
				   SRPT_DRAIN_REPORT_SECS * HZ)) {
		pr_info("%s port %u: waiting for %d channel(s) to close\n",
			dev_name(&sport->sdev->device->dev), sport->port,
			atomic_read(&sport->refcount));
		srpt_tpg_channels(sport, NULL, true);
	}
}

/* Disabling closes the port's channels and waits for them. */
static void srpt_set_enabled(struct srpt_port *sport, bool enabled)
{
	mutex_lock(&sport->mutex);
	sport->enabled = enabled;
	mutex_unlock(&sport->mutex);
	if (!enabled)
		srpt_release_sport(sport);
}

/* Return: whether a TPG under either of @sport's names is enabled. */
static bool srpt_port_any_live(struct srpt_port *sport)
{
	struct srpt_tport *tports[2];
	struct srpt_tpg *stpg;
	bool any_live = false;
	unsigned int i;

	/* sdev_mutex keeps the port's target ports attached. */
	mutex_lock(&sport->sdev->sdev_mutex);
	tports[0] = sport->gid_tport;
	tports[1] = sport->guid_tport;
	for (i = 0; i < ARRAY_SIZE(tports); i++) {
		if (!tports[i])
			continue;
		mutex_lock(&tports[i]->mutex);
		list_for_each_entry(stpg, &tports[i]->tpg_list, entry)
			any_live |= stpg->live;
		mutex_unlock(&tports[i]->mutex);
	}
	mutex_unlock(&sport->sdev->sdev_mutex);
	return any_live;
}

/*
 * Only this TPG's channels close: the port keeps accepting logins while
 * another TPG under either of its names is enabled.
 */
static void srpt_tpg_stop(struct srpt_port *sport, struct srpt_tpg *stpg)
{
	unsigned int i, n;

	if (!srpt_port_any_live(sport)) {
		srpt_set_enabled(sport, false);
		/*
		 * Another TPG enabled since the look: it went live before it
		 * enabled the port, so one of us sees the other.
		 */
		if (srpt_port_any_live(sport))
			srpt_set_enabled(sport, true);
	}

	for (i = 0; (n = srpt_tpg_channels(sport, &stpg->tpg, true)); i++) {
		if (i && i % (SRPT_DRAIN_REPORT_SECS * 10) == 0)
			pr_info("%s port %u: waiting for %u channel(s) of a disabled TPG to close\n",
				dev_name(&sport->sdev->device->dev),
				sport->port, n);
		msleep(100);
	}
}

/* Return: the initiator port, or NULL if out of memory. */
static struct srpt_initiator *srpt_get_initiator(struct srpt_port *sport,
						 const u8 i_port_id[16],
						 const u8 t_port_id[16],
						 const char *acl)
{
	struct srpt_initiator *iport;

	lockdep_assert_held(&sport->mutex);
	list_for_each_entry(iport, &sport->initiators, entry)
		if (!memcmp(iport->i_port_id, i_port_id, 16) &&
		    !memcmp(iport->t_port_id, t_port_id, 16) &&
		    !strcmp(iport->acl, acl))
			return iport;

	iport = kzalloc_obj(*iport, GFP_KERNEL);
	if (!iport)
		return NULL;
	INIT_LIST_HEAD(&iport->ch_list);
	memcpy(iport->i_port_id, i_port_id, 16);
	memcpy(iport->t_port_id, t_port_id, 16);
	strscpy(iport->acl, acl, sizeof(iport->acl));
	list_add_tail(&iport->entry, &sport->initiators);
	return iport;
}

enum srpt_acl_form {
	SRPT_ACL_PORT_ID,	/* initiator port ID, 0x + hex or hex */
	SRPT_ACL_GUID,		/* initiator port GUID hhhh:hhhh:hhhh:hhhh */
	SRPT_ACL_IP,		/* initiator IPv4 or IPv6 address */
};

static int srpt_parse_acl_name(const char *name, u8 id[16],
			       enum srpt_acl_form *form);

/* IPv4 equals its IPv4-mapped IPv6 form; false for non-IP families. */
static bool srpt_ip_equal(const struct sockaddr *a, const struct sockaddr *b)
{
	const struct sockaddr *sa[2] = { a, b };
	struct in6_addr v6[2];
	int i;

	for (i = 0; i < 2; i++) {
		if (sa[i]->sa_family == AF_INET)
			ipv6_addr_set_v4mapped(((const struct sockaddr_in *)sa[i])->sin_addr.s_addr,
					       &v6[i]);
		else if (sa[i]->sa_family == AF_INET6)
			v6[i] = ((const struct sockaddr_in6 *)sa[i])->sin6_addr;
		else
			return false;
	}
	return ipv6_addr_equal(&v6[0], &v6[1]);
}

/* Return: 0, or -EINVAL if @name is not an IP address. */
static int srpt_acl_name_addr(const char *name, struct sockaddr_storage *ss)
{
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
	size_t len = strlen(name);
	const char *end;

	/* One trailing newline, as echo writes it; text after one is not an address. */
	if (len && name[len - 1] == '\n')
		len--;
	memset(ss, 0, sizeof(*ss));
	if (in4_pton(name, len, (u8 *)&s4->sin_addr.s_addr, -1, &end) &&
	    end == name + len) {
		s4->sin_family = AF_INET;
		return 0;
	}
	if (len >= 2 && name[0] == '[' && name[len - 1] == ']') {
		name++;
		len -= 2;
	}
	if (in6_pton(name, len, s6->sin6_addr.s6_addr, -1, &end) &&
	    end == name + len) {
		s6->sin6_family = AF_INET6;
		return 0;
	}
	return -EINVAL;
}

/*
 * Does ACL @name admit this login (rules: "ACLs" in Documentation/ib_srpt.rst)?
 * @src: AF_IB with the initiator's GID from the primary path (IB CM),
 * AF_INET/AF_INET6 (RDMA/CM), or NULL. Values are compared, not text. As
 * RDMA/CM paths have no port GUID, there a port GUID ACL matches the GUID
 * half of @i_port_id (an extension over the in-kernel driver).
 */
static bool srpt_acl_matches(const char *name, bool guid_port,
			     const u8 i_port_id[16], const struct sockaddr *src)
{
	struct sockaddr_storage ss;
	enum srpt_acl_form form;
	u8 id[16];

	if (srpt_parse_acl_name(name, id, &form))
		return false;
	if (!guid_port)
		return form == SRPT_ACL_PORT_ID && !memcmp(id, i_port_id, 16);
	if (!src)
		return false;
	if (form == SRPT_ACL_PORT_ID && !memchr_inv(id, 0, 8))
		form = SRPT_ACL_GUID;
	if (form == SRPT_ACL_GUID && src->sa_family == AF_IB)
		return !memcmp(id + 8,
			       &((const struct sockaddr_ib *)src)->sib_addr.sib_interface_id, 8);
	if (form == SRPT_ACL_GUID)
		return !memcmp(id + 8, i_port_id + 8, 8);
	if (form == SRPT_ACL_IP)
		return !srpt_acl_name_addr(name, &ss) &&
		       srpt_ip_equal((struct sockaddr *)&ss, src);
	return false;
}

static bool srpt_find_acl(struct se_portal_group *tpg, bool guid_port,
			  const u8 i_port_id[16], const struct sockaddr *src,
			  char *name)
{
	struct se_node_acl *nacl;
	bool found = false;

	mutex_lock(&tpg->acl_node_mutex);
	list_for_each_entry(nacl, &tpg->acl_node_list, acl_list) {
		if (nacl->dynamic_node_acl)
			continue;
		if (srpt_acl_matches(nacl->initiatorname, guid_port, i_port_id,
				     src)) {
			strscpy(name, nacl->initiatorname, TRANSPORT_IQN_LEN);
			found = true;
			break;
		}
	}
	mutex_unlock(&tpg->acl_node_mutex);
	return found;
}

/*
 * @ch NULL only asks whether an ACL admits the login, before anything is
 * allocated: a refused login costs nothing and disturbs no channel.
 * @name: TRANSPORT_IQN_LEN bytes; receives the admitting ACL's name.
 * Return: 0, or -EACCES when no enabled TPG has an ACL for the initiator.
 */
static int srpt_setup_session(struct srpt_port *sport, struct srpt_rdma_ch *ch,
			      const u8 i_port_id[16], const struct sockaddr *src,
			      char *name)
{
	struct srpt_tport *tports[] = { sport->gid_tport, sport->guid_tport };
	struct srpt_tpg *stpg;
	int i, ret = -EACCES;

	lockdep_assert_held(&sport->sdev->sdev_mutex);
	for (i = 0; i < ARRAY_SIZE(tports) && ret; i++) {
		if (!tports[i])
			continue;
		mutex_lock(&tports[i]->mutex);
		list_for_each_entry(stpg, &tports[i]->tpg_list, entry) {
			if (!stpg->live ||
			    !srpt_find_acl(&stpg->tpg, tports[i]->guid_form,
					   i_port_id, src, name))
				continue;
			ret = 0;
			if (!ch)
				break;
			ch->sess = target_setup_session(&stpg->tpg, 0, 0,
							TARGET_PROT_NORMAL,
							name, ch, NULL);
			ret = PTR_ERR_OR_ZERO(ch->sess);
			if (ret)
				ch->sess = NULL;
			else
				WRITE_ONCE(ch->se_tpg, &stpg->tpg);
			break;
		}
		mutex_unlock(&tports[i]->mutex);
	}
	return ret;
}

/* ==== Login (IB CM and RDMA/CM) ========================================= */

static void srpt_send_login_rej(struct ib_cm_id *ib_cm_id,
				struct rdma_cm_id *rdma_cm_id, u64 tag,
				u32 reason)
{
	struct srp_login_rej rej;
	int ret;

	srpt_fill_login_rej(&rej, tag, reason);
	if (ib_cm_id)
		ret = ib_send_cm_rej(ib_cm_id, IB_CM_REJ_CONSUMER_DEFINED, NULL,
				     0, &rej, sizeof(rej));
	else
		ret = rdma_reject(rdma_cm_id, &rej, sizeof(rej),
				  IB_CM_REJ_CONSUMER_DEFINED);
	if (ret < 0)
		pr_err("sending login reject failed: %d\n", ret);
	trace_srpt_login_reject(tag, reason, !ib_cm_id);
}

/*
 * The sizes and credits a login accepted by srpt_check_login_req() gets:
 * from the request, the port's limits and the device's receive queue.
 * Immediate data lands on a sector boundary of its receive buffer.
 */
static void srpt_ch_login_sizes(struct srpt_rdma_ch *ch,
				const struct srpt_port *sport,
				const struct srp_login_req *req)
{
	const struct srpt_device *sdev = sport->sdev;
	u32 it_iu_len = be32_to_cpu(req->req_it_iu_len);

	ch->lim.max_data_len = READ_ONCE(sport->limits.srp_max_rdma_size);
	ch->lim.max_it_iu_len = it_iu_len;
	ch->lim.imm_data_offset = srpt_imm_data_offset(req, it_iu_len);
	ch->lim.max_rsp_size = clamp_t(u32,
				       READ_ONCE(sport->limits.srp_max_rsp_size),
				       SRPT_MAX_RSP_SIZE_MIN, SRPT_MAX_RSP_SIZE_MAX);
	ch->lim.max_ti_iu_len = ch->lim.max_rsp_size;
	ch->lim.use_srq = sdev->use_srq;
	ch->lim.rq_size = ch->lim.use_srq ? min(sdev->srq_size, SRPT_RQ_SIZE) :
				    SRPT_RQ_SIZE;
	ch->lim.recv_len = ch->lim.use_srq ? srp_max_req_size : it_iu_len;
	ch->lim.recv_offset = (!ch->lim.use_srq && ch->lim.imm_data_offset) ?
			  (SECTOR_SIZE - ch->lim.imm_data_offset % SECTOR_SIZE) %
			  SECTOR_SIZE : 0;
	ch->stats.credits_taken = 0;
	atomic_set(&ch->cred.granted, ch->lim.rq_size);
	atomic_set(&ch->cred.req_lim_delta, 0);
}

/* Context: sdev_mutex held. Return: a channel nobody else sees, or NULL. */
static struct srpt_rdma_ch *srpt_alloc_ch(struct srpt_port *sport,
					  const struct srp_login_req *req,
					  struct ib_cm_id *ib_cm_id,
					  struct rdma_cm_id *rdma_cm_id)
{
	struct srpt_rdma_ch *ch;

	lockdep_assert_held(&sport->sdev->sdev_mutex);
	ch = kzalloc_obj(*ch, GFP_KERNEL);
	if (!ch)
		return NULL;
	kref_init(&ch->kref);
	spin_lock_init(&ch->spinlock);
	INIT_LIST_HEAD(&ch->list);
	init_llist_head(&ch->io.free_ret);
	INIT_LIST_HEAD(&ch->io.wait_list);
	INIT_LIST_HEAD(&ch->sq.wait_list);
	INIT_LIST_HEAD(&ch->sq.post_failed);
	INIT_WORK(&ch->io.work, srpt_io_work);
	init_llist_head(&ch->io.xfer_done);
	INIT_DELAYED_WORK(&ch->end.work, srpt_end_work);
	init_completion(&ch->end.login_done);
	init_completion(&ch->end.last_wqe);
	ch->sport = sport;
	ch->state = SRPT_CH_LOGGING_IN;
	snprintf(ch->sess_name, sizeof(ch->sess_name), "0x%16phN",
		 req->initiator_port_id);
	strscpy(ch->log_name, ch->sess_name, sizeof(ch->log_name));
	if (ib_cm_id) {
		ch->ib_cm.cm_id = ib_cm_id;
	} else {
		ch->lim.using_rdma_cm = true;
		ch->rdma_cm.cm_id = rdma_cm_id;
	}
	srpt_ch_login_sizes(ch, sport, req);

	if (srpt_alloc_ch_rings(ch))
		goto free_ch;
	if (srpt_create_ch_ib(ch))
		goto free_rings;
	return ch;

free_rings:
	srpt_free_ch_rings(ch);
free_ch:
	kfree(ch);
	return NULL;
}

static void srpt_free_unlinked_ch(struct srpt_rdma_ch *ch)
{
	srpt_destroy_qp(ch);
	srpt_destroy_ch_ib(ch);
	srpt_free_ch_rings(ch);
	kfree(ch);
}

/*
 * From here the channel owns its CM ID and is released via srpt_close_ch().
 * It is on its initiator port before its session exists, so a session
 * close (ACL removal, TPG disable) finds it and its release runs after the
 * login.
 * A single-channel login replaces only channels of the same initiator
 * port admitted by the same ACL (@acl).
 * Return: 0, or -ENODEV (port closed to logins; @ch still the caller's).
 */
static int srpt_link_ch(struct srpt_rdma_ch *ch,
			const struct srp_login_req *req,
			const u8 t_port_id[16], const char *acl,
			bool *closed_others)
{
	struct srpt_port *sport = ch->sport;
	struct srpt_initiator *iport;

	mutex_lock(&sport->mutex);
	iport = sport->enabled ? srpt_get_initiator(sport, req->initiator_port_id,
						t_port_id, acl) : NULL;
	if (!iport) {
		mutex_unlock(&sport->mutex);
		return -ENODEV;
	}
	*closed_others = !(req->req_flags & SRP_MULTICHAN_MULTI) &&
			 !list_empty(&iport->ch_list);
	WRITE_ONCE(ch->initiator, iport);
	list_add_tail(&ch->list, &iport->ch_list);
	atomic_inc(&sport->refcount);
	srpt_sdev_get(sport->sdev);
	if (ch->lim.using_rdma_cm)
		ch->rdma_cm.cm_id->context = ch;
	else
		ch->ib_cm.cm_id->context = ch;
	mutex_unlock(&sport->mutex);
	return 0;
}

/* Only once accepted: a refused login must not log another host out. */
static void srpt_close_others(struct srpt_rdma_ch *ch)
{
	struct srpt_port *sport = ch->sport;
	struct srpt_rdma_ch *other;

	mutex_lock(&sport->mutex);
	list_for_each_entry(other, &ch->initiator->ch_list, list) {
		if (other == ch)
			continue;
		srpt_ch_info(other, "closed by a single-channel login\n");
		srpt_logout_ch(other, SRPT_LOGOUT_MULTICHANNEL);
	}
	mutex_unlock(&sport->mutex);
}

/*
 * @rd_depth: our RDMA READ depth; the CM reports the initiator's responder
 * resources as our initiator depth. Return: 0 or the CM's error.
 */
static int srpt_accept_ch(struct srpt_rdma_ch *ch,
			  const struct srp_login_req *req, u8 rd_depth,
			  bool closed_others)
{
	const struct ib_device_attr *attrs = &ch->sport->sdev->device->attrs;
	struct srp_login_rsp *rsp;
	union {
		struct rdma_conn_param rdma_cm;
		struct ib_cm_rep_param ib_cm;
	} *rep;
	u8 depth, resources;
	int ret = -ENOMEM;

	rsp = kzalloc_obj(*rsp, GFP_KERNEL);
	rep = kzalloc_obj(*rep, GFP_KERNEL);
	if (!rsp || !rep)
		goto out;
	srpt_fill_login_rsp(rsp, req->tag, ch->lim.rq_size, ch->lim.max_it_iu_len,
			    ch->lim.max_ti_iu_len,
			    srpt_multichan_rsp_flags(req->req_flags, closed_others) |
			    (ch->lim.imm_data_offset ? SRP_LOGIN_RSP_IMMED_SUPP : 0));

	depth = min_t(int, min_t(int, rd_depth, SRPT_DM_RDMA_READ_DEPTH),
		      attrs->max_qp_init_rd_atom);
	resources = min(SRPT_DM_RDMA_READ_DEPTH, attrs->max_qp_rd_atom);

	if (ch->lim.using_rdma_cm) {
		rep->rdma_cm.private_data = rsp;
		rep->rdma_cm.private_data_len = sizeof(*rsp);
		rep->rdma_cm.rnr_retry_count = SRPT_RNR_RETRY_FOREVER;
		rep->rdma_cm.flow_control = 1;
		rep->rdma_cm.responder_resources = resources;
		rep->rdma_cm.initiator_depth = depth;
		ret = rdma_accept(ch->rdma_cm.cm_id, &rep->rdma_cm);
		goto out;
	}
	ret = srpt_ch_qp_rtr(ch, ch->qp);
	if (ret) {
		srpt_ch_err(ch, "QP to RTR failed: %d\n", ret);
		goto out;
	}
	rep->ib_cm.qp_num = ch->qp->qp_num;
	rep->ib_cm.private_data = rsp;
	rep->ib_cm.private_data_len = sizeof(*rsp);
	rep->ib_cm.rnr_retry_count = SRPT_RNR_RETRY_FOREVER;
	rep->ib_cm.flow_control = 1;
	rep->ib_cm.failover_accepted = 0;
	rep->ib_cm.srq = ch->lim.use_srq;
	rep->ib_cm.responder_resources = resources;
	rep->ib_cm.initiator_depth = depth;
	ret = ib_send_cm_rep(ch->ib_cm.cm_id, &rep->ib_cm);
out:
	kfree(rep);
	kfree(rsp);
	return ret;
}

/* srpt_cm_req_recv() with @acl, its buffer for the admitting ACL's name. */
static int srpt_login(struct srpt_device *const sdev, struct ib_cm_id *ib_cm_id,
		      struct rdma_cm_id *rdma_cm_id, u32 port_num,
		      const struct srp_login_req *req,
		      const struct sockaddr *src, u8 rd_depth, char *acl)
{
	struct srpt_port *sport;
	struct srpt_rdma_ch *ch;
	bool closed_others;
	u8 t_port_id[16];
	u32 reason;
	int ret;

	put_unaligned_be64(srpt_service_guid, t_port_id);
	put_unaligned_be64(srpt_service_guid, t_port_id + 8);
	pr_info("login request from 0x%16phN on %s port %u (%s CM): it_iu_len %u, flags %#x\n",
		req->initiator_port_id, dev_name(&sdev->device->dev), port_num,
		ib_cm_id ? "IB" : "RDMA", be32_to_cpu(req->req_it_iu_len),
		req->req_flags);

	if (port_num < 1 || port_num > sdev->port_cnt) {
		reason = SRP_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL;
		goto reject;
	}
	sport = &sdev->port[port_num - 1];

	mutex_lock(&sdev->sdev_mutex);
	reason = srpt_check_login_req(req, t_port_id, srp_max_req_size,
				      READ_ONCE(sport->enabled) && !sdev->removed &&
				      !sdev->srq_switching);
	if (reason)
		goto unlock_reject;
	if (!rd_depth) {
		pr_info("login from 0x%16phN grants no RDMA READ resources: refused\n",
			req->initiator_port_id);
		reason = SRP_LOGIN_REJ_INSUFFICIENT_RESOURCES;
		goto unlock_reject;
	}
	if (srpt_setup_session(sport, NULL, req->initiator_port_id, src, acl)) {
		pr_info("no ACL for 0x%16phN on %s port %u: login refused\n",
			req->initiator_port_id, dev_name(&sdev->device->dev),
			port_num);
		reason = SRP_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL;
		goto unlock_reject;
	}
	reason = SRP_LOGIN_REJ_INSUFFICIENT_RESOURCES;
	ch = srpt_alloc_ch(sport, req, ib_cm_id, rdma_cm_id);
	if (!ch)
		goto unlock_reject;
	if (srpt_link_ch(ch, req, t_port_id, acl, &closed_others)) {
		srpt_free_unlinked_ch(ch);
		goto unlock_reject;
	}
	ret = srpt_setup_session(sport, ch, req->initiator_port_id, src, acl);
	mutex_unlock(&sdev->sdev_mutex);

	reason = SRP_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL;
	if (ret) {
		srpt_ch_info(ch, "no ACL for this initiator on %s port %u: login refused\n",
			     dev_name(&sdev->device->dev), port_num);
		goto reject_linked;
	}
	if (READ_ONCE(ch->state) != SRPT_CH_LOGGING_IN) {
		srpt_ch_info(ch, "closed during its login\n");
		goto reject_linked;
	}
	ret = srpt_accept_ch(ch, req, rd_depth, closed_others);
	if (ret) {
		srpt_ch_err(ch, "accepting the login failed: %d\n", ret);
		goto close;
	}
	if (closed_others)
		srpt_close_others(ch);
	srpt_ch_info(ch, "login accepted (%u credits, max_it_iu_len %u, imm %u, %s)\n",
		     ch->lim.rq_size, ch->lim.max_it_iu_len,
		     ch->lim.imm_data_offset, ch->lim.use_srq ? "srq" : "rq");
	trace_srpt_login_accept(ch);
	complete(&ch->end.login_done);
	return 0;

reject_linked:
	srpt_send_login_rej(ib_cm_id, rdma_cm_id, req->tag, reason);
close:
	srpt_close_ch(ch);
	complete(&ch->end.login_done);
	return 0;

unlock_reject:
	mutex_unlock(&sdev->sdev_mutex);
reject:
	pr_info("login from 0x%16phN rejected: reason %#x\n",
		req->initiator_port_id, reason);
	srpt_send_login_rej(ib_cm_id, rdma_cm_id, req->tag, reason);
	return -ECONNREFUSED;
}

/**
 * srpt_cm_req_recv() - process a login request (IB CM or RDMA/CM).
 * @sdev: device.
 * @ib_cm_id: IB CM ID of an IB CM login, else NULL.
 * @rdma_cm_id: RDMA/CM ID of an RDMA/CM login, else NULL.
 * @port_num: port number, 1-based.
 * @req: login request.
 * @src: initiator address of an RDMA/CM login, or NULL.
 * @rd_depth: see srpt_accept_ch().
 *
 * Holds sdev_mutex from the removal and use_srq checks until the session
 * exists: device removal and a use_srq switch see the channel or fail it.
 *
 * Return: 0 if the channel now owns the CM ID; a negative errno after a
 * reject, and the CM destroys the ID.
 */
static int srpt_cm_req_recv(struct srpt_device *const sdev,
			    struct ib_cm_id *ib_cm_id,
			    struct rdma_cm_id *rdma_cm_id, u32 port_num,
			    const struct srp_login_req *req,
			    const struct sockaddr *src, u8 rd_depth)
{
	char *acl;
	int ret;

	acl = kzalloc(TRANSPORT_IQN_LEN, GFP_KERNEL);
	if (!acl) {
		srpt_send_login_rej(ib_cm_id, rdma_cm_id, req->tag,
				    SRP_LOGIN_REJ_INSUFFICIENT_RESOURCES);
		return -ENOMEM;
	}
	ret = srpt_login(sdev, ib_cm_id, rdma_cm_id, port_num, req, src,
			 rd_depth, acl);
	kfree(acl);
	return ret;
}

/**
 * srpt_cm_rtu_recv() - the connection of a channel is established.
 * @ch: channel.
 *
 * IB CM QP to RTS, channel live, then io.work replays early IUs.
 */
static void srpt_cm_rtu_recv(struct srpt_rdma_ch *ch)
{
	unsigned long flags;
	bool live = false;
	int ret;

	if (READ_ONCE(ch->state) != SRPT_CH_LOGGING_IN)
		return;
	if (!ch->lim.using_rdma_cm) {
		ret = srpt_ch_qp_rts(ch, ch->qp);
		if (ret) {
			srpt_ch_err(ch, "QP to RTS failed: %d\n", ret);
			srpt_close_ch(ch);
			return;
		}
	}

	spin_lock_irqsave(&ch->spinlock, flags);
	if (ch->state == SRPT_CH_LOGGING_IN) {
		WRITE_ONCE(ch->io.processing_wait_list, true);
		/* Flag first: srpt_recv_done() reads both without the lock. */
		smp_store_release(&ch->state, SRPT_CH_LIVE);
		live = true;
	}
	spin_unlock_irqrestore(&ch->spinlock, flags);

	if (live) {
		trace_srpt_ch_state(ch, SRPT_CH_LOGGING_IN, SRPT_CH_LIVE);
		srpt_ch_info(ch, "live\n");
		queue_work(srpt_io_wq, &ch->io.work);
	}
}

/* ==== RDMA/CM: requests, listeners, portals, namespaces ================= */

/*
 * Every RDMA/CM listener (struct srpt_portal): the configfs network portals
 * and each namespace's rdma_cm_port pair. Opened and closed under
 * srpt_rdma_cm_mutex; published under srpt_portal_lock as well, which the
 * CM handlers take (they run where closing a listener may wait).
 */
static DEFINE_MUTEX(srpt_rdma_cm_mutex);
static LIST_HEAD(srpt_portals);
static DEFINE_SPINLOCK(srpt_portal_lock);
static u16 srpt_portal_port(const struct srpt_portal *p)
{
	/* sin_port and sin6_port share their offset. */
	return ntohs(((const struct sockaddr_in *)&p->addr)->sin_port);
}

/* @net's rdma_cm_port: the port of its wildcard listeners, 0 if none. */
static u16 srpt_net_port(const struct net *net)
{
	struct srpt_portal *p;
	u16 port = 0;

	spin_lock(&srpt_portal_lock);
	list_for_each_entry(p, &srpt_portals, node) {
		if (p->wildcard && p->cm_id && net_eq(p->net, net)) {
			port = srpt_portal_port(p);
			break;
		}
	}
	spin_unlock(&srpt_portal_lock);
	return port;
}

/* Return: the device, referenced, or NULL if unknown or removed. */
static struct srpt_device *srpt_find_sdev(struct ib_device *device)
{
	struct srpt_device *sdev;

	mutex_lock(&srpt_dev_mutex);
	list_for_each_entry(sdev, &srpt_dev_list, list) {
		if (sdev->device == device && !sdev->removed) {
			srpt_sdev_get(sdev);
			mutex_unlock(&srpt_dev_mutex);
			return sdev;
		}
	}
	mutex_unlock(&srpt_dev_mutex);
	return NULL;
}

/* Return: 0 if a channel owns @cm_id; else the RDMA/CM destroys it. */
static int srpt_rdma_cm_req_recv(struct rdma_cm_id *cm_id,
				 struct rdma_cm_event *event)
{
	const struct srp_login_req_rdma *rreq = event->param.conn.private_data;
	struct srp_login_req req = {};
	struct srpt_device *sdev;
	int ret;

	u8 len = event->param.conn.private_data_len;

	if (!rreq || len < sizeof(*rreq) || rreq->opcode != SRP_LOGIN_REQ) {
		pr_info_ratelimited("RDMA/CM login with %u bytes of private data rejected\n",
				    len);
		/* Echo the tag only if the initiator sent one. */
		srpt_send_login_rej(NULL, cm_id,
				    rreq && len >= offsetofend(typeof(*rreq), tag) ?
				    rreq->tag : 0,
				    SRP_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL);
		return -EINVAL;
	}

	req.opcode = rreq->opcode;
	req.tag = rreq->tag;
	req.req_it_iu_len = rreq->req_it_iu_len;
	req.req_buf_fmt = rreq->req_buf_fmt;
	req.req_flags = rreq->req_flags;
	req.imm_data_offset = rreq->imm_data_offset;
	memcpy(req.initiator_port_id, rreq->initiator_port_id, 16);
	memcpy(req.target_port_id, rreq->target_port_id, 16);

	sdev = srpt_find_sdev(cm_id->device);
	if (!sdev) {
		srpt_send_login_rej(NULL, cm_id, req.tag,
				    SRP_LOGIN_REJ_INSUFFICIENT_RESOURCES);
		return -ENODEV;
	}
	ret = srpt_cm_req_recv(sdev, NULL, cm_id, cm_id->port_num, &req,
			       (struct sockaddr *)&cm_id->route.addr.dst_addr,
			       event->param.conn.initiator_depth);
	srpt_sdev_put(sdev);
	return ret;
}

/*
 * The device a portal's listener is bound to goes away; the RDMA/CM waits
 * for the ID to be destroyed. Return: 1 (the RDMA/CM destroys it) if it is
 * a portal's, 0 if rmdir already took it and destroys it itself.
 */
static int srpt_portal_device_gone(struct rdma_cm_id *cm_id)
{
	struct srpt_portal *p;
	int ret = 0;

	spin_lock(&srpt_portal_lock);
	list_for_each_entry(p, &srpt_portals, node) {
		if (p->cm_id != cm_id)
			continue;
		p->closed_why = "its RDMA device was removed";
		/* Still in srpt_make_np(), which sees @closed_why. */
		if (!p->listening)
			break;
		p->cm_id = NULL;
		ret = 1;
		pr_info("RDMA/CM listener %pISpc (netns net:[%u]) closed: its RDMA device was removed\n",
			&p->addr, p->inum);
		break;
	}
	spin_unlock(&srpt_portal_lock);
	return ret;
}

/* Return: non-zero only to make the RDMA/CM destroy @cm_id. */
static int srpt_rdma_cm_handler(struct rdma_cm_id *cm_id,
				struct rdma_cm_event *event)
{
	struct srpt_rdma_ch *ch = cm_id->context;

	switch (event->event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		return srpt_rdma_cm_req_recv(cm_id, event);
	case RDMA_CM_EVENT_ESTABLISHED:
		if (ch)
			srpt_cm_rtu_recv(ch);
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		/* No channel: a portal's listener bound to that device. */
		if (!ch)
			return srpt_portal_device_gone(cm_id);
		srpt_close_ch(ch);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_ADDR_CHANGE:
		if (ch)
			srpt_close_ch(ch);
		break;
	default:
		pr_debug("RDMA/CM event %s\n", rdma_event_msg(event->event));
		break;
	}
	return 0;
}

/*
 * Publishes @p on srpt_portals and listens on its address in @net: before
 * it is bound, so that a removal of the device it binds to finds it (until
 * it listens, that removal leaves the ID to us).
 * Return: 0, or a negative errno with @p unpublished and holding nothing.
 */
static int srpt_portal_open(struct srpt_portal *p, struct net *net)
{
	struct rdma_cm_id *id;
	int ret;

	lockdep_assert_held(&srpt_rdma_cm_mutex);

	/* The ID, and every ID derived from it, holds @net until destroyed. */
	id = rdma_create_id(net, srpt_rdma_cm_handler, NULL, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id))
		return PTR_ERR(id);
	p->net = get_net(net);
	p->inum = net->ns.inum;
	spin_lock(&srpt_portal_lock);
	p->cm_id = id;
	list_add_tail(&p->node, &srpt_portals);
	spin_unlock(&srpt_portal_lock);
	/*
	 * IPv6 listeners are IPv6-only: iWARP listens with a TCP socket, whose
	 * v4-mapped addresses the RDMA/CM cannot map to a device.
	 */
	ret = p->addr.ss_family == AF_INET6 ? rdma_set_afonly(id, 1) : 0;
	ret = ret ?: rdma_bind_addr(id, (struct sockaddr *)&p->addr);
	ret = ret ?: rdma_listen(id, SRPT_RDMA_CM_BACKLOG);
	spin_lock(&srpt_portal_lock);
	if (!ret && p->closed_why)
		ret = -ENODEV;
	if (ret) {
		p->cm_id = NULL;
		list_del(&p->node);
	} else {
		p->listening = true;
	}
	spin_unlock(&srpt_portal_lock);
	if (ret) {
		rdma_destroy_id(id);
		put_net(p->net);
		p->net = NULL;
	}
	return ret;
}

/*
 * Closes @p's listener (channels stay) and lets its namespace go.
 * Return: whether a listener was open.
 */
static bool srpt_portal_close(struct srpt_portal *p, const char *why)
{
	struct rdma_cm_id *id;

	lockdep_assert_held(&srpt_rdma_cm_mutex);

	spin_lock(&srpt_portal_lock);
	id = p->cm_id;
	p->cm_id = NULL;
	if (id)
		p->closed_why = why;
	spin_unlock(&srpt_portal_lock);
	if (id)
		rdma_destroy_id(id);
	if (p->net)
		put_net(p->net);
	p->net = NULL;
	return id;
}

static void srpt_portal_free(struct srpt_portal *p)
{
	lockdep_assert_held(&srpt_rdma_cm_mutex);

	srpt_portal_close(p, NULL);
	spin_lock(&srpt_portal_lock);
	list_del(&p->node);
	spin_unlock(&srpt_portal_lock);
	kfree(p);
}

/*
 * Closes the rdma_cm_port listeners of @net, which is only compared: the
 * last of them may hold its last reference.
 */
static void srpt_rdma_cm_unlisten(const struct net *net)
{
	struct srpt_portal *p, *next;
	unsigned int inum = 0;
	u16 port = 0;

	lockdep_assert_held(&srpt_rdma_cm_mutex);

	list_for_each_entry_safe(p, next, &srpt_portals, node) {
		if (!p->wildcard || !net_eq(p->net, net))
			continue;
		port = srpt_portal_port(p);
		inum = p->inum;
		srpt_portal_free(p);
	}
	if (port)
		pr_info("RDMA/CM listener on port %u removed (netns net:[%u])\n",
			port, inum);
}

/* "<interface>" or "<decimal index>", the scope of a link-local address. */
static int srpt_portal_scope(struct net *net, const char *scope, u32 *id)
{
	struct net_device *nd;

	if (!*scope || strlen(scope) >= IFNAMSIZ)
		return -EINVAL;
	if (isdigit(scope[0]))
		return scope[0] == '0' || kstrtou32(scope, 10, id) ? -EINVAL : 0;
	nd = dev_get_by_name(net, scope);
	if (!nd)
		return -EINVAL;
	*id = nd->ifindex;
	dev_put(nd);
	return 0;
}

/**
 * srpt_portal_parse() - parse a network portal name.
 * @net: namespace that resolves an IPv6 scope given as an interface name.
 * @name: "<IPv4>:<port>" or "[<IPv6>[%<scope>]]:<port>", iSCSI's np form;
 *        IPv6 takes brackets and IPv4 none, a scope (an interface name or
 *        index) only a link-local address, the port decimal digits without
 *        a leading zero.
 * @addr: the address and port.
 *
 * The name is a configfs directory, so one portal has one spelling. Not
 * inet_pton_with_scope(): it reads "010" as octal, ignores a scope on any
 * address but a link-local one and takes no full-length address with a
 * scope.
 *
 * Return: 0, or -EINVAL for anything else, including port 0.
 */
static int srpt_portal_parse(struct net *net, const char *name,
			     struct sockaddr_storage *addr)
{
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)addr;
	struct sockaddr_in *a4 = (struct sockaddr_in *)addr;
	char host[INET6_ADDRSTRLEN + IFNAMSIZ + 1];
	const char *colon = strrchr(name, ':');
	const char *end;
	char *scope;
	size_t len;
	u16 port;

	memset(addr, 0, sizeof(*addr));
	if (!colon || colon[1] < '1' || colon[1] > '9' ||
	    kstrtou16(colon + 1, 10, &port))
		goto refuse;
	len = colon - name;
	if (len < 2 || name[0] != '[' || name[len - 1] != ']') {
		/* in?_pton() stop early, successfully, at a ':': check @end. */
		if (!len || !in4_pton(name, len, (u8 *)&a4->sin_addr, '\0', &end) ||
		    end != colon)
			goto refuse;
		a4->sin_family = AF_INET;
		a4->sin_port = cpu_to_be16(port);
		return 0;
	}
	if (len - 2 >= sizeof(host))
		goto refuse;
	memcpy(host, name + 1, len - 2);
	host[len - 2] = '\0';
	scope = strchr(host, '%');
	if (scope)
		*scope++ = '\0';
	if (!*host || !in6_pton(host, -1, a6->sin6_addr.s6_addr, '\0', &end) ||
	    *end)
		goto refuse;
	if (scope &&
	    (!(ipv6_addr_type(&a6->sin6_addr) & IPV6_ADDR_LINKLOCAL) ||
	     srpt_portal_scope(net, scope, &a6->sin6_scope_id)))
		goto refuse;
	a6->sin6_family = AF_INET6;
	a6->sin6_port = cpu_to_be16(port);
	return 0;

refuse:
	/* The address parsers may have written part of one. */
	memset(addr, 0, sizeof(*addr));
	return -EINVAL;
}

/*
 * Sets @net's rdma_cm_port: its listeners on [::] (IPv6 only) and 0.0.0.0
 * on @port (0: none) replace the old ones; one of the two is enough.
 * Return: 0 or a negative errno; on error @net has no such listener.
 */
static int srpt_rdma_cm_listen(struct net *net, u16 port)
{
	struct srpt_portal *p, *wild[2] = {};
	int i, err, ret = 0;

	mutex_lock(&srpt_rdma_cm_mutex);
	if (port == srpt_net_port(net))
		goto out;
	srpt_rdma_cm_unlisten(net);
	for (i = 0; port && i < ARRAY_SIZE(wild); i++) {
		char name[16];

		p = kzalloc_obj(*p, GFP_KERNEL);
		if (!p) {
			ret = -ENOMEM;
			continue;
		}
		p->wildcard = true;
		snprintf(name, sizeof(name), "%s:%u", i ? "0.0.0.0" : "[::]", port);
		err = srpt_portal_parse(net, name, &p->addr) ?:
		      srpt_portal_open(p, net);
		if (err) {
			kfree(p);
			ret = err;
			continue;
		}
		wild[i] = p;
	}
	if (wild[0] || wild[1]) {
		pr_info("RDMA/CM listener on port %u (%s%s%s) in netns net:[%u]\n",
			port, wild[0] ? "IPv6" : "", wild[0] && wild[1] ? ", " : "",
			wild[1] ? "IPv4" : "", net->ns.inum);
		ret = 0;
	} else if (port) {
		pr_err("RDMA/CM listener on port %u in netns net:[%u] failed: %d\n",
		       port, net->ns.inum, ret);
	}
out:
	mutex_unlock(&srpt_rdma_cm_mutex);
	return ret;
}

/* At unload: configfs pins the module while a portal directory exists. */
static void srpt_rdma_cm_unlisten_all(void)
{
	struct srpt_portal *p;

	mutex_lock(&srpt_rdma_cm_mutex);
	while ((p = list_first_entry_or_null(&srpt_portals, struct srpt_portal,
					     node)) && !WARN_ON_ONCE(!p->wildcard))
		srpt_rdma_cm_unlisten(p->net);
	mutex_unlock(&srpt_rdma_cm_mutex);
}

/*
 * Do we serve @ibdev? Our list, not ib_get_client_data(): the IB core
 * clears the client data only after remove() returns, by when the
 * device it points to may be freed.
 */
static bool srpt_serves(struct ib_device *ibdev)
{
	struct srpt_device *sdev;

	lockdep_assert_held(&srpt_dev_mutex);

	list_for_each_entry(sdev, &srpt_dev_list, list)
		if (sdev->device == ibdev)
			return !sdev->removed;
	return false;
}

/*
 * Does @net hold a netdev of a RoCE/iWARP port we serve, or IPoIB? A
 * removed HCA still resolves from its netdev, hence our own state.
 */
static bool srpt_net_has_rdma(struct net *net)
{
	struct ib_device *ibdev;
	struct net_device *nd;
	bool found = false;

	mutex_lock(&srpt_dev_mutex);
	rcu_read_lock();
	for_each_netdev_rcu(net, nd) {
		if (nd->type == ARPHRD_INFINIBAND) {
			found = true;
			break;
		}
		ibdev = ib_device_get_by_netdev(nd, RDMA_DRIVER_UNKNOWN);
		if (!ibdev)
			continue;
		found = srpt_serves(ibdev);
		ib_device_put(ibdev);
		if (found)
			break;
	}
	rcu_read_unlock();
	mutex_unlock(&srpt_dev_mutex);
	return found;
}

/*
 * Listeners pin their namespace, which would outlive its last process:
 * close those of non-initial namespaces left with no RDMA interface.
 * See "Network namespaces" in Documentation/ib_srpt.rst.
 */
static void srpt_prune_listeners(struct work_struct *work)
{
	struct srpt_portal *p;

	mutex_lock(&srpt_rdma_cm_mutex);
restart:
	list_for_each_entry(p, &srpt_portals, node) {
		if (!p->net || net_eq(p->net, &init_net) ||
		    srpt_net_has_rdma(p->net))
			continue;
		if (p->wildcard) {
			pr_info("netns net:[%u] has no RDMA interface left: closing its RDMA/CM listener\n",
				p->inum);
			srpt_rdma_cm_unlisten(p->net);
			goto restart;
		}
		pr_info("netns net:[%u] has no RDMA interface left: closing RDMA/CM listener %pISpc\n",
			p->inum, &p->addr);
		srpt_portal_close(p, "its network namespace has no RDMA interface left");
	}
	mutex_unlock(&srpt_rdma_cm_mutex);
}

static DECLARE_WORK(srpt_prune_work, srpt_prune_listeners);

static int srpt_netdev_event(struct notifier_block *nb, unsigned long event,
			     void *ptr)
{
	struct net_device *nd = netdev_notifier_info_to_dev(ptr);

	/* Also sent to the old namespace of a netdev that moves. */
	if (event == NETDEV_UNREGISTER && !net_eq(dev_net(nd), &init_net))
		queue_work(srpt_wq, &srpt_prune_work);
	return NOTIFY_DONE;
}

static struct notifier_block srpt_netdev_nb = {
	.notifier_call = srpt_netdev_event,
};

/* @a is @p's address, or @p listens on every address of @a's family. */
static bool srpt_portal_covers(const struct srpt_portal *p,
			       const struct sockaddr *a, int ifindex)
{
	const struct sockaddr_in6 *p6 = (const void *)&p->addr;
	const struct sockaddr_in *p4 = (const void *)&p->addr;
	const struct sockaddr_in6 *a6 = (const void *)a;
	const struct sockaddr_in *a4 = (const void *)a;

	if (p->addr.ss_family != a->sa_family)
		return false;
	if (a->sa_family == AF_INET)
		return p4->sin_addr.s_addr == htonl(INADDR_ANY) ||
		       p4->sin_addr.s_addr == a4->sin_addr.s_addr;
	if (ipv6_addr_any(&p6->sin6_addr))
		return true;
	if (!ipv6_addr_equal(&p6->sin6_addr, &a6->sin6_addr))
		return false;
	return !(ipv6_addr_type(&a6->sin6_addr) & IPV6_ADDR_LINKLOCAL) ||
	       p6->sin6_scope_id == ifindex;
}

/* @p listens in @net on @a (of @ifindex), or on all of @a's family. */
static bool srpt_portal_serves(const struct srpt_portal *p,
			       const struct net *net, const struct sockaddr *a,
			       int ifindex)
{
	lockdep_assert_held(&srpt_portal_lock);

	return p->listening && p->cm_id && net_eq(p->net, net) &&
	       srpt_portal_covers(p, a, ifindex);
}

/*
 * On RoCE an IB CM login is addressed to a GID, that is to an IP address
 * of one network namespace. It is served only where an RDMA/CM login would
 * be: a listener on that address (or its family's wildcard, as
 * rdma_cm_port's are) in that namespace. Reads what the
 * listeners publish without srpt_rdma_cm_mutex: the IB CM's work queue,
 * which this runs on, is one that closing a listener may wait for.
 */
static bool srpt_ib_cm_addr_served(const struct ib_gid_attr *attr,
				   struct sockaddr_storage *addr,
				   unsigned int *inum)
{
	struct net_device *ndev;
	struct srpt_portal *p;
	struct net *net;
	bool served;
	int ifindex;

	*inum = 0;
	memset(addr, 0, sizeof(*addr));
	if (!attr)
		return false;
	rdma_gid2ip((struct sockaddr *)addr, &attr->gid);
	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(attr);
	if (IS_ERR(ndev)) {
		rcu_read_unlock();
		return false;
	}
	net = dev_net(ndev);
	ifindex = ndev->ifindex;
	*inum = net->ns.inum;
	served = false;
	spin_lock(&srpt_portal_lock);
	list_for_each_entry(p, &srpt_portals, node) {
		served = srpt_portal_serves(p, net, (struct sockaddr *)addr,
					    ifindex);
		if (served)
			break;
	}
	spin_unlock(&srpt_portal_lock);
	rcu_read_unlock();
	return served;
}

/* Return: 0 if @req may log in through the IB CM on @port. */
static int srpt_ib_cm_check_roce(struct ib_cm_id *cm_id, u32 port,
				 const struct ib_cm_req_event_param *param)
{
	struct sockaddr_storage addr;
	unsigned int inum;

	if (!rdma_protocol_roce(cm_id->device, port) ||
	    srpt_ib_cm_addr_served(param->ppath_sgid_attr, &addr, &inum))
		return 0;
	pr_info_ratelimited("IB CM login to %pISc on %s port %u refused: neither rdma_cm_port nor a portal listens on that address in netns net:[%u]\n",
			    &addr, dev_name(&cm_id->device->dev), port, inum);
	/* What the IB CM answers where nobody listens. */
	ib_send_cm_rej(cm_id, IB_CM_REJ_INVALID_SERVICE_ID, NULL, 0, NULL, 0);
	return -EPERM;
}

/* ==== IB CM ============================================================= */

/**
 * srpt_cm_handler() - IB CM callback.
 * @cm_id: IB CM ID; context is the device for a new request, else the
 *	   channel.
 * @event: event.
 *
 * Return: non-zero only to make the IB CM destroy a rejected @cm_id.
 */
static int srpt_cm_handler(struct ib_cm_id *cm_id,
			   const struct ib_cm_event *event)
{
	struct srpt_rdma_ch *ch = cm_id->context;
	const struct ib_cm_req_event_param *param;
	struct sockaddr_ib src = { .sib_family = AF_IB };

	switch (event->event) {
	case IB_CM_REQ_RECEIVED:
		param = &event->param.req_rcvd;
		if (srpt_ib_cm_check_roce(cm_id, param->port, param))
			return -EPERM;
		/* For GUID ACLs: the path's dgid is the initiator's GID. */
		if (param->primary_path)
			memcpy(&src.sib_addr, &param->primary_path->dgid,
			       sizeof(src.sib_addr));
		return srpt_cm_req_recv(cm_id->context, cm_id, NULL, param->port,
					event->private_data,
					(struct sockaddr *)&src,
					param->initiator_depth);
	case IB_CM_RTU_RECEIVED:
	case IB_CM_USER_ESTABLISHED:
		srpt_cm_rtu_recv(ch);
		break;
	case IB_CM_DREQ_RECEIVED:
		ib_send_cm_drep(cm_id, NULL, 0);
		srpt_close_ch(ch);
		break;
	case IB_CM_REJ_RECEIVED:
		srpt_ch_info(ch, "REJ received, reason %d\n", event->param.rej_rcvd.reason);
		srpt_close_ch(ch);
		break;
	case IB_CM_DREP_RECEIVED:
	case IB_CM_TIMEWAIT_EXIT:
	case IB_CM_REP_ERROR:
	case IB_CM_DREQ_ERROR:
		srpt_close_ch(ch);
		break;
	default:
		pr_debug("IB CM event %d\n", event->event);
		break;
	}
	return 0;
}

/* ==== Shared receive queue ============================================== */

/* No channel uses the SRQ; if @filled, every buffer must be back. */
static void srpt_free_srq(struct srpt_device *sdev, bool filled)
{
	int posted = atomic_read(&sdev->srq_posted);

	if (!sdev->srq)
		return;
	if (filled && posted != sdev->srq_size)
		pr_warn("%s: SRQ destroyed with %d of its %d receive buffers posted: %d shared receive buffers lost\n",
			dev_name(&sdev->device->dev), posted, sdev->srq_size,
			sdev->srq_size - posted);
	else if (filled)
		pr_info("%s: SRQ destroyed with all its %d receive buffers posted\n",
			dev_name(&sdev->device->dev), posted);
	ib_destroy_srq(sdev->srq);
	sdev->srq = NULL;
	srpt_free_ioctx_ring((struct srpt_ioctx **)sdev->ioctx_ring, sdev,
			     sdev->srq_size, srp_max_req_size, DMA_FROM_DEVICE);
	sdev->ioctx_ring = NULL;
	atomic_set(&sdev->srq_posted, 0);
}

static int srpt_alloc_srq(struct srpt_device *sdev)
{
	struct ib_srq_init_attr attr = {
		.event_handler = srpt_srq_event,
		.srq_context = sdev,
		.attr.max_wr = sdev->srq_size,
		.attr.max_sge = 1,
		.srq_type = IB_SRQT_BASIC,
	};
	int i, ret;

	lockdep_assert_held(&sdev->sdev_mutex);
	if (!sdev->device->attrs.max_srq || !sdev->srq_size)
		return -EOPNOTSUPP;

	sdev->srq = ib_create_srq(sdev->pd, &attr);
	if (IS_ERR(sdev->srq)) {
		ret = PTR_ERR(sdev->srq);
		sdev->srq = NULL;
		return ret;
	}
	sdev->ioctx_ring = (struct srpt_recv_ioctx **)
		srpt_alloc_ioctx_ring(sdev, sdev->srq_size,
				      sizeof(struct srpt_recv_ioctx),
				      srp_max_req_size, 0, DMA_FROM_DEVICE);
	if (!sdev->ioctx_ring) {
		ret = -ENOMEM;
		goto err_destroy;
	}
	for (i = 0; i < sdev->srq_size; i++) {
		INIT_LIST_HEAD(&sdev->ioctx_ring[i]->wait_list);
		ret = srpt_post_recv(sdev, NULL, sdev->ioctx_ring[i]);
		if (ret)
			goto err_destroy;
	}
	return 0;

err_destroy:
	srpt_free_srq(sdev, false);
	return ret;
}

/*
 * Per HCA: closes the channels first (initiators log back in), new logins
 * wait. Return: 0 or a negative errno; on error the old setting stays.
 */
static int srpt_port_set_use_srq(struct srpt_port *sport, bool use_srq)
{
	struct srpt_device *sdev = sport->sdev;
	int i, ret = 0;

	mutex_lock(&sdev->sdev_mutex);
	if (sdev->removed) {
		ret = -ENODEV;
		goto out;
	}
	if (sdev->use_srq == use_srq)
		goto out;
	if (sdev->srq_switching) {
		ret = -EBUSY;
		goto out;
	}
	/*
	 * Drain without sdev_mutex: a login blocked on it would stall the CM
	 * work queue, which must destroy the closing channels' CM IDs.
	 */
	sdev->srq_switching = true;
	mutex_unlock(&sdev->sdev_mutex);
	for (i = 0; i < sdev->port_cnt; i++)
		srpt_release_sport(&sdev->port[i]);
	mutex_lock(&sdev->sdev_mutex);
	sdev->srq_switching = false;
	if (sdev->removed) {
		ret = -ENODEV;
		goto out;
	}
	/* A target port attached meanwhile may have switched already. */
	if (sdev->use_srq == use_srq)
		goto out;

	if (use_srq) {
		ret = srpt_alloc_srq(sdev);
		if (ret) {
			pr_err("%s: SRQ of %d entries failed: %d\n",
			       dev_name(&sdev->device->dev), sdev->srq_size, ret);
			goto out;
		}
	} else {
		srpt_free_srq(sdev, true);
	}
	sdev->use_srq = use_srq;
	for (i = 0; i < sdev->port_cnt; i++)
		sdev->port[i].limits.use_srq = use_srq;
	pr_info("%s: %s\n", dev_name(&sdev->device->dev),
		use_srq ? "using a shared receive queue" :
			  "using per-channel receive rings");
out:
	mutex_unlock(&sdev->sdev_mutex);
	return ret;
}

/* ==== HCAs and ports: add, remove, target ports attached ================ */

/*
 * Return: whether @name names @sport, in its GUID form (*@guid_form true)
 * or its GID form ("0x" + 32 hex digits, also without "0x" or with "ib.").
 */
static bool srpt_port_has_name(const struct srpt_port *sport, const char *name,
			       bool *guid_form)
{
	const char *gid_name = name;

	if (!sport->gid_valid)
		return false;
	if (!strncasecmp(name, "ib.", 3))
		gid_name = name + 3;
	else if (!strncasecmp(name, "0x", 2))
		gid_name = name + 2;
	*guid_form = !strcasecmp(name, sport->port_guid);
	return *guid_form || !strcasecmp(gid_name, sport->port_gid + 2);
}

static struct srpt_tport **srpt_tport_slot(struct srpt_port *sport,
					   bool guid_form)
{
	return guid_form ? &sport->guid_tport : &sport->gid_tport;
}

/*
 * No drain needed: channels keep the receive side they were created with
 * and the SRQ is freed only after them.
 */
static void srpt_attach_use_srq(struct srpt_device *sdev, bool want)
{
	u32 i;
	int ret;

	lockdep_assert_held(&sdev->sdev_mutex);
	if (want && !sdev->use_srq) {
		ret = srpt_alloc_srq(sdev);
		if (ret)
			pr_warn("%s: the target port's configuration asks for use_srq=1, but an SRQ of %d entries failed (%d): using per-channel receive rings\n",
				dev_name(&sdev->device->dev), sdev->srq_size,
				ret);
		else
			sdev->use_srq = true;
	}
	for (i = 0; i < sdev->port_cnt; i++)
		sdev->port[i].limits.use_srq = sdev->use_srq;
}

/*
 * @sport serves @tport from now on: the port takes the target port's
 * attributes, and accepts logins if one of its TPGs is enabled.
 */
static void srpt_tport_attach(struct srpt_tport *tport, struct srpt_port *sport)
{
	struct srpt_device *sdev = sport->sdev;
	struct srpt_tpg *stpg;
	bool enabled = false;

	lockdep_assert_held(&srpt_dev_mutex);
	mutex_lock(&sdev->sdev_mutex);
	mutex_lock(&tport->mutex);
	tport->sport = sport;
	sport->limits = tport->limits;
	list_for_each_entry(stpg, &tport->tpg_list, entry)
		enabled |= stpg->live;
	mutex_unlock(&tport->mutex);
	*srpt_tport_slot(sport, tport->guid_form) = tport;
	srpt_attach_use_srq(sdev, sport->limits.use_srq);
	if (enabled) {
		mutex_lock(&sport->mutex);
		sport->enabled = true;
		mutex_unlock(&sport->mutex);
	}
	mutex_unlock(&sdev->sdev_mutex);
}

/* The target port keeps @sport's attributes for the next HCA port. */
static void srpt_tport_detach(struct srpt_tport *tport)
{
	struct srpt_port *sport = tport->sport;

	lockdep_assert_held(&srpt_dev_mutex);
	if (!sport)
		return;
	mutex_lock(&sport->sdev->sdev_mutex);
	*srpt_tport_slot(sport, tport->guid_form) = NULL;
	mutex_lock(&tport->mutex);
	tport->limits = sport->limits;
	tport->sport = NULL;
	mutex_unlock(&tport->mutex);
	mutex_unlock(&sport->sdev->sdev_mutex);
}

/*
 * Configfs target ports outlive their HCA: a re-added device (hot-plug,
 * driver reload) whose port has the same name serves them again, with
 * their TPGs, ACLs, LUNs and attributes.
 */
static void srpt_attach_tports(struct srpt_port *sport)
{
	struct srpt_tport *tport;
	bool guid_form;

	lockdep_assert_held(&srpt_dev_mutex);
	list_for_each_entry(tport, &srpt_tports, entry) {
		if (tport->sport ||
		    !srpt_port_has_name(sport, tport->name, &guid_form) ||
		    guid_form != tport->guid_form ||
		    *srpt_tport_slot(sport, guid_form))
			continue;
		srpt_tport_attach(tport, sport);
		pr_info("%s port %u: serves the configured target port %s again%s\n",
			dev_name(&sport->sdev->device->dev), sport->port,
			tport->name, sport->enabled ? ", logins enabled" : "");
	}
}

/*
 * @sdev is going away: its target ports keep their attributes. A device
 * with a port of the same name may have come while this one was closing
 * its channels (a hot-plug that re-adds before the removal ends): it
 * serves them from now on, as if it had come after.
 */
static void srpt_detach_tports(struct srpt_device *sdev)
{
	struct srpt_device *other;
	u32 i;

	lockdep_assert_held(&srpt_dev_mutex);
	for (i = 0; i < sdev->port_cnt; i++) {
		if (sdev->port[i].guid_tport)
			srpt_tport_detach(sdev->port[i].guid_tport);
		if (sdev->port[i].gid_tport)
			srpt_tport_detach(sdev->port[i].gid_tport);
	}
	/* A removal sets @removed before it takes srpt_dev_mutex to detach. */
	list_for_each_entry(other, &srpt_dev_list, list) {
		if (other == sdev || READ_ONCE(other->removed))
			continue;
		for (i = 0; i < other->port_cnt; i++)
			srpt_attach_tports(&other->port[i]);
	}
}

static void srpt_refresh_port_work(struct work_struct *work)
{
	struct srpt_port *sport = container_of(work, struct srpt_port, work);

	srpt_refresh_port(sport);
	/* A late GID may name a detached target port. */
	mutex_lock(&srpt_dev_mutex);
	if (!READ_ONCE(sport->sdev->removed))
		srpt_attach_tports(sport);
	mutex_unlock(&srpt_dev_mutex);
}

/* Return: 0, or a negative errno with no CM ID left. */
static int srpt_ib_cm_listen(struct srpt_device *sdev)
{
	struct ib_device *device = sdev->device;
	int ret;

	sdev->cm_id = ib_create_cm_id(device, srpt_cm_handler, sdev);
	if (IS_ERR(sdev->cm_id)) {
		ret = PTR_ERR(sdev->cm_id);
		sdev->cm_id = NULL;
		pr_err("%s: IB CM ID creation failed: %d\n",
		       dev_name(&device->dev), ret);
		return ret;
	}
	ret = ib_cm_listen(sdev->cm_id, cpu_to_be64(srpt_service_guid));
	if (ret) {
		pr_err("%s: IB CM listen on service ID %#llx failed: %d\n",
		       dev_name(&device->dev), srpt_service_guid, ret);
		ib_destroy_cm_id(sdev->cm_id);
		sdev->cm_id = NULL;
	}
	return ret;
}

static int srpt_init_port(struct srpt_device *sdev, u32 port)
{
	struct srpt_port *sport = &sdev->port[port - 1];
	int ret;

	sport->sdev = sdev;
	sport->port = port;
	INIT_WORK(&sport->work, srpt_refresh_port_work);
	mutex_init(&sport->mutex);
	INIT_LIST_HEAD(&sport->initiators);
	init_waitqueue_head(&sport->freed_channels);
	atomic_set(&sport->refcount, 0);
	sport->limits.srp_max_rdma_size = SRPT_MAX_RDMA_SIZE_DEFAULT;
	sport->limits.srp_max_rsp_size = SRPT_MAX_RSP_SIZE_DEFAULT;
	sport->limits.srp_sq_size = SRPT_SQ_SIZE_DEFAULT;
	sport->limits.use_srq = false;
	ret = srpt_refresh_port(sport);
	if (ret)
		pr_err("%s port %u: query failed: %d\n",
		       dev_name(&sdev->device->dev), port, ret);
	return ret;
}

/**
 * srpt_add_one() - RDMA device addition callback.
 * @device: the new device.
 *
 * The async event handler is registered last, once all it touches exists.
 *
 * Return: 0 or a negative errno.
 */
static int srpt_add_one(struct ib_device *device)
{
	struct srpt_device *sdev;
	bool has_ib = false;
	u32 i;
	int ret;

	sdev = kzalloc(struct_size(sdev, port, device->phys_port_cnt),
		       GFP_KERNEL);
	if (!sdev)
		return -ENOMEM;
	kref_init(&sdev->refcnt);
	sdev->device = device;
	sdev->port_cnt = device->phys_port_cnt;
	mutex_init(&sdev->sdev_mutex);
	INIT_LIST_HEAD(&sdev->list);
	sdev->srq_size = min(srpt_srq_size, device->attrs.max_srq_wr);

	sdev->pd = ib_alloc_pd(device, 0);
	if (IS_ERR(sdev->pd)) {
		ret = PTR_ERR(sdev->pd);
		goto err_free;
	}
	sdev->lkey = sdev->pd->local_dma_lkey;

	if (!srpt_service_guid)
		srpt_service_guid = be64_to_cpu(device->node_guid);

	rdma_for_each_port(device, i)
		has_ib |= srpt_serves_ib_cm(device, i);
	if (has_ib) {
		ret = srpt_ib_cm_listen(sdev);
		if (ret)
			goto err_pd;
	}

	for (i = 1; i <= sdev->port_cnt; i++) {
		ret = srpt_init_port(sdev, i);
		if (ret) {
			srpt_unregister_mad_agent(sdev, i);
			goto err_cm;
		}
	}

	INIT_IB_EVENT_HANDLER(&sdev->event_handler, device, srpt_event_handler);
	ib_register_event_handler(&sdev->event_handler);

	mutex_lock(&srpt_dev_mutex);
	for (i = 0; i < sdev->port_cnt; i++)
		srpt_attach_tports(&sdev->port[i]);
	list_add_tail(&sdev->list, &srpt_dev_list);
	mutex_unlock(&srpt_dev_mutex);
	ib_set_client_data(device, &srpt_client, sdev);

	for (i = 0; i < sdev->port_cnt; i++)
		pr_info("%s port %u: target port names %s and %s\n",
			dev_name(&device->dev), i + 1, sdev->port[i].port_guid,
			sdev->port[i].port_gid);
	return 0;

err_cm:
	if (sdev->cm_id)
		ib_destroy_cm_id(sdev->cm_id);
err_pd:
	ib_dealloc_pd(sdev->pd);
err_free:
	kfree(sdev);
	pr_err("%s: not added: %d\n", dev_name(&device->dev), ret);
	return ret;
}

/**
 * srpt_remove_one() - RDMA device removal callback.
 * @device: the device going away.
 * @client_data: our &struct srpt_device.
 *
 * Closes every channel and waits for it, detaches the configfs target
 * ports and frees the HCA resources.
 */
static void srpt_remove_one(struct ib_device *device, void *client_data)
{
	struct srpt_device *sdev = client_data;
	u32 i;

	mutex_lock(&sdev->sdev_mutex);
	WRITE_ONCE(sdev->removed, true);
	mutex_unlock(&sdev->sdev_mutex);

	ib_unregister_event_handler(&sdev->event_handler);
	for (i = 0; i < sdev->port_cnt; i++)
		cancel_work_sync(&sdev->port[i].work);
	srpt_unregister_mad_agent(sdev, sdev->port_cnt);
	if (sdev->cm_id)
		ib_destroy_cm_id(sdev->cm_id);
	sdev->cm_id = NULL;

	for (i = 0; i < sdev->port_cnt; i++)
		srpt_set_enabled(&sdev->port[i], false);

	queue_work(srpt_wq, &srpt_prune_work);

	mutex_lock(&srpt_dev_mutex);
	srpt_detach_tports(sdev);
	mutex_unlock(&srpt_dev_mutex);

	mutex_lock(&sdev->sdev_mutex);
	srpt_free_srq(sdev, true);
	mutex_unlock(&sdev->sdev_mutex);
	ib_dealloc_pd(sdev->pd);
	sdev->pd = NULL;
	pr_info("%s: removed\n", dev_name(&device->dev));
	srpt_sdev_put(sdev);
}

static struct ib_client srpt_client = {
	.name	= DRV_NAME,
	.add	= srpt_add_one,
	.remove	= srpt_remove_one,
};

/* LIO fabric glue: configfs directories, attributes, fabric template. */
/* ==== Configfs: names, target ports, TPGs, attributes, ACLs ============= */

/**
 * srpt_parse_i_port_id() - parse an initiator port identifier.
 * @i_port_id: receives it, big endian, right-aligned; untouched on error.
 * @name: "0x" and/or 1 to 32 hex digits, or a GUID "hhhh:hhhh:hhhh:hhhh"
 *        (bytes 8 to 15); any case, one trailing newline accepted.
 *
 * Return: 0, or -EINVAL if @name has none of these forms.
 */
static int srpt_parse_i_port_id(u8 i_port_id[16], const char *name)
{
	size_t len = strlen(name);
	u8 id[16] = { };
	size_t i;
	int v;

	if (len && name[len - 1] == '\n')
		len--;

	if (memchr(name, ':', len)) {
		unsigned int ngroups = 0, ndigits = 0;
		u16 group = 0;
		u64 guid = 0;
		__be64 be_guid;

		for (i = 0; i <= len; i++) {
			if (i == len || name[i] == ':') {
				if (!ndigits)
					return -EINVAL;
				guid = guid << 16 | group;
				ngroups++;
				group = 0;
				ndigits = 0;
				continue;
			}
			v = hex_to_bin(name[i]);
			if (v < 0 || ++ndigits > 4)
				return -EINVAL;
			group = group << 4 | v;
		}
		if (ngroups != 4)
			return -EINVAL;
		be_guid = cpu_to_be64(guid);
		memcpy(&id[8], &be_guid, sizeof(be_guid));
	} else {
		if (len >= 2 && name[0] == '0' &&
		    (name[1] == 'x' || name[1] == 'X')) {
			name += 2;
			len -= 2;
		}
		if (!len || len > 2 * sizeof(id))
			return -EINVAL;
		for (i = 0; i < len; i++) {
			v = hex_to_bin(name[len - 1 - i]);
			if (v < 0)
				return -EINVAL;
			id[sizeof(id) - 1 - i / 2] |= v << (i & 1 ? 4 : 0);
		}
	}

	memcpy(i_port_id, id, sizeof(id));
	return 0;
}

/*
 * @name: a port ID as for srpt_parse_i_port_id() (no GUID form), a port
 * GUID (@id bytes 8..15) or an IPv4/IPv6 address (@id untouched).
 */
static int srpt_parse_acl_name(const char *name, u8 id[16],
			       enum srpt_acl_form *form)
{
	struct sockaddr_storage ss;

	if (!srpt_parse_i_port_id(id, name)) {
		*form = strchr(name, ':') ? SRPT_ACL_GUID : SRPT_ACL_PORT_ID;
		return 0;
	}
	if (!srpt_acl_name_addr(name, &ss)) {
		*form = SRPT_ACL_IP;
		return 0;
	}
	return -EINVAL;
}

/*
 * rtslib reads a name as "ib." + all but its first two characters, and
 * accepts only 32 lowercase hex digits: "0x" + those is all it can read.
 */
static bool srpt_rtslib_name(const char *name)
{
	int i;

	if (strlen(name) != 34 || name[0] != '0' || name[1] != 'x')
		return false;
	for (i = 2; i < 34; i++)
		if (!isdigit(name[i]) && !(name[i] >= 'a' && name[i] <= 'f'))
			return false;
	return true;
}

/*
 * Can the target core build an SRP TransportID (PR) from this ACL name: "0x"
 * optional, then 2 to 32 hex digits, an even number? See "Persistent
 * reservations and fencing" in Documentation/ib_srpt.rst.
 */
static bool srpt_pr_name(const char *name)
{
	size_t i, len;

	if (name[0] == '0' && (name[1] == 'x' || name[1] == 'X'))
		name += 2;
	len = strlen(name);
	if (!len || len % 2 || len > 32)
		return false;
	for (i = 0; i < len; i++)
		if (!isxdigit(name[i]))
			return false;
	return true;
}

/**
 * srpt_lookup_port() - find the RDMA port a target port name refers to.
 * @name: GUID form "hhhh:hhhh:hhhh:hhhh" or GID form "0x" + 32 hex digits
 *        of GID 0 (also without "0x" or with "ib."); any case.
 * @guid_form: receives whether @name is in the GUID form.
 *
 * Context: srpt_dev_mutex held; the port stays valid while it is.
 * Return: the port, or NULL if no present device's port has that name.
 */
static struct srpt_port *srpt_lookup_port(const char *name, bool *guid_form)
{
	struct srpt_device *sdev;
	u32 i;

	lockdep_assert_held(&srpt_dev_mutex);
	list_for_each_entry(sdev, &srpt_dev_list, list) {
		if (sdev->removed)
			continue;
		for (i = 0; i < sdev->port_cnt; i++)
			if (srpt_port_has_name(&sdev->port[i], name, guid_form))
				return &sdev->port[i];
	}
	return NULL;
}

static struct srpt_tport *srpt_wwn_to_tport(struct se_wwn *wwn)
{
	return container_of(wwn, struct srpt_tport, wwn);
}

/*
 * The HCA port serving @tpg's target port, NULL while none does: read
 * under the target port's mutex, device pinned until srpt_sdev_put().
 */
static struct srpt_port *srpt_tpg_sport_get(struct se_portal_group *tpg)
{
	struct srpt_tport *tport = srpt_wwn_to_tport(tpg->se_tpg_wwn);
	struct srpt_port *sport;

	mutex_lock(&tport->mutex);
	sport = tport->sport;
	if (sport)
		srpt_sdev_get(sport->sdev);
	mutex_unlock(&tport->mutex);
	return sport;
}

/*
 * Makes @stpg live or not and returns the HCA port serving its target port,
 * pinned until srpt_sdev_put(), or NULL; @stpg does not go live without a
 * port, nor on one whose removal started before. In one critical section:
 * a port that attaches the target port later (a re-added device) sees the
 * new state in srpt_tport_attach(), so it neither misses an enable nor
 * stays enabled for a disabled TPG.
 */
static struct srpt_port *srpt_tpg_set_live(struct srpt_tpg *stpg, bool live)
{
	struct srpt_tport *tport = stpg->tport;
	struct srpt_port *sport;

	mutex_lock(&tport->mutex);
	sport = tport->sport;
	if (live && (!sport || READ_ONCE(sport->sdev->removed)))
		sport = NULL;
	else
		stpg->live = live;
	if (sport)
		srpt_sdev_get(sport->sdev);
	mutex_unlock(&tport->mutex);
	return sport;
}

/*
 * Append @line to @page unless it is there already (two portals may cover
 * one address on one port). Return: the new length of @page.
 */
static int srpt_emit_line_once(char *page, int at, const char *line)
{
	if (strstr(page, line))
		return at;
	return at + sysfs_emit_at(page, at, "%s", line);
}

/* The add_target line for an RDMA/CM login to @a, port @port. */
static int srpt_rdma_cm_line(char *buf, size_t len, const struct sockaddr *a,
			     u16 port)
{
	const struct sockaddr_in6 *a6 = (const void *)a;
	const struct sockaddr_in *a4 = (const void *)a;

	if (a->sa_family == AF_INET)
		return scnprintf(buf, len, "id_ext=%016llx,ioc_guid=%016llx,dest=%pI4:%u\n",
				 srpt_service_guid, srpt_service_guid,
				 &a4->sin_addr, port);
	return scnprintf(buf, len, "id_ext=%016llx,ioc_guid=%016llx,dest=[%pI6c]:%u\n",
			 srpt_service_guid, srpt_service_guid, &a6->sin6_addr,
			 port);
}

/* The add_target line for an IB CM login to @gid with P_Key @pkey. */
static int srpt_ib_cm_line(char *buf, size_t len, const union ib_gid *gid,
			   u16 pkey)
{
	return scnprintf(buf, len,
			 "id_ext=%016llx,ioc_guid=%016llx,dgid=%16phN,pkey=%04x,service_id=%016llx\n",
			 srpt_service_guid, srpt_service_guid, gid->raw, pkey,
			 srpt_service_guid);
}

/*
 * Lines for one RoCE GID, that is one IP address in one namespace: an
 * RDMA/CM line per listener serving it (the namespace's rdma_cm_port pair,
 * the portals covering it) and, with ib_cm_on_roce, an IB CM line if any does.
 * Link-local addresses are left out: their scope is the initiator's.
 */
static int srpt_login_lines_gid(const struct ib_gid_attr *attr, bool ib_cm,
				u16 pkey, char *page, int at)
{
	struct sockaddr_storage ss = {};
	struct sockaddr *a = (struct sockaddr *)&ss;
	struct net_device *ndev;
	struct srpt_portal *p;
	char line[160];
	bool served = false;
	struct net *net;
	int ifindex;

	rdma_gid2ip(a, &attr->gid);
	if (a->sa_family == AF_INET6 &&
	    (ipv6_addr_type(&((struct sockaddr_in6 *)a)->sin6_addr) &
	     IPV6_ADDR_LINKLOCAL))
		return at;
	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(attr);
	if (IS_ERR(ndev)) {
		rcu_read_unlock();
		return at;
	}
	net = dev_net(ndev);
	ifindex = ndev->ifindex;
	spin_lock(&srpt_portal_lock);
	list_for_each_entry(p, &srpt_portals, node) {
		if (!srpt_portal_serves(p, net, a, ifindex))
			continue;
		served = true;
		srpt_rdma_cm_line(line, sizeof(line), a, srpt_portal_port(p));
		at = srpt_emit_line_once(page, at, line);
	}
	spin_unlock(&srpt_portal_lock);
	rcu_read_unlock();
	if (served && ib_cm) {
		srpt_ib_cm_line(line, sizeof(line), &attr->gid, pkey);
		at = srpt_emit_line_once(page, at, line);
	}
	return at;
}

/*
 * The add_target lines that reach @sport: on InfiniBand the IB CM line of
 * GID 0; on RoCE the lines of every address some listener serves.
 * Context: sdev_mutex held, the device not removed.
 */
static int srpt_login_lines(struct srpt_port *sport, char *page)
{
	struct ib_device *dev = sport->sdev->device;
	const struct ib_gid_attr *attr;
	bool ib_cm = srpt_serves_ib_cm(dev, sport->port);
	char line[160];
	u16 pkey = 0xffff;
	int i, at = 0;

	lockdep_assert_held(&sport->sdev->sdev_mutex);
	page[0] = 0;
	if (ib_cm)
		ib_get_cached_pkey(dev, sport->port, 0, &pkey);
	if (!rdma_protocol_roce(dev, sport->port)) {
		if (ib_cm && sport->gid_valid) {
			srpt_ib_cm_line(line, sizeof(line), &sport->gid, pkey);
			at = srpt_emit_line_once(page, at, line);
		}
		return at;
	}
	for (i = 0; i < ib_port_immutable_read(dev, sport->port)->gid_tbl_len; i++) {
		attr = rdma_get_gid_attr(dev, sport->port, i);
		if (IS_ERR(attr))
			continue;
		at = srpt_login_lines_gid(attr, ib_cm, pkey, page, at);
		rdma_put_gid_attr(attr);
	}
	return at;
}

/*
 * tpgt_N/login_info: what an ib_srp host writes to add_target to reach the
 * target port, one way per line; empty while its device is removed. On the
 * TPG: the target core gives a fabric no attributes of the port directory.
 */
static ssize_t srpt_tpg_login_info_show(struct config_item *item, char *page)
{
	struct se_portal_group *tpg = container_of(to_config_group(item),
						   struct se_portal_group,
						   tpg_group);
	struct srpt_port *sport = srpt_tpg_sport_get(tpg);
	struct srpt_device *sdev;
	int at = 0;

	if (!sport)
		return 0;
	sdev = sport->sdev;
	mutex_lock(&sdev->sdev_mutex);
	if (!sdev->removed)
		at = srpt_login_lines(sport, page);
	mutex_unlock(&sdev->sdev_mutex);
	srpt_sdev_put(sdev);
	return at;
}

CONFIGFS_ATTR_RO(srpt_tpg_, login_info);

static struct configfs_attribute *srpt_tpg_base_attrs[] = {
	&srpt_tpg_attr_login_info,
	NULL,
};

/**
 * srpt_make_tport() - configfs callback creating a target port.
 * @tf: unused.
 * @group: unused.
 * @name: GUID or GID form name, see srpt_lookup_port().
 *
 * Return: the new target port's WWN, attached to the port of that name;
 * ERR_PTR(-EINVAL) if no present port has that name, ERR_PTR(-EEXIST) if
 * the port has a target port of that form already (another spelling).
 */
static struct se_wwn *srpt_make_tport(struct target_fabric_configfs *tf,
				      struct config_group *group,
				      const char *name)
{
	struct srpt_tport *tport;
	struct srpt_port *sport;
	bool guid_form;

	/* Spellings rtslib could not read back; say which one to use. */
	if (!strncasecmp(name, "ib.", 3) ||
	    (!strchr(name, ':') && !srpt_rtslib_name(name))) {
		pr_err("%s: write a target port as 0x + 32 lowercase hex digits of its GID (targetcli's ib.<32 hex> name is that in configfs) or as the port GUID hhhh:hhhh:hhhh:hhhh\n",
		       name);
		return ERR_PTR(-EINVAL);
	}

	tport = kzalloc_obj(*tport, GFP_KERNEL);
	if (!tport)
		return ERR_PTR(-ENOMEM);
	mutex_init(&tport->mutex);
	INIT_LIST_HEAD(&tport->tpg_list);
	strscpy(tport->name, name, sizeof(tport->name));

	mutex_lock(&srpt_dev_mutex);
	sport = srpt_lookup_port(name, &guid_form);
	if (!sport || *srpt_tport_slot(sport, guid_form)) {
		mutex_unlock(&srpt_dev_mutex);
		kfree(tport);
		if (sport)
			return ERR_PTR(-EEXIST);
		pr_info("%s: no RDMA port with this GUID (hhhh:hhhh:hhhh:hhhh) or GID (0x + 32 hex digits) at GID index 0\n",
			name);
		return ERR_PTR(-EINVAL);
	}
	tport->guid_form = guid_form;
	tport->limits = sport->limits;
	srpt_tport_attach(tport, sport);
	list_add_tail(&tport->entry, &srpt_tports);
	if (guid_form)
		pr_notice("%s: GUID-named target port: ACLs name initiator port GUIDs (IB CM) and IP addresses (RDMA/CM); targetcli cannot list it (`targetcli ls` and saveconfig fail while it exists), use %s for that\n",
			  name, sport->port_gid);
	mutex_unlock(&srpt_dev_mutex);
	return &tport->wwn;
}

/**
 * srpt_drop_tport() - configfs callback removing a target port.
 * @wwn: from srpt_make_tport(); freed here.
 */
static void srpt_drop_tport(struct se_wwn *wwn)
{
	struct srpt_tport *tport = srpt_wwn_to_tport(wwn);

	mutex_lock(&srpt_dev_mutex);
	srpt_tport_detach(tport);
	list_del(&tport->entry);
	mutex_unlock(&srpt_dev_mutex);
	WARN_ON_ONCE(!list_empty(&tport->tpg_list));
	kfree(tport);
}

/*
 * Any name is a TPG, but rtslib parses "tpgt*" as "tpgt_<tag>" and fails on
 * the rest. Return: 0, or -EINVAL for a "tpgt" name rtslib could not read.
 */
static int srpt_tpg_name_tag(const char *name, u16 *tag)
{
	const char *digits = name + 5;

	*tag = 1;
	if (strncmp(name, "tpgt", 4))
		return 0;
	/*
	 * Digits only (kstrtou16() would take a trailing newline), no leading
	 * zero: rtslib looks the TPG up again as "tpgt_%d".
	 */
	if (name[4] != '_' || !isdigit(digits[0]) ||
	    digits[strspn(digits, "0123456789")] ||
	    (digits[0] == '0' && digits[1]) || kstrtou16(digits, 10, tag))
		return -EINVAL;
	return 0;
}

/**
 * srpt_make_tpg() - configfs callback creating a TPG.
 * @wwn: target port.
 * @name: directory name, see srpt_tpg_name_tag().
 *
 * Return: the new portal group or an ERR_PTR().
 */
static struct se_portal_group *srpt_make_tpg(struct se_wwn *wwn,
					     const char *name)
{
	struct srpt_tport *tport = srpt_wwn_to_tport(wwn);
	struct srpt_tpg *stpg;
	u16 tag;
	int ret;

	if (srpt_tpg_name_tag(name, &tag)) {
		pr_err("%s: a TPG name starting with \"tpgt\" must be tpgt_<number> (0..65535, as targetcli writes it); other names are fine\n",
		       name);
		return ERR_PTR(-EINVAL);
	}

	stpg = kzalloc_obj(*stpg, GFP_KERNEL);
	if (!stpg)
		return ERR_PTR(-ENOMEM);
	stpg->tport = tport;
	stpg->tag = tag;

	ret = core_tpg_register(wwn, &stpg->tpg, SCSI_PROTOCOL_SRP);
	if (ret) {
		kfree(stpg);
		return ERR_PTR(ret);
	}

	mutex_lock(&tport->mutex);
	list_add_tail(&stpg->entry, &tport->tpg_list);
	mutex_unlock(&tport->mutex);

	return &stpg->tpg;
}

/**
 * srpt_drop_tpg() - configfs callback removing a TPG; stops logins first.
 * @tpg: portal group from srpt_make_tpg().
 */
static void srpt_drop_tpg(struct se_portal_group *tpg)
{
	struct srpt_tpg *stpg = container_of(tpg, struct srpt_tpg, tpg);
	struct srpt_tport *tport = stpg->tport;
	struct srpt_port *sport = srpt_tpg_set_live(stpg, false);

	if (sport) {
		srpt_tpg_stop(sport, stpg);
		srpt_sdev_put(sport->sdev);
	}

	mutex_lock(&tport->mutex);
	list_del(&stpg->entry);
	mutex_unlock(&tport->mutex);

	core_tpg_deregister(tpg);
	kfree(stpg);
}

/*
 * Disabling logs out the TPG's channels (all of the port's if no other TPG
 * is enabled). Return: 0, or -ENODEV when enabling while no HCA port
 * serves the target port.
 */
static int srpt_enable_tpg(struct se_portal_group *se_tpg, bool enable)
{
	struct srpt_tpg *stpg = container_of(se_tpg, struct srpt_tpg, tpg);
	struct srpt_port *sport = srpt_tpg_set_live(stpg, enable);

	if (!sport)
		return enable ? -ENODEV : 0;
	if (enable)
		srpt_set_enabled(sport, true);
	else
		srpt_tpg_stop(sport, stpg);
	srpt_sdev_put(sport->sdev);
	return 0;
}

static char *srpt_get_fabric_wwn(struct se_portal_group *tpg)
{
	return srpt_wwn_to_tport(tpg->se_tpg_wwn)->name;
}

/* N for "tpgt_N", 1 for any other name. */
static u16 srpt_get_tag(struct se_portal_group *tpg)
{
	return container_of(tpg, struct srpt_tpg, tpg)->tag;
}

/* Demo mode (an ACL is needed) and write protection are off. */
static int srpt_check_false(struct se_portal_group *se_tpg)
{
	return 0;
}

static int srpt_check_true(struct se_portal_group *se_tpg)
{
	return 1;
}

/*
 * Refuses names that could never match on this target port (see
 * srpt_acl_matches()) and rtslib's "ib." spelling, saying what to use.
 */
static int srpt_init_nodeacl(struct se_node_acl *se_nacl, const char *name)
{
	bool guid_port = srpt_wwn_to_tport(se_nacl->se_tpg->se_tpg_wwn)->guid_form;
	enum srpt_acl_form form;
	u8 id[16];

	if (srpt_parse_acl_name(name, id, &form) ||
	    !strncasecmp(name, "ib.", 3)) {
		if (guid_port)
			pr_err("%s: invalid ACL name; on a GUID-named target port write the initiator's port GUID (hhhh:hhhh:hhhh:hhhh) or IP address\n",
			       name);
		else
			pr_err("%s: invalid ACL name; write the initiator port ID as 0x + 32 hex digits (targetcli's ib.<32 hex> is that in configfs)\n",
			       name);
		return -EINVAL;
	}
	if (!guid_port && form != SRPT_ACL_PORT_ID) {
		pr_err("%s: on a GID-named target port an ACL names the initiator port ID (0x + 32 hex digits: initiator_ext, port GUID); port GUID and IP address ACLs belong under the port's GUID name\n",
		       name);
		return -EINVAL;
	}
	if (guid_port && form == SRPT_ACL_PORT_ID && memchr_inv(id, 0, 8)) {
		pr_err("%s: on a GUID-named target port an ACL names the initiator's port GUID (hhhh:hhhh:hhhh:hhhh) or IP address; initiator port ID ACLs belong under the port's GID name\n",
		       name);
		return -EINVAL;
	}
	if (!guid_port && !srpt_rtslib_name(name))
		pr_notice("%s: ACL for initiator port ID 0x%16phN; targetcli cannot list this spelling (`targetcli ls` and saveconfig fail while it exists), it needs 0x + 32 lowercase hex digits\n",
			  name, id);
	if (!srpt_pr_name(name))
		pr_warn("%s: persistent reservations cannot name this initiator (the target core builds its SRP TransportID from hex digits only): READ FULL STATUS and PR registrations with TransportIDs fail for it; for fencing (fence_scsi) use an initiator port ID ACL, 0x + 32 hex digits, under the port's GID name\n",
			name);
	return 0;
}

/* @name: also the &struct srpt_port_limits member; @why: for the refusal. */
struct srpt_u32_attrib {
	const char *name;
	size_t off;
	u32 min;
	u32 max;
	const char *why;
};

/*
 * The attached port's attributes, else the target port's own copy; under
 * the target port's mutex, which keeps the port attached.
 */
static struct srpt_port_limits *srpt_tport_limits(struct srpt_tport *tport)
{
	lockdep_assert_held(&tport->mutex);
	return tport->sport ? &tport->sport->limits : &tport->limits;
}

static struct srpt_tport *srpt_attrib_tport(struct config_item *item)
{
	return srpt_wwn_to_tport(attrib_to_tpg(item)->se_tpg_wwn);
}

static ssize_t srpt_show_u32_attrib(struct config_item *item, char *page,
				    const struct srpt_u32_attrib *a)
{
	struct srpt_tport *tport = srpt_attrib_tport(item);
	u32 val;

	mutex_lock(&tport->mutex);
	val = READ_ONCE(*(u32 *)((u8 *)srpt_tport_limits(tport) + a->off));
	mutex_unlock(&tport->mutex);
	return sysfs_emit(page, "%u\n", val);
}

/* Return: @count, or -EINVAL (unchanged) outside [@a->min, @a->max]. */
static ssize_t srpt_store_u32_attrib(struct config_item *item, const char *page,
				     size_t count,
				     const struct srpt_u32_attrib *a)
{
	struct srpt_tport *tport = srpt_attrib_tport(item);
	u32 val;

	if (kstrtou32(page, 0, &val) || val < a->min || val > a->max) {
		pr_err("%s: '%.*s' is not a number in %u..%u%s\n", a->name,
		       (int)strcspn(page, "\n"), page, a->min, a->max, a->why);
		return -EINVAL;
	}

	/* Logins read the attributes without the configfs locks. */
	mutex_lock(&tport->mutex);
	WRITE_ONCE(*(u32 *)((u8 *)srpt_tport_limits(tport) + a->off), val);
	mutex_unlock(&tport->mutex);
	return count;
}

/*
 * The show and store of a numeric attribute of a port, under each of its
 * TPGs' attrib/: member @m of &struct srpt_port_limits, from @lo to @hi,
 * @why_ said on a refusal.
 */
#define SRPT_U32_ATTRIB(m, lo, hi, why_)					\
static const struct srpt_u32_attrib srpt_##m##_attrib = {			\
	.name = #m, .off = offsetof(struct srpt_port_limits, m),		\
	.min = lo, .max = hi, .why = why_,					\
};										\
static ssize_t srpt_tpg_attrib_##m##_show(struct config_item *item,		\
					  char *page)				\
{										\
	return srpt_show_u32_attrib(item, page, &srpt_##m##_attrib);		\
}										\
static ssize_t srpt_tpg_attrib_##m##_store(struct config_item *item,		\
					   const char *page, size_t count)	\
{										\
	return srpt_store_u32_attrib(item, page, count, &srpt_##m##_attrib);	\
}

SRPT_U32_ATTRIB(srp_max_rdma_size, SRPT_MAX_RDMA_SIZE_MIN, SRPT_MAX_RDMA_SIZE_MAX, "");
SRPT_U32_ATTRIB(srp_max_rsp_size, SRPT_MAX_RSP_SIZE_MIN, SRPT_MAX_RSP_SIZE_MAX,
		" (a task-management response is 40 bytes)");
SRPT_U32_ATTRIB(srp_sq_size, SRPT_SQ_SIZE_MIN, SRPT_SQ_SIZE_MAX, "");

static ssize_t srpt_tpg_attrib_use_srq_show(struct config_item *item,
					    char *page)
{
	struct srpt_tport *tport = srpt_attrib_tport(item);
	bool use_srq;

	mutex_lock(&tport->mutex);
	use_srq = srpt_tport_limits(tport)->use_srq;
	mutex_unlock(&tport->mutex);
	return sysfs_emit(page, "%u\n", use_srq);
}

/*
 * Channels of the device are logged out (srpt_port_set_use_srq()); kept
 * for the next HCA port while none serves the target port.
 */
static ssize_t srpt_tpg_attrib_use_srq_store(struct config_item *item,
					     const char *page, size_t count)
{
	struct srpt_port *sport;
	bool use_srq;
	int ret;

	if (kstrtobool(page, &use_srq))
		return -EINVAL;

	/* An HCA port that attaches meanwhile switches through the device. */
	while (!(sport = srpt_tpg_sport_get(attrib_to_tpg(item)))) {
		struct srpt_tport *tport = srpt_attrib_tport(item);
		bool attached;

		mutex_lock(&tport->mutex);
		attached = tport->sport;
		if (!attached)
			tport->limits.use_srq = use_srq;
		mutex_unlock(&tport->mutex);
		if (!attached)
			return count;
	}
	ret = srpt_port_set_use_srq(sport, use_srq);
	srpt_sdev_put(sport->sdev);
	return ret ? ret : count;
}

CONFIGFS_ATTR(srpt_tpg_attrib_, srp_max_rdma_size);
CONFIGFS_ATTR(srpt_tpg_attrib_, srp_max_rsp_size);
CONFIGFS_ATTR(srpt_tpg_attrib_, srp_sq_size);
CONFIGFS_ATTR(srpt_tpg_attrib_, use_srq);

static struct configfs_attribute *srpt_tpg_attrib_attrs[] = {
	&srpt_tpg_attrib_attr_srp_max_rdma_size,
	&srpt_tpg_attrib_attr_srp_max_rsp_size,
	&srpt_tpg_attrib_attr_srp_sq_size,
	&srpt_tpg_attrib_attr_use_srq,
	NULL,
};

/* Configfs is not namespaced: shows the reader's namespace's port. */
static ssize_t srpt_rdma_cm_port_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "%u\n", srpt_net_port(current->nsproxy->net_ns));
}

/* Acts on the writer's namespace only; 0 removes its listener. */
static ssize_t srpt_rdma_cm_port_store(struct config_item *item,
				       const char *page, size_t count)
{
	u16 port;
	int ret;

	if (kstrtou16(page, 0, &port))
		return -EINVAL;

	ret = srpt_rdma_cm_listen(current->nsproxy->net_ns, port);
	return ret ? ret : count;
}

CONFIGFS_ATTR(srpt_, rdma_cm_port);

/*
 * Per open listener "net:[<inode>] <address>:<port>", or "net:[<inode>]
 * <port>" for a namespace's rdma_cm_port pair: all namespaces' from
 * init_net, else the reader's.
 */
static ssize_t srpt_rdma_cm_listeners_show(struct config_item *item,
					   char *page)
{
	struct net *cur = current->nsproxy->net_ns;
	struct srpt_portal *p, *prev = NULL;
	int len = 0;

	spin_lock(&srpt_portal_lock);
	list_for_each_entry(p, &srpt_portals, node) {
		if (!p->cm_id ||
		    !(net_eq(cur, &init_net) || p->inum == cur->ns.inum))
			continue;
		if (!p->wildcard)
			len += sysfs_emit_at(page, len, "net:[%u] %pISpc\n",
					     p->inum, &p->addr);
		/* A pair is published in one go, the IPv6 one first. */
		else if (!prev || !prev->wildcard || prev->inum != p->inum)
			len += sysfs_emit_at(page, len, "net:[%u] %u\n",
					     p->inum, srpt_portal_port(p));
		prev = p;
	}
	spin_unlock(&srpt_portal_lock);
	return len;
}

/*
 * "net:[<inode>] 0" or "<inode> 0", init_net only: closes the rdma_cm_port
 * listeners of a namespace nobody can enter.
 * Return: @count, -EPERM, -EINVAL, or -ENOENT (no listener).
 */
static ssize_t srpt_rdma_cm_listeners_store(struct config_item *item,
					    const char *page, size_t count)
{
	struct srpt_portal *p;
	unsigned int inum;
	u16 port;
	int ret = -ENOENT;

	if (!net_eq(current->nsproxy->net_ns, &init_net)) {
		pr_warn("rdma_cm_listeners: write from the initial network namespace, or write 0 to rdma_cm_port in this one\n");
		return -EPERM;
	}
	if (sscanf(page, "net:[%u] %hu", &inum, &port) != 2 &&
	    sscanf(page, "%u %hu", &inum, &port) != 2)
		return -EINVAL;
	if (port) {
		pr_warn("rdma_cm_listeners: only 0 (close) can be written; a namespace sets its port in rdma_cm_port\n");
		return -EINVAL;
	}
	mutex_lock(&srpt_rdma_cm_mutex);
	list_for_each_entry(p, &srpt_portals, node) {
		if (p->wildcard && p->cm_id && p->inum == inum) {
			srpt_rdma_cm_unlisten(p->net);
			ret = 0;
			break;
		}
	}
	mutex_unlock(&srpt_rdma_cm_mutex);
	return ret ? ret : count;
}

CONFIGFS_ATTR(srpt_, rdma_cm_listeners);

/**
 * srpt_make_np() - configfs mkdir of tpgt_N/np/<address>:<port>.
 * @tpg: the TPG the directory is made in.
 * @group: the np group (unused).
 * @name: see srpt_portal_parse().
 *
 * Listens on the address in the namespace of the process calling mkdir,
 * whichever TPG the directory is in: the address picks the RDMA device,
 * and so the target port a login reaches. Context: process, takes
 * srpt_rdma_cm_mutex.
 *
 * Return: the np, or an ERR_PTR() (the target core reports -EINVAL).
 */
static struct se_tpg_np *srpt_make_np(struct se_portal_group *tpg,
				      struct config_group *group,
				      const char *name)
{
	struct net *net = current->nsproxy->net_ns;
	struct srpt_portal *p;
	int ret;

	p = kzalloc_obj(*p, GFP_KERNEL);
	if (!p)
		return ERR_PTR(-ENOMEM);
	ret = srpt_portal_parse(net, name, &p->addr);
	if (ret) {
		pr_err("np %s: the name must be <IPv4>:<port> or [<IPv6>]:<port>, a port from 1 to 65535 in decimal without a leading zero, and a %%<scope> (interface name or index) only on a link-local IPv6 address\n",
		       name);
		goto free;
	}

	mutex_lock(&srpt_rdma_cm_mutex);
	ret = srpt_portal_open(p, net);
	mutex_unlock(&srpt_rdma_cm_mutex);
	if (ret) {
		pr_err("np %s: cannot listen in netns net:[%u]: %d; the address must be on an RDMA interface there and the port free on it (rdma_cm_port and portals on 0.0.0.0 or [::] take the port on every address)\n",
		       name, net->ns.inum, ret);
		goto free;
	}
	pr_info("RDMA/CM listener %pISpc in netns net:[%u]\n", &p->addr,
		p->inum);
	return &p->np;

free:
	kfree(p);
	return ERR_PTR(ret);
}

/* rmdir: logins made through the portal keep their channels. */
static void srpt_drop_np(struct se_tpg_np *np)
{
	struct srpt_portal *p = container_of(np, struct srpt_portal, np);

	mutex_lock(&srpt_rdma_cm_mutex);
	if (srpt_portal_close(p, NULL))
		pr_info("RDMA/CM listener %pISpc removed (netns net:[%u])\n",
			&p->addr, p->inum);
	srpt_portal_free(p);
	mutex_unlock(&srpt_rdma_cm_mutex);
}

/* "listening in net:[<inode>]" or "closed: <reason>". */
static ssize_t srpt_np_listener_show(struct config_item *item, char *page)
{
	struct srpt_portal *p = container_of(to_tpg_np(item),
					     struct srpt_portal, np);
	ssize_t ret;

	spin_lock(&srpt_portal_lock);
	if (p->cm_id)
		ret = sysfs_emit(page, "listening in net:[%u]\n", p->inum);
	else
		ret = sysfs_emit(page, "closed: %s\n", p->closed_why);
	spin_unlock(&srpt_portal_lock);
	return ret;
}

CONFIGFS_ATTR_RO(srpt_np_, listener);

static struct configfs_attribute *srpt_np_attrs[] = {
	&srpt_np_attr_listener,
	NULL,
};

static struct configfs_attribute *srpt_da_attrs[] = {
	&srpt_attr_rdma_cm_port,
	&srpt_attr_rdma_cm_listeners,
	NULL,
};

/*
 * Keep words rtslib looks for in info ("Address", "_STATE_") out of these
 * lines. Return: bytes added at @at.
 */
static int srpt_ch_stats_show(const struct srpt_rdma_ch *ch, char *page,
			      int at)
{
	const struct srpt_ch_stats *st = &ch->stats;
	int len = 0;

	len += sysfs_emit_at(page, at + len,
			     "   Failed commands: %lld  Dropped: %lld  Aborts: %lld\n",
			     atomic64_read(&st->failed),
			     atomic64_read(&st->dropped),
			     atomic64_read(&st->aborts));
	len += sysfs_emit_at(page, at + len,
			     "   Credits granted: %d  returned: %lld  held by initiator: %d\n",
			     ch->lim.rq_size, srpt_ch_credits_returned(ch),
			     srpt_credits_held(ch));
	len += sysfs_emit_at(page, at + len,
			     "   Send queue high-water: %d of %u RDMA WRs  Receive high-water: %d of %d requests\n",
			     atomic_read(&st->sq_hwm), ch->lim.sq_rdma_wrs,
			     atomic_read(&st->rq_hwm), ch->lim.rq_size);
	/* A transfer that waits here for long is a stuck channel. */
	len += sysfs_emit_at(page, at + len,
			     "   Send queue now: %d of %u RDMA WRs free%s\n",
			     atomic_read(&ch->sq.wr_avail), ch->lim.sq_rdma_wrs,
			     list_empty_careful(&ch->sq.wait_list) ? "" :
			     ", transfers waiting for room");
	return len;
}

/* Parsed by rtslib (targetcli sessions): channels show as connections. */
static ssize_t srpt_nacl_info_show(struct config_item *item, char *page)
{
	struct se_node_acl *se_nacl = acl_to_nacl(item);
	struct srpt_rdma_ch *ch, *first = NULL;
	bool live = false, connecting = false;
	unsigned int n_ch = 0, cid = 0;
	struct se_session *se_sess;
	enum srpt_ch_state state;
	unsigned long flags;
	ssize_t len = 0;

	/* Sessions leave this list under nacl_sess_lock before the free. */
	spin_lock_irqsave(&se_nacl->nacl_sess_lock, flags);
	list_for_each_entry(se_sess, &se_nacl->acl_sess_list, sess_acl_list) {
		ch = srpt_sess_to_ch(se_sess);
		if (!ch)
			continue;
		if (!first)
			first = ch;
		n_ch++;
		state = READ_ONCE(ch->state);
		live |= state == SRPT_CH_LIVE;
		connecting |= state == SRPT_CH_LOGGING_IN;
	}

	if (!first) {
		len = sysfs_emit(page, "No active SRP session\n");
		goto unlock;
	}

	len += sysfs_emit_at(page, len, "InitiatorName: %s\n",
			     se_nacl->initiatorname);
	len += sysfs_emit_at(page, len, "InitiatorAlias: %s\n",
			     first->sess_name);
	/* The QP number is unique per HCA and stable for the session. */
	len += sysfs_emit_at(page, len, "LIO Session ID: %u  SessionType: Normal\n",
			     first->qp ? first->qp->qp_num : 0);
	len += sysfs_emit_at(page, len, "Session State: TARG_SESS_STATE_%s\n",
			     live ? "LOGGED_IN" :
			     connecting ? "IN_LOGIN" : "IN_LOGOUT");
	len += sysfs_emit_at(page, len, "Channels: %u\n", n_ch);

	list_for_each_entry(se_sess, &se_nacl->acl_sess_list, sess_acl_list) {
		ch = srpt_sess_to_ch(se_sess);
		if (!ch)
			continue;
		state = READ_ONCE(ch->state);
		len += sysfs_emit_at(page, len,
				     "CID: %u  Connection State: TARG_CONN_STATE_%s\n",
				     cid++, srpt_ch_state_name(state));
		len += sysfs_emit_at(page, len, "   Address %s %s\n",
				     ch->sess_name,
				     ch->lim.using_rdma_cm ? "RDMA_CM" : "IB_CM");
		if (ch->initiator)
			len += sysfs_emit_at(page, len,
					     "   Initiator port ID: 0x%16phN\n",
					     ch->initiator->i_port_id);
		len += sysfs_emit_at(page, len,
				     "   Commands: %llu  TMFs: %lld  Bytes in: %llu  Bytes out: %llu  Bad IUs: %lld\n",
				     READ_ONCE(ch->stats.cmds),
				     atomic64_read(&ch->stats.tmfs),
				     srpt_ch_bytes_in(ch),
				     READ_ONCE(ch->stats.bytes_out),
				     atomic64_read(&ch->stats.bad_ius));
		len += srpt_ch_stats_show(ch, page, len);
	}

unlock:
	spin_unlock_irqrestore(&se_nacl->nacl_sess_lock, flags);
	return len;
}

CONFIGFS_ATTR_RO(srpt_nacl_, info);

static struct configfs_attribute *srpt_nacl_attrs[] = {
	&srpt_nacl_attr_info,
	NULL,
};

/* SRP has no login authentication; rtslib reads this for every ACL. */
static ssize_t srpt_nacl_auth_authenticate_target_show(struct config_item *item,
						       char *page)
{
	return sysfs_emit(page, "0\n");
}

CONFIGFS_ATTR_RO(srpt_nacl_auth_, authenticate_target);

static struct configfs_attribute *srpt_nacl_auth_attrs[] = {
	&srpt_nacl_auth_attr_authenticate_target,
	NULL,
};

static const struct target_core_fabric_ops srpt_template = {
	.module				= THIS_MODULE,
	.fabric_name			= "srpt",
	.tpg_get_wwn			= srpt_get_fabric_wwn,
	.tpg_get_tag			= srpt_get_tag,
	.tpg_check_demo_mode		= srpt_check_false,
	.tpg_check_demo_mode_cache	= srpt_check_true,
	.tpg_check_demo_mode_write_protect = srpt_check_false,
	.tpg_check_prod_mode_write_protect = srpt_check_false,
	SRPT_TFO_LEGACY_OPS
	.check_stop_free		= target_put_sess_cmd,
	.release_cmd			= srpt_release_cmd,
	.close_session			= srpt_close_session,
	.write_pending			= srpt_write_pending,
	.get_cmd_state			= srpt_get_tcm_cmd_state,
	.queue_data_in			= srpt_queue_response,
	.queue_status			= srpt_queue_response,
	.queue_tm_rsp			= srpt_queue_tm_rsp,
	.aborted_task			= srpt_aborted_task,
	.fabric_make_wwn		= srpt_make_tport,
	.fabric_drop_wwn		= srpt_drop_tport,
	.fabric_make_tpg		= srpt_make_tpg,
	.fabric_enable_tpg		= srpt_enable_tpg,
	.fabric_drop_tpg		= srpt_drop_tpg,
	.fabric_make_np			= srpt_make_np,
	.fabric_drop_np			= srpt_drop_np,
	.fabric_init_nodeacl		= srpt_init_nodeacl,
	.tfc_discovery_attrs		= srpt_da_attrs,
	.tfc_tpg_base_attrs		= srpt_tpg_base_attrs,
	.tfc_tpg_np_base_attrs		= srpt_np_attrs,
	.tfc_tpg_attrib_attrs		= srpt_tpg_attrib_attrs,
	.tfc_tpg_nacl_base_attrs	= srpt_nacl_attrs,
	.tfc_tpg_nacl_auth_attrs	= srpt_nacl_auth_attrs,
	SRPT_TFO_SUBMIT_OPS
};

/* ==== Module init and exit ============================================== */

/**
 * srpt_init_module() - kernel module initialization.
 *
 * Checks the parameters; registers the LIO fabric and the ib_client;
 * listens in init_net if rdma_cm_port is set.
 *
 * Return: 0 or a negative errno.
 */
static int __init srpt_init_module(void)
{
	int ret;

	if (srp_max_req_size < SRPT_MAX_REQ_SIZE_MIN) {
		pr_err("srp_max_req_size %u is below %u: initiators cannot log in with a smaller IU\n",
		       srp_max_req_size, SRPT_MAX_REQ_SIZE_MIN);
		return -EINVAL;
	}
	/* Each receive buffer is one kmalloc()ed IU, see SRPT_MAX_REQ_SIZE_MAX. */
	if (srp_max_req_size > SRPT_MAX_REQ_SIZE_MAX) {
		pr_err("srp_max_req_size %u is above %lu: the kernel cannot allocate receive buffers that large\n",
		       srp_max_req_size, (unsigned long)SRPT_MAX_REQ_SIZE_MAX);
		return -EINVAL;
	}
	if (srpt_srq_size < SRPT_SRQ_SIZE_MIN || srpt_srq_size > SRPT_SRQ_SIZE_MAX) {
		pr_err("srpt_srq_size %d out of range %d..%d\n", srpt_srq_size,
		       SRPT_SRQ_SIZE_MIN, SRPT_SRQ_SIZE_MAX);
		return -EINVAL;
	}

	/*
	 * Nothing here needs the queuing CPU; kernels from 6.17 on warn when
	 * a queue states neither WQ_PERCPU (absent before) nor WQ_UNBOUND.
	 */
	srpt_wq = alloc_workqueue("srpt", WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	if (!srpt_wq)
		return -ENOMEM;
	srpt_io_wq = alloc_workqueue("srpt_io", WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	if (!srpt_io_wq) {
		ret = -ENOMEM;
		goto err_wq;
	}

	ret = target_register_template(&srpt_template);
	if (ret)
		goto err_io_wq;

	ret = ib_register_client(&srpt_client);
	if (ret) {
		pr_err("ib_register_client() failed: %d\n", ret);
		goto err_template;
	}

	/* The parameter is the in-kernel driver's one listener: init_net's. */
	if (srpt_rdma_cm_port_param) {
		ret = srpt_rdma_cm_listen(&init_net, srpt_rdma_cm_port_param);
		if (ret) {
			pr_err("rdma_cm_port=%u: cannot listen on that port: %d\n",
			       srpt_rdma_cm_port_param, ret);
			goto err_client;
		}
	}

	ret = register_netdevice_notifier(&srpt_netdev_nb);
	if (ret)
		goto err_listen;
	return 0;

err_listen:
	srpt_rdma_cm_unlisten_all();
err_client:
	ib_unregister_client(&srpt_client);
err_template:
	target_unregister_template(&srpt_template);
err_io_wq:
	destroy_workqueue(srpt_io_wq);
err_wq:
	destroy_workqueue(srpt_wq);
	return ret;
}

/*
 * LIO pins the module while configfs objects exist. Listeners go first so
 * that no login races device removal.
 */
static void __exit srpt_cleanup_module(void)
{
	unregister_netdevice_notifier(&srpt_netdev_nb);
	srpt_rdma_cm_unlisten_all();
	ib_unregister_client(&srpt_client);
	target_unregister_template(&srpt_template);
	destroy_workqueue(srpt_wq);	/* releases flush srpt_io_wq's work */
	destroy_workqueue(srpt_io_wq);
}

module_init(srpt_init_module);
module_exit(srpt_cleanup_module);

#if IS_ENABLED(CONFIG_INFINIBAND_SRPT_KUNIT_TEST)
#include "kunit/srpt_desc_kunit.c"
#include "kunit/srpt_login_kunit.c"
#include "kunit/srpt_dm_kunit.c"
#include "kunit/srpt_rsp_kunit.c"
#include "kunit/srpt_name_kunit.c"
#include "kunit/srpt_state_kunit.c"
#include "kunit/srpt_tport_kunit.c"
#include "kunit/srpt_sq_kunit.c"
#include "kunit/srpt_credit_kunit.c"
#include "kunit/srpt_stats_kunit.c"
#include "kunit/srpt_ch_kunit.c"
#include "kunit/srpt_upstream_names_kunit.c"
#include "kunit/srpt_fuzz_kunit.c"
#endif
