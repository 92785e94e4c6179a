# SPDX-License-Identifier: GPL-2.0-or-later
#
# Sourced by scripts/bench and scripts/bench-latency: which accelerator
# and clock the guests really ran on, for the tables' headers.  Each
# guest's run-guest writes accel=kvm|tcg into its result file (--accel
# auto, the default, takes KVM where there is one, TCG under -icount or
# without KVM; RUN_GUEST_ACCEL overrides).
#
#   bench_accel_init FILE           start a list ("CLOCK ACCEL" a run) in FILE
#   bench_accel_note CLOCK LOGDIR   after a run: remember its clock and accelerator
#   bench_accel_summary             "clock icount on tcg; clock wall on kvm"

bench_accel_init() {
    bench_accel_log=$1
    : > "$bench_accel_log"
}

bench_accel_note() {
    local a
    a=$(sed -n 's/^accel=//p' "$2/result" 2>/dev/null | tail -n 1)
    echo "$1 ${a:-unknown}" >> "$bench_accel_log"
}

bench_accel_summary() {
    sort -u "$bench_accel_log" | awk '
        { if (!($1 in a)) order[++n] = $1; a[$1] = a[$1] (a[$1] == "" ? "" : "+") $2 }
        END { if (!n) printf "no guest ran"
              for (i = 1; i <= n; i++) printf "%sclock %s on %s", (i > 1 ? "; " : ""), order[i], a[order[i]] }'
}
