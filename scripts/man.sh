#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Generate one kernel-doc man page per documented function of ib_srpt.c into
# Documentation/man/ (or $MAN_OUT) and check that every name of the driver's
# API has one. The pages are generated, never committed (.gitignore); make
# lint runs this into a scratch directory as one of its checks.
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
"$SRC/scripts/deps.sh" build >/dev/null
kdoc=$(ls /usr/lib/linux-kbuild-6.12*/scripts/kernel-doc /usr/lib/linux-kbuild-*/scripts/kernel-doc 2>/dev/null | head -n 1)
out=${MAN_OUT:-$SRC/Documentation/man}
rm -rf "$out"
mkdir -p "$out"
names=$(sed -n 's/^ \* \(srpt_[a-z0-9_]*\)() - .*/\1/p; s/^ \* \(srp_[a-z0-9_]*\)() - .*/\1/p' "$SRC/ib_srpt.c")
n=0
for f in $names; do
	perl "$kdoc" -man -function "$f" "$SRC/ib_srpt.c" >"$out/$f.9"
	n=$((n + 1))
done
api="srpt_event_handler srpt_srq_event srpt_qp_event srpt_set_ioc
srpt_get_class_port_info srpt_get_iou srpt_get_ioc srpt_get_svc_entries
srpt_mgmt_method_get srpt_mad_send_handler srpt_mad_recv_handler
srpt_refresh_port srpt_unregister_mad_agent srpt_alloc_ioctx srpt_free_ioctx
srpt_alloc_ioctx_ring srpt_free_ioctx_ring srpt_set_cmd_state
srpt_test_and_set_cmd_state srpt_post_recv srpt_zerolength_write
srpt_get_desc_tbl srpt_init_ch_qp srpt_ch_qp_rtr srpt_ch_qp_rts srpt_ch_qp_err
srpt_get_send_ioctx srpt_abort_cmd srpt_rdma_read_done srpt_build_cmd_rsp
srpt_build_tskmgmt_rsp srpt_handle_cmd srpt_handle_tsk_mgmt srpt_handle_new_iu
srpt_send_done srpt_create_ch_ib srpt_close_ch srpt_cm_req_recv
srpt_cm_rtu_recv srpt_cm_handler srpt_queue_response srpt_release_sport
srpt_lookup_port srpt_add_one srpt_remove_one srpt_close_session
srpt_parse_i_port_id srpt_make_tpg srpt_drop_tpg srpt_make_tport
srpt_drop_tport srpt_init_module"
missing=0 m=0
for f in $api; do
	m=$((m + 1))
	if ! grep -q "^\.SH NAME" "$out/$f.9" 2>/dev/null; then
		echo "man: no page for $f" >&2
		missing=$((missing + 1))
	fi
done
echo "man: $n pages in $out, $((m - missing)) of $m API names covered"
[ "$missing" = 0 ]
