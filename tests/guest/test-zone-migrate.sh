#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Migration of a running guest mid-fio (docs/system/devices/scsi-zbc.rst,
# "Migration, savevm and loadvm"; ufs-zoned.rst, "Migration"): a
# file-backed scsi-zbc with a zone-state drive and reorder=random
# (commands wait in the device before they start, so some are in flight
# at the migration), on virtio-scsi or as the LU of a ufs-zoned
# controller (mode=mcq, reorder=rr, or mode=legacy, with its service
# model holding commands in flight as well), or as a namespace of an
# nvme-zns controller (reorder=rr, the same service model;
# docs/system/devices/nvme-zns.rst, "Migration"); the guest
# writes zones with fio, pipelining on, and verifies them
# (guest/plans/zone-migrate.sh).  When the guest says ZR-MIGRATE-NOW, the
# host migrates the VM to a file (QMP migrate file:), the source QEMU
# quits, and a new QEMU with the same drives loads the file (-incoming) and
# runs the rest of the plan: fio's verify must be clean, the zones FULL,
# no I/O error.  Then a cold boot on the same drives checks the zone state
# the destination wrote (its first sync after the migration).
#
#   tests/guest/test-zone-migrate.sh [run-guest options]
#   ZR_ONLY=running|enospc|ufs-mcq|ufs-legacy|nvme-zns|nvme-zns-live \
#       tests/guest/test-zone-migrate.sh
#                                                   # one scenario
#
# Output is TAP (the destination's and the cold boot's guest checks, then
# "host:" checks); exit 0 iff everything passed.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-$top/build}
export B
size=$((64 << 20))              # 16 zones of 4 MiB, 1 conventional
logdir=$B/guest-logs/zone-migrate
img=$logdir/zbc.img
state=$logdir/zbc.zones
mig=$logdir/vm.mig
n=900 rc=0

tap() {     # tap OK DESC
    n=$((n + 1))
    if [ "$1" = 1 ]; then echo "ok $n - host: $2"; else echo "not ok $n - host: $2"; rc=1; fi
}

# qmp SOCKET JSON...: send QMP commands, print the replies and events
qmp() {
    local sock=$1
    shift
    python3 - "$sock" "$@" <<'EOF'
import json, socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
f = s.makefile('rw')
json.loads(f.readline())
for cmd in ['{"execute": "qmp_capabilities"}'] + sys.argv[2:]:
    f.write(cmd + '\n')
    f.flush()
    while True:
        msg = json.loads(f.readline())
        print(json.dumps(msg))
        if 'return' in msg or 'error' in msg:
            break
# after migrate: wait for the MIGRATION event that ends it
if any('"migrate"' in c for c in sys.argv[2:]):
    while True:
        msg = json.loads(f.readline())
        print(json.dumps(msg))
        if msg.get('event') == 'MIGRATION' and \
           msg['data']['status'] in ('completed', 'failed'):
            break
EOF
}

# status SOCKET: the run state QMP reports
status() {
    qmp "$1" '{"execute": "query-status"}' 2>/dev/null |
        sed -n 's/.*"status": "\([a-z-]*\)".*/\1/p' | tail -n 1
}

