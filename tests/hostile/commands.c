// SPDX-License-Identifier: GPL-2.0-only
/*
 * hostile: command cases. Junk IUs the target must ignore or answer with
 * SRP_T_LOGOUT, and I/O to LUNs whose backstore fails or is flaky.
 */
#include "hostile.h"

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

int case_iu_short_cmd_4(void)
{
	uint8_t iu[4] = { SRP_CMD, 0, 0, 0 };

	return junk_case(iu, sizeof(iu));
}

int case_iu_short_tmf_4(void)
{
	uint8_t iu[4] = { SRP_TSK_MGMT, 0, 0, 0 };

	return junk_case(iu, sizeof(iu));
}

/*
 * Wait for the target's SRP_T_LOGOUT: it must carry @reason and be followed
 * by a disconnect the target starts. 0 = as expected.
 */
int expect_logout(struct conn *c, uint32_t reason, const char *after)
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

int case_iu_empty(void)
{
	return logout_case("", 0, LOGOUT_BAD_IU_TYPE);
}

int case_iu_unknown_opcode_0x77(void)
{
	uint8_t iu[48] = { 0x77 };
	uint64_t tag = 0x77;

	memcpy(iu + 8, &tag, 8);
	return logout_case(iu, sizeof(iu), LOGOUT_BAD_IU_TYPE);
}

int case_iu_srp_rsp_from_initiator(void)
{
	struct srp_rsp r = { .opcode = SRP_RSP, .tag = 0xc1, .status = 0 };

	return logout_case(&r, sizeof(r), LOGOUT_BAD_IU_TYPE);
}

int case_iu_unsolicited_cred_rsp(void)
{
	struct srp_short_rsp r = { .opcode = SRP_CRED_RSP, .tag = 0x41 };

	return logout_case(&r, sizeof(r), LOGOUT_RSP_WITHOUT_REQ);
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
int case_io_error_lun(void)
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
 * (-c only) A LUN whose backstore fails all I/O one second out of two
 * (dm-flakey): for 5 s every READ and WRITE must end in GOOD or CHECK
 * CONDITION, each within 30 s, and both must be seen.
 */
int case_io_flakey_lun(void)
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
