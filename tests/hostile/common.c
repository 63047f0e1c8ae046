// SPDX-License-Identifier: GPL-2.0-only
/*
 * hostile: what every case uses. One RDMA/CM connection (struct conn)
 * with its send and receive rings, the SRP IU builders, response matching,
 * the configfs and `rdma resource` views of the target, and the probe
 * (case sanity).
 */
#include "hostile.h"

/* ------------------------------------------------------------------------ */
/* options */

const char *opt_addr = "fd00::1";
const char *opt_port = "5555";
uint8_t opt_tport[16];		/* id_ext || ioc_guid */
uint8_t opt_iport[16];
int opt_timeout = 60;
int opt_lun;
int opt_verbose;
int opt_no_probe;

char failmsg[1024];
const char *cur_case = "?";

int fail(const char *fmt, ...)
{
	va_list ap;

	/* Keep the first failure: it is usually the cause. */
	if (failmsg[0])
		return 1;
	va_start(ap, fmt);
	vsnprintf(failmsg, sizeof(failmsg), fmt, ap);
	va_end(ap);
	return 1;
}

void info(const char *fmt, ...)
{
	va_list ap;

	printf("  %s: ", cur_case);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* ------------------------------------------------------------------------ */
/* one RDMA/CM connection */


void login_defaults(struct login_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->it_iu_len = 4096;
	o->flags = LOGIN_MULTICHAN_MULTI | LOGIN_IMMED_REQUESTED;
	/* Same offset as Linux ib_srp: srp_cmd + 16 add. CDB + srp_imm_buf. */
	o->imm_off = 68;
	o->buf_fmt = SRP_BUF_FORMAT_DIRECT | SRP_BUF_FORMAT_INDIRECT;
}

static int set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* Wait for one CM event on c->ec; copies it to *out, acks it. */
static int get_cm_event(struct conn *c, int timeout_ms, struct rdma_cm_event *out,
			uint8_t *pdata, size_t pdata_sz, int *pdata_len)
{
	struct rdma_cm_event *ev;
	uint64_t end = now_ms() + timeout_ms;

	for (;;) {
		if (rdma_get_cm_event(c->ec, &ev) == 0) {
			*out = *ev;
			if (pdata_len)
				*pdata_len = 0;
			if (pdata && ev->param.conn.private_data &&
			    ev->param.conn.private_data_len) {
				size_t n = ev->param.conn.private_data_len;

				if (n > pdata_sz)
					n = pdata_sz;
				memcpy(pdata, ev->param.conn.private_data, n);
				if (pdata_len)
					*pdata_len = n;
			}
			rdma_ack_cm_event(ev);
			return 0;
		}
		if (errno != EAGAIN)
			return -1;
		int left = (int)(end - now_ms());

		if (left <= 0)
			return -ETIMEDOUT;
		struct pollfd p = { .fd = c->ec->fd, .events = POLLIN };

		poll(&p, 1, left);
	}
}

static void handle_cm_async(struct conn *c, struct rdma_cm_event *ev)
{
	switch (ev->event) {
	case RDMA_CM_EVENT_DISCONNECTED:
		c->disconnected = true;
		break;
	case RDMA_CM_EVENT_TIMEWAIT_EXIT:
		break;
	default:
		c->n_unexpected_cm++;
		dbg("CM event %s", rdma_event_str(ev->event));
		break;
	}
}

static int post_recv_slot(struct conn *c, int slot)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(c->rbuf + (size_t)slot * RSLOT),
		.length = RSLOT,
		.lkey = c->rmr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = slot, .sg_list = &sge, .num_sge = 1 }, *bad;

	return ibv_post_recv(c->qp, &wr, &bad);
}

static void rx_store(struct conn *c, const uint8_t *d, uint32_t len)
{
	if (c->nrx == c->rxcap) {
		c->rxcap = c->rxcap ? 2 * c->rxcap : 64;
		c->rxq = realloc(c->rxq, c->rxcap * sizeof(*c->rxq));
		if (!c->rxq) {
			perror("realloc");
			exit(3);
		}
	}
	struct rx *r = &c->rxq[c->nrx++];

	r->len = len;
	r->seen = false;
	memset(r->d, 0, sizeof(r->d));
	memcpy(r->d, d, len < RX_KEEP ? len : RX_KEEP);
}

