#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# pipeline-churn: pipelined zoned writes under what changes around them
# (needs the patched guest kernel).  With pipelining on, while fio writes
# and verifies sequential zones, a loop moves fio's threads between the
# CPUs (taskset); each fio engine the seeds' users run takes a turn:
# io_uring and libaio at queue depth 32, psync, writes with FUA (O_DSYNC on
# O_DIRECT) and with a flush every 8 writes (fsync).  Every run must write
# and verify without an error.  Then the switches flip under load (review
# finding 6): "flip-uring", io_uring while another loop flips
# queue/pipeline_zoned_writes between 0 and 1, "flip-psync" the same at
# queue depth 1, and "flip", libaio while it
# also flips auto_hibern8 on a UFS disk between off and 1 ms (ufshcd then
# freezes the queue to drain the zones before auto-hibernate goes on).
# They must write and verify without an error too.  io_uring is not used
# with a freezing switch: while a queue is frozen, 6.12 fails REQ_NOWAIT
# writes with -EAGAIN and io_uring reissues them from its workers, out of
# order, on the stock kernel as well (docs/devel/pipelining.md; blktests
# zbd/012 uses libaio for the same reason).  zr.flip_attr demonstrates it.
# The kernel must never warn (scripts/run-guest's console rule covers
# WARNING, BUG, lockdep and hung tasks).
#
# Parameters (kernel command line zr.* -> environment):
#   zr.dev=NAME        disk (default sda)                            (ZR_DEV)
#   zr.zones=N         sequential zones written per run (default 2)  (ZR_ZONES)
#   zr.only=NAME       only the run NAME (io_uring, ..., flip)        (ZR_ONLY)
#   zr.flip_attr=A     the flip runs also flip queue/A between its value
#                      and 0 (e.g. nomerges: a switch that freezes the
#                      queue; with io_uring it shows the -EAGAIN reorder,
#                      on the stock kernel too)               (ZR_FLIP_ATTR)
# Results: "ZR-RESULT pipeline-churn ..." per run with fio's figures, the
# flips and moves done meanwhile, and the kernel's retries.
. "$ZR_LIB"

dev=${ZR_DEV:-sda}
zones=${ZR_ZONES:-2}
q=/sys/block/$dev/queue
retries=/sys/module/scsi_mod/parameters/zoned_write_retries
ahit=

zr_pipelined_disk "$dev"
echo 2 > "$q/nomerges"          # every write its own command
host=$(readlink -f "/sys/block/$dev/device" | sed -n 's|.*/\(0000:[^/]*\)/host.*|\1|p')
[ -n "$host" ] && [ -e "/sys/bus/pci/drivers/ufshcd/$host/auto_hibern8" ] &&
    ahit=/sys/bus/pci/drivers/ufshcd/$host/auto_hibern8
# a controller without auto-hibernate refuses writes (EOPNOTSUPP)
[ -z "$ahit" ] || { echo 0 2>/dev/null > "$ahit"; } || ahit=
zr_diag "UFS auto_hibern8: ${ahit:-none (not a UFS disk)}"
attr0=
[ -z "${ZR_FLIP_ATTR:-}" ] || attr0=$(cat "$q/$ZR_FLIP_ATTR")
zs=$(zr_sysfs "$q/chunk_sectors")
first=$(zr_zone_report "/dev/$dev" | awk '$6 == 2 { print $1; exit }')
ncpu=$(nproc)

# flipper FILE AH8: flip the settings until killed (auto_hibern8 too if AH8
# is 1); counts flips in FILE.
flipper() {
    local n=0
    while :; do
        echo $((n % 2)) > "$q/pipeline_zoned_writes"
        [ "$2" = 0 ] || [ -z "$ahit" ] || echo $(((n % 2) * 1000)) > "$ahit"
        [ -z "$attr0" ] || echo $(((n % 2) * attr0)) > "$q/$ZR_FLIP_ATTR"
        n=$((n + 1))
        echo $n > "$1"
        sleep 0.05
    done
}

