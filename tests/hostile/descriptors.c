// SPDX-License-Identifier: GPL-2.0-only
/*
 * hostile: descriptor cases. Malformed SRP_CMDs (descriptor counts and
 * tables, immediate data, additional CDB length), direction mismatches,
 * huge and maximum-size transfers, an exhausted MR pool.
 */
#include "hostile.h"

/* 5: malformed SRP_CMD, each on its own connection. */

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
void bad_total_overflow(struct conn *c, struct badcmd *b, uint64_t tag)
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

int case_cmd_in_desc_cnt_beyond_iu(void) { return run_bad(bad_in_desc_cnt, NULL); }
int case_cmd_out_desc_cnt_beyond_iu(void) { return run_bad(bad_out_desc_cnt, NULL); }
int case_cmd_table_len_not_16(void) { return run_bad(bad_table_len_not16, NULL); }
int case_cmd_total_len_overflow(void) { return run_bad(bad_total_overflow, NULL); }
int case_cmd_total_len_mismatch(void) { return run_bad(bad_total_mismatch, NULL); }
int case_cmd_imm_len_beyond_iu(void) { return run_bad(bad_imm_len_beyond_iu, NULL); }
int case_cmd_imm_len_wrap(void) { return run_bad(bad_imm_len_wrap, NULL); }
int case_cmd_imm_iu_shorter_than_offset(void) { return run_bad(bad_imm_iu_short, NULL); }
int case_cmd_both_in_and_out(void) { return run_bad(bad_bidi, NULL); }
int case_cmd_fmt_in_5(void) { return run_bad(bad_fmt_in_5, NULL); }
int case_cmd_fmt_out_f(void) { return run_bad(bad_fmt_out_f, NULL); }
int case_cmd_add_cdb_beyond_iu(void) { return run_bad(bad_add_cdb_len, NULL); }
int case_cmd_add_cdb_hides_desc(void) { return run_bad(bad_add_cdb_len_desc, NULL); }

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

int case_cmd_imm_offset_beyond_iu(void) { return imm_offset_case(0xfff0); }
int case_cmd_imm_offset_in_header(void) { return imm_offset_case(8); }

/* sanity: a well-formed immediate-data WRITE works when immediate data was granted */
int case_cmd_imm_good(void)
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

int case_cmd_huge_data_len(void)
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

int case_max_size_transfers(void)
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
int case_mr_pool_exhaust(void)
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

int case_cmd_write_with_in_desc(void) { return dir_case(0x2a, true); }
int case_cmd_read_with_out_desc(void) { return dir_case(0x28, false); }
