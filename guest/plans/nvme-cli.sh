#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# nvme-cli: what Debian's nvme-cli (2.4) reads from a zoned namespace
# agrees with the configured geometry, and its zone commands work: id-ctrl
# (ZASL), id-ns (zone size, MOR/MAR), report-zones, open/close/finish/reset,
# zone-append (the assigned LBA), changed-zone-list, the Commands
# Supported and Effects log listing Zone Append for CSI 02h, and zone
# descriptor extensions (id-ns ZDES, set-zone-desc, report-zones -e).
#
# Parameters (kernel command line zr.* -> environment):
#   zr.dev=NAME            namespace (default nvme0n1)          (ZR_DEV)
#   zr.zone_blocks=N       zone size in blocks                  (ZR_ZONE_BLOCKS)
#   zr.zone_cap=N          zone capacity in blocks              (ZR_ZONE_CAP)
#   zr.max_open=N          max open zones (MOR + 1)             (ZR_MAX_OPEN)
#   zr.max_active=N        max active zones (MAR + 1)           (ZR_MAX_ACTIVE)
#   zr.zasl=N              the controller's ZASL                (ZR_ZASL)
#   zr.zdes=N              zone descriptor extension, 64-byte units (ZR_ZDES)
. "$ZR_LIB"

zr_need ZR_ZONE_BLOCKS ZR_ZONE_CAP ZR_MAX_OPEN ZR_MAX_ACTIVE ZR_ZASL ZR_ZDES
dev=/dev/${ZR_DEV:-nvme0n1}
ctrl=/dev/nvme0
zs=$ZR_ZONE_BLOCKS

zr_wait_for "$dev" 120 test -b "$dev" || zr_bail "no $dev"
zr_wait_for "$ctrl" 10 test -c "$ctrl" || zr_bail "no $ctrl"

# json field: jf FILE KEY -> the first value of "KEY": (number or string)
jf() { sed -n "s/.*\"$2\" *: *\"\{0,1\}\([A-Za-z0-9_]*\).*/\1/p" "$1" | head -n 1; }

nvme zns id-ctrl "$ctrl" -o json > /tmp/idc.json 2>&1 || zr_diag "$(cat /tmp/idc.json)"
zr_is "nvme zns id-ctrl: zasl $ZR_ZASL" "$(jf /tmp/idc.json zasl)" "$ZR_ZASL"
nvme zns id-ns "$dev" -o json > /tmp/idn.json 2>&1 || zr_diag "$(cat /tmp/idn.json)"
zr_is "nvme zns id-ns: mor = max-open - 1" "$(jf /tmp/idn.json mor)" "$((ZR_MAX_OPEN - 1))"
zr_is "nvme zns id-ns: mar = max-active - 1" "$(jf /tmp/idn.json mar)" "$((ZR_MAX_ACTIVE - 1))"
zr_is "nvme zns id-ns: zsze = $zs blocks" "$(jf /tmp/idn.json zsze)" "$zs"
zr_is "nvme zns id-ns: zoc 0" "$(jf /tmp/idn.json zoc)" 0
zr_is "nvme zns id-ns: zdes $ZR_ZDES (64-byte units)" "$(jf /tmp/idn.json zdes)" "$ZR_ZDES"

# Commands Supported and Effects, CSI 02h: Zone Append supported, LBCC
zr_is "nvme effects-log --csi=2: Zone Append 7Dh supported, changes LBAs" \
    "$(nvme effects-log "$ctrl" --csi=2 | sed -n 's/^IOCS125 .*\] *\([0-9a-f]*\)$/\1/p')" 00000003

zr_check "nvme zns reset-zone -a" nvme zns reset-zone "$dev" -a
rz() { nvme zns report-zones "$dev" -d 1 -s "$1" -o json > /tmp/rz.json 2>&1; }
state() { rz "$1"; jf /tmp/rz.json state; }
wp() { rz "$1"; jf /tmp/rz.json wp; }
rz 0
zr_is "nvme zns report-zones: zone 0 capacity $ZR_ZONE_CAP blocks" "$(jf /tmp/rz.json cap)" "$ZR_ZONE_CAP"
zr_is "nvme zns report-zones: sequential write required" "$(jf /tmp/rz.json type)" SEQWRITE_REQ

