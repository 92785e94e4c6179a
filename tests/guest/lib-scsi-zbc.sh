# SPDX-License-Identifier: GPL-2.0-or-later
#
# Sourced by tests/guest/{test,full}-*-zbd*.sh and test-scsi-zbc-*.sh: boot
# the guest on one scsi-zbc disk behind a SCSI host adapter and run a plan
# on it.  The adapter is virtio-scsi-pci unless the caller sets
#   hba         the -device value of another one whose SCSI bus is
#               "scsi0.0" (e.g. "ufs-zoned,id=scsi0,mode=mcq")
#
# The caller sets the geometry, which goes both to QEMU (device properties)
# and to the plan (zr.* parameters), so the plan checks what was really
# configured:
#   size        capacity in bytes (the backing file's size)
#   zone_size   zone size in bytes
#   zone_cap    zone capacity in bytes (zone_size for no gap zones)
#   conv        conventional zones
#   max_open    open zone limit, 0 = none
#   lbs         logical block size (512 or 4096)
# and calls  scsi_zbc_run PLAN LOGNAME TIMEOUT [run-guest options] [--param k=v ...]
# The backing store is a sparse raw file in the log directory
# ($B/guest-logs/LOGNAME), opened with cache=unsafe: real data, so fio can
# verify it (a null-backed scsi-zbc discards writes).  The file is made
# again for every run, so every run starts from an empty disk, and removed
# after a run that passed (the full fio suite leaves about 1 GiB in it);
# after a failure it stays for inspection.  Returns run-guest's status.

# zbd_geometry: the geometry fio's t/zbd suite wants (full-scsi-zbc-zbd.sh
# says which test needs what): 1 GiB = 256 zones of 4 MiB, 8 conventional
# (tests 50-52; 16 MiB for test 14), open limit 8 read from VPD B6h by
# sg_inq (test 13), 4 KiB blocks.  Callers then change what they vary.
zbd_geometry() {
    size=$((1024 << 20))
    zone_size=$((4 << 20))
    zone_cap=$zone_size
    conv=8
    max_open=8
    lbs=4096
}

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
B=${B:-$top/build}
export B

# shellcheck disable=SC2154  # the geometry variables are the caller's
scsi_zbc_run() {
    local plan=$1 name=$2 timeout=$3 logdir img rc=0
    shift 3
    logdir=$B/guest-logs/$name
    mkdir -p "$logdir"
    img=$logdir/zbc.img
    rm -f "$img"
    truncate -s "$size" "$img"
    "$top/scripts/run-guest" --plan "$plan" --log-dir "$logdir" --timeout "$timeout" "$@" \
        --param size="$size" --param zone_size="$zone_size" --param zone_cap="$zone_cap" \
        --param conv="$conv" --param max_open="$max_open" --param lbs="$lbs" \
        -- \
        -drive "file=$img,if=none,id=zbcimg,format=raw,cache=unsafe" \
        -device "${hba:-virtio-scsi-pci,id=scsi0}" \
        -device "scsi-zbc,bus=scsi0.0,drive=zbcimg,id=zbc0,logical_block_size=$lbs,zone-size=$zone_size,zone-capacity=$zone_cap,conv-zones=$conv,max-open=$max_open" ||
        rc=$?
    [ $rc -ne 0 ] || rm -f "$img"
    return $rc
}
