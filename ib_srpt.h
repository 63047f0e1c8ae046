/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SCSI RDMA Protocol (SRP) target: data structures shared by the driver and
 * its KUnit suites.
 *
 * Lifetimes:
 *  - struct srpt_device is refcounted (kref); the ib_client holds one
 *    reference, every channel holds one, and a configfs callback holds one
 *    while it works on the port. It is freed when the last one goes.
 *  - struct srpt_tport, a configfs target port, lives from mkdir to rmdir
 *    on its own; it is attached to the HCA port its name names while that
 *    port is present, so a configfs directory outlives its HCA (rdma link
 *    delete) and serves a re-added one.
 *  - struct srpt_rdma_ch is refcounted (kref). The initial reference
 *    belongs to the channel itself and is dropped at the end of its
 *    release work, which runs once, after the login callback is done with
 *    the channel (&srpt_rdma_ch.end.login_done), after the QP drained and
 *    after the LIO session and all its commands are gone. Each queueing of
 *    the channel's control work (&srpt_rdma_ch.end.work) and each
 *    srpt_close_ch() hold a reference of their own. Freed with kfree_rcu().
 *  - Channel lists (&srpt_initiator.ch_list, &srpt_port.initiators) are
 *    read and changed under &srpt_port.mutex only.
 *
 * Lock order (outer first; lockdep checks it on the debug kernel tier):
 *   srpt_rdma_cm_mutex        the RDMA/CM listeners of every namespace
 *   [RDMA/CM handler_mutex]   held around our RDMA/CM event handler
 *   srpt_dev_mutex            srpt_dev_list, srpt_tports, the port names
 *   srpt_device.sdev_mutex    use_srq, the SRQ, device removal
 *   srpt_tport.mutex          a target port's TPG list and its HCA port
 *   [LIO acl_node_mutex]      taken by the target core under the above
 *   srpt_port.mutex           the port's initiators and their channels
 *   srpt_rdma_ch.spinlock     innermost; irqsave, any context
 *   srpt_portal_lock          portal listeners; under srpt_rdma_cm_mutex
 *                             or alone (RDMA/CM handler), nothing under it
 * srpt_tport.mutex and srpt_port.mutex are never held together. The IB
 * CM and RDMA/CM handlers take locks from srpt_dev_mutex inward; configfs
 * callbacks enter at srpt_rdma_cm_mutex (listeners) or srpt_tport.mutex
 * (TPGs, ACLs). All mutexes are taken in process context only. Waits for
 * channels to go (release work, drains) happen with no driver lock held,
 * and srpt_sdev_put() is never called under one: the last put may free
 * what the lock lives in. QP event and completion handlers take no driver
 * mutex, only the channel spinlock.
 */
#ifndef IB_SRPT_H
#define IB_SRPT_H

#include <linux/types.h>
#include <linux/list.h>
#include <linux/llist.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/kref.h>
#include <linux/workqueue.h>
#include <linux/completion.h>
#include <linux/scatterlist.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_cm.h>
#include <rdma/rdma_cm.h>
#include <rdma/rw.h>
#include <scsi/srp.h>
#include <target/target_core_base.h>

#include "ib_srpt_compat.h"

/* Device Management class, InfiniBand Architecture vol. 1, chapter 16.3. */
enum {
	DM_MAD_STATUS_UNSUP_METHOD	= 0x0008,
	DM_MAD_STATUS_UNSUP_METHOD_ATTR	= 0x000c,
	DM_MAD_STATUS_INVALID_FIELD	= 0x001c,
	DM_MAD_STATUS_NO_IOC		= 0x0100,

	DM_ATTR_CLASS_PORT_INFO		= 0x0001,
	DM_ATTR_IOU_INFO		= 0x0010,
	DM_ATTR_IOC_PROFILE		= 0x0011,
	DM_ATTR_SVC_ENTRIES		= 0x0012,

	/* SRP r16a, table B.7: I/O class and protocol of an SRP target. */
	SRP_IO_SUBCLASS			= 0x609e,
	SRP_PROTOCOL			= 0x0108,
	SRP_PROTOCOL_VERSION		= 0x0001,

	/* IOControllerProfile controller operations capability mask. */
	SRP_SEND_TO_IOC			= 0x01,
	SRP_SEND_FROM_IOC		= 0x02,
	SRP_RDMA_READ_FROM_IOC		= 0x04,
	SRP_RDMA_WRITE_FROM_IOC		= 0x08,

	SRPT_MAX_IOC_SLOTS		= 16,
	SRPT_MAX_SVC_ENTRIES		= 4,
};

/**
 * struct ib_dm_hdr - the 40 reserved bytes between MAD header and data.
 * @reserved: not used by the Device Management class.
 */
struct ib_dm_hdr {
	u8 reserved[40];
};

/**
 * struct ib_dm_mad - a Device Management MAD (256 bytes).
 * @mad_hdr: common MAD header.
 * @dm_hdr: reserved.
 * @data: attribute payload.
 */
struct ib_dm_mad {
	struct ib_mad_hdr mad_hdr;
	struct ib_dm_hdr dm_hdr;
	u8 data[IB_MGMT_DEVICE_DATA];
};

static_assert(sizeof(struct ib_dm_mad) == 256);
static_assert(offsetof(struct ib_dm_mad, data) == 64);

