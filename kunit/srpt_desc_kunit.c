// SPDX-License-Identifier: GPL-2.0-only
/*
 * srpt_get_desc_tbl(): data descriptors of an SRP_CMD (SRP r16a 5.6.2 and
 * SRP-2 immediate data), and srpt_check_cmd()'s limits: the data length,
 * the direction against the CDB. IUs are built byte by byte in a buffer.
 */

#include "srpt_kunit.h"

#define SRPT_TEST_IU_SIZE	9216

/* Data-out format in the high nibble, data-in format in the low nibble. */
#define SRPT_FMT(out, in)	((u8)(((out) << 4) | (in)))

static struct srp_cmd *srpt_test_cmd(struct kunit *test, u8 buf_fmt,
				     u8 out_cnt, u8 in_cnt, u8 add_cdb_len)
{
	struct srp_cmd *cmd = kunit_kzalloc(test, SRPT_TEST_IU_SIZE, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, cmd);
	cmd->opcode = SRP_CMD;
	cmd->buf_fmt = buf_fmt;
	cmd->data_out_desc_cnt = out_cnt;
	cmd->data_in_desc_cnt = in_cnt;
	cmd->tag = 0x1122334455667788ULL;
	cmd->add_cdb_len = add_cdb_len;
	cmd->cdb[0] = 0x28;	/* READ(10) */
	return cmd;
}

/* Where the descriptors start: after the additional CDB bytes. */
static void *srpt_test_desc_pos(struct srp_cmd *cmd)
{
	return cmd->add_data + (cmd->add_cdb_len & ~3);
}

static void srpt_test_put_direct(struct srp_direct_buf *d, u64 va, u32 key,
				 u32 len)
{
	d->va = cpu_to_be64(va);
	d->key = cpu_to_be32(key);
	d->len = cpu_to_be32(len);
}

/*
 * An indirect descriptor with @n entries of lengths @lens, table descriptor
 * length @table_len and total length @total.
 */
static struct srp_indirect_buf *
srpt_test_put_indirect(struct srp_cmd *cmd, u32 table_len, u32 total,
		       const u32 *lens, int n)
{
	struct srp_indirect_buf *ib = srpt_test_desc_pos(cmd);
	int i;

	srpt_test_put_direct(&ib->table_desc, 0x7000000000ULL, 0x99, table_len);
	ib->len = cpu_to_be32(total);
	for (i = 0; i < n; i++)
		srpt_test_put_direct(&ib->desc_list[i], 0x100000ULL * (i + 1),
				     0x1000 + i, lens[i]);
	return ib;
}

/* Size of an IU that ends right after @n indirect descriptor entries. */
static u32 srpt_test_indirect_iu_len(struct srp_cmd *cmd, int n)
{
	return (u8 *)srpt_test_desc_pos(cmd) - (u8 *)cmd +
		sizeof(struct srp_indirect_buf) + n * sizeof(struct srp_direct_buf);
}

/*
 * Run srpt_get_desc_tbl() on a copy of the first @iu_len bytes of @cmd in a
 * buffer of exactly that size, so that KASAN (enabled in .kunitconfig)
 * reports any read beyond the IU. Pointers in @d are translated back into
 * @cmd so that tests can compare them with positions in the original.
 */
static int srpt_test_desc_tbl(struct srp_cmd *cmd, u32 iu_len, u16 imm_off,
			      struct srpt_data_desc *d)
{
	u8 *copy = kmemdup(cmd, iu_len, GFP_KERNEL);
	int ret;

	if (!copy)
		return -ENOMEM;
	ret = srpt_get_desc_tbl((struct srp_cmd *)copy, iu_len, imm_off, d);
	if (ret == 0 && d->bufs)
		d->bufs = (const void *)((u8 *)cmd + ((const u8 *)d->bufs - copy));
	if (ret == 0 && d->ext_tbl)
		d->ext_tbl = (const void *)((u8 *)cmd + ((const u8 *)d->ext_tbl - copy));
	kfree(copy);
	return ret;
}

static void srpt_test_poison_desc(struct srpt_data_desc *d)
{
	memset(d, SRPT_TEST_POISON, sizeof(*d));
}

static void srpt_desc_no_data(struct kunit *test)
{
	struct srp_cmd *cmd = srpt_test_cmd(test, 0, 0, 0, 0);
	struct srpt_data_desc d;

	srpt_test_poison_desc(&d);
	KUNIT_ASSERT_EQ(test, srpt_test_desc_tbl(cmd, 48, 0, &d), 0);
	KUNIT_EXPECT_EQ(test, d.dir, DMA_NONE);
	KUNIT_EXPECT_EQ(test, d.fmt, SRP_NO_DATA_DESC);
	KUNIT_EXPECT_EQ(test, d.nbufs, 0U);
	KUNIT_EXPECT_EQ(test, d.data_len, 0ULL);
}

static void srpt_desc_direct_data_out(struct kunit *test)
{
	struct srp_cmd *cmd = srpt_test_cmd(test, SRPT_FMT(SRP_DATA_DESC_DIRECT, 0),
					    1, 0, 0);
	struct srp_direct_buf *db = srpt_test_desc_pos(cmd);
	struct srpt_data_desc d;

	srpt_test_put_direct(db, 0xdeadbeef000ULL, 0x1234, 4096);
	srpt_test_poison_desc(&d);
	KUNIT_ASSERT_EQ(test, srpt_test_desc_tbl(cmd, 64, 0, &d), 0);
	KUNIT_EXPECT_EQ(test, d.dir, DMA_TO_DEVICE);
	KUNIT_EXPECT_EQ(test, d.fmt, SRP_DATA_DESC_DIRECT);
	KUNIT_EXPECT_EQ(test, d.nbufs, 1U);
	KUNIT_EXPECT_PTR_EQ(test, d.bufs, (const struct srp_direct_buf *)db);
	KUNIT_EXPECT_EQ(test, d.data_len, 4096ULL);
	KUNIT_EXPECT_EQ(test, be64_to_cpu(d.bufs[0].va), 0xdeadbeef000ULL);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(d.bufs[0].key), 0x1234U);
}

