// SPDX-License-Identifier: GPL-2.0-only
/*
 * hostile: task management cases. TMFs on unknown tags and LUNs, ABORT
 * TASK racing completions, every TMF function on a busy LUN, TMFs that
 * wait for a slow backstore.
 */
#include "hostile.h"

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

int case_tmf_abort_unknown_tag(void)
{
	return tmf_case(opt_lun, TMF_ABORT_TASK, 0xdeadbeef, TMF_RSP_COMPLETE);
}

/*
 * TMFs for LUN 200, which the ACL does not map: the target core finds no
 * LUN for them (TMR_LUN_DOES_NOT_EXIST, whatever the function) and
 * srpt_tmf_rsp_code() maps that to SRP_TSK_MGMT_FAILED. Not FUNCTION
 * COMPLETE: nothing was aborted or reset.
 */
int case_tmf_lun_reset_unknown_lun(void)
{
	return tmf_case(200, TMF_LUN_RESET, 0, TMF_RSP_FAILED);
}

int case_tmf_abort_task_set_unknown_lun(void)
{
	return tmf_case(200, TMF_ABORT_TASK_SET, 0, TMF_RSP_FAILED);
}

int case_tmf_abort_unknown_lun(void)
{
	return tmf_case(200, TMF_ABORT_TASK, 0x1234, TMF_RSP_FAILED);
}

int case_tmf_func_0x80(void)
{
	return tmf_case(opt_lun, 0x80, 0, TMF_RSP_FUNC_NOT_SUPP);
}

/* 8: ABORT TASK racing the command's completion */
int case_tmf_abort_race(void)
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
int busy_fill(struct conn *c, uint64_t tag0, int n)
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
 *    srpt_tmf_rsp_code() makes that FUNCTION NOT SUPPORTED (0x04). The
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
int case_tmf_busy_all_functions(void)
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
 * not (TMR_TASK_DOES_NOT_EXIST), both 0x00 in srpt_tmf_rsp_code(). An
 * aborted command gets GOOD or no response; every other command exactly
 * one response, GOOD. Every credit comes back, none twice; an INQUIRY on
 * the same channel is GOOD.
 */
int case_tmf_abort_task_busy(void)
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
int case_abort_inflight(void)
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

/* READ(10) of @blocks at @lba into the data buffer, task attribute @attr. */
static int send_read10_attr(struct conn *c, uint64_t tag, uint32_t lba, uint16_t blocks,
			    uint8_t attr)
{
	uint8_t iu[128], cdb[16];
	struct srp_direct_buf d;
	size_t n;

	cdb_rw10(cdb, 0x28, lba, blocks);
	n = build_cmd(iu, tag, opt_lun, cdb, 10);
	((struct srp_cmd *)iu)->task_attr = attr;
	d = dbuf_desc(c, 0, blocks * 512u);
	iu[5] = FMT_DIRECT;
	memcpy(iu + n, &d, sizeof(d));
	return post_send_raw(c, iu, n + sizeof(d));
}

/*
 * (-c only) ORDERED after an abort: ABORT TASK sent right behind SIMPLE
 * 1 MiB READs (up to 400) until one finds its READ executing and ends it
 * (a slow backstore makes the first one do: -L); then one ORDERED READ
 * must be answered within 15 s. A target core that
 * loses count of the SIMPLE commands an abort ended (testing.rst,
 * fuzz_live) holds the ORDERED one for good, and the device with it: run
 * this case alone, last in a guest.
 */
int case_ordered_after_abort(void)
{
	enum { ROUNDS = 400, SIMPLE = 0, ORDERED = 2 };
	int k, aborted = 0, answered = 0, r = 0;
	struct rspinfo ri;
	struct conn c;
	char s[160];

	if (login_ok(&c, NULL)) {
		conn_free(&c);
		return 1;
	}
	for (k = 0; k < ROUNDS && !r; k++) {
		uint64_t ct = 0xb0000 + k, tt = 0xc0000 + k;

		if (send_read10_attr(&c, ct, 0, 2048, SIMPLE) ||
		    send_tmf(&c, tt, opt_lun, TMF_ABORT_TASK, ct) ||
		    wait_rsp(&c, tt, 30000, &ri)) {
			r = fail("round %d: READ and ABORT TASK: %s", k, conn_state(&c));
			break;
		}
		pump(&c, 20);
		if (count_rsp(&c, ct)) {
			answered++;
		} else {
			aborted++;
			break;	/* one is enough */
		}
	}
	info("%d READs aborted, %d answered before their ABORT TASK", aborted, answered);
	if (!r && send_read10_attr(&c, 0xd0000, 0, 8, ORDERED))
		r = fail("could not post the ORDERED READ: %s", conn_state(&c));
	if (!r && wait_rsp(&c, 0xd0000, 15000, &ri))
		r = fail("an ORDERED READ after %d aborted SIMPLE READs got no response in 15 s: %s",
			 aborted, conn_state(&c));
	if (!r) {
		fmt_rsp(&ri, s, sizeof(s));
		info("ORDERED READ answered: %s", s);
	}
	conn_close(&c);
	return r;
}
