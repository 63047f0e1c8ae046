/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Tracepoints of the SCSI RDMA Protocol target (TRACE_SYSTEM ib_srpt):
 * logins, channel states, logouts, commands, task management and credits.
 * Enable them under /sys/kernel/tracing/events/ib_srpt/. Disabled, each is
 * a static branch: the arguments are pointers and values the caller holds
 * anyway, and every field is read in TP_fast_assign(), i.e. only when the
 * event is on. A channel is named by its QP number, as in the kernel log
 * and as "LIO Session ID" in the ACL's info.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM ib_srpt

#if !defined(IB_SRPT_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define IB_SRPT_TRACE_H

#include <linux/tracepoint.h>
#include <scsi/srp.h>
#include <scsi/scsi_common.h>
#include "ib_srpt.h"

#ifndef IB_SRPT_TRACE_HELPERS
#define IB_SRPT_TRACE_HELPERS
/**
 * srpt_trace_qpn() - QP number that names a channel in trace events.
 * @ch: channel.
 *
 * Return: the QP number, 0 before the QP exists or after it is gone.
 */
static inline u32 srpt_trace_qpn(const struct srpt_rdma_ch *ch)
{
	const struct ib_qp *qp = READ_ONCE(ch->qp);

	return qp ? qp->qp_num : 0;
}

/**
 * srpt_trace_i_port_id() - initiator port ID of a channel for trace events.
 * @ch: channel.
 *
 * Return: 16 bytes; zeroes while the channel is on no I_T ini.
 */
static inline const u8 *srpt_trace_i_port_id(const struct srpt_rdma_ch *ch)
{
	static const u8 none[16];

	return ch->initiator ? ch->initiator->i_port_id : none;
}
#endif

TRACE_DEFINE_ENUM(SRPT_CH_LOGGING_IN);
TRACE_DEFINE_ENUM(SRPT_CH_LIVE);
TRACE_DEFINE_ENUM(SRPT_CH_DRAINING);
TRACE_DEFINE_ENUM(SRPT_CH_DRAINED);
TRACE_DEFINE_ENUM(DMA_BIDIRECTIONAL);
TRACE_DEFINE_ENUM(DMA_TO_DEVICE);
TRACE_DEFINE_ENUM(DMA_FROM_DEVICE);
TRACE_DEFINE_ENUM(DMA_NONE);

/* The same names as the ACL's info: one list, in ib_srpt.h. */
#define srpt_show_ch_state(s)	srpt_ch_state_symbols(__print_symbolic, s)

/* Direction as seen from the target: "out" is initiator to target. */
#define srpt_show_dir(d)					\
	__print_symbolic(d, { DMA_TO_DEVICE, "out" },		\
			 { DMA_FROM_DEVICE, "in" },		\
			 { DMA_NONE, "none" },			\
			 { DMA_BIDIRECTIONAL, "bidi" })

TRACE_EVENT(srpt_login_accept,
	    TP_PROTO(const struct srpt_rdma_ch *ch),
	    TP_ARGS(ch),
	    TP_STRUCT__entry(__field(u32, qpn)
			     __array(u8, i_port_id, 16)
			     __field(u32, credits)
			     __field(u32, max_it_iu_len)
			     __field(u32, max_ti_iu_len)
			     __field(u16, imm_data_offset)
			     __field(bool, use_srq)
			     __field(bool, rdma_cm)),
	    TP_fast_assign(__entry->qpn = srpt_trace_qpn(ch);
			   memcpy(__entry->i_port_id, srpt_trace_i_port_id(ch), 16);
			   __entry->credits = ch->lim.rq_size;
			   __entry->max_it_iu_len = ch->lim.max_it_iu_len;
			   __entry->max_ti_iu_len = ch->lim.max_ti_iu_len;
			   __entry->imm_data_offset = ch->lim.imm_data_offset;
			   __entry->use_srq = ch->lim.use_srq;
			   __entry->rdma_cm = ch->lim.using_rdma_cm;),
	    TP_printk("qpn %u initiator 0x%16phN credits %u max_it_iu_len %u max_ti_iu_len %u imm %u %s %s",
		      __entry->qpn, __entry->i_port_id, __entry->credits,
		      __entry->max_it_iu_len, __entry->max_ti_iu_len,
		      __entry->imm_data_offset, __entry->use_srq ? "srq" : "rq",
		      __entry->rdma_cm ? "RDMA_CM" : "IB_CM")
);

