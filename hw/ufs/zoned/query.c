/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ufs-zoned: QUERY REQUEST UPIUs (UFS 4.0 10.7.8): descriptors, flags and
 * attributes.  Descriptors are built on each read from the LUs present on
 * the SCSI bus; multi-byte fields are big-endian (UFS 4.0 14.1).
 * Read-only items refuse writes with NOT_WRITEABLE, write-only ones refuse
 * reads with NOT_READABLE, unknown IDNs get INVALID_IDN.
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/bswap.h"
#include "system/block-backend.h"
#include "hw/scsi/scsi-zbc.h"
#include "ufs-zoned-internal.h"
#include "trace.h"

#define UFSZ_DESC_DEVICE_LEN        0x59
#define UFSZ_DESC_CONFIG_LEN        0xe6
#define UFSZ_DESC_UNIT_LEN          0x2d
#define UFSZ_DESC_RPMB_UNIT_LEN     0x23
#define UFSZ_DESC_INTERCONNECT_LEN  0x06
#define UFSZ_DESC_GEOMETRY_LEN      0x57
#define UFSZ_DESC_POWER_LEN         0x62
#define UFSZ_DESC_HEALTH_LEN        0x25

/* String descriptor indexes named in the device descriptor */
enum {
    UFSZ_STR_MANUFACTURER,
    UFSZ_STR_PRODUCT,
    UFSZ_STR_SERIAL,
    UFSZ_STR_OEM,
    UFSZ_STR__MAX,
};

static const char *const ufsz_strings[UFSZ_STR__MAX] = {
    [UFSZ_STR_MANUFACTURER] = "QEMU",
    [UFSZ_STR_PRODUCT] = "QEMU UFS zoned",
    [UFSZ_STR_SERIAL] = "0123456789",
    [UFSZ_STR_OEM] = "qemu-zoned-reorder",
};

static unsigned ufs_zoned_nr_lus(UfsZonedState *s)
{
    BusChild *kid;
    unsigned n = 0;

    QTAILQ_FOREACH(kid, &s->bus.qbus.children, sibling) {
        n++;
    }
    return n;
}

static SCSIDevice *ufs_zoned_lu(UfsZonedState *s, uint8_t lun)
{
    SCSIDevice *dev = scsi_device_find(&s->bus, 0, 0, lun);

    return dev && dev->lun == lun ? dev : NULL;
}

/* Capacity of an LU in blocks of *block_size bytes. */
static uint64_t ufs_zoned_lu_blocks(SCSIDevice *dev, uint32_t *block_size)
{
    ZbcState *zbc = (ZbcState *)object_dynamic_cast(OBJECT(dev),
                                                    TYPE_SCSI_ZBC);
    int64_t bytes;

    if (zbc) {
        *block_size = zbc->block_size;
        return zbc->nr_blocks;
    }
    *block_size = dev->blocksize ? dev->blocksize : 512;
    if (!dev->conf.blk) {
        return 0;
    }
    bytes = blk_getlength(dev->conf.blk);
    return bytes > 0 ? bytes / *block_size : 0;
}

static uint16_t ufs_zoned_desc_device(UfsZonedState *s, uint8_t *d)
{
    d[0x00] = UFSZ_DESC_DEVICE_LEN;
    d[0x01] = UFS_QUERY_DESC_IDN_DEVICE;
    d[0x02] = 0;                        /* bDevice: device */
    d[0x03] = 0;                        /* bDeviceClass: mass storage */
    d[0x05] = 0;                        /* bProtocol: SCSI */
    d[0x06] = ufs_zoned_nr_lus(s);      /* bNumberLU */
    d[0x07] = 4;                        /* bNumberWLU */
    d[0x08] = 0;                        /* bBootEnable */
    d[0x09] = 1;                        /* bDescrAccessEn */
    d[0x0a] = 1;                        /* bInitPowerMode: active */
    d[0x0b] = 0x7f;                     /* bHighPriorityLUN: none */
    stw_be_p(&d[0x10], 0x0400);         /* wSpecVersion: UFS 4.0 */
    d[0x14] = UFSZ_STR_MANUFACTURER;
    d[0x15] = UFSZ_STR_PRODUCT;
    d[0x16] = UFSZ_STR_SERIAL;
    d[0x17] = UFSZ_STR_OEM;
    stw_be_p(&d[0x18], 0x1af4);         /* wManufacturerID */
    d[0x1a] = 0x10;                     /* bUD0BaseOffset */
    d[0x1b] = 0x1a;                     /* bUDConfigPLength */
    d[0x1c] = 2;                        /* bDeviceRTTCap */
    d[0x21] = s->mcq ? UFSZ_MCQ_MAC : UFSZ_NUTRS;    /* bQueueDepth */
    return UFSZ_DESC_DEVICE_LEN;
}

