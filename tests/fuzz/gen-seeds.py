#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Write the seed corpus of our generic-fuzz targets (tests/fuzz/seeds/).

Each seed is a generic-fuzz input (QEMU's tests/qtest/fuzz/generic_fuzz.c):
operations separated by "FUZZ", the first byte of each the opcode (mod 10),
then the operation's packed C struct.  MMIO operations name a fuzzable
MemoryRegion by index and an offset into it; DMA patterns answer the
device's DMA reads in order, one pattern per read, round-robin.  The seeds
bring a device up the way a driver does and issue one command each, so
libFuzzer starts from inputs that get past the bring-up and through the
DMA of descriptors, UPIUs, PRDTs and data.

    tests/fuzz/gen-seeds.py [OUTDIR]     (default: tests/fuzz/seeds)

The output is deterministic; re-run it after changing it and commit the
seeds it writes.
"""

import os
import struct
import sys

SEP = b"FUZZ"
OP_IN, OP_OUT, OP_READ, OP_WRITE, OP_PCI_READ, OP_PCI_WRITE, \
    OP_DISABLE_PCI, OP_ADD_DMA_PATTERN, OP_CLEAR_DMA_PATTERNS, \
    OP_CLOCK_STEP = range(10)
SZ_B, SZ_W, SZ_L, SZ_Q = range(4)


def wr(off, val, size=SZ_L, base=0):
    # struct { uint8_t size, base; uint32_t offset; uint64_t value; }
    return bytes([OP_WRITE]) + struct.pack("<BBxxIQ", size, base, off, val)


def rd(off, size=SZ_L, base=0):
    # struct { uint8_t size, base; uint32_t offset; }
    return bytes([OP_READ]) + struct.pack("<BBxxI", size, base, off)


def dma(data, index=0, stride=0):
    # struct { uint8_t index, stride; } + pattern bytes
    return bytes([OP_ADD_DMA_PATTERN]) + struct.pack("<BB", index, stride) + data


def clear():
    return bytes([OP_CLEAR_DMA_PATTERNS])


def step(n=1):
    return [bytes([OP_CLOCK_STEP])] * n


def seed(*ops):
    flat = []

    def add(o):
        if isinstance(o, list):
            for x in o:
                add(x)
        else:
            flat.append(o)
    add(list(ops))
    out = SEP.join(flat)
    assert out.count(SEP) == len(flat) - 1, "an operation contains FUZZ"
    return out


# --- ufs-zoned (UFSHCI 4.0 register map, section 5) -------------------------
HCE, IS, IE, AHIT, HCS = 0x34, 0x20, 0x24, 0x18, 0x30
UTRLBA, UTRLBAU, UTRLDBR, UTRLCLR, UTRLRSR = 0x50, 0x54, 0x58, 0x5c, 0x60
UTMRLBA, UTMRLBAU, UTMRLDBR, UTMRLRSR = 0x70, 0x74, 0x78, 0x80
UICCMD, UCMDARG1, UCMDARG2, UCMDARG3 = 0x90, 0x94, 0x98, 0x9c
MEM_CFG, MCQCONFIG = 0x300, 0x380
QCFG, QCFG_STRIDE = 0x400, 0x40             # SQATTR.. per queue
OPR, OPR_STRIDE = 0x1000, 0x30              # SQHP.. per queue
SQATTR, SQLBA, SQUBA, CQATTR, CQLBA, CQUBA = 0x0, 0x4, 0x8, 0x20, 0x24, 0x28
SQTP, SQRTC, SQIE, CQHP, CQTP, CQIS, CQIE = 0x4, 0x8, 0x18, 0x1c, 0x20, 0x24, 0x28
SQCTI, SQRTS = 0xc, 0x10

# Where libqos maps the controller's BAR0 (the first MMIO BAR in q35's PCI
# hole), as generic-fuzz does before each input
BAR0 = 0xe0000000

# Guest-physical layout of the seeds' tables (inside -m 32M)
UTRL, UTMRL, SQ, CQ = 0x100000, 0x101000, 0x102000, 0x103000
UCD, DATA = 0x110000, 0x120000
RSP_OFF, PRDT_OFF = 0x200, 0x400


def ufs_bringup(ah8=False):
    ops = [wr(HCE, 1), rd(HCS), wr(IE, 0x1f7fff),
           wr(UICCMD, 0x16)] + step() + [   # DME_LINK_STARTUP
           rd(IS), wr(IS, 0xffffffff),
           wr(UTRLBA, UTRL), wr(UTRLBAU, 0), wr(UTMRLBA, UTMRL),
           wr(UTMRLBAU, 0), wr(UTRLRSR, 1), wr(UTMRLRSR, 1)]
    if ah8:
        ops.append(wr(AHIT, (3 << 10) | 1))  # 1 ms idle timer
    return ops


def utrd(dd, prdt_len=1, ucd=None, rsp_off=RSP_OFF):
    # UTRD: DW0 command type 1 (UFS storage), data direction, interrupt;
    # DW2 OCS = INVALID (the controller overwrites it); UCD base;
    # response UPIU length/offset and PRDT length/offset (dwords, entries)
    dw0 = (1 << 28) | (dd << 25) | (1 << 24)
    ucd = UCD if ucd is None else ucd
    return struct.pack("<IIIIIIHHHH", dw0, 0, 0xf, 0, ucd & 0xffffffff,
                       ucd >> 32, 0x80 // 4, (rsp_off // 4) & 0xffff,
                       prdt_len, PRDT_OFF // 4)


def upiu_cmd(cdb, flags, xfer, tag=0, lun=0):
    hdr = struct.pack(">BBBBBBBBBBH", 0x01, flags, lun, tag, 0, 0, 0, 0, 0, 0, 0)
    return hdr + struct.pack(">I", xfer) + cdb.ljust(16, b"\0")


def upiu_query(func, opcode, idn, index=0, sel=0, length=0, value=0, tag=0):
    hdr = struct.pack(">BBBBBBBBBBH", 0x16, 0, 0, tag, 0, func, 0, 0, 0, 0, 0)
    return hdr + struct.pack(">BBBBxHIxx", opcode, idn, index, sel, length, value)


def upiu_nop(tag=0):
    return struct.pack(">BBBBBBBBBBH", 0x00, 0, 0, tag, 0, 0, 0, 0, 0, 0, 0) + \
        bytes(20)


def prdt(length):
    # DBC is a byte count minus one with bits 1:0 set (UFSHCI 4.0 6.1.2):
    # the buffer is rounded up to whole dwords, EDTL stays as the CDB has it
    return struct.pack("<IIII", DATA, 0, 0, ((length + 3) & ~3) - 1)


def utmrd(func, lun=0, task_tag=0):
    # UTMRD: header (interrupt, OCS = INVALID), TASK MANAGEMENT REQUEST
    # UPIU (its own task tag 1; function; input parameters LUN and task
    # tag of the command it is about), room for the response UPIU
    hdr = struct.pack("<IIII", 1 << 24, 0, 0xf, 0)
    req = struct.pack(">BBBBBBBBBBH", 0x04, 0, lun, 1, 0, func, 0, 0, 0, 0, 0) + \
        struct.pack(">III", lun, task_tag, 0) + bytes(8)
    return hdr + req + bytes(32)


# task management functions (UFS 4.0 10.7.6)
TM_ABORT_TASK, TM_LU_RESET, TM_QUERY_TASK = 0x01, 0x08, 0x80

# SCSI CDBs shared by the UFS and the virtio-scsi seeds
_be = lambda n, w: n.to_bytes(w, "big")
ZONE2 = 2048                                # the second sequential zone
CDB_ZONE_OPEN = b"\x94\x03" + _be(ZONE2, 8) + bytes(6)
CDB_ZONE_CLOSE = b"\x94\x01" + _be(ZONE2, 8) + bytes(6)
CDB_ZONE_FINISH = b"\x94\x02" + _be(ZONE2, 8) + bytes(6)
CDB_ZONE_CLOSE_ALL = b"\x94\x01" + bytes(12) + b"\x01\x00"
CDB_ZONE_FINISH_ALL = b"\x94\x02" + bytes(12) + b"\x01\x00"
CDB_ZONE_RESET_ALL = b"\x94\x04" + bytes(12) + b"\x01\x00"
CDB_MODE_SENSE6 = b"\x1a\x00\x3f\x00\xff\x00"
CDB_RC10 = b"\x25" + bytes(9)
# REPORT SUPPORTED OPERATION CODES (MAINTENANCE IN, service action 0Ch):
# all commands with timeouts descriptors (RCTD); one opcode (WRITE(16));
# one opcode and service action (ZBC OUT FINISH ZONE)
CDB_RSOC_ALL = b"\xa3\x0c\x80\x00\x00\x00" + _be(512, 4) + b"\0\0"
CDB_RSOC_ONE = b"\xa3\x0c\x01\x8a\x00\x00" + _be(64, 4) + b"\0\0"
CDB_RSOC_SA = b"\xa3\x0c\x02\x94\x00\x02" + _be(64, 4) + b"\0\0"
# MODE SELECT(10), PF: header with a short block descriptor of our block
# size, then the Caching page with WCE cleared (its one changeable bit)
MODE_SELECT_LIST = bytes(6) + _be(8, 2) + _be(0, 4) + _be(4096, 4) + \
    b"\x08\x12\x00" + bytes(17)
CDB_MODE_SELECT10 = b"\x55\x10" + bytes(5) + _be(len(MODE_SELECT_LIST), 2) + b"\0"

# Multi-command seeds for the zone management that depends on a zone's
# condition: FINISH of an empty zone, CLOSE and FINISH of an open one (the
# second sequential zone; the write seeds use the first).  Zone conditions
# are the medium's and survive the machine reset between inputs, so each
# starts with RESET WRITE POINTER with ALL, twice: the first command after
# power-on gets UNIT ATTENTION.
ZONE_SEQUENCES = [(name, [CDB_ZONE_RESET_ALL] * 2 + cdbs) for name, cdbs in [
    ("zbc-out-finish", [CDB_ZONE_FINISH]),
    ("zbc-out-open-close", [CDB_ZONE_OPEN, CDB_ZONE_CLOSE]),
    ("zbc-out-open-close-all", [CDB_ZONE_OPEN, CDB_ZONE_CLOSE_ALL]),
    ("zbc-out-open-finish-all", [CDB_ZONE_OPEN, CDB_ZONE_FINISH_ALL]),
]]


# (name, UPIU, data direction 0 none / 1 write / 2 read, data length)
def ufs_commands():
    lba = lambda n, w: n.to_bytes(w, "big")
    c = []
    c.append(("nop", upiu_nop(), 0, 0))
    c.append(("tur", upiu_cmd(b"\x00" * 6, 0, 0), 0, 0))
    c.append(("inquiry", upiu_cmd(b"\x12\x00\x00\x00\x60\x00", 0x40, 96), 2, 96))
    c.append(("inquiry-vpd-b6", upiu_cmd(b"\x12\x01\xb6\x00\x40\x00", 0x40, 64), 2, 64))
    c.append(("rc16", upiu_cmd(b"\x9e\x10" + bytes(8) + lba(32, 4) + b"\0\0", 0x40, 32), 2, 32))
    c.append(("report-zones", upiu_cmd(b"\x95\x00" + lba(0, 8) + lba(4096, 4) + b"\0\0", 0x40, 4096), 2, 4096))
    c.append(("report-luns", upiu_cmd(b"\xa0\x00\x00" + bytes(3) + lba(256, 4) + b"\0\0", 0x40, 256), 2, 256))
    c.append(("mode-sense10", upiu_cmd(b"\x5a\x00\x3f\x00\x00\x00\x00\x00\xff\x00", 0x40, 255), 2, 255))
    c.append(("request-sense", upiu_cmd(b"\x03\x00\x00\x00\x12\x00", 0x40, 18), 2, 18))
    # writes: the conventional zone (LBA 0) and the first sequential zone's
    # write pointer (4 MiB zones of 4 KiB blocks: LBA 1024)
    c.append(("write10-conv", upiu_cmd(b"\x2a\x00" + lba(0, 4) + b"\x00" + lba(1, 2) + b"\0", 0x20, 4096), 1, 4096))
    c.append(("write16-seq", upiu_cmd(b"\x8a\x00" + lba(1024, 8) + lba(1, 4) + b"\0\0", 0x20, 4096), 1, 4096))
    c.append(("read10", upiu_cmd(b"\x28\x00" + lba(1024, 4) + b"\x00" + lba(1, 2) + b"\0", 0x40, 4096), 2, 4096))
    c.append(("zbc-out-open", upiu_cmd(b"\x94\x03" + lba(2048, 8) + bytes(4) + b"\0\0", 0, 0), 0, 0))
    c.append(("zbc-out-reset-all", upiu_cmd(CDB_ZONE_RESET_ALL, 0, 0), 0, 0))
    c.append(("sync-cache", upiu_cmd(b"\x35" + bytes(9), 0, 0), 0, 0))
    c.append(("query-read-desc", upiu_query(0x01, 0x01, 0x00, length=0x59), 0, 0))
    c.append(("query-read-attr", upiu_query(0x01, 0x03, 0x00), 0, 0))
    c.append(("query-set-flag", upiu_query(0x81, 0x06, 0x01), 0, 0))
    c.append(("query-read-unit-desc", upiu_query(0x01, 0x01, 0x02, index=0, length=0x2d), 0, 0))
    c.append(("mode-sense6", upiu_cmd(CDB_MODE_SENSE6, 0x40, 255), 2, 255))
    c.append(("mode-select10", upiu_cmd(CDB_MODE_SELECT10, 0x20, len(MODE_SELECT_LIST)), 1,
              len(MODE_SELECT_LIST)))
    c.append(("rc10", upiu_cmd(CDB_RC10, 0x40, 8), 2, 8))
    c.append(("rsoc-all", upiu_cmd(CDB_RSOC_ALL, 0x40, 512), 2, 512))
    c.append(("rsoc-one", upiu_cmd(CDB_RSOC_ONE, 0x40, 64), 2, 64))
    c.append(("rsoc-sa", upiu_cmd(CDB_RSOC_SA, 0x40, 64), 2, 64))
    # well-known LUs, which the controller answers itself: REPORT LUNS to
    # the REPORT LUNS W-LU; REQUEST SENSE, INQUIRY and START STOP UNIT
    # (power condition ACTIVE, as Linux sends it) to the UFS Device W-LU
    c.append(("wlun-report-luns", upiu_cmd(b"\xa0\x00\x00" + bytes(3) + lba(256, 4) + b"\0\0",
                                           0x40, 256, lun=0x81), 2, 256))
    c.append(("wlun-request-sense", upiu_cmd(b"\x03\x00\x00\x00\x12\x00", 0x40, 18, lun=0xd0), 2, 18))
    c.append(("wlun-inquiry", upiu_cmd(b"\x12\x00\x00\x00\x24\x00", 0x40, 36, lun=0xd0), 2, 36))
    c.append(("wlun-start-stop", upiu_cmd(b"\x1b\x00\x00\x00\x10\x00", 0, 0, lun=0xd0), 0, 0))
    return c


# data-out of the commands that send a parameter list, not blocks
DATA_OUT = {"mode-select10": MODE_SELECT_LIST}


def ufs_cmd_patterns(upiu, dd, length, out=None):
    # DMA reads, in order: UTRD, request UPIU, PRDT, then data-out
    pats = [clear(), dma(utrd(dd, 1 if length else 0)), dma(upiu)]
    if length:
        pats.append(dma(prdt(length)))
    if dd == 1:
        pats.append(dma(out) if out else dma(bytes(range(1, 65)), 0, 1))
    return pats


# Task management about a command in flight: a READ(10) that waits for
# its service time (no clock_step yet) when the UTMRD is rung.  ABORT TASK
# and LOGICAL UNIT RESET abort it, QUERY TASK finds it (FUNCTION
# SUCCEEDED); the host then clears the aborted command (UTRLCLR, or an SQ
# cleanup in MCQ mode) or lets the queried one complete.
TM_BUSY = [("tm-abort-task", TM_ABORT_TASK), ("tm-query-task", TM_QUERY_TASK),
           ("tm-lu-reset-busy", TM_LU_RESET)]


def tm_patterns(func):
    return [clear(), dma(utmrd(func)), wr(UTMRLDBR, 1), step(), rd(UTMRLDBR),
            rd(IS)]


def legacy_ring(upiu, dd, length, out=None):
    return [ufs_cmd_patterns(upiu, dd, length, out), wr(UTRLDBR, 1), step(3),
            rd(UTRLDBR), rd(IS), wr(IS, 0xffffffff)]


def ufs_legacy_seeds(ah8=False):
    seeds = {}
    for name, upiu, dd, length in ufs_commands():
        # twice: the first command after power-on gets UNIT ATTENTION
        ring = legacy_ring(upiu, dd, length, DATA_OUT.get(name))
        seeds[name] = seed(ufs_bringup(ah8), ring, ring)
    for name, cdbs in ZONE_SEQUENCES:
        seeds[name] = seed(ufs_bringup(ah8), [legacy_ring(upiu_cmd(cdb, 0, 0), 0, 0)
                                              for cdb in cdbs])
    # two slots rung together, to reach the reorder policy
    name, upiu, dd, length = ufs_commands()[10]
    seeds["two-slots"] = seed(ufs_bringup(ah8), ufs_cmd_patterns(upiu, dd, length),
                              wr(UTRLDBR, 3), step(4), rd(UTRLDBR))
    # UTRLCLR of a rung slot, then a host controller reset
    seeds["clear-then-hce0"] = seed(ufs_bringup(ah8), ufs_cmd_patterns(upiu, dd, length),
                                    wr(UTRLDBR, 1), wr(UTRLCLR, 0xfffffffe),
                                    step(), wr(HCE, 0), rd(HCE))
    # task management: LOGICAL UNIT RESET of an idle LU
    seeds["tm-lu-reset"] = seed(ufs_bringup(ah8), clear(),
                                dma(utmrd(TM_LU_RESET)),
                                wr(UTMRLDBR, 1), step(2), rd(UTMRLDBR), rd(IS))
    # task management about a command in flight (TM_BUSY).  With
    # auto-hibernate the link is in H8 when the READ is rung: one
    # clock_step for the exit latency, after which it is fetched and started
    name, upiu, dd, length = ufs_commands()[11]
    for tname, func in TM_BUSY:
        after = [step(3)] if func == TM_QUERY_TASK else \
            [wr(UTRLCLR, 0xfffffffe), step()]
        seeds[tname] = seed(ufs_bringup(ah8), legacy_ring(upiu, dd, length),
                            ufs_cmd_patterns(upiu, dd, length), wr(UTRLDBR, 1),
                            step() if ah8 else [], tm_patterns(func), after,
                            rd(UTRLDBR), rd(IS))
    # UIC commands Linux sends at bring-up: DME_GET / DME_SET
    seeds["uic-dme"] = seed(wr(HCE, 1), wr(UCMDARG1, 0x15680000),
                            wr(UICCMD, 0x01), rd(UCMDARG2), rd(UCMDARG3),
                            wr(UCMDARG1, 0xd0410000), wr(UCMDARG3, 1),
                            wr(UICCMD, 0x02), rd(IS), wr(UICCMD, 0x17),
                            wr(UICCMD, 0x18), step())
    # DMA aimed at the controller's own BAR0 (UFSHCI registers), which a
    # guest may do and the device must survive (issue 9, section 1):
    # the transfer request list, the command descriptor, the PRDT's data
    # buffer and the response UPIU inside BAR0
    w = ufs_commands()[10]
    r = ufs_commands()[11]
    seeds["bad-utrl-in-bar0"] = seed(ufs_bringup(ah8), wr(UTRLBA, BAR0 + 0x40),
                                     wr(UTRLDBR, 1), step(2), rd(IS))
    seeds["bad-ucd-in-bar0"] = seed(ufs_bringup(ah8), clear(),
                                    dma(utrd(2, 1, ucd=BAR0)), wr(UTRLDBR, 1),
                                    step(2), rd(IS))
    for tag, (name, upiu, dd, length) in (("write", w), ("read", r)):
        seeds["bad-prdt-in-bar0-" + tag] = seed(
            ufs_bringup(ah8), clear(), dma(utrd(dd, 1)), dma(upiu),
            dma(struct.pack("<IIII", BAR0 + UTRLDBR, 0, 0, length - 1)),
            wr(UTRLDBR, 1), step(3), wr(UTRLDBR, 1), step(3), rd(IS))
    seeds["bad-rsp-in-bar0"] = seed(ufs_bringup(ah8), clear(),
                                    dma(utrd(0, 0, ucd=BAR0 - 0x1000,
                                             rsp_off=0x1000 + UTRLDBR)),
                                    dma(upiu_nop()), wr(UTRLDBR, 1), step(2))
    if ah8:
        seeds["ah8-idle-then-ring"] = seed(ufs_bringup(True), step(3),
                                           ufs_cmd_patterns(upiu, dd, length),
                                           wr(UTRLDBR, 1), step(4), rd(IS))
    return seeds


def mcq_queue(q, entries=8):
    qc, size = QCFG + q * QCFG_STRIDE, entries * 8 - 1
    sq, cq = SQ + q * 0x2000, CQ + q * 0x2000
    return [wr(qc + CQLBA, cq), wr(qc + CQUBA, 0),
            wr(qc + CQATTR, (1 << 31) | size),
            wr(qc + SQLBA, sq), wr(qc + SQUBA, 0),
            wr(qc + SQATTR, (1 << 31) | (q << 16) | size),
            wr(OPR + q * OPR_STRIDE + CQIE, 1)]


def mcq_ring(n, upiu, dd, length, out=None):
    # the n-th entry of SQ 0, and its CQE consumed
    return [ufs_cmd_patterns(upiu, dd, length, out), wr(OPR + SQTP, 32 * n),
            step(3), rd(OPR + CQTP), wr(OPR + CQHP, 32 * n), rd(OPR + CQIS),
            wr(OPR + CQIS, 1), rd(IS)]


def ufs_mcq_seeds():
    seeds = {}
    up = ufs_bringup() + [wr(MEM_CFG, 1), wr(MCQCONFIG, 0x1f)] + mcq_queue(0)
    for name, upiu, dd, length in ufs_commands():
        out = DATA_OUT.get(name)
        seeds[name] = seed(up, mcq_ring(1, upiu, dd, length, out),
                           mcq_ring(2, upiu, dd, length, out))
    for name, cdbs in ZONE_SEQUENCES:
        seeds[name] = seed(up, [mcq_ring(n, upiu_cmd(cdb, 0, 0), 0, 0)
                                for n, cdb in enumerate(cdbs, 1)])
    # task management about a command in flight (TM_BUSY); an aborted
    # command leaves by an SQ cleanup (UFSHCI 4.0 5.5): stop SQ 0, name
    # LUN 0 / task tag 0 in SQCTI, initiate the cleanup, whose CQE has OCS
    # ABORTED, and restart the SQ
    name, upiu, dd, length = ufs_commands()[11]
    for tname, func in TM_BUSY:
        after = [step(3)] if func == TM_QUERY_TASK else \
            [wr(OPR + SQRTC, 1), wr(OPR + SQCTI, 0), wr(OPR + SQRTC, 3),
             step(), rd(OPR + SQRTS), wr(OPR + SQRTC, 0)]
        seeds[tname] = seed(up, mcq_ring(1, upiu, dd, length),
                            ufs_cmd_patterns(upiu, dd, length),
                            wr(OPR + SQTP, 64), tm_patterns(func), after,
                            rd(OPR + CQTP), rd(IS))
    name, upiu, dd, length = ufs_commands()[10]
    seeds["two-queues"] = seed(up, mcq_queue(1), ufs_cmd_patterns(upiu, dd, length),
                               wr(OPR + SQTP, 64), wr(OPR + OPR_STRIDE + SQTP, 32),
                               step(4), rd(OPR + CQTP), rd(OPR + OPR_STRIDE + CQTP))
    seeds["sq-stop-cleanup"] = seed(up, ufs_cmd_patterns(upiu, dd, length),
                                    wr(OPR + SQTP, 32), wr(OPR + SQRTC, 1),
                                    rd(OPR + 0x10), wr(OPR + SQRTC, 3), step(),
                                    rd(OPR + 0x10), wr(OPR + SQRTC, 0), step())
    # queues inside BAR0: CQEs posted over the queue registers, SQ entries
    # fetched from them (issue 9, section 1)
    seeds["bad-cq-in-bar0"] = seed(
        ufs_bringup(), wr(MEM_CFG, 1), wr(QCFG + CQLBA, BAR0 + OPR),
        wr(QCFG + CQUBA, 0), wr(QCFG + CQATTR, (1 << 31) | 63),
        wr(QCFG + SQLBA, SQ), wr(QCFG + SQUBA, 0),
        wr(QCFG + SQATTR, (1 << 31) | 63), wr(OPR + CQIE, 1),
        ufs_cmd_patterns(upiu_nop(), 0, 0), wr(OPR + SQTP, 32), step(3),
        rd(OPR + CQTP))
    # a timed command whose CQE lands on IS/IE/HCS/HCE: the completion
    # comes from the service timer, outside any MMIO access
    seeds["bad-cq-over-hce"] = seed(
        ufs_bringup(), wr(MEM_CFG, 1), wr(QCFG + CQLBA, BAR0 + 0x20),
        wr(QCFG + CQUBA, 0), wr(QCFG + CQATTR, (1 << 31) | 63),
        wr(QCFG + SQLBA, SQ), wr(QCFG + SQUBA, 0),
        wr(QCFG + SQATTR, (1 << 31) | 63),
        ufs_cmd_patterns(upiu_cmd(b"\x00" * 6, 0, 0), 0, 0),
        wr(OPR + SQTP, 32), step(3))
    seeds["bad-sq-in-bar0"] = seed(
        ufs_bringup(), wr(MEM_CFG, 1), wr(QCFG + CQLBA, CQ),
        wr(QCFG + CQUBA, 0), wr(QCFG + CQATTR, (1 << 31) | 63),
        wr(QCFG + SQLBA, BAR0 + QCFG), wr(QCFG + SQUBA, 0),
        wr(QCFG + SQATTR, (1 << 31) | 63), wr(OPR + SQTP, 64), step(3))
    seeds["bad-prdt-in-bar0"] = seed(
        up, clear(), dma(utrd(1, 1)), dma(upiu_cmd(
            b"\x2a\x00" + bytes(4) + b"\x00\x00\x01\x00", 0x20, 4096)),
        dma(struct.pack("<IIII", BAR0 + OPR + SQTP, 0, 0, 4095)),
        wr(OPR + SQTP, 32), step(3), rd(OPR + CQTP))
    seeds["queue-reconfig"] = seed(up, wr(QCFG + SQATTR, 0), wr(QCFG + CQATTR, 0),
                                   mcq_queue(0, 4), wr(MEM_CFG, 0), wr(MEM_CFG, 1),
                                   ufs_cmd_patterns(upiu, dd, length),
                                   wr(OPR + SQTP, 32), step(2), wr(HCE, 0))
    return seeds


# --- virtio-scsi-pci (virtio 1.x modern PCI transport) ----------------------
# generic-fuzz maps the BARs in order and counts the matched MemoryRegions
# in address order: msix-table (0), msix-pba (1), then BAR4's common (2),
# isr (3), device (4) and notify (5) regions.
VQ_COMMON, VQ_NOTIFY = 2, 5
DESC, AVAIL, USED = 0x100000, 0x101000, 0x102000
REQ, RESP, VDATA = 0x110000, 0x111000, 0x120000


def virtio_bringup(queue=2):
    c = lambda off, val, size=SZ_L: wr(off, val, size, VQ_COMMON)
    return [c(0x14, 0, SZ_B),                  # device_status = reset
            c(0x14, 1, SZ_B), c(0x14, 3, SZ_B),  # ACKNOWLEDGE | DRIVER
            c(0x00, 0), rd(0x04, SZ_L, VQ_COMMON),
            c(0x08, 1), c(0x0c, 1),            # driver features: VERSION_1
            c(0x14, 0xb, SZ_B),                # FEATURES_OK
            c(0x16, queue, SZ_W),              # queue_select (request queue)
            c(0x18, 8, SZ_W),                  # queue_size
            c(0x20, DESC), c(0x24, 0), c(0x28, AVAIL), c(0x2c, 0),
            c(0x30, USED), c(0x34, 0),
            c(0x1c, 1, SZ_W),                  # queue_enable
            # DRIVER_OK starts the host notifiers and virtio-scsi looks at
            # the ring at once: let it find avail idx 0, not the requests
            # an earlier input left in RAM (which would be popped, and the
            # queue's last_avail_idx moved past this input's requests)
            clear(), dma(b"\0\0"),
            c(0x14, 0xf, SZ_B)]                # DRIVER_OK


def virtio_request(n, cdb, length, dd, out=None):
    # The n-th request (tag n): descriptors req (out), resp (in), data;
    # the request header carries the CDB (virtio-scsi 5.6.6).  The lun
    # field: 1, target 0, lun 0 (single-level LUN format).
    req = b"\x01\x00\x40\x00" + bytes(4) + struct.pack("<QBBB", n, 0, 0, 0) + \
        cdb.ljust(32, b"\0")
    descs = struct.pack("<QIHH", REQ, len(req), 1, 1)       # NEXT
    if length and dd == 1:
        descs += struct.pack("<QIHH", VDATA, length, 1, 2)
        descs += struct.pack("<QIHH", RESP, 108, 2, 0)      # WRITE
    elif length:
        descs += struct.pack("<QIHH", RESP, 108, 3, 2)      # NEXT|WRITE
        descs += struct.pack("<QIHH", VDATA, length, 2, 0)
    else:
        descs += struct.pack("<QIHH", RESP, 108, 2, 0)
    # DMA reads, in order: used flags, avail idx (n), avail ring[n - 1]
    # (head 0), then each descriptor followed by the mapping of its
    # buffer (which generic-fuzz fills too, even device-writable ones)
    data = (out or bytes(range(1, 65))) if dd == 1 else bytes(4)
    bufs = [req, data, bytes(4)]
    pats = [clear(), dma(b"\0\0"), dma(struct.pack("<H", n)), dma(b"\0\0")]
    for i in range(0, len(descs), 16):
        pats += [dma(descs[i:i + 16]), dma(bufs[i // 16])]
    # Then the only pattern left is avail idx n: later ring reads (virtio-
    # scsi looks at the ring again from the main loop) find nothing new,
    # not a wrapped-around pattern that pops a garbage descriptor chain
    # and breaks the queue ("wrong size for virtio-scsi headers")
    return [pats, wr(0x8, 2, SZ_W, VQ_NOTIFY),              # kick queue 2 (4 bytes a queue)
            clear(), dma(struct.pack("<H", n)),
            step(2), rd(0, SZ_B, 3)]                      # ISR


def virtio_scsi_seeds():
    seeds = {}
    lba = lambda n, w: n.to_bytes(w, "big")
    cdbs = {
        "inquiry": (b"\x12\x00\x00\x00\x60\x00", 96, 2),
        "report-zones": (b"\x95\x00" + lba(0, 8) + lba(4096, 4) + b"\0\0", 4096, 2),
        "rc16": (b"\x9e\x10" + bytes(8) + lba(32, 4) + b"\0\0", 32, 2),
        "write16-seq": (b"\x8a\x00" + lba(1024, 8) + lba(1, 4) + b"\0\0", 4096, 1),
        "zbc-out-reset-all": (CDB_ZONE_RESET_ALL, 0, 0),
        "tur": (bytes(6), 0, 0),
        "mode-sense6": (CDB_MODE_SENSE6, 255, 2),
        "mode-select10": (CDB_MODE_SELECT10, len(MODE_SELECT_LIST), 1),
        "rc10": (CDB_RC10, 8, 2),
        "rsoc-all": (CDB_RSOC_ALL, 512, 2),
        "rsoc-one": (CDB_RSOC_ONE, 64, 2),
        "rsoc-sa": (CDB_RSOC_SA, 64, 2),
    }
    for name, (cdb, length, dd) in cdbs.items():
        # twice: the first command after power-on gets UNIT ATTENTION
        req = lambda n: virtio_request(n, cdb, length, dd, DATA_OUT.get(name))
        seeds[name] = seed(virtio_bringup(), req(1), req(2))
    # the LU is drive-backed: FINISH of the empty zone, and FINISH with
    # ALL of the open one, write zeroes over the blocks never written
    # (zbc_out_zeroed)
    for name, cdbs in ZONE_SEQUENCES:
        seeds[name] = seed(virtio_bringup(),
                           [virtio_request(n, cdb, 0, 0)
                            for n, cdb in enumerate(cdbs, 1)])
    # max-open=4: after RESET WRITE POINTER with ALL, writes at the write
    # pointers of five empty zones, the fifth closing the least recently
    # used implicitly open zone
    reqs = [(CDB_ZONE_RESET_ALL, 0, 0)] * 2 + \
        [(b"\x8a\x00" + lba(1024 * z, 8) + lba(1, 4) + b"\0\0", 4096, 1)
         for z in range(1, 6)]
    seeds["implicit-close"] = seed(virtio_bringup(),
                                   [virtio_request(n, *r)
                                    for n, r in enumerate(reqs, 1)])
    seeds["bringup-only"] = seed(virtio_bringup())
    return seeds


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else \
        os.path.join(os.path.dirname(os.path.abspath(__file__)), "seeds")
    sets = {
        "ufs-mcq": ufs_mcq_seeds(),
        "ufs-legacy": ufs_legacy_seeds(),
        "ufs-legacy-ah8": ufs_legacy_seeds(ah8=True),
        "scsi-zbc-virtio": virtio_scsi_seeds(),
        "scsi-zbc-state": virtio_scsi_seeds(),
    }
    for target, seeds in sets.items():
        d = os.path.join(out, target)
        os.makedirs(d, exist_ok=True)
        for f in os.listdir(d):
            os.unlink(os.path.join(d, f))
        for name, data in sorted(seeds.items()):
            with open(os.path.join(d, name), "wb") as f:
                f.write(data)
        print(f"{target}: {len(seeds)} seeds in {d}")


if __name__ == "__main__":
    main()
