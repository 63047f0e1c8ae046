// SPDX-License-Identifier: GPL-2.0-only
/*
 * hostile: other initiators than Linux ib_srp, each emulated by its login
 * and first I/O over the RDMA/CM (the IB CM side of WinOF, its MRA before
 * the RTU, is tests/ibcm-initiator's mode "mra"):
 *   iPXE     it_iu_len 80, direct descriptors only, no immediate data, one
 *            channel; every REJ ends the boot, so the first login must do
 *   ESXi     it_iu_len 580, indirect descriptor tables carried in the IU
 *   WinOF    it_iu_len min(IOC profile send size, 4196); on a REJ
 *            "unsupported descriptor format" it retries with direct
 *            descriptors only (any other reason is fatal); every login is
 *            single-channel ("terminate existing"), so its reconnect
 *            replaces its own earlier channel
 * Each writes a pattern, reads it back into other memory and compares.
 */
#include "hostile.h"

/* The WinOF ceiling on it_iu_len. */
#define WINOF_MAX_IU	4196

/*
 * WRITE(10) @blocks at @lba from dbuf[0..), READ(10) them back into
 * dbuf[1 MiB..), compare. @ndesc 1: one direct descriptor; more: an
 * indirect table of @ndesc equal pieces carried whole in the IU, in
 * reverse order so that a misplaced offset shows.
 */
static int rw_verify(struct conn *c, uint64_t tag, uint32_t lba, uint16_t blocks, int ndesc,
		     const char *who)
{
	const size_t back = 1u << 20;
	uint32_t len = blocks * 512u, piece = len / ndesc, i;
	uint8_t iu[SSLOT], cdb[16];
	struct rspinfo ri;
	char s[160];
	int k;

	for (i = 0; i < len; i++)
		c->dbuf[i] = (uint8_t)(i * 7 + tag);
	memset(c->dbuf + back, 0, len);
	for (k = 0; k < 2; k++) {
		bool write = !k;
		size_t off = write ? 0 : back, n;
		struct srp_direct_buf d[32];
		struct srp_indirect_hdr h;
		int j;

		cdb_rw10(cdb, write ? 0x2a : 0x28, lba, blocks);
		n = build_cmd(iu, tag + k, opt_lun, cdb, 10);
		for (j = 0; j < ndesc; j++)
			d[j] = dbuf_desc(c, off + (size_t)(ndesc - 1 - j) * piece, piece);
		if (ndesc == 1) {
			iu[5] = write ? FMT_DIRECT << 4 : FMT_DIRECT;
			memcpy(iu + n, d, sizeof(d[0]));
			n += sizeof(d[0]);
		} else {
			/* The table's own descriptor: where it would sit in the IU's sender. */
			h.table_desc = dbuf_desc(c, 2 * back - ndesc * sizeof(d[0]),
						 ndesc * sizeof(d[0]));
			h.len = htobe32(len);
			iu[5] = write ? FMT_INDIRECT << 4 : FMT_INDIRECT;
			iu[write ? 6 : 7] = ndesc;
			memcpy(iu + n, &h, sizeof(h));
			memcpy(iu + n + sizeof(h), d, ndesc * sizeof(d[0]));
			n += sizeof(h) + ndesc * sizeof(d[0]);
		}
		if (n > c->max_it)
			return fail("%s: the %s IU is %zu bytes, more than the %u granted",
				    who, write ? "WRITE" : "READ", n, c->max_it);
		if (post_send_raw(c, iu, n) || wait_rsp(c, tag + k, 15000, &ri))
			return fail("%s: %s(10) of %u bytes: %s within 15 s", who,
				    write ? "WRITE" : "READ", len, conn_state(c));
		if (ri.status != SAM_GOOD || ri.do_res || ri.di_res) {
			fmt_rsp(&ri, s, sizeof(s));
			return fail("%s: %s(10) of %u bytes, %d descriptor(s): %s", who,
				    write ? "WRITE" : "READ", len, ndesc, s);
		}
	}
	for (i = 0; i < len; i++)
		if (c->dbuf[back + i] != (uint8_t)(i * 7 + tag))
			return fail("%s: byte %u read back 0x%02x, written 0x%02x", who, i,
				    c->dbuf[back + i], (uint8_t)(i * 7 + tag));
	info("%s: %u bytes written and read back through %d descriptor(s)", who, len, ndesc);
	return 0;
}

/* INQUIRY (a unit attention retried), then rw_verify(). */
static int first_io(struct conn *c, uint64_t tag, uint16_t blocks, int ndesc, const char *who)
{
	struct rspinfo ri;
	char s[160];
	int k;

	for (k = 0; k < 3; k++) {
		if (send_inquiry(c, tag + 0x10 + k) || wait_rsp(c, tag + 0x10 + k, 15000, &ri))
			return fail("%s: INQUIRY: %s within 15 s", who, conn_state(c));
		if (ri.status == SAM_GOOD)
			break;
		fmt_rsp(&ri, s, sizeof(s));
		if (ri.status != SAM_CHECK_CONDITION || ri.sense_key != 0x6 || k == 2)
			return fail("%s: INQUIRY: %s", who, s);
	}
	return rw_verify(c, tag, 0x100 + (uint32_t)(tag & 0xff00) / 0x10, blocks, ndesc, who);
}