static uint16_t ufs_zoned_desc_geometry(UfsZonedState *s, uint8_t *d)
{
    uint64_t raw = 0;
    BusChild *kid;

    QTAILQ_FOREACH(kid, &s->bus.qbus.children, sibling) {
        uint32_t bs;
        uint64_t nb = ufs_zoned_lu_blocks(SCSI_DEVICE(kid->child), &bs);

        raw += nb * bs;
    }
    d[0x00] = UFSZ_DESC_GEOMETRY_LEN;
    d[0x01] = UFS_QUERY_DESC_IDN_GEOMETRY;
    stq_be_p(&d[0x04], raw >> UFS_GEOMETRY_CAPACITY_SHIFT);
    d[0x0c] = 1;                        /* bMaxNumberLU: 32 */
    stl_be_p(&d[0x0d], 8);              /* dSegmentSize: 4 KiB */
    d[0x11] = 1;                        /* bAllocationUnitSize */
    d[0x12] = 8;                        /* bMinAddrBlockSize: 4 KiB */
    d[0x15] = 8;                        /* bMaxInBufferSize */
    d[0x16] = 8;                        /* bMaxOutBufferSize */
    d[0x17] = 1;                        /* bRPMB_ReadWriteSize */
    stw_be_p(&d[0x1e], 0x8001);         /* wSupportedMemoryTypes */
    return UFSZ_DESC_GEOMETRY_LEN;
}

static uint16_t ufs_zoned_desc_unit(UfsZonedState *s, uint8_t index,
                                    uint8_t *d, uint8_t *resp)
{
    SCSIDevice *dev;
    uint32_t bs;
    uint64_t nb;

    if (index == UFS_UPIU_RPMB_WLUN) {
        /*
         * RPMB unit descriptor (UFS 4.0 14.1.5.7): Linux reads it while
         * adding the RPMB W-LU.  There is no RPMB storage: zero regions.
         */
        d[0x00] = UFSZ_DESC_RPMB_UNIT_LEN;
        d[0x01] = UFS_QUERY_DESC_IDN_UNIT;
        d[0x02] = index;
        d[0x03] = 1;                    /* bLUEnable */
        d[0x08] = 0x0f;                 /* bMemoryType: RPMB */
        d[0x0a] = 8;                    /* 256-byte RPMB frames */
        return UFSZ_DESC_RPMB_UNIT_LEN;
    }
    if (index >= UFSZ_MAX_LUS) {
        *resp = UFS_QUERY_RESULT_INVALID_INDEX;
        return 0;
    }
    d[0x00] = UFSZ_DESC_UNIT_LEN;
    d[0x01] = UFS_QUERY_DESC_IDN_UNIT;
    d[0x02] = index;
    dev = ufs_zoned_lu(s, index);
    if (!dev) {
        return UFSZ_DESC_UNIT_LEN;      /* bLUEnable = 0 */
    }
    nb = ufs_zoned_lu_blocks(dev, &bs);
    d[0x03] = 1;                        /* bLUEnable */
    d[0x06] = 0;                        /* bLUQueueDepth: shared */
    d[0x0a] = ctz32(bs);                /* bLogicalBlockSize */
    stq_be_p(&d[0x0b], nb);             /* qLogicalBlockCount */
    stl_be_p(&d[0x13], 1);              /* dEraseBlockSize */
    stq_be_p(&d[0x18], nb);             /* qPhyMemResourceCount */
    return UFSZ_DESC_UNIT_LEN;
}

