// SPDX-License-Identifier: GPL-2.0-only
/*
 * hostile - a misbehaving SRP initiator for testing an SRP target over the
 * RDMA/CM (soft-RoCE in the test guest).
 *
 *   hostile -a ADDR [-p PORT] -g TARGET_GUID -I INITIATOR_PORT_ID
 *           [-c CASE[,CASE...]] [-t SECONDS] [-L LUN] [-n] [-v] [-l]
 *           [-M] [-x REGEX] [-C FILE]
 *
 * Every case runs in its own child process on its own connection(s), with a
 * timeout (-t, default 60 s), so a hung target cannot hang the tool. Cases
 * that claim "the target survives" are followed by a probe: a fresh, well
 * behaved login and an INQUIRY. Prints "PASS name" or "FAIL name: ..." per
 * case and a last line "N passed, N failed"; exits 1 on any failure.
 *
 * For a runner that wants to know which case the kernel complained in
 * (tests/hostile/run-guest.sh runs many cases in one tool process: a
 * process start costs seconds under TCG), -M puts a mark in the kernel log
 * before each case, and -x stops the run after the first case that failed
 * or after which the kernel logged a line matching REGEX or took a new
 * taint flag; the runner then checks the target and starts the tool again
 * for the cases left. -C names a file that always holds "case NAME" of the
 * case running (so that the host knows where a guest that died was).
 *
 * This file holds main() and the table of cases; the cases themselves are
 * in one file per theme, common.c has what they share (see hostile.h).
 */
#include <regex.h>

#include "hostile.h"

/* ------------------------------------------------------------------------ */

struct tcase {
	const char *name;
	int (*fn)(void);
	const char *what;
	void (*cleanup)(void);	/* run by the parent after the case, always */
};

