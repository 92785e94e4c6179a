/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ufs-zoned: Multi-Circular Queue mode (UFSHCI 4.0 sections 5.5 and 5.6,
 * 6.3 and 6.4).
 *
 * With mode=mcq, CAP.MCQS is set and MCQCAP advertises mcq-queues queues
 * whose configuration registers sit at QCFGPTR * 0x200 (0x40 a queue) and
 * whose operation and runtime registers (SQ/CQ head and tail doorbells,
 * SQ runtime control, SQ/CQ interrupt status) sit at the fixed offsets
 * SQDAO/SQISAO/CQDAO/CQISAO report, 48 bytes a queue.
 *
 * Once MEM_CFG (CONFIG.QT) selects MCQ, a write to SQTP makes the
 * controller fetch the new SQ entries -- each a UTRD -- up to the number
 * of active commands MCQCONFIG.MAC allows; each runs like a legacy slot
 * (utp.c) and its completion is a CQE in the CQ its SQ names, with
 * CQIS.TEPS and IS.CQES.  The reorder policy's `spec` keeps each SQ in
 * order and takes SQs round-robin.  A full CQ holds completions back until
 * the host moves CQHP.  SQRTC stops and starts fetching; an SQ cleanup
 * (SQRTC.ICU with SQCTI naming LUN and task tag) stops the command and
 * completes it with a CQE of OCS ABORTED, then sets SQRTS.CUS; on a
 * running SQ it sets CUS with RTC "SQ not stopped" instead.  An entry the
 * host nullified (command type Fh) is skipped.  Doorbells only record the
 * new pointers: fetching and CQ posting run on the work BH (work.c).
 *
 * IS.CQES is the OR of the CQs' enabled CQIS bits: it drops when the host
 * clears CQIS, so the INTx line is a level, as the spec's status bits are.
 * Bad doorbells and queue configuration get a LOG_GUEST_ERROR line and
 * are ignored; an SQ entry that cannot be read raises IS.UTPES.
 */

#include "qemu/osdep.h"
#include "qapi/error.h"
#include "qemu/log.h"
#include "qemu/bswap.h"
#include "hw/pci/pci.h"
#include "ufs-zoned-internal.h"
#include "trace.h"

#define UFSZ_MCQ_ENTRY_SIZE     32      /* SQ and CQ entries alike */
#define UFSZ_MCQ_ENTRY_DWORDS   (UFSZ_MCQ_ENTRY_SIZE / 4)
#define UFSZ_CT_NULLIFIED       0xf     /* UTRD command type */

/* Offsets in a queue's 48 bytes of operation and runtime registers */
#define OPR_SQHP        0x00
#define OPR_SQTP        0x04
#define OPR_SQRTC       0x08
#define OPR_SQCTI       0x0c
#define OPR_SQRTS       0x10
#define OPR_SQIS        0x14
#define OPR_SQIE        0x18
#define OPR_CQHP        0x1c
#define OPR_CQTP        0x20
#define OPR_CQIS        0x24
#define OPR_CQIE        0x28
#define OPR_CQIACR      0x2c

/* SQRTC / SQRTS bits */
#define SQRTC_ST        BIT(0)      /* stop fetching */
#define SQRTC_ICU       BIT(1)      /* initiate cleanup */
#define SQRTS_SQS       BIT(0)      /* stopped */
#define SQRTS_CUS       BIT(1)      /* cleanup done */
#define SQRTS_RTC_SHIFT 4           /* return code of the cleanup, 7:4 */
#define SQRTS_RTC_MASK  (0xfu << SQRTS_RTC_SHIFT)
#define SQRTS_RTC_OK            0x0
#define SQRTS_RTC_NOT_STOPPED   0x2

uint32_t ufs_zoned_mcqcap(UfsZonedState *s)
{
    uint32_t cap = 0;

    cap = FIELD_DP32(cap, MCQCAP, MAXQ, s->mcq_queues - 1);
    cap = FIELD_DP32(cap, MCQCAP, RRP, 1);      /* round-robin arbitration */
    cap = FIELD_DP32(cap, MCQCAP, QCFGPTR, UFSZ_MCQ_QCFGPTR);
    return cap;
}

static bool ufs_zoned_mcq_on(UfsZonedState *s)
{
    return s->reg.config & R_CONFIG_QT_MASK;
}

static uint32_t ufs_zoned_mcq_entries(uint32_t attr)
{
    return (FIELD_EX32(attr, SQATTR, SIZE) + 1) / UFSZ_MCQ_ENTRY_DWORDS;
}

static hwaddr ufs_zoned_mcq_base(uint32_t lba, uint32_t uba)
{
    return ((uint64_t)uba << 32) | lba;
}

static uint32_t ufs_zoned_mac_limit(UfsZonedState *s)
{
    return MIN(FIELD_EX32(s->reg.mcqconfig, MCQCONFIG, MAC) + 1,
               UFSZ_MCQ_MAC);
}

static uint32_t ufs_zoned_sq_cqid(UfsZonedState *s, uint32_t q)
{
    return FIELD_EX32(s->mcq_cfg[q].sqattr, SQATTR, CQID);
}

static bool ufs_zoned_sq_enabled(UfsZonedState *s, uint32_t q)
{
    return FIELD_EX32(s->mcq_cfg[q].sqattr, SQATTR, SQEN);
}

static bool ufs_zoned_cq_enabled(UfsZonedState *s, uint32_t q)
{
    return FIELD_EX32(s->mcq_cfg[q].cqattr, CQATTR, CQEN);
}

static void ufs_zoned_mcq_guest_error(uint32_t q, const char *why)
{
    qemu_log_mask(LOG_GUEST_ERROR, "ufs-zoned: MCQ queue %u: %s\n", q, why);
    trace_ufs_zoned_err_mcq(q, why);
}

