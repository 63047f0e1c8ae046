// SPDX-License-Identifier: GPL-2.0-only
/*
 * ackcheck: write 4 KiB blocks whose every sector names its block and a
 * generation, remember which writes the disk acknowledged, and read every
 * acknowledged block back. It answers one question across any number of
 * disruptions: is every write that completed still there?
 *
 *   ackcheck write DEV STATE [-n WRITES] [-t THREADS] [-b BLOCKS] [-S STOPFILE]
 *   ackcheck verify DEV STATE [-B BLOCK]
 *   ackcheck acked STATE		print one acknowledged block number
 *   ackcheck count STATE		print how many writes were ever acknowledged
 *
 * STATE is a file mapped shared, so a writer that is killed leaves it
 * exact: per block the last acknowledged generation and the last one
 * tried, and the writes acknowledged over all passes (which a caller
 * polls to see that writes are flowing). A write that did not complete
 * (an error, or the writer killed) may or may not have reached the disk,
 * so each sector of a block may hold any generation from the acknowledged
 * one through the last tried; a sector holding anything else is a lost
 * acknowledged write. Sectors are checked one by one because a failed
 * write may have landed in part.
 *
 * verify -B reads only the blocks read together with BLOCK (the check of
 * the check: one zeroed sector must be found, no need to read the rest).
 *
 * Exit status: write: 0 all acknowledged, 3 some failed; verify: 0 all
 * there, 1 data lost, 2 could not read everything (nothing concluded);
 * 4 usage or setup error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define BLK		4096
#define SECT		512
#define SPB		(BLK / SECT)
#define MAGIC		0x5352504141434bULL	/* "SRPAACK" */
#define STATE_MAGIC	0x41434b5354415432ULL	/* "ACKSTAT2" */
#define MAX_THREADS	64
#define MAX_ERR_RUN	8	/* errors in a row that end a thread */

struct sect_hdr {
	uint64_t magic;
	uint64_t block;
	uint32_t gen;
	uint32_t sector;
};

struct gens {
	uint32_t acked;
	uint32_t tried;
};

struct state {
	uint64_t magic;
	uint64_t nblocks;
	uint64_t acked;
	struct gens g[];
};

static struct state *st;
static int fd;
static uint64_t nblocks;
static const char *stopfile;
static int64_t only_block = -1;	/* verify: the chunk holding it only */
static long max_writes = 2048;
static int nthreads = 8;
static long n_issued, n_acked, n_failed;
static int first_errno;
static uint64_t first_err_block;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

/* The exact content of sector s of block b in generation g. */
static void fill_sector(unsigned char *p, uint64_t b, uint32_t g, uint32_t s)
{
	struct sect_hdr h = { MAGIC, b, g, s };
	uint64_t x = mix(b * 0x9e3779b97f4a7c15ULL ^ ((uint64_t)g << 32 | s)) | 1;
	size_t i;

	memcpy(p, &h, sizeof(h));
	for (i = sizeof(h); i < SECT; i += 8) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(p + i, &x, 8);
	}
}

static void fill_block(unsigned char *p, uint64_t b, uint32_t g)
{
	uint32_t s;

	for (s = 0; s < SPB; s++)
		fill_sector(p + s * SECT, b, g, s);
}

