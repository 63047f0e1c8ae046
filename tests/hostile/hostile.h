/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the source files of hostile share: the connection (struct conn),
 * the IU builders and response matching of common.c, the options main()
 * sets, and the cases the table in hostile.c runs, by file:
 *   login.c        logins and logouts
 *   credits.c      request limit and credits (SRP_CRED_REQ/RSP)
 *   descriptors.c  malformed SRP_CMDs and data descriptors, big transfers
 *   commands.c     junk IUs, SRP_T_LOGOUT, failing and flaky backstores
 *   tmf.c          task management (busy LUN, slow backstore)
 *   stress.c       QP teardown, login storms, full send queue, bad rkeys
 *   initiators.c   iPXE's, ESXi's and WinOF's logins and first I/O
 * The SRP wire format itself is srp_wire.h.
 */
#ifndef HOSTILE_H
#define HOSTILE_H

#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <glob.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "srp_wire.h"

#define RSLOT 8192		/* receive slot size: >= any max_ti_iu_len we accept */
#define SSLOT 8192		/* send slot size */
#define DATA_LEN (2u << 20)	/* registered data buffer: 2 MiB */
#define RX_KEEP 512		/* bytes of each received IU kept for inspection */

#define SAM_GOOD 0x00
#define SAM_CHECK_CONDITION 0x02
#define SENSE_ILLEGAL_REQUEST 0x05

/* ------------------------------------------------------------------------ */
/* options (common.c; set by main()) */

extern const char *opt_addr;
extern const char *opt_port;
extern uint8_t opt_tport[16];		/* id_ext || ioc_guid */
extern uint8_t opt_iport[16];
extern int opt_timeout;
extern int opt_lun;
extern int opt_verbose;
extern int opt_no_probe;

extern char failmsg[1024];	/* the first fail() of the running case */
extern const char *cur_case;

int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define dbg(...) do { if (opt_verbose) info(__VA_ARGS__); } while (0)

uint64_t now_ms(void);
void sleep_ms(int ms);

/* ------------------------------------------------------------------------ */
/* one RDMA/CM connection */

struct rx {
	uint32_t len;
	bool seen;		/* consumed by a waiter */
	uint8_t d[RX_KEEP];
};

struct conn {
	struct rdma_event_channel *ec;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_comp_channel *cc;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	uint8_t *rbuf, *sbuf, *dbuf;
	struct ibv_mr *rmr, *smr, *dmr;
	int nrecv, nsend;
	int snext, sout;	/* next send slot, sends in flight */
	bool established, disconnected, broken, rejected;
	char broken_why[128];
	int credits;		/* request limit we hold (see post_send_raw) */
	int credits_peak;	/* highest value credits reached after a response */
	bool hold_cred_rsp;	/* leave SRP_CRED_REQs unanswered (credit_overrun) */
	uint32_t max_it, max_ti;
	uint8_t rsp_flags;
	struct rx *rxq;
	int nrx, rxcap;
	int n_unexpected_cm;
};

struct login_opts {
	uint32_t it_iu_len;
	uint8_t flags;
	uint16_t imm_off;
	uint16_t buf_fmt;
	const uint8_t *tport;	/* NULL: the real one */
	int pdata_len;		/* 0: full 56 bytes, < 0: none */
	int nrecv, nsend;	/* 0: defaults */
	bool no_wait;		/* return right after rdma_connect() */
	bool no_rd;		/* grant the target no RDMA READ resources */
	const char *src;	/* source address; NULL: the route's */
};

struct rspinfo {
	uint8_t flags, status;
	uint8_t sense_key, asc, ascq;
	bool has_sense;
	int resp_code;		/* -1: no response data */
	uint32_t len;
	uint32_t do_res, di_res;	/* residual counts */
};

/* Target-side state: configfs of the target module. */
#define CFS_SRPT "/sys/kernel/config/target/srpt"

/* SRP_T_LOGOUT reason codes (SRP r16a). */
#define LOGOUT_BAD_IU_TYPE	0x02
#define LOGOUT_RSP_WITHOUT_REQ	0x03

/* A malformed SRP_CMD being built (descriptors.c, also stress.c). */
struct badcmd {
	uint8_t iu[SSLOT];
	size_t len;
};

/* ------------------------------------------------------------------------ */
/* common.c: connection, IU builders, response matching, target state */

