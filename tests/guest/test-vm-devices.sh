#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A developer's own VM (issue 13, docs/system/devices/own-kernel.rst), on
# the test kernel: user networking both ways (guest nc to a host loopback
# listener through 10.0.2.2; a hostfwd port, as for ssh, to a guest nc
# listener), a 9p shared directory, virtio-blk on aio=io_uring and
# aio=native drives, virtio-rng, and ufs-zoned with a zoned LU on an
# io_uring file drive, all in one guest (guest/plans/vm-devices.sh; the
# host side of the networking is tests/guest/vm-net-host.py).  The host
# then checks what the guest sent and wrote.
#
#   tests/guest/test-vm-devices.sh [run-guest options, e.g. --verbose]
#
# Output is TAP; exit 0 iff the guest and the host checks passed.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-$top/build}
export B
logdir=$B/guest-logs/vm-devices
zone_size=$((4 << 20))
fwd_port=2222
mkdir -p "$logdir"
rm -rf "$logdir/share" "$logdir"/*.img
mkdir "$logdir/share"
tok=$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
echo "share-$tok" > "$logdir/share/from-host"
truncate -s 64M "$logdir/uring.img" "$logdir/native.img"
truncate -s 256M "$logdir/zbc.img"
rm -f "$logdir/console.log"

exec {host}< <(exec python3 "$top/tests/guest/vm-net-host.py" --token "$tok" \
                   --console "$logdir/console.log" --timeout 330)
hostpid=$!
read -r -u "$host" lport fport || { echo "Bail out! vm-net-host.py did not start"; exit 1; }

rc=0
"$top/scripts/run-guest" --plan vm-devices --log-dir "$logdir" --timeout 300 "$@" \
    --param token="$tok" --param host_port="$lport" --param fwd_port="$fwd_port" \
    --param share_tag=zrshare --param zone_size="$zone_size" --param conv=1 \
    -- \
    -netdev "user,id=net0,hostfwd=tcp:127.0.0.1:$fport-:$fwd_port" \
    -device virtio-net-pci,netdev=net0 \
    -virtfs "local,path=$logdir/share,mount_tag=zrshare,security_model=none,id=share0" \
    -blockdev "driver=file,filename=$logdir/uring.img,node-name=uring0,aio=io_uring" \
    -device virtio-blk-pci,drive=uring0,serial=uring \
    -blockdev "driver=file,filename=$logdir/native.img,node-name=native0,aio=native,cache.direct=on" \
    -device virtio-blk-pci,drive=native0,serial=native \
    -device virtio-rng-pci \
    -blockdev "driver=file,filename=$logdir/zbc.img,node-name=zbc0,aio=io_uring" \
    -device ufs-zoned,id=ufs0,addr=10.0 \
    -device "scsi-zbc,bus=ufs0.0,lun=0,drive=zbc0,zone-size=$zone_size,conv-zones=1" || rc=$?

# The host's view.
n=900
tap() {     # tap OK DESC
    n=$((n + 1))
    if [ "$1" = 1 ]; then echo "ok $n - host: $2"; else echo "not ok $n - host: $2"; rc=1; fi
}
# Both of its exchanges end before the guest does; it has printed its
# results by now unless one never happened.
res=
while read -r -t 10 -u "$host" line; do res+="$line"$'\n'; done || true
kill "$hostpid" 2>/dev/null || true
exec {host}<&-
reply=$(sed -n 's/^guest_reply=//p' <<< "$res")
tap "$([ "$reply" = "guest-$tok" ] && echo 1)" "the loopback listener got the guest's line (got '$reply')"
tap "$(grep -qx 'forward_sent=1' <<< "$res" && echo 1)" "connected to the forwarded port 127.0.0.1:$fport"
tap "$([ "$(cat "$logdir/share/from-guest" 2>/dev/null)" = "guest-$tok" ] && echo 1)" \
    "the guest's file is in the shared directory"
for s in uring native; do
    got=$(head -c $((5 + ${#tok})) "$logdir/$s.img")
    tap "$([ "$got" = "disk-$tok" ] && echo 1)" "$s.img holds what the guest wrote (got '$got')"
done
[ $rc -ne 0 ] || rm -rf "$logdir/share" "$logdir"/*.img
exit $rc
