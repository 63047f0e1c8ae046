// SPDX-License-Identifier: GPL-2.0-only
/*
 * Live fuzzing: mutated SRP_CMDs, task management requests, logins and
 * raw IUs of random opcodes and lengths against the target, over as many
 * connections as it takes. The initiator side stays correct where the
 * protocol binds it (never more requests than its credits, never an IU
 * longer than the target's maximum); everything else is random.
 *
 * What the target owes: every SRP_CMD and SRP_TSK_MGMT long enough to
 * carry a tag gets exactly one response with that tag, unless the channel
 * ends (an SRP_T_LOGOUT or a disconnect) or a task management function
 * that completed may have aborted it; credits come back; a clean login
 * after every disconnect succeeds. A closing round on a clean channel
 * then sends every task management function and well-formed and malformed
 * commands: each must be answered without a disconnect (fuzz_closing()).
 * The case then ends with the probe (INQUIRY, reads and a write, data
 * checked). The seed is printed, so a
 * failure repeats: HOSTILE_FUZZ_SEED, HOSTILE_FUZZ_IUS (default 20000).
 */
#include "hostile.h"

#define FUZZ_WAIT_MS	30000	/* an IU unanswered this long on a live channel fails */
#define FUZZ_LBA_MAX	30000	/* writes stay below the probe's blocks */
#define FUZZ_CLOSE_MS	10000	/* the closing round's answers, on a clean channel */

enum { K_CMD, K_TMF, K_SHORT, K_RAW, K_LOGOUT, K_GOOD, NKIND };
static const char *const kind_name[NKIND] = {
	"mutated SRP_CMD", "task management", "short request", "raw IU", "SRP_I_LOGOUT",
	"well-formed command",
};

struct pend {
	uint64_t tag;
	uint64_t sent_ms;
	int kind;
	uint8_t func;	/* of a TMF */
	bool optional;	/* may go unanswered: short, or aborted by a TMF */
	uint32_t len;
	uint8_t head[80];	/* the IU's first bytes, printed if unanswered */
};

static struct {
	uint64_t x;
	unsigned long sent[NKIND], status[256], tmf_code[256], no_status;
	unsigned long logouts, disconnects, reconnects, logins_mutated, logins_rejected;
	unsigned long forgiven_by_tmf, cut_by_close;
	struct pend *pend;
	int npend, cappend;
	uint64_t tag;
	bool simple_only;	/* HOSTILE_FUZZ_SIMPLE=1: task attribute 0 only */
} fz;

static uint32_t rnd(void)
{
	fz.x ^= fz.x << 13;
	fz.x ^= fz.x >> 7;
	fz.x ^= fz.x << 17;
	return (uint32_t)(fz.x >> 11);
}

static uint32_t pick(uint32_t n)
{
	return n ? rnd() % n : 0;
}

/* Lengths where parsers go wrong: small, huge, near powers of two. */
static uint32_t rlen(void)
{
	switch (pick(6)) {
	case 0:
		return pick(16);
	case 1:
		return 0xffffffffu - pick(16);
	case 2:
		return (1u << pick(32)) + pick(3) - 1;
	case 3:
		return 512 * pick(64);
	default:
		return rnd();
	}
}

static void put_be(uint8_t *p, uint64_t v, int n)
{
	while (n--) {
		p[n] = v;
		v >>= 8;
	}
}

static const uint8_t read_ops[] = {
	0x00, 0x03, 0x12, 0x1a, 0x25, 0x28, 0x2f, 0x35, 0x5a, 0x88, 0x9e, 0xa0, 0xa3, 0x8f,
};

static bool is_write_op(uint8_t op)
{
	switch (op) {
	case 0x0a: case 0x2a: case 0x2e: case 0x3b: case 0x41: case 0x42: case 0x55:
	case 0x89: case 0x8a: case 0x8e: case 0x93: case 0xaa: case 0xae: case 0x3f:
	case 0x04: case 0x07: case 0x1d: case 0x3d: case 0x4c: case 0x5f: case 0xa4:
	case 0x83: case 0x8c: case 0x9f: case 0x7f:
		return true;
	}
	return false;
}

