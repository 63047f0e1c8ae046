// SPDX-License-Identifier: GPL-2.0-only
/*
 * hostile: login cases. SRP_LOGIN_REQs the target must reject or accept
 * (IU lengths, target port, private data, buffer formats, RDMA READ
 * resources), single-channel logins replacing a channel, SRP_I_LOGOUT.
 */
#include "hostile.h"

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

int case_login_iu_len_0(void)
{
	struct login_opts o;

	login_defaults(&o);
	o.it_iu_len = 0;
	return expect_rej(&o, REJ_UNABLE_ESTABLISH_CHANNEL);
}

int case_login_iu_len_63(void)
{
	struct login_opts o;

	login_defaults(&o);
	o.it_iu_len = 63;
	return expect_rej(&o, REJ_UNABLE_ESTABLISH_CHANNEL);
}

int case_login_iu_len_64(void)
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

int case_login_iu_len_1M(void)
{
	struct login_opts o;

	login_defaults(&o);
	o.it_iu_len = 1u << 20;
	return expect_rej(&o, REJ_REQ_IT_IU_LENGTH_TOO_LARGE);
}

int case_login_iu_len_4G(void)
{
	struct login_opts o;

	login_defaults(&o);
	o.it_iu_len = 0xffffffffu;
	return expect_rej(&o, REJ_REQ_IT_IU_LENGTH_TOO_LARGE);
}

int case_login_wrong_tport(void)
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
int case_login_short_pdata(void)
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
int case_login_no_buf_fmt(void)
{
	struct login_opts o;

	login_defaults(&o);
	o.buf_fmt = 0;
	return expect_rej(&o, REJ_UNSUPPORTED_DESCRIPTOR_FMT);
}

/* 11: SRP_I_LOGOUT */
int case_i_logout(void)
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

/*
 * login_short_rdma_pdata: connection requests whose private data is cut
 * short of an SRP_LOGIN_REQ, some before its tag ends. (Over RoCE the IB CM
 * REQ has a fixed private data size, so the target sees the bytes sent
 * followed by zeros; over iWARP it sees the short length itself.)
 */
int case_login_short_rdma_pdata(void)
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
 * login_single_replaces_busy: a live channel with 32 commands in flight,
 * then a second login from the same initiator port ID without
 * SRP_MULTICHAN_MULTI. The new login is accepted with "existing channels
 * terminated"; the target disconnects the old channel (an SRP_T_LOGOUT
 * before it, if any, says reason 4: replaced by a new login), none of its
 * commands is answered twice, its QP goes, and the new channel serves an
 * INQUIRY.
 */
/*
 * @nw, a single-channel login with the port IDs of @old, must report the
 * existing channels terminated, and @old must be disconnected within 15 s.
 */
int replaced_by_single(struct conn *old, const struct conn *nw, const char *who)
{
	int k;

	if ((nw->rsp_flags & 3) != 1)
		return fail("%s: multi-channel result %u, expected 1 (existing channels terminated)",
			    who, nw->rsp_flags & 3);
	for (k = 0; k < 60 && !old->disconnected && !old->broken; k++)
		pump(old, 250);
	if (!old->disconnected)
		return fail("%s: 15 s after it the old channel of the same port ID is still connected (%s)",
			    who, conn_state(old));
	return 0;
}

int case_login_single_replaces_busy(void)
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
	/*
	 * The target closes the old channel; its SRP_T_LOGOUT goes first but
	 * the close does not wait for it longer than a grace period, so on a
	 * busy (or slow) channel the disconnect may come alone. A logout that
	 * does come must name the reason.
	 */
	r = replaced_by_single(&a, &b, "single-channel login");
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
int case_login_no_rdma_read(void)
{
	struct login_opts o;

	login_defaults(&o);
	o.no_rd = true;
	return expect_rej(&o, REJ_INSUFFICIENT_RESOURCES);
}

/* The victim of fault 13: logged in with -I's port ID, INQUIRY works. */
static int victim_login(struct conn *v)
{
	if (login_ok(v, NULL)) {
		conn_free(v);
		return 1;
	}
	if (check_inquiry(v, 0xe1, "victim before")) {
		conn_close(v);
		return 1;
	}
	return 0;
}

/* Three seconds after the other login: no logout, no error, INQUIRY works. */
static int victim_undisturbed(struct conn *v, const char *by)
{
	uint64_t end = now_ms() + 3000;
	int i;

	while (!v->disconnected && !v->broken && now_ms() < end)
		pump(v, 100);
	for (i = 0; i < v->nrx; i++)
		if (v->rxq[i].d[0] == SRP_T_LOGOUT)
			v->disconnected = true;
	if (v->disconnected || v->broken)
		return fail("the victim was disturbed by %s (%s)", by, conn_state(v));
	return check_inquiry(v, 0xe2, "victim after");
}

/* A single-channel login with the victim's port ID from ATTACKER_SRC. */
static int claimer_login(struct conn *a, const char *asrc, uint32_t *rej)
{
	struct login_opts o;

	login_defaults(&o);
	o.flags = LOGIN_IMMED_REQUESTED;	/* single channel */
	o.src = asrc;
	return conn_open(a, &o, rej);
}

/*
 * (-c only, fault 13) A refused single-channel login that copies the
 * victim's port ID from another address must leave the victim alone. The
 * victim's only ACL is its address on the GUID-named target port; the
 * login from ATTACKER_SRC has none. With -I the victim's port ID.
 */
int case_refused_login_keeps_victim(void)
{
	const char *asrc = getenv("ATTACKER_SRC");
	struct conn v, a;
	uint32_t rej;
	int r;

	if (!asrc)
		return fail("ATTACKER_SRC is not set");
	if (victim_login(&v))
		return 1;
	r = claimer_login(&a, asrc, &rej);
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
	r = victim_undisturbed(&v, "the refused login");
	conn_close(&v);
	return r;
}

/*
 * (-c only, fault 13) The same, with an ACL for ATTACKER_SRC's address:
 * the login is accepted, but as an initiator of its own (port ID and the
 * ACL that admitted it), so its single-channel login replaces nothing
 * (multichannel result 0) and the victim's channel stays live.
 */
int case_admitted_claimer_keeps_victim(void)
{
	const char *asrc = getenv("ATTACKER_SRC");
	struct conn v, a;
	int r;

	if (!asrc)
		return fail("ATTACKER_SRC is not set");
	if (victim_login(&v))
		return 1;
	r = claimer_login(&a, asrc, NULL);
	if (r != 1) {
		conn_free(&a);
		conn_close(&v);
		return r < 0 ? 1 : fail("the login from %s, which has an ACL, was refused", asrc);
	}
	info("login from %s accepted, rsp_flags 0x%02x", asrc, a.rsp_flags);
	r = 0;
	if (a.rsp_flags & 3)
		r = fail("multichannel result %u: the login took over another initiator's channel",
			 a.rsp_flags & 3);
	if (victim_undisturbed(&v, "a login admitted under another ACL"))
		r = 1;
	conn_close(&a);
	conn_close(&v);
	return r;
}
