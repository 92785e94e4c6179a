/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ufs-zoned internals: which file owns what.
 *
 *   ufs-zoned.c  QOM type, properties, realize, reset, BAR0, default LU
 *   ahit.c       auto-hibernate: the AHIT idle timer, H8 entry and exit
 *   regs.c       the register file (BAR0 reads/writes), interrupts
 *   uic.c        UIC commands and the DME attributes Linux reads
 *   utp.c        UTRD/UPIU parsing, PRDT DMA, commands to the LUs,
 *                responses, the legacy doorbell and UTRLCLR
 *   mcq.c        MCQ: queue configuration, SQ fetch, CQ posting, SQ
 *                stop/start/cleanup, CQ interrupt status
 *   query.c      QUERY REQUEST: descriptors, flags, attributes
 *   tm.c         task management requests (UTMRL)
 */

#ifndef HW_UFS_ZONED_INTERNAL_H
#define HW_UFS_ZONED_INTERNAL_H

#include "hw/ufs/ufs-zoned.h"

/* regs.c */
extern const MemoryRegionOps ufs_zoned_mmio_ops;
uint32_t ufs_zoned_is(UfsZonedState *s);
void ufs_zoned_irq_update(UfsZonedState *s);
void ufs_zoned_raise(UfsZonedState *s, uint32_t is_bits);
void ufs_zoned_regs_reset(UfsZonedState *s);

/* ahit.c */
void ufs_zoned_ahit_init(UfsZonedState *s);
void ufs_zoned_ahit_cleanup(UfsZonedState *s);
void ufs_zoned_ahit_reset(UfsZonedState *s);
void ufs_zoned_ahit_idle(UfsZonedState *s);
void ufs_zoned_ahit_busy(UfsZonedState *s);

/* uic.c */
void ufs_zoned_uic_cmd(UfsZonedState *s, uint32_t cmd);

/* utp.c */
extern const SCSIBusInfo ufs_zoned_scsi_info;
extern const ZrServiceOps ufs_zoned_service_ops;
bool ufs_zoned_idle(UfsZonedState *s);
UfsZonedReq *ufs_zoned_req_init(UfsZonedState *s, uint32_t index, int32_t sq,
                                uint32_t tag);
hwaddr ufs_zoned_utrd_ucd(const UtpTransferReqDesc *utrd);
void ufs_zoned_req_begin(UfsZonedReq *req, const UtpTransferReqDesc *utrd);
void ufs_zoned_utrl_doorbell(UfsZonedState *s, uint32_t val);
void ufs_zoned_utrl_clear(UfsZonedState *s, uint32_t val);
void ufs_zoned_utp_reset(UfsZonedState *s);
void ufs_zoned_utp_abort(UfsZonedState *s, uint32_t slot);
void ufs_zoned_slot_clear(UfsZonedState *s, uint32_t slot);

/* mcq.c */
uint32_t ufs_zoned_mcqcap(UfsZonedState *s);
bool ufs_zoned_mcq_cqes(UfsZonedState *s);
bool ufs_zoned_mcq_read(UfsZonedState *s, hwaddr addr, uint32_t *val);
bool ufs_zoned_mcq_write(UfsZonedState *s, hwaddr addr, uint32_t val);
void ufs_zoned_mcq_req_done(UfsZonedState *s, UfsZonedReq *req);
void ufs_zoned_mcq_req_free(UfsZonedState *s, UfsZonedReq *req);
void ufs_zoned_mcq_select(UfsZonedState *s, uint32_t val);
void ufs_zoned_mcq_reset(UfsZonedState *s);

/* tm.c */
void ufs_zoned_utmrl_doorbell(UfsZonedState *s, uint32_t val);

/* query.c: fills @rsp (header already copied) from the request @req. */
void ufs_zoned_query(UfsZonedState *s, const UtpUpiuReq *req,
                     UtpUpiuRsp *rsp, uint16_t *data_len);
void ufs_zoned_query_reset(UfsZonedState *s);

#endif