static void srpt_desc_direct_data_in(struct kunit *test)
{
	struct srp_cmd *cmd = srpt_test_cmd(test, SRPT_FMT(0, SRP_DATA_DESC_DIRECT),
					    0, 1, 0);
	struct srp_direct_buf *db = srpt_test_desc_pos(cmd);
	struct srpt_data_desc d;

	srpt_test_put_direct(db, 0x1000, 7, 512);
	srpt_test_poison_desc(&d);
	KUNIT_ASSERT_EQ(test, srpt_test_desc_tbl(cmd, 64, 0, &d), 0);
	KUNIT_EXPECT_EQ(test, d.dir, DMA_FROM_DEVICE);
	KUNIT_EXPECT_EQ(test, d.fmt, SRP_DATA_DESC_DIRECT);
	KUNIT_EXPECT_EQ(test, d.nbufs, 1U);
	KUNIT_EXPECT_PTR_EQ(test, d.bufs, (const struct srp_direct_buf *)db);
	KUNIT_EXPECT_EQ(test, d.data_len, 512ULL);
}

/* The direct descriptor must lie entirely inside the IU. */
static void srpt_desc_direct_truncated(struct kunit *test)
{
	struct srp_cmd *cmd = srpt_test_cmd(test, SRPT_FMT(0, SRP_DATA_DESC_DIRECT),
					    0, 1, 0);
	struct srpt_data_desc d;

	srpt_test_put_direct(srpt_test_desc_pos(cmd), 0x1000, 7, 512);
	KUNIT_EXPECT_EQ(test, srpt_test_desc_tbl(cmd, 63, 0, &d), -EINVAL);
	KUNIT_EXPECT_EQ(test, srpt_test_desc_tbl(cmd, 48, 0, &d), -EINVAL);
	KUNIT_EXPECT_EQ(test, srpt_test_desc_tbl(cmd, 64, 0, &d), 0);
}

static void srpt_desc_direct_zero_length(struct kunit *test)
{
	struct srp_cmd *cmd = srpt_test_cmd(test, SRPT_FMT(SRP_DATA_DESC_DIRECT, 0),
					    1, 0, 0);
	struct srpt_data_desc d;

	srpt_test_put_direct(srpt_test_desc_pos(cmd), 0x1000, 7, 0);
	srpt_test_poison_desc(&d);
	KUNIT_ASSERT_EQ(test, srpt_test_desc_tbl(cmd, 64, 0, &d), 0);
	KUNIT_EXPECT_EQ(test, d.fmt, SRP_DATA_DESC_DIRECT);
	KUNIT_EXPECT_EQ(test, d.data_len, 0ULL);
}

static void srpt_desc_direct_max_length(struct kunit *test)
{
	struct srp_cmd *cmd = srpt_test_cmd(test, SRPT_FMT(0, SRP_DATA_DESC_DIRECT),
					    0, 1, 0);
	struct srpt_data_desc d;

	srpt_test_put_direct(srpt_test_desc_pos(cmd), 0x1000, 7, 0xffffffff);
	srpt_test_poison_desc(&d);
	KUNIT_ASSERT_EQ(test, srpt_test_desc_tbl(cmd, 64, 0, &d), 0);
	KUNIT_EXPECT_EQ(test, d.data_len, 0xffffffffULL);
}

/* Descriptors start after add_cdb_len & ~3 additional CDB bytes. */
static void srpt_desc_after_additional_cdb(struct kunit *test)
{
	struct srp_cmd *cmd = srpt_test_cmd(test, SRPT_FMT(0, SRP_DATA_DESC_DIRECT),
					    0, 1, 16);
	u8 *iu = (u8 *)cmd;
	struct srpt_data_desc d;

	/* A decoy where a parser ignoring add_cdb_len would look. */
	srpt_test_put_direct((void *)(iu + 48), 0x1, 1, 111);
	srpt_test_put_direct((void *)(iu + 64), 0x2, 2, 222);
	srpt_test_poison_desc(&d);
	KUNIT_ASSERT_EQ(test, srpt_test_desc_tbl(cmd, 80, 0, &d), 0);
	KUNIT_EXPECT_PTR_EQ(test, (const u8 *)d.bufs, (const u8 *)(iu + 64));
	KUNIT_EXPECT_EQ(test, d.data_len, 222ULL);
	KUNIT_EXPECT_EQ(test, srpt_test_desc_tbl(cmd, 79, 0, &d), -EINVAL);
}

/* The two low bits of add_cdb_len are reserved and ignored. */
static void srpt_desc_add_cdb_len_low_bits(struct kunit *test)
{
	struct srp_cmd *cmd = srpt_test_cmd(test, SRPT_FMT(0, SRP_DATA_DESC_DIRECT),
					    0, 1, 16 | 3);
	u8 *iu = (u8 *)cmd;
	struct srpt_data_desc d;

	srpt_test_put_direct((void *)(iu + 64), 0x2, 2, 333);
	srpt_test_poison_desc(&d);
	KUNIT_ASSERT_EQ(test, srpt_test_desc_tbl(cmd, 80, 0, &d), 0);
	KUNIT_EXPECT_PTR_EQ(test, (const u8 *)d.bufs, (const u8 *)(iu + 64));
	KUNIT_EXPECT_EQ(test, d.data_len, 333ULL);
}