static const struct tcase cases[] = {
	{ "sanity", case_sanity,
	  "normal login, INQUIRY (LIO disk), READ(10); the seed block as written, a block written and read back, no residual" },
	{ "probe_seed", case_probe_seed, "(-c only) write the block every probe reads back" },
	{ "fuzz_live", case_fuzz_live,
	  "(-c only) HOSTILE_FUZZ_IUS (20000) mutated commands, TMFs, logins, raw IUs: each answered or its channel closed" },
	{ "login_iu_len_0", case_login_iu_len_0, "it_iu_len 0 -> REJ 0x00010000" },
	{ "login_iu_len_63", case_login_iu_len_63, "it_iu_len 63 -> REJ 0x00010000" },
	{ "login_iu_len_64", case_login_iu_len_64, "it_iu_len 64 -> accepted" },
	{ "login_iu_len_1M", case_login_iu_len_1M, "it_iu_len 1 MiB -> REJ 0x00010002" },
	{ "login_iu_len_4G", case_login_iu_len_4G, "it_iu_len 0xffffffff -> REJ 0x00010002" },
	{ "login_wrong_target_port", case_login_wrong_tport, "-> REJ 0x00010003" },
	{ "login_short_private_data", case_login_short_pdata, "8-byte login -> REJ 0x00010000" },
	{ "login_no_buf_fmt", case_login_no_buf_fmt, "req_buf_fmt 0 -> REJ 0x00010004" },
	{ "credit_overrun", case_credit_overrun,
	  "limit 0, 50 INQUIRYs more -> discarded: no answer, no credit, channel up, limit intact" },
	{ "cmd_in_desc_cnt_beyond_iu", case_cmd_in_desc_cnt_beyond_iu, "-> CHECK CONDITION" },
	{ "cmd_out_desc_cnt_beyond_iu", case_cmd_out_desc_cnt_beyond_iu, "-> CHECK CONDITION" },
	{ "cmd_table_len_not_16", case_cmd_table_len_not_16, "-> CHECK CONDITION" },
	{ "cmd_total_len_overflow", case_cmd_total_len_overflow, "-> CHECK CONDITION" },
	{ "cmd_total_len_mismatch", case_cmd_total_len_mismatch, "-> CHECK CONDITION" },
	{ "cmd_imm_good", case_cmd_imm_good, "valid immediate WRITE -> GOOD" },
	{ "cmd_imm_len_beyond_iu", case_cmd_imm_len_beyond_iu, "-> CHECK CONDITION" },
	{ "cmd_imm_len_wrap", case_cmd_imm_len_wrap, "len 0xffffffff -> CHECK CONDITION" },
	{ "cmd_imm_iu_shorter_than_offset", case_cmd_imm_iu_shorter_than_offset, "-> CHECK CONDITION" },
	{ "cmd_imm_offset_beyond_iu", case_cmd_imm_offset_beyond_iu,
	  "offset 0xfff0: no immediate data granted; immediate WRITE -> CHECK CONDITION 0e/03" },
	{ "cmd_imm_offset_in_header", case_cmd_imm_offset_in_header,
	  "offset 8: no immediate data granted; immediate WRITE -> CHECK CONDITION 0e/03" },
	{ "cmd_both_in_and_out", case_cmd_both_in_and_out, "-> CHECK CONDITION" },
	{ "cmd_fmt_in_5", case_cmd_fmt_in_5, "-> CHECK CONDITION" },
	{ "cmd_fmt_out_f", case_cmd_fmt_out_f, "-> CHECK CONDITION" },
	{ "cmd_add_cdb_beyond_iu", case_cmd_add_cdb_beyond_iu, "-> CHECK CONDITION" },
	{ "cmd_add_cdb_hides_desc", case_cmd_add_cdb_hides_desc, "-> CHECK CONDITION" },
	{ "iu_short_cmd_4", case_iu_short_cmd_4, "ignored" },
	{ "iu_short_tmf_4", case_iu_short_tmf_4, "ignored" },
	{ "iu_empty", case_iu_empty, "-> SRP_T_LOGOUT reason 2" },
	{ "iu_unknown_opcode_0x77", case_iu_unknown_opcode_0x77, "-> SRP_T_LOGOUT reason 2" },
	{ "iu_srp_rsp_from_initiator", case_iu_srp_rsp_from_initiator, "-> SRP_T_LOGOUT reason 2" },
	{ "iu_unsolicited_cred_rsp", case_iu_unsolicited_cred_rsp, "-> SRP_T_LOGOUT reason 3" },
	{ "cred_req_returns_credits", case_cred_req_returns_credits, "dropped requests' credits come back in SRP_CRED_REQ" },
	{ "tmf_abort_unknown_tag", case_tmf_abort_unknown_tag, "-> 0x00" },
	{ "tmf_abort_unknown_lun", case_tmf_abort_unknown_lun, "-> 0x05" },
	{ "tmf_lun_reset_unknown_lun", case_tmf_lun_reset_unknown_lun, "-> 0x05" },
	{ "tmf_abort_task_set_unknown_lun", case_tmf_abort_task_set_unknown_lun, "-> 0x05" },
	{ "tmf_func_0x80", case_tmf_func_0x80, "-> 0x04" },
	{ "tmf_abort_race", case_tmf_abort_race, "one response per TMF, <= 1 per command" },
	{ "tmf_busy_all_functions", case_tmf_busy_all_functions,
	  "ABORT TASK SET, CLEAR TASK SET, LUN RESET, CLEAR ACA over 32 cmds -> 0x04, 0x04, 0x00, 0x04" },
	{ "tmf_abort_task_busy", case_tmf_abort_task_busy,
	  "ABORT TASK of 8 of 32 cmds in flight -> 0x00 each, <= 1 response per cmd, credits exact" },
	{ "qp_destroy_mid_rdma_read", case_qp_destroy_mid_rdma_read,
	  "QP destroyed during a 1 MiB WRITE: target's QP gone within 30 s, fresh login works" },
	{ "disconnect_storm", case_disconnect_storm, "50 logins/drops, target survives" },
	{ "i_logout", case_i_logout, "SRP_I_LOGOUT -> DISCONNECTED" },
	{ "credit_last_resend", case_credit_last_resend,
	  "3000 cmds, each sent with the credit just returned: none lost" },
	{ "sq_full_tmf_badcmd", case_sq_full_tmf_badcmd,
	  "srp_sq_size 16, 1 MiB READs: TMFs, bad cmds still answered", sq_restore },
	{ "cmd_huge_data_len", case_cmd_huge_data_len, "512 MiB descriptor -> CHECK CONDITION; 1 MiB works" },
	{ "max_size_transfers", case_max_size_transfers,
	  "16 MiB WRITE+READ, direct / 128 in IU / 2048 fetched -> data intact; +512 -> 0e/03" },
	{ "cred_rsp_flood", case_cred_rsp_flood, "400 SRP_CRED_RSP: no credit back, SRP_T_LOGOUT reason 3" },
	{ "aer_rsp_flood", case_aer_rsp_flood, "400 SRP_AER_RSP: no credit back, SRP_T_LOGOUT reason 3" },
	{ "login_short_rdma_pdata", case_login_short_rdma_pdata, "0/1/7/15 bytes of private data -> REJ" },
	{ "qp_error_bad_rkey", case_qp_error_bad_rkey, "bad rkey: target disconnects, session gone" },
	{ "login_single_replaces_busy", case_login_single_replaces_busy, "single-channel login replaces a busy channel" },
	{ "initiator_ipxe", case_initiator_ipxe,
	  "iPXE: it_iu_len 80, direct only, one channel: accepted first time, verified I/O" },
	{ "initiator_esxi", case_initiator_esxi,
	  "ESXi: it_iu_len 580, 16-entry indirect tables in the IU: verified I/O" },
	{ "initiator_winof", case_initiator_winof,
	  "WinOF: REJ 0x00010004 then a direct-only retry, then a terminate-existing reconnect" },
	{ "qp_error_bad_rkey_read", case_qp_error_bad_rkey_read, "bad rkey on data-in: target disconnects, session gone" },
	{ "login_no_rdma_read", case_login_no_rdma_read, "responder_resources 0 -> REJ 0x00010001" },
	{ "cmd_write_with_in_desc", case_cmd_write_with_in_desc,
	  "WRITE(10) with a data-in descriptor -> CHECK CONDITION 0e/03, buffer untouched" },
	{ "cmd_read_with_out_desc", case_cmd_read_with_out_desc,
	  "READ(10) with a data-out descriptor -> CHECK CONDITION 0e/03" },
	/* only on request (-c), used by the fault scripts */
	{ "refused_login_keeps_victim", case_refused_login_keeps_victim,
	  "(-c only) refused single-channel login with the victim's port ID: victim stays" },
	{ "admitted_claimer_keeps_victim", case_admitted_claimer_keeps_victim,
	  "(-c only) a login under its own ACL with the victim's port ID: victim stays" },
	{ "io_error_lun", case_io_error_lun, "(-c only) failing backstore -> CHECK CONDITION" },
	{ "mr_pool_exhaust", case_mr_pool_exhaust,
	  "(-c only) iWARP: WRITE needing 2048 MRs, pool of 32 -> CHECK CONDITION, no hang" },
	{ "abort_inflight", case_abort_inflight, "(-c only) slow backstore: TMFs wait, no credit lost" },
	{ "ordered_after_abort", case_ordered_after_abort,
	  "(-c only) an ORDERED command after aborted SIMPLE ones is answered" },
	{ "io_flakey_lun", case_io_flakey_lun, "(-c only) flaky backstore -> GOOD or CHECK CONDITION" },
};
#define NCASES (int)(sizeof(cases) / sizeof(cases[0]))

