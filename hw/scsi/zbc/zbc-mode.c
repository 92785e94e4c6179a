/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * scsi-zbc: MODE SENSE(6/10) and MODE SELECT(6/10) (SPC-5 "Mode
 * parameters"; SBC-4 "Mode parameters" for the pages).
 *
 * Pages: Read-Write Error Recovery (01h), Caching (08h) whose WCE bit is
 * changeable, Control (0Ah), and "all pages" (3Fh).  Linux reads 3Fh for
 * the write-protect bit and 08h for the cache type (sd.c); it only writes
 * the Caching page, when the cache type is changed through sysfs.  Saved
 * values are not supported.
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "qemu/log.h"
#include "scsi/constants.h"
#include "system/block-backend.h"
#include "zbc-internal.h"
#include "trace.h"

#define MODE_PAGE_RW_ERROR_RECOVERY 0x01
#define MODE_PAGE_CACHING           0x08
#define MODE_PAGE_CONTROL           0x0a
#define MODE_PAGE_ALL               0x3f

#define MODE_PC_CURRENT             0
#define MODE_PC_CHANGEABLE          1
#define MODE_PC_DEFAULT             2
#define MODE_PC_SAVED               3

#define CACHING_WCE                 0x04

static const uint8_t zbc_mode_pages[] = {
    MODE_PAGE_RW_ERROR_RECOVERY, MODE_PAGE_CACHING, MODE_PAGE_CONTROL,
};

/*
 * Page @page for page control @pc into @p; returns its length (header
 * included), or 0 for a page we do not have.
 */
static size_t zbc_mode_page(ZbcState *s, uint8_t page, int pc, uint8_t *p)
{
    size_t len;

    switch (page) {
    case MODE_PAGE_RW_ERROR_RECOVERY:
        len = 12;
        break;
    case MODE_PAGE_CACHING:
        len = 20;
        if (pc == MODE_PC_CHANGEABLE) {
            p[2] = CACHING_WCE;
        } else if (pc == MODE_PC_DEFAULT) {
            p[2] = s->wce_default ? CACHING_WCE : 0;
        } else {
            p[2] = s->wce ? CACHING_WCE : 0;
        }
        break;
    case MODE_PAGE_CONTROL:
        len = 12;
        if (pc != MODE_PC_CHANGEABLE) {
            /* QUEUE ALGORITHM MODIFIER 1: unrestricted reordering allowed */
            p[3] = 0x10;
        }
        break;
    default:
        return 0;
    }
    p[0] = page;
    p[1] = len - 2;
    return len;
}

int32_t zbc_mode_sense_send(ZbcReq *r)
{
    ZbcState *s = zbc_state(r);
    uint8_t *cdb = r->req.cmd.buf;
    bool six = cdb[0] == MODE_SENSE;
    bool dbd = cdb[1] & 0x08;
    bool llbaa = !six && (cdb[1] & 0x10);
    int pc = cdb[2] >> 6;
    uint8_t page = cdb[2] & 0x3f, subpage = cdb[3];
    size_t hdr = six ? 4 : 8, len, n, i;
    uint8_t *buf;

    trace_zbc_mode_sense(r->req.tag, page, subpage, pc, dbd);
    if (pc == MODE_PC_SAVED) {
        zbc_check_condition(r, SENSE_CODE(SAVING_PARAMS_NOT_SUPPORTED),
                            "saved mode pages");
        return 0;
    }
    /* No subpages; 3Fh/FFh asks for all pages and subpages. */
    if (subpage && !(page == MODE_PAGE_ALL && subpage == 0xff)) {
        zbc_check_condition(r, SENSE_CODE(INVALID_FIELD),
                            "unsupported mode subpage");
        return 0;
    }

    buf = zbc_req_buf(r, 256);
    len = hdr;
    /* DEVICE-SPECIFIC PARAMETER: DPOFUA; never write protected. */
    buf[six ? 2 : 3] = 0x10;
    if (!dbd) {
        uint8_t *bd = &buf[len];
        bool current = pc != MODE_PC_CHANGEABLE;

        if (llbaa) {
            buf[4] = 0x01;                      /* LONGLBA */
            if (current) {
                stq_be_p(&bd[0], s->nr_blocks);
                stl_be_p(&bd[12], s->block_size);
            }
            len += 16;
        } else {
            if (current) {
                stl_be_p(&bd[0], MIN(s->nr_blocks, 0xffffffff));
                stl_be_p(&bd[4], s->block_size);    /* byte 4 reserved */
            }
            len += 8;
        }
        if (six) {
            buf[3] = len - hdr;
        } else {
            stw_be_p(&buf[6], len - hdr);
        }
    }
    if (page == MODE_PAGE_ALL) {
        for (i = 0; i < ARRAY_SIZE(zbc_mode_pages); i++) {
            len += zbc_mode_page(s, zbc_mode_pages[i], pc, &buf[len]);
        }
    } else {
        n = zbc_mode_page(s, page, pc, &buf[len]);
        if (!n) {
            zbc_check_condition(r, SENSE_CODE(INVALID_FIELD),
                                "unsupported mode page");
            return 0;
        }
        len += n;
    }
    /* MODE DATA LENGTH excludes itself. */
    if (six) {
        buf[0] = len - 1;
    } else {
        stw_be_p(&buf[0], len - 2);
    }
    return zbc_req_data_in(r, len);
}

int32_t zbc_mode_select_send(ZbcReq *r)
{
    uint8_t *cdb = r->req.cmd.buf;
    size_t len = r->req.cmd.xfer;

    trace_zbc_mode_select(r->req.tag, len);
    /* SPC-5: saving pages is not implemented; PF=0 pages are not either. */
    if (cdb[1] & 0x01) {
        zbc_check_condition(r, SENSE_CODE(INVALID_FIELD), "SP set");
        return 0;
    }
    if (len && !(cdb[1] & 0x10)) {
        zbc_check_condition(r, SENSE_CODE(INVALID_FIELD), "PF clear");
        return 0;
    }
    if (!len) {
        zbc_req_complete(r);
        return 0;
    }
    zbc_req_buf(r, len);
    r->len = len;
    r->phase = ZBC_PHASE_WANT_DATA_OUT;
    return -(int32_t)len;
}

/* Check one page of a MODE SELECT list; *wce receives its WCE bit. */
static bool zbc_mode_select_page(ZbcReq *r, const uint8_t *p, size_t avail,
                                 size_t *used, bool *wce)
{
    ZbcState *s = zbc_state(r);
    uint8_t cur[32] = { 0 }, mask[32] = { 0 };
    size_t len, i;

    if (avail < 2 || avail < 2 + (size_t)p[1]) {
        zbc_check_condition(r, SENSE_CODE(INVALID_PARAM_LEN),
                            "truncated mode page");
        return false;
    }
    len = zbc_mode_page(s, p[0] & 0x3f, MODE_PC_CURRENT, cur);
    zbc_mode_page(s, p[0] & 0x3f, MODE_PC_CHANGEABLE, mask);
    /* SPF (subpage format) set, unknown page, or a length of its own. */
    if ((p[0] & 0x40) || !len || p[1] != len - 2) {
        zbc_check_condition(r, SENSE_CODE(INVALID_PARAM),
                            "unsupported mode page or length");
        return false;
    }
    for (i = 2; i < len; i++) {
        if ((p[i] ^ cur[i]) & ~mask[i]) {
            zbc_check_condition(r, SENSE_CODE(INVALID_PARAM),
                                "mode parameter not changeable");
            return false;
        }
    }
    if ((p[0] & 0x3f) == MODE_PAGE_CACHING) {
        *wce = p[2] & CACHING_WCE;
    }
    *used = len;
    return true;
}

/*
 * The block descriptors of a MODE SELECT list: none, or one short (8
 * bytes) or, with LONGLBA in MODE SELECT(10), one long (16 bytes) block
 * descriptor giving our logical block size.  SPC-5 "Mode parameter list
 * format": a BLOCK DESCRIPTOR LENGTH that runs past the parameter list
 * is a PARAMETER LIST LENGTH ERROR; one that is not a whole number of
 * descriptors, or describes what we cannot do, is an INVALID FIELD IN
 * PARAMETER LIST.  The length is validated before any descriptor byte is
 * read.
 */
static bool zbc_mode_select_bd(ZbcReq *r, const uint8_t *p, size_t len,
                               size_t hdr, size_t bdlen)
{
    ZbcState *s = zbc_state(r);
    bool longlba = hdr == 8 && (p[4] & 0x01);
    size_t bdsize = longlba ? 16 : 8;
    uint32_t bl;

    if (bdlen > len - hdr) {
        qemu_log_mask(LOG_GUEST_ERROR, "scsi-zbc: MODE SELECT: block "
                      "descriptor length %zu beyond the %zu-byte list\n",
                      bdlen, len);
        zbc_check_condition(r, SENSE_CODE(INVALID_PARAM_LEN),
                            "truncated block descriptor");
        return false;
    }
    if (!bdlen) {
        return true;
    }
    if (bdlen != bdsize) {
        qemu_log_mask(LOG_GUEST_ERROR, "scsi-zbc: MODE SELECT: block "
                      "descriptor length %zu, expected %zu\n", bdlen, bdsize);
        zbc_check_condition(r, SENSE_CODE(INVALID_PARAM),
                            "block descriptor length");
        return false;
    }
    bl = longlba ? ldl_be_p(&p[hdr + 12]) : ldl_be_p(&p[hdr + 4]) & 0xffffff;
    if (bl != s->block_size) {
        zbc_check_condition(r, SENSE_CODE(INVALID_PARAM),
                            "block descriptor");
        return false;
    }
    return true;
}

void zbc_mode_select_data_out(ZbcReq *r)
{
    ZbcState *s = zbc_state(r);
    bool six = r->req.cmd.buf[0] == MODE_SELECT;
    size_t hdr = six ? 4 : 8, len = r->len, off, bdlen, used;
    const uint8_t *p = r->buf;
    bool wce = s->wce;

    if (len < hdr) {
        zbc_check_condition(r, SENSE_CODE(INVALID_PARAM_LEN),
                            "short mode parameter header");
        return;
    }
    /* MEDIUM TYPE is 0 for direct access. */
    if (p[six ? 1 : 2]) {
        zbc_check_condition(r, SENSE_CODE(INVALID_PARAM), "medium type");
        return;
    }
    bdlen = six ? p[3] : lduw_be_p(&p[6]);
    if (!zbc_mode_select_bd(r, p, len, hdr, bdlen)) {
        return;
    }
    for (off = hdr + bdlen; off < len; off += used) {
        if (!zbc_mode_select_page(r, &p[off], len - off, &used, &wce)) {
            return;
        }
    }
    if (wce != s->wce) {
        s->wce = wce;
        if (!s->null_backed) {
            blk_set_enable_write_cache(s->qdev.conf.blk, wce);
        }
    }
    zbc_req_complete(r);
}
