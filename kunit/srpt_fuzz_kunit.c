// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzzing the parsers of what initiators and subnet peers send, with
 * seeded random inputs shaped like the real thing plus boundary values:
 *
 * - SRP_CMD (srpt_get_desc_tbl(), srpt_check_cmd()): every data-buffer
 *   format and count, additional CDB lengths, indirect tables inline and in
 *   initiator memory, immediate data, lengths near the 32-bit limits, and
 *   IU lengths cut anywhere. Checked: an accepted IU's descriptors lie
 *   inside it, totals are the 64-bit sums, immediate data lies inside the
 *   IU, the IU itself is never written, a refused IU leaves no
 *   descriptor behind, and the fast check of the common command
 *   (srpt_check_rw()) accepts only what the full one accepts, with the
 *   same result (srpt_fuzz_srp_cmd()).
 * - Initiator port IDs and portal names (srpt_fuzz_names()).
 * - ACL names, the srpt_service_guid parameter and TPG names
 *   (srpt_fuzz_cfg_names()).
 * - SRP_LOGIN_REQ (srpt_check_login_req(), srpt_ch_login_sizes(), the
 *   LOGIN_RSP/REJ and the port-ID ACL match) (srpt_fuzz_login()).
 * - What an IU is from its opcode and length (srpt_classify_iu(),
 *   srpt_iu_takes_credit()), then the parser it goes to
 *   (srpt_fuzz_iu_dispatch()).
 * - SRP_TSK_MGMT (srpt_tmf_decode(), srpt_tmf_rsp_code(),
 *   srpt_build_tskmgmt_rsp()) (srpt_fuzz_tsk_mgmt()).
 * - Device Management MADs (srpt_dm_answer()) (srpt_fuzz_dm()).
 *
 * The PRNG is seeded (the seed is printed), so a failure repeats. IUs and
 * MADs end exactly where their allocation ends: KASAN reports any read or
 * write past them. The kernel command line sets the number of inputs per
 * case, the seed and a time limit per case (make fuzz):
 * ib_srpt.fuzz_inputs=, ib_srpt.fuzz_seed=, ib_srpt.fuzz_seconds=.
 */

#include <linux/prandom.h>
#include <linux/jiffies.h>
#include "srpt_kunit.h"

#define SRPT_FUZZ_INPUTS	100000
#define SRPT_FUZZ_INPUTS_MIN	10000
#define SRPT_FUZZ_IU_MAX	1024
/* The longest IU the dispatch sees: srp_max_req_size's default. */
#define SRPT_FUZZ_RECV_MAX	SRPT_MAX_REQ_SIZE_DEFAULT
#define SRPT_FUZZ_SEED		0x5259505453525054ULL

static unsigned int srpt_fuzz_inputs = SRPT_FUZZ_INPUTS;
module_param_named(fuzz_inputs, srpt_fuzz_inputs, uint, 0444);
MODULE_PARM_DESC(fuzz_inputs,
		 "KUnit ib_srpt_fuzz: inputs per case (at least 10000; default 100000).");

static unsigned long long srpt_fuzz_seed;
module_param_named(fuzz_seed, srpt_fuzz_seed, ullong, 0444);
MODULE_PARM_DESC(fuzz_seed,
		 "KUnit ib_srpt_fuzz: seed of the first case, the next cases take the following values (default 0: a fixed seed).");

static unsigned int srpt_fuzz_seconds;
module_param_named(fuzz_seconds, srpt_fuzz_seconds, uint, 0444);
MODULE_PARM_DESC(fuzz_seconds,
		 "KUnit ib_srpt_fuzz: stop a case after this many seconds (default 0: no limit).");

struct srpt_fuzz {
	struct rnd_state	rnd;
	u32			inputs;		/* to run */
	unsigned long		t0;		/* jiffies at the start */
	bool			timed_out;	/* stopped by fuzz_seconds */
	u8			*scratch;	/* the IU being built */
	u8			*buf;		/* SRPT_FUZZ_IU_MAX; IU at its end */
	u8			*copy;		/* the IU as handed over */
	unsigned long		accepted[4];	/* none, direct, indirect, imm */
	unsigned long		ext, refused, checked_refused;
};

/* Seeds case @k and prints what a rerun needs. */
static void srpt_fuzz_start(struct kunit *test, struct srpt_fuzz *f, u32 k,
			    const char *what)
{
	u64 seed = (srpt_fuzz_seed ?: SRPT_FUZZ_SEED) + k;

	prandom_seed_state(&f->rnd, seed);
	f->inputs = max_t(u32, srpt_fuzz_inputs, SRPT_FUZZ_INPUTS_MIN);
	f->t0 = jiffies;
	kunit_info(test, "seed %#llx, %u %s, time limit %u s", seed, f->inputs,
		   what, srpt_fuzz_seconds);
}

/* Whether to run input @n: not all done and, past the minimum, in time. */
static bool srpt_fuzz_more(struct srpt_fuzz *f, u32 n)
{
	if (n >= f->inputs)
		return false;
	if (srpt_fuzz_seconds && n >= SRPT_FUZZ_INPUTS_MIN && !(n % 1024) &&
	    time_after(jiffies, f->t0 + srpt_fuzz_seconds * HZ)) {
		f->timed_out = true;
		return false;
	}
	return true;
}

/*
 * Every input ran, unless the time limit stopped the case. Return: true
 * if the case ran to its end, so that its coverage counts mean something.
 */
static bool srpt_fuzz_end(struct kunit *test, struct srpt_fuzz *f, u32 n)
{
	if (f->timed_out) {
		kunit_info(test, "time limit reached after %u of %u inputs", n,
			   f->inputs);
		return true;
	}
	KUNIT_EXPECT_EQ(test, n, f->inputs);
	return n == f->inputs;
}

static u32 srpt_fuzz_u32(struct srpt_fuzz *f)
{
	return prandom_u32_state(&f->rnd);
}

/* 0..@n - 1; @n is never 0. */
static u32 srpt_fuzz_pick(struct srpt_fuzz *f, u32 n)
{
	return srpt_fuzz_u32(f) % n;
}

static u64 srpt_fuzz_u64(struct srpt_fuzz *f)
{
	return (u64)srpt_fuzz_u32(f) << 32 | srpt_fuzz_u32(f);
}

/* @v - 1, @v or @v + 1 (wrapping). */
static u32 srpt_fuzz_near(struct srpt_fuzz *f, u32 v)
{
	return v + srpt_fuzz_pick(f, 3) - 1;
}

static void srpt_fuzz_bytes(struct srpt_fuzz *f, void *p, size_t len)
{
	u8 *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		b[i] = srpt_fuzz_u32(f);
}

/* Lengths where parsers go wrong: zero, tiny, huge, powers of two. */
static u32 srpt_fuzz_len(struct srpt_fuzz *f)
{
	switch (srpt_fuzz_pick(f, 8)) {
	case 0:
		return 0;
	case 1:
		return srpt_fuzz_pick(f, 16);
	case 2:
		return U32_MAX - srpt_fuzz_pick(f, 16);
	case 3:
		return 1U << srpt_fuzz_pick(f, 32);
	case 4:
		return 4096 * srpt_fuzz_pick(f, 300);
	default:
		return srpt_fuzz_u32(f);
	}
}

static u8 srpt_fuzz_fmt(struct srpt_fuzz *f)
{
	static const u8 fmts[] = { SRP_DATA_DESC_DIRECT, SRP_DATA_DESC_INDIRECT,
				   SRP_DATA_DESC_IMM, 0 };
	u32 k = srpt_fuzz_pick(f, 6);

	return k < ARRAY_SIZE(fmts) ? fmts[k] : srpt_fuzz_pick(f, 16);
}

static void srpt_fuzz_put_buf(struct srp_direct_buf *b, u32 len, u32 r)
{
	put_unaligned_be64(0x1000ULL * r, &b->va);
	put_unaligned_be32(r, &b->key);
	put_unaligned_be32(len, &b->len);
}

/* Builds an IU in f->scratch; returns its length and the immediate offset. */
static u32 srpt_fuzz_build(struct srpt_fuzz *f, u16 *imm_off)
{
	struct srp_cmd *cmd = (struct srp_cmd *)f->scratch;
	u32 i, cnt, need, desc_off, len, sum = 0;
	u8 fmt = srpt_fuzz_fmt(f), *desc;
	bool out = srpt_fuzz_pick(f, 2);

	for (i = 0; i < SRPT_FUZZ_IU_MAX; i += 4)
		put_unaligned(srpt_fuzz_u32(f), (u32 *)(f->scratch + i));
	cmd->opcode = SRP_CMD;
	if (!srpt_fuzz_pick(f, 3))
		cmd->add_cdb_len = 0;	/* as in nearly every real command */
	else if (srpt_fuzz_pick(f, 4))
		cmd->add_cdb_len = 4 * srpt_fuzz_pick(f, 5);
	else
		cmd->add_cdb_len = srpt_fuzz_u32(f) & 0xff;
	cmd->buf_fmt = out ? fmt << 4 : fmt;
	if (!srpt_fuzz_pick(f, 8))
		cmd->buf_fmt |= out ? srpt_fuzz_fmt(f) : srpt_fuzz_fmt(f) << 4;
	cnt = srpt_fuzz_pick(f, 4) ? srpt_fuzz_pick(f, 6) : srpt_fuzz_u32(f) & 0xff;
	cmd->data_out_desc_cnt = out ? cnt : srpt_fuzz_pick(f, 3);
	cmd->data_in_desc_cnt = out ? srpt_fuzz_pick(f, 3) : cnt;
	/* Mostly the opcodes of the fast check, sometimes the wrong way. */
	if (srpt_fuzz_pick(f, 4)) {
		static const u8 rw[] = { READ_10, READ_16, WRITE_10, WRITE_16 };

		cmd->cdb[0] = rw[(srpt_fuzz_pick(f, 8) ? 2 * out : 2 * !out) +
				 srpt_fuzz_pick(f, 2)];
	} else {
		cmd->cdb[0] = srpt_fuzz_u32(f) & 0xff;
	}

	desc_off = offsetof(struct srp_cmd, add_data) + (cmd->add_cdb_len & ~3);
	desc = f->scratch + desc_off;
	need = desc_off;
	*imm_off = 0;
	if (desc_off + sizeof(struct srp_indirect_buf) +
	    (cnt + 1) * sizeof(struct srp_direct_buf) <= SRPT_FUZZ_IU_MAX) {
		switch (fmt) {
		case SRP_DATA_DESC_DIRECT:
			srpt_fuzz_put_buf((void *)desc, srpt_fuzz_len(f), 1);
			need += sizeof(struct srp_direct_buf);
			break;
		case SRP_DATA_DESC_INDIRECT: {
			struct srp_indirect_buf *ib = (void *)desc;
			u32 n = cnt;

			for (i = 0; i < cnt; i++) {
				len = srpt_fuzz_pick(f, 3) ? 512 * srpt_fuzz_pick(f, 64) :
							     srpt_fuzz_len(f);
				srpt_fuzz_put_buf(&ib->desc_list[i], len, i + 2);
				sum += len;
			}
			/* Sometimes a table larger than what is inline. */
			if (!srpt_fuzz_pick(f, 4))
				n += srpt_fuzz_pick(f, 4) ? 1 + srpt_fuzz_pick(f, 8) :
							    srpt_fuzz_pick(f, 4096);
			len = srpt_fuzz_pick(f, 8) ? n * sizeof(struct srp_direct_buf) :
						     srpt_fuzz_len(f);
			srpt_fuzz_put_buf(&ib->table_desc, len, 1);
			put_unaligned_be32(srpt_fuzz_pick(f, 4) ? sum : srpt_fuzz_len(f),
					   &ib->len);
			need += sizeof(*ib) + cnt * sizeof(struct srp_direct_buf);
			break;
		}
		case SRP_DATA_DESC_IMM:
			len = srpt_fuzz_pick(f, 2) ? srpt_fuzz_pick(f, 600) :
						     srpt_fuzz_len(f);
			put_unaligned_be32(len, (__be32 *)desc);
			*imm_off = srpt_fuzz_pick(f, 4) ?
				ALIGN(desc_off + sizeof(struct srp_imm_buf), 4) :
				srpt_fuzz_pick(f, SRPT_FUZZ_IU_MAX + 64);
			need = *imm_off + min_t(u32, len, SRPT_FUZZ_IU_MAX);
			break;
		}
	}
	if (!*imm_off && srpt_fuzz_pick(f, 2))
		*imm_off = srpt_fuzz_pick(f, 2) ? 80 : srpt_fuzz_pick(f, 0x10000);
	/* Mostly what the descriptors need, give or take; sometimes anything. */
	if (srpt_fuzz_pick(f, 4))
		len = need + srpt_fuzz_pick(f, 24) - min_t(u32, need, 8);
	else
		len = srpt_fuzz_pick(f, SRPT_FUZZ_IU_MAX + 1);
	return min_t(u32, len, SRPT_FUZZ_IU_MAX);
}

