#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# vm-devices: the pieces of a developer's own VM (issue 13,
# docs/system/devices/own-kernel.rst) work in a guest, next to our devices:
#   - user networking (slirp) on virtio-net: the guest, at QEMU's default
#     address 10.0.2.15, connects with nc to a listener on the host's
#     loopback through the host gateway 10.0.2.2, and a host connection to
#     a forwarded port (hostfwd, as for ssh) reaches a guest nc listener;
#   - a shared directory over 9p (virtio-9p-pci) read and written;
#   - virtio-blk disks on aio=io_uring and aio=native drives written and
#     read back (the host checks the bytes landed in the image files);
#   - virtio-rng feeds the guest's hwrng;
#   - a ufs-zoned controller whose zoned LU (scsi-zbc) is a file on an
#     io_uring drive takes a write at a zone's write pointer.
# The host side is tests/guest/test-vm-devices.sh.
#
# Parameters (kernel command line zr.* -> environment):
#   zr.token=WORD        what the host and the guest exchange: the host
#                        sends host-WORD, the guest answers guest-WORD; the
#                        forwarded connection carries fwd-WORD; the shared
#                        directory holds from-host = share-WORD; the
#                        guest writes disk-WORD to each virtio disk  (ZR_TOKEN)
#   zr.host_port=N       the host listener's port on 10.0.2.2       (ZR_HOST_PORT)
#   zr.fwd_port=N        guest port the host's forward goes to     (ZR_FWD_PORT)
#   zr.share_tag=TAG     9p mount tag                               (ZR_SHARE_TAG)
#   zr.zone_size=BYTES   the zoned LU's zone size, zr.conv=N its conventional
#                        zones                          (ZR_ZONE_SIZE, ZR_CONV)
# Prints "# vm-devices: listening on tcp FWD_PORT" once the guest listener
# is up; the host connects after that line.
. "$ZR_LIB"

zr_need ZR_TOKEN ZR_HOST_PORT ZR_FWD_PORT ZR_SHARE_TAG ZR_ZONE_SIZE ZR_CONV
tok=$ZR_TOKEN

# --- 1. networking ------------------------------------------------------
zr_wait_for "eth0" 60 test -e /sys/class/net/eth0 || zr_bail "no eth0 (virtio-net)"
zr_is "eth0 is driven by virtio_net" \
    "$(basename "$(readlink /sys/class/net/eth0/device/driver)")" virtio_net
# slirp's defaults: guest 10.0.2.15/24, host gateway 10.0.2.2.  A static
# address: the test has no DHCP client of its own to wait for.
zr_check "eth0 up at 10.0.2.15/24, default route via 10.0.2.2" sh -c '
    ip link set lo up && ip link set eth0 up &&
    ip addr add 10.0.2.15/24 dev eth0 && ip route add default via 10.0.2.2'
got=$(echo "guest-$tok" | timeout 60 nc 10.0.2.2 "$ZR_HOST_PORT" 2>&1)
zr_is "guest nc reaches the host's loopback listener through 10.0.2.2" "$got" "host-$tok"

# The forwarded port: listen, say so once the socket is listening (the
# kernel's own table, not a delay), take one connection.
nc -l -p "$ZR_FWD_PORT" < /dev/null > /tmp/fwd.out 2> /tmp/fwd.err &
ncpid=$!
hexport=$(printf '%04X' "$ZR_FWD_PORT")
listening() {
    cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
        awk -v p=":$hexport" '$2 ~ p"$" && $4 == "0A" { f = 1 } END { exit !f }'
}
if zr_wait_for "a listener on tcp $ZR_FWD_PORT" 30 listening; then
    zr_diag "vm-devices: listening on tcp $ZR_FWD_PORT"
    if zr_wait_for "the forwarded connection" 120 sh -c "! kill -0 $ncpid"; then
        wait "$ncpid"
        zr_is "a host connection to the forwarded port reaches the guest's nc" \
            "$(cat /tmp/fwd.out)" "fwd-$tok"
    else
        kill "$ncpid" 2>/dev/null
        zr_fail "a host connection to the forwarded port reaches the guest's nc" "none came"
    fi
