// SPDX-License-Identifier: GPL-2.0-only
/*
 * srpt_ibcm: a minimal SRP initiator that logs in through the IB CM, for
 * the e2e scenario 79-ib-cm. Everything happens in module init, which
 * fails (and leaves nothing behind) when a step fails; each step is logged
 * as "srpt_ibcm: PASS ..." or "srpt_ibcm: FAIL ...".
 *
 * Parameters: dev (RDMA device, port 1), dgid (32 hex digits), sid (the
 * service ID, 16 hex digits), tport (target port ID, 32 hex digits), iext
 * (initiator extension, 16 hex digits) and mode:
 *   io          log in, WRITE(10) 8 blocks at LBA 64 and READ(10) them back
 *               (direct descriptors, one RDMA READ and one RDMA WRITE by
 *               the target), compare, then DREQ from this side; wait for
 *               the DREP
 *   target-dreq log in, TEST UNIT READY, then wait up to 60 s for the
 *               target's DREQ and answer it; an SRP_T_LOGOUT must have
 *               come before it
 *   reject      log in and expect a consumer-defined REJ carrying an
 *               SRP_LOGIN_REJ with reason @reason
 *   no-listener log in and expect the IB CM's own REJ "invalid service ID"
 *   mra         as io, but answer the REP with an MRA and send the RTU
 *               later, as the Windows (WinOF) SRP initiator does: on
 *               kernels with ib_send_cm_mra() the MRA goes at once and the
 *               RTU 1.5 s later; newer kernels send an MRA only for a
 *               duplicate, so the RTU waits 6 s, past the target's REP
 *               timeout (4.3 s), and the CM answers the resent REP with it
 *
 * RoCE only: the path is built from GID index 0 of port 1 and that
 * netdev's MAC address, so the destination must be on the same device
 * (soft-RoCE loopback, as in the guests).
 */
#include <linux/completion.h>
#include <linux/delay.h>
#if __has_include(<linux/hex.h>)
#include <linux/hex.h>	/* hex2bin(), its own header on newer kernels */
#endif
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_verbs.h>
#include <scsi/scsi_proto.h>
#include <scsi/srp.h>

static char *dev = "rxe0", *dgid, *sid, *tport, *iext = "0000000000000000";
static char *mode = "io";
static uint reason;
module_param(dev, charp, 0444);
module_param(dgid, charp, 0444);
module_param(sid, charp, 0444);
module_param(tport, charp, 0444);
module_param(iext, charp, 0444);
module_param(mode, charp, 0444);
module_param(reason, uint, 0444);
MODULE_PARM_DESC(mode, "io, target-dreq, reject, no-listener or mra");

#define IU_SIZE		512
#define DATA_SIZE	4096
#define NRECV		4
#define TMO		(10 * HZ)

struct ibcm_iu {
	struct ib_cqe cqe;
	void *buf;
	u64 dma;
	size_t len;
	enum dma_data_direction dir;
};

static struct ibcm {
	struct ib_device *ibdev;
	const struct ib_gid_attr *sgid_attr;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp;
	struct ib_cm_id *cm_id;
	struct ibcm_iu req, rsp[NRECV], data;
	struct completion cm_done, dreq_done, drep_done, send_done, recv_done;
	int cm_event;
	int rej_reason;
	u8 cm_priv[IB_CM_REP_PRIVATE_DATA_SIZE];
	int recv_len;
	struct ibcm_iu *recv_iu;
	u32 t_logout_reason;	/* of the last SRP_T_LOGOUT; 0: none came */
	bool failed;
} t;

static void step(bool ok, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	pr_info("srpt_ibcm: %s %pV\n", ok ? "PASS" : "FAIL", &vaf);
	va_end(args);
	if (!ok)
		t.failed = true;
}

static int parse_hex(const char *s, u8 *out, size_t n)
{
	if (!s || strlen(s) != 2 * n)
		return -EINVAL;
	return hex2bin(out, s, n);
}