/**
 * struct ib_dm_iou_info - IOUnitInfo attribute.
 * @change_id: bumped when the controller list changes.
 * @max_controllers: number of slots (16).
 * @op_rom: option ROM and diagnostics flags.
 * @controller_list: 4 bits per slot, slot 1 in the high nibble of byte 0.
 */
struct ib_dm_iou_info {
	__be16 change_id;
	u8 max_controllers;
	u8 op_rom;
	u8 controller_list[128];
};

static_assert(sizeof(struct ib_dm_iou_info) == 132);

/**
 * struct ib_dm_ioc_profile - IOControllerProfile attribute (128 bytes).
 * @guid: I/O controller GUID.
 * @vendor_id: 24-bit IEEE OUI in the low bits.
 * @device_id: device ID.
 * @device_version: device version.
 * @reserved1: reserved.
 * @subsys_vendor_id: subsystem vendor ID.
 * @subsys_device_id: subsystem device ID.
 * @io_class: SRP_REV16A_IB_IO_CLASS.
 * @io_subclass: SRP_IO_SUBCLASS.
 * @protocol: SRP_PROTOCOL.
 * @protocol_version: SRP_PROTOCOL_VERSION.
 * @service_conn: reserved.
 * @initiators_supported: reserved.
 * @send_queue_depth: max outstanding requests per channel.
 * @reserved2: reserved.
 * @rdma_read_depth: max outstanding RDMA reads per channel.
 * @send_size: largest initiator-to-target IU.
 * @rdma_size: largest RDMA transfer.
 * @op_cap_mask: SRP_SEND_TO_IOC | ... .
 * @svc_cap_mask: service capability mask.
 * @num_svc_entries: number of service entries.
 * @reserved3: reserved.
 * @id_string: human readable name.
 */
struct ib_dm_ioc_profile {
	__be64 guid;
	__be32 vendor_id;
	__be32 device_id;
	__be16 device_version;
	__be16 reserved1;
	__be32 subsys_vendor_id;
	__be32 subsys_device_id;
	__be16 io_class;
	__be16 io_subclass;
	__be16 protocol;
	__be16 protocol_version;
	__be16 service_conn;
	__be16 initiators_supported;
	__be16 send_queue_depth;
	u8 reserved2;
	u8 rdma_read_depth;
	__be32 send_size;
	__be32 rdma_size;
	u8 op_cap_mask;
	u8 svc_cap_mask;
	u8 num_svc_entries;
	u8 reserved3[9];
	u8 id_string[64];
};

static_assert(sizeof(struct ib_dm_ioc_profile) == 128);

/**
 * struct ib_dm_svc_entry - one ServiceEntries record.
 * @name: "SRP.T10:" followed by 16 hex digits of the id_ext.
 * @id: IB CM service ID.
 */
struct ib_dm_svc_entry {
	u8 name[40];
	__be64 id;
};

static_assert(sizeof(struct ib_dm_svc_entry) == 48);

/**
 * struct ib_dm_svc_entries - ServiceEntries attribute.
 * @service_entries: up to four entries.
 */
struct ib_dm_svc_entries {
	struct ib_dm_svc_entry service_entries[SRPT_MAX_SVC_ENTRIES];
};

static_assert(sizeof(struct ib_dm_svc_entries) == 192);

enum {
	/* Smallest IU the initiator may send: an SRP_CMD with one descriptor. */
	SRPT_MIN_IT_IU_LEN	= 64,
	SRPT_MAX_REQ_SIZE_MIN	= 996,
	SRPT_MAX_REQ_SIZE_DEFAULT = 8276,
	/* A task management response: SRP_RSP header plus 4 bytes of data. */
	SRPT_MAX_RSP_SIZE_MIN	= 40,
	SRPT_MAX_RSP_SIZE_DEFAULT = 256,
	SRPT_MAX_RSP_SIZE_MAX	= 8192,
	SRPT_SRQ_SIZE_MIN	= 4,
	SRPT_SRQ_SIZE_MAX	= 65535,
	SRPT_SRQ_SIZE_DEFAULT	= 4095,
	SRPT_SQ_SIZE_MIN	= 4,
	SRPT_SQ_SIZE_DEFAULT	= 4096,
	SRPT_SQ_SIZE_MAX	= 65535,
	SRPT_RQ_SIZE		= 128,
	SRPT_MAX_RDMA_SIZE_MIN	= PAGE_SIZE,
	SRPT_MAX_RDMA_SIZE_DEFAULT = 1 << 24,
	SRPT_MAX_RDMA_SIZE_MAX	= 1 << 30,
	SRPT_DEF_SG_PER_WQE	= 16,
	/*
	 * Responses up to this size are copied into the send queue entry
	 * (IB_SEND_INLINE): a GOOD status or a fixed-format sense fits, and
	 * the HCA then needs no memory access for them.
	 */
	SRPT_RSP_INLINE		= 128,
	/*
	 * Inline responses without data are posted unsignaled: once posted
	 * nothing of them is in use, so the command ends at once and no send
	 * completion is processed for it. Their send queue entries are known
	 * free only when a later signaled work request completes; this many
	 * extra entries bound them (every one beyond is signaled).
	 */
	SRPT_UNSIG_RSP_MAX	= 16,
	/*
	 * RDMA work requests beyond the page count of the largest transfer
	 * that the send queue keeps room for: remote buffers split the data
	 * and each starts a work request of its own.
	 */
	SRPT_RDMA_WR_SLACK	= 16,
	/* Fixed-format sense data without additional bytes. */
	SRPT_FIXED_SENSE_LEN	= 18,
	SRPT_IMM_DATA_OFFSET_MIN = sizeof(struct srp_cmd) + sizeof(struct srp_imm_buf),
	/*
	 * Descriptor tables in initiator memory: entries per table (the
	 * Linux initiator's largest indirect_sg_entries) and fetches in
	 * flight per channel; a command beyond the latter gets BUSY.
	 */
	SRPT_MAX_EXT_DESCS	= 2048,
	SRPT_MAX_TBL_FETCHES	= 16,
};

