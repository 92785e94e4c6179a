#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The null_blk patch of our pipelining series (guest/linux/patches): a zoned
# null_blk made with pipeline_zoned_writes=1 in configfs advertises ordered
# hardware queues, so writes are pipelined; the seeds' fio job (QD64, 4 KiB,
# merging off) writes 32 MiB and verifies it, with schedulers none and
# mq-deadline, without an I/O error, and not one write arrives ahead of its
# zone's write pointer: null_blk fails such writes and counts them
# (zone_writes_misordered), so the block layer's ordering is what is tested
# (plan bench-fio).
#
#   tests/guest/test-pipeline-nullb.sh [run-guest options]
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-$top/build}
export B
exec "$top/scripts/run-guest" --plan bench-fio --log-dir "$B/guest-logs/pipeline-nullb" \
    --timeout 300 "$@" --param label=pipeline-nullb --param dev=nullb \
    --param pipeline=1 --param size_mb=32 --param scheds=none,mq-deadline