static int cm_handler(struct ib_cm_id *cm_id, const struct ib_cm_event *ev)
{
	switch (ev->event) {
	case IB_CM_REP_RECEIVED:
		memcpy(t.cm_priv, ev->private_data, IB_CM_REP_PRIVATE_DATA_SIZE);
		fallthrough;
	case IB_CM_REQ_ERROR:
	case IB_CM_REP_ERROR:
		t.cm_event = ev->event;
		complete(&t.cm_done);
		break;
	case IB_CM_REJ_RECEIVED:
		t.cm_event = ev->event;
		t.rej_reason = ev->param.rej_rcvd.reason;
		if (ev->private_data)
			memcpy(t.cm_priv, ev->private_data, IB_CM_REJ_PRIVATE_DATA_SIZE);
		complete(&t.cm_done);
		break;
	case IB_CM_DREQ_RECEIVED:
		ib_send_cm_drep(cm_id, NULL, 0);
		complete(&t.dreq_done);
		break;
	case IB_CM_DREP_RECEIVED:
	case IB_CM_DREQ_ERROR:
		t.cm_event = ev->event;
		complete(&t.drep_done);
		break;
	default:
		break;
	}
	return 0;
}

static void send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	if (wc->status != IB_WC_SUCCESS)
		pr_info("srpt_ibcm: send completion %s\n", ib_wc_status_msg(wc->status));
	complete(&t.send_done);
}

static int post_recv(struct ibcm_iu *iu);

static void recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ibcm_iu *iu = container_of(wc->wr_cqe, struct ibcm_iu, cqe);

	if (wc->status != IB_WC_SUCCESS)
		return;	/* flushed at teardown */
	ib_dma_sync_single_for_cpu(t.ibdev, iu->dma, iu->len, DMA_FROM_DEVICE);
	/* Credit requests need no answer here: one command at a time. */
	if (((u8 *)iu->buf)[0] == SRP_RSP) {
		t.recv_iu = iu;
		t.recv_len = wc->byte_len;
		complete(&t.recv_done);
		return;
	}
	if (((u8 *)iu->buf)[0] == SRP_T_LOGOUT && wc->byte_len >= sizeof(struct srp_t_logout)) {
		const struct srp_t_logout *lo = iu->buf;

		/* Read after the DREQ, which the target sends after this. */
		WRITE_ONCE(t.t_logout_reason, be32_to_cpu(lo->reason) | 1U << 31);
		pr_info("srpt_ibcm: SRP_T_LOGOUT, reason 0x%x\n", be32_to_cpu(lo->reason));
	} else {
		pr_info("srpt_ibcm: ignoring IU opcode 0x%02x\n", ((u8 *)iu->buf)[0]);
	}
	post_recv(iu);
}

static int iu_alloc(struct ibcm_iu *iu, size_t len, enum dma_data_direction dir)
{
	iu->buf = kzalloc(len, GFP_KERNEL);
	if (!iu->buf)
		return -ENOMEM;
	iu->len = len;
	iu->dir = dir;
	iu->dma = ib_dma_map_single(t.ibdev, iu->buf, len, dir);
	if (ib_dma_mapping_error(t.ibdev, iu->dma)) {
		kfree(iu->buf);
		iu->buf = NULL;
		return -ENOMEM;
	}
	return 0;
}

static void iu_free(struct ibcm_iu *iu)
{
	if (!iu->buf)
		return;
	ib_dma_unmap_single(t.ibdev, iu->dma, iu->len, iu->dir);
	kfree(iu->buf);
	iu->buf = NULL;
}

static int post_recv(struct ibcm_iu *iu)
{
	struct ib_sge sge = { iu->dma, iu->len, t.pd->local_dma_lkey };
	struct ib_recv_wr wr = { .wr_cqe = &iu->cqe, .sg_list = &sge, .num_sge = 1 };

	iu->cqe.done = recv_done;
	return ib_post_recv(t.qp, &wr, NULL);
}