/* The invariants of one parse; false (and a failed expectation) if broken. */
static bool srpt_fuzz_check(struct kunit *test, struct srpt_fuzz *f,
			    const struct srp_cmd *cmd, u32 iu_len, u16 imm_off,
			    int ret, const struct srpt_data_desc *d)
{
	const u8 *iu = (const u8 *)cmd, *end = iu + iu_len;
	u32 desc_off;
	u64 sum = 0;
	u32 i;

	if (memcmp(iu, f->copy, iu_len)) {
		KUNIT_FAIL(test, "the parser wrote into the IU");
		return false;
	}
	if (ret) {
		f->refused++;
		if (d->bufs || d->ext_tbl || d->nbufs || d->data_len) {
			KUNIT_FAIL(test, "refused IU (%d) left descriptors: nbufs %u len %llu",
				   ret, d->nbufs, d->data_len);
			return false;
		}
		f->checked_refused++;
		return true;
	}
	desc_off = offsetof(struct srp_cmd, add_data) + (cmd->add_cdb_len & ~3);
	if (iu_len < sizeof(*cmd) || desc_off > iu_len) {
		KUNIT_FAIL(test, "accepted an IU of %u bytes, descriptors at %u",
			   iu_len, desc_off);
		return false;
	}
	switch (d->fmt) {
	case 0:
		f->accepted[0]++;
		if (d->nbufs || d->bufs || d->ext_tbl || d->data_len) {
			KUNIT_FAIL(test, "no data format, yet %u buffers", d->nbufs);
			return false;
		}
		return true;
	case SRP_DATA_DESC_DIRECT:
	case SRP_DATA_DESC_INDIRECT:
		if (d->ext_tbl) {
			f->ext++;
			if ((const u8 *)d->ext_tbl < iu + desc_off ||
			    (const u8 *)(d->ext_tbl + 1) > end ||
			    d->nbufs > SRPT_MAX_EXT_DESCS) {
				KUNIT_FAIL(test, "external table outside the IU or %u long",
					   d->nbufs);
				return false;
			}
			f->accepted[2]++;
			return true;
		}
		if (!d->bufs || (const u8 *)d->bufs < iu + desc_off ||
		    (const u8 *)(d->bufs + d->nbufs) > end) {
			KUNIT_FAIL(test, "%u descriptors reach past the %u-byte IU",
				   d->nbufs, iu_len);
			return false;
		}
		for (i = 0; i < d->nbufs; i++)
			sum += get_unaligned_be32(&d->bufs[i].len);
		if (sum != d->data_len ||
		    (d->fmt == SRP_DATA_DESC_DIRECT && d->nbufs != 1)) {
			KUNIT_FAIL(test, "data length %llu, descriptors add up to %llu",
				   d->data_len, sum);
			return false;
		}
		f->accepted[d->fmt == SRP_DATA_DESC_DIRECT ? 1 : 2]++;
		return true;
	case SRP_DATA_DESC_IMM:
		if (d->dir != DMA_TO_DEVICE || !imm_off || d->imm_off != imm_off ||
		    d->imm_off < desc_off + sizeof(struct srp_imm_buf) ||
		    (u64)d->imm_off + d->data_len > iu_len) {
			KUNIT_FAIL(test, "immediate data %u+%llu outside the %u-byte IU",
				   d->imm_off, d->data_len, iu_len);
			return false;
		}
		f->accepted[3]++;
		return true;
	default:
		KUNIT_FAIL(test, "accepted data format %u", d->fmt);
		return false;
	}
}

/*
 * srpt_check_rw() decides only what srpt_check_cmd_full() accepts, with
 * the same result in every field the data path reads.
 */
static bool srpt_fuzz_check_rw(struct kunit *test, const struct srpt_rdma_ch *ch,
			       const struct srp_cmd *cmd, u32 iu_len, u32 n)
{
	struct srpt_data_desc fast, full;
	int ret;

	if (!srpt_check_rw(ch, cmd, iu_len, &fast))
		return false;
	ret = srpt_check_cmd_full(ch, cmd, iu_len, &full);
	if (ret || fast.dir != full.dir || fast.fmt != full.fmt ||
	    fast.nbufs != full.nbufs || fast.bufs != full.bufs ||
	    fast.ext_tbl != full.ext_tbl || fast.data_len != full.data_len ||
	    fast.imm_off != full.imm_off)
		KUNIT_FAIL(test, "input %u: opcode %#x buf_fmt %#x: fast %d/%llu, full %d: %d/%llu",
			   n, cmd->cdb[0], cmd->buf_fmt, fast.dir, fast.data_len,
			   ret, full.dir, full.data_len);
	return true;
}

static void srpt_fuzz_srp_cmd(struct kunit *test)
{
	struct srpt_rdma_ch *ch = kunit_kzalloc(test, sizeof(*ch), GFP_KERNEL);
	struct srpt_fuzz *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	unsigned long t0 = jiffies, too_big = 0, fast = 0, fast_full = 0;
	struct srpt_data_desc d;
	struct srp_cmd *cmd;
	u32 n, iu_len;
	u16 imm_off;
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, ch);
	KUNIT_ASSERT_NOT_NULL(test, f);
	f->scratch = kunit_kzalloc(test, SRPT_FUZZ_IU_MAX, GFP_KERNEL);
	f->copy = kunit_kzalloc(test, SRPT_FUZZ_IU_MAX, GFP_KERNEL);
	/* kmalloc, not kunit_kzalloc: KASAN's redzone starts right at its end */
	f->buf = kmalloc(SRPT_FUZZ_IU_MAX, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f->scratch);
	KUNIT_ASSERT_NOT_NULL(test, f->copy);
	KUNIT_ASSERT_NOT_NULL(test, f->buf);
	srpt_fuzz_start(test, f, 0, "IUs");
	ch->lim.max_data_len = SRPT_MAX_RDMA_SIZE_DEFAULT;

	for (n = 0; srpt_fuzz_more(f, n); n++) {
		iu_len = srpt_fuzz_build(f, &imm_off);
		cmd = (struct srp_cmd *)(f->buf + SRPT_FUZZ_IU_MAX - iu_len);
		memcpy(cmd, f->scratch, iu_len);
		memcpy(f->copy, f->scratch, iu_len);
		ret = srpt_get_desc_tbl(cmd, iu_len, imm_off, &d);
		if (!srpt_fuzz_check(test, f, cmd, iu_len, imm_off, ret, &d))
			break;
		/* The whole command check: the length limit holds after it. */
		ch->lim.imm_data_offset = imm_off;
		ret = srpt_check_cmd(ch, cmd, iu_len, &d);
		if (ret == -E2BIG)
			too_big++;
		if (ret == -E2BIG && d.data_len <= ch->lim.max_data_len) {
			KUNIT_FAIL(test, "input %u: %llu bytes called too big", n,
				   d.data_len);
			break;
		}
		if (!ret && d.data_len > ch->lim.max_data_len) {
			KUNIT_FAIL(test, "input %u: %llu bytes accepted, limit %u", n,
				   d.data_len, ch->lim.max_data_len);
			break;
		}
		if (srpt_fuzz_check_rw(test, ch, cmd, iu_len, n))
			fast++;
		else if (!ret && d.fmt == SRP_DATA_DESC_DIRECT)
			fast_full++;
	}
	kfree(f->buf);
	kunit_info(test, "%u inputs in %u ms: accepted none %lu, direct %lu (fast check %lu, full %lu), indirect %lu (%lu external), immediate %lu; refused %lu; too big %lu",
		   n, jiffies_to_msecs(jiffies - t0), f->accepted[0], f->accepted[1],
		   fast, fast_full, f->accepted[2], f->ext, f->accepted[3],
		   f->refused, too_big);
	/* A generator that only produces refusals would test nothing. */
	if (!srpt_fuzz_end(test, f, n))
		return;
	KUNIT_EXPECT_GT(test, f->accepted[1], n / 100UL);
	/* Both ways a direct descriptor is accepted are well exercised. */
	KUNIT_EXPECT_GT(test, fast, n / 100UL);
	KUNIT_EXPECT_GT(test, fast_full, n / 100UL);
	KUNIT_EXPECT_GT(test, f->accepted[2] - f->ext, n / 100UL);
	KUNIT_EXPECT_GT(test, f->ext, n / 1000UL);
	KUNIT_EXPECT_GT(test, f->accepted[3], n / 100UL);
	KUNIT_EXPECT_GT(test, f->checked_refused, n / 10UL);
}

/* @n bytes of @buf as a string allocated to the byte: KASAN sees any read beyond. */
static char *srpt_fuzz_dup(const char *buf, u32 n, u32 *len)
{
	char *name = kmalloc(n + 1, GFP_KERNEL);

	if (name) {
		memcpy(name, buf, n);
		name[n] = '\0';
	}
	*len = n;
	return name;
}

/* A random name from the characters these parsers care about. */
static char *srpt_fuzz_name(struct srpt_fuzz *f, char *buf, u32 *len)
{
	static const char alpha[] = "0123456789abcdefABCDEFxX:.[]%-ib\nlo ";
	static const char * const seeds[] = {
		"0x", "ib.", "fe80::", "192.0.2.", "[", "]:", "%lo", ":5555",
		"0000:0000:0000:0000:", "::ffff:", "0X", "\n",
	};
	u32 n = srpt_fuzz_pick(f, 64), i = 0, k;

	/* A third are shaped like portals: v4, or bracketed v6 with a scope. */
	switch (srpt_fuzz_pick(f, 6)) {
	case 0:
		i = scnprintf(buf, 64, "%u.%u.%u.%u:%u", srpt_fuzz_pick(f, 300),
			      srpt_fuzz_pick(f, 256), srpt_fuzz_pick(f, 256),
			      srpt_fuzz_pick(f, 256), srpt_fuzz_pick(f, 70000));
		break;
	case 1:
		i = scnprintf(buf, 64, "[%s", srpt_fuzz_pick(f, 2) ? "fe80:" : "");
		for (k = srpt_fuzz_pick(f, 9); k; k--)
			i += scnprintf(buf + i, 64 - i, ":%x", srpt_fuzz_pick(f, 0x11000));
		i += scnprintf(buf + i, 64 - i, "%s]:%u",
			       srpt_fuzz_pick(f, 3) ? "" : srpt_fuzz_pick(f, 2) ? "%lo" : "%1",
			       srpt_fuzz_pick(f, 70000));
		break;
	}
	/* Then some mutations or, for the rest, random characters. */
	if (i) {
		for (k = srpt_fuzz_pick(f, 3) ? 0 : 1 + srpt_fuzz_pick(f, 3); k; k--)
			buf[srpt_fuzz_pick(f, i)] = alpha[srpt_fuzz_pick(f, sizeof(alpha) - 1)];
		n = i;
	}
	while (i < n) {
		if (!srpt_fuzz_pick(f, 6)) {
			const char *seed = seeds[srpt_fuzz_pick(f, ARRAY_SIZE(seeds))];

			while (*seed && i < n)
				buf[i++] = *seed++;
		} else {
			buf[i++] = alpha[srpt_fuzz_pick(f, sizeof(alpha) - 1)];
		}
	}
	return srpt_fuzz_dup(buf, n, len);
}