static void srpt_desc_add_cdb_beyond_iu(struct kunit *test)
{
	struct srp_cmd *cmd = srpt_test_cmd(test, 0, 0, 0, 252);
	struct srpt_data_desc d;

	KUNIT_EXPECT_EQ(test, srpt_test_desc_tbl(cmd, 64, 0, &d), -EINVAL);
	KUNIT_EXPECT_EQ(test, srpt_test_desc_tbl(cmd, 48 + 251, 0, &d), -EINVAL);
	KUNIT_EXPECT_EQ(test, srpt_test_desc_tbl(cmd, 48 + 252, 0, &d), 0);

	cmd = srpt_test_cmd(test, SRPT_FMT(SRP_DATA_DESC_DIRECT, 0), 1, 0, 252);
	srpt_test_put_direct(srpt_test_desc_pos(cmd), 0x1000, 7, 512);
	KUNIT_EXPECT_EQ(test, srpt_test_desc_tbl(cmd, 64, 0, &d), -EINVAL);
	KUNIT_EXPECT_EQ(test, srpt_test_desc_tbl(cmd, 48 + 252 + 15, 0, &d), -EINVAL);
	KUNIT_EXPECT_EQ(test, srpt_test_desc_tbl(cmd, 48 + 252 + 16, 0, &d), 0);
	KUNIT_EXPECT_EQ(test, d.data_len, 512ULL);
}

static void srpt_desc_indirect_data_in(struct kunit *test)
{
	static const u32 lens[] = { 4096, 8192 };
	struct srp_cmd *cmd = srpt_test_cmd(test, SRPT_FMT(0, SRP_DATA_DESC_INDIRECT),
					    0, 2, 0);
	struct srp_indirect_buf *ib = srpt_test_put_indirect(cmd, 32, 12288, lens, 2);
	struct srpt_data_desc d;

	KUNIT_ASSERT_EQ(test, srpt_test_indirect_iu_len(cmd, 2), 100U);
	srpt_test_poison_desc(&d);
	KUNIT_ASSERT_EQ(test, srpt_test_desc_tbl(cmd, 100, 0, &d), 0);
	KUNIT_EXPECT_EQ(test, d.dir, DMA_FROM_DEVICE);
	KUNIT_EXPECT_EQ(test, d.fmt, SRP_DATA_DESC_INDIRECT);
	KUNIT_EXPECT_EQ(test, d.nbufs, 2U);
	KUNIT_EXPECT_PTR_EQ(test, d.bufs, (const struct srp_direct_buf *)ib->desc_list);
	KUNIT_EXPECT_EQ(test, d.data_len, 12288ULL);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(d.bufs[1].len), 8192U);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(d.bufs[1].key), 0x1001U);
}

static void srpt_desc_indirect_data_out(struct kunit *test)
{
	static const u32 lens[] = { 512, 1024, 2048 };
	/* data_in_desc_cnt belongs to the inactive direction: ignored. */
	struct srp_cmd *cmd = srpt_test_cmd(test, SRPT_FMT(SRP_DATA_DESC_INDIRECT, 0),
					    3, 9, 0);
	struct srp_indirect_buf *ib = srpt_test_put_indirect(cmd, 48, 3584, lens, 3);
	u32 iu_len = srpt_test_indirect_iu_len(cmd, 3);
	struct srpt_data_desc d;

	srpt_test_poison_desc(&d);
	KUNIT_ASSERT_EQ(test, srpt_test_desc_tbl(cmd, iu_len, 0, &d), 0);
	KUNIT_EXPECT_EQ(test, d.dir, DMA_TO_DEVICE);
	KUNIT_EXPECT_EQ(test, d.fmt, SRP_DATA_DESC_INDIRECT);
	KUNIT_EXPECT_EQ(test, d.nbufs, 3U);
	KUNIT_EXPECT_PTR_EQ(test, d.bufs, (const struct srp_direct_buf *)ib->desc_list);
	KUNIT_EXPECT_EQ(test, d.data_len, 3584ULL);
}

/* The descriptor list must fit in the IU: one byte short is rejected. */
static void srpt_desc_indirect_list_beyond_iu(struct kunit *test)
{
	static const u32 lens[] = { 4096, 4096 };
	struct srp_cmd *cmd = srpt_test_cmd(test, SRPT_FMT(0, SRP_DATA_DESC_INDIRECT),
					    0, 2, 0);
	struct srpt_data_desc d;

	srpt_test_put_indirect(cmd, 32, 8192, lens, 2);
	KUNIT_EXPECT_EQ(test, srpt_test_desc_tbl(cmd, 99, 0, &d), -EINVAL);
	KUNIT_EXPECT_EQ(test, srpt_test_desc_tbl(cmd, 84, 0, &d), -EINVAL);
	/* Not even the indirect header fits. */
	KUNIT_EXPECT_EQ(test, srpt_test_desc_tbl(cmd, 67, 0, &d), -EINVAL);
	KUNIT_EXPECT_EQ(test, srpt_test_desc_tbl(cmd, 100, 0, &d), 0);
}