/* --- fetching from the submission queues ------------------------------- */

static int ufs_zoned_mcq_free_req(UfsZonedState *s)
{
    uint32_t i;

    for (i = UFSZ_NUTRS; i < UFSZ_NR_REQS; i++) {
        if (!s->req[i].busy) {
            return i;
        }
    }
    return -1;
}

/* Fetch and run the entry at SQ @q's head; false if there is none. */
static bool ufs_zoned_mcq_fetch_one(UfsZonedState *s, uint32_t q)
{
    UfsZonedSq *sq = &s->sq[q];
    uint32_t attr = s->mcq_cfg[q].sqattr;
    UtpTransferReqDesc utrd;
    UfsZonedReq *req;
    hwaddr addr;
    uint32_t at;
    int index;

    if (!ufs_zoned_sq_enabled(s, q) || (sq->rtc & SQRTC_ST) ||
        sq->head == sq->tail || s->mcq_active >= ufs_zoned_mac_limit(s)) {
        return false;
    }
    index = ufs_zoned_mcq_free_req(s);
    if (index < 0) {
        return false;
    }
    at = sq->head;
    addr = ufs_zoned_mcq_base(s->mcq_cfg[q].sqlba, s->mcq_cfg[q].squba) +
           at * UFSZ_MCQ_ENTRY_SIZE;
    sq->head = (at + 1) % ufs_zoned_mcq_entries(attr);
    if (sq->head == sq->tail) {
        s->sq_rung &= ~(1u << q);   /* the SQ is empty: nothing waits */
    }
    if (pci_dma_read(&s->parent_obj, addr, &utrd, sizeof(utrd)) != MEMTX_OK) {
        /*
         * No UTRD, so no UCD address a CQE could name: a system bus
         * error (IS.SBFES), which Linux answers with a host reset.
         */
        ufs_zoned_mcq_guest_error(q, "SQ entry not readable");
        ufs_zoned_raise(s, R_IS_SBFES_MASK);
        return true;
    }
    if (le32_to_cpu(utrd.header.dword_0) >> 28 == UFSZ_CT_NULLIFIED) {
        trace_ufs_zoned_mcq_nullified(q, at);
        return true;
    }
    trace_ufs_zoned_mcq_fetch(q, at, index);
    s->mcq_active++;
    req = ufs_zoned_req_init(s, index, q, 0);
    /* The SQ may be re-created on another CQ before this completes. */
    req->cq = ufs_zoned_sq_cqid(s, q);
    ufs_zoned_req_begin(req, &utrd);
    return true;
}

/* An SQ doorbell write: remember what arrived, in ring order. */
static void ufs_zoned_sq_mark(UfsZonedState *s, uint32_t q, uint32_t tail)
{
    UfsZonedSqMark *last = s->nr_sq_marks ?
                           &s->sq_marks[s->nr_sq_marks - 1] : NULL;
    int i;

    if (last && last->q == q) {
        last->tail = tail;
        return;
    }
    if (s->nr_sq_marks < UFSZ_MCQ_MARKS) {
        s->sq_marks[s->nr_sq_marks++] = (UfsZonedSqMark){ q, tail };
        return;
    }
    /*
     * Hundreds of doorbell writes before one fetch: extend this SQ's last
     * mark (or leave the entries to the round-robin pass after the marks).
     */
    for (i = s->nr_sq_marks - 1; i >= 0; i--) {
        if (s->sq_marks[i].q == q) {
            s->sq_marks[i].tail = tail;
            return;
        }
    }
}

static void ufs_zoned_sq_unmark(UfsZonedState *s, uint32_t i)
{
    if (--s->nr_sq_marks > i) {
        memmove(&s->sq_marks[i], &s->sq_marks[i + 1],
                (s->nr_sq_marks - i) * sizeof(s->sq_marks[0]));
    }
}

/* SQ @q was disabled: forget what it had rung. */
static void ufs_zoned_sq_unmark_all(UfsZonedState *s, uint32_t q)
{
    uint32_t i = 0;

    while (i < s->nr_sq_marks) {
        if (s->sq_marks[i].q == q) {
            ufs_zoned_sq_unmark(s, i);
        } else {
            i++;
        }
    }
}

/*
 * Fetch in the order the host rang the SQ doorbells (the marks); a
 * stopped SQ's marks wait without holding the others up.  Entries no mark
 * covers (mark list overflow) then go one a queue a round.  Returns true
 * when it stopped for want of MAC capacity or a free context.
 */
static bool ufs_zoned_mcq_fetch_marked(UfsZonedState *s)
{
    uint32_t i = 0;

    while (i < s->nr_sq_marks && !s->teardown) {
        UfsZonedSqMark *m = &s->sq_marks[i];
        UfsZonedSq *sq = &s->sq[m->q];

        if (!ufs_zoned_sq_enabled(s, m->q)) {
            ufs_zoned_sq_unmark(s, i);
            continue;
        }
        if (sq->rtc & SQRTC_ST) {
            i++;
            continue;
        }
        while (sq->head != m->tail && sq->head != sq->tail) {
            if (!ufs_zoned_mcq_fetch_one(s, m->q)) {
                return true;
            }
            if (s->teardown) {
                return true;
            }
        }
        ufs_zoned_sq_unmark(s, i);
    }
    return false;
}

/*
 * Fetch what the SQs hold (work BH).  Completions that free capacity
 * while this runs (NOP, QUERY, errors) ask for another pass instead of
 * recursing.  Nothing is fetched while the link leaves hibernate: the
 * exit's end schedules the work BH again.
 */