else
    zr_fail "guest nc listens on tcp $ZR_FWD_PORT" "$(cat /tmp/fwd.err)" \
        "nc $(kill -0 "$ncpid" 2>/dev/null && echo running || echo exited)" "$(cat /proc/net/tcp)"
    kill "$ncpid" 2>/dev/null
fi

# --- 2. shared directory (9p) ----------------------------------------------
mkdir -p /mnt/share
if zr_check "mount -t 9p $ZR_SHARE_TAG (virtio transport, 9p2000.L)" \
        mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 "$ZR_SHARE_TAG" /mnt/share; then
    zr_is "the host's file reads back" "$(cat /mnt/share/from-host 2>&1)" "share-$tok"
    zr_check "the guest writes a file into the shared directory" \
        sh -c "echo guest-$tok > /mnt/share/from-guest && sync"
    umount /mnt/share
fi

# --- 3. virtio-blk on io_uring and native AIO --------------------------------
# virtio_blk_disk SERIAL: the vdX whose serial is SERIAL.
virtio_blk_disk() {
    local d
    for d in /sys/block/vd*; do
        [ "$(cat "$d/serial" 2>/dev/null)" = "$1" ] && { basename "$d"; return 0; }
    done
    return 1
}
for s in uring native; do
    if ! zr_wait_for "virtio-blk $s" 60 virtio_blk_disk "$s"; then
        zr_fail "virtio-blk disk with serial $s appears"
        continue
    fi
    d=$(virtio_blk_disk "$s")
    zr_wait_for "/dev/$d" 10 test -b "/dev/$d"
    # One 4 KiB block: the token, padded with zeros, written with O_DIRECT
    # and read back the same way (so it went to the drive, not the page
    # cache).
    head -c 4096 /dev/zero > /tmp/blk
    printf 'disk-%s' "$tok" | dd of=/tmp/blk conv=notrunc 2>/dev/null
    zr_check "$s: /dev/$d takes a 4 KiB O_DIRECT write" \
        dd if=/tmp/blk of="/dev/$d" bs=4096 count=1 oflag=direct conv=fsync
    dd if="/dev/$d" of=/tmp/blk.back bs=4096 count=1 iflag=direct 2>/dev/null
    zr_check "$s: and reads it back" cmp /tmp/blk /tmp/blk.back
done

# --- 4. virtio-rng ------------------------------------------------------------
zr_wait_for "hwrng" 30 test -e /sys/class/misc/hw_random/rng_current
zr_is "the hwrng is virtio-rng" "$(zr_sysfs /sys/class/misc/hw_random/rng_current | sed 's/\.[0-9]*$//')" virtio_rng
n=$(dd if=/dev/hwrng bs=64 count=1 2>/dev/null | wc -c)
zr_is "/dev/hwrng gives 64 bytes" "$n" 64

# --- 5. ufs-zoned with a file-backed zoned LU on io_uring --------------------
zs=$((ZR_ZONE_SIZE / 512))
seq0=$((ZR_CONV * zs))          # the first sequential zone, in sectors
zoned_lu() { zr_lu_node 0000:00:10.0 0 block; }
if zr_wait_for "the ufs-zoned LU" 120 zoned_lu; then
    z=$(zoned_lu)
    zr_wait_for "/dev/$z" 10 test -b "/dev/$z"
    zr_is "ufs-zoned LU 0 ($z) is host-managed" "$(zr_sysfs /sys/block/$z/queue/zoned)" host-managed
    zr_check "a 64 KiB write at the first sequential zone's write pointer" \
        dd if=/dev/zero of="/dev/$z" bs=65536 count=1 seek=$((seq0 * 512)) oflag=direct,seek_bytes
    wp=$(zr_zone_report "/dev/$z" | awk -v s=$seq0 '$1 == s { print $4 }')
    # blkzone reports the write pointer relative to the zone's start.
    zr_is "its write pointer moved by 64 KiB" "$wp" 128
else
    zr_fail "ufs-zoned LU 0 appears"
fi
zr_done