static int login_as(struct conn *c, struct login_opts *o, const char *who)
{
	uint32_t rej = 0;
	int r = conn_open(c, o, &rej);

	if (r < 0)
		return 1;
	if (r == 0)
		return fail("%s: login (it_iu_len %u, formats 0x%x, flags 0x%02x) rejected, reason 0x%08x",
			    who, o->it_iu_len, o->buf_fmt, o->flags, rej);
	info("%s: logged in, max_it_iu_len %u, max_ti_iu_len %u, credits %d, flags 0x%02x",
	     who, c->max_it, c->max_ti, c->credits, c->rsp_flags);
	if (c->max_it != o->it_iu_len)
		return fail("%s: max_it_iu_len %u, asked for %u", who, c->max_it, o->it_iu_len);
	if (!(o->flags & LOGIN_IMMED_REQUESTED) && (c->rsp_flags & LOGIN_RSP_IMMED_SUPP))
		return fail("%s: immediate data granted without being asked for (flags 0x%02x)",
			    who, c->rsp_flags);
	return 0;
}

/* Log in with @o as @who would, then its first I/O. */
static int login_io(struct login_opts *o, uint64_t tag, uint16_t blocks, int ndesc,
		    const char *who)
{
	struct conn c;
	int r = login_as(&c, o, who);

	if (!r)
		r = first_io(&c, tag, blocks, ndesc, who);
	conn_close(&c);
	return r;
}

int case_initiator_ipxe(void)
{
	struct login_opts o;

	login_defaults(&o);
	o.it_iu_len = 80;
	o.buf_fmt = SRP_BUF_FORMAT_DIRECT;
	o.flags = 0;		/* one channel, no immediate data */
	o.imm_off = 0;
	return login_io(&o, 0x1e00, 8, 1, "iPXE");
}

int case_initiator_esxi(void)
{
	struct login_opts o;

	login_defaults(&o);
	o.it_iu_len = 580;
	o.flags = LOGIN_MULTICHAN_MULTI;
	o.imm_off = 0;
	/* 48 + 20 + 16 * 16 = 324 bytes: within 580 */
	return login_io(&o, 0xe500, 128, 16, "ESXi");
}

int case_initiator_winof(void)
{
	struct login_opts o;
	struct conn a, b = { 0 };
	uint32_t rej = 0, qpn;
	char send_size[32];
	uint32_t iu = WINOF_MAX_IU;
	int r;

	/* The IOC profile's send size is srp_max_req_size. */
	if (!read_attr("/sys/module/ib_srpt/parameters/srp_max_req_size", send_size,
		       sizeof(send_size)) && strtoul(send_size, NULL, 0) < iu)
		iu = strtoul(send_size, NULL, 0);
	/* A format the target cannot take: the REJ must say so, and only so. */
	login_defaults(&o);
	o.it_iu_len = iu;
	o.flags = 0;
	o.imm_off = 0;
	o.buf_fmt = 0;
	r = conn_open(&a, &o, &rej);
	conn_free(&a);
	if (r < 0)
		return 1;
	if (r == 1)
		return fail("WinOF: a login with no supported descriptor format was accepted");
	if (rej != REJ_UNSUPPORTED_DESCRIPTOR_FMT)
		return fail("WinOF: REJ reason 0x%08x, the retry needs 0x%08x (any other is fatal)",
			    rej, REJ_UNSUPPORTED_DESCRIPTOR_FMT);
	/* Its retry: direct descriptors only, at once. */
	o.buf_fmt = SRP_BUF_FORMAT_DIRECT;
	if (login_as(&a, &o, "WinOF retry")) {
		conn_close(&a);
		return 1;
	}
	r = first_io(&a, 0x3100, 8, 1, "WinOF");
	qpn = a.qp->qp_num;
	/* A reconnect: single-channel again, terminating the first channel. */
	o.buf_fmt = SRP_BUF_FORMAT_DIRECT | SRP_BUF_FORMAT_INDIRECT;
	if (!r && login_as(&b, &o, "WinOF reconnect")) {
		conn_close(&a);
		conn_close(&b);
		return 1;
	}
	if (!r)
		r = replaced_by_single(&a, &b, "WinOF reconnect");
	if (!r) {
		rdma_disconnect(a.id);
		r = wait_target_qp_gone(qpn, 30000, "after the WinOF reconnect");
	}
	if (!r)
		r = first_io(&b, 0x3200, 16, 4, "WinOF reconnect");
	conn_close(&a);
	conn_close(&b);
	return r;
}