zr_check "nvme zns open-zone zone 1" nvme zns open-zone "$dev" -s $zs
zr_is "zone 1 explicitly open" "$(state $zs)" EXP_OPENED
zr_check "nvme zns close-zone zone 1" nvme zns close-zone "$dev" -s $zs
zr_is "zone 1 closed" "$(state $zs)" CLOSED
zr_check "nvme zns finish-zone zone 1" nvme zns finish-zone "$dev" -s $zs
zr_is "zone 1 full" "$(state $zs)" FULL
zr_check "nvme zns reset-zone zone 1" nvme zns reset-zone "$dev" -s $zs
zr_is "zone 1 empty" "$(state $zs)" EMPTY

# zone-append prints the assigned LBA in hex
alba() { sed -n 's/.*appended data to LBA \([0-9a-fA-F]*\).*/\1/p'; }
dd if=/dev/urandom of=/tmp/blk bs=4096 count=2 2>/dev/null
a=$(nvme zns zone-append "$dev" -s $((2 * zs)) -z 8192 -d /tmp/blk 2>&1 | alba)
zr_is "nvme zns zone-append: assigned LBA is the zone start" "$((16#${a:-x}))" "$((2 * zs))"
a=$(nvme zns zone-append "$dev" -s $((2 * zs)) -z 4096 -d /tmp/blk 2>&1 | alba)
zr_is "nvme zns zone-append: the next one lands after it" "$((16#${a:-x}))" "$((2 * zs + 2))"
zr_is "zone 2 write pointer after 3 blocks" "$(wp $((2 * zs)))" "$((2 * zs + 3))"
zr_is "zone 2 implicitly open" "$(state $((2 * zs)))" IMP_OPENED

# Zone descriptor extension: zone 3 goes from empty to closed with it.
# (nvme-cli 2.3's JSON gives "attrs" 0 even for a zone it prints the
# extension of: the normal output's Attrs is read instead.)
attrs() { nvme zns report-zones "$dev" -d 1 -s "$1" 2>&1 | sed -n 's/.*Attrs: *\([0-9a-fA-Fx]*\).*/\1/p'; }
head -c $((ZR_ZDES * 64)) /dev/zero | tr '\000' 'Z' > /tmp/zde
zr_is "zone 3 has no extension yet (Attrs 0)" "$(attrs $((3 * zs)))" 0
zr_check "nvme zns set-zone-desc zone 3" nvme zns set-zone-desc "$dev" -s $((3 * zs)) -d /tmp/zde
zr_is "zone 3 closed by its extension" "$(state $((3 * zs)))" CLOSED
zr_is "nvme zns report-zones: zone 3 Attrs ZDEV (0x80)" "$(attrs $((3 * zs)))" 0x80
nvme zns report-zones "$dev" -d 1 -s $((3 * zs)) -e > /tmp/rze.txt 2>&1 || zr_diag "$(cat /tmp/rze.txt)"
zr_is "nvme zns report-zones -e: the extension reads back ($((ZR_ZDES * 64)) bytes of 'Z', 0x5a)" \
    "$(grep -o ' 5a' /tmp/rze.txt | wc -l)" "$((ZR_ZDES * 64))"
zr_check "nvme zns reset-zone zone 3" nvme zns reset-zone "$dev" -s $((3 * zs))
zr_is "zone 3 empty, its extension gone" "$(state $((3 * zs))) $(attrs $((3 * zs)))" "EMPTY 0"

zr_is "nvme zns changed-zone-list: no zone changed" \
    "$(nvme zns changed-zone-list "$dev" 2>&1 | sed -n 's/^nrzid: *\([0-9]*\).*/\1/p')" 0
zr_check "nvme zns reset-zone -a at the end" nvme zns reset-zone "$dev" -a
zr_done