/* A received IU: credit bookkeeping, answer target-initiated requests. */
static void handle_iu(struct conn *c, const uint8_t *d, uint32_t len)
{
	if (len >= 8 && (d[0] == SRP_RSP || d[0] == SRP_CRED_REQ || d[0] == SRP_AER_REQ)) {
		c->credits += be32toh(*(const uint32_t *)(d + 4));
		if (c->credits > c->credits_peak)
			c->credits_peak = c->credits;
	}
	if (len >= 16 && (d[0] == SRP_AER_REQ || (d[0] == SRP_CRED_REQ && !c->hold_cred_rsp))) {
		struct srp_short_rsp r = { .opcode = d[0] == SRP_CRED_REQ ?
					   SRP_CRED_RSP : SRP_AER_RSP };

		memcpy(&r.tag, d + 8, 8);
		dbg("target sent %s, answering", d[0] == SRP_CRED_REQ ? "CRED_REQ" : "AER_REQ");
		post_send_raw(c, &r, sizeof(r));
	}
	rx_store(c, d, len);
}

/*
 * Drive the connection for up to timeout_ms: CQ completions and CM events.
 * Returns after the first batch of work or the timeout.
 */
int pump(struct conn *c, int timeout_ms)
{
	struct ibv_wc wc[32];
	int n, i, done = 0;
	struct rdma_cm_event ev;

	for (;;) {
		while ((n = ibv_poll_cq(c->cq, 32, wc)) > 0) {
			for (i = 0; i < n; i++) {
				done++;
				if (wc[i].status != IBV_WC_SUCCESS) {
					if (!c->broken)
						snprintf(c->broken_why, sizeof(c->broken_why),
							 "%s completion: %s",
							 wc[i].opcode & IBV_WC_RECV ? "recv" : "send",
							 ibv_wc_status_str(wc[i].status));
					c->broken = true;
					if (!(wc[i].opcode & IBV_WC_RECV) && c->sout > 0)
						c->sout--;
					continue;
				}
				if (wc[i].opcode & IBV_WC_RECV) {
					int slot = wc[i].wr_id;

					handle_iu(c, c->rbuf + (size_t)slot * RSLOT, wc[i].byte_len);
					if (post_recv_slot(c, slot)) {
						c->broken = true;
						snprintf(c->broken_why, sizeof(c->broken_why),
							 "ibv_post_recv failed");
					}
				} else if (c->sout > 0) {
					c->sout--;
				}
			}
		}
		if (n < 0) {
			c->broken = true;
			snprintf(c->broken_why, sizeof(c->broken_why), "ibv_poll_cq failed");
		}
		while (get_cm_event(c, 0, &ev, NULL, 0, NULL) == 0)
			handle_cm_async(c, &ev), done++;
		if (done || timeout_ms <= 0)
			return done;

		/* Arm and sleep on both channels. */
		ibv_req_notify_cq(c->cq, 0);
		n = ibv_poll_cq(c->cq, 32, wc);
		if (n > 0) {
			/* Something raced in: process it through the loop above. */
			for (i = 0; i < n; i++) {
				done++;
				if (wc[i].status != IBV_WC_SUCCESS) {
					if (!c->broken)
						snprintf(c->broken_why, sizeof(c->broken_why),
							 "completion: %s",
							 ibv_wc_status_str(wc[i].status));
					c->broken = true;
					if (!(wc[i].opcode & IBV_WC_RECV) && c->sout > 0)
						c->sout--;
				} else if (wc[i].opcode & IBV_WC_RECV) {
					handle_iu(c, c->rbuf + (size_t)wc[i].wr_id * RSLOT,
						  wc[i].byte_len);
					post_recv_slot(c, wc[i].wr_id);
				} else if (c->sout > 0) {
					c->sout--;
				}
			}
			return done;
		}
		struct pollfd p[2] = {
			{ .fd = c->cc->fd, .events = POLLIN },
			{ .fd = c->ec->fd, .events = POLLIN },
		};
		uint64_t t0 = now_ms();

		if (poll(p, 2, timeout_ms) <= 0)
			return 0;
		if (p[0].revents & POLLIN) {
			struct ibv_cq *cq;
			void *ctx;

			if (ibv_get_cq_event(c->cc, &cq, &ctx) == 0)
				ibv_ack_cq_events(cq, 1);
		}
		timeout_ms -= (int)(now_ms() - t0);
		if (timeout_ms < 0)
			timeout_ms = 0;
	}
}

/*
 * Does this IU take a request-limit credit? Only SRP_CMD and SRP_TSK_MGMT
 * do (SRP r16a, 5.5.2), also when malformed or too short: the target gives
 * that credit back with a later response. SRP_CRED_RSP and SRP_AER_RSP
 * answer a target request and hold no credit (the Linux initiator sends
 * them without one); SRP_I_LOGOUT ends the channel; IUs a target does not
 * know (and empty ones) are no request at all. None of those consumes a
 * credit, so the target must not give one back for them either.
 */