/* Run fn in a child with a timeout. 0 = pass. */
static int run_child(const char *name, int (*fn)(void), int timeout_s, char *why, size_t whylen)
{
	int pfd[2];
	pid_t pid;
	int st = 0;
	uint64_t end;

	fflush(stdout);
	if (pipe(pfd))
		return snprintf(why, whylen, "pipe: %m"), 1;
	pid = fork();
	if (pid < 0)
		return snprintf(why, whylen, "fork: %m"), 1;
	if (pid == 0) {
		close(pfd[0]);
		cur_case = name;
		failmsg[0] = 0;
		int r = fn();

		if (r && !failmsg[0])
			snprintf(failmsg, sizeof(failmsg), "failed");
		if (r && write(pfd[1], failmsg, strlen(failmsg)) < 0)
			_exit(2);
		fflush(stdout);
		_exit(r ? 1 : 0);
	}
	close(pfd[1]);
	end = now_ms() + timeout_s * 1000ull;
	for (;;) {
		pid_t w = waitpid(pid, &st, WNOHANG);

		if (w == pid)
			break;
		if (now_ms() > end) {
			kill(pid, SIGKILL);
			/*
			 * A child stuck in the kernel does not die: say so
			 * rather than wait for it (the cases after it would
			 * not run, the runner's timeout would end the tool).
			 */
			for (end = now_ms() + 30000; !waitpid(pid, &st, WNOHANG) && now_ms() < end;)
				sleep_ms(50);
			close(pfd[0]);
			snprintf(why, whylen, "timed out after %d s (tool-side timeout)%s", timeout_s,
				 now_ms() < end ? "" : ", its process did not die (stuck in the kernel?)");
			return 1;
		}
		sleep_ms(50);
	}
	ssize_t n = read(pfd[0], why, whylen - 1);

	close(pfd[0]);
	why[n > 0 ? n : 0] = 0;
	if (WIFSIGNALED(st)) {
		snprintf(why, whylen, "tool crashed (signal %d)", WTERMSIG(st));
		return 1;
	}
	if (WEXITSTATUS(st) && !why[0])
		snprintf(why, whylen, "exit status %d", WEXITSTATUS(st));
	return WEXITSTATUS(st) != 0;
}