static uint16_t ufs_zoned_desc_string(uint8_t index, uint8_t *d,
                                      uint8_t *resp)
{
    const char *str;
    size_t i, n;

    if (index >= UFSZ_STR__MAX) {
        *resp = UFS_QUERY_RESULT_INVALID_INDEX;
        return 0;
    }
    str = ufsz_strings[index];
    n = MIN(strlen(str), 126);
    d[0x00] = 2 + 2 * n;
    d[0x01] = UFS_QUERY_DESC_IDN_STRING;
    for (i = 0; i < n; i++) {
        stw_be_p(&d[2 + 2 * i], (uint8_t)str[i]);
    }
    return 2 + 2 * n;
}

static uint16_t ufs_zoned_read_desc(UfsZonedState *s, uint8_t idn,
                                    uint8_t index, uint8_t *d, uint8_t *resp)
{
    switch (idn) {
    case UFS_QUERY_DESC_IDN_DEVICE:
        return ufs_zoned_desc_device(s, d);
    case UFS_QUERY_DESC_IDN_CONFIGURATION:
        d[0x00] = UFSZ_DESC_CONFIG_LEN;
        d[0x01] = UFS_QUERY_DESC_IDN_CONFIGURATION;
        return UFSZ_DESC_CONFIG_LEN;
    case UFS_QUERY_DESC_IDN_UNIT:
        return ufs_zoned_desc_unit(s, index, d, resp);
    case UFS_QUERY_DESC_IDN_INTERCONNECT:
        d[0x00] = UFSZ_DESC_INTERCONNECT_LEN;
        d[0x01] = UFS_QUERY_DESC_IDN_INTERCONNECT;
        stw_be_p(&d[0x02], 0x0180);     /* UniPro 1.8 */
        stw_be_p(&d[0x04], 0x0500);     /* M-PHY 5.0 */
        return UFSZ_DESC_INTERCONNECT_LEN;
    case UFS_QUERY_DESC_IDN_STRING:
        return ufs_zoned_desc_string(index, d, resp);
    case UFS_QUERY_DESC_IDN_GEOMETRY:
        return ufs_zoned_desc_geometry(s, d);
    case UFS_QUERY_DESC_IDN_POWER:
        d[0x00] = UFSZ_DESC_POWER_LEN;
        d[0x01] = UFS_QUERY_DESC_IDN_POWER;
        return UFSZ_DESC_POWER_LEN;
    case UFS_QUERY_DESC_IDN_HEALTH:
        d[0x00] = UFSZ_DESC_HEALTH_LEN;
        d[0x01] = UFS_QUERY_DESC_IDN_HEALTH;
        d[0x02] = 1;                    /* bPreEOLInfo: normal */
        d[0x03] = 1;                    /* life time used 0-10% */
        d[0x04] = 1;
        return UFSZ_DESC_HEALTH_LEN;
    default:
        *resp = UFS_QUERY_RESULT_INVALID_IDN;
        return 0;
    }
}

/* Flags: returns a pointer to the writable ones, NULL for read-only. */
static bool *ufs_zoned_flag(UfsZonedState *s, uint8_t idn, bool *known)
{
    *known = idn < UFS_QUERY_FLAG_IDN_COUNT &&
             idn != 0 && idn != UFS_QUERY_FLAG_IDN_RESERVED3;
    switch (idn) {
    case UFS_QUERY_FLAG_IDN_FDEVICEINIT:
        return &s->fdeviceinit;
    case UFS_QUERY_FLAG_IDN_PWR_ON_WPE:
        return &s->fpoweronwpen;
    case UFS_QUERY_FLAG_IDN_BKOPS_EN:
        return &s->fbkopsen;
    default:
        return NULL;
    }
}