/*
 * Initiator port IDs and portal names: what parses renders back to the
 * same value, and a refused name leaves its output untouched (port ID) or
 * zeroed (portal address).
 */
static void srpt_fuzz_names(struct kunit *test)
{
	struct srpt_fuzz *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	char *buf = kunit_kzalloc(test, 128, GFP_KERNEL);
	char *out = kunit_kzalloc(test, 128, GFP_KERNEL);
	unsigned long ids = 0, v4 = 0, v6 = 0, scoped = 0, refused = 0;
	struct sockaddr_storage ss, ss2;
	static const u8 zero[sizeof(ss)];
	u8 id[16], id2[16];
	u32 n, len;
	char *name;
	bool ok = true;

	KUNIT_ASSERT_NOT_NULL(test, f);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, out);
	srpt_fuzz_start(test, f, 1, "names");
	for (n = 0; ok && srpt_fuzz_more(f, n); n++) {
		name = srpt_fuzz_name(f, buf, &len);
		KUNIT_ASSERT_NOT_NULL(test, name);
		memset(id, 0xa5, sizeof(id));
		if (!srpt_parse_i_port_id(id, name)) {
			ids++;
			snprintf(out, 128, "0x%16phN", id);
			ok = !srpt_parse_i_port_id(id2, out) && !memcmp(id, id2, 16);
			if (!ok)
				KUNIT_FAIL(test, "port ID '%s' parses, '%s' does not round-trip",
					   name, out);
		} else if (memchr_inv(id, 0xa5, sizeof(id))) {
			KUNIT_FAIL(test, "refused port ID '%s' wrote its output", name);
			ok = false;
		}
		if (ok && !srpt_portal_parse(&init_net, name, &ss)) {
			if (ss.ss_family == AF_INET) {
				v4++;
				snprintf(out, 128, "%pI4:%u",
					 &((struct sockaddr_in *)&ss)->sin_addr,
					 be16_to_cpu(((struct sockaddr_in *)&ss)->sin_port));
			} else {
				struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;

				v6++;
				/* A scope given by name renders as its index. */
				if (a6->sin6_scope_id) {
					scoped++;
					snprintf(out, 128, "[%pI6c%%%u]:%u",
						 &a6->sin6_addr, a6->sin6_scope_id,
						 be16_to_cpu(a6->sin6_port));
				} else {
					snprintf(out, 128, "[%pI6c]:%u", &a6->sin6_addr,
						 be16_to_cpu(a6->sin6_port));
				}
			}
			ok = !srpt_portal_parse(&init_net, out, &ss2) &&
			     !memcmp(&ss, &ss2, sizeof(ss));
			if (!ok)
				KUNIT_FAIL(test, "portal '%s' parses, '%s' does not round-trip",
					   name, out);
		} else if (ok) {
			refused++;
			if (memcmp(&ss, zero, sizeof(ss))) {
				KUNIT_FAIL(test, "refused portal '%s' left an address behind",
					   name);
				ok = false;
			}
		}
		kfree(name);
	}
	kunit_info(test, "%u names: port IDs %lu, IPv4 portals %lu, IPv6 portals %lu (%lu scoped), refused portals %lu",
		   n, ids, v4, v6, scoped, refused);
	if (!srpt_fuzz_end(test, f, n))
		return;
	KUNIT_EXPECT_GT(test, ids, 0UL);
	KUNIT_EXPECT_GT(test, v4, 0UL);
	KUNIT_EXPECT_GT(test, v6, 0UL);
	KUNIT_EXPECT_GT(test, scoped, 0UL);
}

/* An ACL or GUID name: GUID-, address- and port-ID-shaped, then mutated. */
static char *srpt_fuzz_acl_name(struct srpt_fuzz *f, char *buf, u32 *len)
{
	static const char alpha[] = "0123456789abcdefABCDEFxX:.[]\n ";
	u32 n = 0, k;

	switch (srpt_fuzz_pick(f, 5)) {
	case 0:
		for (k = 3 + srpt_fuzz_pick(f, 3); k; k--)
			n += scnprintf(buf + n, 64 - n, "%s%x", n ? ":" : "",
				       srpt_fuzz_pick(f, 0x11000));
		break;
	case 1:
		n = scnprintf(buf, 64, "%u.%u.%u.%u", srpt_fuzz_pick(f, 300),
			      srpt_fuzz_pick(f, 256), srpt_fuzz_pick(f, 256),
			      srpt_fuzz_pick(f, 256));
		break;
	case 2:
		n = scnprintf(buf, 64, "%sfe80::%x:%x%s", srpt_fuzz_pick(f, 2) ? "[" : "",
			      srpt_fuzz_pick(f, 0x11000), srpt_fuzz_pick(f, 0x11000),
			      srpt_fuzz_pick(f, 2) ? "]" : "");
		break;
	case 3:
		/* up to 16 hex digits (a GUID) or up to 32 (a port ID) */
		n = scnprintf(buf, 64, "%s%llx", srpt_fuzz_pick(f, 2) ? "0x" : "",
			      ((u64)srpt_fuzz_u32(f) << 32 | srpt_fuzz_u32(f)) >>
			      srpt_fuzz_pick(f, 64));
		if (srpt_fuzz_pick(f, 2))
			n += scnprintf(buf + n, 64 - n, "%016llx",
				       (u64)srpt_fuzz_u32(f) << 32 | srpt_fuzz_u32(f));
		break;
	default:
		return srpt_fuzz_name(f, buf, len);
	}
	for (k = srpt_fuzz_pick(f, 3) ? 0 : 1 + srpt_fuzz_pick(f, 2); k; k--)
		buf[srpt_fuzz_pick(f, n)] = alpha[srpt_fuzz_pick(f, sizeof(alpha) - 1)];
	if (!srpt_fuzz_pick(f, 8) && n < 63)
		buf[n++] = '\n';
	return srpt_fuzz_dup(buf, n, len);
}

/* A TPG directory name: mostly "tpgt" and a mutated number, else any name. */
static char *srpt_fuzz_tpg_name(struct srpt_fuzz *f, char *buf, u32 *len)
{
	static const char tail[] = "_0123456789+- x\n";
	u32 n = 4, k;

	if (srpt_fuzz_pick(f, 4) == 0)
		return srpt_fuzz_name(f, buf, len);
	memcpy(buf, "tpgt", 4);
	if (srpt_fuzz_pick(f, 2))
		n += scnprintf(buf + n, 64 - n, "_%u", srpt_fuzz_pick(f, 2) ?
			       srpt_fuzz_pick(f, 70000) : srpt_fuzz_u32(f));
	for (k = srpt_fuzz_pick(f, 3) ? 0 : 1 + srpt_fuzz_pick(f, 3); k && n < 40; k--)
		buf[srpt_fuzz_pick(f, 3) ? n++ : 4 + srpt_fuzz_pick(f, n - 3)] =
			tail[srpt_fuzz_pick(f, sizeof(tail) - 1)];
	return srpt_fuzz_dup(buf, n, len);
}

/*
 * ACL names, the srpt_service_guid parameter and TPG names: what parses
 * renders back to the same value in the form the parser reported, and a
 * refused name leaves its output untouched. rdma_cm_port is kstrtou16()
 * alone, as for the in-kernel driver: nothing of ours to fuzz.
 */
static void srpt_fuzz_cfg_names(struct kunit *test)
{
	struct srpt_fuzz *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	char *buf = kunit_kzalloc(test, 128, GFP_KERNEL);
	char *out = kunit_kzalloc(test, 128, GFP_KERNEL);
	unsigned long forms[3] = { }, guids = 0, tpgt = 0, other_tpg = 0;
	struct sockaddr_storage ss, ss2;
	enum srpt_acl_form form, form2;
	u8 id[16], id2[16];
	u64 guid, guid2;
	u16 tag, tag2;
	u32 n, len;
	char *name;
	bool ok = true;

	KUNIT_ASSERT_NOT_NULL(test, f);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, out);
	srpt_fuzz_start(test, f, 6, "configfs and parameter names");
	for (n = 0; ok && srpt_fuzz_more(f, n); n++) {
		name = srpt_fuzz_acl_name(f, buf, &len);
		KUNIT_ASSERT_NOT_NULL(test, name);
		memset(id, 0xa5, sizeof(id));
		if (srpt_parse_acl_name(name, id, &form)) {
			ok = !memchr_inv(id, 0xa5, sizeof(id));
			if (!ok)
				KUNIT_FAIL(test, "refused ACL name '%s' wrote its output", name);
		} else if (strchr(name, '\n') && strchr(name, '\n') != name + len - 1) {
			/* one trailing newline (echo) is fine, more text after it is not */
			KUNIT_FAIL(test, "ACL name '%s' accepted with text after a newline", name);
			ok = false;
		} else if (form == SRPT_ACL_IP) {
			forms[form]++;
			ok = !memchr_inv(id, 0xa5, sizeof(id)) && !srpt_acl_name_addr(name, &ss);
			if (ss.ss_family == AF_INET)
				snprintf(out, 128, "%pI4", &((struct sockaddr_in *)&ss)->sin_addr);
			else
				snprintf(out, 128, "%pI6c",
					 &((struct sockaddr_in6 *)&ss)->sin6_addr);
			ok = ok && !srpt_parse_acl_name(out, id2, &form2) && form2 == SRPT_ACL_IP &&
			     !srpt_acl_name_addr(out, &ss2) && !memcmp(&ss, &ss2, sizeof(ss));
			if (!ok)
				KUNIT_FAIL(test, "address ACL '%s' does not round-trip as '%s'",
					   name, out);
		} else {
			forms[form]++;
			if (form == SRPT_ACL_GUID)
				snprintf(out, 128, "%04x:%04x:%04x:%04x",
					 get_unaligned_be16(id + 8), get_unaligned_be16(id + 10),
					 get_unaligned_be16(id + 12), get_unaligned_be16(id + 14));
			else
				snprintf(out, 128, "0x%16phN", id);
			ok = (form != SRPT_ACL_GUID || !memchr_inv(id, 0, 8)) &&
			     !srpt_parse_acl_name(out, id2, &form2) && form2 == form &&
			     !memcmp(id, id2, sizeof(id));
			if (!ok)
				KUNIT_FAIL(test, "ACL '%s' (form %d) does not round-trip as '%s'",
					   name, form, out);
		}
		guid = 0xa5a5a5a5a5a5a5a5ULL;
		if (ok && !srpt_parse_service_guid(name, &guid)) {
			guids++;
			snprintf(out, 128, "%llx", guid);
			ok = !srpt_parse_service_guid(out, &guid2) && guid2 == guid;
			if (!ok)
				KUNIT_FAIL(test, "GUID '%s' does not round-trip as '%s'",
					   name, out);
		} else if (ok && guid != 0xa5a5a5a5a5a5a5a5ULL) {
			KUNIT_FAIL(test, "refused GUID '%s' wrote its output", name);
			ok = false;
		}
		kfree(name);

		name = srpt_fuzz_tpg_name(f, buf, &len);
		KUNIT_ASSERT_NOT_NULL(test, name);
		if (ok && !srpt_tpg_name_tag(name, &tag)) {
			if (strncmp(name, "tpgt", 4)) {
				other_tpg++;
				ok = tag == 1;
			} else {
				tpgt++;
				/* rtslib looks the TPG up again as "tpgt_%d" */
				snprintf(out, 128, "tpgt_%u", tag);
				ok = !strcmp(out, name) && !srpt_tpg_name_tag(out, &tag2) &&
				     tag2 == tag;
			}
			if (!ok)
				KUNIT_FAIL(test,
					   "TPG '%s' accepted as tag %u, which rtslib finds as '%s'",
					   name, tag, out);
		}
		kfree(name);
	}
	kunit_info(test, "%u inputs: ACL port IDs %lu, GUIDs %lu, addresses %lu; service GUIDs %lu; TPGs tpgt_N %lu, other %lu",
		   n, forms[SRPT_ACL_PORT_ID], forms[SRPT_ACL_GUID], forms[SRPT_ACL_IP], guids,
		   tpgt, other_tpg);
	if (!srpt_fuzz_end(test, f, n))
		return;
	KUNIT_EXPECT_GT(test, forms[SRPT_ACL_PORT_ID], 0UL);
	KUNIT_EXPECT_GT(test, forms[SRPT_ACL_GUID], 0UL);
	KUNIT_EXPECT_GT(test, forms[SRPT_ACL_IP], 0UL);
	KUNIT_EXPECT_GT(test, guids, 0UL);
	KUNIT_EXPECT_GT(test, tpgt, 0UL);
	KUNIT_EXPECT_GT(test, other_tpg, 0UL);
}