/*
 * -M: the mark h_dmesg_mark (guest-lib.sh) puts in the kernel log, with its
 * bookkeeping: the last mark's number in /tmp/hostile.mark, the taint flags
 * at mark N in /tmp/hostile.taint.N.
 */
#define MARK_FILE	"/tmp/hostile.mark"
#define TAINT_FILE	"/tmp/hostile.taint.%d"

static int opt_mark;
static const char *opt_current;
static regex_t stop_re;
static bool opt_stop;
static int kmsg_fd = -1;
static unsigned long taint0;

static unsigned long read_taint(void)
{
	unsigned long t = 0;
	FILE *f = fopen("/proc/sys/kernel/tainted", "r");

	if (f) {
		if (fscanf(f, "%lu", &t) != 1)
			t = 0;
		fclose(f);
	}
	return t;
}

/* -C: "case NAME" into the runner's file of the item running */
static int put_current(const char *name)
{
	FILE *f = fopen(opt_current, "w");

	if (!f || fprintf(f, "case %s\n", name) < 0 || fclose(f))
		return fprintf(stderr, "%s: %m\n", opt_current), -1;
	return 0;
}

static int put_mark(const char *name)
{
	char path[64], line[128];
	FILE *f;
	int id = 0, fd, len;

	f = fopen(MARK_FILE, "r");
	if (f) {
		if (fscanf(f, "%d", &id) != 1)
			id = 0;
		fclose(f);
	}
	id++;
	snprintf(path, sizeof(path), TAINT_FILE, id);
	f = fopen(path, "w");
	if (!f || fprintf(f, "%lu\n", read_taint()) < 0 || fclose(f))
		return fprintf(stderr, "%s: %m\n", path), -1;
	f = fopen(MARK_FILE, "w");
	if (!f || fprintf(f, "%d\n", id) < 0 || fclose(f))
		return fprintf(stderr, "%s: %m\n", MARK_FILE), -1;
	/* one write() a record (dprintf() would seek, which /dev/kmsg refuses) */
	len = snprintf(line, sizeof(line), "hostile-mark %d: case %.80s\n", id, name);
	fd = open("/dev/kmsg", O_WRONLY);
	if (fd < 0 || write(fd, line, len) != len)
		return fprintf(stderr, "/dev/kmsg: %m\n"), -1;
	close(fd);
	return 0;
}