/*
 * Each receive buffer is one kmalloc()ed IU (srpt_alloc_ioctx()), after
 * up to SECTOR_SIZE - 1 bytes that align immediate data
 * (srpt_ch_login_sizes()).
 */
#define SRPT_MAX_REQ_SIZE_MAX	(KMALLOC_MAX_SIZE - (SECTOR_SIZE - 1))

/* An HCA raises LAST_WQE_REACHED at once for a QP in error; 5 s is lost. */
#define SRPT_LAST_WQE_TIMEOUT	(5 * HZ)

/* SRP IU layouts from <scsi/srp.h> that the wire format fixes (SRP r16a). */
static_assert(sizeof(struct srp_login_req) == 64);
static_assert(sizeof(struct srp_login_rsp) == 52);
static_assert(sizeof(struct srp_login_rej) == 32);
static_assert(sizeof(struct srp_cmd) == 48);
static_assert(sizeof(struct srp_rsp) == 36);
static_assert(sizeof(struct srp_tsk_mgmt) == 48);
static_assert(sizeof(struct srp_t_logout) == 16);
static_assert(sizeof(struct srp_cred_req) == 16);
static_assert(sizeof(struct srp_cred_rsp) == 16);
static_assert(sizeof(struct srp_direct_buf) == 16);
static_assert(sizeof(struct srp_indirect_buf) == 20);

/* SRP_T_LOGOUT reason codes (SRP r16a). */
enum {
	SRPT_LOGOUT_NO_REASON		= 0x00,
	SRPT_LOGOUT_BAD_IU_TYPE		= 0x02,	/* IU type not accepted */
	SRPT_LOGOUT_RSP_WITHOUT_REQ	= 0x03,	/* response to no request */
	SRPT_LOGOUT_MULTICHANNEL	= 0x04,	/* replaced by a new login */
};

/* Length of "0x" + 32 hex digits + NUL, the GID-form port and ACL name. */
#define SRPT_NAME_LEN	36

/**
 * enum srpt_cmd_state - where a command or task management request is in
 * its life, in the order it goes through them (the function that enters
 * each state in brackets).
 * @SRPT_CMD_NEW: received (srpt_get_send_ioctx()), not yet with the target
 *		  core.
 * @SRPT_CMD_FETCH_TABLE: its descriptor table is being read from initiator
 *			  memory (srpt_fetch_table()).
 * @SRPT_CMD_WAIT_DATA: waiting for the RDMA READ of its data-out buffer
 *			(srpt_write_pending()).
 * @SRPT_CMD_EXECUTING: data-out buffer here, the backend executes it
 *			(srpt_rdma_read_done(), or srpt_write_pending() for
 *			immediate data); also a failed RDMA READ on its way
 *			to its CHECK CONDITION (srpt_abort_cmd()).
 * @SRPT_CMD_RSP_POSTED: its SRP_RSP is posted (srpt_queue_response()).
 * @SRPT_CMD_TMF: a task management request with the target core
 *		  (srpt_handle_tsk_mgmt()).
 * @SRPT_CMD_TMF_RSP_POSTED: its response is posted (srpt_queue_response()).
 * @SRPT_CMD_FINISHED: the send completed, or the command was aborted or
 *		       dropped; a later transition never leaves this state,
 *		       so a late completion cannot resurrect it.
 *
 * The order above is the usual one, not a rule srpt_set_cmd_state()
 * enforces: the only rule is that FINISHED is final. Two moves go back on
 * purpose: FETCH_TABLE to NEW once an external descriptor table has been
 * read (the command then starts as if the table had come in the IU), and
 * RSP_POSTED or TMF_RSP_POSTED to the state before when the response could
 * not be posted yet (-ENOMEM or -EAGAIN: the target core queues it again).
 * Entering WAIT_DATA is a plain store (nothing else moves the command
 * then); leaving it, which the RDMA READ completion and an abort race for,
 * goes through srpt_test_and_set_cmd_state(): only one of them wins.
 */
enum srpt_cmd_state {
	SRPT_CMD_NEW,
	SRPT_CMD_FETCH_TABLE,
	SRPT_CMD_WAIT_DATA,
	SRPT_CMD_EXECUTING,
	SRPT_CMD_RSP_POSTED,
	SRPT_CMD_TMF,
	SRPT_CMD_TMF_RSP_POSTED,
	SRPT_CMD_FINISHED,
};

/**
 * struct srpt_ioctx - a registered buffer for one IU.
 * @cqe: completion queue entry.
 * @buf: the IU.
 * @dma: DMA address of @buf.
 * @offset: where the IU starts in @buf (non-zero for immediate-data alignment).
 * @index: slot in its ring.
 */