static int modify_qp(enum ib_qp_state state)
{
	struct ib_qp_attr attr = { .qp_state = state };
	int mask, ret;

	ret = ib_cm_init_qp_attr(t.cm_id, &attr, &mask);
	if (ret)
		return ret;
	return ib_modify_qp(t.qp, &attr, mask);
}

static void fill_login(struct srp_login_req *req, const u8 *tport_id)
{
	memset(req, 0, sizeof(*req));
	req->opcode = SRP_LOGIN_REQ;
	req->tag = 0x1b;
	req->req_it_iu_len = cpu_to_be32(IU_SIZE);
	req->req_buf_fmt = cpu_to_be16(SRP_BUF_FORMAT_DIRECT);
	req->req_flags = SRP_MULTICHAN_SINGLE;
	WARN_ON_ONCE(hex2bin(req->initiator_port_id, iext, 8));
	memcpy(req->initiator_port_id + 8, &t.sgid_attr->gid.global.interface_id, 8);
	memcpy(req->target_port_id, tport_id, 16);
}

/* Send an SRP_CMD with @cdb and at most one direct descriptor; 0 = GOOD. */
static int scsi_cmd(const u8 *cdb, enum dma_data_direction dir, u64 tag)
{
	struct srp_cmd *cmd = t.req.buf;
	struct srp_direct_buf *desc = (void *)cmd->add_data;
	struct ib_sge sge = { t.req.dma, sizeof(*cmd), t.pd->local_dma_lkey };
	struct ib_send_wr wr = { .wr_cqe = &t.req.cqe, .sg_list = &sge,
				 .num_sge = 1, .opcode = IB_WR_SEND,
				 .send_flags = IB_SEND_SIGNALED };
	struct srp_rsp *rsp;
	int ret;

	memset(cmd, 0, IU_SIZE);
	cmd->opcode = SRP_CMD;
	cmd->tag = tag;
	memcpy(cmd->cdb, cdb, 16);
	if (dir != DMA_NONE) {
		cmd->buf_fmt = dir == DMA_TO_DEVICE ? SRP_DATA_DESC_DIRECT << 4 :
			       SRP_DATA_DESC_DIRECT;
		desc->va = cpu_to_be64(t.data.dma);
		desc->key = cpu_to_be32(t.pd->unsafe_global_rkey);
		desc->len = cpu_to_be32(DATA_SIZE);
		sge.length += sizeof(*desc);
	}
	ib_dma_sync_single_for_device(t.ibdev, t.req.dma, IU_SIZE, DMA_TO_DEVICE);
	reinit_completion(&t.send_done);
	reinit_completion(&t.recv_done);
	t.req.cqe.done = send_done;
	ret = ib_post_send(t.qp, &wr, NULL);
	if (ret)
		return ret;
	if (!wait_for_completion_timeout(&t.send_done, TMO) ||
	    !wait_for_completion_timeout(&t.recv_done, TMO))
		return -ETIMEDOUT;
	rsp = t.recv_iu->buf;
	ret = rsp->tag == tag ? rsp->status : -EPROTO;
	/* The buffer goes back for the next response. */
	post_recv(t.recv_iu);
	return ret;
}