bool iu_takes_credit(const void *iu, uint32_t len)
{
	const uint8_t *d = iu;

	return len >= 1 && (d[0] == SRP_CMD || d[0] == SRP_TSK_MGMT);
}

int post_send_raw(struct conn *c, const void *iu, uint32_t len)
{
	uint64_t end = now_ms() + 10000;
	bool credit = iu_takes_credit(iu, len);

	if (len > SSLOT)
		len = SSLOT;
	while (c->sout >= c->nsend) {
		if (c->broken || now_ms() > end)
			return -1;
		pump(c, 100);
	}
	int slot = c->snext;
	uint8_t *p = c->sbuf + (size_t)slot * SSLOT;

	c->snext = (c->snext + 1) % c->nsend;
	memcpy(p, iu, len);
	struct ibv_sge sge = { .addr = (uintptr_t)p, .length = len, .lkey = c->smr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = slot,
		.sg_list = &sge,
		.num_sge = len ? 1 : 0,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	if (ibv_post_send(c->qp, &wr, &bad))
		return -1;
	c->sout++;
	if (credit)
		c->credits--;
	return 0;
}

void conn_free(struct conn *c)
{
	if (c->qp)
		rdma_destroy_qp(c->id);
	c->qp = NULL;
	if (c->rmr)
		ibv_dereg_mr(c->rmr);
	if (c->smr)
		ibv_dereg_mr(c->smr);
	if (c->dmr)
		ibv_dereg_mr(c->dmr);
	if (c->cq)
		ibv_destroy_cq(c->cq);
	if (c->cc)
		ibv_destroy_comp_channel(c->cc);
	if (c->pd)
		ibv_dealloc_pd(c->pd);
	if (c->id)
		rdma_destroy_id(c->id);
	if (c->ec)
		rdma_destroy_event_channel(c->ec);
	free(c->rbuf);
	free(c->sbuf);
	free(c->dbuf);
	free(c->rxq);
	memset(c, 0, sizeof(*c));
}

/* Tear down without a disconnect: QP first, so in-flight RDMA finds no QP. */
void conn_abort(struct conn *c)
{
	conn_free(c);
}

void conn_close(struct conn *c)
{
	struct rdma_cm_event ev;

	if (c->established && !c->disconnected) {
		rdma_disconnect(c->id);
		uint64_t end = now_ms() + 3000;

		while (!c->disconnected && now_ms() < end) {
			if (get_cm_event(c, (int)(end - now_ms()), &ev, NULL, 0, NULL))
				break;
			handle_cm_async(c, &ev);
		}
	}
	conn_free(c);
}

/*
 * Resolve, build the QP, post receives, send the login.
 * Returns 1 = logged in, 0 = rejected (*rej = SRP reason, or 0 when the REJ
 * had no SRP_LOGIN_REJ), -1 = error (failmsg set).
 */
int conn_open(struct conn *c, const struct login_opts *o, uint32_t *rej)
{
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST, .ai_socktype = SOCK_STREAM }, *ai;
	struct rdma_cm_event ev;
	uint8_t pd[256];
	int pdlen, i;

	memset(c, 0, sizeof(*c));
	if (rej)
		*rej = 0;
	c->ec = rdma_create_event_channel();
	if (!c->ec)
		return fail("rdma_create_event_channel: %m"), -1;
	set_nonblock(c->ec->fd);
	if (rdma_create_id(c->ec, &c->id, c, RDMA_PS_TCP))
		return fail("rdma_create_id: %m"), -1;
	if (getaddrinfo(opt_addr, opt_port, &hints, &ai))
		return fail("bad address %s", opt_addr), -1;
	if (o->src) {
		struct addrinfo *sa;

		if (getaddrinfo(o->src, NULL, &hints, &sa)) {
			freeaddrinfo(ai);
			return fail("bad source address %s", o->src), -1;
		}
		i = rdma_resolve_addr(c->id, sa->ai_addr, ai->ai_addr, 5000);
		freeaddrinfo(sa);
	} else {
		i = rdma_resolve_addr(c->id, NULL, ai->ai_addr, 5000);
	}
	freeaddrinfo(ai);
	if (i)
		return fail("rdma_resolve_addr: %m"), -1;
	if (get_cm_event(c, 10000, &ev, NULL, 0, NULL) || ev.event != RDMA_CM_EVENT_ADDR_RESOLVED)
		return fail("address resolution failed (%s)", rdma_event_str(ev.event)), -1;
	if (rdma_resolve_route(c->id, 5000))
		return fail("rdma_resolve_route: %m"), -1;
	if (get_cm_event(c, 10000, &ev, NULL, 0, NULL) || ev.event != RDMA_CM_EVENT_ROUTE_RESOLVED)
		return fail("route resolution failed (%s)", rdma_event_str(ev.event)), -1;

	struct ibv_device_attr da;

	if (ibv_query_device(c->id->verbs, &da))
		return fail("ibv_query_device: %m"), -1;
	c->nrecv = o->nrecv ? o->nrecv : 64;
	c->nsend = o->nsend ? o->nsend : 64;
	if (c->nrecv > da.max_qp_wr)
		c->nrecv = da.max_qp_wr;
	if (c->nsend > da.max_qp_wr)
		c->nsend = da.max_qp_wr;

	c->pd = ibv_alloc_pd(c->id->verbs);
	c->cc = ibv_create_comp_channel(c->id->verbs);
	if (!c->pd || !c->cc)
		return fail("pd/comp channel: %m"), -1;
	set_nonblock(c->cc->fd);
	int cqe = c->nrecv + c->nsend + 16;

	if (cqe > da.max_cqe)
		cqe = da.max_cqe;
	c->cq = ibv_create_cq(c->id->verbs, cqe, NULL, c->cc, 0);
	if (!c->cq)
		return fail("ibv_create_cq(%d): %m", cqe), -1;

	struct ibv_qp_init_attr qa = {
		.send_cq = c->cq,
		.recv_cq = c->cq,
		.cap = {
			.max_send_wr = c->nsend,
			.max_recv_wr = c->nrecv,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
		.qp_type = IBV_QPT_RC,
	};

	if (rdma_create_qp(c->id, c->pd, &qa))
		return fail("rdma_create_qp: %m"), -1;
	c->qp = c->id->qp;

	c->rbuf = aligned_alloc(4096, (size_t)c->nrecv * RSLOT);
	c->sbuf = aligned_alloc(4096, (size_t)c->nsend * SSLOT);
	c->dbuf = aligned_alloc(4096, DATA_LEN);
	if (!c->rbuf || !c->sbuf || !c->dbuf)
		return fail("out of memory"), -1;
	memset(c->dbuf, 0xa5, DATA_LEN);
	c->rmr = ibv_reg_mr(c->pd, c->rbuf, (size_t)c->nrecv * RSLOT, IBV_ACCESS_LOCAL_WRITE);
	c->smr = ibv_reg_mr(c->pd, c->sbuf, (size_t)c->nsend * SSLOT, 0);
	c->dmr = ibv_reg_mr(c->pd, c->dbuf, DATA_LEN, IBV_ACCESS_LOCAL_WRITE |
			    IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE);
	if (!c->rmr || !c->smr || !c->dmr)
		return fail("ibv_reg_mr: %m"), -1;
	for (i = 0; i < c->nrecv; i++)
		if (post_recv_slot(c, i))
			return fail("ibv_post_recv: %m"), -1;

	struct srp_login_req_rdma req = {
		.tag = 0x4c4f47494e000001ull,
		.req_buf_fmt = htobe16(o->buf_fmt),
		.req_flags = o->flags,
		.opcode = SRP_LOGIN_REQ,
		.req_it_iu_len = htobe32(o->it_iu_len),
		.imm_data_offset = htobe16(o->imm_off),
	};

	memcpy(req.initiator_port_id, opt_iport, 16);
	memcpy(req.target_port_id, o->tport ? o->tport : opt_tport, 16);
	struct rdma_conn_param cp = {
		.private_data = &req,
		.private_data_len = o->pdata_len < 0 ? 0 : o->pdata_len ? (uint8_t)o->pdata_len :
				    (uint8_t)sizeof(req),
		.responder_resources = o->no_rd ? 0 :
				       da.max_qp_rd_atom < 16 ? da.max_qp_rd_atom : 16,
		.initiator_depth = da.max_qp_init_rd_atom < 16 ? da.max_qp_init_rd_atom : 16,
		.retry_count = 7,
		.rnr_retry_count = 7,
	};

	if (rdma_connect(c->id, &cp))
		return fail("rdma_connect: %m"), -1;
	if (o->no_wait)
		return 1;

	int r = get_cm_event(c, 15000, &ev, pd, sizeof(pd), &pdlen);

	if (r == -ETIMEDOUT)
		return fail("no answer to the login within 15 s"), -1;
	if (r)
		return fail("rdma_get_cm_event: %m"), -1;
	switch (ev.event) {
	case RDMA_CM_EVENT_ESTABLISHED: {
		struct srp_login_rsp rsp;

		if (pdlen < (int)sizeof(rsp))
			return fail("login accepted with %d bytes of private data", pdlen), -1;
		memcpy(&rsp, pd, sizeof(rsp));
		if (rsp.opcode != SRP_LOGIN_RSP)
			return fail("login accepted with opcode 0x%02x", rsp.opcode), -1;
		c->established = true;
		c->credits = be32toh(rsp.req_lim_delta);
		c->credits_peak = c->credits;
		c->max_it = be32toh(rsp.max_it_iu_len);
		c->max_ti = be32toh(rsp.max_ti_iu_len);
		c->rsp_flags = rsp.rsp_flags;
		dbg("logged in: credits %d max_it %u max_ti %u flags 0x%02x",
		    c->credits, c->max_it, c->max_ti, c->rsp_flags);
		if (c->max_ti > RSLOT)
			info("warning: max_ti_iu_len %u > our receive slots (%u)", c->max_ti, RSLOT);
		return 1;
	}
	case RDMA_CM_EVENT_REJECTED: {
		c->rejected = true;
		if (pdlen >= 8 && pd[0] == SRP_LOGIN_REJ) {
			struct srp_login_rej rj;

			memcpy(&rj, pd, sizeof(rj) <= (size_t)pdlen ? sizeof(rj) : (size_t)pdlen);
			if (rej)
				*rej = be32toh(rj.reason);
			dbg("rejected, SRP reason 0x%08x (CM status %d)", be32toh(rj.reason), ev.status);
		} else {
			dbg("rejected without SRP_LOGIN_REJ (CM status %d, %d bytes)", ev.status, pdlen);
		}
		return 0;
	}
	default:
		return fail("login: got CM event %s (status %d)", rdma_event_str(ev.event),
			    ev.status), -1;
	}
}

/* ------------------------------------------------------------------------ */
/* IU builders */

static void put_lun(uint8_t *l, int lun)
{
	memset(l, 0, 8);
	if (lun < 256) {
		l[1] = lun;
	} else {
		l[0] = 0x40 | ((lun >> 8) & 0x3f);
		l[1] = lun & 0xff;
	}
}

size_t build_cmd(uint8_t *iu, uint64_t tag, int lun, const uint8_t *cdb, int cdblen)
{
	struct srp_cmd *cmd = (struct srp_cmd *)iu;

	memset(iu, 0, sizeof(*cmd));
	cmd->opcode = SRP_CMD;
	cmd->tag = tag;
	put_lun(cmd->lun, lun);
	memcpy(cmd->cdb, cdb, cdblen);
	return sizeof(*cmd);
}

struct srp_direct_buf dbuf_desc(struct conn *c, size_t off, uint32_t len)
{
	struct srp_direct_buf d = {
		.va = htobe64((uintptr_t)(c->dbuf + off)),
		.key = htobe32(c->dmr->rkey),
		.len = htobe32(len),
	};
	return d;
}

void cdb_rw10(uint8_t *cdb, uint8_t op, uint32_t lba, uint16_t blocks)
{
	memset(cdb, 0, 16);
	cdb[0] = op;
	cdb[2] = lba >> 24;
	cdb[3] = lba >> 16;
	cdb[4] = lba >> 8;
	cdb[5] = lba;
	cdb[7] = blocks >> 8;
	cdb[8] = blocks;
}

int send_inquiry(struct conn *c, uint64_t tag)
{
	uint8_t iu[128], cdb[6] = { 0x12, 0, 0, 0, 96, 0 };
	size_t n = build_cmd(iu, tag, opt_lun, cdb, 6);
	struct srp_direct_buf d = dbuf_desc(c, 0, 96);

	iu[5] = FMT_DIRECT;	/* data-in direct */
	memcpy(iu + n, &d, sizeof(d));
	return post_send_raw(c, iu, n + sizeof(d));
}

/* READ(10) or WRITE(10) with one direct descriptor at c->dbuf + off. */
int send_rw10(struct conn *c, uint64_t tag, bool write, uint32_t lba, uint16_t blocks,
	      size_t off)
{
	uint8_t iu[128], cdb[16];
	size_t n;
	struct srp_direct_buf d;

	cdb_rw10(cdb, write ? 0x2a : 0x28, lba, blocks);
	n = build_cmd(iu, tag, opt_lun, cdb, 10);
	d = dbuf_desc(c, off, blocks * 512u);
	iu[5] = write ? FMT_DIRECT << 4 : FMT_DIRECT;	/* data-out, data-in */
	memcpy(iu + n, &d, sizeof(d));
	return post_send_raw(c, iu, n + sizeof(d));
}

int send_read10(struct conn *c, uint64_t tag, uint32_t lba, uint16_t blocks, size_t off)
{
	return send_rw10(c, tag, false, lba, blocks, off);
}

int send_write10(struct conn *c, uint64_t tag, uint32_t lba, uint16_t blocks)
{
	return send_rw10(c, tag, true, lba, blocks, 0);
}

int send_tmf(struct conn *c, uint64_t tag, int lun, uint8_t func, uint64_t task_tag)
{
	struct srp_tsk_mgmt t = {
		.opcode = SRP_TSK_MGMT,
		.tag = tag,
		.tsk_mgmt_func = func,
		.task_tag = task_tag,
	};

	put_lun(t.lun, lun);
	return post_send_raw(c, &t, sizeof(t));
}

/* ------------------------------------------------------------------------ */
/* response matching */


void parse_rsp(const struct rx *r, struct rspinfo *ri)
{
	const struct srp_rsp *s = (const void *)r->d;
	uint32_t sl = be32toh(s->sense_data_len), rl = be32toh(s->resp_data_len);
	const uint8_t *data = r->d + sizeof(*s);

	memset(ri, 0, sizeof(*ri));
	ri->len = r->len;
	ri->flags = s->flags;
	ri->status = s->status;
	ri->resp_code = -1;
	ri->do_res = be32toh(s->data_out_res_cnt);
	ri->di_res = be32toh(s->data_in_res_cnt);
	if (!(ri->flags & RSP_FLAG_RSPVALID))
		rl = 0;
	if ((ri->flags & RSP_FLAG_RSPVALID) && rl >= 4 && sizeof(*s) + 4 <= RX_KEEP)
		ri->resp_code = data[3];
	if ((ri->flags & RSP_FLAG_SNSVALID) && sl >= 3 && sizeof(*s) + rl + 14 <= RX_KEEP) {
		const uint8_t *sn = data + rl;

		ri->has_sense = true;
		if ((sn[0] & 0x7f) == 0x72 || (sn[0] & 0x7f) == 0x73) {
			ri->sense_key = sn[1] & 0xf;
			ri->asc = sn[2];
			ri->ascq = sn[3];
		} else {
			ri->sense_key = sn[2] & 0xf;
			ri->asc = sn[12];
			ri->ascq = sn[13];
		}
	}
}

void fmt_rsp(const struct rspinfo *ri, char *b, size_t n)
{
	snprintf(b, n, "status 0x%02x flags 0x%02x%s", ri->status, ri->flags,
		 ri->has_sense ? "" : " (no sense)");
	if (ri->has_sense)
		snprintf(b + strlen(b), n - strlen(b), " sense %x/%02x/%02x",
			 ri->sense_key, ri->asc, ri->ascq);
	if (ri->resp_code >= 0)
		snprintf(b + strlen(b), n - strlen(b), " resp_code 0x%02x", ri->resp_code);
}

int count_rsp(struct conn *c, uint64_t tag)
{
	int i, n = 0;

	for (i = 0; i < c->nrx; i++)
		if (c->rxq[i].d[0] == SRP_RSP && c->rxq[i].len >= 16 &&
		    !memcmp(c->rxq[i].d + 8, &tag, 8))
			n++;
	return n;
}

/* Wait for an SRP_RSP with this tag. 0 = got it, -1 = timeout/broken. */
int wait_rsp(struct conn *c, uint64_t tag, int timeout_ms, struct rspinfo *ri)
{
	uint64_t end = now_ms() + timeout_ms;
	int i;

	for (;;) {
		for (i = 0; i < c->nrx; i++) {
			struct rx *r = &c->rxq[i];

			if (!r->seen && r->d[0] == SRP_RSP && r->len >= sizeof(struct srp_rsp) &&
			    !memcmp(r->d + 8, &tag, 8)) {
				r->seen = true;
				parse_rsp(r, ri);
				return 0;
			}
		}
		if (c->broken || c->disconnected)
			return -1;
		int left = (int)(end - now_ms());

		if (left <= 0)
			return -1;
		pump(c, left);
	}
}

const char *conn_state(struct conn *c)
{
	static char b[200];

	if (c->broken)
		snprintf(b, sizeof(b), "connection broken (%s)", c->broken_why);
	else if (c->disconnected)
		snprintf(b, sizeof(b), "target disconnected");
	else
		snprintf(b, sizeof(b), "no response");
	return b;
}

/* INQUIRY on an open channel must come back GOOD. */
int check_inquiry(struct conn *c, uint64_t tag, const char *what)
{
	struct rspinfo ri;
	char b[160];

	if (send_inquiry(c, tag))
		return fail("%s: could not post INQUIRY (%s)", what, conn_state(c));
	if (wait_rsp(c, tag, 15000, &ri))
		return fail("%s: INQUIRY: %s within 15 s", what, conn_state(c));
	if (ri.status != SAM_GOOD) {
		fmt_rsp(&ri, b, sizeof(b));
		return fail("%s: INQUIRY: expected status 0, got %s", what, b);
	}
	return 0;
}

/* Log in the well-behaved way; failmsg explains a failure. */
int login_ok(struct conn *c, struct login_opts *o)
{
	struct login_opts d;
	uint32_t rej;
	int r;

	if (!o) {
		login_defaults(&d);
		o = &d;
	}
	r = conn_open(c, o, &rej);
	if (r == 0)
		return fail("normal login rejected (reason 0x%08x)", rej);
	return r == 1 ? 0 : 1;
}

/* ------------------------------------------------------------------------ */
/* correct under pressure (issue 10) */

/*
 * Target-side state the cases look at: configfs of the hostile ACL's TPG,
 * and the target's QP of a connection in `rdma resource show qp`.
 */

/* The TPG directory that holds our ACL (0x + initiator port ID). */
int find_tpg_dir(char *out, size_t n)
{
	char pat[256], *p;
	glob_t g;
	int i, r;

	r = snprintf(pat, sizeof(pat), CFS_SRPT "/*/*/acls/0x");
	for (i = 0; i < 16; i++)
		r += snprintf(pat + r, sizeof(pat) - r, "%02x", opt_iport[i]);
	if (glob(pat, 0, NULL, &g) || g.gl_pathc < 1)
		return fail("no ACL %s in configfs", pat);
	snprintf(out, n, "%s", g.gl_pathv[0]);
	globfree(&g);
	p = strrchr(out, '/');		/* .../<tpg>/acls/0x... */
	*p = 0;
	p = strrchr(out, '/');		/* .../<tpg>/acls */
	*p = 0;
	return 0;
}

int read_attr(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "r");
	size_t k;

	if (!f)
		return -1;
	k = fread(buf, 1, n - 1, f);
	fclose(f);
	buf[k] = 0;
	return 0;
}

