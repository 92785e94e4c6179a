# SPDX-License-Identifier: GPL-2.0-or-later
#
# Helpers for guest test plans (bash).  Installed in the initramfs as
# /usr/lib/zr/plan-lib.sh; /init exports its path as ZR_LIB, so a plan starts
#
#     #!/bin/bash
#     . "$ZR_LIB"
#
# Output protocol (parsed by scripts/run-guest):
#     ok N - description          a passed check (TAP)
#     ok N - description # SKIP r a check that could not run (zr_skip)
#     not ok N - description      a failed check (TAP)
#     not ok N - d # TODO reason  an expected failure (zr_todo)
#     # text                      a comment (TAP diagnostic)
#     1..N                        the plan line, printed by zr_done
#     Bail out! reason            the plan gave up (zr_bail)
#     ZR-RESULT key=value ...     machine-readable results (zr_result)
# The exit status of the plan (zr_done: 0 iff every check passed and there
# was at least one) becomes /init's ZR-VERDICT.

ZR_TESTS=0
ZR_FAILED=0

# zr_diag TEXT...: print a TAP comment line per line of TEXT.
zr_diag() {
    local line
    printf '%s\n' "$*" | while IFS= read -r line; do printf '# %s\n' "$line"; done
}

# zr_pass DESC / zr_fail DESC [DETAIL...]: record one check.
zr_pass() {
    ZR_TESTS=$((ZR_TESTS + 1))
    printf 'ok %d - %s\n' "$ZR_TESTS" "$1"
}
zr_fail() {
    ZR_TESTS=$((ZR_TESTS + 1))
    ZR_FAILED=$((ZR_FAILED + 1))
    printf 'not ok %d - %s\n' "$ZR_TESTS" "$1"
    shift
    local d
    for d in "$@"; do zr_diag "$d"; done
}

# zr_skip DESC REASON: a check that could not run here ("ok N - DESC # SKIP
# REASON" in TAP; it counts as skipped, not as passed).
zr_skip() {
    ZR_TESTS=$((ZR_TESTS + 1))
    printf 'ok %d - %s # SKIP %s\n' "$ZR_TESTS" "$1" "$2"
}

# zr_todo DESC REASON [DETAIL...]: a check that failed as expected, for a
# known bug outside the project ("not ok N - DESC # TODO REASON": TAP's
# expected failure; it does not fail the plan).
zr_todo() {
    ZR_TESTS=$((ZR_TESTS + 1))
    printf 'not ok %d - %s # TODO %s\n' "$ZR_TESTS" "$1" "$2"
    shift 2
    local d
    for d in "$@"; do zr_diag "$d"; done
}

# zr_is DESC GOT WANT: pass iff GOT equals WANT (as strings).
zr_is() {
    if [ "$2" = "$3" ]; then
        zr_pass "$1"
    else
        zr_fail "$1" "got:  '$2'" "want: '$3'"
    fi
}

# zr_check DESC CMD [ARGS...]: pass iff CMD succeeds; its output is shown
# as diagnostics when it fails.
zr_check() {
    local desc=$1 out rc=0
    shift
    out=$("$@" 2>&1) || rc=$?
    if [ $rc -eq 0 ]; then
        zr_pass "$desc"
    else
        zr_fail "$desc" "command: $*" "exit status: $rc" "$out"
    fi
    return $rc
}

# zr_result KEY=VALUE...: one machine-readable line.
zr_result() {
    printf 'ZR-RESULT %s\n' "$*"
}

# zr_bail REASON: give up; the verdict is FAIL.
zr_bail() {
    printf 'Bail out! %s\n' "$*"
    [ $ZR_TESTS -eq 0 ] || printf '1..%d\n' "$ZR_TESTS"
    exit 2
}

# zr_done: print the TAP plan line and exit with the plan's status.
zr_done() {
    printf '1..%d\n' "$ZR_TESTS"
    if [ $ZR_TESTS -eq 0 ]; then
        zr_diag "no checks were run"
        exit 1
    fi
    [ $ZR_FAILED -eq 0 ] || { zr_diag "$ZR_FAILED of $ZR_TESTS checks failed"; exit 1; }
    exit 0
}