void login_defaults(struct login_opts *o);
int pump(struct conn *c, int timeout_ms);
bool iu_takes_credit(const void *iu, uint32_t len);
int post_send_raw(struct conn *c, const void *iu, uint32_t len);
void conn_free(struct conn *c);
void conn_abort(struct conn *c);
void conn_close(struct conn *c);
int conn_open(struct conn *c, const struct login_opts *o, uint32_t *rej);
size_t build_cmd(uint8_t *iu, uint64_t tag, int lun, const uint8_t *cdb, int cdblen);
struct srp_direct_buf dbuf_desc(struct conn *c, size_t off, uint32_t len);
void cdb_rw10(uint8_t *cdb, uint8_t op, uint32_t lba, uint16_t blocks);
int send_inquiry(struct conn *c, uint64_t tag);
int send_read10(struct conn *c, uint64_t tag, uint32_t lba, uint16_t blocks, size_t off);
int send_write10(struct conn *c, uint64_t tag, uint32_t lba, uint16_t blocks);
int send_tmf(struct conn *c, uint64_t tag, int lun, uint8_t func, uint64_t task_tag);
void parse_rsp(const struct rx *r, struct rspinfo *ri);
void fmt_rsp(const struct rspinfo *ri, char *b, size_t n);
int count_rsp(struct conn *c, uint64_t tag);
int wait_rsp(struct conn *c, uint64_t tag, int timeout_ms, struct rspinfo *ri);
const char *conn_state(struct conn *c);
int check_inquiry(struct conn *c, uint64_t tag, const char *what);
int login_ok(struct conn *c, struct login_opts *o);
int find_tpg_dir(char *out, size_t n);
int read_attr(const char *path, char *buf, size_t n);
int write_attr(const char *path, const char *val);
int target_qp_alive(uint32_t our_qpn, char *line, size_t n);
int wait_target_qp_gone(uint32_t our_qpn, int timeout_ms, const char *what);
int case_sanity(void);
int case_probe_seed(void);
int case_fuzz_live(void);	/* fuzz.c */
int send_rw10(struct conn *c, uint64_t tag, bool write, uint32_t lba, uint16_t blocks,
	      size_t off);

/* helpers one file of cases lends another */
int expect_logout(struct conn *c, uint32_t reason, const char *after);	/* commands.c */
void bad_total_overflow(struct conn *c, struct badcmd *b, uint64_t tag);	/* descriptors.c */
int busy_fill(struct conn *c, uint64_t tag0, int n);	/* tmf.c */
int replaced_by_single(struct conn *old, const struct conn *nw, const char *who);	/* login.c */

/* ------------------------------------------------------------------------ */
/* the cases, by file */

/* login.c */
int case_login_iu_len_0(void);
int case_login_iu_len_63(void);
int case_login_iu_len_64(void);
int case_login_iu_len_1M(void);
int case_login_iu_len_4G(void);
int case_login_wrong_tport(void);
int case_login_short_pdata(void);
int case_login_no_buf_fmt(void);
int case_i_logout(void);
int case_login_short_rdma_pdata(void);
int case_login_single_replaces_busy(void);
int case_login_no_rdma_read(void);
int case_refused_login_keeps_victim(void);
int case_admitted_claimer_keeps_victim(void);

/* credits.c */
int case_credit_overrun(void);
int case_cred_req_returns_credits(void);
int case_credit_last_resend(void);
int case_cred_rsp_flood(void);
int case_aer_rsp_flood(void);

/* descriptors.c */
int case_cmd_in_desc_cnt_beyond_iu(void);
int case_cmd_out_desc_cnt_beyond_iu(void);
int case_cmd_table_len_not_16(void);
int case_cmd_total_len_overflow(void);
int case_cmd_total_len_mismatch(void);
int case_cmd_imm_len_beyond_iu(void);
int case_cmd_imm_len_wrap(void);
int case_cmd_imm_iu_shorter_than_offset(void);
int case_cmd_both_in_and_out(void);
int case_cmd_fmt_in_5(void);
int case_cmd_fmt_out_f(void);
int case_cmd_add_cdb_beyond_iu(void);
int case_cmd_add_cdb_hides_desc(void);
int case_cmd_imm_offset_beyond_iu(void);
int case_cmd_imm_offset_in_header(void);
int case_cmd_imm_good(void);
int case_cmd_huge_data_len(void);
int case_max_size_transfers(void);
int case_mr_pool_exhaust(void);
int case_cmd_write_with_in_desc(void);
int case_cmd_read_with_out_desc(void);

/* commands.c */
int case_iu_short_cmd_4(void);
int case_iu_short_tmf_4(void);
int case_iu_empty(void);
int case_iu_unknown_opcode_0x77(void);
int case_iu_srp_rsp_from_initiator(void);
int case_iu_unsolicited_cred_rsp(void);
int case_io_error_lun(void);
int case_io_flakey_lun(void);

/* tmf.c */
int case_tmf_abort_unknown_tag(void);
int case_tmf_lun_reset_unknown_lun(void);
int case_tmf_abort_task_set_unknown_lun(void);
int case_tmf_abort_unknown_lun(void);
int case_tmf_func_0x80(void);
int case_tmf_abort_race(void);
int case_tmf_busy_all_functions(void);
int case_tmf_abort_task_busy(void);
int case_abort_inflight(void);
int case_ordered_after_abort(void);

/* stress.c */
int case_qp_destroy_mid_rdma_read(void);
int case_disconnect_storm(void);
void sq_restore(void);
int case_sq_full_tmf_badcmd(void);
int case_qp_error_bad_rkey(void);
int case_qp_error_bad_rkey_read(void);

/* initiators.c */
int case_initiator_ipxe(void);
int case_initiator_esxi(void);
int case_initiator_winof(void);

#endif /* HOSTILE_H */