struct srpt_ioctx {
	struct ib_cqe		cqe;
	void			*buf;
	dma_addr_t		dma;
	u32			offset;
	u32			index;
};

/**
 * struct srpt_recv_ioctx - a receive buffer.
 * @ioctx: the buffer.
 * @wait_list: on &srpt_rdma_ch.io.wait_list while the channel is not live.
 * @byte_len: bytes received.
 * @wr: its receive work request, built by the first srpt_post_recv().
 * @sge: the buffer, as @wr posts it.
 */
struct srpt_recv_ioctx {
	struct srpt_ioctx	ioctx;
	struct list_head	wait_list;
	u32			byte_len;
	struct ib_recv_wr	wr;
	struct ib_sge		sge;
};

/**
 * struct srpt_xfer_seg - one remote buffer of a command.
 * @rw: rdma_rw context.
 * @sg: scatterlist viewing this buffer's part of the command data.
 * @nents: entries in @sg.
 */
struct srpt_xfer_seg {
	struct rdma_rw_ctx	rw;
	struct scatterlist	*sg;
	unsigned int		nents;
};

/**
 * struct srpt_send_ioctx - a command and its response buffer.
 * @ioctx: response IU buffer.
 * @ch: owning channel.
 * @recv_ioctx: receive buffer held while its immediate data is in use.
 * @segs: one per remote descriptor.
 * @seg0: inline storage when there is one descriptor.
 * @n_segs: used entries of @segs.
 * @rdma_cqe: completion entry for the RDMA READs.
 * @xfer_node: on &srpt_rdma_ch.io.xfer_done once its RDMA READs completed.
 * @xfer_status: their completion status, for &srpt_rdma_ch.io.work.
 * @imm_sg: scatterlist over immediate data.
 * @free_node: on &srpt_rdma_ch.io.free_own or free_ret while unused.
 * @state: an &enum srpt_cmd_state; once the command is in flight
 *	   changed with cmpxchg (srpt_set_cmd_state()) where another context
 *	   can race, else with a plain store (srpt_cmd_finish(), immediate
 *	   data in srpt_write_pending()).
 * @cmd: LIO command.
 * @n_rdma: work requests the RDMA transfer consumes on the send queue.
 * @tag: initiator tag, echoed in the response.
 * @rbufs: remote buffer descriptors, inside the held receive IU.
 * @n_rbufs: number of entries in @rbufs.
 * @imm_data: the data-out buffer arrived inside the IU.
 * @imm_copy: that data is not 512-byte aligned in the receive buffer (an
 *            SRQ buffer serves channels with any immediate data offset):
 *            srpt_write_pending() copies @imm_sg into the buffer the
 *            target core allocated.
 * @unsig_snap: &srpt_rdma_ch.sq.unsig_posted before this signaled response
 *		was posted: the unsignaled ones before it are done when it is.
 * @rsp_credits: credits the posted response hands back; taken back if the
 *		 post fails.
 * @sq_wait: on &srpt_rdma_ch.sq.wait_list while the transfer waits for
 *	     send queue space, on &srpt_rdma_ch.sq.post_failed after a
 *	     failed post.
 * @ext_tbl: descriptor table fetched from initiator memory, or NULL.
 * @ext_sg: scatterlist over @ext_tbl for the fetch, which uses @seg0
 *	    before the data transfer does.
 * @sense_data: sense buffer handed to LIO.
 * @rsp_wr: send work request of the response, built with the context;
 *	    srpt_post_response() fills in length, flags and completion.
 * @rsp_sge: the response buffer, as @rsp_wr posts it.
 * @tmf_credit: a TMF whose receive buffer went back at once still owes its
 *		credit until its response is posted: srpt_release_cmd()
 *		returns it when LIO drops the TMF without a response.
 */
struct srpt_send_ioctx {
	struct srpt_ioctx	ioctx;
	struct srpt_rdma_ch	*ch;
	struct srpt_recv_ioctx	*recv_ioctx;
	struct srpt_xfer_seg	*segs;
	struct srpt_xfer_seg	seg0;
	unsigned int		n_segs;
	struct ib_cqe		rdma_cqe;
	struct llist_node	xfer_node;
	enum ib_wc_status	xfer_status;
	struct scatterlist	imm_sg;
	struct llist_node	free_node;
	enum srpt_cmd_state	state;
	struct se_cmd		cmd;
	u32			n_rdma;
	u64			tag;
	const struct srp_direct_buf *rbufs;
	u32			n_rbufs;
	bool			imm_data;
	bool			imm_copy;
	bool			tmf_credit;
	s32			rsp_credits;
	u32			unsig_snap;
	struct list_head	sq_wait;
	struct srp_direct_buf	*ext_tbl;
	struct scatterlist	ext_sg;
	u8			sense_data[TRANSPORT_SENSE_BUFFER];
	struct ib_send_wr	rsp_wr;
	struct ib_sge		rsp_sge;
};