/* SRP_LOGIN_REQ ---------------------------------------------------------- */

/* The limit on srp_max_req_size that srpt_init_module() enforces, or near. */
static u32 srpt_fuzz_max_req(struct srpt_fuzz *f)
{
	u32 range = SRPT_MAX_REQ_SIZE_MAX - SRPT_MAX_REQ_SIZE_MIN + 1;

	switch (srpt_fuzz_pick(f, 6)) {
	case 0:
		return SRPT_MAX_REQ_SIZE_MIN + srpt_fuzz_pick(f, 2);
	case 1:
		return SRPT_MAX_REQ_SIZE_DEFAULT;
	case 2:
		return SRPT_MAX_REQ_SIZE_MAX - srpt_fuzz_pick(f, 2);
	case 3:
		return SRPT_MAX_REQ_SIZE_MIN + srpt_fuzz_pick(f, 16384);
	default:
		return SRPT_MAX_REQ_SIZE_MIN + srpt_fuzz_pick(f, range);
	}
}

static u32 srpt_fuzz_it_iu_len(struct srpt_fuzz *f, u32 max_req)
{
	switch (srpt_fuzz_pick(f, 8)) {
	case 0:
		return srpt_fuzz_near(f, SRPT_MIN_IT_IU_LEN);
	case 1:
		return srpt_fuzz_near(f, max_req);
	case 2:
		return srpt_fuzz_len(f);
	case 3:
		return srpt_fuzz_near(f, KMALLOC_MAX_SIZE);
	default:
		return SRPT_MIN_IT_IU_LEN +
		       srpt_fuzz_pick(f, max_req - SRPT_MIN_IT_IU_LEN + 1);
	}
}

static u16 srpt_fuzz_imm_off(struct srpt_fuzz *f, u32 it_iu_len)
{
	u32 room = min_t(u32, it_iu_len, 0x10000);

	switch (srpt_fuzz_pick(f, 6)) {
	case 0:
		return srpt_fuzz_near(f, SRPT_IMM_DATA_OFFSET_MIN);
	case 1:
		return srpt_fuzz_near(f, room);
	case 2:
		return srpt_fuzz_near(f, SECTOR_SIZE * srpt_fuzz_pick(f, 129));
	case 3:
		return srpt_fuzz_u32(f);
	default:
		if (room <= SRPT_IMM_DATA_OFFSET_MIN)
			return srpt_fuzz_u32(f);
		return SRPT_IMM_DATA_OFFSET_MIN +
		       srpt_fuzz_pick(f, room - SRPT_IMM_DATA_OFFSET_MIN);
	}
}

/* A login request, mostly valid, each field sometimes anything. */
static void srpt_fuzz_login_req(struct srpt_fuzz *f, struct srp_login_req *req,
				const u8 t_port_id[16], u32 max_req)
{
	static const u16 fmts[] = {
		SRP_BUF_FORMAT_DIRECT | SRP_BUF_FORMAT_INDIRECT,
		SRP_BUF_FORMAT_DIRECT, SRP_BUF_FORMAT_INDIRECT, 0,
		(SRP_BUF_FORMAT_DIRECT | SRP_BUF_FORMAT_INDIRECT) << 8,
	};
	u32 it_iu_len = srpt_fuzz_it_iu_len(f, max_req);
	u32 k;

	srpt_fuzz_bytes(f, req, sizeof(*req));
	if (srpt_fuzz_pick(f, 16))
		req->opcode = SRP_LOGIN_REQ;
	req->req_it_iu_len = cpu_to_be32(it_iu_len);
	k = srpt_fuzz_pick(f, ARRAY_SIZE(fmts) + 2);
	if (k < ARRAY_SIZE(fmts))
		req->req_buf_fmt = cpu_to_be16(fmts[k]);
	if (srpt_fuzz_pick(f, 4))
		req->req_flags = (srpt_fuzz_pick(f, 2) ? SRP_IMMED_REQUESTED : 0) |
				 (srpt_fuzz_pick(f, 2) ? SRP_MULTICHAN_MULTI : 0);
	req->imm_data_offset = cpu_to_be16(srpt_fuzz_imm_off(f, it_iu_len));
	/* GUID-form initiators: the upper half zero. */
	if (!srpt_fuzz_pick(f, 4))
		memset(req->initiator_port_id, 0, 8);
	k = srpt_fuzz_pick(f, 16);
	if (k > 1)
		memcpy(req->target_port_id, t_port_id, 16);
	if (k == 1) {
		memcpy(req->target_port_id, t_port_id, 16);
		req->target_port_id[srpt_fuzz_pick(f, 16)] ^= 1 << srpt_fuzz_pick(f, 8);
	}
}

/* The SRP_LOGIN_REJ reasons SRP defines. */
static bool srpt_fuzz_rej_reason_defined(u32 reason)
{
	switch (reason) {
	case SRP_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL:
	case SRP_LOGIN_REJ_INSUFFICIENT_RESOURCES:
	case SRP_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE:
	case SRP_LOGIN_REJ_UNABLE_ASSOCIATE_CHANNEL:
	case SRP_LOGIN_REJ_UNSUPPORTED_DESCRIPTOR_FMT:
	case SRP_LOGIN_REJ_MULTI_CHANNEL_UNSUPPORTED:
	case SRP_LOGIN_REJ_CHANNEL_LIMIT_REACHED:
		return true;
	default:
		return false;
	}
}

/* The reasons of the checks srpt_fuzz_rej_check() knows, in its order. */
static const u32 srpt_fuzz_rej_checks[] = {
	SRP_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL,
	SRP_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE,
	SRP_LOGIN_REJ_UNABLE_ASSOCIATE_CHANNEL,
	SRP_LOGIN_REJ_UNSUPPORTED_DESCRIPTOR_FMT,
	SRP_LOGIN_REJ_INSUFFICIENT_RESOURCES,
};

struct srpt_fuzz_login {
	struct srpt_fuzz	f;
	struct srpt_device	*sdev;
	struct srpt_port	*sport;
	struct srpt_rdma_ch	*ch;
	struct srp_login_req	*req;	/* exactly one request */
	struct srp_login_rsp	*rsp;	/* exactly one response */
	struct srp_login_rej	*rej;	/* exactly one reject */
	struct srp_login_req	copy;
	u8			t_port_id[16];
	u32			max_req;
	bool			enabled;
	unsigned long		accepted, imm, srq;
	unsigned long		reasons[ARRAY_SIZE(srpt_fuzz_rej_checks)];
};

/*
 * A refusal names one check the request fails: 0 opcode or IU too small,
 * 1 IU too large, 2 another target port, 3 no usable descriptor format,
 * 4 port not enabled. Return: its index, or -1 if the request passes it.
 */
static int srpt_fuzz_rej_check(const struct srpt_fuzz_login *l, u32 reason)
{
	const struct srp_login_req *req = &l->copy;
	u32 len = be32_to_cpu(req->req_it_iu_len);

	switch (reason) {
	case SRP_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL:
		return req->opcode != SRP_LOGIN_REQ || len < SRPT_MIN_IT_IU_LEN ? 0 : -1;
	case SRP_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE:
		return len > l->max_req ? 1 : -1;
	case SRP_LOGIN_REJ_UNABLE_ASSOCIATE_CHANNEL:
		return memcmp(req->target_port_id, l->t_port_id, 16) ? 2 : -1;
	case SRP_LOGIN_REJ_UNSUPPORTED_DESCRIPTOR_FMT:
		return be16_to_cpu(req->req_buf_fmt) &
		       (SRP_BUF_FORMAT_DIRECT | SRP_BUF_FORMAT_INDIRECT) ? -1 : 3;
	case SRP_LOGIN_REJ_INSUFFICIENT_RESOURCES:
		return l->enabled ? -1 : 4;
	default:
		return -1;
	}
}

/* The sizes of an accepted login: false (and a failure) if one is wrong. */
static bool srpt_fuzz_login_sizes(struct kunit *test, struct srpt_fuzz_login *l,
				  u32 n)
{
	const struct srp_login_req *req = &l->copy;
	const struct srpt_rdma_ch *ch = l->ch;
	u32 len = be32_to_cpu(req->req_it_iu_len);
	u16 off = be16_to_cpu(req->imm_data_offset);
	bool want_imm = req->req_flags & SRP_IMMED_REQUESTED;
	u32 buf;

	if (len < SRPT_MIN_IT_IU_LEN || len > l->max_req ||
	    ch->lim.max_it_iu_len != len || ch->lim.recv_len < len ||
	    ch->lim.recv_len > l->max_req) {
		KUNIT_FAIL(test,
			   "input %u: it_iu_len %u accepted (limit %u): max_it_iu_len %d, receive buffers %u",
			   n, len, l->max_req, ch->lim.max_it_iu_len, ch->lim.recv_len);
		return false;
	}
	/* Granted exactly when asked for and inside the IU. */
	if (ch->lim.imm_data_offset !=
	    (want_imm && off >= SRPT_IMM_DATA_OFFSET_MIN && off < len ? off : 0)) {
		KUNIT_FAIL(test,
			   "input %u: immediate data offset %u asked (flags %#x, it_iu_len %u), %u granted",
			   n, off, req->req_flags, len, ch->lim.imm_data_offset);
		return false;
	}
	/* The receive buffer can be allocated and aligns immediate data. */
	if (check_add_overflow(ch->lim.recv_len, ch->lim.recv_offset, &buf) ||
	    buf > KMALLOC_MAX_SIZE || ch->lim.recv_offset >= SECTOR_SIZE ||
	    (ch->lim.use_srq || !ch->lim.imm_data_offset ? ch->lim.recv_offset != 0 :
	     (ch->lim.recv_offset + ch->lim.imm_data_offset) % SECTOR_SIZE)) {
		KUNIT_FAIL(test,
			   "input %u: receive buffer %u + %u bytes (largest %lu), immediate data at %u, srq %d, it_iu_len %u",
			   n, ch->lim.recv_offset, ch->lim.recv_len,
			   (unsigned long)KMALLOC_MAX_SIZE, ch->lim.imm_data_offset,
			   ch->lim.use_srq, len);
		return false;
	}
	if (ch->lim.rq_size < 1 || ch->lim.rq_size > SRPT_RQ_SIZE ||
	    (ch->lim.use_srq && ch->lim.rq_size > l->sdev->srq_size) ||
	    srpt_credits_held(ch) != ch->lim.rq_size ||
	    atomic_read(&ch->cred.req_lim_delta)) {
		KUNIT_FAIL(test, "input %u: %d credits (srq %d of %d), req_lim %d",
			   n, ch->lim.rq_size, ch->lim.use_srq, l->sdev->srq_size,
			   srpt_credits_held(ch));
		return false;
	}
	if (ch->lim.max_rsp_size < SRPT_MAX_RSP_SIZE_MIN ||
	    ch->lim.max_rsp_size > SRPT_MAX_RSP_SIZE_MAX ||
	    ch->lim.max_ti_iu_len != ch->lim.max_rsp_size ||
	    ch->lim.max_data_len != l->sport->limits.srp_max_rdma_size) {
		KUNIT_FAIL(test,
			   "input %u: max_ti_iu_len %d, responses %u bytes (srp_max_rsp_size %u)",
			   n, ch->lim.max_ti_iu_len, ch->lim.max_rsp_size,
			   l->sport->limits.srp_max_rsp_size);
		return false;
	}
	return true;
}