# scenario NAME: one migration.  running: the host migrates when the guest
# says ZR-MIGRATE-NOW.  enospc: the source's drive fails one write in the
# second zone with ENOSPC (blkdebug, once), which stops the VM
# (werror=enospc) with that write waiting and the writes behind it in its
# zone held; the host migrates the stopped VM, and resumes it on the
# destination, whose drive has no error to inject.  ufs-mcq and
# ufs-legacy: the disk is a ufs-zoned LU whose writes take 20 ms, one at a
# time, so that fio's queue depth of 16 keeps commands at every stage in
# the controller; the host stops the VM when the guest says
# ZR-MIGRATE-NOW (so that the migration surely finds them there),
# migrates it, and resumes it on the destination.  nvme-zns: the same
# with the disk a namespace of an nvme-zns controller (its zone state on
# the same zone-state drive), reorder=rr across its I/O queues; and
# nvme-zns-live: the same migrated while it runs, as in running (the
# controller holds its work from the stop on, so what it has fetched
# travels).
scenario() {
    local name=$1 d=$logdir/$1 line out saved i st runner
    local -a src devs params=()
    case $name in
    nvme-zns*) devs=("${drives[@]}" -device "nvme-zns,id=nz0,reorder=rr,$ufs_lat"
                     -device "nvme-zns-ns,bus=nz0,drive=zbc0,zone-state=zs0,zone-size=4M")
               params=(--param dev=nvme0n1) ;;
    ufs-mcq) devs=("${drives[@]}" -device "ufs-zoned,id=ufs0,mode=mcq,reorder=rr,$ufs_lat"
                   -device "scsi-zbc,bus=ufs0.0,lun=0,$lu") ;;
    ufs-legacy) devs=("${drives[@]}" -device "ufs-zoned,id=ufs0,mode=legacy,$ufs_lat"
                      -device "scsi-zbc,bus=ufs0.0,lun=0,$lu") ;;
    *) devs=("${drives[@]}" -device virtio-scsi-pci,id=vs0
             -device "scsi-zbc,bus=vs0.0,$lu") ;;
    esac
    # a console.log left by an earlier run would satisfy the wait below
    rm -rf "$d/source" "$d/dest" "$d/cold"
    mkdir -p "$d/source" "$d/dest" "$d/cold"
    rm -f "$img" "$state" "$mig"
    truncate -s $size "$img"
    : > "$state"
    case $name in
    running)
        # Writes throttled to 4 MiB/s on the source: the 12 MiB fio writes
        # after ZR-MIGRATE-NOW take 3 s, so the migration starts while fio
        # runs however fast the guest is (a fast guest finished first).
        src=(-drive "file=$img,if=none,id=zbc0,format=raw,cache=writeback,throttling.bps-write=4194304") ;;
    nvme-zns-live)
        # 1 MiB/s: 12 s, so that the live migration of the busy VM (its
        # RAM sent while the guest runs) ends while fio still writes.
        src=(-drive "file=$img,if=none,id=zbc0,format=raw,cache=writeback,throttling.bps-write=1048576") ;;
    ufs-*|nvme-zns)
        src=(-drive "file=$img,if=none,id=zbc0,format=raw,cache=writeback") ;;
    enospc)
        src=(-drive "if=none,id=zbc0,format=raw,cache=writeback,werror=enospc,file.driver=blkdebug,file.image.driver=file,file.image.filename=$img,file.inject-error.0.event=write_aio,file.inject-error.0.sector=$((16384 + 1024)),file.inject-error.0.errno=28,file.inject-error.0.once=on") ;;
    esac
    "$top/scripts/run-guest" --plan zone-migrate --log-dir "$d/source" \
        --timeout 300 ${params[@]+"${params[@]}"} \
        ${RUN_GUEST_ARGS[@]+"${RUN_GUEST_ARGS[@]}"} -- \
        "${src[@]}" "${devs[@]:2}" -trace zbc_mig_save \
        -trace ufs_zoned_mig_save_req -trace nvme_zns_mig_save_req \
        > "$d/source/run-guest.out" 2>&1 &
    runner=$!
    for ((i = 0; i < 3000; i++)); do
        kill -0 "$runner" 2>/dev/null || break
        if [ $name != enospc ]; then
            grep -aq '^ZR-MIGRATE-NOW' "$d/source/console.log" 2>/dev/null && break
        elif [ -S "$d/source/qmp.sock" ] && [ "$(status "$d/source/qmp.sock")" = io-error ]; then
            break
        fi
        sleep 0.1
    done
    if [ $name != enospc ]; then
        line=$(grep -a '^ZR-MIGRATE-NOW' "$d/source/console.log" 2>/dev/null || true)
        tap "$([ -n "$line" ] && echo 1)" "$name: the guest reached the migration point (${line:-no ZR-MIGRATE-NOW})"
        case $name in ufs-*|nvme-zns)
            qmp "$d/source/qmp.sock" '{"execute": "stop"}' > /dev/null 2>&1 || true ;;
        esac
    else
        st=$(status "$d/source/qmp.sock")
        tap "$([ "$st" = io-error ] && echo 1)" "$name: the source stopped on the write error (status ${st:-none})"
    fi
    out=$(qmp "$d/source/qmp.sock" \
        '{"execute": "migrate-set-capabilities", "arguments": {"capabilities": [{"capability": "events", "state": true}]}}' \
        "{\"execute\": \"migrate\", \"arguments\": {\"uri\": \"file:$mig\"}}" 2>&1 || true)
    tap "$(grep -q '"status": "completed"' <<< "$out" && echo 1)" "$name: migrate to a file completed"
    qmp "$d/source/qmp.sock" '{"execute": "quit"}' > /dev/null 2>&1 || true
    wait "$runner" || true
    # The source's own checks, before the migration point; its run ends
    # without a verdict, as it was migrated away.
    grep -aE '^(not )?ok [0-9]+ - ' "$d/source/run-guest.out" | grep -v ' 999 - ' |
        sed "s/ - / - $name: source: /" || true
    [ "$(grep -aE '^not ok [0-9]+ - ' "$d/source/run-guest.out" | grep -vc ' 999 - ')" = 0 ] || rc=1
    saved=$(grep -c 'zbc_mig_save' "$d/source/qemu.stderr" || true)
    if [ $name = nvme-zns-live ]; then
        echo "# host: $name: $(grep -c 'nvme_zns_mig_save_req' "$d/source/qemu.stderr" || true) controller command(s) in flight travelled with the live migration"
    elif [ $name = nvme-zns ]; then
        saved=$(grep -c 'nvme_zns_mig_save_req' "$d/source/qemu.stderr" || true)
        tap "$([ "$saved" -gt 0 ] && echo 1)" "$name: the controller's commands in flight travelled with the migration ($saved: $(sed -n 's/.*nvme_zns_mig_save_req.* state \([0-9]*\) list \([0-9]*\).*/state \1 list \2/p' "$d/source/qemu.stderr" | sort | uniq -c | awk '{ printf "%s%s: %s", s, $1, substr($0, index($0, $2)); s = "; " }'))"
    elif [ $name = enospc ]; then
        tap "$([ "$saved" -gt 0 ] && echo 1)" "$name: commands in flight travelled with the migration ($saved: $(sed -n 's/.*saved as kind \([0-9]\).*/\1/p' "$d/source/qemu.stderr" | sort | uniq -c | awk '{ printf "%s%s of kind %s", s, $1, $2; s = ", " }'))"
    else
        echo "# host: $name: $saved command(s) in flight travelled with the migration"
    fi
    case $name in ufs-*)
        saved=$(grep -c 'ufs_zoned_mig_save_req' "$d/source/qemu.stderr" || true)
        tap "$([ "$saved" -gt 0 ] && echo 1)" "$name: the controller's commands in flight travelled with the migration ($saved: $(sed -n 's/.*dispatch state \([0-9]\) at LU \([0-9]\) LU done \([0-9]\) service done \([0-9]\).*/state \1 LU \2 done \3 service done \4/p' "$d/source/qemu.stderr" | sort | uniq -c | awk '{ printf "%s%s: %s", s, $1, substr($0, index($0, $2)); s = "; " }'))" ;;
    esac

    # The destination: loads the file and runs the rest of the plan (the
    # enospc one is resumed by the host, as the source stood stopped).
    "$top/scripts/run-guest" --plan zone-migrate --log-dir "$d/dest" \
        --timeout 300 ${params[@]+"${params[@]}"} \
        ${RUN_GUEST_ARGS[@]+"${RUN_GUEST_ARGS[@]}"} -- \
        "${devs[@]}" -incoming "file:$mig" > "$d/dest/run-guest.out" 2>&1 &
    runner=$!
    if [ $name = enospc ] || [[ $name = ufs-* ]] || [ $name = nvme-zns ]; then
        for ((i = 0; i < 600; i++)); do
            st=
            [ -S "$d/dest/qmp.sock" ] && st=$(status "$d/dest/qmp.sock")
            [ -n "$st" ] && [ "$st" != inmigrate ] && break
            kill -0 "$runner" 2>/dev/null || break
            sleep 0.1
        done
        if [ $name = enospc ]; then
            tap "$([ "$st" = io-error ] && echo 1)" "$name: the destination stands stopped on the error (status ${st:-none})"
        else
            tap "$([ "$st" = paused ] && echo 1)" "$name: the destination stands stopped as the source was (status ${st:-none})"
        fi
        qmp "$d/dest/qmp.sock" '{"execute": "cont"}' > /dev/null 2>&1 || true
    fi
    wait "$runner" || rc=1
    sed "s/ - / - $name: /" "$d/dest/run-guest.out" | grep -aE '^(not )?ok [0-9]+ - |^ZR-' || true
    grep -aq '^ZR-VERDICT PASS' "$d/dest/run-guest.out" || rc=1
    rm -f "$mig"

    # A cold boot: the zone state the destination wrote.
    "$top/scripts/run-guest" --plan zone-migrate --param check=1 \
        ${params[@]+"${params[@]}"} \
        --log-dir "$d/cold" --timeout 120 ${RUN_GUEST_ARGS[@]+"${RUN_GUEST_ARGS[@]}"} \
        -- "${devs[@]}" > "$d/cold/run-guest.out" 2>&1 || rc=1
    sed "s/ - / - $name: /" "$d/cold/run-guest.out" | grep -aE '^(not )?ok [0-9]+ - |^ZR-' || true
}

RUN_GUEST_ARGS=("$@")
lu="drive=zbc0,zone-state=zs0,zone-size=4M,conv-zones=1,reorder=random"
ufs_lat="lat-write-ns=20000000,max-parallel=1"
drives=(
    -drive "file=$img,if=none,id=zbc0,format=raw,cache=writeback"
    -drive "file=$state,if=none,id=zs0,format=raw,cache=writeback"
)
mkdir -p "$logdir"
for name in ${ZR_ONLY:-running enospc ufs-mcq ufs-legacy nvme-zns nvme-zns-live}; do
    scenario "$name"
done
rm -f "$img" "$state"
exit $rc