static void ufs_zoned_mcq_fetch_run(UfsZonedState *s)
{
    bool progress;
    uint32_t q, bits;

    if (s->mcq_fetching) {
        s->mcq_fetch_again = true;
        return;
    }
    s->mcq_fetching = true;
    do {
        s->mcq_fetch_again = false;
        if (ufs_zoned_mcq_fetch_marked(s)) {
            continue;
        }
        do {
            progress = false;
            /* only an SQ with its sq_rung bit may hold entries */
            for (bits = s->sq_rung & MAKE_64BIT_MASK(0, s->mcq_queues);
                 bits && !s->teardown; bits &= bits - 1) {
                q = ctz32(bits);
                if (s->sq[q].head != s->sq[q].tail) {
                    progress |= ufs_zoned_mcq_fetch_one(s, q);
                }
            }
        } while (progress);
    } while (s->mcq_fetch_again && !s->teardown);
    s->mcq_fetching = false;
}

/* Something may be fetchable now: let the work BH look. */
void ufs_zoned_mcq_fetch(UfsZonedState *s)
{
    s->mcq_fetch_pending = true;
    ufs_zoned_schedule(s);
}

/* ufs_zoned_mcq_fetch_waiting() once some SQ may have entries */
bool ufs_zoned_mcq_fetch_waiting_slow(UfsZonedState *s)
{
    uint32_t q, bits;

    if (!ufs_zoned_mcq_on(s)) {
        return false;
    }
    for (bits = s->sq_rung; bits; bits &= bits - 1) {
        q = ctz32(bits);
        if (s->sq[q].head == s->sq[q].tail) {
            s->sq_rung &= ~(1u << q);
        } else if (q < s->mcq_queues && ufs_zoned_sq_enabled(s, q)) {
            /* a stopped SQ with entries is not idle either: it will run */
            return true;
        }
    }
    return false;
}

/*
 * A context was freed: fetch again if entries wait (for a context, or
 * under MAC); with none waiting the pass would find nothing to fetch.
 */
static void ufs_zoned_mcq_refetch(UfsZonedState *s)
{
    if (ufs_zoned_mcq_fetch_waiting(s)) {
        ufs_zoned_mcq_fetch(s);
    }
}

/* A reset begins: nothing is fetched from here on. */
void ufs_zoned_mcq_stop_all(UfsZonedState *s)
{
    s->reg.config &= ~R_CONFIG_QT_MASK;
    s->mcq_fetch_pending = false;
}

/* --- completion queue entries ----------------------------------------- */

static bool ufs_zoned_cq_full(UfsZonedState *s, uint32_t c)
{
    uint32_t n = ufs_zoned_mcq_entries(s->mcq_cfg[c].cqattr);

    return (s->cq[c].tail + 1) % n == s->cq[c].head;
}

/* The request context of a fetched command is free again. */
void ufs_zoned_mcq_req_free(UfsZonedState *s, UfsZonedReq *req)
{
    if (req->cq_waiting) {
        QTAILQ_REMOVE(&s->cq[req->cq].waiting, req, cq_wait);
        req->cq_waiting = false;
    }
    req->busy = false;
    s->mcq_active--;
}

/*
 * Write the CQE of @req at CQ @c's tail (UFSHCI 4.0 6.4); inline: a
 * command's completion is one call less.
 */
static inline QEMU_ALWAYS_INLINE void ufs_zoned_cq_post(UfsZonedState *s,
                                                        uint32_t c,
                                                        UfsZonedReq *req)
{
    UfsZonedCq *cq = &s->cq[c];
    UfsCqEntry cqe = {
        .utp_addr = cpu_to_le64(ufs_zoned_utrd_ucd(&req->utrd)),
        .resp_len = req->utrd.response_upiu_length,
        .resp_off = req->utrd.response_upiu_offset,
        .prdt_len = req->utrd.prd_table_length,
        .prdt_off = req->utrd.prd_table_offset,
        .status = req->ocs,
    };
    hwaddr addr = ufs_zoned_mcq_base(s->mcq_cfg[c].cqlba,
                                     s->mcq_cfg[c].cquba) +
                  cq->tail * UFSZ_MCQ_ENTRY_SIZE;
    /* Sized before the DMA: the queue's registers are read only once. */
    uint32_t entries = ufs_zoned_mcq_entries(s->mcq_cfg[c].cqattr);

    trace_ufs_zoned_mcq_cqe(c, cq->tail, req->sq, req->tag, req->ocs);
    if (pci_dma_write(&s->parent_obj, addr, &cqe, sizeof(cqe)) != MEMTX_OK) {
        ufs_zoned_mcq_guest_error(c, "CQ entry not writable");
        ufs_zoned_raise(s, R_IS_SBFES_MASK);
    } else if (entries && ufs_zoned_cq_enabled(s, c)) {
        cq->tail = (cq->tail + 1) % entries;
        ufs_zoned_irq_completion(s, c, le32_to_cpu(req->utrd.header.dword_0) &
                                       UFS_UTP_REQ_DESC_INT_CMD);
    }
    ufs_zoned_mcq_req_free(s, req);
    ufs_zoned_irq_update(s);
}

/* A fetched command is done (response UPIU written): post its CQE. */
static void ufs_zoned_sq_cleanup_done(UfsZonedSq *sq, uint32_t rtc)
{
    sq->rts = (sq->rts & ~SQRTS_RTC_MASK) | SQRTS_CUS |
              (rtc << SQRTS_RTC_SHIFT);
}

