// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fuzzing the SRP_CMD parser (srpt_get_desc_tbl(), srpt_check_cmd()) with
 * IUs that are random but shaped like commands: every data-buffer format
 * and count, additional CDB lengths, indirect tables inline and in
 * initiator memory, immediate data, lengths near the 32-bit limits, and IU
 * lengths cut anywhere. The PRNG is seeded (the seed is printed), so a
 * failure repeats. Each IU ends exactly where its allocation ends: KASAN
 * reports any read past it. Checked on every input: an accepted IU's
 * descriptors lie inside it, totals are the 64-bit sums, immediate data
 * lies inside the IU, the IU itself is never written, and a refused IU
 * leaves no descriptor behind. Likewise initiator port IDs and portal names
 * (srpt_fuzz_names()).
 */

#include <linux/prandom.h>
#include <linux/jiffies.h>
#include "srpt_kunit.h"

#define SRPT_FUZZ_INPUTS	100000
#define SRPT_FUZZ_IU_MAX	1024
#define SRPT_FUZZ_SEED		0x5259505453525054ULL

struct srpt_fuzz {
	struct rnd_state	rnd;
	u8			*scratch;	/* the IU being built */
	u8			*buf;		/* SRPT_FUZZ_IU_MAX; IU at its end */
	u8			*copy;		/* the IU as handed over */
	unsigned long		accepted[4];	/* none, direct, indirect, imm */
	unsigned long		ext, refused, checked_refused;
};

static u32 srpt_fuzz_u32(struct srpt_fuzz *f)
{
	return prandom_u32_state(&f->rnd);
}