static int login(void)
{
	struct sa_path_rec path = {};
	struct ib_cm_req_param p = {};
	struct srp_login_req req;
	struct ib_qp_attr attr = {};
	u8 tport_id[16], dmac[ETH_ALEN];
	__be64 service_id;
	int ret, i;

	if (parse_hex(dgid, path.dgid.raw, 16) || parse_hex(tport, tport_id, 16) ||
	    parse_hex(sid, (u8 *)&service_id, 8))
		return -EINVAL;
	ret = rdma_read_gid_l2_fields(t.sgid_attr, NULL, dmac);
	if (ret)
		return ret;
	path.rec_type = sa_conv_gid_to_pathrec_type(t.sgid_attr->gid_type);
	path.sgid = t.sgid_attr->gid;
	path.hop_limit = 64;
	path.reversible = 1;
	path.pkey = cpu_to_be16(0xffff);
	path.mtu_selector = IB_SA_EQ;
	path.mtu = IB_MTU_1024;
	path.rate_selector = IB_SA_EQ;
	path.rate = IB_RATE_PORT_CURRENT;
	path.packet_life_time_selector = IB_SA_EQ;
	path.packet_life_time = 14;
	path.roce.route_resolved = true;
	sa_path_set_dmac(&path, dmac);

	attr.qp_state = IB_QPS_INIT;
	attr.port_num = 1;
	attr.qp_access_flags = IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE;
	ret = ib_modify_qp(t.qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (ret)
		return ret;

	fill_login(&req, tport_id);
	p.primary_path = &path;
	p.ppath_sgid_attr = t.sgid_attr;
	p.service_id = service_id;
	p.qp_num = t.qp->qp_num;
	p.qp_type = IB_QPT_RC;
	p.starting_psn = get_random_u32() & 0xffffff;
	p.private_data = &req;
	p.private_data_len = sizeof(req);
	p.responder_resources = 4;
	p.initiator_depth = 4;
	p.remote_cm_response_timeout = 20;
	p.local_cm_response_timeout = 20;
	p.retry_count = 7;
	p.rnr_retry_count = 7;
	p.max_cm_retries = 15;
	p.flow_control = 1;
	ret = ib_send_cm_req(t.cm_id, &p);
	if (ret)
		return ret;
	if (!wait_for_completion_timeout(&t.cm_done, 3 * TMO))
		return -ETIMEDOUT;
	if (t.cm_event != IB_CM_REP_RECEIVED)
		return 1;	/* the caller reads the REJ */

	if (!strcmp(mode, "mra")) {
#ifdef SRPT_IBCM_SEND_MRA
		/* "Wait for me": 4.096 us << 20, about 4 s, then the RTU anyway. */
		ret = ib_send_cm_mra(t.cm_id, 20, NULL, 0);
		step(ret == 0, "MRA sent after the REP (%d)", ret);
		if (ret)
			return ret;
		msleep(1500);
#else
		ret = ib_prepare_cm_mra(t.cm_id);
		step(ret == 0, "MRA prepared for a resent REP (%d)", ret);
		if (ret)
			return ret;
		msleep(6000);
#endif
	}
	ret = modify_qp(IB_QPS_RTR);
	for (i = 0; !ret && i < NRECV; i++)
		ret = post_recv(&t.rsp[i]);
	if (!ret)
		ret = modify_qp(IB_QPS_RTS);
	if (!ret)
		ret = ib_send_cm_rtu(t.cm_id, NULL, 0);
	return ret;
}

static void run(void)
{
	struct srp_login_rsp *lrsp = (void *)t.cm_priv;
	struct srp_login_rej *rej = (void *)t.cm_priv;
	u8 cdb[16] = {};
	int ret, i;

	ret = login();
	if (!strcmp(mode, "reject")) {
		step(ret == 1 && t.cm_event == IB_CM_REJ_RECEIVED &&
		     t.rej_reason == IB_CM_REJ_CONSUMER_DEFINED &&
		     rej->opcode == SRP_LOGIN_REJ && be32_to_cpu(rej->reason) == reason,
		     "login refused: REJ reason %d with SRP_LOGIN_REJ reason 0x%08x (want %d, 0x%08x; login %d, CM event %d, opcode 0x%02x)",
		     t.rej_reason, be32_to_cpu(rej->reason), IB_CM_REJ_CONSUMER_DEFINED,
		     reason, ret, t.cm_event, rej->opcode);
		return;
	}
	if (!strcmp(mode, "no-listener")) {
		step(ret == 1 && t.cm_event == IB_CM_REJ_RECEIVED &&
		     t.rej_reason == IB_CM_REJ_INVALID_SERVICE_ID,
		     "nobody listens: REJ reason %d (want %d, invalid service ID; login %d, CM event %d)",
		     t.rej_reason, IB_CM_REJ_INVALID_SERVICE_ID, ret, t.cm_event);
		return;
	}
	step(ret == 0 && lrsp->opcode == SRP_LOGIN_RSP,
	     "IB CM login: REP with SRP_LOGIN_RSP (login %d, CM event %d, opcode 0x%02x, credits %u, max_ti_iu_len %u)",
	     ret, t.cm_event, lrsp->opcode, be32_to_cpu(lrsp->req_lim_delta),
	     be32_to_cpu(lrsp->max_ti_iu_len));
	if (t.failed)
		return;

	if (!strcmp(mode, "target-dreq")) {
		cdb[0] = TEST_UNIT_READY;
		ret = scsi_cmd(cdb, DMA_NONE, 1);
		step(ret == 0, "TEST UNIT READY: status %d", ret);
		pr_info("srpt_ibcm: logged in, waiting for the target's DREQ\n");
		step(wait_for_completion_timeout(&t.dreq_done, 6 * TMO),
		     "the target sent a DREQ (answered with a DREP)");
		/*
		 * SRP_T_LOGOUT goes first, the DREQ after its completion; the
		 * CQ may be polled a little after the CM event, though.
		 */
		for (i = 0; i < 50 && !READ_ONCE(t.t_logout_reason); i++)
			msleep(20);
		step(READ_ONCE(t.t_logout_reason),
		     "an SRP_T_LOGOUT came before the DREQ (reason 0x%x)",
		     READ_ONCE(t.t_logout_reason) & ~(1U << 31));
		return;
	}

	for (i = 0; i < DATA_SIZE; i++)
		((u8 *)t.data.buf)[i] = (u8)(i * 7 + 3);
	ib_dma_sync_single_for_device(t.ibdev, t.data.dma, DATA_SIZE, DMA_BIDIRECTIONAL);
	cdb[0] = WRITE_10;
	cdb[5] = 64;			/* LBA 64 */
	cdb[8] = DATA_SIZE / 512;	/* 8 blocks */
	ret = scsi_cmd(cdb, DMA_TO_DEVICE, 2);
	step(ret == 0, "WRITE(10) of %d bytes: status %d", DATA_SIZE, ret);
	memset(t.data.buf, 0, DATA_SIZE);
	ib_dma_sync_single_for_device(t.ibdev, t.data.dma, DATA_SIZE, DMA_BIDIRECTIONAL);
	cdb[0] = READ_10;
	ret = scsi_cmd(cdb, DMA_FROM_DEVICE, 3);
	ib_dma_sync_single_for_cpu(t.ibdev, t.data.dma, DATA_SIZE, DMA_BIDIRECTIONAL);
	for (i = 0; i < DATA_SIZE; i++)
		if (((u8 *)t.data.buf)[i] != (u8)(i * 7 + 3))
			break;
	step(ret == 0 && i == DATA_SIZE, "READ(10) back: status %d, data %s at byte %d",
	     ret, i == DATA_SIZE ? "identical" : "differs", i);

	ret = ib_send_cm_dreq(t.cm_id, NULL, 0);
	if (!ret && !wait_for_completion_timeout(&t.drep_done, TMO))
		ret = -ETIMEDOUT;
	step(ret == 0 && t.cm_event == IB_CM_DREP_RECEIVED,
	     "DREQ sent, DREP received (%d, CM event %d)", ret, t.cm_event);
}

/*
 * The device named @dev, referenced: an IB client sees every device as it
 * registers (ib_device_get_by_name() is not exported on newer kernels).
 */
static const char *srpt_ibcm_want;
static struct ib_device *srpt_ibcm_found;

static int srpt_ibcm_add(struct ib_device *d)
{
	if (!srpt_ibcm_found && !strcmp(dev_name(&d->dev), srpt_ibcm_want) &&
	    ib_device_try_get(d))
		srpt_ibcm_found = d;
	return 0;
}

static void srpt_ibcm_remove(struct ib_device *d, void *client_data)
{
}

static struct ib_client srpt_ibcm_client = {
	.name	= "srpt_ibcm",
	.add	= srpt_ibcm_add,
	.remove	= srpt_ibcm_remove,
};

static struct ib_device *srpt_ibcm_get_device(const char *name)
{
	srpt_ibcm_want = name;
	if (ib_register_client(&srpt_ibcm_client))
		return NULL;
	ib_unregister_client(&srpt_ibcm_client);
	return srpt_ibcm_found;
}

static int __init srpt_ibcm_init(void)
{
	struct ib_qp_init_attr qpa = {};
	int ret, i;

	init_completion(&t.cm_done);
	init_completion(&t.dreq_done);
	init_completion(&t.drep_done);
	init_completion(&t.send_done);
	init_completion(&t.recv_done);
	t.ibdev = srpt_ibcm_get_device(dev);
	if (!t.ibdev) {
		pr_info("srpt_ibcm: FAIL no RDMA device %s\n", dev);
		return -ENODEV;
	}
	t.sgid_attr = rdma_get_gid_attr(t.ibdev, 1, 0);
	if (IS_ERR(t.sgid_attr)) {
		ret = PTR_ERR(t.sgid_attr);
		goto put_dev;
	}
	t.pd = ib_alloc_pd(t.ibdev, IB_PD_UNSAFE_GLOBAL_RKEY);
	if (IS_ERR(t.pd)) {
		ret = PTR_ERR(t.pd);
		goto put_gid;
	}
	t.cq = ib_alloc_cq(t.ibdev, NULL, 2 * NRECV + 4, 0, IB_POLL_WORKQUEUE);
	if (IS_ERR(t.cq)) {
		ret = PTR_ERR(t.cq);
		goto free_pd;
	}
	qpa.send_cq = t.cq;
	qpa.recv_cq = t.cq;
	qpa.cap.max_send_wr = 4;
	qpa.cap.max_recv_wr = NRECV;
	qpa.cap.max_send_sge = 1;
	qpa.cap.max_recv_sge = 1;
	qpa.sq_sig_type = IB_SIGNAL_ALL_WR;
	qpa.qp_type = IB_QPT_RC;
	t.qp = ib_create_qp(t.pd, &qpa);
	if (IS_ERR(t.qp)) {
		ret = PTR_ERR(t.qp);
		goto free_cq;
	}
	ret = iu_alloc(&t.req, IU_SIZE, DMA_TO_DEVICE);
	for (i = 0; !ret && i < NRECV; i++)
		ret = iu_alloc(&t.rsp[i], IU_SIZE, DMA_FROM_DEVICE);
	if (!ret)
		ret = iu_alloc(&t.data, DATA_SIZE, DMA_BIDIRECTIONAL);
	if (ret)
		goto free_bufs;
	t.cm_id = ib_create_cm_id(t.ibdev, cm_handler, NULL);
	if (IS_ERR(t.cm_id)) {
		ret = PTR_ERR(t.cm_id);
		goto free_bufs;
	}

	run();
	ret = t.failed ? -EIO : 0;

	/* Waits for the handler; flushes the QP's work before it goes. */
	ib_destroy_cm_id(t.cm_id);
	ib_drain_qp(t.qp);
free_bufs:
	iu_free(&t.data);
	for (i = 0; i < NRECV; i++)
		iu_free(&t.rsp[i]);
	iu_free(&t.req);
	ib_destroy_qp(t.qp);
free_cq:
	ib_free_cq(t.cq);
free_pd:
	ib_dealloc_pd(t.pd);
put_gid:
	rdma_put_gid_attr(t.sgid_attr);
put_dev:
	ib_device_put(t.ibdev);
	if (ret && !t.failed)
		pr_info("srpt_ibcm: FAIL setup: %d\n", ret);
	return ret;
}

/* Everything was released in init: the results are in the log. */
static void __exit srpt_ibcm_exit(void)
{
}

module_init(srpt_ibcm_init);
module_exit(srpt_ibcm_exit);
MODULE_DESCRIPTION("SRP initiator over the IB CM, for ib_srpt's tests");
MODULE_LICENSE("GPL");