void ufs_zoned_mcq_req_done(UfsZonedState *s, UfsZonedReq *req)
{
    uint32_t c = req->cq;
    UfsZonedCq *cq = &s->cq[c];

    if (req->cleanup) {
        /*
         * The cleaned-up command's CQE is written (or queued for room)
         * now: only from here on may the host see the cleanup done, since
         * Linux polls the CQ right after SQRTS.CUS.
         */
        req->cleanup = false;
        trace_ufs_zoned_mcq_sq_cleanup(req->sq, req->tag, true,
                                       SQRTS_RTC_OK);
        ufs_zoned_sq_cleanup_done(&s->sq[req->sq], SQRTS_RTC_OK);
    }
    if (!ufs_zoned_cq_enabled(s, c)) {
        ufs_zoned_mcq_guest_error(c, "completion for a disabled CQ dropped");
        ufs_zoned_mcq_req_free(s, req);
    } else if (!QTAILQ_EMPTY(&cq->waiting) || ufs_zoned_cq_full(s, c)) {
        trace_ufs_zoned_mcq_cq_full(c, req->sq, req->tag);
        QTAILQ_INSERT_TAIL(&cq->waiting, req, cq_wait);
        s->cq_waits |= 1u << c;
        req->cq_waiting = true;
        return;
    } else {
        ufs_zoned_cq_post(s, c, req);
    }
    ufs_zoned_mcq_refetch(s);
}

/* The host consumed CQEs: post those that waited for room (work BH). */
static void ufs_zoned_cq_drain(UfsZonedState *s, uint32_t c)
{
    UfsZonedCq *cq = &s->cq[c];
    UfsZonedReq *req;
    bool posted = false;

    while (ufs_zoned_cq_enabled(s, c) && !s->teardown &&
           (req = QTAILQ_FIRST(&cq->waiting)) && !ufs_zoned_cq_full(s, c)) {
        QTAILQ_REMOVE(&cq->waiting, req, cq_wait);
        req->cq_waiting = false;
        ufs_zoned_cq_post(s, c, req);
        posted = true;
    }
    if (posted) {
        ufs_zoned_mcq_refetch(s);
    }
}

/*
 * MCQ part of the work BH: fetch, then post what waited for CQ room.
 * Nothing to do without a fetch pending or a CQ with waiters.
 */
void ufs_zoned_mcq_work(UfsZonedState *s)
{
    uint32_t c, bits;

    if (!s->mcq) {
        return;
    }
    if (s->mcq_fetch_pending && ufs_zoned_mcq_on(s) &&
        ufs_zoned_link_ready(s)) {
        s->mcq_fetch_pending = false;
        ufs_zoned_mcq_fetch_run(s);
    }
    /* in CQ order, each bit read as it is now */
    for (c = 0; c < UFSZ_MCQ_MAX_QUEUES && !s->teardown; c++) {
        bits = s->cq_waits >> c;
        if (!bits) {
            break;
        }
        c += ctz32(bits);
        if (QTAILQ_EMPTY(&s->cq[c].waiting)) {
            s->cq_waits &= ~(1u << c);
        } else if (c < s->mcq_queues) {
            ufs_zoned_cq_drain(s, c);
        }
    }
}

/* --- SQ runtime control: stop, start, cleanup -------------------------- */

/*
 * SQ cleanup (UFSHCI 4.0 5.5, SQRTC.ICU): SQCTI names the command, LUN in
 * bits 15:8 and task tag in 7:0.  The command leaves the controller and
 * its LU and completes with a CQE of OCS ABORTED, posted by the work BH,
 * which then sets SQRTS.CUS (ufs_zoned_mcq_req_done): Linux's
 * ufshcd_mcq_abort, LU reset and abort-all paths poll the CQ once CUS is
 * set.  A command already done and waiting for CQ room keeps its own CQE
 * and, like a cleanup that finds nothing, CUS is set at once.  The SQ
 * must be stopped: otherwise CUS with RTC "SQ not stopped".
 */
static void ufs_zoned_sq_cleanup(UfsZonedState *s, uint32_t q)
{
    UfsZonedSq *sq = &s->sq[q];
    uint8_t lun = (sq->cti >> 8) & 0xff, tag = sq->cti & 0xff;
    bool found = false, cqe_to_come = false;
    uint32_t i;

    if (!(sq->rts & SQRTS_SQS)) {
        ufs_zoned_mcq_guest_error(q, "cleanup requested while the SQ runs");
        ufs_zoned_sq_cleanup_done(sq, SQRTS_RTC_NOT_STOPPED);
        trace_ufs_zoned_mcq_sq_cleanup(q, sq->cti, false,
                                       SQRTS_RTC_NOT_STOPPED);
        return;
    }
    ufs_zoned_teardown_begin(s);
    for (i = UFSZ_NUTRS; i < UFSZ_NR_REQS; i++) {
        UfsZonedReq *req = &s->req[i];

        if (req->busy && !req->stopping && req->sq == q &&
            req->tag == tag && req->upiu.header.lun == lun) {
            found = true;
            if (req->cleanup) {
                cqe_to_come = true;     /* cleaned up already, CQE due */
            } else if (!req->responded) {
                ufs_zoned_req_complete_aborted(req);
                cqe_to_come = true;
            }
        }
    }
    ufs_zoned_teardown_end(s);
    if (!cqe_to_come) {
        trace_ufs_zoned_mcq_sq_cleanup(q, sq->cti, found, SQRTS_RTC_OK);
        ufs_zoned_sq_cleanup_done(sq, SQRTS_RTC_OK);
    }
}

static void ufs_zoned_sq_rtc(UfsZonedState *s, uint32_t q, uint32_t val)
{
    UfsZonedSq *sq = &s->sq[q];

    sq->rtc = val & SQRTC_ST;
    if (val & SQRTC_ST) {
        sq->rts |= SQRTS_SQS;   /* fetching is synchronous: stopped now */
        trace_ufs_zoned_mcq_sq_stop(q, true);
    }
    if (val & SQRTC_ICU) {
        sq->rts &= ~(SQRTS_CUS | SQRTS_RTC_MASK);
        ufs_zoned_sq_cleanup(s, q);
    }
    if (!(val & SQRTC_ST) && (sq->rts & SQRTS_SQS)) {
        sq->rts &= ~(SQRTS_SQS | SQRTS_CUS);
        trace_ufs_zoned_mcq_sq_stop(q, false);
        if (sq->head != sq->tail) {
            ufs_zoned_ahit_busy(s);
        }
        ufs_zoned_mcq_fetch(s);
    }
}

