/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ufs-zoned internals: which file owns what.
 *
 *   ufs-zoned.c  QOM type, properties, realize, reset, BAR0, default LU
 *   ahit.c       auto-hibernate: the AHIT idle timer, H8 entry and exit
 *   regs.c       the register file (BAR0 reads/writes), interrupts
 *   uic.c        UIC commands and the DME attributes Linux reads
 *   utp.c        UTRD/UPIU parsing, PRDT DMA, commands to the LUs,
 *                responses, the doorbell and UTRLCLR
 *   query.c      QUERY REQUEST: descriptors, flags, attributes
 *   tm.c         task management requests (UTMRL)
 */

#ifndef HW_UFS_ZONED_INTERNAL_H
#define HW_UFS_ZONED_INTERNAL_H

#include "hw/ufs/ufs-zoned.h"

/* regs.c */
extern const MemoryRegionOps ufs_zoned_mmio_ops;
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
void ufs_zoned_utrl_doorbell(UfsZonedState *s, uint32_t val);
void ufs_zoned_utrl_clear(UfsZonedState *s, uint32_t val);
void ufs_zoned_utp_reset(UfsZonedState *s);
void ufs_zoned_utp_abort(UfsZonedState *s, uint32_t slot);

/* tm.c */
void ufs_zoned_utmrl_doorbell(UfsZonedState *s, uint32_t val);

/* query.c: fills @rsp (header already copied) from the request @req. */
void ufs_zoned_query(UfsZonedState *s, const UtpUpiuReq *req,
                     UtpUpiuRsp *rsp, uint16_t *data_len);
void ufs_zoned_query_reset(UfsZonedState *s);

#endif
