// SPDX-License-Identifier: GPL-2.0-only
/*
 * hostile - a misbehaving SRP initiator for testing an SRP target over the
 * RDMA/CM (soft-RoCE in the test guest).
 *
 *   hostile -a ADDR [-p PORT] -g TARGET_GUID -I INITIATOR_PORT_ID
 *           [-c CASE[,CASE...]] [-t SECONDS] [-L LUN] [-n] [-v] [-l]
 *
 * Every case runs in its own child process on its own connection(s), with a
 * timeout (-t, default 60 s), so a hung target cannot hang the tool. Cases
 * that claim "the target survives" are followed by a probe: a fresh, well
 * behaved login and an INQUIRY. Prints "PASS name" or "FAIL name: ..." per
 * case and a last line "N passed, N failed"; exits 1 on any failure.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <glob.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "srp_wire.h"

#define RSLOT 8192		/* receive slot size: >= any max_ti_iu_len we accept */
#define SSLOT 8192		/* send slot size */
#define DATA_LEN (2u << 20)	/* registered data buffer: 2 MiB */
#define RX_KEEP 512		/* bytes of each received IU kept for inspection */

#define SAM_GOOD 0x00
#define SAM_CHECK_CONDITION 0x02
#define SENSE_ILLEGAL_REQUEST 0x05

/* ------------------------------------------------------------------------ */
/* options */

static const char *opt_addr = "fd00::1";
static const char *opt_port = "5555";
static uint8_t opt_tport[16];		/* id_ext || ioc_guid */
static uint8_t opt_iport[16];
static int opt_timeout = 60;
static int opt_lun;
static int opt_verbose;
static int opt_no_probe;

static char failmsg[1024];
static const char *cur_case = "?";

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...)
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