/* --- doorbells --------------------------------------------------------- */

static bool ufs_zoned_mcq_ptr_ok(uint32_t q, uint32_t attr, uint32_t val,
                                 const char *what)
{
    if (val % UFSZ_MCQ_ENTRY_SIZE ||
        val / UFSZ_MCQ_ENTRY_SIZE >= ufs_zoned_mcq_entries(attr)) {
        g_autofree char *why = g_strdup_printf("%s 0x%x is not an entry "
                                               "of the queue", what, val);
        ufs_zoned_mcq_guest_error(q, why);
        return false;
    }
    return true;
}

static void ufs_zoned_sq_doorbell(UfsZonedState *s, uint32_t q, uint32_t val)
{
    uint32_t attr = s->mcq_cfg[q].sqattr;

    if (!ufs_zoned_sq_enabled(s, q)) {
        ufs_zoned_mcq_guest_error(q, "SQ tail doorbell on a disabled SQ");
        return;
    }
    if (!ufs_zoned_mcq_ptr_ok(q, attr, val, "SQTP")) {
        return;
    }
    s->sq[q].tail = val / UFSZ_MCQ_ENTRY_SIZE;
    s->sq_rung |= 1u << q;
    trace_ufs_zoned_mcq_sq_doorbell(q, s->sq[q].tail, s->sq[q].head);
    ufs_zoned_sq_mark(s, q, s->sq[q].tail);
    if (!ufs_zoned_mcq_on(s)) {
        ufs_zoned_mcq_guest_error(q, "SQ doorbell while MEM_CFG selects the "
                                  "legacy doorbell; fetched once MCQ is on");
        return;
    }
    ufs_zoned_ahit_busy(s);
    ufs_zoned_mcq_fetch(s);
}

static void ufs_zoned_cq_doorbell(UfsZonedState *s, uint32_t c, uint32_t val)
{
    if (!ufs_zoned_cq_enabled(s, c)) {
        ufs_zoned_mcq_guest_error(c, "CQ head doorbell on a disabled CQ");
        return;
    }
    if (!ufs_zoned_mcq_ptr_ok(c, s->mcq_cfg[c].cqattr, val, "CQHP")) {
        return;
    }
    s->cq[c].head = val / UFSZ_MCQ_ENTRY_SIZE;
    trace_ufs_zoned_mcq_cq_head(c, s->cq[c].head);
    if (!QTAILQ_EMPTY(&s->cq[c].waiting)) {
        ufs_zoned_schedule(s);
    }
}

/* --- queue configuration ----------------------------------------------- */

static bool ufs_zoned_queue_cfg_ok(UfsZonedState *s, uint32_t q,
                                   uint32_t size, hwaddr base, bool is_sq,
                                   uint32_t cqid)
{
    if ((size + 1) % UFSZ_MCQ_ENTRY_DWORDS ||
        (size + 1) / UFSZ_MCQ_ENTRY_DWORDS < 2) {
        ufs_zoned_mcq_guest_error(q, "queue size is not a number (>= 2) of "
                                  "8-dword entries; queue stays disabled");
        return false;
    }
    if (base % UFSZ_MCQ_ENTRY_SIZE) {
        ufs_zoned_mcq_guest_error(q, "queue base address not 32-byte "
                                  "aligned; queue stays disabled");
        return false;
    }
    if (is_sq && cqid >= s->mcq_queues) {
        ufs_zoned_mcq_guest_error(q, "SQATTR.CQID names no completion "
                                  "queue; queue stays disabled");
        return false;
    }
    return true;
}

static void ufs_zoned_sqattr_write(UfsZonedState *s, uint32_t q, uint32_t val)
{
    UfsMcqReg *cfg = &s->mcq_cfg[q];
    bool was = ufs_zoned_sq_enabled(s, q);

    val &= R_SQATTR_SIZE_MASK | R_SQATTR_CQID_MASK | R_SQATTR_SQPL_MASK |
           R_SQATTR_SQEN_MASK;
    if (!was && FIELD_EX32(val, SQATTR, SQEN) &&
        !ufs_zoned_queue_cfg_ok(s, q, FIELD_EX32(val, SQATTR, SIZE),
                                ufs_zoned_mcq_base(cfg->sqlba, cfg->squba),
                                true, FIELD_EX32(val, SQATTR, CQID))) {
        val = FIELD_DP32(val, SQATTR, SQEN, 0);
    }
    if (was && FIELD_EX32(val, SQATTR, SQEN) && val != cfg->sqattr) {
        ufs_zoned_mcq_guest_error(q, "SQATTR changed while the SQ is "
                                  "enabled; ignored");
        return;
    }
    if (was && !FIELD_EX32(val, SQATTR, SQEN)) {
        ufs_zoned_sq_unmark_all(s, q);
    }
    cfg->sqattr = val;
    if (!was && FIELD_EX32(val, SQATTR, SQEN)) {
        s->sq[q].head = s->sq[q].tail = 0;
        s->sq[q].rtc = s->sq[q].rts = 0;
    }
    trace_ufs_zoned_mcq_sq_config(q, val, ufs_zoned_mcq_base(cfg->sqlba,
                                                             cfg->squba));
}

