#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# zwp-reset: a zone reset while pipelined writes of the zone are still in
# flight, then new writes to the zone at once (review finding 5,
# ../shared/reviews/kernel-patches.md).  No data written before the reset
# may ever land after it: a write that the device started out of order and
# the kernel retries must fail once its zone was reset, and not wait until
# the new writes bring the write pointer to its sector (series v2,
# blk_zone_write_may_retry() and blk_zone_write_stale()).  Needs the
# patched guest kernel and a device that reorders writes and is slow, so
# that writes of the first stream are still being retried at the reset
# (tests/guest/test-zwp-reset.sh: ufs-zoned MCQ, reorder=random, 20 ms,
# 4 commands in service at once).
#
# Per queue/pipeline_zoned_writes value, on its own sequential zone:
#   1. stream A: 128 writes of 4 KiB of 0xaa, all submitted at once
#      (io_uring, queue depth 128), errors tolerated: A submits nothing
#      after the reset, so every block of A found after it is a write
#      issued before it;
#   2. as soon as 8 of them have completed, the zone is reset, and
#      stream B starts at once: 256 writes of 4 KiB of 0xbb from the zone
#      start, queue depth 64;
#   3. once both are done: B wrote everything without an error, the write
#      pointer is at the end of B, and the zone holds 0xbb only, not one
#      block of 0xaa; no kernel warning.
# Whether a write of A is still being retried when B's write pointer passes
# its sector depends on timing; on the kernel before the fix (series v2
# without blk_zone_write_may_retry()) a run landed 36 blocks of A.
#
# Parameters (kernel command line zr.* -> environment):
#   zr.dev=NAME          disk (default sda)                          (ZR_DEV)
#   zr.rounds=N          N rounds with pipelining on, each on a zone of
#                        its own (default 1; a soak: the outcome depends on
#                        the device's random choices and on timing) (ZR_ROUNDS)
# Results: one "ZR-RESULT zwp-reset ..." line per setting, with stream A's
# errors (expected with pipelining: its retries after the reset fail) and
# the kernel's retry count (scsi_mod.zoned_write_retries).
. "$ZR_LIB"

dev=${ZR_DEV:-sda}
q=/sys/block/$dev/queue
retries=/sys/module/scsi_mod/parameters/zoned_write_retries

warnings() { dmesg | grep -c 'WARNING:'; }

# wp_sectors START: the write pointer of the zone at START (sectors from its
# start).
wp_sectors() {
    zr_zone_report "/dev/$dev" | awk -v s="$1" '$1 == s { print $4; exit }'
}

# writes_done / writes_in_flight: write requests of the disk completed so
# far / in flight now (block/stat.rst: field 5; inflight: field 2).
writes_done() { awk '{ print $5 }' "/sys/block/$dev/stat"; }
writes_in_flight() { awk '{ print $2 }' "/sys/block/$dev/inflight"; }

# stream NAME PATTERN OFFSET-BYTES KIB QD: fio writing KIB KiB of PATTERN,
# queue depth QD submitted in batches of QD, going on after errors; terse
# output in /tmp/fio-NAME.out.
stream() {
    fio --name="$1" --filename="/dev/$dev" --rw=write --bs=4k --direct=1 \
        --ioengine=io_uring --iodepth="$5" --iodepth_batch_submit="$5" \
        --offset="$3" --size="$4k" --buffer_pattern="$2" \
        --continue_on_error=all --output-format=terse --terse-version=3 \
        > "/tmp/fio-$1.out" 2>&1
}

# fio_field NAME INDEX: a field of the job's terse line (4: error,
# 46: KiB written).
fio_field() {
    local -a f
    IFS=';' read -r -a f <<< "$(grep '^3;fio-' "/tmp/fio-$1.out" | tail -n 1)"
    echo "${f[$2]:-?}"
}

# count_blocks START NBLOCKS BYTE: how many of the NBLOCKS 4 KiB blocks
# from sector START consist of BYTE only.
count_blocks() {
    dd if="/dev/$dev" bs=4096 skip=$(($1 / 8)) count="$2" iflag=direct 2>/dev/null |
        od -An -v -tx1 -w4096 | awk -v b="$3" '{
            ok = 1; for (i = 1; i <= NF; i++) if ($i != b) { ok = 0; break }
            n += ok } END { print n + 0 }'
}

# scenario DEV PIPELINE ZONE-START
scenario() {
    local pl=$2 start=$3 off w0 r0 pa pb i w inflight ea eb wb aa bb m0
    off=$((start * 512))
    w0=$(warnings) r0=$(cat "$retries" 2>/dev/null || echo 0)
    m0=$(dmesg | wc -l)
    zr_check "pipeline=$pl: reset zone at sector $start" blkzone reset -o "$start" -c 1 "/dev/$dev"
    w=$(writes_done)
    stream A-$pl 0xaa "$off" 512 128 & pa=$!
    # 8 writes of A completed (the disk's statistics, which need no command
    # that would queue behind A's retries): those can no longer land again
    # after the reset; the others are in flight, most of them being retried.
    for ((i = 0; i < 2000; i++)); do
        [ $(($(writes_done) - w)) -lt 8 ] || break
        sleep 0.01
    done
    # A's writes not completed yet: in the driver, or requeued for a retry
    # (the disk's inflight count only sees the former)
    inflight=$((128 - ($(writes_done) - w)))
    zr_diag "pipeline=$pl: $((128 - inflight)) writes of stream A done, $inflight outstanding ($(writes_in_flight) in the driver) when the zone is reset"
    zr_check "pipeline=$pl: reset the zone with stream A in flight" \
        blkzone reset -o "$start" -c 1 "/dev/$dev"
    stream B-$pl 0xbb "$off" 1024 64 & pb=$!
    wait $pa || true
    wait $pb || true
    ea=$(fio_field A-$pl 4) eb=$(fio_field B-$pl 4) wb=$(fio_field B-$pl 46)
    zr_is "pipeline=$pl: stream B wrote 1024 KiB without an error" "$eb $wb" "0 1024"
    # what the kernel said of the failed writes, if any (the 20 first lines)
    [ "$eb $wb" = "0 1024" ] || dmesg | tail -n +$((m0 + 1)) | grep -v 'zr-init' | head -n 20 |
        while IFS= read -r i; do zr_diag "dmesg: $i"; done
    zr_is "pipeline=$pl: the write pointer is at the end of stream B" "$(wp_sectors "$start")" 2048
    aa=$(count_blocks "$start" 256 aa) bb=$(count_blocks "$start" 256 bb)
    zr_is "pipeline=$pl: not one block of stream A landed after the reset" "$aa" 0
    zr_is "pipeline=$pl: the zone holds stream B's 256 blocks" "$bb" 256
    zr_is "pipeline=$pl: no kernel warning" "$(warnings)" "$w0"
    zr_result "zwp-reset pipeline=$pl zone=$start" \
        "a_error=$ea b_error=$eb b_write_kib=$wb blocks_a=$aa blocks_b=$bb" \
        "retries=$(( $(cat "$retries" 2>/dev/null || echo 0) - r0 ))"
}

zr_pipelined_disk "$dev"
echo 2 > "$q/nomerges"          # every write its own command
zr_each_pipeline "$dev" scenario
if [ "${ZR_ROUNDS:-1}" -gt 1 ]; then
    mapfile -t zones < <(zr_zone_report "/dev/$dev" | awk '$6 == 2 { print $1 }')
    for ((i = 2; i <= ZR_ROUNDS && i < ${#zones[@]}; i++)); do
        scenario "$dev" 1 "${zones[i]}"
    done
fi
zr_done