/*
 * -x: what the kernel logged since the last call, read from /dev/kmsg
 * (opened at the start, at its end). Prints the first line that matches
 * REGEX or the new taint flags (less O and E, module loads) into why;
 * 0 when there is none.
 */
static int kernel_complained(char *why, size_t whylen)
{
	char rec[8192];
	unsigned long t;
	int hit = 0;

	for (;;) {
		ssize_t n = read(kmsg_fd, rec, sizeof(rec) - 1);
		char *msg, *nl;

		if (n < 0 && errno == EPIPE)
			continue;	/* records overwritten: go on with the next */
		if (n <= 0)
			break;
		rec[n] = 0;
		msg = strchr(rec, ';');
		msg = msg ? msg + 1 : rec;
		nl = strchr(msg, '\n');
		if (nl)
			*nl = 0;
		if (!hit && !regexec(&stop_re, msg, 0, NULL, 0)) {
			snprintf(why, whylen, "kernel log: %.400s", msg);
			hit = 1;
		}
	}
	t = read_taint() & ~taint0 & ~((1ul << 12) | (1ul << 13));
	if (!hit && t) {
		snprintf(why, whylen, "new taint flags %#lx", t);
		hit = 1;
	}
	return hit;
}

static int parse_hex(const char *s, uint8_t *out, int nbytes)
{
	int n = 0;

	if (!strncmp(s, "0x", 2))
		s += 2;
	while (*s && n < 2 * nbytes) {
		int v;

		if (*s == ':' || *s == '-') {
			s++;
			continue;
		}
		if (*s >= '0' && *s <= '9')
			v = *s - '0';
		else if ((*s | 0x20) >= 'a' && (*s | 0x20) <= 'f')
			v = (*s | 0x20) - 'a' + 10;
		else
			return -1;
		if (n % 2 == 0)
			out[n / 2] = v << 4;
		else
			out[n / 2] |= v;
		n++;
		s++;
	}
	return (n == 2 * nbytes && !*s) ? 0 : -1;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: hostile -a ADDR [-p PORT] -g TARGET_GUID -I INITIATOR_PORT_ID\n"
		"               [-c CASE[,CASE...]] [-t SECONDS] [-L LUN] [-n] [-v] [-l]\n"
		"               [-M] [-x REGEX] [-C FILE]\n"
		"  -g  node GUID of the target HCA (xxxx:xxxx:xxxx:xxxx or 16 hex digits)\n"
		"  -I  initiator port ID, 32 hex digits (needs an ACL 0x<32 hex>)\n"
		"  -c  cases to run, in this order (default, or the name all: every case\n"
		"      not marked -c only), -l lists them\n"
		"  -t  per-case timeout (default 60 s), -n: no survival probe\n"
		"  -M  mark each case in the kernel log (guest-lib.sh's h_dmesg_mark)\n"
		"  -x  stop after the first case that fails, or after which the kernel\n"
		"      logs a line matching REGEX (extended) or takes a new taint flag\n"
		"  -C  write \"case NAME\" into FILE before each case\n");
	exit(2);
}

/* The cases -c names, in its order ("all": the table's, less -c only). */
static int select_cases(const char *sel, int *run, int max)
{
	char *buf, *tok, *save;
	int i, n = 0;

	buf = strdup(sel ? sel : "all");
	if (!buf)
		return -1;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		bool hit = false;

		for (i = 0; i < NCASES; i++) {
			if (strcmp(tok, cases[i].name) &&
			    (strcmp(tok, "all") || strstr(cases[i].what, "(-c only)")))
				continue;
			if (n == max) {
				free(buf);
				return fprintf(stderr, "too many cases\n"), -1;
			}
			run[n++] = i;
			hit = true;
		}
		if (!hit) {
			fprintf(stderr, "no case '%s'\n", tok);
			free(buf);
			return -1;
		}
	}
	free(buf);
	return n;
}