static int map_state(const char *path, uint64_t want_blocks)
{
	size_t len = sizeof(struct state) + want_blocks * sizeof(struct gens);
	struct stat sb;
	int sfd = open(path, O_RDWR | O_CREAT, 0644);

	if (sfd < 0 || fstat(sfd, &sb)) {
		perror(path);
		return -1;
	}
	if (sb.st_size == 0) {
		if (!want_blocks) {
			fprintf(stderr, "%s: empty state and no -b\n", path);
			return -1;
		}
		if (ftruncate(sfd, len)) {
			perror("ftruncate");
			return -1;
		}
	} else {
		len = sb.st_size;
	}
	st = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, sfd, 0);
	close(sfd);
	if (st == MAP_FAILED) {
		perror("mmap");
		return -1;
	}
	if (sb.st_size == 0) {
		st->magic = STATE_MAGIC;
		st->nblocks = want_blocks;
	}
	if (st->magic != STATE_MAGIC ||
	    len != sizeof(struct state) + st->nblocks * sizeof(struct gens)) {
		fprintf(stderr, "%s: not an ackcheck state file\n", path);
		return -1;
	}
	nblocks = st->nblocks;
	return 0;
}

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static void *writer(void *arg)
{
	long t = (long)arg;
	uint64_t x = mix(time(NULL) ^ (t + 1) * 0x9e3779b97f4a7c15ULL ^ getpid()) | 1;
	uint64_t mine = (nblocks - t + nthreads - 1) / nthreads;
	unsigned char *buf;
	int err_run = 0;

	if (!mine || posix_memalign((void **)&buf, BLK, BLK))
		return NULL;
	for (;;) {
		uint64_t b = t + (rnd(&x) % mine) * nthreads;
		struct gens *gp = &st->g[b];
		uint32_t g = gp->tried + 1;
		ssize_t r;

		if (__atomic_add_fetch(&n_issued, 1, __ATOMIC_RELAXED) > max_writes)
			break;
		if (stopfile && !(n_issued & 63) && !access(stopfile, F_OK))
			break;
		/* only this thread writes block b */
		fill_block(buf, b, g);
		__atomic_store_n(&gp->tried, g, __ATOMIC_SEQ_CST);
		r = pwrite(fd, buf, BLK, b * BLK);
		if (r == BLK) {
			__atomic_store_n(&gp->acked, g, __ATOMIC_SEQ_CST);
			__atomic_add_fetch(&n_acked, 1, __ATOMIC_RELAXED);
			__atomic_add_fetch(&st->acked, 1, __ATOMIC_RELAXED);
			err_run = 0;
			continue;
		}
		pthread_mutex_lock(&lock);
		if (!n_failed++) {
			first_errno = r < 0 ? errno : EIO;
			first_err_block = b;
		}
		pthread_mutex_unlock(&lock);
		if (++err_run >= MAX_ERR_RUN)
			break;
		usleep(100000);
	}
	free(buf);
	return NULL;
}

static int do_write(void)
{
	pthread_t th[MAX_THREADS];
	long t;

	for (t = 0; t < nthreads; t++)
		if (pthread_create(&th[t], NULL, writer, (void *)t)) {
			perror("pthread_create");
			return 4;
		}
	for (t = 0; t < nthreads; t++)
		pthread_join(th[t], NULL);
	msync(st, sizeof(*st) + nblocks * sizeof(struct gens), MS_SYNC);
	printf("ackcheck write: %ld acknowledged, %ld failed", n_acked, n_failed);
	if (n_failed)
		printf(" (first: block %llu, %s)", (unsigned long long)first_err_block,
		       strerror(first_errno));
	printf("\n");
	return n_failed ? 3 : 0;
}

/* 0: the sector is one of the generations allowed; else prints why not. */
static int check_sector(const unsigned char *p, uint64_t b, uint32_t s,
			const struct gens *gp, unsigned char *want)
{
	struct sect_hdr h;

	memcpy(&h, p, sizeof(h));
	if (h.magic != MAGIC || h.block != b || h.sector != s) {
		printf("LOST block %llu sector %u: not this block's content (magic %#llx block %llu), acknowledged generation %u, tried %u\n",
		       (unsigned long long)b, s, (unsigned long long)h.magic,
		       (unsigned long long)h.block, gp->acked, gp->tried);
		return 1;
	}
	if (h.gen < gp->acked || h.gen > gp->tried) {
		printf("LOST block %llu sector %u: generation %u, acknowledged %u, tried %u%s\n",
		       (unsigned long long)b, s, h.gen, gp->acked, gp->tried,
		       h.gen < gp->acked ? " (an older write)" : " (never written)");
		return 1;
	}
	fill_sector(want, b, h.gen, s);
	if (memcmp(p, want, SECT)) {
		printf("LOST block %llu sector %u: generation %u header, content differs\n",
		       (unsigned long long)b, s, h.gen);
		return 1;
	}
	return 0;
}

