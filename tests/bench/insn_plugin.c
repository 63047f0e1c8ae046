// SPDX-License-Identifier: GPL-2.0-only
/*
 * QEMU TCG plugin for make bench: counts the guest instructions executed
 * at each translation-block start address, and writes what was counted
 * since the last mark each time the guest executes the marker instruction
 * "xchg %bx,%bx" (66 87 db, which compilers do not emit; tests/bench/
 * insn_mark.c runs it).
 *
 * -plugin insn_plugin.so,out=FILE
 *
 * FILE: for each mark, a 24-byte header ("SRPTMARK", mark number, 0 as
 * u64) and one record per block start that ran since the previous mark
 * (guest virtual address, instructions, LOCK-prefixed instructions: u64
 * each), then a record with address 0. Little-endian, as the host.
 *
 * Counting is inline (no call per block): a block's instructions are added
 * when it starts, and the two vCPUs' additions to one counter are not
 * atomic, so a count can lose a few increments; measured repeatability is
 * in Documentation/performance.rst.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

struct block {
	uint64_t vaddr;
	uint64_t count;		/* added to by the guest's vCPUs */
	uint64_t locked;	/* the same for LOCK-prefixed instructions */
	uint64_t reported;	/* count at the last mark */
	uint64_t locked_reported;
	struct block *next;	/* hash chain */
	struct block *all;	/* every block, for the marks */
};

#define NBUCKETS (1u << 20)
static struct block **buckets;
static struct block *blocks;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *out;
static uint64_t marks;

static struct block *block_of(uint64_t vaddr)
{
	uint64_t h = (vaddr * 0x9e3779b97f4a7c15ull) >> 44;
	struct block *b;

	pthread_mutex_lock(&lock);
	for (b = buckets[h]; b; b = b->next)
		if (b->vaddr == vaddr)
			goto found;
	b = calloc(1, sizeof(*b));
	if (!b)
		abort();
	b->vaddr = vaddr;
	b->next = buckets[h];
	buckets[h] = b;
	b->all = blocks;
	blocks = b;
found:
	pthread_mutex_unlock(&lock);
	return b;
}

static void mark(unsigned int vcpu, void *udata)
{
	uint64_t rec[3], now, locked;
	struct block *b;

	pthread_mutex_lock(&lock);
	rec[0] = 0x4b52414d54505253ull;	/* "SRPTMARK" */
	rec[1] = ++marks;
	rec[2] = 0;
	fwrite(rec, sizeof(rec), 1, out);
	for (b = blocks; b; b = b->all) {
		now = __atomic_load_n(&b->count, __ATOMIC_RELAXED);
		locked = __atomic_load_n(&b->locked, __ATOMIC_RELAXED);
		if (now == b->reported)
			continue;
		rec[0] = b->vaddr;
		rec[1] = now - b->reported;
		rec[2] = locked - b->locked_reported;
		b->reported = now;
		b->locked_reported = locked;
		fwrite(rec, sizeof(rec), 1, out);
	}
	rec[0] = rec[1] = rec[2] = 0;
	fwrite(rec, sizeof(rec), 1, out);
	fflush(out);
	pthread_mutex_unlock(&lock);
}

/* An x86 LOCK prefix among the instruction's legacy prefixes. */
static int locked_insn(const uint8_t *d, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		switch (d[i]) {
		case 0xf0:
			return 1;
		case 0x66: case 0x67: case 0xf2: case 0xf3:
		case 0x2e: case 0x36: case 0x3e: case 0x26: case 0x64: case 0x65:
			continue;
		default:
			return 0;
		}
	}
	return 0;
}

static void translated(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb), locked = 0;
	struct block *b = block_of(qemu_plugin_tb_vaddr(tb));

	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &b->count, n);
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		const uint8_t *d = qemu_plugin_insn_data(insn);
		size_t len = qemu_plugin_insn_size(insn);

		locked += locked_insn(d, len);
		if (len == 3 && d[0] == 0x66 && d[1] == 0x87 && d[2] == 0xdb)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, mark,
							       QEMU_PLUGIN_CB_NO_REGS,
							       NULL);
	}
	if (locked)
		qemu_plugin_register_vcpu_tb_exec_inline(tb,
							 QEMU_PLUGIN_INLINE_ADD_U64,
							 &b->locked, locked);
}

static void at_exit(qemu_plugin_id_t id, void *p)
{
	if (out)
		fclose(out);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++)
		if (!strncmp(argv[i], "out=", 4))
			out = fopen(argv[i] + 4, "wb");
	if (!out) {
		fprintf(stderr, "insn_plugin: give out=FILE (a writable path)\n");
		return -1;
	}
	buckets = calloc(NBUCKETS, sizeof(*buckets));
	if (!buckets)
		return -1;
	qemu_plugin_register_vcpu_tb_trans_cb(id, translated);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
