#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# zbc-smoke: a host-managed ZBC SCSI disk (scsi-zbc) is seen by Linux with
# the geometry the host configured, the SCSI view of it (VPD B6h, REPORT
# ZONES through sg3-utils) agrees with the block layer's, zone management
# and the open zone limit work, and fio can write and verify zones.
#
# Parameters (kernel command line zr.* -> environment):
#   zr.size=BYTES        capacity; need not be whole zones: the last zone
#                        is then smaller                            (ZR_SIZE)
#   zr.zone_size=BYTES   zone size                                  (ZR_ZONE_SIZE)
#   zr.zone_cap=BYTES    zone capacity of sequential zones; below the zone
#                        size each one is followed by a gap zone    (ZR_ZONE_CAP)
#   zr.conv=N            conventional zones at the start            (ZR_CONV)
#   zr.max_open=N        device open zone limit, 0 = none           (ZR_MAX_OPEN)
#   zr.lbs=BYTES         logical block size (default 4096)          (ZR_LBS)
#   zr.dev=NAME          block device (default sda)                 (ZR_DEV)
#   zr.fio_zones=N       sequential zones fio writes (default 4)    (ZR_FIO_ZONES)
#   zr.fio_bs=SIZE       fio block size (default 64k)               (ZR_FIO_BS)
# Results: ZR-RESULT lines with the geometry Linux and the VPD page report
# and each fio run's figures.
. "$ZR_LIB"

zr_need ZR_SIZE ZR_ZONE_SIZE ZR_ZONE_CAP ZR_CONV ZR_MAX_OPEN
dev=${ZR_DEV:-sda}
lbs=${ZR_LBS:-4096}
fio_zones=${ZR_FIO_ZONES:-4}
fio_bs=${ZR_FIO_BS:-64k}
q=/sys/block/$dev/queue

# Expected geometry, in 512-byte sectors (the block layer's unit) and in
# logical blocks (the SCSI unit).
zs=$((ZR_ZONE_SIZE / 512))
cap=$((ZR_ZONE_CAP / 512))
sectors=$((ZR_SIZE / 512))
nzones=$(((sectors + zs - 1) / zs))
last_len=$((sectors - (nzones - 1) * zs))
nconv=$ZR_CONV
nseq=$((nzones - nconv))
gaps=0
[ "$cap" -lt "$zs" ] && gaps=1
spb=$((lbs / 512))                  # sectors per logical block
first_seq=$((nconv * zs))           # sector
# Linux 6.12 (disk_update_zone_resources): a limit not below the number of
# sequential zones is no limit; without a limit, max_open_zones shows the
# zone write plug pool size, 128, if there are more sequential zones.
want_max_open=$ZR_MAX_OPEN
if [ "$ZR_MAX_OPEN" -eq 0 ] || [ "$ZR_MAX_OPEN" -ge "$nseq" ]; then
    want_max_open=0
    [ "$nseq" -le 128 ] || want_max_open=128
fi

# 1. the disk shows up as a SCSI ZBC disk with an sg node
if zr_wait_for "/sys/block/$dev" 120 test -e "/sys/block/$dev/queue/zoned"; then
    zr_pass "/dev/$dev appeared"
else
    zr_diag "block devices: $(ls /sys/block | tr '\n' ' ')"
    zr_bail "no /sys/block/$dev"
fi
zr_wait_for "/dev/$dev" 10 test -b "/dev/$dev" || zr_bail "no /dev/$dev node"
zr_is "SCSI peripheral device type 14h (ZBC)" "$(zr_sysfs /sys/block/$dev/device/type)" 20
sg=$(ls /sys/block/$dev/device/scsi_generic 2>/dev/null | head -n 1)
zr_wait_for "/dev/$sg" 10 test -c "/dev/${sg:-none}" || zr_bail "no sg node for $dev"
zr_pass "sg node /dev/$sg"

# 2. queue limits as configured
zr_is "zoned model is host-managed" "$(zr_sysfs $q/zoned)" host-managed
zr_is "logical block size $lbs" "$(zr_sysfs $q/logical_block_size)" "$lbs"
zr_is "zone write granularity = physical block size $lbs" "$(zr_sysfs $q/zone_write_granularity)" "$lbs"
zr_is "chunk_sectors = zone size ($zs sectors)" "$(zr_sysfs $q/chunk_sectors)" "$zs"
zr_is "nr_zones = $nzones" "$(zr_sysfs $q/nr_zones)" "$nzones"
zr_is "max_open_zones = $want_max_open (device limit $ZR_MAX_OPEN, $nseq sequential zones)" \
    "$(zr_sysfs $q/max_open_zones)" "$want_max_open"