# zr_need VAR...: bail out unless each named environment variable is set
# (plans get their parameters from zr.* on the kernel command line).
zr_need() {
    local v
    for v in "$@"; do
        [ -n "${!v:-}" ] || zr_bail "parameter $v is not set (pass zr.$(echo "${v#ZR_}" | tr 'A-Z' 'a-z')=... on the kernel command line)"
    done
}

# zr_wait_for DESC SECONDS CMD [ARGS...]: wait until CMD succeeds, at most
# SECONDS.  For things the kernel finishes asynchronously after /init starts
# (device probing); polls the condition, it does not guess a delay.
zr_wait_for() {
    local desc=$1 secs=$2 start now
    shift 2
    start=$(cut -d' ' -f1 /proc/uptime)
    start=${start%.*}
    until "$@" >/dev/null 2>&1; do
        now=$(cut -d' ' -f1 /proc/uptime)
        now=${now%.*}
        if [ $((now - start)) -ge "$secs" ]; then
            zr_diag "timed out after ${secs}s waiting for $desc"
            return 1
        fi
        sleep 0.05
    done
    return 0
}

# zr_sysfs FILE: contents of a sysfs attribute, or "<missing FILE>".
zr_sysfs() {
    if [ -r "$1" ]; then cat "$1"; else echo "<missing $1>"; fi
}

# zr_pipelined_disk DEV: wait for the host-managed disk DEV of the patched
# kernel (it has queue/pipeline_zoned_writes); bail out otherwise.
zr_pipelined_disk() {
    local q=/sys/block/$1/queue
    zr_wait_for "/sys/block/$1" 120 test -e "$q/zoned" || zr_bail "no /sys/block/$1"
    zr_wait_for "/dev/$1" 10 test -b "/dev/$1" || zr_bail "no /dev/$1"
    zr_is "/dev/$1 is host-managed" "$(zr_sysfs "$q/zoned")" host-managed
    [ -e "$q/pipeline_zoned_writes" ] ||
        zr_bail "no $q/pipeline_zoned_writes: this is not the patched guest kernel"
}

# zr_fio_expect EXPECT RC ERR WRITE_KB VERIFY_KB WANT_KB IOERR OUT NOTE WHY:
# the verdict of a fio write+verify run.  EXPECT=clean: fio exited 0 with
# error 0 and wrote and verified WANT_KB, and the kernel logged no I/O
# error (NOTE is added to the pass line); EXPECT=errors: fio failed and the
# kernel logged I/O errors (WHY says why they are expected).
zr_fio_expect() {
    local expect=$1 rc=$2 err=$3 wkb=$4 rkb=$5 want=$6 ioerr=$7 out=$8
    if [ "$expect" = clean ]; then
        if [ "$rc" -eq 0 ] && [ "$err" = 0 ] && [ "$wkb" = "$want" ] && [ "$rkb" = "$want" ]; then
            zr_pass "fio wrote and verified $want KiB with no error${9:+ $9}"
        else
            zr_fail "fio wrote and verified $want KiB with no error" \
                "exit $rc, error $err, wrote $wkb KiB, verified $rkb KiB" "$(tail -n 20 "$out")"
        fi
        zr_is "kernel log: no I/O error" "$ioerr" 0
    elif [ "$rc" -ne 0 ] && [ "$ioerr" -gt 0 ]; then
        zr_pass "fio saw I/O errors, as expected${10:+ ${10}} (exit $rc, $ioerr in the kernel log)"
    else
        zr_fail "fio saw I/O errors${10:+ ${10}}" "exit $rc, error $err, kernel I/O errors $ioerr" \
            "$(tail -n 10 "$out")"
    fi
}

# zr_each_pipeline DEV FN: for queue/pipeline_zoned_writes 0 then 1, each
# on its own sequential zone of DEV (the first two): set it, check it, and
# run FN DEV PIPELINE ZONE-START (sectors).
zr_each_pipeline() {
    local q=/sys/block/$1/queue pl i=0 seq
    mapfile -t seq < <(zr_zone_report "/dev/$1" | awk '$6 == 2 { print $1 }')
    [ ${#seq[@]} -ge 2 ] || zr_bail "/dev/$1 has fewer than 2 sequential zones"
    for pl in 0 1; do
        echo "$pl" > "$q/pipeline_zoned_writes"
        zr_is "$1: pipeline_zoned_writes = $pl" "$(zr_sysfs "$q/pipeline_zoned_writes")" "$pl"
        "$2" "$1" "$pl" "${seq[$i]}"
        i=$((i + 1))
    done
}

# zr_nullb_make NAME [ATTR=VALUE...]: a zoned null_blk made in configfs
# with 4 KiB blocks, 64 zones of 4 MiB and the given attributes (before
# power=1, which comes last); prints the disk name.
zr_nullb_make() {
    local d=/sys/kernel/config/nullb/$1 p
    shift
    mkdir "$d" || return 1
    for p in blocksize=4096 size=256 zoned=1 zone_size=4 "$@" power=1; do
        echo "${p#*=}" > "$d/${p%%=*}" || return 1
    done
    # Linux 6.12 names a configfs-made disk after its directory.
    if [ -e "/sys/block/${d##*/}" ]; then echo "${d##*/}"; else echo "nullb$(cat "$d/index")"; fi
}

# zr_lu_node BDF LUN CLASS: the name of the CLASS (block, scsi_generic)
# node of LU LUN of the SCSI host on PCI function BDF (0000:00:10.0), e.g.
# sdb or sg3; fails if there is none (yet).
zr_lu_node() {
    local d
    for d in /sys/bus/pci/devices/"$1"/host*/target*/*:*:*:"$2"/"$3"/* \
             /sys/bus/pci/devices/"$1"/virtio*/host*/target*/*:*:*:"$2"/"$3"/*; do
        [ -e "$d" ] && { basename "$d"; return 0; }
    done
    return 1
}

# zr_slot_disks LUN SLOT...: the block device of LU LUN behind each PCI
# slot (hex, function 0), in order, into the array zr_disks; waits for
# each to appear and bails out if one does not.
zr_slot_disks() {
    local lun=$1 s d
    shift
    zr_disks=()
    for s in "$@"; do
        zr_wait_for "LU $lun behind slot $s" 120 zr_lu_node "0000:00:$s.0" "$lun" block ||
            zr_bail "no disk behind PCI slot $s"
        d=$(zr_lu_node "0000:00:$s.0" "$lun" block)
        zr_wait_for "/dev/$d" 10 test -b "/dev/$d" || zr_bail "no /dev/$d"
        zr_disks+=("$d")
    done
}

# zr_zone_report DEV: "start len cap wptr cond type" per zone, in 512-byte
# sectors (decimal), from blkzone report.
zr_zone_report() {
    blkzone report "$1" | sed -n \
        's/^ *start: *\(0x[0-9a-f]*\), len \(0x[0-9a-f]*\), cap \(0x[0-9a-f]*\), wptr \(0x[0-9a-f]*\) .*zcond: *\([0-9]*\)([a-z]*) \[type: *\([0-9]*\).*/\1 \2 \3 \4 \5 \6/p' |
        while read -r s l c w z t; do
            printf '%d %d %d %d %d %d\n' "$s" "$l" "$c" "$w" "$z" "$t"
        done
}

# zr_zone_capacity DEV: sum of all zone capacities in sectors (decimal), from
# blkzone capacity.
zr_zone_capacity() {
    local v
    v=$(blkzone capacity "$1" | tail -n 1 | tr -d ' ') || return 1
    printf '%d\n' "$v"
}

# zr_fio_verify DEV NAME WANT_KIB FIO-ARGS...: one fio job on /dev/DEV that
# writes and then verifies (crc32c, fatal) WANT_KIB KiB; passes iff fio
# exits 0 with no error and wrote and read back exactly that much.  Prints
# a ZR-RESULT line with the figures.  Default queue depth 4 (override with
# --iodepth in FIO-ARGS).
zr_fio_verify() {
    local dev=$1 name=$2 want_kb=$3 out=/tmp/fio-$2.out rc=0 t0 t1 terse err rkb wkb wbw
    local -a f
    shift 3
    t0=$(cut -d' ' -f1 /proc/uptime)
    fio --name="$name" --filename="/dev/$dev" --direct=1 --iodepth=4 \
        --verify=crc32c --do_verify=1 --verify_fatal=1 \
        --output-format=terse --terse-version=3 "$@" > "$out" 2>&1 || rc=$?
    t1=$(cut -d' ' -f1 /proc/uptime)
    terse=$(grep '^3;fio-' "$out" | tail -n 1)
    IFS=';' read -r -a f <<< "$terse"
    err=${f[4]:-?} rkb=${f[5]:-?} wkb=${f[46]:-?} wbw=${f[47]:-?}
    if [ $rc -eq 0 ] && [ "$err" = 0 ] && [ "$wkb" = "$want_kb" ] && [ "$rkb" = "$want_kb" ]; then
        zr_pass "fio $name: wrote and verified $want_kb KiB, 0 errors"
    else
        zr_fail "fio $name" "exit $rc, error $err, wrote ${wkb} KiB, verified ${rkb} KiB, want ${want_kb} KiB" \
            "$(tail -n 20 "$out")"
    fi
    zr_result "fio name=$name error=$err write_kib=$wkb verify_kib=$rkb write_bw_kibs=$wbw" \
        "seconds=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.2f", b - a}')"
}
