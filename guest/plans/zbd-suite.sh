#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# zbd-suite: fio's own zoned block device tests (t/zbd/test-zbd-support from
# the fio 3.33 source that built /opt/fio/fio) on one zoned disk, one TAP
# line per fio test case.
#
# Parameters (kernel command line zr.* -> environment):
#   zr.dev=NAME           block device (default sda)                 (ZR_DEV)
#   zr.cases=LIST         comma-separated test numbers, or "all"      (ZR_CASES)
#                         (default all: every testN the script has)
#   zr.max_open_opt=N     run the script with -o N: fio jobs get
#                         --max_open_zones=N --ignore_zone_limits=1 and
#                         every write test starts from reset zones
#                         (default: not given)                   (ZR_MAX_OPEN_OPT)
#   zr.uring=1            run the script with -u: io_uring instead of
#                         libaio                                     (ZR_URING)
#   zr.skip_ok=LIST       tests allowed to SKIP (default 42,43,49,56: they
#                         need a device that is not zoned); any other
#                         SKIP is a failure, so a geometry that makes a
#                         test skip is noticed                      (ZR_SKIP_OK)
#   zr.xfail=LIST         tests expected to FAIL for a known reason that
#                         is not the device (default 54); each must have
#                         its reason in xfail_reason below; "none" for
#                         no such test                                (ZR_XFAIL)
#   zr.log_lines=N        lines of a failed test's log shown (default 40)
#
# TAP: "ok N - zbd test NN: <what it tests>" for PASS, the same with
# "# SKIP <reason>" for an allowed SKIP, "not ok" for FAIL or an unexpected
# SKIP (the test's log follows as comments).  A test in zr.xfail that fails
# is "not ok ... # TODO <the fio bug>", an expected failure in TAP terms;
# if it passes, that is a failure ("remove it from zr.xfail"), so the list
# cannot go stale.  Then one check that the script's own summary matches
# and that it exited as it should.
#
# The known reasons (details in docs/system/devices/scsi-zbc.rst):
# - 54 (randrw + verify_backlog + experimental_verify, libaio) fails with
#   fio 3.33 on any zoned disk whose job reaches its verify pass: the
#   experimental_verify replay places each replayed write at fio's zone
#   write pointer (zbd_adjust_block's write path), not where the write
#   went, and libaio even submits the "verify read" as a write because the
#   io_u was prepared before its direction was flipped (fio issue 1955).
#   Linux 6.12's zone write plugging fails the second such write with EIO
#   before it reaches the disk.  The kernel's own zoned null_blk fails it
#   the same way, at the same offset.
# - 9 and 10 (sg engine) expect 4 x zone size bytes written and read back;
#   when the zone capacity is below the zone size only 4 x capacity fits,
#   which fio writes and verifies.  Unlike tests 5-8 they do not use
#   total_zone_capacity; fio's own runs never meet this, as their only
#   capacity < size target, null_blk, is not a SCSI disk.
# Results: "ZR-RESULT zbd test=NN status=PASS|SKIP|FAIL seconds=S" per test
# and "ZR-RESULT zbd-summary passed=.. skipped=.. failed=.. expected_failures=..
# runtime=HH:MM:SS seconds=S" (failed counts the expected failures too, as
# the script's own summary does).
. "$ZR_LIB"