zr_is "max_active_zones = 0" "$(zr_sysfs $q/max_active_zones)" 0
zr_is "capacity = $sectors sectors" "$(zr_sysfs /sys/block/$dev/size)" "$sectors"

# 3. the zone report: conventional zones first, then sequential write
# required ones; Linux does not show gap zones but gives each sequential
# zone the zone size as length and the zone capacity as capacity.
zr_check "reset all zones" blkzone reset "/dev/$dev"
report=$(zr_zone_report "/dev/$dev")
zr_is "blkzone report lists $nzones zones" "$(printf '%s\n' "$report" | grep -c .)" "$nzones"
bad=$(printf '%s\n' "$report" | awk -v zs="$zs" -v cap="$cap" -v nconv="$nconv" \
        -v nz="$nzones" -v last="$last_len" '
    { n = NR - 1; len = (n == nz - 1) ? last : zs
      c = (n < nconv || len < zs) ? len : cap
      if ($1 != n * zs) print "zone " n ": start " $1 ", want " n * zs
      if ($2 != len)    print "zone " n ": len " $2 ", want " len
      if ($3 != c)      print "zone " n ": cap " $3 ", want " c
      if (n < nconv && ($6 != 1 || $5 != 0))
          print "zone " n ": type " $6 " cond " $5 ", want 1 (CONVENTIONAL), 0 (not write pointer)"
      if (n >= nconv && ($6 != 2 || $5 != 1 || $4 != 0))
          print "zone " n ": type " $6 " cond " $5 " wp " $4 ", want 2 (SEQ_WRITE_REQUIRED), 1 (empty), wp 0" }')
if [ -z "$bad" ]; then
    zr_pass "zones 0..$((nconv - 1)) conventional, $nconv..$((nzones - 1)) sequential and empty; starts n*$zs, capacity $cap"
else
    zr_fail "zone geometry in blkzone report" "$(printf '%s\n' "$bad" | head -n 8)"
fi
want_capsum=$(printf '%s\n' "$report" | awk -v zs="$zs" -v cap="$cap" -v nconv="$nconv" \
    '{ n = NR - 1; s += (n < nconv || $2 < zs) ? $2 : cap } END { print s }')
zr_is "blkzone capacity = $want_capsum sectors" "$(zr_zone_capacity "/dev/$dev")" "$want_capsum"

# 4. VPD B6h, the zoned block device characteristics page, as sg3-utils
# reads it (bytes 4 URSWRZ, 16-19 max open, 23 zone alignment method,
# 24-31 zone starting LBA granularity).
b6=$(sg_vpd --page=0xb6 --hex "/dev/$sg" 2>&1 |
     sed -n 's/^ *[0-9a-f]\{2,\}  *\(\([0-9a-f][0-9a-f] \{1,2\}\)*[0-9a-f][0-9a-f]\).*/\1/p' | tr -s ' ' '\n' | grep .)
byte() { printf '%s\n' "$b6" | sed -n "$(($1 + 1))p"; }
be() {  # be FIRST LAST: big-endian field
    local i v=0
    for ((i = $1; i <= $2; i++)); do v=$(( (v << 8) | 0x$(byte $i) )); done
    echo $v
}
zr_is "VPD B6h: page code b6h, length 3ch" "$(byte 1) $(be 2 3)" "b6 60"
zr_is "VPD B6h: URSWRZ = 1" "$(( 0x$(byte 4) & 1 ))" 1
want_vpd_open=$ZR_MAX_OPEN
[ "$ZR_MAX_OPEN" -ne 0 ] || want_vpd_open=4294967295
zr_is "VPD B6h: max open sequential write required zones = $want_vpd_open" "$(be 16 19)" "$want_vpd_open"
if [ $gaps = 1 ]; then
    zr_is "VPD B6h: zone alignment method 8h, starting LBA granularity = zone size ($((zs / spb)) blocks)" \
        "$(( 0x$(byte 23) & 0xf )) $(be 24 31)" "8 $((zs / spb))"
else
    zr_is "VPD B6h: zone alignment method 1h (constant zone lengths)" "$(( 0x$(byte 23) & 0xf ))" 1
fi
decoded=$(sg_vpd --page=zbdch "/dev/$sg" 2>&1)
zr_is "sg_vpd -p zbdch decodes URSWRZ: 1" "$(printf '%s\n' "$decoded" | sed -n 's/^ *URSWRZ: *//p')" 1
want_dec=$ZR_MAX_OPEN
[ "$ZR_MAX_OPEN" -ne 0 ] || want_dec="no limit"
zr_is "sg_vpd -p zbdch decodes max open: $want_dec" \
    "$(printf '%s\n' "$decoded" | sed -n 's/^ *Maximum number of open sequential write required zones: *//p')" "$want_dec"
# What fio's t/zbd reads (functions: max_open_zones()).
fio_mo=$(sg_inq -e --page=0xB6 --len=20 --hex "/dev/$dev" | tail -n 1 |
         { read -r _ b0 b1 b2 b3 _; echo $(( 0x$b0$b1$b2$b3 )); })
zr_is "sg_inq -e --page=0xB6 --len=20 (as t/zbd reads it) gives $want_vpd_open" "$fio_mo" "$want_vpd_open"

# 5. REPORT ZONES through sg_rep_zones: every zone the device has,
# including gap zones, in logical blocks.  "type len start wp cond" rows.
maxlen=$(( (64 + 64 * (nconv + nseq * (1 + gaps))) ))
maxlen=$(( (maxlen + 4095) / 4096 * 4096 ))
rep_zones() {   # rep_zones [sg_rep_zones options]: the decoded descriptors
    sg_rep_zones --maxlen="$maxlen" "$@" "/dev/$sg" | awk '
        /Zone type:/ { t = $3 }
        /Zone condition:/ { sub(/.*condition: */, ""); c = $0; gsub(/ /, "_", c) }
        /Zone Length:/ { l = $3 + 0 }
        /Zone start LBA:/ { s = $4 + 0 }
        /Write pointer LBA:/ { w = $4 + 0; print t, l, s, w, c }'
}
# busybox awk converts "0x.." strings to numbers (strtod); the parsing
# below relies on it.
awk 'BEGIN { exit ("0x10" + 0) != 16 }' || zr_bail "awk does not convert hexadecimal strings"
srep=$(rep_zones) || zr_fail "sg_rep_zones failed"
zr_is "sg_rep_zones: Maximum LBA = $((sectors / spb - 1))" \
    "$(sg_rep_zones --maxlen=128 "/dev/$sg" | sed -n 's/^ *Maximum LBA: *//p')" \
    "$(printf '0x%x' $((sectors / spb - 1)))"
counts=$(printf '%s\n' "$srep" | awk '{ n[$1]++ } END { printf "conv=%d seq=%d gap=%d", n["Conventional"], n["Sequential"], n["Gap"] }')
zr_is "sg_rep_zones: $nconv conventional, $nseq sequential write required, $((gaps * nseq)) gap zones" \
    "$counts" "conv=$nconv seq=$nseq gap=$((gaps * nseq))"
bad=$(printf '%s\n' "$srep" | awk -v next_start=0 -v zb=$((zs / spb)) -v cb=$((cap / spb)) -v gaps=$gaps \
        -v lastb=$((last_len / spb)) -v endb=$((sectors / spb)) '
    { i = NR - 1
      if ($3 != next_start) print "descriptor " i ": start " $3 ", want " next_start
      next_start = $3 + $2
      want = ($1 == "Conventional") ? zb : ($1 == "Gap") ? zb - cb : cb
      if ($3 + zb > endb && $1 != "Gap") want = lastb
      if ($2 != want) print "descriptor " i " (" $1 "): length " $2 ", want " want
      if ($1 == "Sequential" && ($4 != $3 || $5 != "Empty"))
          print "descriptor " i ": wp " $4 " cond " $5 ", want " $3 " Empty"
      if ($1 != "Sequential" && ($4 != -1 || $5 != "Not_write_pointer"))
          print "descriptor " i " (" $1 "): wp " $4 " cond " $5 ", want -1 Not write pointer"
      if ($1 == "Gap" && prev != "Sequential") print "descriptor " i ": gap zone not after a sequential zone"
      prev = $1 }
    END { if (next_start != endb) print "zones end at " next_start ", capacity " endb }')
if [ -z "$bad" ]; then
    zr_pass "sg_rep_zones: contiguous zones, lengths and write pointers as configured"
else
    zr_fail "sg_rep_zones zone list" "$(printf '%s\n' "$bad" | head -n 8)"
fi
# The block layer's zones are the device's without the gap zones, with the
# sequential zone's length as their capacity.
lin=$(printf '%s\n' "$report" | awk '{ print $1, $3 }')
scsi=$(printf '%s\n' "$srep" | awk -v spb=$spb '$1 != "Gap" { print $3 * spb, $2 * spb }')
zr_is "blkzone report = sg_rep_zones without gap zones (start, capacity)" "$scsi" "$lin"
zr_is "sg_rep_zones --report=0x3e lists the $((gaps * nseq)) gap zones" \
    "$(rep_zones --report=0x3e | grep -c '^Gap')" "$((gaps * nseq))"
zr_is "sg_rep_zones --report=0x3f (not write pointer) lists $((nconv + gaps * nseq)) zones" \
    "$(rep_zones --report=0x3f | grep -c .)" "$((nconv + gaps * nseq))"
zr_is "sg_rep_zones --report=1 (empty) lists the $nseq sequential zones" \
    "$(rep_zones --report=1 | grep -c '^Sequential')" "$nseq"
zr_is "sg_rep_zones --partial --maxlen=192 returns 2 descriptors" \
    "$(sg_rep_zones --partial --maxlen=192 "/dev/$sg" | grep -c 'Zone descriptor:')" 2

# 6. zone management through the block layer (ZBC OUT), on the second
# sequential zone: write 8 blocks, then close, open, finish, reset.
z=$((first_seq + zs))
cond_wp() { zr_zone_report "/dev/$dev" | awk -v s="$z" '$1 == s { print $5, $4 }'; }
fio --name=w8 --filename="/dev/$dev" --direct=1 --ioengine=psync --rw=write \
    --bs="$lbs" --offset=$((z * 512)) --size=$((8 * lbs)) > /tmp/w8.out 2>&1 ||
    zr_fail "8-block write at sector $z" "$(tail -n 5 /tmp/w8.out)"
zr_is "write of 8 blocks: zone implicitly open, wp +8 blocks" "$(cond_wp)" "2 $((8 * spb))"
zr_check "blkzone close" blkzone close -o "$z" -c 1 "/dev/$dev"
zr_is "closed" "$(cond_wp)" "4 $((8 * spb))"
zr_check "blkzone open" blkzone open -o "$z" -c 1 "/dev/$dev"
zr_is "explicitly open" "$(cond_wp)" "3 $((8 * spb))"
zr_check "blkzone finish" blkzone finish -o "$z" -c 1 "/dev/$dev"
# sd_zbc reports a FULL zone's write pointer as the zone's end (start +
# length); the device's REPORT ZONES gives the end of the zone capacity.
zr_is "full (Linux: wp at the zone end)" "$(cond_wp)" "14 $zs"
zr_is "sg_rep_zones: full, wp at the end of the zone capacity" \
    "$(rep_zones --start=$((z / spb)) | head -n 1 | awk '{ print $5, $4 }')" \
    "Full $(( (z + cap) / spb ))"
zr_check "blkzone reset" blkzone reset -o "$z" -c 1 "/dev/$dev"
zr_is "empty again" "$(cond_wp)" "1 0"

# 7. the open zone limit: with every slot explicitly open, one more OPEN
# ZONE fails with DATA PROTECT / INSUFFICIENT ZONE RESOURCES; implicitly
# open zones are closed by the device to make room for writes.
sense_lines() { dmesg | grep -c 'Sense Key'; }
expected_sense=0
if [ "$ZR_MAX_OPEN" -gt 0 ] && [ "$ZR_MAX_OPEN" -lt "$nseq" ]; then
    mo=$ZR_MAX_OPEN
    zr_check "blkzone open of $mo zones" blkzone open -o "$first_seq" -c "$mo" "/dev/$dev"
    zr_is "sg_rep_zones --report=3 lists $mo explicitly open zones" \
        "$(rep_zones --report=3 | grep -c .)" "$mo"
    s0=$(sense_lines)
    if blkzone open -o $((first_seq + mo * zs)) -c 1 "/dev/$dev" 2>/dev/null; then
        zr_fail "opening zone $((mo + 1)) beyond the limit of $mo was accepted"
    else
        zr_pass "opening zone $((mo + 1)) beyond the limit of $mo fails"
    fi
    expected_sense=$((expected_sense + 1))
    zr_is "the kernel saw DATA PROTECT, ASC/ASCQ 55h/0Eh" \
        "$(dmesg | grep -A 1 'Sense Key : 0x7' | grep -c 'ASC=0x55 ASCQ=0xe') $(( $(sense_lines) - s0 ))" "1 1"
    zr_check "blkzone close of the $mo zones" blkzone close -o "$first_seq" -c "$mo" "/dev/$dev"
    zr_is "closed zones without data are empty" "$(rep_zones --report=1 | grep -c '^Sequential')" "$nseq"
    # Write one block to mo + 1 zones, in order: the device closes the
    # least recently used implicitly open zone (the first) for the last.
    fio --name=strided --filename="/dev/$dev" --direct=1 --ioengine=psync --rw=write \
        --bs="$lbs" --zonemode=strided --zonesize="$lbs" --zonerange="$ZR_ZONE_SIZE" \
        --offset=$((first_seq * 512)) --size=$(((mo + 1) * ZR_ZONE_SIZE)) \
        --io_size=$(((mo + 1) * lbs)) > /tmp/strided.out 2>&1 ||
        zr_fail "one-block writes to $((mo + 1)) zones" "$(tail -n 5 /tmp/strided.out)"
    zr_is "after writes to $((mo + 1)) zones: $mo implicitly open, 1 closed (the first)" \
        "$(rep_zones --report=2 | grep -c .) $(rep_zones --report=4 | awk '{ print $3 }')" \
        "$mo $((first_seq / spb))"
    zr_check "reset all zones" blkzone reset "/dev/$dev"
else
    zr_skip "open zone limit" "the disk has no open zone limit below its $nseq sequential zones"
fi

# 8. fio: zoned sequential writes with verification over fio_zones
# sequential zones, and random writes with verification over the
# conventional zones.
[ $((fio_zones + 1)) -le "$nseq" ] || zr_bail "need more than $fio_zones sequential zones for fio"
zr_fio_verify "$dev" seq-libaio $((fio_zones * cap / 2)) --ioengine=libaio --zonemode=zbd --rw=write \
    --bs="$fio_bs" --offset=$((first_seq * 512)) --size=$((fio_zones * ZR_ZONE_SIZE))
full=$(zr_zone_report "/dev/$dev" | awk -v a="$first_seq" -v b=$((first_seq + fio_zones * zs)) \
    '$1 >= a && $1 < b && $5 == 14' | wc -l)
zr_is "fio left its $fio_zones zones full" "$full" "$fio_zones"
if [ "$nconv" -gt 0 ]; then
    zr_fio_verify "$dev" conv-randwrite $((nconv * zs / 2)) --ioengine=libaio --rw=randwrite \
        --bs="$lbs" --offset=0 --size=$((nconv * ZR_ZONE_SIZE))
fi
zr_check "reset all zones after fio" blkzone reset "/dev/$dev"
nonempty=$(zr_zone_report "/dev/$dev" | awk '$6 == 2 && ($4 != 0 || $5 != 1)' | wc -l)
zr_is "every sequential zone empty again" "$nonempty" 0

# 9. no command failed except the one this plan provoked
zr_is "kernel log: $expected_sense SCSI errors, all provoked here" "$(sense_lines)" "$expected_sense"
if [ "$(sense_lines)" != "$expected_sense" ]; then
    zr_diag "$(dmesg | grep -B 1 -A 3 'Sense Key' | tail -n 20)"
fi

zr_result "dev=$dev sg=$sg model=$(zr_sysfs $q/zoned) zones=$(zr_sysfs $q/nr_zones)" \
    "conv=$nconv seq=$nseq gaps=$((gaps * nseq)) zone_sectors=$(zr_sysfs $q/chunk_sectors)" \
    "cap_sectors=$cap last_zone_sectors=$last_len max_open=$(zr_sysfs $q/max_open_zones)" \
    "vpd_max_open=$(be 16 19) zam=$(( 0x$(byte 23) & 0xf )) lbs=$(zr_sysfs $q/logical_block_size)"
zr_done