static void info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void info(const char *fmt, ...)
{
	va_list ap;

	printf("  %s: ", cur_case);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

#define dbg(...) do { if (opt_verbose) info(__VA_ARGS__); } while (0)

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* ------------------------------------------------------------------------ */
/* one RDMA/CM connection */

struct rx {
	uint32_t len;
	bool seen;		/* consumed by a waiter */
	uint8_t d[RX_KEEP];
};

struct conn {
	struct rdma_event_channel *ec;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_comp_channel *cc;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	uint8_t *rbuf, *sbuf, *dbuf;
	struct ibv_mr *rmr, *smr, *dmr;
	int nrecv, nsend;
	int snext, sout;	/* next send slot, sends in flight */
	bool established, disconnected, broken, rejected;
	char broken_why[128];
	int credits;		/* request limit we hold (see post_send_raw) */
	int credits_peak;	/* highest value credits reached after a response */
	bool hold_cred_rsp;	/* leave SRP_CRED_REQs unanswered (credit_overrun) */
	uint32_t max_it, max_ti;
	uint8_t rsp_flags;
	struct rx *rxq;
	int nrx, rxcap;
	int n_unexpected_cm;
};

struct login_opts {
	uint32_t it_iu_len;
	uint8_t flags;
	uint16_t imm_off;
	uint16_t buf_fmt;
	const uint8_t *tport;	/* NULL: the real one */
	int pdata_len;		/* 0: full 56 bytes, < 0: none */
	int nrecv, nsend;	/* 0: defaults */
	bool no_wait;		/* return right after rdma_connect() */
	bool no_rd;		/* grant the target no RDMA READ resources */
	const char *src;	/* source address; NULL: the route's */
};

static void login_defaults(struct login_opts *o)
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

static int post_send_raw(struct conn *c, const void *iu, uint32_t len);

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
static int pump(struct conn *c, int timeout_ms)
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
static bool iu_takes_credit(const void *iu, uint32_t len)
{
	const uint8_t *d = iu;

	return len >= 1 && (d[0] == SRP_CMD || d[0] == SRP_TSK_MGMT);
}

static int post_send_raw(struct conn *c, const void *iu, uint32_t len)
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

static void conn_free(struct conn *c)
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
static void conn_abort(struct conn *c)
{
	conn_free(c);
}

static void conn_close(struct conn *c)
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
static int conn_open(struct conn *c, const struct login_opts *o, uint32_t *rej)
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

static size_t build_cmd(uint8_t *iu, uint64_t tag, int lun, const uint8_t *cdb, int cdblen)
{
	struct srp_cmd *cmd = (struct srp_cmd *)iu;

	memset(iu, 0, sizeof(*cmd));
	cmd->opcode = SRP_CMD;
	cmd->tag = tag;
	put_lun(cmd->lun, lun);
	memcpy(cmd->cdb, cdb, cdblen);
	return sizeof(*cmd);
}

static struct srp_direct_buf dbuf_desc(struct conn *c, size_t off, uint32_t len)
{
	struct srp_direct_buf d = {
		.va = htobe64((uintptr_t)(c->dbuf + off)),
		.key = htobe32(c->dmr->rkey),
		.len = htobe32(len),
	};
	return d;
}

static void cdb_rw10(uint8_t *cdb, uint8_t op, uint32_t lba, uint16_t blocks)
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

static int send_inquiry(struct conn *c, uint64_t tag)
{
	uint8_t iu[128], cdb[6] = { 0x12, 0, 0, 0, 96, 0 };
	size_t n = build_cmd(iu, tag, opt_lun, cdb, 6);
	struct srp_direct_buf d = dbuf_desc(c, 0, 96);

	iu[5] = FMT_DIRECT;	/* data-in direct */
	memcpy(iu + n, &d, sizeof(d));
	return post_send_raw(c, iu, n + sizeof(d));
}

static int send_read10(struct conn *c, uint64_t tag, uint32_t lba, uint16_t blocks, size_t off)
{
	uint8_t iu[128], cdb[16];
	size_t n;
	struct srp_direct_buf d;

	cdb_rw10(cdb, 0x28, lba, blocks);
	n = build_cmd(iu, tag, opt_lun, cdb, 10);
	d = dbuf_desc(c, off, blocks * 512u);
	iu[5] = FMT_DIRECT;
	memcpy(iu + n, &d, sizeof(d));
	return post_send_raw(c, iu, n + sizeof(d));
}

static int send_write10(struct conn *c, uint64_t tag, uint32_t lba, uint16_t blocks)
{
	uint8_t iu[128], cdb[16];
	size_t n;
	struct srp_direct_buf d;

	cdb_rw10(cdb, 0x2a, lba, blocks);
	n = build_cmd(iu, tag, opt_lun, cdb, 10);
	d = dbuf_desc(c, 0, blocks * 512u);
	iu[5] = FMT_DIRECT << 4;	/* data-out direct */
	memcpy(iu + n, &d, sizeof(d));
	return post_send_raw(c, iu, n + sizeof(d));
}

static int send_tmf(struct conn *c, uint64_t tag, int lun, uint8_t func, uint64_t task_tag)
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

struct rspinfo {
	uint8_t flags, status;
	uint8_t sense_key, asc, ascq;
	bool has_sense;
	int resp_code;		/* -1: no response data */
	uint32_t len;
};

static void parse_rsp(const struct rx *r, struct rspinfo *ri)
{
	const struct srp_rsp *s = (const void *)r->d;
	uint32_t sl = be32toh(s->sense_data_len), rl = be32toh(s->resp_data_len);
	const uint8_t *data = r->d + sizeof(*s);

	memset(ri, 0, sizeof(*ri));
	ri->len = r->len;
	ri->flags = s->flags;
	ri->status = s->status;
	ri->resp_code = -1;
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

static void fmt_rsp(const struct rspinfo *ri, char *b, size_t n)
{
	snprintf(b, n, "status 0x%02x flags 0x%02x%s", ri->status, ri->flags,
		 ri->has_sense ? "" : " (no sense)");
	if (ri->has_sense)
		snprintf(b + strlen(b), n - strlen(b), " sense %x/%02x/%02x",
			 ri->sense_key, ri->asc, ri->ascq);
	if (ri->resp_code >= 0)
		snprintf(b + strlen(b), n - strlen(b), " resp_code 0x%02x", ri->resp_code);
}

static int count_rsp(struct conn *c, uint64_t tag)
{
	int i, n = 0;

	for (i = 0; i < c->nrx; i++)
		if (c->rxq[i].d[0] == SRP_RSP && c->rxq[i].len >= 16 &&
		    !memcmp(c->rxq[i].d + 8, &tag, 8))
			n++;
	return n;
}

/* Wait for an SRP_RSP with this tag. 0 = got it, -1 = timeout/broken. */
static int wait_rsp(struct conn *c, uint64_t tag, int timeout_ms, struct rspinfo *ri)
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

static const char *conn_state(struct conn *c)
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
static int check_inquiry(struct conn *c, uint64_t tag, const char *what)
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
static int login_ok(struct conn *c, struct login_opts *o)
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
/* cases */

/* 1, 2, 3: logins */

/* The login must be rejected with an SRP_LOGIN_REJ carrying @want. */
static int expect_rej(struct login_opts *o, uint32_t want)
{
	struct conn c;
	uint32_t rej;
	int r = conn_open(&c, o, &rej);

	if (r < 0) {
		conn_free(&c);
		return 1;
	}
	if (r == 1) {
		conn_close(&c);
		return fail("expected REJ reason 0x%08x, login was accepted", want);
	}
	conn_free(&c);
	info("rejected, SRP reason 0x%08x", rej);
	if (!rej)
		return fail("expected REJ reason 0x%08x, got a CM reject without an SRP_LOGIN_REJ",
			    want);
	if (rej != want)
		return fail("expected REJ reason 0x%08x, got 0x%08x", want, rej);
	return 0;
}

static int case_login_iu_len_0(void)
{
	struct login_opts o;

	login_defaults(&o);
	o.it_iu_len = 0;
	return expect_rej(&o, REJ_UNABLE_ESTABLISH_CHANNEL);
}

static int case_login_iu_len_63(void)
{
	struct login_opts o;

	login_defaults(&o);
	o.it_iu_len = 63;
	return expect_rej(&o, REJ_UNABLE_ESTABLISH_CHANNEL);
}

static int case_login_iu_len_64(void)
{
	struct login_opts o;
	struct conn c;
	int r;

	login_defaults(&o);
	o.it_iu_len = 64;
	o.flags = LOGIN_MULTICHAN_MULTI;	/* immediate data cannot fit in 64 */
	o.imm_off = 0;
	if (login_ok(&c, &o)) {
		conn_free(&c);
		return 1;
	}
	info("accepted: max_it_iu_len %u, credits %d", c.max_it, c.credits);
	r = check_inquiry(&c, 0x64, "after login with it_iu_len 64");
	conn_close(&c);
	return r;
}

static int case_login_iu_len_1M(void)
{
	struct login_opts o;

	login_defaults(&o);
	o.it_iu_len = 1u << 20;
	return expect_rej(&o, REJ_REQ_IT_IU_LENGTH_TOO_LARGE);
}

static int case_login_iu_len_4G(void)
{
	struct login_opts o;

	login_defaults(&o);
	o.it_iu_len = 0xffffffffu;
	return expect_rej(&o, REJ_REQ_IT_IU_LENGTH_TOO_LARGE);
}

static int case_login_wrong_tport(void)
{
	struct login_opts o;
	uint8_t bad[16];
	int i;

	memcpy(bad, opt_tport, 16);
	for (i = 8; i < 16; i++)
		bad[i] ^= 0x5a;		/* wrong ioc_guid, right id_ext */
	login_defaults(&o);
	o.tport = bad;
	return expect_rej(&o, REJ_UNABLE_ASSOCIATE_CHANNEL);
}

/*
 * Only the tag of an SRP_LOGIN_REQ. Over iWARP the target sees 8 bytes,
 * fewer than a login request: srpt_rdma_cm_req_recv() rejects with
 * UNABLE TO ESTABLISH CHANNEL. Over RoCE the IB CM REQ pads them with
 * zeros to 56: opcode 0 is SRP_LOGIN_REQ, and srpt_check_login_req()
 * rejects the it_iu_len of 0 with the same reason. One answer either way.
 */
static int case_login_short_pdata(void)
{
	struct login_opts o;

	login_defaults(&o);
	o.pdata_len = 8;
	return expect_rej(&o, REJ_UNABLE_ESTABLISH_CHANNEL);
}

/*
 * No buffer format the target supports (neither direct nor indirect):
 * srpt_check_login_req() rejects with UNSUPPORTED DESCRIPTOR FORMAT.
 */
static int case_login_no_buf_fmt(void)
{
	struct login_opts o;

	login_defaults(&o);
	o.buf_fmt = 0;
	return expect_rej(&o, REJ_UNSUPPORTED_DESCRIPTOR_FMT);
}

/*
 * 4: credit overrun. An SRP_CMD or SRP_TSK_MGMT that arrives while the
 * initiator holds no credit is discarded by srpt_recv_done(): no response,
 * no credit back, no logout, the channel stays up.
 *
 * The target's request limit must be 0 at a known point, with nothing of
 * ours in flight that could raise it again. The target sends one
 * SRP_CRED_REQ at a time (srpt_cred_work()): while one is unanswered, the
 * credits of the requests it drops as too short stay owed. So: one short
 * SRP_CMD, whose credit comes back in an SRP_CRED_REQ that we leave
 * unanswered; every credit as a short SRP_CMD (limit 0, all owed); then
 * EXCESS INQUIRYs without a credit, all to be discarded. Our SRP_CRED_RSP
 * arrives after all of them (one QP, in order), so the next SRP_CRED_REQ
 * must return exactly the credits of the short SRP_CMDs. Last, with that
 * one unanswered too, every credit once more as a short SRP_CMD: had the
 * discarded IUs cost the target credits, some of these would be discarded
 * too, and the SRP_CRED_REQ after them would return fewer.
 */
static const uint8_t short_cmd[4] = { SRP_CMD, 0, 0, 0 };

/* The second word of a received IU: req_lim_delta, or the logout reason. */
static int32_t rx_word1(const struct rx *x)
{
	uint32_t v;

	memcpy(&v, x->d + 4, 4);
	return (int32_t)be32toh(v);
}

/* Wait for an SRP_CRED_REQ at rxq index >= from: its index, or -1. */
static int wait_cred_req(struct conn *c, int from, int timeout_ms)
{
	uint64_t end = now_ms() + timeout_ms;
	int i;

	for (;;) {
		for (i = from; i < c->nrx; i++)
			if (c->rxq[i].d[0] == SRP_CRED_REQ)
				return i;
		if (c->broken || c->disconnected || now_ms() > end)
			return -1;
		pump(c, 100);
	}
}

static int answer_cred_req(struct conn *c, int i)
{
	struct srp_short_rsp r = { .opcode = SRP_CRED_RSP };

	memcpy(&r.tag, c->rxq[i].d + 8, 8);
	return post_send_raw(c, &r, sizeof(r));
}

/* The IUs received from rxq index from on, for a failure message. */
static const char *rx_list(struct conn *c, int from)
{
	static char b[400];
	size_t n = 0;
	int i;

	b[0] = 0;
	for (i = from; i < c->nrx && n < sizeof(b) - 80; i++) {
		const struct rx *x = &c->rxq[i];
		uint64_t tag;

		memcpy(&tag, x->d + 8, 8);
		if (x->d[0] == SRP_RSP)
			n += snprintf(b + n, sizeof(b) - n, " [SRP_RSP tag 0x%llx status 0x%02x]",
				      (unsigned long long)tag, ((const struct srp_rsp *)x->d)->status);
		else if (x->d[0] == SRP_CRED_REQ)
			n += snprintf(b + n, sizeof(b) - n, " [SRP_CRED_REQ, %d credits]",
				      rx_word1(x));
		else if (x->d[0] == SRP_T_LOGOUT)
			n += snprintf(b + n, sizeof(b) - n, " [SRP_T_LOGOUT reason %d]",
				      rx_word1(x));
		else
			n += snprintf(b + n, sizeof(b) - n, " [op 0x%02x, %u bytes]", x->d[0],
				      x->len);
	}
	if (i < c->nrx)
		snprintf(b + n, sizeof(b) - n, " and %d more", c->nrx - i);
	return b;
}

static int case_credit_overrun(void)
{
	enum { EXCESS = 50, TAG0 = 0x10000 };
	struct login_opts o;
	struct conn c;
	int i, r = 0, granted, held, from;
	uint64_t end;
	int32_t d;

	login_defaults(&o);
	o.nsend = 512;
	o.nrecv = 512;
	if (login_ok(&c, &o)) {
		conn_free(&c);
		return 1;
	}
	granted = c.credits;
	c.hold_cred_rsp = true;

	/* One dropped request; the SRP_CRED_REQ that returns its credit waits. */
	if (post_send_raw(&c, short_cmd, sizeof(short_cmd))) {
		r = fail("could not post a short SRP_CMD: %s", conn_state(&c));
		goto out;
	}
	held = wait_cred_req(&c, 0, 10000);
	if (held < 0) {
		r = fail("no SRP_CRED_REQ within 10 s for a dropped short SRP_CMD (%s)",
			 conn_state(&c));
		goto out;
	}
	if (rx_word1(&c.rxq[held]) != 1) {
		r = fail("the SRP_CRED_REQ for one dropped short SRP_CMD returned %d credits",
			 rx_word1(&c.rxq[held]));
		goto out;
	}

	/* Every credit dropped and owed, then IUs with no credit at all. */
	from = c.nrx;
	for (i = 0; i < granted && !r; i++)
		if (post_send_raw(&c, short_cmd, sizeof(short_cmd)))
			r = fail("could not post short SRP_CMD %d: %s", i, conn_state(&c));
	for (i = 0; i < EXCESS && !r; i++)
		if (send_inquiry(&c, TAG0 + i))
			r = fail("could not post INQUIRY %d beyond the limit: %s", i,
				 conn_state(&c));
	if (r)
		goto out;
	info("granted %d; %d short SRP_CMDs, then %d INQUIRYs beyond the limit (SRP_CRED_REQ unanswered)",
	     granted, granted, EXCESS);
	end = now_ms() + 1500;
	while (now_ms() < end && !c.broken && !c.disconnected && c.nrx == from)
		pump(&c, 100);
	if (c.broken || c.disconnected || c.nrx != from) {
		bool gone = c.broken || c.disconnected;

		r = fail("%d INQUIRYs beyond the request limit: expected them discarded without an answer, got%s%s%s",
			 EXCESS, rx_list(&c, from), gone ? " " : "", gone ? conn_state(&c) : "");
		goto out;
	}

	/* Our SRP_CRED_RSP comes after them all: what the target owes now. */
	from = c.nrx;
	if (answer_cred_req(&c, held)) {
		r = fail("could not post the SRP_CRED_RSP: %s", conn_state(&c));
		goto out;
	}
	held = wait_cred_req(&c, from, 10000);
	if (held < 0) {
		r = fail("no SRP_CRED_REQ within 10 s after the SRP_CRED_RSP (%s)", conn_state(&c));
		goto out;
	}
	d = rx_word1(&c.rxq[held]);
	if (d != granted) {
		r = fail("the SRP_CRED_REQ after the overrun returned %d credits, expected %d: one per dropped short SRP_CMD, none for the %d IUs beyond the limit",
			 d, granted, EXCESS);
		goto out;
	}

	/* Its limit is whole: every credit once more, owed again. */
	from = c.nrx;
	for (i = 0; i < granted && !r; i++)
		if (post_send_raw(&c, short_cmd, sizeof(short_cmd)))
			r = fail("could not post short SRP_CMD %d: %s", i, conn_state(&c));
	if (!r && answer_cred_req(&c, held))
		r = fail("could not post the SRP_CRED_RSP: %s", conn_state(&c));
	if (r)
		goto out;
	held = wait_cred_req(&c, from, 10000);
	if (held < 0) {
		r = fail("no SRP_CRED_REQ within 10 s after the second SRP_CRED_RSP (%s)",
			 conn_state(&c));
		goto out;
	}
	d = rx_word1(&c.rxq[held]);
	if (d != granted) {
		r = fail("after the overrun the target took %d of %d short SRP_CMDs sent with every credit (its SRP_CRED_REQ returned %d): the discarded IUs cost it credits",
			 d, granted, d);
		goto out;
	}
	c.hold_cred_rsp = false;
	if (answer_cred_req(&c, held)) {
		r = fail("could not post the SRP_CRED_RSP: %s", conn_state(&c));
		goto out;
	}

	/*
	 * What came back adds up to what the target took: our count is short
	 * by the EXCESS IUs it discarded, its limit is the one it granted.
	 */
	if (c.credits != granted - EXCESS) {
		r = fail("credits: the req_lim_delta received leave us %d, expected %d (%d granted, %d IUs discarded without a credit)",
			 c.credits, granted - EXCESS, granted, EXCESS);
		goto out;
	}
	c.credits = granted;
	r = check_inquiry(&c, TAG0 + 0x1000, "after the overrun");
	if (!r && c.credits != granted)
		r = fail("credits: %d after an INQUIRY, %d granted", c.credits, granted);
	for (i = 0; i < EXCESS && !r; i++)
		if (count_rsp(&c, TAG0 + i))
			r = fail("INQUIRY 0x%x, sent beyond the request limit, was answered",
				 TAG0 + i);
	if (!r)
		info("%d IUs beyond the limit discarded, no answer, no credit; limit %d intact",
		     EXCESS, granted);
out:
	conn_close(&c);
	return r;
}

/* 5: malformed SRP_CMD, each on its own connection. */

struct badcmd {
	uint8_t iu[SSLOT];
	size_t len;
};

/*
 * Post @b, expect CHECK CONDITION, ILLEGAL REQUEST (with this ASC/ASCQ
 * unless @asc < 0), then a working INQUIRY.
 */
static int expect_sense(struct conn *c, struct badcmd *b, uint64_t tag, int asc, int ascq)
{
	struct rspinfo ri;
	char s[160];

	if (post_send_raw(c, b->iu, b->len))
		return fail("could not post the IU");
	if (wait_rsp(c, tag, 15000, &ri))
		return fail("expected SRP_RSP CHECK CONDITION/ILLEGAL REQUEST, got %s",
			    conn_state(c));
	fmt_rsp(&ri, s, sizeof(s));
	info("got %s", s);
	if (ri.status != SAM_CHECK_CONDITION || !(ri.flags & RSP_FLAG_SNSVALID) ||
	    ri.sense_key != SENSE_ILLEGAL_REQUEST)
		return fail("expected status 0x02 SNSVALID sense key 5, got %s", s);
	if (asc >= 0 && (ri.asc != asc || ri.ascq != ascq))
		return fail("expected sense 5/%02x/%02x, got %s", asc, ascq, s);
	return check_inquiry(c, tag + 1, "follow-up");
}

static int expect_illegal(struct conn *c, struct badcmd *b, uint64_t tag)
{
	return expect_sense(c, b, tag, -1, -1);
}

typedef void (*badbuild)(struct conn *c, struct badcmd *b, uint64_t tag);

static int run_bad(badbuild fn, struct login_opts *lo)
{
	struct login_opts o;
	struct conn c;
	struct badcmd *b = calloc(1, sizeof(*b));
	int r;

	if (!lo) {
		login_defaults(&o);
		lo = &o;
	}
	if (login_ok(&c, lo)) {
		conn_free(&c);
		free(b);
		return 1;
	}
	fn(&c, b, 0xbad0);
	r = expect_illegal(&c, b, 0xbad0);
	conn_close(&c);
	free(b);
	return r;
}

static size_t read10_iu(struct badcmd *b, uint64_t tag, uint16_t blocks)
{
	uint8_t cdb[16];

	cdb_rw10(cdb, 0x28, 0, blocks);
	return build_cmd(b->iu, tag, opt_lun, cdb, 10);
}

static size_t write10_iu(struct badcmd *b, uint64_t tag, uint16_t blocks)
{
	uint8_t cdb[16];

	cdb_rw10(cdb, 0x2a, 0, blocks);
	return build_cmd(b->iu, tag, opt_lun, cdb, 10);
}

/* indirect data-in: count 255, table 255*16, but only one descriptor in the IU */
static void bad_in_desc_cnt(struct conn *c, struct badcmd *b, uint64_t tag)
{
	size_t n = read10_iu(b, tag, 8);
	struct srp_indirect_hdr h = {
		.table_desc = dbuf_desc(c, 1 << 20, 255 * 16),
		.len = htobe32(255 * 4096),
	};
	struct srp_direct_buf d = dbuf_desc(c, 0, 4096);

	memset(c->dbuf + (1 << 20), 0, 255 * 16);
	b->iu[5] = FMT_INDIRECT;
	b->iu[7] = 255;
	memcpy(b->iu + n, &h, sizeof(h));
	memcpy(b->iu + n + sizeof(h), &d, sizeof(d));
	b->len = n + sizeof(h) + sizeof(d);
}

static void bad_out_desc_cnt(struct conn *c, struct badcmd *b, uint64_t tag)
{
	size_t n = write10_iu(b, tag, 8);
	struct srp_indirect_hdr h = {
		.table_desc = dbuf_desc(c, 1 << 20, 255 * 16),
		.len = htobe32(255 * 4096),
	};
	struct srp_direct_buf d = dbuf_desc(c, 0, 4096);

	memset(c->dbuf + (1 << 20), 0, 255 * 16);
	b->iu[5] = FMT_INDIRECT << 4;
	b->iu[6] = 255;
	memcpy(b->iu + n, &h, sizeof(h));
	memcpy(b->iu + n + sizeof(h), &d, sizeof(d));
	b->len = n + sizeof(h) + sizeof(d);
}

/* table length 20: not a multiple of a 16-byte descriptor */
static void bad_table_len_not16(struct conn *c, struct badcmd *b, uint64_t tag)
{
	size_t n = read10_iu(b, tag, 1);
	struct srp_indirect_hdr h = {
		.table_desc = dbuf_desc(c, 1 << 20, 20),
		.len = htobe32(512),
	};
	struct srp_direct_buf d[2] = { dbuf_desc(c, 0, 512), dbuf_desc(c, 512, 0) };

	b->iu[5] = FMT_INDIRECT;
	b->iu[7] = 1;
	memcpy(b->iu + n, &h, sizeof(h));
	memcpy(b->iu + n + sizeof(h), d, sizeof(d));
	b->len = n + sizeof(h) + 20;
}

/* two descriptors whose lengths sum past 2^32 (to 1 modulo 2^32), total 1 */
static void bad_total_overflow(struct conn *c, struct badcmd *b, uint64_t tag)
{
	size_t n = read10_iu(b, tag, 1);
	struct srp_indirect_hdr h = {
		.table_desc = dbuf_desc(c, 1 << 20, 32),
		.len = htobe32(1),
	};
	struct srp_direct_buf d[2] = { dbuf_desc(c, 0, 0x80000001u), dbuf_desc(c, 0, 0x80000000u) };

	b->iu[5] = FMT_INDIRECT;
	b->iu[7] = 2;
	memcpy(b->iu + n, &h, sizeof(h));
	memcpy(b->iu + n + sizeof(h), d, sizeof(d));
	b->len = n + sizeof(h) + sizeof(d);
}

/* total length 4096, descriptors sum to 1024 */
static void bad_total_mismatch(struct conn *c, struct badcmd *b, uint64_t tag)
{
	size_t n = read10_iu(b, tag, 8);
	struct srp_indirect_hdr h = {
		.table_desc = dbuf_desc(c, 1 << 20, 32),
		.len = htobe32(4096),
	};
	struct srp_direct_buf d[2] = { dbuf_desc(c, 0, 512), dbuf_desc(c, 512, 512) };

	b->iu[5] = FMT_INDIRECT;
	b->iu[7] = 2;
	memcpy(b->iu + n, &h, sizeof(h));
	memcpy(b->iu + n + sizeof(h), d, sizeof(d));
	b->len = n + sizeof(h) + sizeof(d);
}

/* immediate data-out: the descriptor says 4096 bytes, the IU carries 512 */
static void bad_imm_len_beyond_iu(struct conn *c, struct badcmd *b, uint64_t tag)
{
	size_t n = write10_iu(b, tag, 8);
	uint32_t len = htobe32(4096);

	(void)c;
	b->iu[5] = FMT_IMM << 4;
	memcpy(b->iu + n, &len, 4);
	b->len = 68 + 512;
}

/* immediate data-out length 0xffffffff: offset + length wraps */
static void bad_imm_len_wrap(struct conn *c, struct badcmd *b, uint64_t tag)
{
	size_t n = write10_iu(b, tag, 1);
	uint32_t len = htobe32(0xffffffffu);

	(void)c;
	b->iu[5] = FMT_IMM << 4;
	memcpy(b->iu + n, &len, 4);
	b->len = 68 + 512;
}

/* immediate data-out, 512 bytes, but the IU ends before the data offset */
static void bad_imm_iu_short(struct conn *c, struct badcmd *b, uint64_t tag)
{
	size_t n = write10_iu(b, tag, 1);
	uint32_t len = htobe32(512);

	(void)c;
	b->iu[5] = FMT_IMM << 4;
	memcpy(b->iu + n, &len, 4);
	b->len = n + 4;
}

static void good_imm_512(struct conn *c, struct badcmd *b, uint64_t tag)
{
	bad_imm_iu_short(c, b, tag);
	b->len = 68 + 512;
}

/* both data-in and data-out direct */
static void bad_bidi(struct conn *c, struct badcmd *b, uint64_t tag)
{
	size_t n = read10_iu(b, tag, 1);
	struct srp_direct_buf d[2] = { dbuf_desc(c, 0, 512), dbuf_desc(c, 4096, 512) };

	b->iu[5] = FMT_DIRECT << 4 | FMT_DIRECT;
	memcpy(b->iu + n, d, sizeof(d));
	b->len = n + sizeof(d);
}

static void bad_fmt_in_5(struct conn *c, struct badcmd *b, uint64_t tag)
{
	size_t n = read10_iu(b, tag, 1);
	struct srp_direct_buf d = dbuf_desc(c, 0, 512);

	b->iu[5] = 0x05;
	memcpy(b->iu + n, &d, sizeof(d));
	b->len = n + sizeof(d);
}

static void bad_fmt_out_f(struct conn *c, struct badcmd *b, uint64_t tag)
{
	size_t n = write10_iu(b, tag, 1);
	struct srp_direct_buf d = dbuf_desc(c, 0, 512);

	b->iu[5] = 0xf0;
	memcpy(b->iu + n, &d, sizeof(d));
	b->len = n + sizeof(d);
}

/* additional CDB length 252 bytes in a 48-byte IU */
static void bad_add_cdb_len(struct conn *c, struct badcmd *b, uint64_t tag)
{
	uint8_t cdb[6] = { 0x12, 0, 0, 0, 96, 0 };

	(void)c;
	b->len = build_cmd(b->iu, tag, opt_lun, cdb, 6);
	b->iu[31] = 0xfc;
}

/* additional CDB length that leaves no room for the data-in descriptor */
static void bad_add_cdb_len_desc(struct conn *c, struct badcmd *b, uint64_t tag)
{
	uint8_t cdb[6] = { 0x12, 0, 0, 0, 96, 0 };
	struct srp_direct_buf d = dbuf_desc(c, 0, 96);
	size_t n = build_cmd(b->iu, tag, opt_lun, cdb, 6);

	b->iu[5] = FMT_DIRECT;
	b->iu[31] = 16;
	memcpy(b->iu + n, &d, sizeof(d));
	b->len = n + sizeof(d);	/* descriptor would start at 64 = end of IU */
}

static int case_cmd_in_desc_cnt_beyond_iu(void) { return run_bad(bad_in_desc_cnt, NULL); }
static int case_cmd_out_desc_cnt_beyond_iu(void) { return run_bad(bad_out_desc_cnt, NULL); }
static int case_cmd_table_len_not_16(void) { return run_bad(bad_table_len_not16, NULL); }
static int case_cmd_total_len_overflow(void) { return run_bad(bad_total_overflow, NULL); }
static int case_cmd_total_len_mismatch(void) { return run_bad(bad_total_mismatch, NULL); }
static int case_cmd_imm_len_beyond_iu(void) { return run_bad(bad_imm_len_beyond_iu, NULL); }
static int case_cmd_imm_len_wrap(void) { return run_bad(bad_imm_len_wrap, NULL); }
static int case_cmd_imm_iu_shorter_than_offset(void) { return run_bad(bad_imm_iu_short, NULL); }
static int case_cmd_both_in_and_out(void) { return run_bad(bad_bidi, NULL); }
static int case_cmd_fmt_in_5(void) { return run_bad(bad_fmt_in_5, NULL); }
static int case_cmd_fmt_out_f(void) { return run_bad(bad_fmt_out_f, NULL); }
static int case_cmd_add_cdb_beyond_iu(void) { return run_bad(bad_add_cdb_len, NULL); }
static int case_cmd_add_cdb_hides_desc(void) { return run_bad(bad_add_cdb_len_desc, NULL); }

/*
 * Login with an immediate data offset far beyond any IU (or inside the
 * header). srpt_imm_data_offset() refuses an offset that cannot work (below
 * the SRP_CMD header and its srp_imm_buf, or not below it_iu_len) by not
 * granting immediate data: the login is accepted without
 * SRP_LOGIN_RSP_IMMED_SUPP. An immediate-data WRITE on that channel is then
 * malformed (srpt_get_desc_tbl(): no negotiated offset) and gets CHECK
 * CONDITION, ILLEGAL REQUEST, 0e/03 (invalid field in command IU).
 */
static int imm_offset_case(uint16_t off)
{
	struct login_opts o;
	struct conn c;
	struct badcmd *b;
	uint32_t rej;
	int r;

	login_defaults(&o);
	o.imm_off = off;
	r = conn_open(&c, &o, &rej);
	if (r < 0) {
		conn_free(&c);
		return 1;
	}
	if (r == 0) {
		conn_free(&c);
		return fail("login with imm_data_offset %u rejected (reason 0x%08x), expected it accepted without immediate data",
			    off, rej);
	}
	info("login with imm_data_offset %u accepted, rsp_flags 0x%02x", off, c.rsp_flags);
	if (c.rsp_flags & LOGIN_RSP_IMMED_SUPP) {
		r = fail("login with imm_data_offset %u granted immediate data (rsp_flags 0x%02x)",
			 off, c.rsp_flags);
		conn_close(&c);
		return r;
	}
	b = calloc(1, sizeof(*b));
	bad_imm_iu_short(&c, b, 0xbad0);
	b->len = 68 + 512;
	r = expect_sense(&c, b, 0xbad0, 0x0e, 0x03);
	free(b);
	conn_close(&c);
	return r;
}

static int case_cmd_imm_offset_beyond_iu(void) { return imm_offset_case(0xfff0); }
static int case_cmd_imm_offset_in_header(void) { return imm_offset_case(8); }

/* sanity: a well-formed immediate-data WRITE works when immediate data was granted */
static int case_cmd_imm_good(void)
{
	struct login_opts o;
	struct conn c;
	struct badcmd *b;
	struct rspinfo ri;
	char s[160];
	int r = 0;

	login_defaults(&o);
	if (login_ok(&c, &o)) {
		conn_free(&c);
		return 1;
	}
	if (!(c.rsp_flags & LOGIN_RSP_IMMED_SUPP)) {
		conn_close(&c);
		return fail("immediate data was asked for and not granted (rsp_flags 0x%02x)",
			    c.rsp_flags);
	}
	b = calloc(1, sizeof(*b));
	good_imm_512(&c, b, 0x600d);
	if (post_send_raw(&c, b->iu, b->len) || wait_rsp(&c, 0x600d, 15000, &ri))
		r = fail("immediate WRITE(10) of 512 bytes: %s", conn_state(&c));
	else if (ri.status != SAM_GOOD) {
		fmt_rsp(&ri, s, sizeof(s));
		r = fail("immediate WRITE(10) of 512 bytes: expected status 0, got %s", s);
	}
	free(b);
	conn_close(&c);
	return r;
}

/* 6: junk IUs that must be ignored */

static int junk_case(const void *iu, size_t len)
{
	struct conn c;
	int r, i, other = 0, granted;
	char seen[256] = "";

	if (login_ok(&c, NULL)) {
		conn_free(&c);
		return 1;
	}
	granted = c.credits;
	if (post_send_raw(&c, iu, len))
		r = fail("could not post the IU");
	else
		r = check_inquiry(&c, 0x1000, "follow-up");
	if (!r) {
		uint64_t end = now_ms() + 1000;

		while (now_ms() < end)
			pump(&c, 200);
		for (i = 0; i < c.nrx; i++) {
			uint64_t t;

			memcpy(&t, c.rxq[i].d + 8, 8);
			if (c.rxq[i].d[0] == SRP_RSP && t == 0x1000)
				continue;
			/* A dropped request's credit may come back this way. */
			if (c.rxq[i].d[0] == SRP_CRED_REQ)
				continue;
			other++;
			snprintf(seen + strlen(seen), sizeof(seen) - strlen(seen),
				 " [op 0x%02x len %u tag 0x%llx]", c.rxq[i].d[0], c.rxq[i].len,
				 (unsigned long long)t);
		}
		if (other)
			r = fail("expected the IU to be ignored, target answered:%s", seen);
	}
	/*
	 * Only an SRP_CMD or SRP_TSK_MGMT (even a short one) takes a credit,
	 * and the target gives a dropped one back with a later response; for
	 * anything else it must give nothing back (see iu_takes_credit()).
	 */
	if (!r && c.credits != granted)
		r = fail("credits: %d granted at login, %d after the %s IU and an answered INQUIRY",
			 granted, c.credits, iu_takes_credit(iu, len) ? "credit-taking" :
			 "credit-free");
	conn_close(&c);
	return r;
}

static int case_iu_short_cmd_4(void)
{
	uint8_t iu[4] = { SRP_CMD, 0, 0, 0 };

	return junk_case(iu, sizeof(iu));
}

static int case_iu_short_tmf_4(void)
{
	uint8_t iu[4] = { SRP_TSK_MGMT, 0, 0, 0 };

	return junk_case(iu, sizeof(iu));
}

/* SRP_T_LOGOUT reason codes (SRP r16a). */
#define LOGOUT_BAD_IU_TYPE	0x02
#define LOGOUT_RSP_WITHOUT_REQ	0x03

/*
 * Wait for the target's SRP_T_LOGOUT: it must carry @reason and be followed
 * by a disconnect the target starts. 0 = as expected.
 */
static int expect_logout(struct conn *c, uint32_t reason, const char *after)
{
	uint64_t end = now_ms() + 15000;
	int i, found = -1;

	while (now_ms() < end && !c->broken) {
		for (i = 0; i < c->nrx && found < 0; i++)
			if (c->rxq[i].d[0] == SRP_T_LOGOUT)
				found = i;
		if (found >= 0 && c->disconnected)
			break;
		pump(c, 200);
	}
	if (found < 0)
		return fail("after %s: expected SRP_T_LOGOUT reason %u, got none (%s)", after,
			    reason, conn_state(c));
	if (be32toh(*(const uint32_t *)(c->rxq[found].d + 4)) != reason)
		return fail("after %s: SRP_T_LOGOUT reason %u, expected %u", after,
			    be32toh(*(const uint32_t *)(c->rxq[found].d + 4)), reason);
	if (!c->disconnected)
		return fail("after %s: SRP_T_LOGOUT reason %u but no disconnect (%s)", after,
			    reason, conn_state(c));
	info("SRP_T_LOGOUT reason %u, then disconnected", reason);
	return 0;
}

/*
 * An IU the target does not accept from an initiator: it logs the initiator
 * out with @reason and gives no credit back for it.
 */
static int logout_case(const void *iu, size_t len, uint32_t reason)
{
	struct conn c;
	int r, granted;

	if (login_ok(&c, NULL)) {
		conn_free(&c);
		return 1;
	}
	granted = c.credits;
	if (post_send_raw(&c, iu, len))
		r = fail("could not post the IU");
	else
		r = expect_logout(&c, reason, "the IU");
	if (!r && c.credits_peak > granted)
		r = fail("credits: %d granted at login, the target raised the limit to %d",
			 granted, c.credits_peak);
	conn_close(&c);
	return r;
}

static int case_iu_empty(void)
{
	return logout_case("", 0, LOGOUT_BAD_IU_TYPE);
}

static int case_iu_unknown_opcode_0x77(void)
{
	uint8_t iu[48] = { 0x77 };
	uint64_t tag = 0x77;

	memcpy(iu + 8, &tag, 8);
	return logout_case(iu, sizeof(iu), LOGOUT_BAD_IU_TYPE);
}

static int case_iu_srp_rsp_from_initiator(void)
{
	struct srp_rsp r = { .opcode = SRP_RSP, .tag = 0xc1, .status = 0 };

	return logout_case(&r, sizeof(r), LOGOUT_BAD_IU_TYPE);
}

static int case_iu_unsolicited_cred_rsp(void)
{
	struct srp_short_rsp r = { .opcode = SRP_CRED_RSP, .tag = 0x41 };

	return logout_case(&r, sizeof(r), LOGOUT_RSP_WITHOUT_REQ);
}

/*
 * cred_req_returns_credits: a well-behaved initiator whose requests are
 * dropped without a response (too short to parse) and that sends nothing
 * else must get those credits back in SRP_CRED_REQs, and answers them.
 */
static int case_cred_req_returns_credits(void)
{
	enum { K = 6 };
	uint8_t iu[4] = { SRP_CMD, 0, 0, 0 };
	uint64_t end;
	struct conn c;
	int i, r = 0, granted, creqs = 0;

	if (login_ok(&c, NULL)) {
		conn_free(&c);
		return 1;
	}
	granted = c.credits;
	for (i = 0; i < K && !r; i++)
		if (post_send_raw(&c, iu, sizeof(iu)))
			r = fail("could not post short SRP_CMD %d", i);
	end = now_ms() + 10000;
	while (!r && c.credits < granted && now_ms() < end && !c.broken && !c.disconnected)
		pump(&c, 200);
	for (i = 0; i < c.nrx; i++)
		creqs += c.rxq[i].d[0] == SRP_CRED_REQ;
	if (!r && c.credits != granted)
		r = fail("request limit %d after %d dropped requests, %d granted at login (%d SRP_CRED_REQ, %s)",
			 c.credits, K, granted, creqs, conn_state(&c));
	if (!r && !creqs)
		r = fail("credits came back without an SRP_CRED_REQ");
	if (!r)
		r = check_inquiry(&c, 0x2000, "after the SRP_CRED_REQs");
	if (!r && c.credits != granted)
		r = fail("request limit %d after an INQUIRY, %d granted", c.credits, granted);
	info("%d dropped requests; %d SRP_CRED_REQ brought the limit back to %d", K, creqs,
	     c.credits);
	conn_close(&c);
	return r;
}

/* 7: task management */

static int tmf_case(int lun, uint8_t func, uint64_t task_tag, int want)
{
	struct conn c;
	struct rspinfo ri;
	char s[160];
	int r;

	if (login_ok(&c, NULL)) {
		conn_free(&c);
		return 1;
	}
	if (send_tmf(&c, 0x7000, lun, func, task_tag) || wait_rsp(&c, 0x7000, 20000, &ri)) {
		r = fail("expected a TMF response, got %s", conn_state(&c));
		conn_close(&c);
		return r;
	}
	fmt_rsp(&ri, s, sizeof(s));
	info("TMF 0x%02x lun %d: %s", func, lun, s);
	if (!(ri.flags & RSP_FLAG_RSPVALID) || ri.resp_code < 0)
		r = fail("expected RSPVALID with response code 0x%02x, got %s", want, s);
	else if (ri.resp_code != want)
		r = fail("expected response code 0x%02x, got 0x%02x (%s)", want, ri.resp_code, s);
	else
		r = check_inquiry(&c, 0x7001, "follow-up");
	conn_close(&c);
	return r;
}

static int case_tmf_abort_unknown_tag(void)
{
	return tmf_case(opt_lun, TMF_ABORT_TASK, 0xdeadbeef, TMF_RSP_COMPLETE);
}

/*
 * TMFs for LUN 200, which the ACL does not map: the target core finds no
 * LUN for them (TMR_LUN_DOES_NOT_EXIST, whatever the function) and
 * srpt_tmr_rsp_code() maps that to SRP_TSK_MGMT_FAILED. Not FUNCTION
 * COMPLETE: nothing was aborted or reset.
 */
static int case_tmf_lun_reset_unknown_lun(void)
{
	return tmf_case(200, TMF_LUN_RESET, 0, TMF_RSP_FAILED);
}

static int case_tmf_abort_task_set_unknown_lun(void)
{
	return tmf_case(200, TMF_ABORT_TASK_SET, 0, TMF_RSP_FAILED);
}

static int case_tmf_abort_unknown_lun(void)
{
	return tmf_case(200, TMF_ABORT_TASK, 0x1234, TMF_RSP_FAILED);
}

static int case_tmf_func_0x80(void)
{
	return tmf_case(opt_lun, 0x80, 0, TMF_RSP_FUNC_NOT_SUPP);
}

/* 8: ABORT TASK racing the command's completion */
static int case_tmf_abort_race(void)
{
	enum { N = 40 };
	struct conn c;
	struct rspinfo ri;
	int i, r = 0, completed = 0, aborted = 0, tmf_ok = 0;
	char s[160];

	if (login_ok(&c, NULL)) {
		conn_free(&c);
		return 1;
	}
	for (i = 0; i < N && !r; i++) {
		uint64_t ct = 0x8000 + i, tt = 0x9000 + i;
		uint16_t blocks = (i % 4 == 0) ? 1 : 64 << (i % 3);

		uint64_t cend = now_ms() + 15000;

		while (c.credits < 2 && !c.broken && !c.disconnected && now_ms() < cend)
			pump(&c, 500);
		if (c.credits < 2) {
			r = fail("round %d: credits not returned (%d left): %s", i, c.credits,
				 conn_state(&c));
			break;
		}
		if (send_read10(&c, ct, i * 8, blocks, 0) || send_tmf(&c, tt, opt_lun,
								  TMF_ABORT_TASK, ct)) {
			r = fail("round %d: could not post (%s)", i, conn_state(&c));
			break;
		}
		if (wait_rsp(&c, tt, 20000, &ri)) {
			r = fail("round %d: no response to ABORT TASK: %s", i, conn_state(&c));
			break;
		}
		fmt_rsp(&ri, s, sizeof(s));
		dbg("round %d: TMF %s", i, s);
		if (ri.resp_code == TMF_RSP_COMPLETE)
			tmf_ok++;
		if (i % 8 == 7) {
			/* also exercise an abort sent before the command */
			uint64_t ct2 = 0x18000 + i, tt2 = 0x19000 + i;

			send_tmf(&c, tt2, opt_lun, TMF_ABORT_TASK, ct2);
			send_read10(&c, ct2, 0, 8, 0);
			if (wait_rsp(&c, tt2, 20000, &ri))
				r = fail("round %d: no response to early ABORT TASK: %s", i,
					 conn_state(&c));
		}
	}
	/*
	 * Bursts: 8 READs of 1 MiB in flight, then an ABORT TASK for each,
	 * newest first, so that some aborts find their command mid-transfer.
	 */
	enum { B = 8, ROUNDS = 6 };
	int bcompleted = 0, baborted = 0;

	for (int k = 0; k < ROUNDS && !r; k++) {
		uint64_t cend = now_ms() + 15000;

		while (c.credits < 2 * B && !c.broken && !c.disconnected && now_ms() < cend)
			pump(&c, 500);
		if (c.credits < 2 * B) {
			r = fail("burst %d: credits not returned (%d left): %s", k, c.credits,
				 conn_state(&c));
			break;
		}
		/* 1 MiB each (all into the first MiB of our buffer): long transfers */
		for (i = 0; i < B; i++)
			send_read10(&c, 0x20000 + k * 16 + i, i * 2048, 2048, 0);
		for (i = B - 1; i >= 0; i--)
			send_tmf(&c, 0x30000 + k * 16 + i, opt_lun, TMF_ABORT_TASK,
				 0x20000 + k * 16 + i);
		for (i = 0; i < B && !r; i++)
			if (wait_rsp(&c, 0x30000 + k * 16 + i, 20000, &ri))
				r = fail("burst %d: no response to ABORT TASK %d: %s", k, i,
					 conn_state(&c));
	}

	/* Stragglers: give the target a moment, then count. */
	uint64_t end = now_ms() + 2000;

	while (now_ms() < end && !c.broken)
		pump(&c, 200);
	for (i = 0; i < N && !r; i++) {
		int nc = count_rsp(&c, 0x8000 + i), nt = count_rsp(&c, 0x9000 + i);

		if (nc > 1)
			r = fail("command 0x%x got %d responses", 0x8000 + i, nc);
		else if (nt != 1)
			r = fail("TMF 0x%x got %d responses", 0x9000 + i, nt);
		nc ? completed++ : aborted++;
	}
	for (int k = 0; k < ROUNDS && !r; k++)
		for (i = 0; i < B && !r; i++) {
			uint64_t ct = 0x20000 + k * 16 + i, tt = 0x30000 + k * 16 + i;
			int nc = count_rsp(&c, ct), nt = count_rsp(&c, tt);

			if (nc > 1)
				r = fail("burst command 0x%llx got %d responses",
					 (unsigned long long)ct, nc);
			else if (nt != 1)
				r = fail("burst TMF 0x%llx got %d responses",
					 (unsigned long long)tt, nt);
			nc ? bcompleted++ : baborted++;
		}
	info("%d rounds: %d commands completed, %d aborted without response, %d TMFs answered COMPLETE",
	     N, completed, aborted, tmf_ok);
	info("%d bursts of %d: %d commands completed, %d aborted without response",
	     ROUNDS, B, bcompleted, baborted);
	if (!r)
		r = check_inquiry(&c, 0xa000, "after the abort storm");
	conn_close(&c);
	return r;
}

/*
 * Task management on a busy LUN: the TMF goes out right behind a channel
 * full of READ(10)s and WRITE(10)s on opt_lun (our own ramdisk), so that
 * it meets commands in every state, from fetching data-out to sending
 * data-in. Commands aborted on the I_T nexus that sent the TMF end
 * without a response (SAM-5 5.6: TAS only concerns other nexuses; LIO
 * sets CMD_T_TAS only for another session, __target_check_io_state());
 * their credits must still come back.
 */
enum { BUSY_N = 32 };
_Static_assert(BUSY_N <= 64, "busy_settle() keeps one bit per command in a u64");

/* Data-out or data-in, 64 KiB to 1 MiB: command k of busy_fill(). */
static bool busy_is_write(int k)
{
	return k % 3 == 2;
}

static uint16_t busy_blocks(int k)
{
	static const uint16_t blocks[] = { 128, 512, 2048, 256 };

	return blocks[k % 4];
}

/*
 * Post n commands, tags tag0 on, back to back: READs land in our buffer
 * (alternately in its first and second MiB), WRITEs send its first MiB.
 * All within the first 16 MiB (the hostile ramdisk's size).
 */
static int busy_fill(struct conn *c, uint64_t tag0, int n)
{
	int k;

	for (k = 0; k < n; k++) {
		uint32_t lba = (k * 2048u) % 30720;
		int r = busy_is_write(k) ?
			send_write10(c, tag0 + k, lba, busy_blocks(k)) :
			send_read10(c, tag0 + k, lba, busy_blocks(k), (k % 2) * (1u << 20));

		if (r)
			return fail("could not post %s %d: %s", busy_is_write(k) ? "WRITE" : "READ",
				    k, conn_state(c));
	}
	return 0;
}

/* Pump until we hold want credits again, or timeout_ms. */
static void wait_credits(struct conn *c, int want, int timeout_ms)
{
	uint64_t end = now_ms() + timeout_ms;

	while (c->credits < want && now_ms() < end && !c->broken && !c->disconnected)
		pump(c, 200);
}

/* The rxq index of the first SRP_RSP with this tag, or -1. */
static int rsp_index(struct conn *c, uint64_t tag)
{
	int i;

	for (i = 0; i < c->nrx; i++)
		if (c->rxq[i].d[0] == SRP_RSP && c->rxq[i].len >= sizeof(struct srp_rsp) &&
		    !memcmp(c->rxq[i].d + 8, &tag, 8))
			return i;
	return -1;
}

/*
 * READ(10)s (tags tag to tag + 3) until one is GOOD; a UNIT ATTENTION is
 * reported once, so a few may come first. *first_ua: -1 if the first
 * READ was GOOD, else ASC << 8 | ASCQ of the first UNIT ATTENTION.
 */
static int read_past_ua(struct conn *c, uint64_t tag, int *first_ua, const char *what)
{
	struct rspinfo ri;
	char s[160];
	int k;

	*first_ua = -1;
	for (k = 0; k < 4; k++) {
		if (send_read10(c, tag + k, 0, 8, 0) || wait_rsp(c, tag + k, 15000, &ri))
			return fail("%s: READ(10): %s", what, conn_state(c));
		if (ri.status == SAM_GOOD)
			return 0;
		fmt_rsp(&ri, s, sizeof(s));
		if (ri.status != SAM_CHECK_CONDITION || ri.sense_key != 0x6)
			return fail("%s: READ(10): expected GOOD or UNIT ATTENTION, got %s", what,
				    s);
		dbg("%s: READ(10): unit attention (%s)", what, s);
		if (*first_ua < 0)
			*first_ua = ri.asc << 8 | ri.ascq;
	}
	return fail("%s: READ(10) still not GOOD after 4 UNIT ATTENTIONs", what);
}

/*
 * After a TMF over busy_fill(n) from tag0: wait until every credit is
 * back (each request ended, with a response or aborted), then check each
 * command: at most one response, and that one GOOD; no response only for
 * commands whose bit is set in may_drop. *dropped counts those. Then the
 * request limit must be exactly what was granted.
 */
static int busy_settle(struct conn *c, int granted, uint64_t tag0, int n, uint64_t may_drop,
		       int *dropped, const char *what)
{
	uint64_t end;
	struct rspinfo ri;
	char s[160];
	int k;

	wait_credits(c, granted, 30000);
	/* A duplicate response would come right behind the first. */
	end = now_ms() + 300;
	while (now_ms() < end && !c->broken && !c->disconnected)
		pump(c, 100);
	*dropped = 0;
	for (k = 0; k < n; k++) {
		uint64_t tag = tag0 + k;
		int nr = count_rsp(c, tag);

		if (nr > 1)
			return fail("%s: command 0x%llx got %d responses", what,
				    (unsigned long long)tag, nr);
		if (!nr) {
			if (!(may_drop & (1ull << k)))
				return fail("%s: %s(10) of %u KiB (tag 0x%llx), not aborted, got no response; %d of %d credits back (%s)",
					    what, busy_is_write(k) ? "WRITE" : "READ",
					    busy_blocks(k) / 2, (unsigned long long)tag,
					    c->credits, granted, conn_state(c));
			(*dropped)++;
			continue;
		}
		if (rsp_index(c, tag) < 0)
			return fail("%s: the response to command 0x%llx is too short", what,
				    (unsigned long long)tag);
		parse_rsp(&c->rxq[rsp_index(c, tag)], &ri);
		if (ri.status != SAM_GOOD) {
			fmt_rsp(&ri, s, sizeof(s));
			return fail("%s: %s(10) of %u KiB (tag 0x%llx): expected GOOD or no response, got %s",
				    what, busy_is_write(k) ? "WRITE" : "READ", busy_blocks(k) / 2,
				    (unsigned long long)tag, s);
		}
	}
	if (c->credits != granted)
		return fail("%s: credits: %d granted at login, %d after every command ended (%d without a response)",
			    what, granted, c->credits, *dropped);
	if (c->credits_peak > granted)
		return fail("%s: request limit peaked at %d, more than the %d granted", what,
			    c->credits_peak, granted);
	return 0;
}

/* How many of the n commands from tag0 were answered before rxq index idx. */
static int answered_before(struct conn *c, uint64_t tag0, int n, int idx)
{
	int k, a = 0;

	for (k = 0; k < n; k++) {
		int i = rsp_index(c, tag0 + k);

		a += i >= 0 && i < idx;
	}
	return a;
}

/* Log in, take pending UNIT ATTENTIONs, size the burst to the credits. */
static int busy_login(struct conn *c, int *granted, int *n, uint64_t tag)
{
	int ua;

	if (login_ok(c, NULL))
		return 1;
	*granted = c->credits;
	if (*granted < 9)
		return fail("only %d credits granted, too few to keep commands in flight",
			    *granted);
	/* The burst and its TMF(s) must fit: a TMF per command at most. */
	*n = *granted / 2 < BUSY_N ? *granted / 2 : BUSY_N;
	return read_past_ua(c, tag, &ua, "before the first burst");
}

/*
 * tmf_busy_all_functions: each task-set TMF for opt_lun right behind
 * BUSY_N commands in flight. The answers (SRP response code):
 *  - ABORT TASK SET, CLEAR TASK SET, CLEAR ACA: LIO implements none of
 *    them (target_tmr_work() answers TMR_TASK_MGMT_FUNCTION_NOT_SUPPORTED),
 *    srpt_tmr_rsp_code() makes that FUNCTION NOT SUPPORTED (0x04). The
 *    commands are untouched: each gets exactly one response, GOOD, and
 *    no UNIT ATTENTION follows.
 *  - LOGICAL UNIT RESET: core_tmr_lun_reset() aborts what has not
 *    completed, waits for it and answers TMR_FUNCTION_COMPLETE: 0x00.
 *    Each command gets GOOD or no response at all (same nexus, so no
 *    TASK ABORTED); the next command sees UNIT ATTENTION 29/03 (BUS
 *    DEVICE RESET FUNCTION OCCURRED, target_tmr_work()).
 * After each burst every credit must be back, none twice; at the end an
 * INQUIRY on the same channel is GOOD.
 */
static int case_tmf_busy_all_functions(void)
{
	static const struct {
		uint8_t func;
		const char *name;
		int want;	/* SRP response code */
		bool reset;	/* aborts commands; leaves UNIT ATTENTION 29/03 */
	} tmfs[] = {
		{ TMF_ABORT_TASK_SET, "ABORT TASK SET", TMF_RSP_FUNC_NOT_SUPP, false },
		{ TMF_CLEAR_TASK_SET, "CLEAR TASK SET", TMF_RSP_FUNC_NOT_SUPP, false },
		{ TMF_LUN_RESET, "LOGICAL UNIT RESET", TMF_RSP_COMPLETE, true },
		{ TMF_CLEAR_ACA, "CLEAR ACA", TMF_RSP_FUNC_NOT_SUPP, false },
	};
	struct conn c;
	struct rspinfo ri;
	int r, f, granted, n, dropped, ua;
	char s[160], what[80];

	r = busy_login(&c, &granted, &n, 0xb9f00);
	for (f = 0; f < (int)(sizeof(tmfs) / sizeof(tmfs[0])) && !r; f++) {
		uint64_t tag0 = 0xb0000 + 0x100 * f, ttag = 0xb8000 + f;

		snprintf(what, sizeof(what), "%s over %d commands", tmfs[f].name, n);
		wait_credits(&c, granted, 15000);
		if (c.credits != granted) {
			r = fail("%s: %d credits before the burst, %d granted: %s", what,
				 c.credits, granted, conn_state(&c));
			break;
		}
		r = busy_fill(&c, tag0, n);
		if (r)
			break;
		if (send_tmf(&c, ttag, opt_lun, tmfs[f].func, 0) ||
		    wait_rsp(&c, ttag, 30000, &ri)) {
			r = fail("%s: no TMF response within 30 s: %s", what, conn_state(&c));
			break;
		}
		fmt_rsp(&ri, s, sizeof(s));
		info("%s: %s, %d commands answered before it", what, s,
		     answered_before(&c, tag0, n, rsp_index(&c, ttag)));
		if (!(ri.flags & RSP_FLAG_RSPVALID) || ri.resp_code != tmfs[f].want) {
			r = fail("%s: expected response code 0x%02x, got %s", what, tmfs[f].want,
				 s);
			break;
		}
		r = busy_settle(&c, granted, tag0, n, tmfs[f].reset ? ~0ull : 0, &dropped, what);
		if (!r && count_rsp(&c, ttag) != 1)
			r = fail("%s: the TMF got %d responses", what, count_rsp(&c, ttag));
		if (r)
			break;
		if (tmfs[f].reset)
			info("%s: %d commands answered GOOD, %d aborted without a response", what,
			     n - dropped, dropped);
		r = read_past_ua(&c, 0xb9000 + 0x10 * f, &ua, what);
		if (!r && tmfs[f].reset && ua < 0)
			r = fail("%s: the next READ(10) was GOOD, expected UNIT ATTENTION 29/03",
				 what);
		else if (!r && tmfs[f].reset && ua != 0x2903)
			r = fail("%s: expected UNIT ATTENTION 29/03 after the reset, got %02x/%02x",
				 what, ua >> 8, ua & 0xff);
		if (!r && !tmfs[f].reset && ua >= 0)
			r = fail("%s: a function not performed left UNIT ATTENTION %02x/%02x", what,
				 ua >> 8, ua & 0xff);
	}
	if (!r)
		r = check_inquiry(&c, 0xbf000, "after the TMFs");
	if (!r && c.credits != granted)
		r = fail("credits: %d granted at login, %d after an INQUIRY", granted, c.credits);
	conn_close(&c);
	return r;
}

/*
 * tmf_abort_task_busy: BUSY_N commands in flight, then an ABORT TASK for
 * each of the last NA posted, newest first, in three rounds. Each ABORT
 * TASK gets exactly one response, FUNCTION COMPLETE (0x00) whether it
 * found its command (core_tmr_abort_task(): TMR_FUNCTION_COMPLETE) or
 * not (TMR_TASK_DOES_NOT_EXIST), both 0x00 in srpt_tmr_rsp_code(). An
 * aborted command gets GOOD or no response; every other command exactly
 * one response, GOOD. Every credit comes back, none twice; an INQUIRY on
 * the same channel is GOOD.
 */
static int case_tmf_abort_task_busy(void)
{
	enum { NA = 8, ROUNDS = 3 };
	struct conn c;
	struct rspinfo ri;
	int r, k, j, granted, n, dropped, total = 0;
	char s[160], what[80];

	r = busy_login(&c, &granted, &n, 0xc9f00);
	for (k = 0; k < ROUNDS && !r; k++) {
		uint64_t tag0 = 0xc0000 + 0x100 * k, ttag0 = 0xc8000 + 0x100 * k;
		uint64_t aborted = 0;
		int na = n / 2 < NA ? n / 2 : NA;

		snprintf(what, sizeof(what), "round %d: ABORT TASK of %d of %d commands", k, na, n);
		wait_credits(&c, granted, 15000);
		if (c.credits != granted) {
			r = fail("%s: %d credits before the burst, %d granted: %s", what,
				 c.credits, granted, conn_state(&c));
			break;
		}
		r = busy_fill(&c, tag0, n);
		for (j = 0; j < na && !r; j++) {
			int victim = n - 1 - j;

			aborted |= 1ull << victim;
			if (send_tmf(&c, ttag0 + j, opt_lun, TMF_ABORT_TASK, tag0 + victim))
				r = fail("%s: could not post ABORT TASK %d: %s", what, j,
					 conn_state(&c));
		}
		for (j = 0; j < na && !r; j++) {
			if (wait_rsp(&c, ttag0 + j, 30000, &ri)) {
				r = fail("%s: no response to ABORT TASK of 0x%llx within 30 s: %s",
					 what, (unsigned long long)(tag0 + n - 1 - j),
					 conn_state(&c));
				break;
			}
			fmt_rsp(&ri, s, sizeof(s));
			dbg("ABORT TASK of 0x%llx: %s", (unsigned long long)(tag0 + n - 1 - j), s);
			if (!(ri.flags & RSP_FLAG_RSPVALID) || ri.resp_code != TMF_RSP_COMPLETE)
				r = fail("%s: ABORT TASK of 0x%llx: expected response code 0x00, got %s",
					 what, (unsigned long long)(tag0 + n - 1 - j), s);
		}
		if (!r)
			r = busy_settle(&c, granted, tag0, n, aborted, &dropped, what);
		for (j = 0; j < na && !r; j++)
			if (count_rsp(&c, ttag0 + j) != 1)
				r = fail("%s: ABORT TASK %d got %d responses", what, j,
					 count_rsp(&c, ttag0 + j));
		if (!r) {
			info("%s: %d aborted without a response, %d completed first", what,
			     dropped, na - dropped);
			total += dropped;
		}
	}
	if (!r)
		r = check_inquiry(&c, 0xcf000, "after the aborts");
	if (!r && c.credits != granted)
		r = fail("credits: %d granted at login, %d after an INQUIRY", granted, c.credits);
	if (!r)
		info("%d commands aborted in %d rounds", total, ROUNDS);
	conn_close(&c);
	return r;
}

static int target_qp_alive(uint32_t our_qpn, char *line, size_t n);
static int wait_target_qp_gone(uint32_t our_qpn, int timeout_ms, const char *what);

/*
 * 9: QP destroyed while the target fetches a 1 MiB data-out: at once, after
 * 5 ms and after 50 ms. Destroying the RDMA/CM ID of the connected QP sends
 * the target a DREQ, and its RDMA READs and responses find no QP: each time
 * the target must close the channel and release it, so that its QP of the
 * connection is gone within 30 s (`rdma resource show qp`). Then a fresh
 * login must work.
 */
static int case_qp_destroy_mid_rdma_read(void)
{
	static const int delay_ms[] = { 0, 5, 50 };
	struct conn c;
	char what[64];
	uint32_t qpn;
	uint64_t t0;
	int k, r;

	for (k = 0; k < (int)(sizeof(delay_ms) / sizeof(delay_ms[0])); k++) {
		if (login_ok(&c, NULL)) {
			conn_free(&c);
			return 1;
		}
		qpn = c.qp->qp_num;
		if (target_qp_alive(qpn, NULL, 0) != 1) {
			conn_close(&c);
			return fail("cannot find the target's QP of this connection (rdma resource show qp)");
		}
		if (send_write10(&c, 0xd000 + k, 0, 2048)) {
			r = fail("could not post the WRITE: %s", conn_state(&c));
			conn_abort(&c);
			return r;
		}
		if (delay_ms[k])
			sleep_ms(delay_ms[k]);
		conn_abort(&c);
		t0 = now_ms();
		snprintf(what, sizeof(what), "QP destroyed %d ms into a 1 MiB WRITE", delay_ms[k]);
		if (wait_target_qp_gone(qpn, 30000, what))
			return 1;
		info("%s: the target's QP was gone after %llu ms", what,
		     (unsigned long long)(now_ms() - t0));
	}
	if (login_ok(&c, NULL)) {
		conn_free(&c);
		return 1;
	}
	r = check_inquiry(&c, 0xd010, "fresh login after the destroyed QPs");
	conn_close(&c);
	return r;
}

/* 10: login/drop storm, some with commands outstanding */
static int case_disconnect_storm(void)
{
	enum { N = 50 };
	struct login_opts o;
	struct conn c;
	int i, ok = 0, failed = 0;

	for (i = 0; i < N; i++) {
		login_defaults(&o);
		o.nrecv = 16;
		o.nsend = 16;
		if (i % 5 == 4) {
			/* drop before the login completes */
			o.no_wait = true;
			if (conn_open(&c, &o, NULL) < 0)
				failed++;
			conn_abort(&c);
			continue;
		}
		failmsg[0] = 0;
		if (login_ok(&c, &o)) {
			failed++;
			info("login %d failed: %s", i, failmsg);
			failmsg[0] = 0;
			conn_free(&c);
			continue;
		}
		ok++;
		switch (i % 5) {
		case 0:
			send_read10(&c, 0xe000 + i, 0, 128, 0);
			send_read10(&c, 0xe100 + i, 128, 128, 65536);
			send_write10(&c, 0xe200 + i, 0, 64);
			conn_abort(&c);
			break;
		case 1:
			conn_close(&c);
			break;
		case 2:
			send_inquiry(&c, 0xe300 + i);
			conn_close(&c);
			break;
		case 3:
			send_write10(&c, 0xe400 + i, 0, 256);
			pump(&c, 10);
			conn_abort(&c);
			break;
		}
	}
	info("%d logins ok, %d failed", ok, failed);
	if (failed)
		return fail("%d of %d logins in the storm failed", failed, N);
	sleep_ms(500);
	return 0;
}

/* 11: SRP_I_LOGOUT */
static int case_i_logout(void)
{
	struct conn c;
	struct srp_i_logout lo = { .opcode = SRP_I_LOGOUT, .tag = 0x1060 };
	uint64_t end;
	int r = 0;

	if (login_ok(&c, NULL)) {
		conn_free(&c);
		return 1;
	}
	if (check_inquiry(&c, 0x1059, "before logout")) {
		conn_close(&c);
		return 1;
	}
	if (post_send_raw(&c, &lo, sizeof(lo)))
		return conn_free(&c), fail("could not post SRP_I_LOGOUT");
	end = now_ms() + 15000;
	while (!c.disconnected && now_ms() < end)
		pump(&c, 500);
	if (!c.disconnected)
		r = fail("expected DISCONNECTED after SRP_I_LOGOUT, %s after 15 s",
			 c.broken ? conn_state(&c) : "channel still open");
	conn_close(&c);
	return r;
}

/* a well-behaved channel: the probe, also usable as a case */
static int case_sanity(void)
{
	struct conn c;
	int r, granted;

	if (login_ok(&c, NULL)) {
		conn_free(&c);
		return 1;
	}
	granted = c.credits;
	r = check_inquiry(&c, 1, "INQUIRY");
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
	/* Each answered command returns exactly the credit it took. */
	if (!r && c.credits != granted)
		r = fail("credits: %d granted at login, %d with nothing outstanding", granted,
			 c.credits);
	conn_close(&c);
	return r;
}

/*
 * The sense of a backstore I/O error: MEDIUM ERROR, HARDWARE ERROR or
 * NOT READY / LOGICAL UNIT COMMUNICATION FAILURE (what LIO reports for a
 * failed block I/O). ILLEGAL REQUEST would mean the command never reached
 * the backstore, e.g. LOGICAL UNIT NOT SUPPORTED for an unmapped LUN.
 */
static bool is_backend_error(const struct rspinfo *ri)
{
	return ri->status == SAM_CHECK_CONDITION && ri->has_sense &&
	       (ri->sense_key == 0x3 || ri->sense_key == 0x4 ||
		(ri->sense_key == 0x2 && ri->asc == 0x08));
}

/* a LUN whose backstore fails I/O (dm-error): CHECK CONDITION, never GOOD or a hang */
static int case_io_error_lun(void)
{
	struct conn c;
	struct rspinfo ri;
	char s[160];
	int r = 0, k;

	if (login_ok(&c, NULL)) {
		conn_free(&c);
		return 1;
	}
	for (k = 0; k < 2 && !r; k++) {
		uint64_t tag = 0xe0 + k;

		if ((k ? send_write10(&c, tag, 0, 8) : send_read10(&c, tag, 0, 8, 0)) ||
		    wait_rsp(&c, tag, 30000, &ri)) {
			r = fail("%s(10): %s", k ? "WRITE" : "READ", conn_state(&c));
			break;
		}
		fmt_rsp(&ri, s, sizeof(s));
		info("%s(10) on the failing LUN: %s", k ? "WRITE" : "READ", s);
		if (!is_backend_error(&ri))
			r = fail("%s(10): expected CHECK CONDITION for a backstore error, got %s",
				 k ? "WRITE" : "READ", s);
	}
	conn_close(&c);
	return r;
}

/*
 * Wait up to 1.5 s for stray responses to an aborted command: none is
 * right (same I_T nexus, so no TASK ABORTED status either), one with a
 * status is a command that completed instead of being aborted.
 */
static int expect_no_rsp(struct conn *c, uint64_t tag, const char *what)
{
	uint64_t end = now_ms() + 1500;
	int n;

	while (now_ms() < end && !c->broken && !c->disconnected)
		pump(c, 200);
	n = count_rsp(c, tag);
	if (n)
		return fail("%s: the aborted command 0x%llx got %d response(s)", what,
			    (unsigned long long)tag, n);
	return 0;
}

/*
 * Send a TMF and check it answers FUNCTION COMPLETE no sooner than
 * min_ms: earlier, the target cannot have waited for the backend to give
 * the command back.
 */
static int tmf_waits(struct conn *c, uint64_t tag, uint8_t func, uint64_t task,
		     int min_ms, const char *what)
{
	struct rspinfo ri;
	uint64_t t0 = now_ms();
	char s[160];

	if (send_tmf(c, tag, opt_lun, func, task) || wait_rsp(c, tag, 30000, &ri))
		return fail("%s: no TMF response within 30 s: %s", what, conn_state(c));
	fmt_rsp(&ri, s, sizeof(s));
	info("%s: TMF answered after %llu ms: %s", what,
	     (unsigned long long)(now_ms() - t0), s);
	if (ri.resp_code != TMF_RSP_COMPLETE)
		return fail("%s: expected FUNCTION COMPLETE, got %s", what, s);
	if (now_ms() - t0 < (uint64_t)min_ms)
		return fail("%s: answered after %llu ms, before the backend could have returned the command",
			    what, (unsigned long long)(now_ms() - t0));
	return 0;
}

/*
 * (-c only) A LUN whose backstore holds every I/O for 2 s (dm-delay):
 * ABORT TASK of a READ and of a WRITE (its data already fetched), then a
 * LOGICAL UNIT RESET over four commands, all while the commands sit in
 * the backend. Each TMF must wait for the backend and answer FUNCTION
 * COMPLETE, the aborted commands get no response, and every credit they
 * held comes back.
 */
static int case_abort_inflight(void)
{
	enum { DELAY_MS = 2000, MIN_MS = 1000 };
	struct conn c;
	int r = 0, k, granted;
	char what[64];

	if (login_ok(&c, NULL)) {
		conn_free(&c);
		return 1;
	}
	granted = c.credits;
	for (k = 0; k < 2 && !r; k++) {
		uint64_t ct = 0xa100 + k;

		snprintf(what, sizeof(what), "ABORT TASK of a %s", k ? "WRITE" : "READ");
		if (k ? send_write10(&c, ct, 64, 8) : send_read10(&c, ct, 64, 8, 0)) {
			r = fail("%s: could not post: %s", what, conn_state(&c));
			break;
		}
		sleep_ms(300);
		r = tmf_waits(&c, 0xa200 + k, TMF_ABORT_TASK, ct, MIN_MS, what);
		if (!r)
			r = expect_no_rsp(&c, ct, what);
	}
	if (!r) {
		for (k = 0; k < 4 && !r; k++)
			if (k & 1 ? send_write10(&c, 0xa300 + k, 128 + 8 * k, 8) :
				    send_read10(&c, 0xa300 + k, 128 + 8 * k, 8, 4096u * k))
				r = fail("LUN RESET: could not post command %d: %s", k, conn_state(&c));
		sleep_ms(300);
		if (!r)
			r = tmf_waits(&c, 0xa400, TMF_LUN_RESET, 0, MIN_MS, "LOGICAL UNIT RESET");
		for (k = 0; k < 4 && !r; k++)
			r = expect_no_rsp(&c, 0xa300 + k, "LOGICAL UNIT RESET");
	}
	if (!r) {
		/*
		 * A LUN RESET over a pending ABORT TASK: the target core drains
		 * the ABORT TASK without a response (TAS is 0), and the credit
		 * of that TMF must still come back. First the unit attention
		 * of the last reset is taken by a READ.
		 */
		struct rspinfo ri;

		for (k = 0; k < 3 && !r; k++) {
			if (send_read10(&c, 0xa5f0 + k, 512, 8, 0) ||
			    wait_rsp(&c, 0xa5f0 + k, 15000, &ri))
				r = fail("READ after the reset: no response: %s", conn_state(&c));
			else if (ri.status == SAM_GOOD)
				break;
		}
		if (!r && k == 3)
			r = fail("READs after the reset keep failing (status 0x%02x)", ri.status);
		if (!r && send_read10(&c, 0xa600, 512, 8, 0))
			r = fail("LUN RESET over a TMF: could not post the READ: %s", conn_state(&c));
		sleep_ms(300);
		if (!r && send_tmf(&c, 0xa700, opt_lun, TMF_ABORT_TASK, 0xa600))
			r = fail("LUN RESET over a TMF: could not post ABORT TASK: %s", conn_state(&c));
		sleep_ms(300);
		if (!r)
			r = tmf_waits(&c, 0xa800, TMF_LUN_RESET, 0, 500,
				      "LOGICAL UNIT RESET over ABORT TASK");
		if (!r)
			r = expect_no_rsp(&c, 0xa600, "LOGICAL UNIT RESET over ABORT TASK");
		if (!r && count_rsp(&c, 0xa700))
			r = fail("the ABORT TASK drained by the LUN RESET got %d response(s), expected none",
				 count_rsp(&c, 0xa700));
	}
	/* The reset leaves a unit attention: the INQUIRY is not affected. */
	if (!r)
		r = check_inquiry(&c, 0xa500, "after the aborts");
	if (!r && c.credits != granted)
		r = fail("credits: %d granted at login, %d after all commands ended (leaked by the aborts)",
			 granted, c.credits);
	if (!r)
		info("TMFs waited for the backend (~%d ms per I/O); %d credits back", DELAY_MS,
		     c.credits);
	conn_close(&c);
	return r;
}

/*
 * (-c only) A LUN whose backstore fails all I/O one second out of two
 * (dm-flakey): for 5 s every READ and WRITE must end in GOOD or CHECK
 * CONDITION, each within 30 s, and both must be seen.
 */
static int case_io_flakey_lun(void)
{
	struct conn c;
	struct rspinfo ri;
	char s[160];
	int r = 0, good = 0, cc = 0, n = 0;
	uint64_t end;

	if (login_ok(&c, NULL)) {
		conn_free(&c);
		return 1;
	}
	end = now_ms() + 5000;
	while (now_ms() < end && !r) {
		uint64_t tag = 0xf000 + n;
		bool wr = n & 1;

		if ((wr ? send_write10(&c, tag, 8 * (n % 64), 8) :
			  send_read10(&c, tag, 8 * (n % 64), 8, 0)) ||
		    wait_rsp(&c, tag, 30000, &ri)) {
			r = fail("%s %d: %s", wr ? "WRITE" : "READ", n, conn_state(&c));
			break;
		}
		n++;
		if (ri.status == SAM_GOOD) {
			good++;
		} else if (is_backend_error(&ri)) {
			cc++;
		} else {
			fmt_rsp(&ri, s, sizeof(s));
			r = fail("%s: expected GOOD or CHECK CONDITION for a backstore error, got %s",
				 wr ? "WRITE" : "READ", s);
		}
		sleep_ms(50);
	}
	info("%d commands on the flaky LUN: %d GOOD, %d CHECK CONDITION", n, good, cc);
	if (!r && (!good || !cc))
		r = fail("expected both GOOD and CHECK CONDITION from a flaky backstore");
	if (!r)
		r = check_inquiry(&c, 0xf800, "after the flaky I/O");
	conn_close(&c);
	return r;
}

/* ------------------------------------------------------------------------ */
/* correct under pressure (issue 10) */

/*
 * Target-side state the cases look at: configfs of the hostile ACL's TPG,
 * and the target's QP of a connection in `rdma resource show qp`.
 */
#define CFS_SRPT "/sys/kernel/config/target/srpt"

/* The TPG directory that holds our ACL (0x + initiator port ID). */
static int find_tpg_dir(char *out, size_t n)
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

static int read_attr(const char *path, char *buf, size_t n)
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

static int write_attr(const char *path, const char *val)
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
static int target_qp_alive(uint32_t our_qpn, char *line, size_t n)
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
static int wait_target_qp_gone(uint32_t our_qpn, int timeout_ms, const char *what)
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
 * credit_last_resend: keep every credit busy. Each response hands back the
 * credit its command took; the next command goes out with it at once, so
 * the target receives it right after posting the response, maybe before
 * that response's send completed. A target that counts its send contexts
 * by credits must then still have one for the new command.
 */
static int case_credit_last_resend(void)
{
	enum { TOTAL = 3000, LOST_MS = 5000 };
	struct login_opts o;
	struct conn c;
	uint64_t *sent_at;
	int granted, sent = 0, done = 0, bad = 0, scan = 0, r = 0, lost = 0, i;
	uint64_t t0, last_progress;
	char s[160];

	login_defaults(&o);
	o.nrecv = 512;
	o.nsend = 512;
	if (login_ok(&c, &o)) {
		conn_free(&c);
		return 1;
	}
	granted = c.credits;
	sent_at = calloc(TOTAL, sizeof(*sent_at));
	if (!sent_at)
		return conn_close(&c), fail("out of memory");
	info("granted %d credits; %d commands, each sent with the credit a response returned",
	     granted, TOTAL);
	t0 = now_ms();
	last_progress = t0;
	for (;;) {
		/* Send with every credit we hold. */
		while (c.credits > 0 && sent < TOTAL) {
			int k = sent;
			uint64_t tag = 0x100000 + k;

			if (k & 1 ? send_inquiry(&c, tag) :
				    send_read10(&c, tag, (k * 8) % 32768, 8, (k % 256) * 4096u)) {
				r = fail("could not post command %d: %s", k, conn_state(&c));
				goto out;
			}
			sent_at[k] = now_ms();
			sent++;
		}
		if (c.credits_peak > granted) {
			r = fail("request limit %d exceeds the %d granted at login",
				 c.credits_peak, granted);
			goto out;
		}
		/* Account for what arrived. */
		for (; scan < c.nrx; scan++) {
			struct rx *x = &c.rxq[scan];
			uint64_t tag;
			struct rspinfo ri;

			if (x->d[0] != SRP_RSP || x->len < sizeof(struct srp_rsp))
				continue;
			memcpy(&tag, x->d + 8, 8);
			if (tag < 0x100000 || tag >= 0x100000 + (uint64_t)sent ||
			    !sent_at[tag - 0x100000]) {
				r = fail("response for a tag never sent or answered twice: 0x%llx",
					 (unsigned long long)tag);
				goto out;
			}
			sent_at[tag - 0x100000] = 0;
			done++;
			last_progress = now_ms();
			parse_rsp(x, &ri);
			/* A unit attention (LUN inventory changed) is fine once. */
			if (ri.status != SAM_GOOD && !(ri.status == SAM_CHECK_CONDITION &&
						       ri.sense_key == 0x6 && !bad++)) {
				fmt_rsp(&ri, s, sizeof(s));
				r = fail("command 0x%llx: expected GOOD, got %s",
					 (unsigned long long)tag, s);
				goto out;
			}
		}
		if (done == TOTAL)
			break;
		/* Commands without a response for LOST_MS are lost. */
		for (i = 0, lost = 0; i < sent; i++)
			if (sent_at[i] && now_ms() - sent_at[i] > LOST_MS)
				lost++;
		if (lost && (c.credits <= 0 || sent == TOTAL)) {
			if (now_ms() - last_progress > LOST_MS)
				break;
		}
		if (c.broken || c.disconnected) {
			r = fail("after %d of %d responses: %s", done, sent, conn_state(&c));
			goto out;
		}
		if (now_ms() - last_progress > 30000)
			break;
		pump(&c, 200);
	}
	for (i = 0, lost = 0; i < sent; i++)
		lost += sent_at[i] != 0;
	info("%d commands sent, %d answered, %d lost, %.1f s; request limit peak %d",
	     sent, done, lost, (now_ms() - t0) / 1000.0, c.credits_peak);
	if (lost) {
		for (i = 0; i < sent && !sent_at[i]; i++)
			;
		r = fail("%d of %d commands got no response within %d s (first: tag 0x%x)",
			 lost, sent, LOST_MS / 1000, 0x100000 + i);
	} else if (sent < TOTAL) {
		r = fail("only %d of %d commands sent: credits did not come back (%d held)",
			 sent, TOTAL, c.credits);
	} else if (c.credits != granted) {
		r = fail("credits: %d granted at login, %d with nothing outstanding",
			 granted, c.credits);
	}
out:
	free(sent_at);
	conn_close(&c);
	return r;
}

/*
 * sq_full_tmf_badcmd: the smallest send queue the target allows, filled
 * with 1 MiB READs (each needs many RDMA WRITE work requests). Responses
 * that find no room in the send queue must wait for room, not vanish:
 * TMF responses and the CHECK CONDITIONs of commands rejected before they
 * reach a backstore included.
 */
static char sq_attr[320];

static void sq_restore(void)
{
	char tpg[256], val[32];

	/* The child saved the old value next to the attribute's path. */
	if (read_attr("/tmp/hostile.srp_sq_size.orig", val, sizeof(val)))
		return;
	if (!sq_attr[0] && !find_tpg_dir(tpg, sizeof(tpg)))
		snprintf(sq_attr, sizeof(sq_attr), "%s/attrib/srp_sq_size", tpg);
	failmsg[0] = 0;
	if (write_attr(sq_attr, val))
		printf("  sq_full_tmf_badcmd: could not restore %s to %s\n", sq_attr, val);
	else
		unlink("/tmp/hostile.srp_sq_size.orig");
}

/*
 * READs with every credit but `keep`: every fourth 1 MiB (16 RDMA WRITE
 * work requests and the SEND at 16 SGEs per request), the others 4 KiB
 * (one RDMA WRITE and the SEND), so that the small ones fill the send
 * queue to the brim around the big ones. All land in our buffer.
 */
static int fill_reads(struct conn *c, uint64_t tag0, int keep, int *n)
{
	*n = 0;
	while (c->credits > keep) {
		int k = *n;
		int r = k % 4 ? send_read10(c, tag0 + k, (k * 8) % 32768, 8, (k % 256) * 4096u) :
				send_read10(c, tag0 + k, (k * 2048) % 30720, 2048, 0);

		if (r)
			return fail("could not post READ %d: %s", k, conn_state(c));
		(*n)++;
	}
	return 0;
}

/* Wait until every tag in tags[] has a response or timeout. */
static int wait_all(struct conn *c, const uint64_t *tags, int n, int timeout_ms)
{
	uint64_t end = now_ms() + timeout_ms;
	int i, missing;

	for (;;) {
		for (i = 0, missing = 0; i < n; i++)
			missing += !count_rsp(c, tags[i]);
		if (!missing || now_ms() > end || c->broken || c->disconnected)
			return missing;
		pump(c, 200);
	}
}

static int case_sq_full_tmf_badcmd(void)
{
	enum { NR = 200 };
	struct login_opts o;
	struct conn c, c2;
	char tpg[256], val[32], s[160];
	uint64_t tags[NR + 8];
	const char *names[NR + 8];
	struct badcmd *b;
	struct rspinfo ri;
	int nreads, n = 0, i, r = 0, granted, missing;
	uint32_t qpn;
	FILE *f;

	if (find_tpg_dir(tpg, sizeof(tpg)))
		return 1;
	snprintf(sq_attr, sizeof(sq_attr), "%s/attrib/srp_sq_size", tpg);
	if (read_attr(sq_attr, val, sizeof(val)))
		return fail("cannot read %s", sq_attr);
	f = fopen("/tmp/hostile.srp_sq_size.orig", "wx");
	if (f) {
		fputs(val, f);
		fclose(f);
	}
	if (write_attr(sq_attr, "16"))
		return fail("cannot set %s to 16 (the minimum)", sq_attr);
	info("srp_sq_size 16 (was %.*s)", (int)strcspn(val, "\n"), val);

	login_defaults(&o);
	o.nrecv = 512;
	o.nsend = 512;
	if (login_ok(&c, &o)) {
		conn_free(&c);
		return 1;
	}
	granted = c.credits;
	qpn = c.qp->qp_num;
	b = calloc(1, sizeof(*b));

	/*
	 * Phase 1: groups of 12 READs (see fill_reads()), each followed by a
	 * TMF or a bad command, so that some of those find the send queue
	 * full; the rest of the credits as READs too.
	 */
	nreads = 0;
	for (int g = 0; c.credits > 13 + 4 && n < NR - 16; g++) {
		int k;

		for (k = 0; k < 12; k++, nreads++) {
			int rr = nreads % 6 ?
				 send_read10(&c, 0x40000 + nreads, (nreads * 8) % 32768, 8,
					     (nreads % 256) * 4096u) :
				 send_read10(&c, 0x40000 + nreads, (nreads * 2048) % 30720,
					     2048, 0);

			if (rr) {
				fail("could not post READ %d: %s", nreads, conn_state(&c));
				goto out;
			}
			tags[n] = 0x40000 + nreads;
			names[n++] = nreads % 6 ? "4 KiB READ" : "1 MiB READ";
		}
		tags[n] = 0x50000 + 16 * g + g % 4;
		switch (g % 4) {
		case 0:
			send_tmf(&c, tags[n], opt_lun, TMF_ABORT_TASK, 0xdead0000 + g);
			names[n++] = "ABORT TASK (unknown tag)";
			break;
		case 1: {
			uint8_t cdb[16];
			size_t k2;
			struct srp_direct_buf d = dbuf_desc(&c, 0, 512);

			cdb_rw10(cdb, 0x28, 0, 1);
			k2 = build_cmd(b->iu, tags[n], 7, cdb, 10);
			b->iu[5] = FMT_DIRECT;
			memcpy(b->iu + k2, &d, sizeof(d));
			post_send_raw(&c, b->iu, k2 + sizeof(d));
			names[n++] = "READ(10) to unmapped LUN 7";
			break;
		}
		case 2:
			bad_total_overflow(&c, b, tags[n]);
			post_send_raw(&c, b->iu, b->len);
			names[n++] = "READ(10) with a malformed indirect descriptor";
			break;
		case 3:
			send_tmf(&c, tags[n], 7, TMF_LUN_RESET, 0);
			names[n++] = "LOGICAL UNIT RESET of unmapped LUN 7";
			break;
		}
	}
	{
		int more;

		if (fill_reads(&c, 0x48000, 0, &more))
			goto out;
		for (i = 0; i < more && n < NR + 8; i++) {
			tags[n] = 0x48000 + i;
			names[n++] = i % 4 ? "4 KiB READ" : "1 MiB READ";
		}
		nreads += more;
	}
	info("phase 1: %d READs (1 MiB and 4 KiB), %d TMFs and bad commands among them",
	     nreads, n - nreads);
	missing = wait_all(&c, tags, n, 60000);
	if (missing) {
		for (i = 0; i < n && count_rsp(&c, tags[i]); i++)
			;
		r = fail("phase 1: %d of %d IUs got no response within 60 s, e.g. %s (tag 0x%llx)%s%s",
			 missing, n, names[i], (unsigned long long)tags[i],
			 c.broken || c.disconnected ? ": " : "",
			 c.broken || c.disconnected ? conn_state(&c) : "");
		goto out;
	}
	for (i = 0; i < n && !r; i++) {
		struct rx *x = NULL;
		int k;

		if (count_rsp(&c, tags[i]) != 1) {
			r = fail("%s (tag 0x%llx) got %d responses", names[i],
				 (unsigned long long)tags[i], count_rsp(&c, tags[i]));
			break;
		}
		for (k = 0; k < c.nrx; k++)
			if (c.rxq[k].d[0] == SRP_RSP && !memcmp(c.rxq[k].d + 8, &tags[i], 8))
				x = &c.rxq[k];
		parse_rsp(x, &ri);
		fmt_rsp(&ri, s, sizeof(s));
		if (tags[i] < 0x50000) {
			if (ri.status != SAM_GOOD && !(ri.status == SAM_CHECK_CONDITION &&
						       ri.sense_key == 0x6))
				r = fail("%s (tag 0x%llx): expected GOOD, got %s", names[i],
					 (unsigned long long)tags[i], s);
			continue;
		}
		dbg("%s: %s", names[i], s);
		switch (tags[i] & 3) {
		case 0:		/* ABORT TASK */
		case 3:		/* LUN RESET, LUN 7 */
			if (!(ri.flags & RSP_FLAG_RSPVALID))
				r = fail("%s: expected a TMF response (RSPVALID), got %s",
					 names[i], s);
			else if ((tags[i] & 3) == 0 && ri.resp_code != TMF_RSP_COMPLETE)
				r = fail("%s: expected FUNCTION COMPLETE, got %s", names[i], s);
			break;
		default:	/* bad commands */
			if (ri.status != SAM_CHECK_CONDITION ||
			    ri.sense_key != SENSE_ILLEGAL_REQUEST)
				r = fail("%s: expected CHECK CONDITION, ILLEGAL REQUEST, got %s",
					 names[i], s);
			break;
		}
	}
	if (r)
		goto out;
	info("phase 1: all %d IUs answered once, as expected", n);

	/* Phase 2: reads everywhere again, then a LOGICAL UNIT RESET of LUN 0. */
	{
		uint64_t end = now_ms() + 15000;

		while (c.credits < granted && now_ms() < end && !c.broken)
			pump(&c, 200);
	}
	if (fill_reads(&c, 0x60000, 1, &nreads))
		goto out;
	send_tmf(&c, 0x70001, opt_lun, TMF_LUN_RESET, 0);
	info("phase 2: %d READs of 1 MiB, LOGICAL UNIT RESET of LUN %d", nreads, opt_lun);
	if (wait_rsp(&c, 0x70001, 60000, &ri)) {
		r = fail("phase 2: LOGICAL UNIT RESET with a full send queue: %s within 60 s",
			 conn_state(&c));
		goto out;
	}
	fmt_rsp(&ri, s, sizeof(s));
	info("LOGICAL UNIT RESET: %s", s);
	if (!(ri.flags & RSP_FLAG_RSPVALID) || ri.resp_code != TMF_RSP_COMPLETE) {
		r = fail("LOGICAL UNIT RESET: expected FUNCTION COMPLETE, got %s", s);
		goto out;
	}
	/*
	 * The reset may abort reads (no response); none may get two. Wait
	 * until the responses stop coming (3 s quiet, at most 30 s).
	 */
	{
		uint64_t end = now_ms() + 30000, quiet = now_ms() + 3000;
		int answered = 0, seen = c.nrx;

		while (now_ms() < end && now_ms() < quiet && !c.broken && !c.disconnected &&
		       c.credits < granted) {
			pump(&c, 500);
			if (c.nrx != seen) {
				seen = c.nrx;
				quiet = now_ms() + 3000;
			}
		}
		for (i = 0; i < nreads; i++)
			answered += count_rsp(&c, 0x60000 + i) > 0;
		for (i = 0; i < nreads; i++)
			if (count_rsp(&c, 0x60000 + i) > 1) {
				r = fail("phase 2: READ 0x%x got %d responses", 0x60000 + i,
					 count_rsp(&c, 0x60000 + i));
				goto out;
			}
		info("phase 2: %d of %d READs answered, the others aborted by the reset",
		     answered, nreads);
	}
	/* Credits of aborted reads come back with the next response. */
	r = check_inquiry(&c, 0x70002, "after the LOGICAL UNIT RESET");
	if (!r && c.credits != granted)
		r = fail("credits: %d granted at login, %d after every IU ended", granted,
			 c.credits);
	if (!r && c.credits_peak > granted)
		r = fail("request limit peaked at %d, more than the %d granted", c.credits_peak,
			 granted);
	if (r)
		goto out;

	/* Disconnect: the target must tear the channel down, then log in again. */
	conn_close(&c);
	if (wait_target_qp_gone(qpn, 30000, "after disconnecting")) {
		free(b);
		return 1;
	}
	if (login_ok(&c2, &o)) {
		conn_free(&c2);
		free(b);
		return 1;
	}
	r = check_inquiry(&c2, 0x70003, "fresh login with srp_sq_size 16");
	conn_close(&c2);
	free(b);
	return r;
out:
	free(b);
	conn_close(&c);
	return 1;
}

/*
 * cmd_huge_data_len: data descriptors far larger than the target's
 * srp_max_rdma_size (512 MiB against 16 MiB by default) must be refused
 * with CHECK CONDITION, ILLEGAL REQUEST, before anything is allocated or
 * transferred; the CDBs ask for one block. A 1 MiB command still works.
 */
static int huge_cmd(struct conn *c, uint64_t tag, bool write, uint32_t len, const char *what)
{
	uint8_t iu[128], cdb[16];
	struct srp_direct_buf d = dbuf_desc(c, 0, len);
	struct rspinfo ri;
	uint64_t t0 = now_ms();
	char s[160];
	size_t n;

	cdb_rw10(cdb, write ? 0x2a : 0x28, 0, 1);
	n = build_cmd(iu, tag, opt_lun, cdb, 10);
	iu[5] = write ? FMT_DIRECT << 4 : FMT_DIRECT;
	memcpy(iu + n, &d, sizeof(d));
	if (post_send_raw(c, iu, n + sizeof(d)))
		return fail("%s: could not post (%s)", what, conn_state(c));
	if (wait_rsp(c, tag, 15000, &ri))
		return fail("%s: %s within 15 s", what, conn_state(c));
	fmt_rsp(&ri, s, sizeof(s));
	info("%s: %s after %llu ms", what, s, (unsigned long long)(now_ms() - t0));
	if (ri.status != SAM_CHECK_CONDITION || !(ri.flags & RSP_FLAG_SNSVALID) ||
	    ri.sense_key != SENSE_ILLEGAL_REQUEST)
		return fail("%s: expected CHECK CONDITION, ILLEGAL REQUEST, got %s", what, s);
	return 0;
}

static int case_cmd_huge_data_len(void)
{
	struct conn c;
	struct rspinfo ri;
	char tpg[256], path[320], val[32], s[160];
	unsigned long max = 0;
	int r = 0, k;

	if (!find_tpg_dir(tpg, sizeof(tpg))) {
		snprintf(path, sizeof(path), "%s/attrib/srp_max_rdma_size", tpg);
		if (!read_attr(path, val, sizeof(val)))
			max = strtoul(val, NULL, 0);
	}
	failmsg[0] = 0;
	if (login_ok(&c, NULL)) {
		conn_free(&c);
		return 1;
	}
	r = huge_cmd(&c, 0xb001, true, 512u << 20,
		     "WRITE(10) of 1 block, 512 MiB data-out descriptor");
	if (!r)
		r = huge_cmd(&c, 0xb002, false, 512u << 20,
			     "READ(10) of 1 block, 512 MiB data-in descriptor");
	if (!r && max && max < (512u << 20)) {
		char what[128];

		snprintf(what, sizeof(what),
			 "READ(10) of 1 block, data-in descriptor srp_max_rdma_size + 4 KiB (%lu)",
			 max + 4096);
		r = huge_cmd(&c, 0xb003, false, max + 4096, what);
	}
	/* 1 MiB, both directions, with a real buffer: must work. */
	for (k = 0; k < 2 && !r; k++) {
		uint64_t tag = 0xb010 + k;

		for (int tries = 0; tries < 3; tries++) {
			if ((k ? send_write10(&c, tag, 0, 2048) :
				 send_read10(&c, tag, 0, 2048, 0)) ||
			    wait_rsp(&c, tag, 30000, &ri)) {
				r = fail("%s(10) of 1 MiB: %s", k ? "WRITE" : "READ",
					 conn_state(&c));
				break;
			}
			if (ri.status == SAM_CHECK_CONDITION && ri.sense_key == 0x6) {
				tag += 0x100;	/* unit attention: once more */
				continue;
			}
			break;
		}
		if (r)
			break;
		fmt_rsp(&ri, s, sizeof(s));
		if (ri.status != SAM_GOOD)
			r = fail("%s(10) of 1 MiB with a valid buffer: expected GOOD, got %s",
				 k ? "WRITE" : "READ", s);
	}
	if (!r && !max)
		info("srp_max_rdma_size not readable: the bound itself was not tried");
	conn_close(&c);
	return r;
}

/*
 * max_size_transfers: data of exactly srp_max_rdma_size (16 MiB by default,
 * the hostile LUN's size) written at LBA 0 and read back, in each layout
 * an initiator may use: one direct descriptor; an indirect table carried
 * whole in the IU (128 descriptors); and a table of 2048 descriptors (the
 * most the target takes) left in initiator memory with only its first
 * entry in the IU, which the target fetches by RDMA READ. A table's
 * descriptors point at the buffer's chunks in reverse order, so a target
 * that mis-adds an offset or ignores an address puts data in the wrong
 * place. Every read returns what its write stored; one block more in any
 * layout is refused with INVALID FIELD IN COMMAND INFORMATION UNIT (0e/03)
 * before any data moves.
 */
enum { BIG_IND_DESCS = 128, BIG_EXT_DESCS = 2048 };

struct bigio {
	uint8_t *buf;	/* write side, read side, then the descriptor table */
	struct ibv_mr *mr;
	uint32_t len;	/* bytes per side */
};

static const char *const big_layout[] = {
	"one direct descriptor", "128 descriptors in the IU",
	"2048 descriptors in initiator memory",
};

/*
 * The IU for a READ(10)/WRITE(10) of bx->len bytes at LBA 0 to or from
 * @side of @bx, its descriptors describing @extra bytes more than that.
 */
static size_t big_iu(struct bigio *bx, uint8_t *iu, uint64_t tag, bool write,
		     int layout, int side, uint32_t extra)
{
	static const int ndesc[] = { 1, BIG_IND_DESCS, BIG_EXT_DESCS };
	int n = ndesc[layout], i;
	uint32_t chunk = bx->len / n;
	uint8_t *base = bx->buf + (size_t)side * bx->len;
	struct srp_direct_buf *tbl = (void *)(bx->buf + 2 * (size_t)bx->len);
	struct srp_indirect_hdr h;
	uint8_t cdb[16];
	size_t off;

	cdb_rw10(cdb, write ? 0x2a : 0x28, 0, bx->len / 512);
	off = build_cmd(iu, tag, opt_lun, cdb, 10);
	for (i = 0; i < n; i++) {
		tbl[i].va = htobe64((uintptr_t)(base + (size_t)(n - 1 - i) * chunk));
		tbl[i].key = htobe32(bx->mr->rkey);
		tbl[i].len = htobe32(chunk + (i == n - 1 ? extra : 0));
	}
	if (layout == 0) {
		iu[5] = write ? FMT_DIRECT << 4 : FMT_DIRECT;
		memcpy(iu + off, tbl, sizeof(*tbl));
		return off + sizeof(*tbl);
	}
	h.table_desc.va = htobe64((uintptr_t)tbl);
	h.table_desc.key = htobe32(bx->mr->rkey);
	h.table_desc.len = htobe32(n * sizeof(*tbl));
	h.len = htobe32(bx->len + extra);
	if (layout == 2)
		n = 1;	/* the rest is fetched from initiator memory */
	iu[5] = write ? FMT_INDIRECT << 4 : FMT_INDIRECT;
	iu[write ? 6 : 7] = n;
	memcpy(iu + off, &h, sizeof(h));
	memcpy(iu + off + sizeof(h), tbl, n * sizeof(*tbl));
	return off + sizeof(h) + n * sizeof(*tbl);
}

/* Post one big command and wait for its response; a unit attention is retried. */
static int big_cmd(struct conn *c, struct bigio *bx, uint64_t tag, bool write, int layout,
		   int side, uint32_t extra, struct rspinfo *ri, char *s, size_t sn)
{
	uint8_t iu[SSLOT];

	for (int tries = 0; tries < 3; tries++, tag += 0x100) {
		size_t n = big_iu(bx, iu, tag, write, layout, side, extra);

		if (post_send_raw(c, iu, n) || wait_rsp(c, tag, 120000, ri))
			return fail("%s of %u bytes, %s: %s within 120 s",
				    write ? "WRITE(10)" : "READ(10)", bx->len + extra,
				    big_layout[layout], conn_state(c));
		fmt_rsp(ri, s, sn);
		if (ri->status != SAM_CHECK_CONDITION || ri->sense_key != 0x6)
			return 0;
	}
	return 0;
}

/* Where logical byte @off of a transfer from @side lives in memory. */
static uint8_t *big_at(struct bigio *bx, int layout, int side, uint32_t off)
{
	static const int ndesc[] = { 1, BIG_IND_DESCS, BIG_EXT_DESCS };
	uint32_t chunk = bx->len / ndesc[layout];

	return bx->buf + (size_t)side * bx->len +
	       (size_t)(ndesc[layout] - 1 - off / chunk) * chunk + off % chunk;
}

static int big_layout_case(struct conn *c, struct bigio *bx, int layout)
{
	const char *what = big_layout[layout];
	uint64_t tag = 0xb100 + 0x1000 * layout, t0;
	uint32_t seed = 0x9e3779b9u * (layout + 1), off, i;
	struct rspinfo ri;
	char s[160];

	/* A pattern unique to the layout, so a read of old data fails too. */
	for (off = 0; off < bx->len; off += 4) {
		seed ^= seed << 13;
		seed ^= seed >> 17;
		seed ^= seed << 5;
		memcpy(big_at(bx, layout, 0, off), &seed, 4);
	}
	memset(bx->buf + bx->len, 0, bx->len);
	t0 = now_ms();
	if (big_cmd(c, bx, tag, true, layout, 0, 0, &ri, s, sizeof(s)))
		return 1;
	if (ri.status != SAM_GOOD)
		return fail("WRITE(10) of %u bytes, %s: expected GOOD, got %s", bx->len, what, s);
	if (big_cmd(c, bx, tag + 1, false, layout, 1, 0, &ri, s, sizeof(s)))
		return 1;
	if (ri.status != SAM_GOOD)
		return fail("READ(10) of %u bytes, %s: expected GOOD, got %s", bx->len, what, s);
	for (off = 0; off < bx->len; off += 512)
		if (memcmp(big_at(bx, layout, 0, off), big_at(bx, layout, 1, off), 512))
			return fail("READ(10) of %u bytes, %s: byte %u differs from what the WRITE stored",
				    bx->len, what, off);
	info("%s: %u bytes written and read back intact in %llu ms", what, bx->len,
	     (unsigned long long)(now_ms() - t0));
	for (i = 0; i < 2; i++) {
		if (big_cmd(c, bx, tag + 2 + i, !i, layout, i, 512, &ri, s, sizeof(s)))
			return 1;
		if (ri.status != SAM_CHECK_CONDITION || ri.sense_key != SENSE_ILLEGAL_REQUEST ||
		    ri.asc != 0x0e || ri.ascq != 0x03)
			return fail("%s of %u bytes (srp_max_rdma_size + 512), %s: expected CHECK CONDITION 5/0e/03, got %s",
				    i ? "READ(10)" : "WRITE(10)", bx->len + 512, what, s);
	}
	return 0;
}

static int case_max_size_transfers(void)
{
	struct bigio bx = { 0 };
	char tpg[256], path[320], val[32];
	unsigned long max;
	struct conn c;
	size_t sz;
	int r = 0, l;

	if (find_tpg_dir(tpg, sizeof(tpg)))
		return fail("no srpt TPG under configfs");
	snprintf(path, sizeof(path), "%s/attrib/srp_max_rdma_size", tpg);
	if (read_attr(path, val, sizeof(val)))
		return fail("%s: unreadable", path);
	max = strtoul(val, NULL, 0);
	/* The hostile LUN holds 16 MiB; the default is the same. */
	if (max != 16u << 20)
		return fail("srp_max_rdma_size is %lu, the case expects the default 16 MiB", max);
	bx.len = max;
	failmsg[0] = 0;
	if (login_ok(&c, NULL)) {
		conn_free(&c);
		return 1;
	}
	sz = 2 * (size_t)bx.len + BIG_EXT_DESCS * sizeof(struct srp_direct_buf);
	bx.buf = aligned_alloc(4096, sz);
	if (!bx.buf) {
		conn_close(&c);
		return fail("out of memory");
	}
	bx.mr = ibv_reg_mr(c.pd, bx.buf, sz, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE);
	if (!bx.mr)
		r = fail("ibv_reg_mr of %zu bytes: %m", sz);
	for (l = 0; l < 3 && !r; l++)
		r = big_layout_case(&c, &bx, l);
	/* Every command was answered: the target no longer touches the MR. */
	if (bx.mr)
		ibv_dereg_mr(bx.mr);
	conn_close(&c);
	free(bx.buf);
	return r;
}

/*
 * mr_pool_exhaust (-c only; fault 14 runs it over soft-iWARP): a WRITE(10)
 * of 64 KiB whose data-out descriptors are a table of 2048 pieces of 32
 * bytes in initiator memory. Over iWARP every piece needs a memory
 * registration for its RDMA READ, far more than the channel's pool holds
 * (fault 14 sets srp_sq_size 16 and srp_max_rdma_size 64 KiB): the target
 * must answer CHECK CONDITION (2/08/00, LIO's answer to a fabric that
 * cannot fetch the data) within 30 s rather than wait for registrations
 * that never come, and the channel then serves a READ(10).
 */
static int case_mr_pool_exhaust(void)
{
	enum { N = 2048, PIECE = 32 };
	struct srp_direct_buf *tbl;
	struct srp_indirect_hdr h;
	uint8_t iu[SSLOT], cdb[16];
	uint64_t tag = 0xd001, t0;
	struct rspinfo ri;
	struct conn c;
	char s[160];
	size_t n;
	int i, r = 0;

	failmsg[0] = 0;
	if (login_ok(&c, NULL)) {
		conn_free(&c);
		return 1;
	}
	tbl = (void *)(c.dbuf + (1 << 20));
	for (i = 0; i < N; i++)
		tbl[i] = dbuf_desc(&c, (size_t)i * PIECE, PIECE);
	h.table_desc = dbuf_desc(&c, 1 << 20, N * sizeof(*tbl));
	h.len = htobe32(N * PIECE);
	cdb_rw10(cdb, 0x2a, 0, N * PIECE / 512);
	for (int tries = 0; tries < 3; tries++, tag += 0x100) {
		n = build_cmd(iu, tag, opt_lun, cdb, 10);
		iu[5] = FMT_INDIRECT << 4;
		iu[6] = 1;	/* the rest of the table is fetched */
		memcpy(iu + n, &h, sizeof(h));
		memcpy(iu + n + sizeof(h), tbl, sizeof(*tbl));
		n += sizeof(h) + sizeof(*tbl);
		t0 = now_ms();
		if (post_send_raw(&c, iu, n) || wait_rsp(&c, tag, 30000, &ri)) {
			r = fail("WRITE(10) of %d pieces of %d bytes: %s within 30 s (waiting for memory registrations that never come?)",
				 N, PIECE, conn_state(&c));
			break;
		}
		fmt_rsp(&ri, s, sizeof(s));
		if (ri.status == SAM_CHECK_CONDITION && ri.sense_key == 0x6)
			continue;	/* unit attention: once more */
		info("WRITE(10) of %d pieces of %d bytes: %s after %llu ms", N, PIECE, s,
		     (unsigned long long)(now_ms() - t0));
		/* What LIO makes of a fabric's failed write_pending. */
		if (ri.status != SAM_CHECK_CONDITION || !(ri.flags & RSP_FLAG_SNSVALID) ||
		    ri.sense_key != 0x2 || ri.asc != 0x08 || ri.ascq != 0x00)
			r = fail("WRITE(10) of %d pieces of %d bytes: expected CHECK CONDITION 2/08/00 (LOGICAL UNIT COMMUNICATION FAILURE), got %s",
				 N, PIECE, s);
		break;
	}
	if (!r) {
		if (send_read10(&c, 0xd010, 0, 1, 0) || wait_rsp(&c, 0xd010, 30000, &ri))
			r = fail("READ(10) after it: %s within 30 s", conn_state(&c));
		else if (ri.status != SAM_GOOD) {
			fmt_rsp(&ri, s, sizeof(s));
			r = fail("READ(10) after it: expected GOOD, got %s", s);
		}
	}
	conn_close(&c);
	return r;
}

/*
 * cred_rsp_flood / aer_rsp_flood: SRP_CRED_RSP and SRP_AER_RSP answer a
 * target's request and take no credit. A target that gave a credit back
 * for each would let the initiator raise its request limit without bound.
 * Sent when no request of the target is outstanding, the first one is a
 * response to no request: the target logs the initiator out (reason 3)
 * and never raises the request limit.
 */
static int rsp_flood(uint8_t opcode)
{
	enum { N = 400 };
	const char *what = opcode == SRP_CRED_RSP ? "SRP_CRED_RSPs" : "SRP_AER_RSPs";
	struct srp_short_rsp rsp = { .opcode = opcode };
	struct login_opts o;
	struct conn c;
	int i, r = 0, granted;
	char after[64];

	login_defaults(&o);
	o.nrecv = 256;
	o.nsend = 512;
	if (login_ok(&c, &o)) {
		conn_free(&c);
		return 1;
	}
	granted = c.credits;
	for (i = 0; i < N && !c.disconnected && !c.broken; i++) {
		rsp.tag = 0xf100 + i;
		if (post_send_raw(&c, &rsp, sizeof(rsp)))
			break;	/* the target may have logged us out already */
		if (i % 64 == 63)
			pump(&c, 0);
	}
	snprintf(after, sizeof(after), "%d %s", i, what);
	r = expect_logout(&c, LOGOUT_RSP_WITHOUT_REQ, after);
	if (!r && c.credits_peak > granted)
		r = fail("after %s: request limit %d, more than the %d granted at login", after,
			 c.credits_peak, granted);
	info("%s sent; request limit %d (granted %d, peak %d)", after, c.credits, granted,
	     c.credits_peak);
	conn_close(&c);
	return r;
}

static int case_cred_rsp_flood(void) { return rsp_flood(SRP_CRED_RSP); }
static int case_aer_rsp_flood(void) { return rsp_flood(SRP_AER_RSP); }

/*
 * login_short_rdma_pdata: connection requests whose private data is cut
 * short of an SRP_LOGIN_REQ, some before its tag ends. (Over RoCE the IB CM
 * REQ has a fixed private data size, so the target sees the bytes sent
 * followed by zeros; over iWARP it sees the short length itself.)
 */
static int case_login_short_rdma_pdata(void)
{
	static const int lens[] = { 0, 1, 7, 15 };
	struct login_opts o;
	struct conn c;
	uint32_t rej;
	int i, r;

	for (i = 0; i < (int)(sizeof(lens) / sizeof(lens[0])); i++) {
		login_defaults(&o);
		o.pdata_len = lens[i] ? lens[i] : -1;
		r = conn_open(&c, &o, &rej);
		if (r < 0) {
			conn_free(&c);
			info("with %d bytes of private data", lens[i]);
			return 1;
		}
		if (r == 1) {
			conn_close(&c);
			return fail("a login with %d bytes of private data was accepted", lens[i]);
		}
		conn_free(&c);
		info("%2d bytes of private data: rejected (SRP reason 0x%08x)", lens[i], rej);
	}
	return 0;
}

/*
 * qp_error_bad_rkey: a WRITE whose data-out descriptor carries a wrong
 * rkey. The target's RDMA READ fails with a remote access error, which
 * puts its QP in the error state: the channel is dead, and the target must
 * close it by itself (DREQ, so we see DISCONNECTED) and free its session.
 * qp_error_bad_rkey_read: the same with a READ and its data-in descriptor:
 * the target's RDMA WRITE is unsignaled, chained before the response, so
 * the target sees only the response's flush, never the error itself.
 */
static int bad_rkey_case(bool read)
{
	struct conn c;
	uint8_t iu[128], cdb[16];
	struct srp_direct_buf d;
	uint32_t qpn;
	uint64_t t0, end;
	size_t n;
	char tpg[256], path[320], before[4096] = "", after[4096] = "", sid[64] = "";
	int r = 0;

	if (login_ok(&c, NULL)) {
		conn_free(&c);
		return 1;
	}
	if (check_inquiry(&c, 0xc000, "before the bad rkey")) {
		conn_close(&c);
		return 1;
	}
	qpn = c.qp->qp_num;
	if (target_qp_alive(qpn, NULL, 0) != 1) {
		conn_close(&c);
		return fail("cannot find the target's QP of this connection (rdma resource show qp)");
	}
	path[0] = 0;
	if (!find_tpg_dir(tpg, sizeof(tpg))) {
		int i, k;

		k = snprintf(path, sizeof(path), "%s/acls/0x", tpg);
		for (i = 0; i < 16; i++)
			k += snprintf(path + k, sizeof(path) - k, "%02x", opt_iport[i]);
		snprintf(path + k, sizeof(path) - k, "/info");
		if (read_attr(path, before, sizeof(before)))
			path[0] = 0;
	}
	failmsg[0] = 0;
	{
		struct ibv_qp_attr qa;
		struct ibv_qp_init_attr qia;

		if (!ibv_query_qp(c.qp, &qa, IBV_QP_DEST_QPN, &qia))
			snprintf(sid, sizeof(sid), "Session ID: %u ", qa.dest_qp_num);
		/* Our module's ACL info names a session by its QP number. */
		if (!strstr(before, sid))
			sid[0] = 0;
	}

	cdb_rw10(cdb, read ? 0x28 : 0x2a, 0, 8);
	n = build_cmd(iu, 0xc001, opt_lun, cdb, 10);
	d = dbuf_desc(&c, 0, 4096);
	d.key = htobe32(c.dmr->rkey ^ 0x5a5a00);
	iu[5] = read ? FMT_DIRECT : FMT_DIRECT << 4;
	memcpy(iu + n, &d, sizeof(d));
	if (post_send_raw(&c, iu, n + sizeof(d))) {
		conn_close(&c);
		return fail("could not post the %s", read ? "READ" : "WRITE");
	}
	t0 = now_ms();
	end = t0 + 15000;
	while (!c.disconnected && now_ms() < end)
		pump(&c, 250);
	if (!c.disconnected) {
		r = fail("15 s after a %s with a bad rkey the target has not disconnected (%s; target QP %s)",
			 read ? "READ" : "WRITE",
			 c.broken ? conn_state(&c) : "our QP is fine",
			 target_qp_alive(qpn, NULL, 0) == 1 ? "still exists" : "gone");
		conn_close(&c);
		return r;
	}
	info("target disconnected %.1f s after the %s%s; %d response(s) to it",
	     (now_ms() - t0) / 1000.0, read ? "READ" : "WRITE",
	     c.broken ? " (our QP erred too)" : "", count_rsp(&c, 0xc001));
	/*
	 * Answer the target's DREQ as an initiator does (rdma_disconnect()
	 * after DISCONNECTED sends the DREP), so that its teardown does not
	 * wait for the DREQ to time out; our QP stays, so its number is not
	 * reused while we look.
	 */
	rdma_disconnect(c.id);
	r = wait_target_qp_gone(qpn, 30000, "after the target disconnected");
	if (!r && path[0]) {
		if (read_attr(path, after, sizeof(after)))
			r = fail("cannot read %s", path);
		else if (sid[0] && strstr(after, sid))
			r = fail("ACL info still lists the session (%s) of this connection", sid);
		else
			info("ACL info: %.*s", (int)strcspn(after, "\n"), after);
	}
	conn_free(&c);
	if (r)
		return r;
	if (login_ok(&c, NULL)) {
		conn_free(&c);
		return 1;
	}
	r = check_inquiry(&c, 0xc002, "fresh login");
	conn_close(&c);
	return r;
}

static int case_qp_error_bad_rkey(void)
{
	return bad_rkey_case(false);
}

static int case_qp_error_bad_rkey_read(void)
{
	return bad_rkey_case(true);
}

/*
 * login_single_replaces_busy: a live channel with 32 commands in flight,
 * then a second login from the same initiator port ID without
 * SRP_MULTICHAN_MULTI. The new login is accepted with "existing channels
 * terminated"; the target disconnects the old channel (an SRP_T_LOGOUT
 * before it, if any, says reason 4: replaced by a new login), none of its
 * commands is answered twice, its QP goes, and the new channel serves an
 * INQUIRY.
 */
static int case_login_single_replaces_busy(void)
{
	struct conn a, b;
	struct login_opts o;
	uint32_t qpn;
	int k, n, r;

	if (login_ok(&a, NULL)) {
		conn_free(&a);
		return 1;
	}
	if (check_inquiry(&a, 0xd000, "the first channel")) {
		conn_close(&a);
		return 1;
	}
	qpn = a.qp->qp_num;
	n = a.credits < 33 ? a.credits - 1 : 32;
	if (busy_fill(&a, 0xd100, n)) {
		conn_close(&a);
		return 1;
	}
	login_defaults(&o);
	o.flags = LOGIN_IMMED_REQUESTED;	/* single channel */
	if (login_ok(&b, &o)) {
		conn_close(&a);
		conn_free(&b);
		return 1;
	}
	r = 0;
	if ((b.rsp_flags & 3) != 1)
		r = fail("the replacing login's multi-channel result is %u, expected 1 (existing channels terminated)",
			 b.rsp_flags & 3);
	/*
	 * The target closes the old channel; its SRP_T_LOGOUT goes first but
	 * the close does not wait for it longer than a grace period, so on a
	 * busy (or slow) channel the disconnect may come alone. A logout that
	 * does come must name the reason.
	 */
	for (k = 0; !r && k < 60 && !a.disconnected && !a.broken; k++)
		pump(&a, 250);
	if (!r && !a.disconnected)
		r = fail("15 s after a single-channel login of the same port ID the old channel is still connected (%s)",
			 conn_state(&a));
	for (k = 0; !r && k < a.nrx; k++)
		if (a.rxq[k].d[0] == SRP_T_LOGOUT &&
		    be32toh(*(const uint32_t *)(a.rxq[k].d + 4)) != 0x04)
			r = fail("the replaced channel's SRP_T_LOGOUT has reason %u, expected 4",
				 be32toh(*(const uint32_t *)(a.rxq[k].d + 4)));
	for (k = 0; !r && k < n; k++)
		if (count_rsp(&a, 0xd100 + k) > 1)
			r = fail("command %d of the replaced channel answered %d times", k,
				 count_rsp(&a, 0xd100 + k));
	if (!r) {
		rdma_disconnect(a.id);
		r = wait_target_qp_gone(qpn, 30000, "after the replacing login");
	}
	if (!r)
		r = check_inquiry(&b, 0xd200, "the replacing channel");
	conn_close(&a);
	conn_close(&b);
	return r;
}

/* An initiator that allows no RDMA READ could never send a data-out buffer. */
static int case_login_no_rdma_read(void)
{
	struct login_opts o;

	login_defaults(&o);
	o.no_rd = true;
	return expect_rej(&o, REJ_INSUFFICIENT_RESOURCES);
}

/*
 * A descriptor whose direction contradicts the CDB: the target must
 * neither transfer into our buffer nor touch the LUN.
 */
static int dir_case(uint8_t op, bool in_desc)
{
	struct conn c;
	struct rspinfo ri;
	uint8_t iu[128], cdb[16];
	struct srp_direct_buf d;
	char s[160];
	size_t n, i;
	int r = 0;

	if (login_ok(&c, NULL)) {
		conn_free(&c);
		return 1;
	}
	cdb_rw10(cdb, op, 0, 8);
	n = build_cmd(iu, 0xd1, opt_lun, cdb, 10);
	d = dbuf_desc(&c, 0, 4096);
	iu[5] = in_desc ? FMT_DIRECT : FMT_DIRECT << 4;
	memcpy(iu + n, &d, sizeof(d));
	memset(c.dbuf, 0xa5, 4096);
	if (post_send_raw(&c, iu, n + sizeof(d))) {
		conn_close(&c);
		return fail("could not post the command");
	}
	if (wait_rsp(&c, 0xd1, 15000, &ri)) {
		r = fail("no response: %s", conn_state(&c));
		conn_close(&c);
		return r;
	}
	fmt_rsp(&ri, s, sizeof(s));
	info("got %s", s);
	if (ri.status != SAM_CHECK_CONDITION || !ri.has_sense ||
	    ri.sense_key != SENSE_ILLEGAL_REQUEST || ri.asc != 0x0e || ri.ascq != 0x03)
		r = fail("expected CHECK CONDITION, ILLEGAL REQUEST, 0e/03 (invalid field in command IU), got %s",
			 s);
	for (i = 0; !r && i < 4096; i++)
		if (((uint8_t *)c.dbuf)[i] != 0xa5)
			r = fail("the target wrote into our buffer (byte %zu is 0x%02x)", i,
				 ((uint8_t *)c.dbuf)[i]);
	if (!r)
		r = check_inquiry(&c, 0xd2, "follow-up");
	conn_close(&c);
	return r;
}

static int case_cmd_write_with_in_desc(void) { return dir_case(0x2a, true); }
static int case_cmd_read_with_out_desc(void) { return dir_case(0x28, false); }

/*
 * (-c only, fault 13) A refused single-channel login that copies the
 * victim's port ID from another address must leave the victim alone. The
 * victim's only ACL is its address on the GUID-named target port; the
 * login from ATTACKER_SRC has none. With -I the victim's port ID.
 */
static int case_refused_login_keeps_victim(void)
{
	const char *asrc = getenv("ATTACKER_SRC");
	struct login_opts o;
	struct conn v, a;
	uint32_t rej;
	uint64_t end;
	int r;

	if (!asrc)
		return fail("ATTACKER_SRC is not set");
	if (login_ok(&v, NULL)) {
		conn_free(&v);
		return 1;
	}
	if (check_inquiry(&v, 0xe1, "victim before")) {
		conn_close(&v);
		return 1;
	}
	login_defaults(&o);
	o.flags = LOGIN_IMMED_REQUESTED;	/* single channel */
	o.src = asrc;
	r = conn_open(&a, &o, &rej);
	if (r == 1) {
		conn_close(&a);
		conn_close(&v);
		return fail("the login from %s without an ACL was accepted", asrc);
	}
	conn_free(&a);
	if (r < 0) {
		conn_close(&v);
		return 1;
	}
	info("login from %s rejected, reason 0x%08x", asrc, rej);
	if (rej != REJ_UNABLE_ESTABLISH_CHANNEL) {
		conn_close(&v);
		return fail("expected REJ reason 0x%08x, got 0x%08x", REJ_UNABLE_ESTABLISH_CHANNEL,
			    rej);
	}
	end = now_ms() + 3000;
	while (!v.disconnected && !v.broken && now_ms() < end)
		pump(&v, 100);
	for (r = 0; r < v.nrx; r++)
		if (v.rxq[r].d[0] == SRP_T_LOGOUT)
			v.disconnected = true;
	if (v.disconnected || v.broken) {
		r = fail("the victim was disturbed by the refused login (%s)", conn_state(&v));
		conn_close(&v);
		return r;
	}
	r = check_inquiry(&v, 0xe2, "victim after");
	conn_close(&v);
	return r;
}

/* ------------------------------------------------------------------------ */

struct tcase {
	const char *name;
	int (*fn)(void);
	const char *what;
	void (*cleanup)(void);	/* run by the parent after the case, always */
};

static const struct tcase cases[] = {
	{ "sanity", case_sanity, "normal login, INQUIRY, READ(10)" },
	{ "login_iu_len_0", case_login_iu_len_0, "it_iu_len 0 -> REJ 0x00010000" },
	{ "login_iu_len_63", case_login_iu_len_63, "it_iu_len 63 -> REJ 0x00010000" },
	{ "login_iu_len_64", case_login_iu_len_64, "it_iu_len 64 -> accepted" },
	{ "login_iu_len_1M", case_login_iu_len_1M, "it_iu_len 1 MiB -> REJ 0x00010002" },
	{ "login_iu_len_4G", case_login_iu_len_4G, "it_iu_len 0xffffffff -> REJ 0x00010002" },
	{ "login_wrong_target_port", case_login_wrong_tport, "-> REJ 0x00010003" },
	{ "login_short_private_data", case_login_short_pdata, "8-byte login -> REJ 0x00010000" },
	{ "login_no_buf_fmt", case_login_no_buf_fmt, "req_buf_fmt 0 -> REJ 0x00010004" },
	{ "credit_overrun", case_credit_overrun,
	  "limit 0, 50 INQUIRYs more -> discarded: no answer, no credit, channel up, limit intact" },
	{ "cmd_in_desc_cnt_beyond_iu", case_cmd_in_desc_cnt_beyond_iu, "-> CHECK CONDITION" },
	{ "cmd_out_desc_cnt_beyond_iu", case_cmd_out_desc_cnt_beyond_iu, "-> CHECK CONDITION" },
	{ "cmd_table_len_not_16", case_cmd_table_len_not_16, "-> CHECK CONDITION" },
	{ "cmd_total_len_overflow", case_cmd_total_len_overflow, "-> CHECK CONDITION" },
	{ "cmd_total_len_mismatch", case_cmd_total_len_mismatch, "-> CHECK CONDITION" },
	{ "cmd_imm_good", case_cmd_imm_good, "valid immediate WRITE -> GOOD" },
	{ "cmd_imm_len_beyond_iu", case_cmd_imm_len_beyond_iu, "-> CHECK CONDITION" },
	{ "cmd_imm_len_wrap", case_cmd_imm_len_wrap, "len 0xffffffff -> CHECK CONDITION" },
	{ "cmd_imm_iu_shorter_than_offset", case_cmd_imm_iu_shorter_than_offset, "-> CHECK CONDITION" },
	{ "cmd_imm_offset_beyond_iu", case_cmd_imm_offset_beyond_iu,
	  "offset 0xfff0: no immediate data granted; immediate WRITE -> CHECK CONDITION 0e/03" },
	{ "cmd_imm_offset_in_header", case_cmd_imm_offset_in_header,
	  "offset 8: no immediate data granted; immediate WRITE -> CHECK CONDITION 0e/03" },
	{ "cmd_both_in_and_out", case_cmd_both_in_and_out, "-> CHECK CONDITION" },
	{ "cmd_fmt_in_5", case_cmd_fmt_in_5, "-> CHECK CONDITION" },
	{ "cmd_fmt_out_f", case_cmd_fmt_out_f, "-> CHECK CONDITION" },
	{ "cmd_add_cdb_beyond_iu", case_cmd_add_cdb_beyond_iu, "-> CHECK CONDITION" },
	{ "cmd_add_cdb_hides_desc", case_cmd_add_cdb_hides_desc, "-> CHECK CONDITION" },
	{ "iu_short_cmd_4", case_iu_short_cmd_4, "ignored" },
	{ "iu_short_tmf_4", case_iu_short_tmf_4, "ignored" },
	{ "iu_empty", case_iu_empty, "-> SRP_T_LOGOUT reason 2" },
	{ "iu_unknown_opcode_0x77", case_iu_unknown_opcode_0x77, "-> SRP_T_LOGOUT reason 2" },
	{ "iu_srp_rsp_from_initiator", case_iu_srp_rsp_from_initiator, "-> SRP_T_LOGOUT reason 2" },
	{ "iu_unsolicited_cred_rsp", case_iu_unsolicited_cred_rsp, "-> SRP_T_LOGOUT reason 3" },
	{ "cred_req_returns_credits", case_cred_req_returns_credits, "dropped requests' credits come back in SRP_CRED_REQ" },
	{ "tmf_abort_unknown_tag", case_tmf_abort_unknown_tag, "-> 0x00" },
	{ "tmf_abort_unknown_lun", case_tmf_abort_unknown_lun, "-> 0x05" },
	{ "tmf_lun_reset_unknown_lun", case_tmf_lun_reset_unknown_lun, "-> 0x05" },
	{ "tmf_abort_task_set_unknown_lun", case_tmf_abort_task_set_unknown_lun, "-> 0x05" },
	{ "tmf_func_0x80", case_tmf_func_0x80, "-> 0x04" },
	{ "tmf_abort_race", case_tmf_abort_race, "one response per TMF, <= 1 per command" },
	{ "tmf_busy_all_functions", case_tmf_busy_all_functions,
	  "ABORT TASK SET, CLEAR TASK SET, LUN RESET, CLEAR ACA over 32 cmds -> 0x04, 0x04, 0x00, 0x04" },
	{ "tmf_abort_task_busy", case_tmf_abort_task_busy,
	  "ABORT TASK of 8 of 32 cmds in flight -> 0x00 each, <= 1 response per cmd, credits exact" },
	{ "qp_destroy_mid_rdma_read", case_qp_destroy_mid_rdma_read,
	  "QP destroyed during a 1 MiB WRITE: target's QP gone within 30 s, fresh login works" },
	{ "disconnect_storm", case_disconnect_storm, "50 logins/drops, target survives" },
	{ "i_logout", case_i_logout, "SRP_I_LOGOUT -> DISCONNECTED" },
	{ "credit_last_resend", case_credit_last_resend,
	  "3000 cmds, each sent with the credit just returned: none lost" },
	{ "sq_full_tmf_badcmd", case_sq_full_tmf_badcmd,
	  "srp_sq_size 16, 1 MiB READs: TMFs, bad cmds still answered", sq_restore },
	{ "cmd_huge_data_len", case_cmd_huge_data_len, "512 MiB descriptor -> CHECK CONDITION; 1 MiB works" },
	{ "max_size_transfers", case_max_size_transfers,
	  "16 MiB WRITE+READ, direct / 128 in IU / 2048 fetched -> data intact; +512 -> 0e/03" },
	{ "cred_rsp_flood", case_cred_rsp_flood, "400 SRP_CRED_RSP: no credit back, SRP_T_LOGOUT reason 3" },
	{ "aer_rsp_flood", case_aer_rsp_flood, "400 SRP_AER_RSP: no credit back, SRP_T_LOGOUT reason 3" },
	{ "login_short_rdma_pdata", case_login_short_rdma_pdata, "0/1/7/15 bytes of private data -> REJ" },
	{ "qp_error_bad_rkey", case_qp_error_bad_rkey, "bad rkey: target disconnects, session gone" },
	{ "login_single_replaces_busy", case_login_single_replaces_busy, "single-channel login replaces a busy channel" },
	{ "qp_error_bad_rkey_read", case_qp_error_bad_rkey_read, "bad rkey on data-in: target disconnects, session gone" },
	{ "login_no_rdma_read", case_login_no_rdma_read, "responder_resources 0 -> REJ 0x00010001" },
	{ "cmd_write_with_in_desc", case_cmd_write_with_in_desc,
	  "WRITE(10) with a data-in descriptor -> CHECK CONDITION 0e/03, buffer untouched" },
	{ "cmd_read_with_out_desc", case_cmd_read_with_out_desc,
	  "READ(10) with a data-out descriptor -> CHECK CONDITION 0e/03" },
	/* only on request (-c), used by the fault scripts */
	{ "refused_login_keeps_victim", case_refused_login_keeps_victim,
	  "(-c only) refused single-channel login with the victim's port ID: victim stays" },
	{ "io_error_lun", case_io_error_lun, "(-c only) failing backstore -> CHECK CONDITION" },
	{ "mr_pool_exhaust", case_mr_pool_exhaust,
	  "(-c only) iWARP: WRITE needing 2048 MRs, pool of 32 -> CHECK CONDITION, no hang" },
	{ "abort_inflight", case_abort_inflight, "(-c only) slow backstore: TMFs wait, no credit lost" },
	{ "io_flakey_lun", case_io_flakey_lun, "(-c only) flaky backstore -> GOOD or CHECK CONDITION" },
};
#define NCASES (int)(sizeof(cases) / sizeof(cases[0]))

/* Run fn in a child with a timeout. 0 = pass. */
static int run_child(const char *name, int (*fn)(void), int timeout_s, char *why, size_t whylen)
{
	int pfd[2];
	pid_t pid;
	int st = 0;
	uint64_t end;

	fflush(stdout);
	if (pipe(pfd))
		return snprintf(why, whylen, "pipe: %m"), 1;
	pid = fork();
	if (pid < 0)
		return snprintf(why, whylen, "fork: %m"), 1;
	if (pid == 0) {
		close(pfd[0]);
		cur_case = name;
		failmsg[0] = 0;
		int r = fn();

		if (r && !failmsg[0])
			snprintf(failmsg, sizeof(failmsg), "failed");
		if (r && write(pfd[1], failmsg, strlen(failmsg)) < 0)
			_exit(2);
		fflush(stdout);
		_exit(r ? 1 : 0);
	}
	close(pfd[1]);
	end = now_ms() + timeout_s * 1000ull;
	for (;;) {
		pid_t w = waitpid(pid, &st, WNOHANG);

		if (w == pid)
			break;
		if (now_ms() > end) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			close(pfd[0]);
			snprintf(why, whylen, "timed out after %d s (tool-side timeout)", timeout_s);
			return 1;
		}
		sleep_ms(50);
	}
	ssize_t n = read(pfd[0], why, whylen - 1);

	close(pfd[0]);
	why[n > 0 ? n : 0] = 0;
	if (WIFSIGNALED(st)) {
		snprintf(why, whylen, "tool crashed (signal %d)", WTERMSIG(st));
		return 1;
	}
	if (WEXITSTATUS(st) && !why[0])
		snprintf(why, whylen, "exit status %d", WEXITSTATUS(st));
	return WEXITSTATUS(st) != 0;
}

static int parse_hex(const char *s, uint8_t *out, int nbytes)
{
	int n = 0;

	if (!strncmp(s, "0x", 2))
		s += 2;
	while (*s && n < 2 * nbytes) {
		int v;

		if (*s == ':' || *s == '-') {
			s++;
			continue;
		}
		if (*s >= '0' && *s <= '9')
			v = *s - '0';
		else if ((*s | 0x20) >= 'a' && (*s | 0x20) <= 'f')
			v = (*s | 0x20) - 'a' + 10;
		else
			return -1;
		if (n % 2 == 0)
			out[n / 2] = v << 4;
		else
			out[n / 2] |= v;
		n++;
		s++;
	}
	return (n == 2 * nbytes && !*s) ? 0 : -1;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: hostile -a ADDR [-p PORT] -g TARGET_GUID -I INITIATOR_PORT_ID\n"
		"               [-c CASE[,CASE...]] [-t SECONDS] [-L LUN] [-n] [-v] [-l]\n"
		"  -g  node GUID of the target HCA (xxxx:xxxx:xxxx:xxxx or 16 hex digits)\n"
		"  -I  initiator port ID, 32 hex digits (needs an ACL 0x<32 hex>)\n"
		"  -c  cases to run (default: all), -l lists them\n"
		"  -t  per-case timeout (default 60 s), -n: no survival probe\n");
	exit(2);
}