/* What a login response and the ACL match make of an accepted request. */
static bool srpt_fuzz_login_accepted(struct kunit *test,
				     struct srpt_fuzz_login *l, u32 n)
{
	const struct srp_login_req *req = &l->copy;
	const struct srpt_rdma_ch *ch = l->ch;
	struct srp_login_rsp *rsp = l->rsp;
	bool closed = srpt_fuzz_pick(&l->f, 2);
	struct sockaddr_in sin = { .sin_family = AF_INET };
	u8 id[16], mc, k = srpt_fuzz_pick(&l->f, 16);
	char name[SRPT_NAME_LEN];
	bool admit;
	u64 guid;

	srpt_fill_login_rsp(rsp, req->tag, ch->lim.rq_size, ch->lim.max_it_iu_len,
			    ch->lim.max_ti_iu_len,
			    srpt_multichan_rsp_flags(req->req_flags, closed) |
			    (ch->lim.imm_data_offset ? SRP_LOGIN_RSP_IMMED_SUPP : 0));
	mc = req->req_flags & SRP_MULTICHAN_MULTI ? SRP_LOGIN_RSP_MULTICHAN_MAINTAINED :
	     closed ? SRP_LOGIN_RSP_MULTICHAN_TERMINATED :
	     SRP_LOGIN_RSP_MULTICHAN_NO_CHAN;
	if (rsp->opcode != SRP_LOGIN_RSP || rsp->tag != req->tag ||
	    be32_to_cpu(rsp->req_lim_delta) != ch->lim.rq_size ||
	    be32_to_cpu(rsp->max_it_iu_len) != be32_to_cpu(req->req_it_iu_len) ||
	    be32_to_cpu(rsp->max_ti_iu_len) != ch->lim.max_rsp_size ||
	    !(be16_to_cpu(rsp->buf_fmt) & be16_to_cpu(req->req_buf_fmt) &
	      (SRP_BUF_FORMAT_DIRECT | SRP_BUF_FORMAT_INDIRECT)) ||
	    (rsp->rsp_flags & 3) != mc ||
	    !(rsp->rsp_flags & SRP_LOGIN_RSP_IMMED_SUPP) != !ch->lim.imm_data_offset) {
		KUNIT_FAIL(test, "input %u: LOGIN_RSP %*ph for request %*ph", n,
			   (int)sizeof(*rsp), rsp, (int)sizeof(*req), req);
		return false;
	}

	/* Its port-ID ACL admits the initiator, and only it. */
	memcpy(id, req->initiator_port_id, 16);
	snprintf(name, sizeof(name), "0x%16phN", id);
	if (!srpt_acl_matches(name, false, id, NULL)) {
		KUNIT_FAIL(test, "input %u: ACL %s does not admit its initiator", n,
			   name);
		return false;
	}
	id[k] ^= 1 << srpt_fuzz_pick(&l->f, 8);
	if (srpt_acl_matches(name, false, id, NULL)) {
		KUNIT_FAIL(test, "input %u: ACL %s admits 0x%16phN", n, name, id);
		return false;
	}
	/* A port GUID ACL over RDMA/CM: only the GUID half counts. */
	guid = get_unaligned_be64(req->initiator_port_id + 8);
	snprintf(name, sizeof(name), "%04x:%04x:%04x:%04x", (u16)(guid >> 48),
		 (u16)(guid >> 32), (u16)(guid >> 16), (u16)guid);
	admit = k < 8;
	if (srpt_acl_matches(name, true, id, (struct sockaddr *)&sin) != admit) {
		KUNIT_FAIL(test, "input %u: GUID ACL %s and initiator 0x%16phN: %s",
			   n, name, id, admit ? "refused" : "admitted");
		return false;
	}
	return true;
}

/*
 * Random and boundary login requests on random port limits. An accepted
 * one is within the limits with all its sizes; a refused one gets a
 * defined SRP_LOGIN_REJ reason that names a check it fails.
 */
static void srpt_fuzz_login(struct kunit *test)
{
	struct srpt_fuzz_login *l = kunit_kzalloc(test, sizeof(*l), GFP_KERNEL);
	static const u32 srq_sizes[] = { 1, SRPT_SRQ_SIZE_MIN, SRPT_RQ_SIZE - 1,
					 SRPT_RQ_SIZE, SRPT_RQ_SIZE + 1,
					 SRPT_SRQ_SIZE_DEFAULT, SRPT_SRQ_SIZE_MAX };
	static const u32 rsp_sizes[] = { 0, SRPT_MAX_RSP_SIZE_MIN - 1,
					 SRPT_MAX_RSP_SIZE_MIN,
					 SRPT_MAX_RSP_SIZE_DEFAULT,
					 SRPT_MAX_RSP_SIZE_MAX,
					 SRPT_MAX_RSP_SIZE_MAX + 1, U32_MAX };
	unsigned int saved_max_req = srp_max_req_size;
	u32 n, k, reason;
	int check;

	KUNIT_ASSERT_NOT_NULL(test, l);
	l->sdev = kunit_kzalloc(test, struct_size(l->sdev, port, 1), GFP_KERNEL);
	l->ch = kunit_kzalloc(test, sizeof(*l->ch), GFP_KERNEL);
	/* Exact kmalloc()s: KASAN's redzone starts right after each IU. */
	l->req = kunit_kmalloc(test, sizeof(*l->req), GFP_KERNEL);
	l->rsp = kunit_kmalloc(test, sizeof(*l->rsp), GFP_KERNEL);
	l->rej = kunit_kmalloc(test, sizeof(*l->rej), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, l->sdev && l->ch && l->req && l->rsp && l->rej);
	l->sport = &l->sdev->port[0];
	l->sport->sdev = l->sdev;
	l->sdev->port_cnt = 1;
	srpt_fuzz_start(test, &l->f, 2, "login requests");

	for (n = 0; srpt_fuzz_more(&l->f, n); n++) {
		struct srpt_fuzz *f = &l->f;

		l->max_req = srpt_fuzz_max_req(f);
		put_unaligned_be64(srpt_fuzz_u64(f), l->t_port_id);
		memcpy(l->t_port_id + 8, l->t_port_id, 8);
		srpt_fuzz_login_req(f, &l->copy, l->t_port_id, l->max_req);
		memcpy(l->req, &l->copy, sizeof(l->copy));
		l->enabled = srpt_fuzz_pick(f, 16);

		reason = srpt_check_login_req(l->req, l->t_port_id, l->max_req,
					      l->enabled);
		if (memcmp(l->req, &l->copy, sizeof(l->copy))) {
			KUNIT_FAIL(test, "input %u: the login check wrote into the request", n);
			break;
		}
		if (reason) {
			check = srpt_fuzz_rej_check(l, reason);
			if (!srpt_fuzz_rej_reason_defined(reason) || check < 0) {
				KUNIT_FAIL(test, "input %u: request %*ph refused with reason %#x",
					   n, (int)sizeof(l->copy), &l->copy, reason);
				break;
			}
			l->reasons[check]++;
			srpt_fill_login_rej(l->rej, l->copy.tag, reason);
			if (l->rej->opcode != SRP_LOGIN_REJ ||
			    be32_to_cpu(l->rej->reason) != reason ||
			    l->rej->tag != l->copy.tag) {
				KUNIT_FAIL(test, "input %u: LOGIN_REJ %*ph for reason %#x",
					   n, (int)sizeof(*l->rej), l->rej, reason);
				break;
			}
			continue;
		}
		for (check = 0; check < ARRAY_SIZE(srpt_fuzz_rej_checks); check++)
			if (srpt_fuzz_rej_check(l, srpt_fuzz_rej_checks[check]) >= 0)
				break;
		if (check < ARRAY_SIZE(srpt_fuzz_rej_checks)) {
			KUNIT_FAIL(test, "input %u: request %*ph accepted, it fails check %d",
				   n, (int)sizeof(l->copy), &l->copy, check);
			break;
		}

		/* What the channel gets: on this port, as srpt_login() calls it. */
		srp_max_req_size = l->max_req;
		l->sdev->use_srq = srpt_fuzz_pick(f, 2);
		k = srpt_fuzz_pick(f, ARRAY_SIZE(srq_sizes) + 1);
		l->sdev->srq_size = k < ARRAY_SIZE(srq_sizes) ? srq_sizes[k] :
				    1 + srpt_fuzz_pick(f, SRPT_SRQ_SIZE_MAX);
		l->sport->limits.srp_max_rdma_size = srpt_fuzz_len(f);
		k = srpt_fuzz_pick(f, ARRAY_SIZE(rsp_sizes) + 1);
		l->sport->limits.srp_max_rsp_size = k < ARRAY_SIZE(rsp_sizes) ?
						    rsp_sizes[k] : srpt_fuzz_u32(f);
		memset(l->ch, SRPT_TEST_POISON, sizeof(*l->ch));
		srpt_ch_login_sizes(l->ch, l->sport, l->req);
		if (!srpt_fuzz_login_sizes(test, l, n) ||
		    !srpt_fuzz_login_accepted(test, l, n))
			break;
		l->accepted++;
		l->imm += !!l->ch->lim.imm_data_offset;
		l->srq += l->ch->lim.use_srq;
	}
	srp_max_req_size = saved_max_req;
	kunit_info(test, "%u requests in %u ms: accepted %lu (immediate data %lu, srq %lu); refused: opcode or IU too small %lu, IU too large %lu, target port %lu, format %lu, port disabled %lu",
		   n, jiffies_to_msecs(jiffies - l->f.t0), l->accepted, l->imm,
		   l->srq, l->reasons[0], l->reasons[1], l->reasons[2],
		   l->reasons[3], l->reasons[4]);
	if (!srpt_fuzz_end(test, &l->f, n))
		return;
	KUNIT_EXPECT_GT(test, l->accepted, n / 100UL);
	KUNIT_EXPECT_GT(test, l->imm, n / 1000UL);
	for (k = 0; k < ARRAY_SIZE(l->reasons); k++)
		KUNIT_EXPECT_GT(test, l->reasons[k], n / 1000UL);
}