static u32 srpt_fuzz_pick(struct srpt_fuzz *f, u32 n)
{
	return srpt_fuzz_u32(f) % n;
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
	cmd->add_cdb_len = srpt_fuzz_pick(f, 4) ? 4 * srpt_fuzz_pick(f, 5) :
						  srpt_fuzz_u32(f) & 0xff;
	cmd->buf_fmt = out ? fmt << 4 : fmt;
	if (!srpt_fuzz_pick(f, 8))
		cmd->buf_fmt |= out ? srpt_fuzz_fmt(f) : srpt_fuzz_fmt(f) << 4;
	cnt = srpt_fuzz_pick(f, 4) ? srpt_fuzz_pick(f, 6) : srpt_fuzz_u32(f) & 0xff;
	cmd->data_out_desc_cnt = out ? cnt : srpt_fuzz_pick(f, 3);
	cmd->data_in_desc_cnt = out ? srpt_fuzz_pick(f, 3) : cnt;
	cmd->cdb[0] = srpt_fuzz_pick(f, 2) ? (out ? WRITE_10 : READ_10) :
					     srpt_fuzz_u32(f) & 0xff;

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

static void srpt_fuzz_srp_cmd(struct kunit *test)
{
	struct srpt_rdma_ch *ch = kunit_kzalloc(test, sizeof(*ch), GFP_KERNEL);
	struct srpt_fuzz *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	unsigned long t0 = jiffies, too_big = 0;
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
	prandom_seed_state(&f->rnd, SRPT_FUZZ_SEED);
	kunit_info(test, "seed %#llx, %d inputs", SRPT_FUZZ_SEED, SRPT_FUZZ_INPUTS);
	ch->max_data_len = SRPT_MAX_RDMA_SIZE_DEFAULT;

	for (n = 0; n < SRPT_FUZZ_INPUTS; n++) {
		iu_len = srpt_fuzz_build(f, &imm_off);
		cmd = (struct srp_cmd *)(f->buf + SRPT_FUZZ_IU_MAX - iu_len);
		memcpy(cmd, f->scratch, iu_len);
		memcpy(f->copy, f->scratch, iu_len);
		ret = srpt_get_desc_tbl(cmd, iu_len, imm_off, &d);
		if (!srpt_fuzz_check(test, f, cmd, iu_len, imm_off, ret, &d))
			break;
		/* The whole command check: the length limit holds after it. */
		ch->imm_data_offset = imm_off;
		ret = srpt_check_cmd(ch, cmd, iu_len, &d);
		if (ret == -E2BIG)
			too_big++;
		if (ret == -E2BIG && d.data_len <= ch->max_data_len) {
			KUNIT_FAIL(test, "input %u: %llu bytes called too big", n,
				   d.data_len);
			break;
		}
		if (!ret && d.data_len > ch->max_data_len) {
			KUNIT_FAIL(test, "input %u: %llu bytes accepted, limit %u", n,
				   d.data_len, ch->max_data_len);
			break;
		}
	}
	kfree(f->buf);
	kunit_info(test, "%u inputs in %u ms: accepted none %lu, direct %lu, indirect %lu (%lu external), immediate %lu; refused %lu; too big %lu",
		   n, jiffies_to_msecs(jiffies - t0), f->accepted[0], f->accepted[1],
		   f->accepted[2], f->ext, f->accepted[3], f->refused, too_big);
	KUNIT_EXPECT_EQ(test, n, (u32)SRPT_FUZZ_INPUTS);
	/* A generator that only produces refusals would test nothing. */
	KUNIT_EXPECT_GT(test, f->accepted[1], SRPT_FUZZ_INPUTS / 100UL);
	KUNIT_EXPECT_GT(test, f->accepted[2] - f->ext, SRPT_FUZZ_INPUTS / 100UL);
	KUNIT_EXPECT_GT(test, f->ext, SRPT_FUZZ_INPUTS / 1000UL);
	KUNIT_EXPECT_GT(test, f->accepted[3], SRPT_FUZZ_INPUTS / 100UL);
	KUNIT_EXPECT_GT(test, f->checked_refused, SRPT_FUZZ_INPUTS / 10UL);
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
	char *name;

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
	/* Exactly the string and its NUL: KASAN sees any read beyond. */
	name = kmalloc(n + 1, GFP_KERNEL);
	if (name) {
		memcpy(name, buf, n);
		name[n] = '\0';
	}
	*len = n;
	return name;
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
	unsigned long ids = 0, v4 = 0, v6 = 0, refused = 0;
	struct sockaddr_storage ss, ss2;
	static const u8 zero[sizeof(ss)];
	u8 id[16], id2[16];
	u32 n, len;
	char *name;
	bool ok = true;

	KUNIT_ASSERT_NOT_NULL(test, f);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_NOT_NULL(test, out);
	prandom_seed_state(&f->rnd, SRPT_FUZZ_SEED + 1);
	kunit_info(test, "seed %#llx, %d names", SRPT_FUZZ_SEED + 1, SRPT_FUZZ_INPUTS);
	for (n = 0; ok && n < SRPT_FUZZ_INPUTS; n++) {
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
				/* Scopes name interfaces: check the address and port. */
				a6->sin6_scope_id = 0;
				snprintf(out, 128, "[%pI6c]:%u", &a6->sin6_addr,
					 be16_to_cpu(a6->sin6_port));
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
	kunit_info(test, "%u names: port IDs %lu, IPv4 portals %lu, IPv6 portals %lu, refused portals %lu",
		   n, ids, v4, v6, refused);
	KUNIT_EXPECT_EQ(test, n, (u32)SRPT_FUZZ_INPUTS);
	KUNIT_EXPECT_GT(test, ids, 0UL);
	KUNIT_EXPECT_GT(test, v4, 0UL);
	KUNIT_EXPECT_GT(test, v6, 0UL);
}

static struct kunit_case srpt_fuzz_cases[] = {
	KUNIT_CASE(srpt_fuzz_srp_cmd),
	KUNIT_CASE(srpt_fuzz_names),
	{}
};

static struct kunit_suite srpt_fuzz_suite = {
	.name = "ib_srpt_fuzz",
	.test_cases = srpt_fuzz_cases,
};

kunit_test_suite(srpt_fuzz_suite);