/**
 * struct srpt_ch_stats - per-channel counters, shown in the ACL's info.
 *
 * The counters of the data path have one writer each and take no atomic
 * instruction: the receive side (srpt_recv_done(), or &srpt_rdma_ch.io.work
 * while it replays the wait list, never both at once), the send completion
 * side (the send CQ, polled by one context at a time) and
 * &srpt_rdma_ch.io.work. Readers use READ_ONCE() and may see a value a
 * few I/Os old.
 *
 * @cmds: SCSI commands received (receive side).
 * @credits_taken: requests received inside the credits (receive side);
 *		   the credits the initiator holds and those returned are
 *		   derived from it and &srpt_rdma_ch.cred.granted
 *		   (srpt_credits_held(), srpt_ch_credits_returned()).
 * @bytes_in_imm: data-out bytes received as immediate data (receive side).
 * @bytes_in_rdma: data-out bytes fetched by RDMA READ
 *		   (&srpt_rdma_ch.io.work).
 * @bytes_out: data-in bytes sent (send completion side).
 * @tmfs: task management requests received.
 * @bad_ius: IUs answered with an error or dropped: malformed, too short,
 *	     unknown opcode or beyond the credits granted.
 * @ext_tables: descriptor tables fetched from initiator memory.
 * @failed: SCSI commands answered with a status other than GOOD.
 * @dropped: commands and task management requests that got no response
 *	     because their channel stopped being live.
 * @aborts: commands the target core aborted (ABORT TASK, LUN RESET,
 *	    session shutdown); they get no response of their own.
 * @sq_hwm: most RDMA work requests in the send queue at once (the
 *	    &srpt_rdma_ch.lim.sq_rdma_wrs budget minus &srpt_rdma_ch.sq.wr_avail).
 * @rq_hwm: most requests outstanding at once: SRP_CMD and SRP_TSK_MGMT
 *	    received whose credit did not yet go back to the initiator
 *	    (&srpt_rdma_ch.lim.rq_size minus srpt_credits_held()).
 */
struct srpt_ch_stats {
	u64		cmds;
	u64		credits_taken;
	u64		bytes_in_imm;
	u64		bytes_in_rdma;
	u64		bytes_out;
	atomic64_t	tmfs;
	atomic64_t	bad_ius;
	atomic64_t	ext_tables;
	atomic64_t	failed;
	atomic64_t	dropped;
	atomic64_t	aborts;
	atomic_t	sq_hwm;
	atomic_t	rq_hwm;
};

/**
 * enum srpt_ch_state - channel state. Transitions only go forward
 * (srpt_set_ch_state()); every state is entered.
 * @SRPT_CH_LOGGING_IN: QP created, login being answered, waiting for RTU.
 * @SRPT_CH_LIVE: accepting commands.
 * @SRPT_CH_DRAINING: closing: disconnect sent, QP in error, waiting for the
 *		 zero-length write to flush (srpt_close_ch()).
 * @SRPT_CH_DRAINED: drained; the control work releases it.
 */
enum srpt_ch_state {
	SRPT_CH_LOGGING_IN,
	SRPT_CH_LIVE,
	SRPT_CH_DRAINING,
	SRPT_CH_DRAINED,
};

/**
 * enum srpt_end_job - what &srpt_rdma_ch.end.work does when it runs; bits
 * of &srpt_rdma_ch.end.jobs.
 * @SRPT_END_CRED: send an SRP_CRED_REQ for credits no response carried.
 * @SRPT_END_CLOSE: close the channel (QP events, completion errors, an
 *		    SRP_T_LOGOUT that completed).
 * @SRPT_END_CLOSE_AT: close at &srpt_rdma_ch.end.close_at, the end of an
 *		       SRP_T_LOGOUT's grace time.
 * @SRPT_END_RELEASE: the channel drained: release it.
 */
enum srpt_end_job {
	SRPT_END_CRED,
	SRPT_END_CLOSE,
	SRPT_END_CLOSE_AT,
	SRPT_END_RELEASE,
};

/*
 * Each state's name: the one list that both the ACL's info (in the form
 * rtslib expects: TARG_CONN_STATE_...) and the srpt_ch_state tracepoint's
 * __print_symbolic() print. Passes @x and the { state, name } pairs to @fn.
 */
#define srpt_ch_state_symbols(fn, x)					\
	fn(x, { SRPT_CH_LOGGING_IN, "CONNECTING" }, { SRPT_CH_LIVE, "LIVE" },	\
	   { SRPT_CH_DRAINING, "DRAINING" }, { SRPT_CH_DRAINED, "DISCONNECTED" })