static void srpt_desc_indirect_table_len_not_multiple(struct kunit *test)
{
	static const u32 lens[] = { 4096, 4096 };
	struct srp_cmd *cmd = srpt_test_cmd(test, SRPT_FMT(0, SRP_DATA_DESC_INDIRECT),
					    0, 1, 0);
	struct srpt_data_desc d;

	srpt_test_put_indirect(cmd, 24, 4096, lens, 2);
	KUNIT_EXPECT_EQ(test, srpt_test_desc_tbl(cmd, 100, 0, &d), -EINVAL);
	srpt_test_put_indirect(cmd, 17, 4096, lens, 2);
	KUNIT_EXPECT_EQ(test, srpt_test_desc_tbl(cmd, 100, 0, &d), -EINVAL);
	srpt_test_put_indirect(cmd, 15, 4096, lens, 2);
	KUNIT_EXPECT_EQ(test, srpt_test_desc_tbl(cmd, 100, 0, &d), -EINVAL);
}

static void srpt_desc_indirect_table_len_zero(struct kunit *test)
{
	struct srp_cmd *cmd = srpt_test_cmd(test, SRPT_FMT(SRP_DATA_DESC_INDIRECT, 0),
					    0, 0, 0);
	struct srpt_data_desc d;

	srpt_test_put_indirect(cmd, 0, 0, NULL, 0);
	KUNIT_EXPECT_EQ(test, srpt_test_desc_tbl(cmd, 100, 0, &d), -EINVAL);
}

/*
 * A table that continues in initiator memory (allow_ext_sg): its
 * descriptor is handed over for the fetch, nothing beyond the IU is read.
 */
static void srpt_desc_indirect_table_outside_iu(struct kunit *test)
{
	static const u32 lens[] = { 4096, 4096 };
	struct srp_cmd *cmd = srpt_test_cmd(test, SRPT_FMT(0, SRP_DATA_DESC_INDIRECT),
					    0, 2, 0);
	struct srp_indirect_buf *ib;
	struct srpt_data_desc d;

	/* 64 entries (256 KiB of data) announced, two present in the IU. */
	ib = srpt_test_put_indirect(cmd, 64 * 16, 64 * 4096, lens, 2);
	srpt_test_poison_desc(&d);
	KUNIT_ASSERT_EQ(test, srpt_test_desc_tbl(cmd, 100, 0, &d), 0);
	KUNIT_EXPECT_EQ(test, d.dir, DMA_FROM_DEVICE);
	KUNIT_EXPECT_EQ(test, d.fmt, SRP_DATA_DESC_INDIRECT);
	KUNIT_EXPECT_EQ(test, d.nbufs, 64U);
	KUNIT_EXPECT_EQ(test, d.data_len, 64ULL * 4096);
	KUNIT_EXPECT_PTR_EQ(test, d.bufs, (const struct srp_direct_buf *)NULL);
	KUNIT_EXPECT_PTR_EQ(test, d.ext_tbl,
			    (const struct srp_direct_buf *)&ib->table_desc);
	/* The partial table must still be inside the IU. */
	KUNIT_EXPECT_EQ(test, srpt_test_desc_tbl(cmd, 99, 0, &d), -EINVAL);
	/* A table length for which 68 + length wraps around in 32 bits. */
	srpt_test_put_indirect(cmd, 0xfffffff0, 8192, lens, 2);
	KUNIT_EXPECT_EQ(test, srpt_test_desc_tbl(cmd, 100, 0, &d), -EINVAL);
}

/* External tables are bounded: SRPT_MAX_EXT_DESCS entries. */
static void srpt_desc_indirect_ext_table_limit(struct kunit *test)
{
	static const u32 lens[] = { 4096 };
	struct srp_cmd *cmd = srpt_test_cmd(test, SRPT_FMT(SRP_DATA_DESC_INDIRECT, 0),
					    1, 0, 0);
	struct srpt_data_desc d;

	srpt_test_put_indirect(cmd, SRPT_MAX_EXT_DESCS * 16, SZ_8M, lens, 1);
	KUNIT_EXPECT_EQ(test, srpt_test_desc_tbl(cmd, 84, 0, &d), 0);
	KUNIT_EXPECT_EQ(test, d.nbufs, (u32)SRPT_MAX_EXT_DESCS);
	KUNIT_EXPECT_EQ(test, d.dir, DMA_TO_DEVICE);
	srpt_test_put_indirect(cmd, (SRPT_MAX_EXT_DESCS + 1) * 16, SZ_8M, lens, 1);
	KUNIT_EXPECT_EQ(test, srpt_test_desc_tbl(cmd, 84, 0, &d), -EINVAL);
}

/* A fetched table is used only if its entries add up to the total. */
static void srpt_desc_ext_table_sum(struct kunit *test)
{
	struct srp_direct_buf *t = kunit_kcalloc(test, 3, sizeof(*t), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, t);
	srpt_test_put_direct(&t[0], 0x1000, 1, 4096);
	srpt_test_put_direct(&t[1], 0x9000, 1, 512);
	srpt_test_put_direct(&t[2], 0x20000, 1, 0xffffffff);
	KUNIT_EXPECT_EQ(test, srpt_check_ext_table(t, 2, 4608), 0);
	KUNIT_EXPECT_EQ(test, srpt_check_ext_table(t, 2, 4607), -EINVAL);
	KUNIT_EXPECT_EQ(test, srpt_check_ext_table(t, 2, 4609), -EINVAL);
	/* 64-bit sum: 4608 + 0xffffffff does not wrap to a small total. */
	KUNIT_EXPECT_EQ(test, srpt_check_ext_table(t, 3, 4607), -EINVAL);
	KUNIT_EXPECT_EQ(test, srpt_check_ext_table(t, 3, 4608ULL + 0xffffffff), 0);
}

