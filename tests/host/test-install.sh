#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# make install PREFIX=... (scripts/install) gives a QEMU that works from
# any directory: installed under a scratch prefix, the binary is started
# from / with no -L and q35's default devices (default NIC e1000e with
# user networking, standard VGA, SeaBIOS), boots the test guest
# (guest/plans/vm-defaults.sh) and prints nothing on its standard error;
# the docs, the kernel series and the config fragment are installed.
#
#   tests/host/test-install.sh
#
# Environment: B, GUEST_KERNEL, GUEST_INITRAMFS (default: the build's).
# Output is TAP.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-$top/build}
kernel=${GUEST_KERNEL:-$B/linux-patched/arch/x86/boot/bzImage}
initrd=${GUEST_INITRAMFS:-$B/guest/initramfs.cpio.gz}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/zr-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() {
    n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; shift
    local l; for l in "$@"; do printf '%s\n' "$l" | sed 's/^/# /'; done
}

if out=$(B=$B "$top/scripts/install" "$prefix" 2>&1); then ok "scripts/install $prefix"
else not_ok "scripts/install $prefix" "$out"; echo "1..$n"; exit 1; fi
for f in bin/qemu-system-x86_64 bin/qemu-img share/doc/qemu-zoned-reorder/README.md \
         share/doc/qemu-zoned-reorder/docs/system/devices/own-kernel.rst \
         share/qemu-zoned-reorder/linux/patches/series \
         share/qemu-zoned-reorder/linux/patches/0000-cover-letter.patch \
         share/qemu-zoned-reorder/linux/zoned-reorder.config; do
    if [ -f "$prefix/$f" ]; then ok "installed $f"; else not_ok "installed $f"; fi
done
if "$prefix/bin/qemu-img" --version | grep -q '^qemu-img version 10\.0\.'; then
    ok "installed qemu-img runs"
else
    not_ok "installed qemu-img runs" "$("$prefix/bin/qemu-img" --version 2>&1)"
fi

if [ ! -f "$kernel" ] || [ ! -f "$initrd" ]; then
    not_ok "the installed QEMU boots the test guest" "no $kernel or $initrd (make kernel initramfs)"
    echo "1..$n"; exit 1
fi
# From /, no -L, the machine's default devices; the guest powers off.
(cd / && PATH=$prefix/bin:$PATH timeout 300 qemu-system-x86_64 -M q35 -accel tcg -m 512M \
    -nographic -no-reboot -kernel "$kernel" -initrd "$initrd" \
    -append "console=ttyS0 panic=-1 scsi_debug.add_host=0 null_blk.nr_devices=0 zr.plan=vm-defaults zr.timeout=240" \
    < /dev/null > "$tmp/console.raw" 2> "$tmp/stderr")
qrc=$?
tr -d '\r' < "$tmp/console.raw" > "$tmp/console.log"
grep -E '^(ok|not ok) [0-9]+' "$tmp/console.log" | sed 's/^\(not \)\{0,1\}ok [0-9]* - /guest: /' |
    while read -r l; do echo "# $l"; done
if [ $qrc = 0 ] && grep -qx 'ZR-VERDICT PASS' "$tmp/console.log"; then
    ok "the installed QEMU, run from /, boots q35 with its default devices (guest: e1000e and VGA present)"
else
    not_ok "the installed QEMU, run from /, boots q35 with its default devices" \
        "exit status $qrc" "$(tail -n 20 "$tmp/console.log")" "$(cat "$tmp/stderr")"
fi
if [ ! -s "$tmp/stderr" ]; then
    ok "and prints no message (no missing default NIC, display or firmware)"
else
    not_ok "and prints no message (no missing default NIC, display or firmware)" "$(cat "$tmp/stderr")"
fi
bad='(WARNING:|BUG:|Oops|general protection fault|Kernel panic|INFO: task .* blocked for more than)'
if b=$(grep -aE "^\[ *[0-9]+\.[0-9]+\] .*$bad" "$tmp/console.log" | head -n 3) && [ -n "$b" ]; then
    not_ok "kernel console: no warning, BUG or oops" "$b"
else
    ok "kernel console: no warning, BUG or oops"
fi
echo "1..$n"
[ $failed -eq 0 ]