/* A CDB: mostly the commands a target sees, sometimes any bytes. */
static void rand_cdb(uint8_t *cdb)
{
	uint32_t lba = pick(FUZZ_LBA_MAX), n = 1 + pick(256);
	int i;

	memset(cdb, 0, 16);
	switch (pick(5)) {
	case 0:
		cdb[0] = 0x2a;				/* WRITE(10) */
		put_be(cdb + 2, lba, 4);
		put_be(cdb + 7, n, 2);
		break;
	case 1:
		cdb[0] = 0x8a;				/* WRITE(16) */
		put_be(cdb + 2, lba, 8);
		put_be(cdb + 10, n, 4);
		break;
	case 2:
		cdb[0] = read_ops[pick(sizeof(read_ops))];
		put_be(cdb + 2, pick(40000), 4);
		put_be(cdb + 7, pick(4096), 2);
		if (cdb[0] == 0x12)
			cdb[4] = pick(256);
		break;
	default:
		for (i = 0; i < 16; i++)
			cdb[i] = rnd();
		/* Writes anywhere would reach the probe's blocks. */
		if (is_write_op(cdb[0]))
			cdb[0] = read_ops[pick(sizeof(read_ops))];
		break;
	}
}

static uint64_t get_be(const uint8_t *p, int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | *p++;
	return v;
}

/*
 * The only writes that go out: WRITE(10) and WRITE(16) to our LUN below
 * the probe's blocks. Any other write-type CDB becomes a READ(10).
 */
static void defang(uint8_t *iu, uint32_t len, int lun)
{
	struct srp_cmd *c = (struct srp_cmd *)iu;
	uint64_t end = ~0ULL;

	if (len < sizeof(*c) || iu[0] != SRP_CMD || !is_write_op(c->cdb[0]))
		return;
	if (c->cdb[0] == 0x2a)
		end = get_be(c->cdb + 2, 4) + get_be(c->cdb + 7, 2);
	else if (c->cdb[0] == 0x8a)
		end = get_be(c->cdb + 2, 8) + get_be(c->cdb + 10, 4);
	if (c->lun[0] || c->lun[1] != lun || get_be(c->lun + 2, 6) || end > FUZZ_LBA_MAX + 256)
		c->cdb[0] = 0x28;
}

static struct srp_direct_buf rand_desc(struct conn *c)
{
	uint32_t off = pick(DATA_LEN / 512) * 512, len = pick(8) ? pick(DATA_LEN - off + 1) : rlen();
	struct srp_direct_buf d = dbuf_desc(c, off, len);

	/* Rarely a buffer the target cannot reach: the channel then ends. */
	if (!pick(2000))
		d.key = htobe32(rnd());
	return d;
}

/* A mutated SRP_CMD of at most max bytes; returns its length. */
static uint32_t build_fuzz_cmd(struct conn *c, uint8_t *iu, uint32_t max, uint64_t tag)
{
	struct srp_cmd *cmd = (struct srp_cmd *)iu;
	uint32_t n = sizeof(*cmd), i, nd, fmt_o, fmt_i, add;
	uint8_t cdb[16];

	rand_cdb(cdb);
	build_cmd(iu, tag, opt_lun, cdb, 16);
	if (!pick(20))
		iu[17 + pick(sizeof(*cmd) - 17)] = rnd();	/* any header byte but opcode/tag */
	cmd->task_attr = pick(4) || fz.simple_only ? 0 : pick(8);
	add = pick(8) ? 0 : pick(64) & ~3u;
	if (!pick(16))
		add |= pick(4);				/* reserved bits */
	cmd->add_cdb_len = add;
	n += add & ~3u;
	for (i = sizeof(*cmd); i < n && i < max; i++)
		iu[i] = rnd();
	fmt_o = pick(4);
	fmt_i = pick(4);
	if (pick(3)) {			/* the direction the CDB suggests, or none */
		fmt_o = is_write_op(cdb[0]) ? FMT_DIRECT : FMT_NONE;
		fmt_i = is_write_op(cdb[0]) ? FMT_NONE : (pick(4) ? FMT_DIRECT : FMT_NONE);
	}
	cmd->buf_fmt = fmt_o << 4 | fmt_i;
	cmd->data_out_desc_cnt = pick(8) ? (fmt_o == FMT_DIRECT) : pick(256);
	cmd->data_in_desc_cnt = pick(8) ? (fmt_i == FMT_DIRECT) : pick(256);
	nd = (fmt_o != FMT_NONE) + (fmt_i != FMT_NONE);
	for (i = 0; i < nd && n + 16 <= max; i++) {
		struct srp_direct_buf d = rand_desc(c);

		if (fmt_o == FMT_INDIRECT || fmt_i == FMT_INDIRECT || fmt_o == FMT_IMM) {
			/* an indirect header, or immediate data: random but bounded */
			uint32_t k, m = 20 + 16 * pick(8);

			for (k = 0; k < m && n + k < max; k++)
				iu[n + k] = rnd();
			if (pick(2))
				memcpy(iu + n, &d, sizeof(d));
			n += m < max - n ? m : max - n;
		} else {
			memcpy(iu + n, &d, sizeof(d));
			n += sizeof(d);
		}
	}
	if (!pick(10))
		n = sizeof(*cmd) + pick(max - sizeof(*cmd) + 1);	/* cut or padded */
	if (n > max)
		n = max;
	defang(iu, n, opt_lun);
	return n;
}