static int do_verify(void)
{
	const uint64_t chunk = 64;
	unsigned char *buf, want[SECT];
	uint64_t b0, b, checked = 0, lost = 0;

	if (posix_memalign((void **)&buf, BLK, chunk * BLK))
		return 4;
	for (b0 = 0; b0 < nblocks; b0 += chunk) {
		uint64_t n = nblocks - b0 < chunk ? nblocks - b0 : chunk;
		ssize_t r;

		if (only_block >= 0 &&
		    ((uint64_t)only_block < b0 || (uint64_t)only_block >= b0 + n))
			continue;

		for (b = b0; b < b0 + n && !st->g[b].tried; b++)
			;
		if (b == b0 + n)
			continue;
		r = pread(fd, buf, n * BLK, b0 * BLK);
		if (r != (ssize_t)(n * BLK)) {
			printf("ackcheck verify: read of blocks %llu-%llu failed: %s; %llu blocks checked so far, %llu sectors lost\n",
			       (unsigned long long)b0, (unsigned long long)(b0 + n - 1),
			       r < 0 ? strerror(errno) : "short read",
			       (unsigned long long)checked, (unsigned long long)lost);
			return 2;
		}
		for (b = b0; b < b0 + n; b++) {
			struct gens g = st->g[b];
			uint32_t s;

			if (!g.acked)
				continue;	/* never acknowledged: nothing promised */
			checked++;
			for (s = 0; s < SPB; s++)
				lost += check_sector(buf + (b - b0) * BLK + s * SECT,
						     b, s, &g, want) && lost < 1000000;
		}
	}
	printf("ackcheck verify: %llu acknowledged blocks checked, %llu sectors lost\n",
	       (unsigned long long)checked, (unsigned long long)lost);
	return lost ? 1 : 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: ackcheck write DEV STATE [-n WRITES] [-t THREADS] [-b BLOCKS] [-S STOPFILE]\n"
		"       ackcheck verify DEV STATE [-B BLOCK]\n"
		"       ackcheck acked STATE\n"
		"       ackcheck count STATE\n");
	return 4;
}

int main(int argc, char **argv)
{
	uint64_t want_blocks = 0, b;
	const char *cmd, *dev = NULL, *state;
	int c;

	if (argc < 3)
		return usage();
	cmd = argv[1];
	if (!strcmp(cmd, "acked")) {
		if (map_state(argv[2], 0))
			return 4;
		for (b = 0; b < nblocks; b++)
			if (st->g[b].acked && st->g[b].acked == st->g[b].tried) {
				printf("%llu\n", (unsigned long long)b);
				return 0;
			}
		fprintf(stderr, "no acknowledged block\n");
		return 1;
	}
	if (!strcmp(cmd, "count")) {
		if (map_state(argv[2], 0))
			return 4;
		printf("%llu\n", (unsigned long long)__atomic_load_n(&st->acked, __ATOMIC_RELAXED));
		return 0;
	}
	if (argc < 4)
		return usage();
	dev = argv[2];
	state = argv[3];
	optind = 4;
	while ((c = getopt(argc, argv, "n:t:b:S:B:")) != -1) {
		switch (c) {
		case 'n': max_writes = atol(optarg); break;
		case 't': nthreads = atoi(optarg); break;
		case 'b': want_blocks = strtoull(optarg, NULL, 0); break;
		case 'S': stopfile = optarg; break;
		case 'B': {
			char *end;

			only_block = strtoll(optarg, &end, 0);
			if (*end || end == optarg || only_block < 0)
				return usage();
			break;
		}
		default: return usage();
		}
	}
	if (nthreads < 1 || nthreads > MAX_THREADS || max_writes < 1)
		return usage();
	if (map_state(state, want_blocks))
		return 4;
	fd = open(dev, O_RDWR | O_DIRECT);
	if (fd < 0) {
		printf("ackcheck: %s: %s\n", dev, strerror(errno));
		return 2;
	}
	if (!strcmp(cmd, "write"))
		return do_write();
	if (!strcmp(cmd, "verify"))
		return do_verify();
	return usage();
}