int main(int argc, char **argv)
{
	char *sel = NULL;
	int o, i, pass = 0, failn = 0, have_g = 0, have_i = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	while ((o = getopt(argc, argv, "a:p:g:I:c:t:L:nvlh")) != -1) {
		switch (o) {
		case 'a':
			opt_addr = optarg;
			break;
		case 'p':
			opt_port = optarg;
			break;
		case 'g':
			if (parse_hex(optarg, opt_tport, 8)) {
				fprintf(stderr, "bad GUID %s\n", optarg);
				return 2;
			}
			memcpy(opt_tport + 8, opt_tport, 8);
			have_g = 1;
			break;
		case 'I':
			if (parse_hex(optarg, opt_iport, 16)) {
				fprintf(stderr, "bad initiator port ID %s\n", optarg);
				return 2;
			}
			have_i = 1;
			break;
		case 'c':
			sel = optarg;
			break;
		case 't':
			opt_timeout = atoi(optarg);
			break;
		case 'L':
			opt_lun = atoi(optarg);
			break;
		case 'n':
			opt_no_probe = 1;
			break;
		case 'v':
			opt_verbose = 1;
			break;
		case 'l':
			for (i = 0; i < NCASES; i++)
				printf("%-34s %s\n", cases[i].name, cases[i].what);
			return 0;
		default:
			usage();
		}
	}
	if (!have_g || !have_i)
		usage();

	for (i = 0; i < NCASES; i++) {
		char why[1100] = "", pwhy[1100] = "";
		uint64_t t0;
		int r;

		if (!sel && strstr(cases[i].what, "(-c only)"))
			continue;
		if (sel) {
			char buf[512], *tok, *save;
			bool hit = false;

			snprintf(buf, sizeof(buf), "%s", sel);
			for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
				if (!strcmp(tok, cases[i].name) ||
				    (!strcmp(tok, "all") && !strstr(cases[i].what, "(-c only)")))
					hit = true;
			if (!hit)
				continue;
		}
		t0 = now_ms();
		r = run_child(cases[i].name, cases[i].fn, opt_timeout, why, sizeof(why));
		if (cases[i].cleanup)
			cases[i].cleanup();
		if (!r && !opt_no_probe && cases[i].fn != case_sanity) {
			int lun = opt_lun;

			opt_lun = 0;	/* the probe always uses the working LUN 0 */
			if (run_child("probe", case_sanity, opt_timeout, pwhy, sizeof(pwhy)))
				r = 1;
			opt_lun = lun;
			if (r) {
				r = 1;
				snprintf(why, sizeof(why), "target did not survive: probe: %s", pwhy);
			}
		}
		if (r) {
			printf("FAIL %s: %s (%.1f s)\n", cases[i].name, why, (now_ms() - t0) / 1000.0);
			failn++;
		} else {
			printf("PASS %s (%.1f s)\n", cases[i].name, (now_ms() - t0) / 1000.0);
			pass++;
		}
	}
	if (pass + failn == 0) {
		fprintf(stderr, "no case matches '%s'\n", sel);
		return 2;
	}
	printf("%d passed, %d failed\n", pass, failn);
	return failn ? 1 : 0;
}