/* The table must hold at least desc_cnt entries of the active direction. */
static void srpt_desc_indirect_desc_cnt_exceeds_table(struct kunit *test)
{
	static const u32 lens[] = { 4096, 4096, 4096 };
	struct srp_cmd *cmd = srpt_test_cmd(test, SRPT_FMT(0, SRP_DATA_DESC_INDIRECT),
					    0, 3, 0);
	struct srpt_data_desc d;

	srpt_test_put_indirect(cmd, 32, 8192, lens, 2);
	KUNIT_EXPECT_EQ(test, srpt_test_desc_tbl(cmd, 116, 0, &d), -EINVAL);

	cmd = srpt_test_cmd(test, SRPT_FMT(SRP_DATA_DESC_INDIRECT, 0), 3, 0, 0);
	srpt_test_put_indirect(cmd, 32, 8192, lens, 2);
	KUNIT_EXPECT_EQ(test, srpt_test_desc_tbl(cmd, 116, 0, &d), -EINVAL);
}

static void srpt_desc_indirect_total_mismatch(struct kunit *test)
{
	static const u32 lens[] = { 4096, 4096 };
	struct srp_cmd *cmd = srpt_test_cmd(test, SRPT_FMT(0, SRP_DATA_DESC_INDIRECT),
					    0, 2, 0);
	struct srpt_data_desc d;

	srpt_test_put_indirect(cmd, 32, 8192 + 512, lens, 2);
	KUNIT_EXPECT_EQ(test, srpt_test_desc_tbl(cmd, 100, 0, &d), -EINVAL);
	srpt_test_put_indirect(cmd, 32, 4096, lens, 2);
	KUNIT_EXPECT_EQ(test, srpt_test_desc_tbl(cmd, 100, 0, &d), -EINVAL);
	srpt_test_put_indirect(cmd, 32, 0, lens, 2);
	KUNIT_EXPECT_EQ(test, srpt_test_desc_tbl(cmd, 100, 0, &d), -EINVAL);
}

/* The sum is computed in 64 bits: 32-bit wraparound must not match. */
static void srpt_desc_indirect_total_overflow(struct kunit *test)
{
	static const u32 wrap0[] = { 0xffffffff, 1 };
	static const u32 wrap1[] = { 0xffffffff, 0xffffffff };
	struct srp_cmd *cmd = srpt_test_cmd(test, SRPT_FMT(0, SRP_DATA_DESC_INDIRECT),
					    0, 2, 0);
	struct srpt_data_desc d;

	srpt_test_put_indirect(cmd, 32, 0, wrap0, 2);
	KUNIT_EXPECT_EQ(test, srpt_test_desc_tbl(cmd, 100, 0, &d), -EINVAL);
	srpt_test_put_indirect(cmd, 32, 0xfffffffe, wrap1, 2);
	KUNIT_EXPECT_EQ(test, srpt_test_desc_tbl(cmd, 100, 0, &d), -EINVAL);
	srpt_test_put_indirect(cmd, 32, 0xffffffff, wrap1, 2);
	KUNIT_EXPECT_EQ(test, srpt_test_desc_tbl(cmd, 100, 0, &d), -EINVAL);
}

static void srpt_desc_indirect_zero_lengths(struct kunit *test)
{
	static const u32 lens[] = { 0, 0 };
	struct srp_cmd *cmd = srpt_test_cmd(test, SRPT_FMT(SRP_DATA_DESC_INDIRECT, 0),
					    2, 0, 0);
	struct srpt_data_desc d;

	srpt_test_put_indirect(cmd, 32, 0, lens, 2);
	srpt_test_poison_desc(&d);
	KUNIT_ASSERT_EQ(test, srpt_test_desc_tbl(cmd, 100, 0, &d), 0);
	KUNIT_EXPECT_EQ(test, d.fmt, SRP_DATA_DESC_INDIRECT);
	KUNIT_EXPECT_EQ(test, d.nbufs, 2U);
	KUNIT_EXPECT_EQ(test, d.data_len, 0ULL);
}

/* Immediate data: srp_imm_buf at the descriptor, data at imm_data_offset. */
static void srpt_desc_imm_ok(struct kunit *test)
{
	struct srp_cmd *cmd = srpt_test_cmd(test, SRPT_FMT(SRP_DATA_DESC_IMM, 0),
					    1, 0, 0);
	struct srp_imm_buf *imm = srpt_test_desc_pos(cmd);
	struct srpt_data_desc d;

	imm->len = cpu_to_be32(512);
	srpt_test_poison_desc(&d);
	KUNIT_ASSERT_EQ(test, srpt_test_desc_tbl(cmd, 64 + 512, 64, &d), 0);
	KUNIT_EXPECT_EQ(test, d.dir, DMA_TO_DEVICE);
	KUNIT_EXPECT_EQ(test, d.fmt, SRP_DATA_DESC_IMM);
	KUNIT_EXPECT_EQ(test, d.nbufs, 0U);
	KUNIT_EXPECT_EQ(test, d.data_len, 512ULL);
	KUNIT_EXPECT_EQ(test, d.imm_off, 64U);
	/* Larger IU than needed is fine too. */
	KUNIT_EXPECT_EQ(test, srpt_test_desc_tbl(cmd, 8260, 64, &d), 0);
	KUNIT_EXPECT_EQ(test, d.data_len, 512ULL);
}