# mover PID FILE: move every thread of PID to the next CPU until killed.
mover() {
    local n=0
    while kill -0 "$1" 2>/dev/null; do
        taskset -a -p -c $((n % ncpu)) "$1" > /dev/null 2>&1 || true
        n=$((n + 1))
        echo $n > "$2"
        sleep 0.02
    done
}

# churn NAME FLIP FIO-ARGS...: one fio write+verify run over $zones zones
# with the mover going, and the flipper too if FLIP is not 0 (2: with
# auto_hibern8).
churn() {
    local name=$1 flip=$2 out=/tmp/fio-churn-$1.out rc=0 fp= mp r0 e0 n err rkb wkb want_kb flips moves
    local -a f
    shift 2
    [ -z "${ZR_ONLY:-}" ] || [ "$ZR_ONLY" = "$name" ] || return 0
    echo 1 > "$q/pipeline_zoned_writes"
    zr_check "$name: reset the zones" blkzone reset -o "$first" -c "$zones" "/dev/$dev"
    r0=$(cat "$retries" 2>/dev/null || echo 0)
    e0=$(dmesg | grep -cE 'I/O error|target error|Aborting plugged')
    echo 0 > /tmp/flips
    echo 0 > /tmp/moves
    [ "$flip" = 0 ] || { flipper /tmp/flips $((flip - 1)) & fp=$!; }
    fio --name="$name" --filename="/dev/$dev" --direct=1 --zonemode=zbd \
        --rw=write --bs=4k --offset=$((first * 512)) --size=$((zones * zs * 512)) \
        --verify=crc32c --do_verify=1 --verify_fatal=1 \
        --output-format=terse --terse-version=3 "$@" > "$out" 2>&1 &
    local pid=$!
    mover $pid /tmp/moves & mp=$!
    wait $pid || rc=$?
    kill $fp $mp 2>/dev/null
    wait $fp $mp 2>/dev/null
    echo 1 > "$q/pipeline_zoned_writes"
    [ -z "$ahit" ] || echo 0 > "$ahit"
    [ -z "$attr0" ] || echo "$attr0" > "$q/$ZR_FLIP_ATTR"
    flips=$(cat /tmp/flips) moves=$(cat /tmp/moves)
    IFS=';' read -r -a f <<< "$(grep '^3;fio-' "$out" | tail -n 1)"
    err=${f[4]:-?} rkb=${f[5]:-0} wkb=${f[46]:-0}
    want_kb=$((zones * zs / 2))
    if [ $rc -eq 0 ] && [ "$err" = 0 ] && [ "$wkb" = "$want_kb" ] && [ "$rkb" = "$want_kb" ]; then
        zr_pass "$name: fio wrote and verified $want_kb KiB ($flips flips, $moves moves)"
    else
        zr_fail "$name: fio wrote and verified $want_kb KiB" \
            "exit $rc, error $err, wrote $wkb KiB, verified $rkb KiB" "$(tail -n 20 "$out")"
    fi
    n=$(( $(dmesg | grep -cE 'I/O error|target error|Aborting plugged') - e0 ))
    zr_is "$name: kernel log: no I/O error" "$n" 0
    zr_result "pipeline-churn name=$name fio_error=$err write_kib=$wkb verify_kib=$rkb" \
        "flips=$flips moves=$moves retries=$(( $(cat "$retries" 2>/dev/null || echo 0) - r0 ))"
}

churn io_uring 0 --ioengine=io_uring --iodepth=32 --iodepth_batch=8
churn libaio 0 --ioengine=libaio --iodepth=32 --iodepth_batch=8
churn psync 0 --ioengine=psync
churn fua 0 --ioengine=io_uring --iodepth=32 --sync=dsync
churn fsync 0 --ioengine=io_uring --iodepth=32 --fsync=8
churn flip-uring 1 --ioengine=io_uring --iodepth=32 --iodepth_batch=8
# QD1: every write is submitted right after the previous one's BIO
# completed, before its request finished: where a zone switching mode
# meets a write still unfinished.
churn flip-psync 1 --ioengine=psync
churn flip 2 --ioengine=libaio --iodepth=32 --iodepth_batch=8
# leave the disk as the driver set it up
echo auto > "$q/pipeline_zoned_writes"
[ -z "$ahit" ] || echo 0 > "$ahit"
zr_done