TRACE_EVENT(srpt_login_reject,
	    TP_PROTO(u64 tag, u32 reason, bool rdma_cm),
	    TP_ARGS(tag, reason, rdma_cm),
	    TP_STRUCT__entry(__field(u64, tag)
			     __field(u32, reason)
			     __field(bool, rdma_cm)),
	    TP_fast_assign(__entry->tag = tag;
			   __entry->reason = reason;
			   __entry->rdma_cm = rdma_cm;),
	    TP_printk("tag %#llx reason %#x %s", __entry->tag, __entry->reason,
		      __entry->rdma_cm ? "RDMA_CM" : "IB_CM")
);

TRACE_EVENT(srpt_ch_state,
	    TP_PROTO(const struct srpt_rdma_ch *ch, enum srpt_ch_state old,
		     enum srpt_ch_state new),
	    TP_ARGS(ch, old, new),
	    TP_STRUCT__entry(__field(u32, qpn)
			     __field(u32, old_state)
			     __field(u32, new_state)),
	    TP_fast_assign(__entry->qpn = srpt_trace_qpn(ch);
			   __entry->old_state = old;
			   __entry->new_state = new;),
	    TP_printk("qpn %u %s -> %s", __entry->qpn,
		      srpt_show_ch_state(__entry->old_state),
		      srpt_show_ch_state(__entry->new_state))
);

TRACE_EVENT(srpt_initiator_logout,
	    TP_PROTO(const struct srpt_rdma_ch *ch),
	    TP_ARGS(ch),
	    TP_STRUCT__entry(__field(u32, qpn)),
	    TP_fast_assign(__entry->qpn = srpt_trace_qpn(ch);),
	    TP_printk("qpn %u SRP_I_LOGOUT", __entry->qpn)
);

TRACE_EVENT(srpt_target_logout,
	    TP_PROTO(const struct srpt_rdma_ch *ch, u32 reason),
	    TP_ARGS(ch, reason),
	    TP_STRUCT__entry(__field(u32, qpn)
			     __field(u32, reason)),
	    TP_fast_assign(__entry->qpn = srpt_trace_qpn(ch);
			   __entry->reason = reason;),
	    TP_printk("qpn %u SRP_T_LOGOUT reason %#x", __entry->qpn,
		      __entry->reason)
);

TRACE_EVENT(srpt_ch_close,
	    TP_PROTO(const struct srpt_rdma_ch *ch, unsigned long caller),
	    TP_ARGS(ch, caller),
	    TP_STRUCT__entry(__field(u32, qpn)
			     __field(unsigned long, caller)),
	    TP_fast_assign(__entry->qpn = srpt_trace_qpn(ch);
			   __entry->caller = caller;),
	    TP_printk("qpn %u closed by %pS", __entry->qpn,
		      (void *)__entry->caller)
);

TRACE_EVENT(srpt_cmd_start,
	    TP_PROTO(const struct srpt_rdma_ch *ch, struct srp_cmd *srp_cmd,
		     u64 data_len, enum dma_data_direction dir),
	    TP_ARGS(ch, srp_cmd, data_len, dir),
	    TP_STRUCT__entry(__field(u32, qpn)
			     __field(u64, tag)
			     __field(u64, lun)
			     __field(u8, opcode)
			     __field(u64, data_len)
			     __field(u32, dir)
			     __field(u8, task_attr)),
	    TP_fast_assign(__entry->qpn = srpt_trace_qpn(ch);
			   __entry->tag = srp_cmd->tag;
			   __entry->lun = scsilun_to_int(&srp_cmd->lun);
			   __entry->opcode = srp_cmd->cdb[0];
			   __entry->data_len = data_len;
			   __entry->dir = dir;
			   __entry->task_attr = srp_cmd->task_attr;),
	    TP_printk("qpn %u tag %#llx lun %llu opcode 0x%02x len %llu dir %s task_attr %u",
		      __entry->qpn, __entry->tag, __entry->lun, __entry->opcode,
		      __entry->data_len, srpt_show_dir(__entry->dir),
		      __entry->task_attr)
);

