/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * scsi-zbc: INQUIRY, standard data and the vital product data pages
 * (SPC-5 "INQUIRY command", "Vital product data parameters"; SBC-4 "Block
 * Limits VPD page", "Block Device Characteristics VPD page"; ZBC-2 "Zoned
 * Block Device Characteristics VPD page").
 *
 * What Linux 6.12 needs (drivers/scsi/sd.c, sd_zbc.c): peripheral device
 * type 14h, VERSION >= 5 so it reads READ CAPACITY(16) first and the VPD
 * pages at all, page B6h listed in page 00h, URSWRZ = 1, and a zone
 * alignment method it knows (1, or 8 with a power-of-two starting LBA
 * granularity when there are gap zones).
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "qemu/hw-version.h"
#include "scsi/constants.h"
#include "system/block-backend.h"
#include "zbc-internal.h"
#include "trace.h"

#define ZBC_INQUIRY_VERSION_SPC5    0x07
#define ZBC_VPD_PAGE_LEN            0x3c    /* B0h, B1h and B6h */

/* VPD B6h ZONE ALIGNMENT METHOD (ZBC-2) */
#define ZBC_ZAM_CONSTANT_LENGTH     0x1
#define ZBC_ZAM_CONSTANT_OFFSET     0x8

static const uint8_t zbc_vpd_pages[] = { 0x00, 0x80, 0x83, 0xb0, 0xb1, 0xb6 };

/* Copy @src into @dst space-padded to @len bytes (SPC-5 ASCII fields). */
static void zbc_strpad(uint8_t *dst, const char *src, size_t len)
{
    size_t n = MIN(strlen(src), len);

    memset(dst, ' ', len);
    memcpy(dst, src, n);
}

static size_t zbc_inquiry_standard(ZbcState *s, uint8_t *buf)
{
    buf[0] = TYPE_ZBC;
    buf[2] = ZBC_INQUIRY_VERSION_SPC5;
    buf[3] = 0x10 | 0x02;       /* HISUP, RESPONSE DATA FORMAT 2 */
    buf[4] = 36 - 5;            /* ADDITIONAL LENGTH */
    buf[7] = 0x02;              /* CMDQUE: tagged commands */
    zbc_strpad(&buf[8], "QEMU", 8);
    zbc_strpad(&buf[16], "QEMU ZBC DISK", 16);
    zbc_strpad(&buf[32], qemu_hw_version(), 4);
    return 36;
}

/*
 * The VENDOR SPECIFIC IDENTIFIER of the 83h T10 vendor ID designator,
 * which names the LU (SPC-5 "T10 vendor ID based designator format"), so
 * it must differ between LUs: `serial`, else the device's id, else the
 * drive's name (as scsi-disk does), else the device's place in the
 * machine, qdev_get_dev_path() (for virtio-scsi the HBA's PCI address and
 * channel:target:lun), which is the same on every run of one
 * configuration.  A longer name keeps its end, the most specific part.
 */
char *zbc_lu_name(ZbcState *s)
{
    DeviceState *dev = DEVICE(s);
    const char *drive = s->null_backed ? "" : blk_name(s->qdev.conf.blk);
    g_autofree char *path = NULL;
    size_t len;

    if (s->serial) {
        return g_strdup(s->serial);
    }
    if (dev->id) {
        path = g_strdup(dev->id);
    } else if (*drive) {
        path = g_strdup(drive);
    } else {
        path = qdev_get_dev_path(dev) ?: object_get_canonical_path(OBJECT(s));
    }
    len = strlen(path);
    return g_strdup(path + (len > ZBC_LU_NAME_MAX ? len - ZBC_LU_NAME_MAX : 0));
}

/* 83h: a T10 vendor ID designator, and an NAA one when wwn is set. */
static size_t zbc_vpd_device_id(ZbcState *s, uint8_t *out)
{
    const char *id = s->lu_name;
    size_t idlen = strlen(id);
    uint8_t *d = out;

    d[0] = 0x02;                /* PROTOCOL IDENTIFIER 0, CODE SET ASCII */
    d[1] = 0x01;                /* ASSOCIATION LU, TYPE T10 vendor ID */
    d[3] = 8 + idlen;
    zbc_strpad(&d[4], "QEMU", 8);
    memcpy(&d[12], id, idlen);
    d += 12 + idlen;
    if (s->qdev.wwn) {
        d[0] = 0x01;            /* CODE SET binary */
        d[1] = 0x03;            /* ASSOCIATION LU, TYPE NAA */
        d[3] = 8;
        stq_be_p(&d[4], s->qdev.wwn);
        d += 12;
    }
    return d - out;
}

/* B6h: the zoned characteristics Linux checks (sd_zbc.c). */
static void zbc_vpd_zoned(ZbcState *s, uint8_t *p)
{
    p[4] = s->urswrz ? 0x01 : 0x00;     /* URSWRZ */
    /* Sequential write preferred zones: none, so "not reported". */
    stl_be_p(&p[8], 0xffffffff);
    stl_be_p(&p[12], 0xffffffff);
    /* MAXIMUM NUMBER OF OPEN SEQUENTIAL WRITE REQUIRED ZONES */
    stl_be_p(&p[16], s->max_open ?: 0xffffffff);
    if (s->zones.cfg.zone_cap < s->zones.cfg.zone_size) {
        /* Gap zones: zones start every zone-size blocks. */
        p[23] = ZBC_ZAM_CONSTANT_OFFSET;
        stq_be_p(&p[24], s->zones.cfg.zone_size);
    } else {
        p[23] = ZBC_ZAM_CONSTANT_LENGTH;
    }
}

/* Returns the page length in bytes (header included), or 0 if unknown. */
static size_t zbc_inquiry_vpd(ZbcState *s, uint8_t page, uint8_t *buf)
{
    size_t len, i;

    buf[0] = TYPE_ZBC;
    buf[1] = page;
    switch (page) {
    case 0x00:
        for (i = 0, len = 4; i < ARRAY_SIZE(zbc_vpd_pages); i++) {
            if (zbc_vpd_pages[i] != 0x80 || s->serial) {
                buf[len++] = zbc_vpd_pages[i];
            }
        }
        break;
    case 0x80:
        if (!s->serial) {
            return 0;
        }
        len = 4 + strlen(s->serial);
        memcpy(&buf[4], s->serial, len - 4);
        break;
    case 0x83:
        len = 4 + zbc_vpd_device_id(s, &buf[4]);
        break;
    case 0xb0:
        len = 4 + ZBC_VPD_PAGE_LEN;
        /* OPTIMAL TRANSFER LENGTH GRANULARITY: one physical block */
        stw_be_p(&buf[6], s->qdev.conf.physical_block_size / s->block_size);
        stl_be_p(&buf[8], s->max_xfer_blocks);  /* MAXIMUM TRANSFER LENGTH */
        break;
    case 0xb1:
        len = 4 + ZBC_VPD_PAGE_LEN;
        stw_be_p(&buf[4], 0x0001);  /* MEDIUM ROTATION RATE: non-rotating */
        break;
    case 0xb6:
        len = 4 + ZBC_VPD_PAGE_LEN;
        zbc_vpd_zoned(s, buf);
        break;
    default:
        return 0;
    }
    stw_be_p(&buf[2], len - 4);
    return len;
}

int32_t zbc_inquiry_send(ZbcReq *r)
{
    ZbcState *s = zbc_state(r);
    uint8_t *cdb = r->req.cmd.buf;
    bool evpd = cdb[1] & 0x01;
    uint8_t *buf = zbc_req_buf(r, 256);
    size_t len;

    trace_zbc_inquiry(r->req.tag, evpd, cdb[2]);
    if (!evpd) {
        /* SPC-5: PAGE CODE must be zero when EVPD is zero. */
        if (cdb[2]) {
            zbc_check_condition(r, SENSE_CODE(INVALID_FIELD),
                                "page code without EVPD");
            return 0;
        }
        len = zbc_inquiry_standard(s, buf);
    } else {
        len = zbc_inquiry_vpd(s, cdb[2], buf);
        if (!len) {
            zbc_check_condition(r, SENSE_CODE(INVALID_FIELD),
                                "unsupported VPD page");
            return 0;
        }
    }
    return zbc_req_data_in(r, len);
}