static uint8_t ufs_zoned_flag_op(UfsZonedState *s, uint8_t opcode,
                                 uint8_t idn, uint32_t *value)
{
    bool known;
    bool *flag = ufs_zoned_flag(s, idn, &known);

    if (!known) {
        return UFS_QUERY_RESULT_INVALID_IDN;
    }
    if (opcode != UFS_UPIU_QUERY_OPCODE_READ_FLAG) {
        if (!flag) {
            return UFS_QUERY_RESULT_NOT_WRITEABLE;
        }
        if (opcode == UFS_UPIU_QUERY_OPCODE_SET_FLAG) {
            *flag = true;
        } else if (opcode == UFS_UPIU_QUERY_OPCODE_CLEAR_FLAG) {
            *flag = false;
        } else {
            *flag = !*flag;
        }
        /* Device initialisation completes at once (UFS 4.0 7.1.3.3). */
        s->fdeviceinit = false;
    }
    *value = flag ? *flag : 0;
    return UFS_QUERY_RESULT_SUCCESS;
}

/* Attributes: read access, write access, and where the value lives */
static uint8_t ufs_zoned_attr_op(UfsZonedState *s, bool write, uint8_t idn,
                                 uint32_t *value)
{
    uint32_t v = *value;

    switch (idn) {
    case UFS_QUERY_ATTR_IDN_ACTIVE_ICC_LVL:
        if (write) {
            if (v > UFS_QUERY_ATTR_ACTIVE_ICC_MAXVALUE) {
                return UFS_QUERY_RESULT_INVALID_VALUE;
            }
            s->active_icc_level = v;
        }
        *value = s->active_icc_level;
        return UFS_QUERY_RESULT_SUCCESS;
    case UFS_QUERY_ATTR_IDN_MAX_NUM_OF_RTT:
        if (write) {
            if (v < 1 || v > 2) {
                return UFS_QUERY_RESULT_INVALID_VALUE;
            }
            s->max_num_rtt = v;
        }
        *value = s->max_num_rtt;
        return UFS_QUERY_RESULT_SUCCESS;
    case UFS_QUERY_ATTR_IDN_EE_CONTROL:
        if (write) {
            s->ee_control = v;
        }
        *value = s->ee_control;
        return UFS_QUERY_RESULT_SUCCESS;
    case UFS_QUERY_ATTR_IDN_SECONDS_PASSED:
    case 0x30:                          /* qTimestamp */
        if (!write) {
            return UFS_QUERY_RESULT_NOT_READABLE;
        }
        s->seconds_passed = v;
        return UFS_QUERY_RESULT_SUCCESS;
    case UFS_QUERY_ATTR_IDN_BOOT_LU_EN:
    case UFS_QUERY_ATTR_IDN_POWER_MODE:
    case UFS_QUERY_ATTR_IDN_BKOPS_STATUS:
    case UFS_QUERY_ATTR_IDN_PURGE_STATUS:
    case UFS_QUERY_ATTR_IDN_MAX_DATA_IN:
    case UFS_QUERY_ATTR_IDN_MAX_DATA_OUT:
    case UFS_QUERY_ATTR_IDN_REF_CLK_FREQ:
    case UFS_QUERY_ATTR_IDN_CONF_DESC_LOCK:
    case UFS_QUERY_ATTR_IDN_EE_STATUS:
    case UFS_QUERY_ATTR_IDN_FFU_STATUS:
    case UFS_QUERY_ATTR_IDN_REF_CLK_GATING_WAIT_TIME:
    case UFS_QUERY_ATTR_IDN_CASE_ROUGH_TEMP:
    case UFS_QUERY_ATTR_IDN_THROTTLING_STATUS:
        if (write) {
            return UFS_QUERY_RESULT_NOT_WRITEABLE;
        }
        switch (idn) {
        case UFS_QUERY_ATTR_IDN_POWER_MODE:
            *value = 0x11;              /* active */
            break;
        case UFS_QUERY_ATTR_IDN_MAX_DATA_IN:
        case UFS_QUERY_ATTR_IDN_MAX_DATA_OUT:
            *value = 8;
            break;
        case UFS_QUERY_ATTR_IDN_REF_CLK_GATING_WAIT_TIME:
            *value = 0xff;
            break;
        default:
            *value = 0;
        }
        return UFS_QUERY_RESULT_SUCCESS;
    default:
        return UFS_QUERY_RESULT_INVALID_IDN;
    }
}