dev=${ZR_DEV:-sda}
skip_ok=,${ZR_SKIP_OK:-42,43,49,56},
xfail=,${ZR_XFAIL:-54},
xfail_reason() {
    case $1 in
    54) echo "fio 3.33 bug: experimental_verify replays zonemode=zbd writes at the write pointer" ;;
    9|10) echo "t/zbd 3.33 expects 4 x zone size written; with capacity < size only 4 x capacity fits" ;;
    *) return 1 ;;
    esac
}
for t in ${xfail//,/ }; do
    [ "$t" = none ] || xfail_reason "$t" > /dev/null ||
        zr_bail "zr.xfail lists test $t, for which no reason is known"
done
log_lines=${ZR_LOG_LINES:-40}
zbd=/opt/fio/t/zbd
script=$zbd/test-zbd-support
logfile=$script.log

[ -x /opt/fio/fio ] && [ -f "$script" ] || zr_bail "no fio or $script in the initramfs"
zr_wait_for "/sys/block/$dev" 120 test -e "/sys/block/$dev/queue/zoned" ||
    zr_bail "no /sys/block/$dev (block devices: $(ls /sys/block | tr '\n' ' '))"
zr_wait_for "/dev/$dev" 10 test -b "/dev/$dev" || zr_bail "no /dev/$dev node"
zr_is "$dev is host-managed" "$(zr_sysfs /sys/block/$dev/queue/zoned)" host-managed

args=(-r)
[ -z "${ZR_MAX_OPEN_OPT:-}" ] || args+=(-o "$ZR_MAX_OPEN_OPT")
[ "${ZR_URING:-0}" = 0 ] || args+=(-u)
if [ -n "${ZR_CASES:-}" ] && [ "$ZR_CASES" != all ]; then
    for t in ${ZR_CASES//,/ }; do
        args+=(-t "$t")
    done
fi
zr_diag "$script ${args[*]} /dev/$dev"
zr_result "zbd-config dev=$dev args=$(IFS=,; echo "${args[*]}")" \
    "zoned=$(zr_sysfs /sys/block/$dev/queue/zoned)" \
    "nr_zones=$(zr_sysfs /sys/block/$dev/queue/nr_zones)" \
    "chunk_sectors=$(zr_sysfs /sys/block/$dev/queue/chunk_sectors)" \
    "max_open=$(zr_sysfs /sys/block/$dev/queue/max_open_zones)" \
    "lbs=$(zr_sysfs /sys/block/$dev/queue/logical_block_size)"

# The comment above "testN() {" in the script says what test N does.
describe() {
    awk -v f="test$1()" '
        $1 == f { sub(/\.( .*)?$/, "", c); print c; exit }
        /^#/ { sub(/^# */, ""); c = (c == "") ? $0 : c " " $0; next }
        { c = "" }' "$script"
}

now() { cut -d' ' -f1 /proc/uptime; }

# Run the script in its own directory (it writes test-zbd-support.log.N
# there) and read its "Running test NN ... STATUS [reason]" lines as they
# come.  The summary lines and the exit status come last.
out=/tmp/zbd-suite.out
status_file=/tmp/zbd-suite.rc
t0=$(now)
npass=0 nskip=0 nfail=0 nxfail=0
last=$t0
while IFS= read -r line; do
    printf '%s\n' "$line" >> "$out"
    case $line in
    "Running test "*)
        rest=${line#Running test }
        num=${rest%% *}
        verdict=${rest#* ... }
        status=${verdict%% *}
        reason=
        [ "$status" = "$verdict" ] || reason=$(printf '%s' "${verdict#"$status"}" | sed 's/^ *//')
        n=$((10#$num))
        t=$(now)
        secs=$(awk -v a="$last" -v b="$t" 'BEGIN { printf "%.1f", b - a }')
        last=$t
        what=$(describe "$n")
        desc="zbd test $num${what:+: $what}"
        case $status in
        PASS)
            npass=$((npass + 1))
            if [[ $xfail == *,$n,* ]]; then
                zr_fail "$desc: passed, but zr.xfail expects it to fail" \
                    "the reason it is listed for no longer holds: remove $n from zr.xfail"
            else
                zr_pass "$desc"
            fi ;;
        SKIP)
            nskip=$((nskip + 1))
            if [[ $skip_ok == *,$n,* ]]; then
                zr_skip "$desc" "$reason"
            else
                zr_fail "$desc: unexpected SKIP: $reason" \
                    "zr.skip_ok allows only ${skip_ok//,/ }"
            fi ;;
        *)
            nfail=$((nfail + 1))
            if [[ $xfail == *,$n,* ]] && [ "$status" = FAIL ]; then
                nxfail=$((nxfail + 1))
                zr_todo "$desc" "$(xfail_reason "$n")" \
                    "$(grep -m 3 -e 'err=' -e 'verify:' -e 'io_u error' "$logfile.$n" 2>/dev/null)"
            else
                zr_fail "$desc" "log $logfile.$n (last $log_lines lines):" \
                    "$(tail -n "$log_lines" "$logfile.$n" 2>/dev/null)"
            fi ;;
        esac
        zr_result "zbd test=$num status=$status seconds=$secs" ;;
    *)
        zr_diag "$line" ;;
    esac
done < <(cd "$zbd" && { bash "$script" "${args[@]}" "/dev/$dev" 2>&1; echo $? > "$status_file"; })
t1=$(now)
rc=$(cat "$status_file" 2>/dev/null || echo missing)

# The script's own tally must agree with what was read, and its exit status
# with the failures (1 iff a test failed).
sp=$(sed -n 's/^\([0-9]*\) tests passed$/\1/p' "$out")
ss=$(sed -n 's/^ *\([0-9]*\) tests skipped$/\1/p' "$out")
sf=$(sed -n 's/^ *\([0-9]*\) tests failed$/\1/p' "$out")
runtime=$(sed -n 's/^Run time: //p' "$out")
want_rc=0
[ $nfail -eq 0 ] || want_rc=1
zr_is "test-zbd-support summary and exit status agree with the TAP lines" \
    "passed=${sp:-?} skipped=${ss:-0} failed=${sf:-0} exit=$rc" \
    "passed=$npass skipped=$nskip failed=$nfail exit=$want_rc"
[ $((npass + nskip + nfail)) -gt 0 ] || zr_fail "test-zbd-support ran no test" "$(tail -n 20 "$out")"
zr_result "zbd-summary passed=$npass skipped=$nskip failed=$nfail expected_failures=$nxfail" \
    "runtime=${runtime:-?}" \
    "seconds=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')"
zr_done