/**
 * struct srpt_rdma_ch - one RDMA channel (login) from an initiator.
 *
 * Grouped by who may write a field when: identity and lifetime, the verbs
 * objects, limits fixed before the channel goes live, what @spinlock
 * protects, then one sub-struct per concern (send queue budget, credits,
 * command intake, teardown) and the counters.
 *
 * @kref: lifetime; see the top of this file.
 * @rcu: for kfree_rcu.
 * @initiator: the initiator port (struct srpt_initiator) of this channel.
 * @list: on &srpt_initiator.ch_list.
 * @sport: target port the login came in on.
 * @sess: LIO session.
 * @se_tpg: TPG of @sess; kept until the channel is freed, so that
 *	    srpt_tpg_stop() can find the channels of a TPG.
 * @sess_name: initiator port ID in 0x + 32 hex form.
 * @log_name: @sess_name and the QP number: what messages call the channel.
 * @ib_cm: IB CM state.
 * @ib_cm.cm_id: IB CM ID.
 * @rdma_cm: RDMA/CM state.
 * @rdma_cm.cm_id: RDMA/CM ID.
 * @qp: queue pair.
 * @cq: send completion queue, polled in soft-IRQ context so that a
 *	response's completion needs no work item; with the SRQ also the
 *	receive one, polled by a work item (SRQ receives must complete before
 *	the drain, which one queue guarantees).
 * @recv_cq: receive completion queue, polled by a work item (commands are
 *	     submitted from it): @cq itself with the SRQ.
 * @lim: set while the channel is created and logs in, read-only once it is
 *	 live.
 * @lim.using_rdma_cm: logged in through the RDMA/CM, else the IB CM.
 * @lim.use_srq: the receive side is the device's SRQ.
 * @lim.rq_size: receive queue size (= credits granted over the channel's
 *		 life).
 * @lim.max_ti_iu_len: largest target-to-initiator IU.
 * @lim.max_it_iu_len: largest initiator-to-target IU, from the login.
 * @lim.max_rsp_size: largest SRP_RSP the target sends.
 * @lim.max_inline: largest response sent inline, 0 if the QP has no inline
 *		    data.
 * @lim.max_data_len: largest data transfer of one command
 *		      (srp_max_rdma_size at login).
 * @lim.imm_data_offset: where immediate data starts in an SRP_CMD, 0 if
 *			 off.
 * @lim.recv_len: bytes posted per receive buffer.
 * @lim.recv_offset: offset of the IU in each receive buffer.
 * @lim.sq_rdma_wrs: RDMA work requests of the shared budget; a transfer
 *		     needing more can never be posted.
 * @lim.ctx_rdma_wr: each send context owns one more RDMA work request,
 *		     which a one-WR transfer uses instead of the shared
 *		     budget; set at channel creation where the send queue has
 *		     room for it.
 * @lim.rdma_ctxs: RDMA contexts of the QP, and the size of its MR pool
 *		   where transfers use MRs (iWARP reads, force_mr).
 * @spinlock: protects @state, @io.wait_list, @io.processing_wait_list,
 *	      @sq.wait_list, @sq.post_failed, @sq.closed's writes,
 *	      @end.logout_sent, @end.jobs, @end.close_at, @end.released and
 *	      @cred's flags and tag.
 * @state: &enum srpt_ch_state.
 * @sq: the send queue's budget. Each send context owns one response slot
 *	of the send queue, which needs no accounting (srpt_create_ch_ib()).
 * @sq.wr_avail: work requests of the shared RDMA budget not in use.
 * @sq.closed: set under @spinlock once the release has cancelled the
 *	       transfers: nothing may wait for send queue space any more.
 * @sq.wait_list: commands whose RDMA transfer waits for send queue space.
 * @sq.post_failed: commands whose post failed; their work requests may
 *		    still be in the send queue, so they are freed after the
 *		    drain.
 * @sq.unsig_cqe: completion entry of unsignaled responses: only errors and
 *		  flushes complete them.
 * @sq.unsig_avail: send queue entries left for unsignaled responses.
 * @sq.unsig_posted: unsignaled responses posted (a running count).
 * @sq.unsig_retired: the value of @sq.unsig_posted whose entries are known
 *		      free.
 * @cred: the initiator's request limit.
 * @cred.granted: credits granted since the login (rq_size at first, then
 *		  what responses and SRP_CRED_REQs return); any context
 *		  adds, only the receive side takes (srpt_credit_take()).
 * @cred.req_lim_delta: credits returned with the next response.
 * @cred.ioctx: buffer of the SRP_CRED_REQ the target sends.
 * @cred.busy: @cred.ioctx is posted.
 * @cred.rsp_due: an SRP_CRED_REQ awaits its SRP_CRED_RSP (tag @cred.tag).
 * @cred.tag: tag of the last SRP_CRED_REQ.
 * @io: command intake and the send contexts.
 * @io.send_ring: send contexts.
 * @io.recv_ring: per-channel receive ring when no SRQ is used.
 * @io.free_own: unused send contexts only the receive side touches
 *		 (srpt_pool_get()).
 * @io.free_ret: unused send contexts given back from any context.
 * @io.wait_list: IUs received before the channel was live, or while no
 *		  send context was free; replayed in order by @io.work.
 * @io.processing_wait_list: @io.wait_list is being replayed.
 * @io.xfer_done: commands whose RDMA READs completed (data or descriptor
 *		  table), pushed by the soft-IRQ send completion.
 * @io.work: hands @io.xfer_done to the target core (which may sleep), in
 *	     completion order, starts transfers waiting for room and replays
 *	     @io.wait_list (srpt_io_work()).
 * @io.tbl_fetches: descriptor table fetches in flight.
 * @end: logout and teardown.
 * @end.logout_ioctx: buffer of the SRP_T_LOGOUT the target sends.
 * @end.logout_sent: SRP_T_LOGOUT posted; the channel closes when it
 *		     completes or after a grace time (%SRPT_END_CLOSE_AT).
 * @end.work: the channel's control work, off the completion and event
 *	      handlers: the jobs of &enum srpt_end_job, in the order release,
 *	      close, credits (srpt_end_work()).
 * @end.jobs: pending &enum srpt_end_job bits.
 * @end.close_at: when %SRPT_END_CLOSE_AT is due (jiffies).
 * @end.released: the release started: nothing is queued any more.
 * @end.zw_cqe: completion entry of the zero-length drain write.
 * @end.last_wqe: an SRQ-attached QP in error took its last receive from
 *		  the SRQ (IB_EVENT_QP_LAST_WQE_REACHED).
 * @end.login_done: the login callback is done with the channel; release
 *		    waits for it, so a channel closed during its login is
 *		    freed once.
 * @stats: counters.
 */
