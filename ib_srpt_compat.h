/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Kernel version differences, all in one place. The driver is written
 * against the newest API; older kernels are shimmed here.
 */
#ifndef IB_SRPT_COMPAT_H
#define IB_SRPT_COMPAT_H

#include <linux/version.h>

/* hex_to_bin() has its own header from 6.12 on; newer kernels stop including it for us. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#include <linux/hex.h>
#endif

/*
 * target_submit() returns an error code since 6.5 (it used to be void);
 * a non-zero return means the command was already completed with sense.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 5, 0)
#define srpt_target_submit(cmd) ({ target_submit(cmd); 0; })
#else
#define srpt_target_submit(cmd) target_submit(cmd)
#endif

/*
 * Since 6.10 a fabric states how commands reach the backend; earlier kernels
 * always submitted from the caller's context.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define SRPT_TFO_SUBMIT_OPS				\
	.direct_submit_supp	= 1,			\
	.default_submit_type	= TARGET_DIRECT_SUBMIT,
#else
#define SRPT_TFO_SUBMIT_OPS
#endif

/*
 * Callbacks that older target cores call unconditionally and newer ones
 * dropped from struct target_core_fabric_ops (6.14).
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 14, 0)
static inline u32 srpt_tpg_get_inst_index(struct se_portal_group *se_tpg)
{
	return 1;
}

static inline u32 srpt_sess_get_index(struct se_session *se_sess)
{
	return 0;
}

static inline void srpt_set_default_node_attrs(struct se_node_acl *nacl)
{
}

#define SRPT_TFO_LEGACY_OPS						\
	.tpg_get_inst_index		= srpt_tpg_get_inst_index,	\
	.sess_get_index			= srpt_sess_get_index,		\
	.set_default_node_attributes	= srpt_set_default_node_attrs,
#else
#define SRPT_TFO_LEGACY_OPS
#endif

#ifndef kzalloc_obj
/*
 * kzalloc_obj(), the typed kzalloc(sizeof(*p)), came with 7.0 and was
 * backported to later 6.12 stable releases: test for it, not the version.
 */
#define kzalloc_obj(P, GFP) kzalloc(sizeof(P), GFP)
#endif

#endif /* IB_SRPT_COMPAT_H */
