# SPDX-License-Identifier: GPL-2.0-or-later
#
# Sourced by tests/guest/{test,full}-scsi-zbc-*.sh: boot the guest on one
# scsi-zbc disk behind virtio-scsi-pci and run a plan on it.
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
        -device virtio-scsi-pci,id=scsi0 \
        -device "scsi-zbc,bus=scsi0.0,drive=zbcimg,id=zbc0,logical_block_size=$lbs,zone-size=$zone_size,zone-capacity=$zone_cap,conv-zones=$conv,max-open=$max_open" ||
        rc=$?
    [ $rc -ne 0 ] || rm -f "$img"
    return $rc
}