struct srpt_rdma_ch {
	struct kref		kref;
	struct rcu_head		rcu;
	struct srpt_initiator	*initiator;
	struct list_head	list;
	struct srpt_port	*sport;
	struct se_session	*sess;
	struct se_portal_group	*se_tpg;
	u8			sess_name[SRPT_NAME_LEN + 1];
	char			log_name[SRPT_NAME_LEN + 16];
	union {
		struct {
			struct ib_cm_id		*cm_id;
		} ib_cm;
		struct {
			struct rdma_cm_id	*cm_id;
		} rdma_cm;
	};

	struct ib_qp		*qp;
	struct ib_cq		*cq;
	struct ib_cq		*recv_cq;

	struct {
		bool		using_rdma_cm;
		bool		use_srq;
		bool		ctx_rdma_wr;
		u16		imm_data_offset;
		int		rq_size;
		int		max_ti_iu_len;
		int		max_it_iu_len;
		u32		max_rsp_size;
		u32		max_inline;
		u32		max_data_len;
		u32		recv_len;
		u32		recv_offset;
		u32		sq_rdma_wrs;
		u32		rdma_ctxs;
	} lim;

	spinlock_t		spinlock;	/* see kernel-doc above */
	enum srpt_ch_state	state;

	struct {
		atomic_t		wr_avail;
		bool			closed;
		struct list_head	wait_list;
		struct list_head	post_failed;
		struct ib_cqe		unsig_cqe;
		atomic_t		unsig_avail;
		atomic_t		unsig_posted;
		atomic_t		unsig_retired;
	} sq;

	struct {
		atomic_t		granted;
		atomic_t		req_lim_delta;
		struct srpt_ioctx	*ioctx;
		bool			busy;
		bool			rsp_due;
		u64			tag;
	} cred;

	struct {
		struct srpt_send_ioctx	**send_ring;
		struct srpt_recv_ioctx	**recv_ring;
		struct llist_node	*free_own;
		struct llist_head	free_ret;
		struct list_head	wait_list;
		bool			processing_wait_list;
		struct llist_head	xfer_done;
		struct work_struct	work;
		atomic_t		tbl_fetches;
	} io;

	struct {
		struct srpt_ioctx	*logout_ioctx;
		bool			logout_sent;
		struct delayed_work	work;
		unsigned long		jobs;
		unsigned long		close_at;
		bool			released;
		struct ib_cqe		zw_cqe;
		struct completion	last_wqe;
		struct completion	login_done;
	} end;

	struct srpt_ch_stats	stats;
};

/**
 * struct srpt_initiator - one initiator port logged in to one target port
 * under one ACL, with all its channels there.
 * @rcu: for kfree_rcu.
 * @entry: on &srpt_port.initiators.
 * @ch_list: channels; under &srpt_port.mutex.
 * @i_port_id: initiator port identifier.
 * @t_port_id: target port identifier.
 * @acl: name of the ACL that admitted it. Part of the identity: a host
 *       admitted under its own ACL (an address, a GUID) that claims another
 *       initiator's port ID must not log that initiator out.
 */
struct srpt_initiator {
	struct rcu_head		rcu;
	struct list_head	entry;
	struct list_head	ch_list;
	u8			i_port_id[16];
	u8			t_port_id[16];
	char			acl[TRANSPORT_IQN_LEN];
};

/**
 * struct srpt_port_limits - per-port configfs attributes.
 * @srp_max_rdma_size: largest RDMA transfer advertised.
 * @srp_max_rsp_size: largest SRP_RSP IU.
 * @srp_sq_size: send queue size of new channels.
 * @use_srq: receive through the device's shared receive queue.
 */
struct srpt_port_limits {
	u32	srp_max_rdma_size;
	u32	srp_max_rsp_size;
	u32	srp_sq_size;
	bool	use_srq;
};

/**
 * struct srpt_tpg - a TPG of a target port (any directory name).
 * @entry: on &srpt_tport.tpg_list.
 * @tport: owner.
 * @tag: portal group tag: N for "tpgt_N", else 1.
 * @tpg: LIO portal group.
 * @live: enabled; new sessions may join it. Protected by the owner's
 *	  &srpt_tport.mutex.
 */
struct srpt_tpg {
	struct list_head	entry;
	struct srpt_tport	*tport;
	u16			tag;
	struct se_portal_group	tpg;
	bool			live;
};

/**
 * struct srpt_tport - a configfs target port: one name of an HCA port, in
 * the GUID or the GID form, with its TPGs.
 * @entry: on srpt_tports, under srpt_dev_mutex.
 * @sport: the HCA port serving the name, NULL while none present has it.
 *         Changed under srpt_dev_mutex, its device's sdev_mutex and @mutex.
 * @guid_form: @name is a port GUID; its ACLs name port GUIDs and addresses.
 * @limits: the port's attributes, kept here while @sport is NULL.
 * @mutex: protects @sport, @limits and @tpg_list.
 * @tpg_list: TPGs of this target port.
 * @wwn: LIO WWN.
 * @name: the name as the user wrote it.
 */
struct srpt_tport {
	struct list_head	entry;
	struct srpt_port	*sport;
	bool			guid_form;
	struct srpt_port_limits	limits;
	struct mutex		mutex;		/* see kernel-doc above */
	struct list_head	tpg_list;
	struct se_wwn		wwn;
	char			name[64];
};