void ufs_zoned_query(UfsZonedState *s, const UtpUpiuReq *req,
                     UtpUpiuRsp *rsp, uint16_t *data_len)
{
    const UtpUpiuQuery *q = &req->qr;
    uint8_t func = req->header.query_func;
    uint8_t resp = UFS_QUERY_RESULT_SUCCESS;
    uint32_t value = be32_to_cpu(q->value);
    uint16_t len = be16_to_cpu(q->length);
    bool is_write;

    rsp->qr.opcode = q->opcode;
    rsp->qr.idn = q->idn;
    rsp->qr.index = q->index;
    rsp->qr.selector = q->selector;
    *data_len = 0;

    switch (q->opcode) {
    case UFS_UPIU_QUERY_OPCODE_NOP:
        break;
    case UFS_UPIU_QUERY_OPCODE_READ_DESC: {
        uint8_t d[256] = { 0 };
        uint16_t n = ufs_zoned_read_desc(s, q->idn, q->index, d, &resp);

        if (resp == UFS_QUERY_RESULT_SUCCESS) {
            n = MIN(n, MIN(len, UFS_QUERY_DESC_MAX_SIZE));
            memcpy(rsp->qr.data, d, n);
            rsp->qr.length = cpu_to_be16(n);
            *data_len = n;
        }
        break;
    }
    case UFS_UPIU_QUERY_OPCODE_WRITE_DESC:
        resp = q->idn < UFS_QUERY_DESC_IDN_MAX ?
               UFS_QUERY_RESULT_NOT_WRITEABLE : UFS_QUERY_RESULT_INVALID_IDN;
        break;
    case UFS_UPIU_QUERY_OPCODE_READ_ATTR:
    case UFS_UPIU_QUERY_OPCODE_WRITE_ATTR:
        is_write = q->opcode == UFS_UPIU_QUERY_OPCODE_WRITE_ATTR;
        resp = ufs_zoned_attr_op(s, is_write, q->idn, &value);
        rsp->qr.value = cpu_to_be32(value);
        break;
    case UFS_UPIU_QUERY_OPCODE_READ_FLAG:
    case UFS_UPIU_QUERY_OPCODE_SET_FLAG:
    case UFS_UPIU_QUERY_OPCODE_CLEAR_FLAG:
    case UFS_UPIU_QUERY_OPCODE_TOGGLE_FLAG:
        value = 0;
        resp = ufs_zoned_flag_op(s, q->opcode, q->idn, &value);
        rsp->qr.value = cpu_to_be32(value);
        break;
    default:
        resp = UFS_QUERY_RESULT_INVALID_OPCODE;
        break;
    }
    if (resp != UFS_QUERY_RESULT_SUCCESS) {
        qemu_log_mask(LOG_GUEST_ERROR, "ufs-zoned: query func 0x%02x opcode "
                      "0x%02x idn 0x%02x index %u: response 0x%02x\n", func,
                      q->opcode, q->idn, q->index, resp);
        trace_ufs_zoned_err_query(q->opcode, q->idn, q->index, resp);
    } else {
        trace_ufs_zoned_query(q->opcode, q->idn, q->index, value);
    }
    rsp->header.response = resp;
}

void ufs_zoned_query_reset(UfsZonedState *s)
{
    s->fdeviceinit = false;
    s->fpoweronwpen = false;
    s->fbkopsen = false;
    s->active_icc_level = 0;
    s->ee_control = 0;
    s->max_num_rtt = 2;
    s->seconds_passed = 0;
}