TRACE_EVENT(srpt_cmd_done,
	    TP_PROTO(const struct srpt_send_ioctx *ioctx),
	    TP_ARGS(ioctx),
	    TP_STRUCT__entry(__field(u32, qpn)
			     __field(u64, tag)
			     __field(u64, lun)
			     __field(u8, opcode)
			     __field(u32, data_len)
			     __field(u32, dir)
			     __field(u8, status)),
	    TP_fast_assign(__entry->qpn = srpt_trace_qpn(ioctx->ch);
			   __entry->tag = ioctx->tag;
			   __entry->lun = ioctx->cmd.orig_fe_lun;
			   __entry->opcode = ioctx->cmd.t_task_cdb ?
					     ioctx->cmd.t_task_cdb[0] : 0;
			   __entry->data_len = ioctx->cmd.data_length;
			   __entry->dir = ioctx->cmd.data_direction;
			   __entry->status = ioctx->cmd.scsi_status;),
	    TP_printk("qpn %u tag %#llx lun %llu opcode 0x%02x len %u dir %s status 0x%02x",
		      __entry->qpn, __entry->tag, __entry->lun, __entry->opcode,
		      __entry->data_len, srpt_show_dir(__entry->dir),
		      __entry->status)
);

TRACE_EVENT(srpt_tmf,
	    TP_PROTO(const struct srpt_rdma_ch *ch,
		     struct srp_tsk_mgmt *tsk),
	    TP_ARGS(ch, tsk),
	    TP_STRUCT__entry(__field(u32, qpn)
			     __field(u64, tag)
			     __field(u64, task_tag)
			     __field(u64, lun)
			     __field(u8, function)),
	    TP_fast_assign(__entry->qpn = srpt_trace_qpn(ch);
			   __entry->tag = tsk->tag;
			   __entry->task_tag = tsk->task_tag;
			   __entry->lun = scsilun_to_int(&tsk->lun);
			   __entry->function = tsk->tsk_mgmt_func;),
	    TP_printk("qpn %u tag %#llx function 0x%02x task %#llx lun %llu",
		      __entry->qpn, __entry->tag, __entry->function,
		      __entry->task_tag, __entry->lun)
);

TRACE_EVENT(srpt_tmf_rsp,
	    TP_PROTO(const struct srpt_send_ioctx *ioctx, u8 rsp_code),
	    TP_ARGS(ioctx, rsp_code),
	    TP_STRUCT__entry(__field(u32, qpn)
			     __field(u64, tag)
			     __field(u64, task_tag)
			     __field(u64, lun)
			     __field(u8, function)
			     __field(u8, response)
			     __field(u8, rsp_code)),
	    TP_fast_assign(__entry->qpn = srpt_trace_qpn(ioctx->ch);
			   __entry->tag = ioctx->tag;
			   __entry->task_tag = ioctx->cmd.se_tmr_req ?
					       ioctx->cmd.se_tmr_req->ref_task_tag : 0;
			   __entry->lun = ioctx->cmd.orig_fe_lun;
			   __entry->function = ioctx->cmd.se_tmr_req ?
					       ioctx->cmd.se_tmr_req->function : 0;
			   __entry->response = ioctx->cmd.se_tmr_req ?
					       ioctx->cmd.se_tmr_req->response : 0;
			   __entry->rsp_code = rsp_code;),
	    TP_printk("qpn %u tag %#llx tmr %u task %#llx lun %llu tmr_response %u rsp_code 0x%02x",
		      __entry->qpn, __entry->tag, __entry->function,
		      __entry->task_tag, __entry->lun, __entry->response,
		      __entry->rsp_code)
);

TRACE_EVENT(srpt_credit,
	    TP_PROTO(const struct srpt_rdma_ch *ch, s32 delta, s32 req_lim),
	    TP_ARGS(ch, delta, req_lim),
	    TP_STRUCT__entry(__field(u32, qpn)
			     __field(s32, delta)
			     __field(s32, req_lim)),
	    TP_fast_assign(__entry->qpn = srpt_trace_qpn(ch);
			   __entry->delta = delta;
			   __entry->req_lim = req_lim;),
	    TP_printk("qpn %u req_lim_delta %d req_lim %d", __entry->qpn,
		      __entry->delta, __entry->req_lim)
);

#endif /* IB_SRPT_TRACE_H */

/* define_trace.h includes this file again from there: ccflags -I$(src). */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE ib_srpt_trace
#include <trace/define_trace.h>