int write_attr(const char *path, const char *val)
{
	FILE *f = fopen(path, "w");
	int r;

	if (!f)
		return -1;
	r = fputs(val, f) < 0;
	r |= fclose(f) != 0;
	return r ? -1 : 0;
}

/*
 * Is the target's QP of the connection whose initiator QP is our_qpn still
 * there? It is the RC QP whose remote QP number is ours. 1 = yes, 0 = no,
 * -1 = cannot tell (no rdma tool).
 */
int target_qp_alive(uint32_t our_qpn, char *line, size_t n)
{
	FILE *f = popen("rdma resource show qp 2>/dev/null", "r");
	char buf[512];
	int found = 0, lines = 0;

	if (!f)
		return -1;
	while (fgets(buf, sizeof(buf), f)) {
		char *l = strstr(buf, " lqpn "), *rq = strstr(buf, " rqpn ");

		lines++;
		if (!l || !rq)
			continue;
		if (strtoul(rq + 6, NULL, 10) == our_qpn && strtoul(l + 6, NULL, 10) != our_qpn) {
			found = 1;
			if (line)
				snprintf(line, n, "%s", buf);
		}
	}
	if (pclose(f) != 0 && !lines)
		return -1;
	return found;
}

/* Wait until the target's QP of our connection is gone. 0 = gone. */
int wait_target_qp_gone(uint32_t our_qpn, int timeout_ms, const char *what)
{
	uint64_t end = now_ms() + timeout_ms;
	char line[512] = "";
	int a;

	for (;;) {
		a = target_qp_alive(our_qpn, line, sizeof(line));
		if (a < 0)
			return fail("%s: cannot list QPs (rdma resource show qp)", what);
		if (!a)
			return 0;
		if (now_ms() > end)
			break;
		sleep_ms(250);
	}
	line[strcspn(line, "\n")] = 0;
	return fail("%s: the target's QP of this connection still exists after %d s: %s",
		    what, timeout_ms / 1000, line);
}

