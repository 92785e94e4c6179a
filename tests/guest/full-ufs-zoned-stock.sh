#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The ufs-zoned MCQ and legacy smoke runs of test-ufs-zoned-{mcq,legacy}.sh
# on the stock kernel (no pipelining series; make kernel-stock): every
# reorder policy, no UNALIGNED WRITE, no two writes to one zone in service.
# In make check-full.
#
#   tests/guest/full-ufs-zoned-stock.sh [run-guest options]
set -euo pipefail
# shellcheck source=tests/guest/lib-ufs-zoned.sh
. "$(dirname "$0")/lib-ufs-zoned.sh"

rc=0
ufs_zoned_run ufs-zoned-mcq-stock mcq 400 --stock "$@" || rc=1
ufs_zoned_run ufs-zoned-legacy-stock legacy 400 --stock "$@" || rc=1
exit $rc