static uint32_t build_fuzz_tmf(uint8_t *iu, uint64_t tag)
{
	struct srp_tsk_mgmt *t = (struct srp_tsk_mgmt *)iu;
	static const uint8_t funcs[] = { 0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80 };

	memset(iu, 0, sizeof(*t));
	t->opcode = SRP_TSK_MGMT;
	t->tag = tag;
	t->lun[1] = pick(4) ? (uint32_t)opt_lun : pick(256);
	if (!pick(8))
		t->lun[0] = rnd();
	t->tsk_mgmt_func = pick(4) ? funcs[pick(sizeof(funcs))] : rnd();
	/* ABORT TASK of a recent tag, or of anything */
	t->task_tag = pick(2) && fz.tag > 1 ? fz.tag - 1 - pick(fz.tag > 16 ? 16 : fz.tag - 1) : rnd();
	if (!pick(16)) {		/* any byte but the opcode and the tag */
		uint32_t k = 1 + pick(sizeof(*t) - 9);

		iu[k < 8 ? k : k + 8] = rnd();
	}
	return sizeof(*t);
}

static void pend_add(uint64_t tag, int kind, uint8_t func, bool optional,
		     const uint8_t *iu, uint32_t len)
{
	if (fz.npend == fz.cappend) {
		fz.cappend = fz.cappend ? 2 * fz.cappend : 256;
		fz.pend = realloc(fz.pend, fz.cappend * sizeof(*fz.pend));
		if (!fz.pend) {
			perror("realloc");
			exit(3);
		}
	}
	fz.pend[fz.npend] = (struct pend){ tag, now_ms(), kind, func, optional, len };
	memcpy(fz.pend[fz.npend++].head, iu, len < 80 ? len : 80);
}

/* Does a TMF that completed let earlier commands go unanswered? */
static bool tmf_aborts(uint8_t func)
{
	return func == 0x01 || func == 0x02 || func == 0x04 || func == 0x08 || func == 0x10;
}

/*
 * Both requests carry the same LUN: SRP_CMD and SRP_TSK_MGMT have it at
 * byte 20, and the target core's LUN takes all eight bytes.
 */
static bool same_lun(const struct pend *a, const struct pend *b)
{
	return a->len >= 28 && b->len >= 28 && !memcmp(a->head + 20, b->head + 20, 8);
}

