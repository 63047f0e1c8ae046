// SPDX-License-Identifier: GPL-2.0-only
/*
 * hostile: credit cases. The request limit: commands sent without a
 * credit, SRP_CRED_REQ and SRP_CRED_RSP, every credit kept busy, floods
 * of responses the target never asked for.
 */
#include "hostile.h"

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

int case_credit_overrun(void)
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

/*
 * cred_req_returns_credits: a well-behaved initiator whose requests are
 * dropped without a response (too short to parse) and that sends nothing
 * else must get those credits back in SRP_CRED_REQs, and answers them.
 */
int case_cred_req_returns_credits(void)
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

/*
 * credit_last_resend: keep every credit busy. Each response hands back the
 * credit its command took; the next command goes out with it at once, so
 * the target receives it right after posting the response, maybe before
 * that response's send completed. A target that counts its send contexts
 * by credits must then still have one for the new command.
 */
int case_credit_last_resend(void)
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

int case_cred_rsp_flood(void) { return rsp_flood(SRP_CRED_RSP); }
int case_aer_rsp_flood(void) { return rsp_flood(SRP_AER_RSP); }
