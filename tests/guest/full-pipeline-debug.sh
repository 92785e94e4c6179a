#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The pipelining and zone-write-plugging guest tests on the lockdep kernel
# (make kernel-debug: the patched kernel plus guest/linux/debug.config, i.e.
# PROVE_LOCKING, DEBUG_ATOMIC_SLEEP, DEBUG_LIST and friends).  Each test's
# console rule (scripts/run-guest) fails it on a lockdep report, a sleep in
# atomic context or any other WARNING/BUG, so this is where a locking bug
# of the series shows.  In make check-full; the guest logs land where the
# tests put them (build/guest-logs/<scenario>/), replacing the runs of the
# patched kernel.
#
#   tests/guest/full-pipeline-debug.sh [run-guest options]
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-$top/build}
export B
kernel=${GUEST_KERNEL_DEBUG:-$B/linux-debug/arch/x86/boot/bzImage}
[ -f "$kernel" ] || { echo "Bail out! no lockdep kernel $kernel (make kernel-debug)"; exit 1; }

rc=0
for t in pipeline-ufs pipeline-churn pipeline-nullb ufs-zoned-eh \
         zwp-errors zwp-reset zwp-werror upstream-nvme-zns-pipelined; do
    echo "# --- $t on the lockdep kernel ($kernel)"
    bash "$top/tests/guest/test-$t.sh" --kernel "$kernel" "$@" || rc=1
done
exit $rc