/*
 * A CQ is disabled with completions still waiting for room: the host gave
 * them up, so they are dropped, and their contexts with them -- a CQ
 * enabled again starts empty, never behind stale waiters.
 */
static void ufs_zoned_cq_disable(UfsZonedState *s, uint32_t c)
{
    UfsZonedReq *req, *next;

    if (QTAILQ_EMPTY(&s->cq[c].waiting)) {
        return;
    }
    ufs_zoned_mcq_guest_error(c, "CQ disabled with completions waiting; "
                              "they are dropped");
    ufs_zoned_teardown_begin(s);
    QTAILQ_FOREACH_SAFE(req, &s->cq[c].waiting, cq_wait, next) {
        ufs_zoned_req_drop(s, req);
    }
    ufs_zoned_teardown_end(s);
}

static void ufs_zoned_cqattr_write(UfsZonedState *s, uint32_t q, uint32_t val)
{
    UfsMcqReg *cfg = &s->mcq_cfg[q];
    bool was = ufs_zoned_cq_enabled(s, q);

    val &= R_CQATTR_SIZE_MASK | R_CQATTR_CQEN_MASK;
    if (!was && FIELD_EX32(val, CQATTR, CQEN) &&
        !ufs_zoned_queue_cfg_ok(s, q, FIELD_EX32(val, CQATTR, SIZE),
                                ufs_zoned_mcq_base(cfg->cqlba, cfg->cquba),
                                false, 0)) {
        val = FIELD_DP32(val, CQATTR, CQEN, 0);
    }
    if (was && FIELD_EX32(val, CQATTR, CQEN) && val != cfg->cqattr) {
        ufs_zoned_mcq_guest_error(q, "CQATTR changed while the CQ is "
                                  "enabled; ignored");
        return;
    }
    if (was && !FIELD_EX32(val, CQATTR, CQEN)) {
        ufs_zoned_cq_disable(s, q);
    }
    cfg->cqattr = val;
    if (!was && FIELD_EX32(val, CQATTR, CQEN)) {
        s->cq[q].head = s->cq[q].tail = 0;
        s->cq[q].is = 0;
        ufs_zoned_cq_events_update(s, q);
    }
    trace_ufs_zoned_mcq_cq_config(q, val, ufs_zoned_mcq_base(cfg->cqlba,
                                                             cfg->cquba));
}

/* Base addresses change only while the queue is disabled. */
static bool ufs_zoned_base_writable(uint32_t q, bool enabled)
{
    if (enabled) {
        ufs_zoned_mcq_guest_error(q, "base address written while the queue "
                                  "is enabled; ignored");
    }
    return !enabled;
}

/* xxDAO / xxISAO are read-only: Linux writes back what it read. */
static void ufs_zoned_ro_write(uint32_t q, uint32_t reg, uint32_t val)
{
    if (reg != val) {
        ufs_zoned_mcq_guest_error(q, "write to a read-only doorbell or "
                                  "interrupt status offset register");
    }
}

static void ufs_zoned_mcq_cfg_write(UfsZonedState *s, uint32_t q,
                                    uint32_t off, uint32_t val)
{
    UfsMcqReg *cfg = &s->mcq_cfg[q];

    switch (off) {
    case A_SQATTR:
        ufs_zoned_sqattr_write(s, q, val);
        break;
    case A_SQLBA:
        if (ufs_zoned_base_writable(q, ufs_zoned_sq_enabled(s, q))) {
            cfg->sqlba = val;
        }
        break;
    case A_SQUBA:
        if (ufs_zoned_base_writable(q, ufs_zoned_sq_enabled(s, q))) {
            cfg->squba = val;
        }
        break;
    case A_CQATTR:
        ufs_zoned_cqattr_write(s, q, val);
        break;
    case A_CQLBA:
        if (ufs_zoned_base_writable(q, ufs_zoned_cq_enabled(s, q))) {
            cfg->cqlba = val;
        }
        break;
    case A_CQUBA:
        if (ufs_zoned_base_writable(q, ufs_zoned_cq_enabled(s, q))) {
            cfg->cquba = val;
        }
        break;
    case A_SQDAO:
        ufs_zoned_ro_write(q, cfg->sqdao, val);
        break;
    case A_SQISAO:
        ufs_zoned_ro_write(q, cfg->sqisao, val);
        break;
    case A_CQDAO:
        ufs_zoned_ro_write(q, cfg->cqdao, val);
        break;
    case A_CQISAO:
        ufs_zoned_ro_write(q, cfg->cqisao, val);
        break;
    case A_SQCFG:
    case A_CQCFG:
        break;      /* vendor/priority hints: none here */
    default:
        ufs_zoned_mcq_guest_error(q, "write to a reserved config register");
        break;
    }
}

static void ufs_zoned_mcq_opr_write(UfsZonedState *s, uint32_t q,
                                    uint32_t off, uint32_t val)
{
    switch (off) {
    case OPR_SQTP:
        ufs_zoned_sq_doorbell(s, q, val);
        break;
    case OPR_SQRTC:
        ufs_zoned_sq_rtc(s, q, val);
        break;
    case OPR_SQCTI:
        s->sq[q].cti = val;
        break;
    case OPR_SQIS:
        s->sq[q].is &= ~val;
        break;
    case OPR_SQIE:
        s->sq[q].ie = val & 1;
        break;
    case OPR_CQHP:
        ufs_zoned_cq_doorbell(s, q, val);
        break;
    case OPR_CQIS:
        s->cq[q].is &= ~val;
        ufs_zoned_cq_events_update(s, q);
        ufs_zoned_irq_update(s);
        break;
    case OPR_CQIE:
        s->cq[q].ie = val & R_CQIS_TEPS_MASK;
        ufs_zoned_cq_events_update(s, q);
        ufs_zoned_irq_update(s);
        break;
    case OPR_CQIACR:
        ufs_zoned_iacr_write(s, q, val);
        break;
    default:
        ufs_zoned_mcq_guest_error(q, "write to a read-only MCQ operation "
                                  "register");
        break;
    }
}