static void srpt_desc_imm_beyond_iu(struct kunit *test)
{
	struct srp_cmd *cmd = srpt_test_cmd(test, SRPT_FMT(SRP_DATA_DESC_IMM, 0),
					    1, 0, 0);
	struct srp_imm_buf *imm = srpt_test_desc_pos(cmd);
	struct srpt_data_desc d;

	imm->len = cpu_to_be32(8192);
	KUNIT_EXPECT_EQ(test, srpt_test_desc_tbl(cmd, 64 + 8191, 64, &d), -EINVAL);
	KUNIT_EXPECT_EQ(test, srpt_test_desc_tbl(cmd, 64 + 8192, 64, &d), 0);
	/* Offset itself past the end of the IU. */
	imm->len = cpu_to_be32(0);
	KUNIT_EXPECT_EQ(test, srpt_test_desc_tbl(cmd, 100, 200, &d), -EINVAL);
}

/* offset + len is checked without 32-bit wraparound. */
static void srpt_desc_imm_wraparound(struct kunit *test)
{
	struct srp_cmd *cmd = srpt_test_cmd(test, SRPT_FMT(SRP_DATA_DESC_IMM, 0),
					    1, 0, 0);
	struct srp_imm_buf *imm = srpt_test_desc_pos(cmd);
	struct srpt_data_desc d;

	imm->len = cpu_to_be32(0xffffffff);
	KUNIT_EXPECT_EQ(test, srpt_test_desc_tbl(cmd, 8260, 64, &d), -EINVAL);
	/* 64 + (2^32 - 64) == 2^32 wraps to 0 in 32 bits. */
	imm->len = cpu_to_be32(0xffffffc0);
	KUNIT_EXPECT_EQ(test, srpt_test_desc_tbl(cmd, 8260, 64, &d), -EINVAL);
	/* ... and to 48 here, which would "fit" a 32-bit check. */
	imm->len = cpu_to_be32(0xfffffff0);
	KUNIT_EXPECT_EQ(test, srpt_test_desc_tbl(cmd, 8260, 64, &d), -EINVAL);
}

static void srpt_desc_imm_zero_length(struct kunit *test)
{
	struct srp_cmd *cmd = srpt_test_cmd(test, SRPT_FMT(SRP_DATA_DESC_IMM, 0),
					    1, 0, 0);
	struct srp_imm_buf *imm = srpt_test_desc_pos(cmd);
	struct srpt_data_desc d;

	imm->len = cpu_to_be32(0);
	srpt_test_poison_desc(&d);
	KUNIT_ASSERT_EQ(test, srpt_test_desc_tbl(cmd, 64, 64, &d), 0);
	KUNIT_EXPECT_EQ(test, d.fmt, SRP_DATA_DESC_IMM);
	KUNIT_EXPECT_EQ(test, d.data_len, 0ULL);
}

/* Without negotiated immediate data (offset 0) the format is invalid. */
static void srpt_desc_imm_not_negotiated(struct kunit *test)
{
	struct srp_cmd *cmd = srpt_test_cmd(test, SRPT_FMT(SRP_DATA_DESC_IMM, 0),
					    1, 0, 0);
	struct srp_imm_buf *imm = srpt_test_desc_pos(cmd);
	struct srpt_data_desc d;

	imm->len = cpu_to_be32(16);
	KUNIT_EXPECT_EQ(test, srpt_test_desc_tbl(cmd, 8260, 0, &d), -EINVAL);
}

/* The data may not overlap the srp_imm_buf it is described by. */
static void srpt_desc_imm_offset_overlaps_desc(struct kunit *test)
{
	struct srp_cmd *cmd = srpt_test_cmd(test, SRPT_FMT(SRP_DATA_DESC_IMM, 0),
					    1, 0, 0);
	struct srp_imm_buf *imm = srpt_test_desc_pos(cmd);
	struct srpt_data_desc d;

	imm->len = cpu_to_be32(8);
	KUNIT_EXPECT_EQ(test, srpt_test_desc_tbl(cmd, 256, 51, &d), -EINVAL);
	KUNIT_EXPECT_EQ(test, srpt_test_desc_tbl(cmd, 256, 48, &d), -EINVAL);
	KUNIT_EXPECT_EQ(test, srpt_test_desc_tbl(cmd, 256, 52, &d), 0);
	KUNIT_EXPECT_EQ(test, d.imm_off, 52U);

	/* With 16 additional CDB bytes the srp_imm_buf ends at 68. */
	cmd = srpt_test_cmd(test, SRPT_FMT(SRP_DATA_DESC_IMM, 0), 1, 0, 16);
	imm = srpt_test_desc_pos(cmd);
	imm->len = cpu_to_be32(8);
	KUNIT_EXPECT_EQ(test, srpt_test_desc_tbl(cmd, 256, 64, &d), -EINVAL);
	KUNIT_EXPECT_EQ(test, srpt_test_desc_tbl(cmd, 256, 67, &d), -EINVAL);
	KUNIT_EXPECT_EQ(test, srpt_test_desc_tbl(cmd, 256, 68, &d), 0);
	KUNIT_EXPECT_EQ(test, d.data_len, 8ULL);
}

static void srpt_desc_imm_data_in_rejected(struct kunit *test)
{
	struct srp_cmd *cmd = srpt_test_cmd(test, SRPT_FMT(0, SRP_DATA_DESC_IMM),
					    0, 1, 0);
	struct srp_imm_buf *imm = srpt_test_desc_pos(cmd);
	struct srpt_data_desc d;

	imm->len = cpu_to_be32(16);
	KUNIT_EXPECT_EQ(test, srpt_test_desc_tbl(cmd, 256, 64, &d), -EINVAL);
}