/* IU dispatch ------------------------------------------------------------ */

/* Every SRP opcode, with what a target must make of it (SRP r16a). */
static const struct srpt_fuzz_iu_type {
	u8			opcode;
	u8			min_len;	/* shorter: SRPT_IU_SHORT */
	enum srpt_iu_kind	kind;
} srpt_fuzz_iu_types[] = {
	/* Logins come through the CM, never on a channel. */
	{ SRP_LOGIN_REQ, 0, SRPT_IU_BAD_TYPE },
	{ SRP_TSK_MGMT, sizeof(struct srp_tsk_mgmt), SRPT_IU_TSK_MGMT },
	{ SRP_CMD, sizeof(struct srp_cmd), SRPT_IU_CMD },
	{ SRP_I_LOGOUT, 0, SRPT_IU_I_LOGOUT },
	{ SRP_CRED_RSP, 0, SRPT_IU_CRED_RSP },
	{ SRP_AER_RSP, 0, SRPT_IU_AER_RSP },
	/* What only a target sends. */
	{ SRP_LOGIN_RSP, 0, SRPT_IU_BAD_TYPE },
	{ SRP_RSP, 0, SRPT_IU_BAD_TYPE },
	{ SRP_LOGIN_REJ, 0, SRPT_IU_BAD_TYPE },
	{ SRP_T_LOGOUT, 0, SRPT_IU_BAD_TYPE },
	{ SRP_CRED_REQ, 0, SRPT_IU_BAD_TYPE },
	{ SRP_AER_REQ, 0, SRPT_IU_BAD_TYPE },
};

static enum srpt_iu_kind srpt_fuzz_iu_expected(const u8 *iu, u32 len)
{
	u32 i;

	if (!len)
		return SRPT_IU_BAD_TYPE;
	for (i = 0; i < ARRAY_SIZE(srpt_fuzz_iu_types); i++) {
		const struct srpt_fuzz_iu_type *t = &srpt_fuzz_iu_types[i];

		if (t->opcode == iu[0])
			return len < t->min_len ? SRPT_IU_SHORT : t->kind;
	}
	return SRPT_IU_BAD_TYPE;
}

/* Mostly lengths around the fixed parts of the IUs, sometimes any. */
static u32 srpt_fuzz_iu_len(struct srpt_fuzz *f)
{
	switch (srpt_fuzz_pick(f, 4)) {
	case 0:
		return srpt_fuzz_pick(f, 65);
	case 1:
		return srpt_fuzz_pick(f, 2) ? srpt_fuzz_near(f, 16) :
					      srpt_fuzz_near(f, 48);
	case 2:
		return srpt_fuzz_pick(f, SRPT_FUZZ_RECV_MAX + 1);
	default:
		return srpt_fuzz_pick(f, SRPT_FUZZ_IU_MAX + 1);
	}
}

/*
 * What an IU is, from its first byte and its length: every length from 0
 * to srp_max_req_size's default, mostly around the fixed parts, known and
 * unknown opcodes, each IU at the very end of its allocation. Each is
 * classified as SRP says and takes a credit exactly when it is a request
 * (answered or, when too short, dropped with its credit given back). Then
 * it goes through the parser its kind leads to, which must read nothing
 * past it (KASAN): srpt_check_cmd(), srpt_tmf_decode(), or
 * srpt_cred_rsp_expected(), which must recognise exactly the response
 * that carries the tag of the SRP_CRED_REQ outstanding.
 */
static void srpt_fuzz_iu_dispatch(struct kunit *test)
{
	static const char * const names[] = {
		[SRPT_IU_CMD] = "SRP_CMD", [SRPT_IU_TSK_MGMT] = "SRP_TSK_MGMT",
		[SRPT_IU_SHORT] = "short", [SRPT_IU_I_LOGOUT] = "SRP_I_LOGOUT",
		[SRPT_IU_CRED_RSP] = "SRP_CRED_RSP", [SRPT_IU_AER_RSP] = "SRP_AER_RSP",
		[SRPT_IU_BAD_TYPE] = "bad type",
	};
	struct srpt_fuzz *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	struct srpt_rdma_ch *ch = kunit_kzalloc(test, sizeof(*ch), GFP_KERNEL);
	unsigned long kinds[ARRAY_SIZE(names)] = {}, cmds = 0, creds = 0;
	enum srpt_iu_kind kind, want;
	struct srpt_data_desc d;
	bool takes, due, expect, ok;
	struct srp_cmd *cmd;
	u32 n, k, len, ntypes;
	u8 *iu, *ends[8];
	u64 tag, lun;

	KUNIT_ASSERT_NOT_NULL(test, f);
	KUNIT_ASSERT_NOT_NULL(test, ch);
	f->scratch = kunit_kzalloc(test, SRPT_FUZZ_RECV_MAX, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f->scratch);
	/*
	 * Exact kmalloc()s: KASAN's redzone starts right at their ends, one
	 * for each end alignment: its inline checks see a wider load that
	 * crosses the end only when the load starts in the last granule.
	 */
	for (k = 0; k < ARRAY_SIZE(ends); k++) {
		ends[k] = kunit_kmalloc(test, SRPT_FUZZ_RECV_MAX - k, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, ends[k]);
	}
	spin_lock_init(&ch->spinlock);
	ch->lim.max_data_len = SRPT_MAX_RDMA_SIZE_DEFAULT;
	cmd = (struct srp_cmd *)f->scratch;
	ntypes = ARRAY_SIZE(srpt_fuzz_iu_types);
	srpt_fuzz_start(test, f, 3, "IUs");

	for (n = 0; srpt_fuzz_more(f, n); n++) {
		len = srpt_fuzz_iu_len(f);
		/* Random up to the descriptors; beyond, what the last IU had. */
		srpt_fuzz_bytes(f, f->scratch, clamp_t(u32, len, 1, 128));
		if (srpt_fuzz_pick(f, 4))
			f->scratch[0] = srpt_fuzz_iu_types[srpt_fuzz_pick(f, ntypes)].opcode;
		/* Half the commands without data or additional CDB: accepted. */
		if (cmd->opcode == SRP_CMD && srpt_fuzz_pick(f, 2)) {
			cmd->buf_fmt = 0;
			cmd->add_cdb_len = 0;
		}
		k = len + ARRAY_SIZE(ends) > SRPT_FUZZ_RECV_MAX ? 0 :
		    srpt_fuzz_pick(f, ARRAY_SIZE(ends));
		iu = ends[k] + SRPT_FUZZ_RECV_MAX - k - len;
		memcpy(iu, f->scratch, len);

		kind = srpt_classify_iu(iu, len);
		takes = srpt_iu_takes_credit(iu, len);
		want = srpt_fuzz_iu_expected(f->scratch, len);
		if (kind != want || kind >= ARRAY_SIZE(names)) {
			KUNIT_FAIL(test, "input %u: IU %*ph (%u bytes) classified %d, not %s",
				   n, min_t(u32, len, 16), f->scratch, len, kind,
				   names[want]);
			break;
		}
		kinds[kind]++;
		/* A credit taken comes back with the response or the drop. */
		if (takes != (kind == SRPT_IU_CMD || kind == SRPT_IU_TSK_MGMT ||
			      kind == SRPT_IU_SHORT)) {
			KUNIT_FAIL(test, "input %u: %s IU %#x of %u bytes %s a credit",
				   n, names[kind], f->scratch[0], len,
				   takes ? "takes" : "does not take");
			break;
		}

		ok = true;
		switch (kind) {
		case SRPT_IU_CMD:
			ch->lim.imm_data_offset = srpt_fuzz_pick(f, 2) ?
					      SRPT_IMM_DATA_OFFSET_MIN : 0;
			cmds += !srpt_check_cmd(ch, (struct srp_cmd *)iu, len, &d);
			break;
		case SRPT_IU_TSK_MGMT:
			srpt_tmf_decode((struct srp_tsk_mgmt *)iu, &lun);
			break;
		case SRPT_IU_CRED_RSP:
			due = srpt_fuzz_pick(f, 2);
			tag = len >= sizeof(struct srp_cred_rsp) ?
			      ((struct srp_cred_rsp *)f->scratch)->tag : 0;
			ch->cred.rsp_due = due;
			ch->cred.tag = srpt_fuzz_pick(f, 2) ? tag : srpt_fuzz_u64(f);
			expect = due && len >= sizeof(struct srp_cred_rsp) &&
				 ch->cred.tag == tag;
			ok = srpt_cred_rsp_expected(ch, iu, len) == expect &&
			     ch->cred.rsp_due == (due && !expect);
			creds += expect;
			break;
		default:
			break;
		}
		if (!ok) {
			KUNIT_FAIL(test, "input %u: %s IU of %u bytes mishandled by its parser",
				   n, names[kind], len);
			break;
		}
		if (memcmp(iu, f->scratch, len)) {
			KUNIT_FAIL(test, "input %u: the IU was written", n);
			break;
		}
	}
	kunit_info(test, "%u IUs in %u ms: SRP_CMD %lu (%lu parsed), SRP_TSK_MGMT %lu, short %lu, SRP_I_LOGOUT %lu, SRP_CRED_RSP %lu (%lu expected), SRP_AER_RSP %lu, bad type %lu",
		   n, jiffies_to_msecs(jiffies - f->t0), kinds[SRPT_IU_CMD], cmds,
		   kinds[SRPT_IU_TSK_MGMT], kinds[SRPT_IU_SHORT],
		   kinds[SRPT_IU_I_LOGOUT], kinds[SRPT_IU_CRED_RSP], creds,
		   kinds[SRPT_IU_AER_RSP], kinds[SRPT_IU_BAD_TYPE]);
	if (!srpt_fuzz_end(test, f, n))
		return;
	for (kind = 0; kind < ARRAY_SIZE(kinds); kind++)
		KUNIT_EXPECT_GT(test, kinds[kind], n / 1000UL);
	KUNIT_EXPECT_GT(test, cmds, 0UL);
	KUNIT_EXPECT_GT(test, creds, 0UL);
}

/* SRP_TSK_MGMT ----------------------------------------------------------- */

/* The task management functions of SRP r16a and what they ask of LIO. */
static const struct {
	u8	srp;
	u8	tmr;
} srpt_fuzz_tmfs[] = {
	{ SRP_TSK_ABORT_TASK, TMR_ABORT_TASK },
	{ SRP_TSK_ABORT_TASK_SET, TMR_ABORT_TASK_SET },
	{ SRP_TSK_CLEAR_TASK_SET, TMR_CLEAR_TASK_SET },
	{ SRP_TSK_LUN_RESET, TMR_LUN_RESET },
	{ SRP_TSK_CLEAR_ACA, TMR_CLEAR_ACA },
};

/* TMR_UNKNOWN for a function SRP does not define. */
static u8 srpt_fuzz_tmf_expected(u8 srp)
{
	u32 i;

	for (i = 0; i < ARRAY_SIZE(srpt_fuzz_tmfs); i++)
		if (srpt_fuzz_tmfs[i].srp == srp)
			return srpt_fuzz_tmfs[i].tmr;
	return TMR_UNKNOWN;
}