static uint32_t ufs_zoned_mcq_opr_read(UfsZonedState *s, uint32_t q,
                                       uint32_t off)
{
    switch (off) {
    case OPR_SQHP:
        return s->sq[q].head * UFSZ_MCQ_ENTRY_SIZE;
    case OPR_SQTP:
        return s->sq[q].tail * UFSZ_MCQ_ENTRY_SIZE;
    case OPR_SQRTC:
        return s->sq[q].rtc;
    case OPR_SQCTI:
        return s->sq[q].cti;
    case OPR_SQRTS:
        return s->sq[q].rts;
    case OPR_SQIS:
        return s->sq[q].is;
    case OPR_SQIE:
        return s->sq[q].ie;
    case OPR_CQHP:
        return s->cq[q].head * UFSZ_MCQ_ENTRY_SIZE;
    case OPR_CQTP:
        return s->cq[q].tail * UFSZ_MCQ_ENTRY_SIZE;
    case OPR_CQIS:
        return s->cq[q].is;
    case OPR_CQIE:
        return s->cq[q].ie;
    case OPR_CQIACR:
        return ufs_zoned_iacr_read(s, q);
    }
    return 0;
}

/*
 * Decode a queue configuration register address; false if @addr is not
 * one.  The operation registers have a subregion of their own.
 */
static bool ufs_zoned_mcq_decode(UfsZonedState *s, hwaddr addr, uint32_t *q,
                                 uint32_t *off)
{
    if (!s->mcq) {
        return false;
    }
    if (addr >= UFSZ_MCQ_CFG_BASE &&
        addr < UFSZ_MCQ_CFG_BASE + s->mcq_queues * UFSZ_MCQ_CFG_STRIDE) {
        *q = (addr - UFSZ_MCQ_CFG_BASE) / UFSZ_MCQ_CFG_STRIDE;
        *off = (addr - UFSZ_MCQ_CFG_BASE) % UFSZ_MCQ_CFG_STRIDE;
        return true;
    }
    return false;
}

/*
 * The operation and runtime registers are a subregion of BAR0 of their
 * own (ufs_zoned_mcq_init()): a doorbell is one call from the memory
 * core, not a walk through the register file's switch first.  The same
 * trace events and MMIO bracket as the register file's (regs.c).
 */
static uint64_t ufs_zoned_mcq_opr_mmio_read(void *opaque, hwaddr addr,
                                            unsigned size)
{
    UfsZonedState *s = opaque;
    uint32_t val;

    if (addr >= s->mcq_queues * UFSZ_MCQ_OPR_STRIDE) {
        /* beyond the queues: as the register file answers (regs.c) */
        return ufs_zoned_mmio_ops.read(opaque, UFSZ_MCQ_OPR_BASE + addr,
                                       size);
    }
    val = ufs_zoned_mcq_opr_read(s, addr / UFSZ_MCQ_OPR_STRIDE,
                                 addr % UFSZ_MCQ_OPR_STRIDE);
    trace_ufs_zoned_mmio_read(UFSZ_MCQ_OPR_BASE + addr, val);
    return val;
}

static void ufs_zoned_mcq_opr_mmio_write(void *opaque, hwaddr addr,
                                         uint64_t data, unsigned size)
{
    UfsZonedState *s = opaque;

    if (addr >= s->mcq_queues * UFSZ_MCQ_OPR_STRIDE) {
        ufs_zoned_mmio_ops.write(opaque, UFSZ_MCQ_OPR_BASE + addr, data,
                                 size);
        return;
    }
    trace_ufs_zoned_mmio_write(UFSZ_MCQ_OPR_BASE + addr, (uint32_t)data);
    ufs_zoned_irq_mmio_begin(s);
    ufs_zoned_mcq_opr_write(s, addr / UFSZ_MCQ_OPR_STRIDE,
                            addr % UFSZ_MCQ_OPR_STRIDE, data);
    ufs_zoned_irq_mmio_end(s);
}

static const MemoryRegionOps ufs_zoned_mcq_opr_ops = {
    .read = ufs_zoned_mcq_opr_mmio_read,
    .write = ufs_zoned_mcq_opr_mmio_write,
    UFSZ_MMIO_DWORDS,
};

/*
 * Realize, mode=mcq: the operation registers, to the end of BAR0 -- whole
 * pages, which the memory core finds without a subpage step.
 */
void ufs_zoned_mcq_init(UfsZonedState *s)
{
    QEMU_BUILD_BUG_ON(UFSZ_MCQ_OPR_BASE % 4096 || UFSZ_BAR0_SIZE % 4096 ||
                      UFSZ_MCQ_OPR_BASE + UFSZ_MCQ_MAX_QUEUES *
                      UFSZ_MCQ_OPR_STRIDE > UFSZ_BAR0_SIZE);
    memory_region_init_io(&s->mcq_opr, OBJECT(s), &ufs_zoned_mcq_opr_ops, s,
                          "ufs-zoned-mcq-opr",
                          UFSZ_BAR0_SIZE - UFSZ_MCQ_OPR_BASE);
    memory_region_add_subregion(&s->iomem, UFSZ_MCQ_OPR_BASE, &s->mcq_opr);
}

/* Unrealize: the subregion holds a reference to the device until removed */
void ufs_zoned_mcq_exit(UfsZonedState *s)
{
    memory_region_del_subregion(&s->iomem, &s->mcq_opr);
}