/* Bidirectional commands are not supported. */
static void srpt_desc_both_directions(struct kunit *test)
{
	struct srpt_data_desc d;
	int out, in;

	for (out = SRP_DATA_DESC_DIRECT; out <= SRP_DATA_DESC_IMM; out++) {
		for (in = SRP_DATA_DESC_DIRECT; in <= SRP_DATA_DESC_INDIRECT; in++) {
			struct srp_cmd *cmd = srpt_test_cmd(test, SRPT_FMT(out, in),
							    1, 1, 0);
			static const u32 lens[] = { 16 };

			srpt_test_put_indirect(cmd, 16, 16, lens, 1);
			KUNIT_EXPECT_EQ_MSG(test, srpt_test_desc_tbl(cmd, 256, 64, &d),
					    -EINVAL, "buf_fmt %#x", SRPT_FMT(out, in));
		}
	}
}

static void srpt_desc_unknown_formats(struct kunit *test)
{
	struct srp_cmd *cmd = srpt_test_cmd(test, 0, 1, 1, 0);
	struct srpt_data_desc d;
	int f;

	srpt_test_put_direct(srpt_test_desc_pos(cmd), 0x1000, 7, 16);
	for (f = 4; f <= 15; f++) {
		cmd->buf_fmt = SRPT_FMT(f, 0);
		KUNIT_EXPECT_EQ_MSG(test, srpt_test_desc_tbl(cmd, 256, 64, &d),
				    -EINVAL, "buf_fmt %#x", cmd->buf_fmt);
		cmd->buf_fmt = SRPT_FMT(0, f);
		KUNIT_EXPECT_EQ_MSG(test, srpt_test_desc_tbl(cmd, 256, 64, &d),
				    -EINVAL, "buf_fmt %#x", cmd->buf_fmt);
	}
}

/* A WRITE(10) with one direct data-out descriptor of @len bytes. */
static struct srp_cmd *srpt_test_write_cmd(struct kunit *test, u32 len)
{
	struct srp_cmd *cmd = srpt_test_cmd(test, SRPT_FMT(SRP_DATA_DESC_DIRECT, 0),
					    1, 0, 0);

	cmd->cdb[0] = 0x2a;	/* WRITE(10) */
	srpt_test_put_direct(srpt_test_desc_pos(cmd), 0x10000, 0x77, len);
	return cmd;
}

/* Data lengths beyond srp_max_rdma_size are refused before LIO allocates. */
static void srpt_desc_data_len_limit(struct kunit *test)
{
	struct srpt_test_ch *f = test->priv;
	u32 max = SRPT_MAX_RDMA_SIZE_DEFAULT;
	struct srpt_data_desc d;

	KUNIT_EXPECT_EQ(test, srpt_check_cmd(f->ch, srpt_test_write_cmd(test, SZ_1M),
					     64, &d), 0);
	KUNIT_EXPECT_EQ(test, d.data_len, (u64)SZ_1M);
	KUNIT_EXPECT_EQ(test, srpt_check_cmd(f->ch, srpt_test_write_cmd(test, max),
					     64, &d), 0);
	KUNIT_EXPECT_EQ(test, srpt_check_cmd(f->ch, srpt_test_write_cmd(test, max + 1),
					     64, &d), -E2BIG);
	KUNIT_EXPECT_EQ(test, srpt_check_cmd(f->ch, srpt_test_write_cmd(test, SZ_512M),
					     64, &d), -E2BIG);
	/* The limit is the channel's, taken from the port at login. */
	f->ch->lim.max_data_len = SZ_64K;
	KUNIT_EXPECT_EQ(test, srpt_check_cmd(f->ch, srpt_test_write_cmd(test, SZ_1M),
					     64, &d), -E2BIG);
	/* A malformed IU stays malformed whatever its length. */
	KUNIT_EXPECT_EQ(test, srpt_check_cmd(f->ch, srpt_test_write_cmd(test, 512),
					     63, &d), -EINVAL);
}

/* One direct descriptor of 4 KiB in the direction @fmt names, opcode @op. */
static struct srp_cmd *srpt_test_dir_cmd(struct kunit *test, u8 fmt, u8 op)
{
	struct srp_cmd *cmd = srpt_test_cmd(test, fmt, 1, 1, 0);

	cmd->cdb[0] = op;
	srpt_test_put_direct(srpt_test_desc_pos(cmd), 0x10000, 0x77, SZ_4K);
	return cmd;
}

struct srpt_dir_row {
	u8 op;
	u16 sa;		/* service action of VARIABLE_LENGTH_CMD */
	int want_out;	/* result with a data-out descriptor */
	int want_in;	/* result with a data-in descriptor */
};

static const struct srpt_dir_row srpt_dir_rows[] = {
	{ WRITE_10, 0, 0, -EPROTO },
	{ WRITE_6, 0, 0, -EPROTO },
	{ WRITE_16, 0, 0, -EPROTO },
	{ WRITE_SAME_16, 0, 0, -EPROTO },
	{ COMPARE_AND_WRITE, 0, 0, -EPROTO },
	{ UNMAP, 0, 0, -EPROTO },
	{ MODE_SELECT_10, 0, 0, -EPROTO },
	{ PERSISTENT_RESERVE_OUT, 0, 0, -EPROTO },
	{ VARIABLE_LENGTH_CMD, WRITE_32, 0, -EPROTO },
	{ READ_10, 0, -EPROTO, 0 },
	{ READ_6, 0, -EPROTO, 0 },
	{ READ_16, 0, -EPROTO, 0 },
	{ INQUIRY, 0, -EPROTO, 0 },
	{ REPORT_LUNS, 0, -EPROTO, 0 },
	{ MODE_SENSE, 0, -EPROTO, 0 },
	{ SERVICE_ACTION_IN_16, 0, -EPROTO, 0 },
	{ PERSISTENT_RESERVE_IN, 0, -EPROTO, 0 },
	{ VARIABLE_LENGTH_CMD, READ_32, -EPROTO, 0 },
	/* No fixed direction: the descriptor decides. */
	{ VERIFY, 0, 0, 0 },
	{ 0xc0, 0, 0, 0 },
	{ VARIABLE_LENGTH_CMD, 0x8801, 0, 0 },
};