/* A LUN in one of SAM's addressing methods, or any eight bytes. */
static void srpt_fuzz_lun(struct srpt_fuzz *f, struct scsi_lun *lun, u32 *single)
{
	u8 *b = lun->scsi_lun;

	srpt_fuzz_bytes(f, b, 8);
	*single = U32_MAX;
	switch (srpt_fuzz_pick(f, 5)) {
	case 0:		/* peripheral device, one level: what Linux sends */
		memset(b, 0, 8);
		b[1] = srpt_fuzz_u32(f);
		*single = b[1];
		break;
	case 1:		/* flat space, one level */
		b[0] = 0x40 | (b[0] & 0x3f);
		memset(b + 2, 0, 6);
		break;
	case 2:		/* two or more levels */
		b[0] &= 0x3f;
		memset(b + 4, 0, srpt_fuzz_pick(f, 5));
		break;
	case 3:		/* extended and logical unit addressing */
		b[0] |= 0xc0;
		break;
	}
}

/* What the target core answers: any value, mostly those it defines. */
static u8 srpt_fuzz_tmf_response(struct srpt_fuzz *f, u8 tmr)
{
	/* target_tmr_work() refuses a function it does not know. */
	if (tmr == TMR_UNKNOWN && srpt_fuzz_pick(f, 2))
		return srpt_fuzz_pick(f, 2) ? TMR_FUNCTION_REJECTED :
					      TMR_TASK_MGMT_FUNCTION_NOT_SUPPORTED;
	return srpt_fuzz_pick(f, 4) ? srpt_fuzz_pick(f, 7) : srpt_fuzz_u32(f);
}

/*
 * SRP_TSK_MGMT IUs with every function code, LUNs in every addressing
 * method and random tags, each IU at the very end of its allocation; then
 * the SRP_RSP for any answer of the target core, in a buffer of the
 * smallest response size. The function maps to its LIO counterpart or to
 * TMR_UNKNOWN, which comes back FUNCTION NOT SUPPORTED; the LUN
 * round-trips through the target core's form; no answer becomes a SUCCESS
 * unless the core did it; the response carries the request's tag.
 */
static void srpt_fuzz_tsk_mgmt(struct kunit *test)
{
	struct srpt_fuzz *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	struct srpt_rdma_ch *ch = kunit_kzalloc(test, sizeof(*ch), GFP_KERNEL);
	struct srpt_send_ioctx *ioctx = kunit_kzalloc(test, sizeof(*ioctx), GFP_KERNEL);
	unsigned long fns[ARRAY_SIZE(srpt_fuzz_tmfs) + 1] = {}, codes[3] = {};
	struct srp_tsk_mgmt *tsk, copy;
	u8 *ends[8];
	struct scsi_lun back;
	struct srp_rsp *rsp;
	u8 tmr, want, response, code;
	bool done, refused;
	u32 n, i, single;
	u64 lun;
	int len;

	KUNIT_ASSERT_NOT_NULL(test, f);
	KUNIT_ASSERT_NOT_NULL(test, ch);
	KUNIT_ASSERT_NOT_NULL(test, ioctx);
	/*
	 * Exact kmalloc()s: KASAN's redzone starts right after each IU, at
	 * every alignment (see srpt_fuzz_iu_dispatch()).
	 */
	for (i = 0; i < ARRAY_SIZE(ends); i++) {
		ends[i] = kunit_kmalloc(test, i + sizeof(*tsk), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, ends[i]);
	}
	rsp = kunit_kmalloc(test, SRPT_MAX_RSP_SIZE_MIN, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rsp);
	ioctx->ioctx.buf = rsp;
	ioctx->ch = ch;
	srpt_fuzz_start(test, f, 4, "task management IUs");

	for (n = 0; srpt_fuzz_more(f, n); n++) {
		srpt_fuzz_bytes(f, &copy, sizeof(copy));
		copy.opcode = SRP_TSK_MGMT;
		srpt_fuzz_lun(f, &copy.lun, &single);
		/* A defined function, next to one, another bit or any. */
		i = srpt_fuzz_pick(f, ARRAY_SIZE(srpt_fuzz_tmfs));
		switch (srpt_fuzz_pick(f, 4)) {
		case 0:
			copy.tsk_mgmt_func = srpt_fuzz_tmfs[i].srp;
			break;
		case 1:
			copy.tsk_mgmt_func = srpt_fuzz_near(f, srpt_fuzz_tmfs[i].srp);
			break;
		case 2:
			copy.tsk_mgmt_func = 1 << srpt_fuzz_pick(f, 8);
			break;
		}
		i = srpt_fuzz_pick(f, ARRAY_SIZE(ends));
		tsk = (struct srp_tsk_mgmt *)(ends[i] + i);
		memcpy(tsk, &copy, sizeof(copy));

		tmr = srpt_tmf_decode(tsk, &lun);
		want = srpt_fuzz_tmf_expected(copy.tsk_mgmt_func);
		int_to_scsilun(lun, &back);
		if (memcmp(tsk, &copy, sizeof(copy))) {
			KUNIT_FAIL(test, "input %u: the IU was written", n);
			break;
		}
		if (tmr != want) {
			KUNIT_FAIL(test, "input %u: function %#x asks LIO for %#x, not %#x",
				   n, copy.tsk_mgmt_func, tmr, want);
			break;
		}
		if (memcmp(&back, &copy.lun, sizeof(back)) ||
		    (single != U32_MAX && lun != single)) {
			KUNIT_FAIL(test, "input %u: LUN %8ph decoded as %#llx (%8ph)",
				   n, copy.lun.scsi_lun, lun, back.scsi_lun);
			break;
		}
		for (i = 0; i < ARRAY_SIZE(srpt_fuzz_tmfs); i++)
			if (srpt_fuzz_tmfs[i].tmr == tmr)
				break;
		fns[i]++;

		/*
		 * SUCCESS when LIO did it (or the task to abort is gone),
		 * FUNCTION NOT SUPPORTED when it refused the function (as it
		 * does TMR_UNKNOWN), FAILED for anything else.
		 */
		response = srpt_fuzz_tmf_response(f, tmr);
		code = srpt_tmf_rsp_code(response);
		done = response == TMR_FUNCTION_COMPLETE ||
		       response == TMR_TASK_DOES_NOT_EXIST;
		refused = response == TMR_FUNCTION_REJECTED ||
			  response == TMR_TASK_MGMT_FUNCTION_NOT_SUPPORTED;
		if (code != (done ? SRP_TSK_MGMT_SUCCESS :
			     refused ? SRP_TSK_MGMT_FUNC_NOT_SUPP :
			     SRP_TSK_MGMT_FAILED)) {
			KUNIT_FAIL(test,
				   "input %u: LIO's answer %#x to %#x becomes response code %#x",
				   n, response, tmr, code);
			break;
		}
		codes[done ? 0 : refused ? 1 : 2]++;

		srpt_test_set_credits(ch, 0);
		atomic_set(&ch->cred.req_lim_delta, 0);
		len = srpt_build_tskmgmt_rsp(ch, code, ioctx, copy.tag);
		if (len != sizeof(*rsp) + 4 || len > SRPT_MAX_RSP_SIZE_MIN ||
		    rsp->opcode != SRP_RSP || rsp->tag != copy.tag ||
		    be32_to_cpu(rsp->req_lim_delta) != 1 ||
		    !(rsp->flags & SRP_RSP_FLAG_RSPVALID) ||
		    be32_to_cpu(rsp->resp_data_len) != 4 ||
		    memchr_inv(rsp->data, 0, 3) || rsp->data[3] != code) {
			KUNIT_FAIL(test, "input %u: response %*ph for tag %#llx, code %#x",
				   n, len, rsp, copy.tag, code);
			break;
		}
	}
	kunit_info(test, "%u IUs in %u ms: ABORT TASK %lu, ABORT TASK SET %lu, CLEAR TASK SET %lu, LUN RESET %lu, CLEAR ACA %lu, unknown %lu; responses: success %lu, not supported %lu, failed %lu",
		   n, jiffies_to_msecs(jiffies - f->t0), fns[0], fns[1], fns[2],
		   fns[3], fns[4], fns[5], codes[0], codes[1], codes[2]);
	if (!srpt_fuzz_end(test, f, n))
		return;
	for (i = 0; i < ARRAY_SIZE(fns); i++)
		KUNIT_EXPECT_GT(test, fns[i], n / 100UL);
	for (i = 0; i < ARRAY_SIZE(codes); i++)
		KUNIT_EXPECT_GT(test, codes[i], n / 100UL);
}

/* Device Management MADs ------------------------------------------------- */

static bool srpt_fuzz_dm_status_defined(u16 status)
{
	switch (status) {
	case 0:
	case DM_MAD_STATUS_UNSUP_METHOD:
	case DM_MAD_STATUS_UNSUP_METHOD_ATTR:
	case DM_MAD_STATUS_INVALID_FIELD:
	case DM_MAD_STATUS_NO_IOC:
		return true;
	default:
		return false;
	}
}

/* Slots around the controller list's ends, or any 16 bits. */
static u32 srpt_fuzz_dm_slot(struct srpt_fuzz *f)
{
	switch (srpt_fuzz_pick(f, 4)) {
	case 0:
		return srpt_fuzz_pick(f, 2) ? 1 : srpt_fuzz_near(f, 1);
	case 1:
		return srpt_fuzz_pick(f, SRPT_MAX_IOC_SLOTS + 3);
	case 2:
		return srpt_fuzz_u32(f) & 0xffff;
	default:
		return 0xffff - srpt_fuzz_pick(f, 2);
	}
}

static u32 srpt_fuzz_dm_attr_mod(struct srpt_fuzz *f, u16 attr_id)
{
	u32 slot = srpt_fuzz_dm_slot(f), hi, lo;

	if (!srpt_fuzz_pick(f, 8))
		return srpt_fuzz_pick(f, 2) ? srpt_fuzz_u32(f) : slot << 24;
	if (attr_id != DM_ATTR_SVC_ENTRIES)
		return slot;
	/* AttributeModifier = slot << 16 | last << 8 | first. */
	lo = srpt_fuzz_pick(f, 2) ? 0 : srpt_fuzz_pick(f, 2) ? srpt_fuzz_pick(f, 6) :
					    srpt_fuzz_u32(f) & 0xff;
	hi = srpt_fuzz_pick(f, 2) ? lo + srpt_fuzz_pick(f, 5) - 1 : srpt_fuzz_u32(f);
	return (slot & 0xffff) << 16 | (hi & 0xff) << 8 | lo;
}

/* One slot of the controller list: 1 present, 0 empty, -1 beyond it. */
static int srpt_fuzz_dm_slot_state(const struct ib_dm_iou_info *iou, u32 slot)
{
	u8 b;

	if (!slot || slot > iou->max_controllers)
		return -1;
	b = iou->controller_list[(slot - 1) / 2];
	return ((slot & 1) ? b >> 4 : b & 0xf) == 1;
}

struct srpt_fuzz_dm {
	struct srpt_fuzz	f;
	struct srpt_port	*sport;
	struct ib_mad		*rq;		/* exactly one MAD */
	struct ib_dm_mad	*rsp;		/* exactly one MAD */
	struct ib_mad		copy;
	struct ib_dm_iou_info	iou;		/* what the driver says */
	unsigned long		ok, unsup, invalid, no_ioc;
};

/*
 * What a successful GetResp holds, and that a refused one leaks nothing:
 * the status the request deserves, judged from the controller list the
 * driver itself reports.
 */