/* Match responses to what is pending and count them. Return: -1 on a stray one. */
static int reap(struct conn *c)
{
	int i, j, k;

	for (i = 0; i < c->nrx; i++) {
		struct rx *r = &c->rxq[i];
		struct rspinfo ri;
		uint64_t tag;

		if (r->d[0] == SRP_T_LOGOUT) {
			fz.logouts++;
			continue;
		}
		if (r->d[0] != SRP_RSP || r->len < sizeof(struct srp_rsp))
			continue;
		memcpy(&tag, r->d + 8, 8);
		for (j = 0; j < fz.npend && fz.pend[j].tag != tag; j++)
			;
		if (j == fz.npend) {
			fail("a response for tag %#llx, which has nothing pending (answered twice, or never sent)",
			     (unsigned long long)tag);
			return -1;
		}
		parse_rsp(r, &ri);
		if (fz.pend[j].kind == K_TMF) {
			fz.tmf_code[ri.resp_code < 0 ? 255 : ri.resp_code]++;
			/*
			 * A completed TMF may have aborted any earlier command.
			 * A LUN RESET runs in a work item of the target core
			 * and aborts what the device has when it starts, with
			 * no response on the same session: the commands and
			 * the other TMFs sent before it, and those sent after
			 * it to its LUN that arrived first
			 * (core_tmr_lun_reset(), core_tmr_drain_tmr_list()).
			 */
			if ((ri.resp_code == TMF_RSP_COMPLETE || ri.resp_code < 0) &&
			    tmf_aborts(fz.pend[j].func))
				for (k = 0; k < fz.npend; k++) {
					bool tmf = fz.pend[k].kind == K_TMF;

					if (fz.pend[k].optional || k == j)
						continue;
					if ((!tmf && fz.pend[k].tag < tag) ||
					    (fz.pend[j].func == 0x08 &&
					     (tmf || same_lun(&fz.pend[k], &fz.pend[j])))) {
						fz.pend[k].optional = true;
						fz.forgiven_by_tmf++;
					}
				}
		} else {
			fz.status[ri.status]++;
		}
		fz.pend[j] = fz.pend[--fz.npend];
	}
	c->nrx = 0;
	return 0;
}

/* The oldest request that must be answered, or NULL. */
static struct pend *oldest_owed(void)
{
	struct pend *o = NULL;
	int j;

	for (j = 0; j < fz.npend; j++)
		if (!fz.pend[j].optional && (!o || fz.pend[j].sent_ms < o->sent_ms))
			o = &fz.pend[j];
	return o;
}

/* A login, mutated one time in eight; then a clean one must work. */
static int fuzz_login(struct conn *c)
{
	uint32_t rej;
	int r;

	struct login_opts o;

	if (!pick(8)) {
		login_defaults(&o);
		if (pick(2))
			o.it_iu_len = pick(2) ? rlen() : 64 + pick(8192);
		if (pick(2))
			o.flags = rnd();
		if (pick(2))
			o.imm_off = rnd();
		if (pick(3))
			o.buf_fmt = rnd();
		fz.logins_mutated++;
		r = conn_open(c, &o, &rej);
		if (r == 1) {
			if (c->max_it >= sizeof(struct srp_cmd) + 16 && c->credits > 0)
				return 0;
			conn_close(c);
		} else if (r == 0) {
			fz.logins_rejected++;
			conn_free(c);
		} else {
			return fail("mutated login (it_iu_len %u, flags %#x, buf_fmt %#x) got no answer: %s",
				    o.it_iu_len, o.flags, o.buf_fmt, failmsg);
		}
	}
	/* single-channel logins replace the old channel: never refused */
	login_defaults(&o);
	r = conn_open(c, &o, &rej);
	if (r != 1)
		return fail("clean login after %lu disconnects refused (SRP reason %#x): %s",
			    fz.disconnects, rej, failmsg);
	return 0;
}

static int pend_cmp(const void *a, const void *b)
{
	const struct pend *x = a, *y = b;

	return x->tag < y->tag ? -1 : x->tag > y->tag;
}

/* The requests still pending, lowest tags first (up to 12), as hex. */
static void print_owed(void)
{
	int j, k;
	char b[200];

	qsort(fz.pend, fz.npend, sizeof(*fz.pend), pend_cmp);
	for (j = 0; j < fz.npend && j < 12; j++) {
		struct pend *p = &fz.pend[j];
		int n = 0;

		for (k = 0; k < 80 && k < (int)p->len; k++)
			n += snprintf(b + n, sizeof(b) - n, "%02x", p->head[k]);
		info("%s: tag %#llx, %s, %u bytes, sent %.1f s ago: %s",
		     p->optional ? "pending (may go unanswered)" : "owed",
		     (unsigned long long)p->tag, kind_name[p->kind], p->len,
		     (now_ms() - p->sent_ms) / 1000.0, b);
	}
}