int main(int argc, char **argv)
{
	char *sel = NULL;
	int o, i, k, n, pass = 0, failn = 0, have_g = 0, have_i = 0;
	int run[4 * NCASES];

	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	while ((o = getopt(argc, argv, "a:p:g:I:c:t:L:nvlhMx:C:")) != -1) {
		switch (o) {
		case 'a':
			opt_addr = optarg;
			break;
		case 'p':
			opt_port = optarg;
			break;
		case 'g':
			if (parse_hex(optarg, opt_tport, 8)) {
				fprintf(stderr, "bad GUID %s\n", optarg);
				return 2;
			}
			memcpy(opt_tport + 8, opt_tport, 8);
			have_g = 1;
			break;
		case 'I':
			if (parse_hex(optarg, opt_iport, 16)) {
				fprintf(stderr, "bad initiator port ID %s\n", optarg);
				return 2;
			}
			have_i = 1;
			break;
		case 'c':
			sel = optarg;
			break;
		case 't':
			opt_timeout = atoi(optarg);
			break;
		case 'L':
			opt_lun = atoi(optarg);
			break;
		case 'n':
			opt_no_probe = 1;
			break;
		case 'v':
			opt_verbose = 1;
			break;
		case 'l':
			for (i = 0; i < NCASES; i++)
				printf("%-34s %s\n", cases[i].name, cases[i].what);
			return 0;
		case 'M':
			opt_mark = 1;
			break;
		case 'C':
			opt_current = optarg;
			break;
		case 'x':
			if (regcomp(&stop_re, optarg, REG_EXTENDED | REG_NOSUB)) {
				fprintf(stderr, "bad regular expression %s\n", optarg);
				return 2;
			}
			opt_stop = true;
			break;
		default:
			usage();
		}
	}
	if (!have_g || !have_i)
		usage();
	n = select_cases(sel, run, 4 * NCASES);
	if (n <= 0) {
		if (!n)
			fprintf(stderr, "no case matches '%s'\n", sel);
		return 2;
	}
	if (opt_stop) {
		kmsg_fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
		if (kmsg_fd < 0 || lseek(kmsg_fd, 0, SEEK_END) < 0) {
			fprintf(stderr, "/dev/kmsg: %m\n");
			return 2;
		}
		taint0 = read_taint();
	}

	for (k = 0; k < n; k++) {
		const struct tcase *tc = &cases[run[k]];
		char why[1100] = "", pwhy[1100] = "", kwhy[600];
		uint64_t t0;
		int r;

		if ((opt_current && put_current(tc->name)) || (opt_mark && put_mark(tc->name)))
			return 2;
		t0 = now_ms();
		r = run_child(tc->name, tc->fn, opt_timeout, why, sizeof(why));
		if (tc->cleanup)
			tc->cleanup();
		if (!r && !opt_no_probe && tc->fn != case_sanity) {
			int lun = opt_lun;

			opt_lun = 0;	/* the probe always uses the working LUN 0 */
			if (run_child("probe", case_sanity, opt_timeout, pwhy, sizeof(pwhy)))
				r = 1;
			opt_lun = lun;
			if (r) {
				r = 1;
				snprintf(why, sizeof(why), "target did not survive: probe: %s", pwhy);
			}
		}
		if (r) {
			printf("FAIL %s: %s (%.1f s)\n", tc->name, why, (now_ms() - t0) / 1000.0);
			failn++;
		} else {
			printf("PASS %s (%.1f s)\n", tc->name, (now_ms() - t0) / 1000.0);
			pass++;
		}
		if (opt_stop && k + 1 < n && (r || kernel_complained(kwhy, sizeof(kwhy)))) {
			printf("stopped after %s: %s\n", tc->name, r ? "it failed" : kwhy);
			break;
		}
	}
	printf("%d passed, %d failed\n", pass, failn);
	return failn ? 1 : 0;
}