bool ufs_zoned_mcq_read(UfsZonedState *s, hwaddr addr, uint32_t *val)
{
    uint32_t q, off;

    if (!ufs_zoned_mcq_decode(s, addr, &q, &off)) {
        return false;
    }
    *val = ((uint32_t *)&s->mcq_cfg[q])[off / 4];
    return true;
}

bool ufs_zoned_mcq_write(UfsZonedState *s, hwaddr addr, uint32_t val)
{
    uint32_t q, off;

    if (!ufs_zoned_mcq_decode(s, addr, &q, &off)) {
        return false;
    }
    ufs_zoned_mcq_cfg_write(s, q, off, val);
    return true;
}

/* MEM_CFG.QT written: MCQ on or off (UFSHCI 4.0 5.3.9). */
void ufs_zoned_mcq_select(UfsZonedState *s, uint32_t val)
{
    bool on = val & R_CONFIG_QT_MASK;

    if (on && !s->mcq) {
        qemu_log_mask(LOG_GUEST_ERROR, "ufs-zoned: MEM_CFG selects MCQ, but "
                      "CAP.MCQS = 0 (mode=legacy)\n");
        trace_ufs_zoned_err_mcq(0, "MCQ selected in legacy mode");
        return;
    }
    s->reg.config = on ? R_CONFIG_QT_MASK : 0;
    trace_ufs_zoned_mcq_select(on);
    if (ufs_zoned_mcq_fetch_waiting(s)) {
        ufs_zoned_ahit_busy(s);
    }
    ufs_zoned_mcq_fetch(s);
}

/* Whether enabled queue @q (an SQ if @is_sq) has a state it could have. */
static bool ufs_zoned_mcq_queue_loaded_ok(UfsZonedState *s, uint32_t q,
                                          bool is_sq)
{
    UfsMcqReg *cfg = &s->mcq_cfg[q];
    uint32_t attr = is_sq ? cfg->sqattr : cfg->cqattr;
    uint32_t size = FIELD_EX32(attr, SQATTR, SIZE);
    uint32_t n = ufs_zoned_mcq_entries(attr);
    hwaddr base = is_sq ? ufs_zoned_mcq_base(cfg->sqlba, cfg->squba) :
                          ufs_zoned_mcq_base(cfg->cqlba, cfg->cquba);
    uint32_t head = is_sq ? s->sq[q].head : s->cq[q].head;
    uint32_t tail = is_sq ? s->sq[q].tail : s->cq[q].tail;

    return q < s->mcq_queues && !((size + 1) % UFSZ_MCQ_ENTRY_DWORDS) &&
           n >= 2 && !(base % UFSZ_MCQ_ENTRY_SIZE) && head < n && tail < n &&
           (!is_sq || ufs_zoned_sq_cqid(s, q) < s->mcq_queues);
}

/*
 * Migration: whether the loaded queue configuration and run state are
 * ones the guest could have set up (what ufs_zoned_queue_cfg_ok() and the
 * doorbell checks let through), so that a stream we do not trust cannot
 * name a CQ that is not there, a queue of no entries or a head beyond
 * its queue.
 */
bool ufs_zoned_mcq_post_load(UfsZonedState *s, Error **errp)
{
    uint32_t q, i;

    for (q = 0; q < UFSZ_MCQ_MAX_QUEUES; q++) {
        bool there = s->mcq && q < s->mcq_queues;

        if ((ufs_zoned_sq_enabled(s, q) &&
             (!there || !ufs_zoned_mcq_queue_loaded_ok(s, q, true))) ||
            (ufs_zoned_cq_enabled(s, q) &&
             (!there || !ufs_zoned_mcq_queue_loaded_ok(s, q, false)))) {
            error_setg(errp, "saved configuration of queue %u", q);
            return false;
        }
        if (!there && (s->sq[q].head || s->sq[q].tail || s->cq[q].head ||
                       s->cq[q].tail)) {
            error_setg(errp, "saved state of queue %u, which is not there",
                       q);
            return false;
        }
    }
    if (s->nr_sq_marks > UFSZ_MCQ_MARKS) {
        error_setg(errp, "%u saved SQ doorbells", s->nr_sq_marks);
        return false;
    }
    for (i = 0; i < s->nr_sq_marks; i++) {
        UfsZonedSqMark *m = &s->sq_marks[i];

        if (m->q >= UFSZ_MCQ_MAX_QUEUES || !ufs_zoned_sq_enabled(s, m->q) ||
            m->tail >= ufs_zoned_mcq_entries(s->mcq_cfg[m->q].sqattr)) {
            error_setg(errp, "saved doorbell of SQ %u", m->q);
            return false;
        }
    }
    return true;
}

/* Power-on state: every queue disabled, the offsets at their defaults. */
void ufs_zoned_mcq_reset(UfsZonedState *s)
{
    uint32_t q;

    memset(s->mcq_cfg, 0, sizeof(s->mcq_cfg));
    memset(s->sq, 0, sizeof(s->sq));
    memset(s->cq, 0, sizeof(s->cq));
    s->cq_events = 0;
    for (q = 0; q < UFSZ_MCQ_MAX_QUEUES; q++) {
        uint32_t opr = UFSZ_MCQ_OPR_BASE + q * UFSZ_MCQ_OPR_STRIDE;

        s->mcq_cfg[q].sqdao = opr + OPR_SQHP;
        s->mcq_cfg[q].sqisao = opr + OPR_SQIS;
        s->mcq_cfg[q].cqdao = opr + OPR_CQHP;
        s->mcq_cfg[q].cqisao = opr + OPR_CQIS;
        QTAILQ_INIT(&s->cq[q].waiting);
    }
    s->mcq_active = 0;
    s->mcq_fetching = false;
    s->mcq_fetch_again = false;
    s->nr_sq_marks = 0;
}