/**
 * struct srpt_port - one RDMA port of an HCA.
 * @sdev: owning device.
 * @mad_agent: DM MAD agent; NULL on iWARP, on RoCE without ib_cm_on_roce,
 *             or if registration failed.
 * @enabled: a TPG of this port is enabled; logins accepted.
 * @port: port number, 1-based.
 * @sm_lid: LID of the subnet manager.
 * @lid: port LID.
 * @gid: GID index 0.
 * @work: refreshes the port after an event.
 * @guid_tport: the configfs target port of the GUID-form name, or NULL.
 *              Changed under srpt_dev_mutex and &srpt_device.sdev_mutex;
 *              logins read it under the latter.
 * @gid_tport: the same for the GID-form name.
 * @limits: configfs attributes.
 * @refcount: channels on this port; released waits for zero.
 * @freed_channels: signalled when @refcount drops.
 * @mutex: protects @initiators and channel list changes.
 * @initiators: initiator ports with channels on this port.
 * @port_guid: GUID-form name text.
 * @port_gid: GID-form name text.
 * @gid_valid: @gid was read successfully.
 * @dm_warned: a Device Management setup failure was already reported.
 */
struct srpt_port {
	struct srpt_device	*sdev;
	struct ib_mad_agent	*mad_agent;
	bool			enabled;
	bool			gid_valid;
	bool			dm_warned;
	u32			port;
	u32			sm_lid;
	u32			lid;
	union ib_gid		gid;
	struct work_struct	work;
	struct srpt_tport	*guid_tport;
	struct srpt_tport	*gid_tport;
	struct srpt_port_limits	limits;
	atomic_t		refcount;
	wait_queue_head_t	freed_channels;
	struct mutex		mutex;		/* protects @initiators */
	struct list_head	initiators;
	char			port_guid[24];
	char			port_gid[64];
};

/**
 * struct srpt_device - per-HCA state.
 * @device: RDMA device.
 * @refcnt: lifetime; see the top of this file.
 * @list: on srpt_dev_list, from srpt_add_one() until freed (a removed
 *        device stays there while channels or callbacks hold it).
 * @removed: srpt_remove_one() ran; new logins are refused.
 * @pd: protection domain.
 * @lkey: local DMA lkey.
 * @cm_id: IB CM listener, NULL on iWARP/RoCE.
 * @event_handler: async event handler (registered last).
 * @sdev_mutex: protects @use_srq and SRQ changes.
 * @use_srq: channels of this device receive through @srq.
 * @srq_switching: use_srq is changing and channels drain; logins are
 *		   refused.
 * @srq: shared receive queue, NULL when @use_srq is off.
 * @srq_size: entries in @srq.
 * @srq_posted: buffers of @ioctx_ring posted to @srq; all of them once no
 *	channel uses it.
 * @ioctx_ring: SRQ receive buffers.
 * @port_cnt: number of entries in @port.
 * @port: per-port state.
 */
struct srpt_device {
	struct ib_device	*device;
	struct kref		refcnt;
	struct list_head	list;
	bool			removed;

	struct ib_pd		*pd;
	u32			lkey;
	struct ib_cm_id		*cm_id;
	struct ib_event_handler	event_handler;

	struct mutex		sdev_mutex;	/* use_srq, SRQ, removal */
	bool			use_srq;
	bool			srq_switching;
	struct ib_srq		*srq;
	int			srq_size;
	atomic_t		srq_posted;
	struct srpt_recv_ioctx	**ioctx_ring;

	u32			port_cnt;
	struct srpt_port	port[];
};

/**
 * struct srpt_portal - an RDMA/CM listener on one address in one namespace.
 * @np: the target core's np item (tpgt_N/np/<address>:<port>); unused for
 *      a @wildcard one.
 * @addr: address and port: from the directory name, or the family's
 *        wildcard address and the namespace's rdma_cm_port.
 * @node: on srpt_portals while it exists: a portal from mkdir to rmdir, a
 *        @wildcard one until its namespace's rdma_cm_port changes.
 * @cm_id: the listener; NULL once closed (its device removed, or its
 *         namespace left without an RDMA interface).
 * @net: the namespace it listens in (of the process that made the
 *       directory or wrote rdma_cm_port), referenced until it is closed.
 * @inum: that namespace's inode number, kept for listings and messages.
 * @closed_why: why @cm_id is NULL, for the np's listener attribute.
 * @listening: rdma_listen() succeeded. Before, a device removal only sets
 *             @closed_why and srpt_portal_open() destroys @cm_id and fails.
 * @wildcard: one of the pair ([::] IPv6-only, 0.0.0.0) that rdma_cm_port
 *            (the module parameter, or discovery_auth/rdma_cm_port in the
 *            writer's namespace) opens; freed, not left closed.
 *
 * @node and @net change under srpt_rdma_cm_mutex; @cm_id, @closed_why and
 * @listening also under srpt_portal_lock, which the RDMA/CM handler takes.
 */
struct srpt_portal {
	struct se_tpg_np	np;
	struct sockaddr_storage	addr;
	struct list_head	node;
	struct rdma_cm_id	*cm_id;
	struct net		*net;
	unsigned int		inum;
	const char		*closed_why;
	bool			listening;
	bool			wildcard;
};

#endif /* IB_SRPT_H */