static void print_counts(void)
{
	char b[1024];
	int i, n = 0;

	for (i = 0; i < NKIND; i++)
		info("sent %-20s %lu", kind_name[i], fz.sent[i]);
	for (i = 0; i < 256; i++)
		if (fz.status[i] && n < (int)sizeof(b) - 32)
			n += snprintf(b + n, sizeof(b) - n, " 0x%02x:%lu", i, fz.status[i]);
	info("command responses by SCSI status:%s", n ? b : " none");
	n = 0;
	for (i = 0; i < 256; i++) {
		if (!fz.tmf_code[i] || n >= (int)sizeof(b) - 32)
			continue;
		if (i == 255)
			n += snprintf(b + n, sizeof(b) - n, " no code:%lu", fz.tmf_code[i]);
		else
			n += snprintf(b + n, sizeof(b) - n, " 0x%02x:%lu", i, fz.tmf_code[i]);
	}
	info("task management responses by code:%s", n ? b : " none");
	info("SRP_T_LOGOUTs %lu, disconnects %lu, reconnects %lu; mutated logins %lu (%lu rejected)",
	     fz.logouts, fz.disconnects, fz.reconnects, fz.logins_mutated, fz.logins_rejected);
	info("requests cut off by a close %lu, maybe aborted by a completed TMF %lu, still pending %d",
	     fz.cut_by_close, fz.forgiven_by_tmf, fz.npend);
}

/* Send one IU of the closing round and note what it owes. */
static int closing_send(struct conn *c, int kind, const uint8_t *iu, uint32_t len)
{
	if (c->credits <= 0)
		return fail("closing round: no credit left (%d pending)", fz.npend);
	if (post_send_raw(c, iu, len))
		return fail("closing round: could not post a %s: %s", kind_name[kind], conn_state(c));
	fz.sent[kind]++;
	pend_add(fz.tag, kind, iu[0] == SRP_TSK_MGMT ? iu[offsetof(struct srp_tsk_mgmt, tsk_mgmt_func)] : 0,
		 false, iu, len);
	return 0;
}

/* Wait until everything owed is answered; the channel must stay up. */
static int closing_wait(struct conn *c, const char *what)
{
	uint64_t end = now_ms() + FUZZ_CLOSE_MS;
	struct pend *o;

	while (oldest_owed() && !c->disconnected && !c->broken && now_ms() < end) {
		pump(c, 100);
		if (reap(c) < 0)
			return 1;
	}
	o = oldest_owed();
	if (c->disconnected || c->broken)
		return fail("closing round: the channel ended while %s were pending: %s", what,
			    conn_state(c));
	if (o)
		return fail("closing round: %s %#llx unanswered for %d s on a clean channel (%d of them)",
			    kind_name[o->kind], (unsigned long long)o->tag, FUZZ_CLOSE_MS / 1000,
			    fz.npend);
	return 0;
}

/*
 * The closing round, on a fresh channel that nothing random touches: every
 * task management function (defined, reserved, unknown), one after the
 * other, then commands that are well-formed or malformed in ways the target
 * answers with a status.
 * Each must be answered and the channel must stay up. In the random phase
 * a dropped answer can hide behind the next disconnect.
 */