/*
 * The probe's blocks lie beyond the 16 MiB the cases write to (h_rd makes
 * the LUN 17 MiB): one written once at setup (case probe_seed) and read by
 * every probe, one written and read back by every probe.
 */
#define PROBE_SEED_LBA	32768
#define PROBE_RW_LBA	32776
#define PROBE_BLOCKS	8
#define PROBE_LEN	(PROBE_BLOCKS * 512)

static uint8_t seed_byte(size_t i)
{
	return (uint8_t)(i * 31 + 17) ^ (uint8_t)(i >> 8);
}

/* One READ or WRITE of the probe's size: GOOD, no residual, or fail. */
static int probe_rw(struct conn *c, uint64_t tag, bool write, uint32_t lba, size_t off,
		    const char *what)
{
	struct rspinfo ri;
	char s[160];

	if (send_rw10(c, tag, write, lba, PROBE_BLOCKS, off) || wait_rsp(c, tag, 15000, &ri))
		return fail("%s: %s", what, conn_state(c));
	fmt_rsp(&ri, s, sizeof(s));
	if (ri.status != SAM_GOOD)
		return fail("%s: %s", what, s);
	if (ri.flags & (RSP_FLAG_DOOVER | RSP_FLAG_DOUNDER | RSP_FLAG_DIOVER | RSP_FLAG_DIUNDER))
		return fail("%s: GOOD with a residual (%s, data-out %u, data-in %u)", what, s,
			    ri.do_res, ri.di_res);
	return 0;
}