static void srpt_dir_row_desc(const struct srpt_dir_row *r, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "opcode %#x sa %#x", r->op, r->sa);
}

KUNIT_ARRAY_PARAM(srpt_dir_rows, srpt_dir_rows, srpt_dir_row_desc);

/* A descriptor whose direction contradicts the CDB never reaches LIO. */
static void srpt_desc_dir_matches_cdb(struct kunit *test)
{
	const struct srpt_dir_row *r = test->param_value;
	struct srpt_test_ch *f = test->priv;
	struct srp_cmd *out, *in;
	struct srpt_data_desc d;

	out = srpt_test_dir_cmd(test, SRPT_FMT(SRP_DATA_DESC_DIRECT, 0), r->op);
	in = srpt_test_dir_cmd(test, SRPT_FMT(0, SRP_DATA_DESC_DIRECT), r->op);
	if (r->op == VARIABLE_LENGTH_CMD) {
		put_unaligned_be16(r->sa, &out->cdb[8]);
		put_unaligned_be16(r->sa, &in->cdb[8]);
	}
	KUNIT_EXPECT_EQ(test, srpt_check_cmd(f->ch, out, 128, &d), r->want_out);
	KUNIT_EXPECT_EQ(test, d.dir, DMA_TO_DEVICE);
	KUNIT_EXPECT_EQ(test, srpt_check_cmd(f->ch, in, 128, &d), r->want_in);
	KUNIT_EXPECT_EQ(test, d.dir, DMA_FROM_DEVICE);
}

/* A WRITE without data, or with a zero-length descriptor, transfers nothing. */
static void srpt_desc_dir_no_data(struct kunit *test)
{
	struct srpt_test_ch *f = test->priv;
	struct srp_cmd *cmd = srpt_test_cmd(test, 0, 0, 0, 0);
	struct srpt_data_desc d;

	cmd->cdb[0] = WRITE_10;
	KUNIT_EXPECT_EQ(test, srpt_check_cmd(f->ch, cmd, 64, &d), 0);
	cmd = srpt_test_dir_cmd(test, SRPT_FMT(0, SRP_DATA_DESC_DIRECT), WRITE_10);
	srpt_test_put_direct(srpt_test_desc_pos(cmd), 0x10000, 0x77, 0);
	KUNIT_EXPECT_EQ(test, srpt_check_cmd(f->ch, cmd, 64, &d), 0);
}

static struct kunit_case srpt_desc_cases[] = {
	KUNIT_CASE(srpt_desc_no_data),
	KUNIT_CASE(srpt_desc_direct_data_out),
	KUNIT_CASE(srpt_desc_direct_data_in),
	KUNIT_CASE(srpt_desc_direct_truncated),
	KUNIT_CASE(srpt_desc_direct_zero_length),
	KUNIT_CASE(srpt_desc_direct_max_length),
	KUNIT_CASE(srpt_desc_after_additional_cdb),
	KUNIT_CASE(srpt_desc_add_cdb_len_low_bits),
	KUNIT_CASE(srpt_desc_add_cdb_beyond_iu),
	KUNIT_CASE(srpt_desc_indirect_data_in),
	KUNIT_CASE(srpt_desc_indirect_data_out),
	KUNIT_CASE(srpt_desc_indirect_list_beyond_iu),
	KUNIT_CASE(srpt_desc_indirect_table_len_not_multiple),
	KUNIT_CASE(srpt_desc_indirect_table_len_zero),
	KUNIT_CASE(srpt_desc_indirect_table_outside_iu),
	KUNIT_CASE(srpt_desc_indirect_ext_table_limit),
	KUNIT_CASE(srpt_desc_ext_table_sum),
	KUNIT_CASE(srpt_desc_indirect_desc_cnt_exceeds_table),
	KUNIT_CASE(srpt_desc_indirect_total_mismatch),
	KUNIT_CASE(srpt_desc_indirect_total_overflow),
	KUNIT_CASE(srpt_desc_indirect_zero_lengths),
	KUNIT_CASE(srpt_desc_imm_ok),
	KUNIT_CASE(srpt_desc_imm_beyond_iu),
	KUNIT_CASE(srpt_desc_imm_wraparound),
	KUNIT_CASE(srpt_desc_imm_zero_length),
	KUNIT_CASE(srpt_desc_imm_not_negotiated),
	KUNIT_CASE(srpt_desc_imm_offset_overlaps_desc),
	KUNIT_CASE(srpt_desc_imm_data_in_rejected),
	KUNIT_CASE(srpt_desc_both_directions),
	KUNIT_CASE(srpt_desc_unknown_formats),
	KUNIT_CASE(srpt_desc_data_len_limit),
	KUNIT_CASE_PARAM(srpt_desc_dir_matches_cdb, srpt_dir_rows_gen_params),
	KUNIT_CASE(srpt_desc_dir_no_data),
	{}
};

static struct kunit_suite srpt_desc_suite = {
	.name = "ib_srpt_desc",
	.init = srpt_test_ch_init,
	.test_cases = srpt_desc_cases,
};

kunit_test_suite(srpt_desc_suite);