static int fuzz_closing(struct conn *c)
{
	static const uint8_t funcs[] = {
		0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x00, 0x03, 0xff,
	};
	struct login_opts o;
	uint8_t iu[SSLOT], cdb[16];
	uint32_t rej;
	size_t len, i;

	conn_close(c);
	fz.npend = 0;
	login_defaults(&o);
	if (conn_open(c, &o, &rej) != 1)
		return fail("closing round: clean login refused (SRP reason %#x): %s", rej, failmsg);
	for (i = 0; i < sizeof(funcs); i++) {
		struct srp_tsk_mgmt *t = (struct srp_tsk_mgmt *)iu;

		memset(iu, 0, sizeof(*t));
		t->opcode = SRP_TSK_MGMT;
		t->tag = ++fz.tag;
		t->lun[1] = opt_lun;
		t->tsk_mgmt_func = funcs[i];
		t->task_tag = 0x0c105ed000000000ULL + i;	/* nothing has it */
		/*
		 * One at a time: a LUN RESET aborts the task management
		 * requests queued behind it, and the target core answers
		 * none of those (seen on the slower debug kernel).
		 */
		if (closing_send(c, K_TMF, iu, sizeof(*t)) ||
		    closing_wait(c, "a task management request"))
			return 1;
	}
	for (i = 0; i < 32; i++) {
		struct srp_direct_buf d = dbuf_desc(c, (i % 8) * 4096, 4096);
		struct srp_cmd *cmd = (struct srp_cmd *)iu;
		/* every fourth: a descriptor count beyond the IU */
		uint8_t cnt = i % 4 == 3 ? 200 : 1;
		bool wr = i & 1;

		cdb_rw10(cdb, wr ? 0x2a : 0x28, i * 8, 8);
		len = build_cmd(iu, ++fz.tag, opt_lun, cdb, 10);
		cmd->buf_fmt = wr ? FMT_DIRECT << 4 : FMT_DIRECT;
		if (wr)
			cmd->data_out_desc_cnt = cnt;
		else
			cmd->data_in_desc_cnt = cnt;
		memcpy(iu + len, &d, sizeof(d));
		len += sizeof(d);
		if (i % 8 == 5) {
			memset(cdb, 0, sizeof(cdb));
			cdb[0] = 0xff;		/* no such opcode, no data */
			len = build_cmd(iu, fz.tag, opt_lun, cdb, 16);
		}
		if (closing_send(c, K_GOOD, iu, len))
			return 1;
	}
	if (closing_wait(c, "commands"))
		return 1;
	info("closing round: %zu task management functions and 32 commands answered on a clean channel",
	     sizeof(funcs));
	return 0;
}

