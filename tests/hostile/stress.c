// SPDX-License-Identifier: GPL-2.0-only
/*
 * hostile: stress cases. QPs destroyed mid-transfer, login/drop storms,
 * the smallest send queue filled, QP errors from bad rkeys.
 */
#include "hostile.h"

/*
 * 9: QP destroyed while the target fetches a 1 MiB data-out: at once, after
 * 5 ms and after 50 ms. Destroying the RDMA/CM ID of the connected QP sends
 * the target a DREQ, and its RDMA READs and responses find no QP: each time
 * the target must close the channel and release it, so that its QP of the
 * connection is gone within 30 s (`rdma resource show qp`). A last round
 * destroys the QP with 16 such WRITEs outstanding, so that the failed
 * transfers are still being handed back while the channel is released.
 * Then a fresh login must work.
 */
int case_qp_destroy_mid_rdma_read(void)
{
	static const int delay_ms[] = { 0, 5, 50, 5 };
	static const int writes[] = { 1, 1, 1, 16 };
	struct conn c;
	char what[80];
	uint32_t qpn;
	uint64_t t0;
	int i, k, r;

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
		for (i = 0; i < writes[k]; i++) {
			if (send_write10(&c, 0xd000 + 32 * k + i, 0, 2048)) {
				r = fail("could not post WRITE %d: %s", i, conn_state(&c));
				conn_abort(&c);
				return r;
			}
		}
		if (delay_ms[k])
			sleep_ms(delay_ms[k]);
		conn_abort(&c);
		t0 = now_ms();
		snprintf(what, sizeof(what), "QP destroyed %d ms into %d 1 MiB WRITE(s)",
			 delay_ms[k], writes[k]);
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
int case_disconnect_storm(void)
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

/*
 * sq_full_tmf_badcmd: the smallest send queue the target allows, filled
 * with 1 MiB READs (each needs many RDMA WRITE work requests). Responses
 * that find no room in the send queue must wait for room, not vanish:
 * TMF responses and the CHECK CONDITIONs of commands rejected before they
 * reach a backstore included.
 */
static char sq_attr[320];

void sq_restore(void)
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

int case_sq_full_tmf_badcmd(void)
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

int case_qp_error_bad_rkey(void)
{
	return bad_rkey_case(false);
}

int case_qp_error_bad_rkey_read(void)
{
	return bad_rkey_case(true);
}