static bool srpt_fuzz_dm_check(struct kunit *test, struct srpt_fuzz_dm *m,
			       u32 n)
{
	const struct ib_mad_hdr *q = &m->copy.mad_hdr;
	const struct ib_dm_mad *r = m->rsp;
	struct ib_mad_hdr h = r->mad_hdr;
	u16 status = be16_to_cpu(r->mad_hdr.status);
	u32 mod = be32_to_cpu(q->attr_mod), slot, hi, lo;
	const struct ib_dm_ioc_profile *p = (const void *)r->data;
	const struct ib_dm_svc_entries *se = (const void *)r->data;
	size_t used = 0;
	u16 want;
	int state;
	char name[40];

	/* The request's header, with the response method and a status. */
	h.method = q->method;
	h.status = q->status;
	if (!srpt_fuzz_dm_status_defined(status) || memcmp(&h, q, sizeof(h)) ||
	    r->mad_hdr.method != (q->method == IB_MGMT_METHOD_GET ||
				  q->method == IB_MGMT_METHOD_SET ?
				  IB_MGMT_METHOD_GET_RESP :
				  q->method | IB_MGMT_METHOD_RESP) ||
	    memchr_inv(r->dm_hdr.reserved, 0, sizeof(r->dm_hdr.reserved))) {
		KUNIT_FAIL(test, "input %u: response header %*ph, status %#x, to %*ph",
			   n, (int)sizeof(r->mad_hdr), &r->mad_hdr, status,
			   (int)sizeof(*q), q);
		return false;
	}

	if (q->method != IB_MGMT_METHOD_GET) {
		want = q->method == IB_MGMT_METHOD_SET ?
		       DM_MAD_STATUS_UNSUP_METHOD_ATTR : DM_MAD_STATUS_UNSUP_METHOD;
	} else {
		switch (be16_to_cpu(q->attr_id)) {
		case DM_ATTR_CLASS_PORT_INFO:
		case DM_ATTR_IOU_INFO:
			want = 0;
			break;
		case DM_ATTR_IOC_PROFILE:
			state = srpt_fuzz_dm_slot_state(&m->iou, mod);
			want = state < 0 ? DM_MAD_STATUS_INVALID_FIELD :
			       !state ? DM_MAD_STATUS_NO_IOC : 0;
			break;
		case DM_ATTR_SVC_ENTRIES:
			slot = mod >> 16;
			hi = (mod >> 8) & 0xff;
			lo = mod & 0xff;
			state = srpt_fuzz_dm_slot_state(&m->iou, slot);
			/* This target's controller has one service, entry 0. */
			want = state < 0 ? DM_MAD_STATUS_INVALID_FIELD :
			       !state ? DM_MAD_STATUS_NO_IOC :
			       lo || hi ? DM_MAD_STATUS_INVALID_FIELD : 0;
			break;
		default:
			want = DM_MAD_STATUS_UNSUP_METHOD_ATTR;
			break;
		}
	}
	if (status != want) {
		KUNIT_FAIL(test,
			   "input %u: method %#x attribute %#x modifier %#x: status %#x, not %#x",
			   n, q->method, be16_to_cpu(q->attr_id), mod, status, want);
		return false;
	}

	switch (status) {
	case 0:
		m->ok++;
		break;
	case DM_MAD_STATUS_INVALID_FIELD:
		m->invalid++;
		break;
	case DM_MAD_STATUS_NO_IOC:
		m->no_ioc++;
		break;
	default:
		m->unsup++;
		break;
	}
	if (!status) {
		switch (be16_to_cpu(q->attr_id)) {
		case DM_ATTR_CLASS_PORT_INFO:
			used = sizeof(struct ib_class_port_info);
			if (r->data[0] != IB_MGMT_BASE_VERSION)
				used = 0;
			break;
		case DM_ATTR_IOU_INFO:
			used = sizeof(struct ib_dm_iou_info);
			if (memcmp(r->data, &m->iou, used))
				used = 0;
			break;
		case DM_ATTR_IOC_PROFILE:
			used = sizeof(*p);
			if (be64_to_cpu(p->guid) != srpt_service_guid ||
			    p->num_svc_entries != 1 ||
			    be32_to_cpu(p->send_size) != srp_max_req_size ||
			    be32_to_cpu(p->rdma_size) >
			    m->sport->limits.srp_max_rdma_size ||
			    !memchr(p->id_string, 0, sizeof(p->id_string)))
				used = 0;
			break;
		case DM_ATTR_SVC_ENTRIES:
			used = sizeof(se->service_entries[0]);
			snprintf(name, sizeof(name), "SRP.T10:%016llx",
				 srpt_service_guid);
			if (be64_to_cpu(se->service_entries[0].id) != srpt_service_guid ||
			    strcmp((const char *)se->service_entries[0].name, name))
				used = 0;
			break;
		}
		if (!used) {
			KUNIT_FAIL(test, "input %u: attribute %#x modifier %#x: data %*ph",
				   n, be16_to_cpu(q->attr_id), mod, 64, r->data);
			return false;
		}
	}
	/* Nothing beyond the attribute: zeroes, never what was there. */
	if (memchr_inv(r->data + used, 0, sizeof(r->data) - used)) {
		KUNIT_FAIL(test,
			   "input %u: status %#x, attribute %#x: bytes %zu.. of the data are not zero",
			   n, status, be16_to_cpu(q->attr_id), used);
		return false;
	}
	return true;
}

/*
 * Device Management requests with every method, the four attributes and
 * others, slots and service entry ranges in and around the controller
 * list, and random modifiers, answered into a poisoned buffer of exactly
 * one MAD: the status is a defined one and the one the request deserves
 * by the controller list the driver reports itself; the response is the
 * request's header with the response method; what it carries is the
 * attribute and nothing else.
 */
static void srpt_fuzz_dm(struct kunit *test)
{
	static const u16 attrs[] = { DM_ATTR_CLASS_PORT_INFO, DM_ATTR_IOU_INFO,
				     DM_ATTR_IOC_PROFILE, DM_ATTR_SVC_ENTRIES };
	static const u8 methods[] = { IB_MGMT_METHOD_GET, IB_MGMT_METHOD_SET,
				      IB_MGMT_METHOD_GET_RESP, IB_MGMT_METHOD_SEND,
				      IB_MGMT_METHOD_REPORT };
	struct srpt_fuzz_dm *m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	unsigned int saved_max_req = srp_max_req_size;
	u64 saved_guid = srpt_service_guid;
	struct srpt_device *sdev;
	struct ib_device *ibdev;
	struct srpt_fuzz *f;
	u16 attr_id;
	u32 n, k;

	KUNIT_ASSERT_NOT_NULL(test, m);
	f = &m->f;
	ibdev = kunit_kzalloc(test, sizeof(*ibdev), GFP_KERNEL);
	sdev = kunit_kzalloc(test, struct_size(sdev, port, 1), GFP_KERNEL);
	/* Exact kmalloc()s: KASAN's redzone starts right after each MAD. */
	m->rq = kunit_kmalloc(test, sizeof(*m->rq), GFP_KERNEL);
	m->rsp = kunit_kmalloc(test, sizeof(*m->rsp), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, ibdev && sdev && m->rq && m->rsp);
	/* What ib_create_send_mad() gives srpt_mad_recv_handler(). */
	KUNIT_ASSERT_EQ(test, sizeof(*m->rsp),
			(size_t)IB_MGMT_DEVICE_HDR + IB_MGMT_DEVICE_DATA);
	sdev->device = ibdev;
	sdev->port_cnt = 1;
	m->sport = &sdev->port[0];
	m->sport->sdev = sdev;
	m->sport->port = 1;
	srpt_fuzz_start(test, f, 5, "MADs");

	for (n = 0; srpt_fuzz_more(f, n); n++) {
		srpt_service_guid = srpt_fuzz_u64(f);
		srp_max_req_size = srpt_fuzz_max_req(f);
		sdev->srq_size = 1 + srpt_fuzz_pick(f, SRPT_SRQ_SIZE_MAX);
		m->sport->limits.srp_max_rdma_size = srpt_fuzz_len(f);
		ibdev->attrs.vendor_id = srpt_fuzz_u32(f);
		ibdev->attrs.vendor_part_id = srpt_fuzz_u32(f);
		ibdev->attrs.hw_ver = srpt_fuzz_u32(f);

		/* The controller list the answers are judged by, first. */
		memset(&m->copy, 0, sizeof(m->copy));
		m->copy.mad_hdr.method = IB_MGMT_METHOD_GET;
		m->copy.mad_hdr.attr_id = cpu_to_be16(DM_ATTR_IOU_INFO);
		srpt_dm_answer(m->sport, &m->copy, m->rsp);
		memcpy(&m->iou, m->rsp->data, sizeof(m->iou));
		if (m->rsp->mad_hdr.status || !m->iou.max_controllers ||
		    m->iou.max_controllers > 2 * sizeof(m->iou.controller_list) ||
		    srpt_fuzz_dm_slot_state(&m->iou, 1) != 1) {
			KUNIT_FAIL(test, "input %u: IOUnitInfo %*ph", n, 8, m->rsp->data);
			break;
		}

		srpt_fuzz_bytes(f, &m->copy, sizeof(m->copy));
		m->copy.mad_hdr.base_version = IB_MGMT_BASE_VERSION;
		m->copy.mad_hdr.mgmt_class = IB_MGMT_CLASS_DEVICE_MGMT;
		m->copy.mad_hdr.class_version = 1;
		/* Mostly Get, and the other methods; mostly known attributes. */
		k = srpt_fuzz_pick(f, 8);
		if (k < 4)
			m->copy.mad_hdr.method = k < 3 ? IB_MGMT_METHOD_GET :
				methods[srpt_fuzz_pick(f, ARRAY_SIZE(methods))];
		attr_id = attrs[srpt_fuzz_pick(f, ARRAY_SIZE(attrs))];
		k = srpt_fuzz_pick(f, 8);
		if (k == 6)
			attr_id = swab16(attr_id);
		else if (k == 7)
			attr_id = srpt_fuzz_u32(f);
		m->copy.mad_hdr.attr_id = cpu_to_be16(attr_id);
		m->copy.mad_hdr.attr_mod = cpu_to_be32(srpt_fuzz_dm_attr_mod(f, attr_id));
		memcpy(m->rq, &m->copy, sizeof(m->copy));
		memset(m->rsp, SRPT_TEST_POISON, sizeof(*m->rsp));

		srpt_dm_answer(m->sport, m->rq, m->rsp);
		if (memcmp(m->rq, &m->copy, sizeof(m->copy))) {
			KUNIT_FAIL(test, "input %u: the request was written", n);
			break;
		}
		if (!srpt_fuzz_dm_check(test, m, n))
			break;
	}
	srpt_service_guid = saved_guid;
	srp_max_req_size = saved_max_req;
	kunit_info(test, "%u MADs in %u ms: answered %lu; unsupported method or attribute %lu, invalid field %lu, no IOC %lu",
		   n, jiffies_to_msecs(jiffies - f->t0), m->ok, m->unsup,
		   m->invalid, m->no_ioc);
	if (!srpt_fuzz_end(test, f, n))
		return;
	KUNIT_EXPECT_GT(test, m->ok, n / 100UL);
	KUNIT_EXPECT_GT(test, m->unsup, n / 100UL);
	KUNIT_EXPECT_GT(test, m->invalid, n / 100UL);
	KUNIT_EXPECT_GT(test, m->no_ioc, n / 100UL);
}

static struct kunit_case srpt_fuzz_cases[] = {
	KUNIT_CASE(srpt_fuzz_srp_cmd),
	KUNIT_CASE(srpt_fuzz_names),
	KUNIT_CASE(srpt_fuzz_cfg_names),
	KUNIT_CASE(srpt_fuzz_login),
	KUNIT_CASE(srpt_fuzz_iu_dispatch),
	KUNIT_CASE(srpt_fuzz_tsk_mgmt),
	KUNIT_CASE(srpt_fuzz_dm),
	{}
};

static struct kunit_suite srpt_fuzz_suite = {
	.name = "ib_srpt_fuzz",
	.test_cases = srpt_fuzz_cases,
};

kunit_test_suite(srpt_fuzz_suite);