int case_fuzz_live(void)
{
	const char *e = getenv("HOSTILE_FUZZ_IUS"), *s = getenv("HOSTILE_FUZZ_SEED");
	unsigned long total = e && *e ? strtoul(e, NULL, 0) : 20000, n = 0;
	uint64_t seed = s && *s ? strtoull(s, NULL, 0) : now_ms() ^ ((uint64_t)getpid() << 32);
	uint8_t iu[SSLOT];
	struct conn c;
	int r = 0;

	uint64_t t0 = now_ms();

	fz.x = seed | 1;
	fz.simple_only = getenv("HOSTILE_FUZZ_SIMPLE") && atoi(getenv("HOSTILE_FUZZ_SIMPLE"));
	info("seed %#llx (HOSTILE_FUZZ_SEED), %lu IUs", (unsigned long long)seed, total);
	if (fuzz_login(&c))
		return 1;
	while (n < total && !r) {
		uint32_t len, max = c.max_it < SSLOT ? c.max_it : SSLOT;
		int kind, w = pick(1000);
		uint64_t tag = ++fz.tag;

		if (c.disconnected || c.broken) {
			fz.disconnects++;
			fz.cut_by_close += fz.npend;
			fz.npend = 0;
			conn_free(&c);
			if (fuzz_login(&c))
				return 1;
			fz.reconnects++;
			continue;
		}
		/*
		 * Never beyond the credits, and a send slot free: wait for
		 * both. After the target's close our sends never complete (rxe
		 * retries for ever): the disconnect is the reconnect's cue.
		 */
		if (c.credits <= 0 || c.sout >= c.nsend) {
			uint64_t end = now_ms() + FUZZ_WAIT_MS;

			while ((c.credits <= 0 || c.sout >= c.nsend) &&
			       !c.disconnected && !c.broken && now_ms() < end) {
				pump(&c, 100);
				if (reap(&c) < 0)
					return 1;
			}
			if ((c.credits <= 0 || c.sout >= c.nsend) && !c.disconnected && !c.broken) {
				r = fail("no %s came back for %d s (%d requests pending)",
					 c.credits <= 0 ? "credit" : "send completion",
					 FUZZ_WAIT_MS / 1000, fz.npend);
				break;
			}
			continue;
		}
		if (w < 600) {
			kind = K_CMD;
			len = build_fuzz_cmd(&c, iu, max, tag);
		} else if (w < 750) {
			kind = K_TMF;
			len = build_fuzz_tmf(iu, tag);
		} else if (w < 850) {
			uint16_t blocks = 1 + pick(64);
			bool wr = pick(2);
			struct srp_direct_buf d = dbuf_desc(&c, pick(1024) * 512, blocks * 512);
			uint8_t cdb[16];

			kind = K_GOOD;
			cdb_rw10(cdb, wr ? 0x2a : 0x28, pick(FUZZ_LBA_MAX), blocks);
			len = build_cmd(iu, tag, opt_lun, cdb, 10);
			iu[5] = wr ? FMT_DIRECT << 4 : FMT_DIRECT;
			memcpy(iu + len, &d, sizeof(d));
			len += sizeof(d);
		} else if (w < 996) {
			kind = K_SHORT;
			len = 1 + pick(47);
			for (uint32_t i = 0; i < len; i++)
				iu[i] = rnd();
			if (len)
				iu[0] = pick(2) ? SRP_CMD : SRP_TSK_MGMT;
			if (len >= 16)
				memcpy(iu + 8, &tag, 8);
		} else if (w < 999 || pick(4)) {
			kind = K_RAW;
			len = pick(max + 1);
			for (uint32_t i = 0; i < len; i++)
				iu[i] = rnd();
			if (len >= 16)
				memcpy(iu + 8, &tag, 8);
			defang(iu, len, opt_lun);
		} else {
			kind = K_LOGOUT;
			memset(iu, 0, 16);
			iu[0] = SRP_I_LOGOUT;
			memcpy(iu + 8, &tag, 8);
			len = 16;
		}
		if (post_send_raw(&c, iu, len)) {
			if (!c.disconnected && !c.broken) {
				r = fail("could not post IU %lu: %s", n, conn_state(&c));
				break;
			}
			continue;
		}
		fz.sent[kind]++;
		if (!(++n % 2000))
			info("%lu IUs after %.1f s: %lu disconnects, %d pending",
			     n, (now_ms() - t0) / 1000.0, fz.disconnects, fz.npend);
		/*
		 * A request with its full header must be answered; a shorter
		 * one that still carries the tag may be.
		 */
		if (len >= 16 && (iu[0] == SRP_CMD || iu[0] == SRP_TSK_MGMT))
			pend_add(tag, iu[0] == SRP_TSK_MGMT ? K_TMF : kind,
				 len > offsetof(struct srp_tsk_mgmt, tsk_mgmt_func) ?
				 ((struct srp_tsk_mgmt *)iu)->tsk_mgmt_func : 0, len < 48, iu, len);
		pump(&c, 0);
		if (reap(&c) < 0)
			return 1;
		if (!(n & 63)) {
			struct pend *o = oldest_owed();

			if (o && now_ms() - o->sent_ms > FUZZ_WAIT_MS) {
				r = fail("tag %#llx (%s) unanswered for %d s on a live channel",
					 (unsigned long long)o->tag, kind_name[o->kind],
					 FUZZ_WAIT_MS / 1000);
				break;
			}
		}
	}
	/* The last requests: answered, or the channel ended. */
	if (!r) {
		uint64_t end = now_ms() + FUZZ_WAIT_MS;

		while (oldest_owed() && !c.disconnected && !c.broken && now_ms() < end) {
			pump(&c, 100);
			if (reap(&c) < 0)
				return 1;
		}
		if (oldest_owed() && !c.disconnected && !c.broken)
			r = fail("requests unanswered %d s after the last IU, oldest tag %#llx (%s)",
				 FUZZ_WAIT_MS / 1000, (unsigned long long)oldest_owed()->tag,
				 kind_name[oldest_owed()->kind]);
	}
	if (!r)
		r = fuzz_closing(&c);
	if (r) {
		char tpg[512], path[700], buf[4096];
		int i, k;

		print_owed();
		/* The target's view of the channel (send queue, credits). */
		if (!find_tpg_dir(tpg, sizeof(tpg))) {
			k = snprintf(path, sizeof(path), "%s/acls/0x", tpg);
			for (i = 0; i < 16; i++)
				k += snprintf(path + k, sizeof(path) - k, "%02x", opt_iport[i]);
			snprintf(path + k, sizeof(path) - k, "/info");
			if (!read_attr(path, buf, sizeof(buf)))
				for (char *l = strtok(buf, "\n"); l; l = strtok(NULL, "\n"))
					info("target: %s", l);
		}
	}
	print_counts();
	conn_close(&c);
	return r;
}
