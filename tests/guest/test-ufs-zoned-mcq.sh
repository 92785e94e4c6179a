#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# ufs-zoned in MCQ mode under Linux 6.12: four controllers and then one,
# one per reorder policy, each with a zoned LU, the first also with a
# conventional LU; the ufs-smoke plan and the host's counter checks
# (tests/guest/lib-ufs-zoned.sh).
#
#   tests/guest/test-ufs-zoned-mcq.sh [run-guest options, e.g. --verbose]
#
# Output is TAP; exit 0 iff the guest and the host checks passed.
set -euo pipefail
# shellcheck source=tests/guest/lib-ufs-zoned.sh
. "$(dirname "$0")/lib-ufs-zoned.sh"

ufs_zoned_run ufs-zoned-mcq mcq 400 "$@"