/* Write the block every probe reads (run once, after setup). */
int case_probe_seed(void)
{
	struct conn c;
	int r;

	if (login_ok(&c, NULL)) {
		conn_free(&c);
		return 1;
	}
	for (size_t i = 0; i < PROBE_LEN; i++)
		c.dbuf[i] = seed_byte(i);
	r = probe_rw(&c, 1, true, PROBE_SEED_LBA, 0, "WRITE(10) of the probe's seed block");
	conn_close(&c);
	return r;
}

/*
 * INQUIRY's standard data: a disk, from LIO, at least 36 bytes. A LUN with
 * no device behind it (qualifier 1 or 3: nothing mapped, or an ACL being
 * re-added) is left to the READ, which fails.
 */
static int probe_inquiry_data(struct conn *c)
{
	const uint8_t *d = c->dbuf;

	if (d[0] >> 5)
		return 0;
	if ((d[0] & 0x1f) != 0 || d[4] + 5 < 36)
		return fail("INQUIRY data: peripheral type 0x%02x, additional length %u",
			    d[0], d[4]);
	if (memcmp(d + 8, "LIO-ORG ", 8))
		return fail("INQUIRY data: vendor '%.8s', expected 'LIO-ORG '", (const char *)d + 8);
	return 0;
}

/* a well-behaved channel: the probe, also usable as a case */
int case_sanity(void)
{
	struct conn c;
	int r, granted;
	size_t i;

	if (login_ok(&c, NULL)) {
		conn_free(&c);
		return 1;
	}
	granted = c.credits;
	memset(c.dbuf, 0, 96);
	r = check_inquiry(&c, 1, "INQUIRY");
	if (!r)
		r = probe_inquiry_data(&c);
	/* A UNIT ATTENTION (e.g. LUN inventory changed) is reported once: retry. */
	for (int k = 0; !r && k < 4; k++) {
		struct rspinfo ri;
		char s[160];

		if (send_read10(&c, 2 + k, 0, 8, 0) || wait_rsp(&c, 2 + k, 15000, &ri)) {
			r = fail("READ(10): %s", conn_state(&c));
			break;
		}
		if (ri.status == SAM_GOOD)
			break;
		fmt_rsp(&ri, s, sizeof(s));
		if (ri.status == SAM_CHECK_CONDITION && ri.sense_key == 0x6 && k < 3) {
			dbg("READ(10): unit attention (%s), retrying", s);
			continue;
		}
		r = fail("READ(10): %s", s);
	}
	/* Data, not only status: the seed block as setup wrote it ... */
	memset(c.dbuf, 0xa5, PROBE_LEN);
	if (!r)
		r = probe_rw(&c, 10, false, PROBE_SEED_LBA, 0, "READ(10) of the seed block");
	for (i = 0; !r && i < PROBE_LEN; i++)
		if (c.dbuf[i] != seed_byte(i))
			r = fail("seed block (LBA %u) differs at byte %zu: 0x%02x, wrote 0x%02x",
				 PROBE_SEED_LBA, i, c.dbuf[i], seed_byte(i));
	/* ... and a fresh pattern written and read back. */
	for (i = 0; i < PROBE_LEN; i++)
		c.dbuf[i] = (uint8_t)random();
	memset(c.dbuf + PROBE_LEN, 0x5a, PROBE_LEN);
	if (!r)
		r = probe_rw(&c, 11, true, PROBE_RW_LBA, 0, "WRITE(10) of the probe block");
	if (!r)
		r = probe_rw(&c, 12, false, PROBE_RW_LBA, PROBE_LEN, "READ(10) of the probe block");
	if (!r && memcmp(c.dbuf, c.dbuf + PROBE_LEN, PROBE_LEN))
		r = fail("probe block (LBA %u) read back differs from what was written",
			 PROBE_RW_LBA);
	/* Each answered command returns exactly the credit it took. */
	if (!r && c.credits != granted)
		r = fail("credits: %d granted at login, %d with nothing outstanding", granted,
			 c.credits);
	conn_close(&c);
	return r;
}
