#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The built qemu-system-x86_64 and qemu-img have what a storage developer's
# own VM needs (issue 13): KVM and TCG, user networking, virtio-net, e1000e,
# virtio-blk, virtio-rng, 9p, the standard VGA (no warning about q35's
# default NIC or display), Linux AIO and io_uring for file-backed drives,
# zstd-compressed qcow2, and our devices; -accel kvm fails with QEMU's
# reason when there is no KVM device, and the fallback forms take TCG and
# say so.  These machines may have no /dev/kvm, so the missing device is
# also made on purpose: -accel kvm,device=/nonexistent.
#
#   tests/host/test-vm-features.sh
#
# Environment: QEMU, QEMU_IMG (default: the build's), B.  Output is TAP.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-$top/build}
QEMU=${QEMU:-$B/qemu/qemu-system-x86_64}
QEMU_IMG=${QEMU_IMG:-$B/qemu/qemu-img}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/zr-vm-features.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0

ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() {
    n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; shift
    local l; for l in "$@"; do printf '%s\n' "$l" | sed 's/^/# /'; done
}
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }

# qemu_quit ARGS...: start QEMU stopped (-S) with ARGS, quit it over QMP;
# QMP replies in $tmp/out, QEMU's messages in $tmp/err; QEMU's exit status.
qemu_quit() {
    printf '%s\n' '{"execute":"qmp_capabilities"}' '{"execute":"query-kvm"}' \
        '{"execute":"quit"}' |
        timeout 60 "$QEMU" -display none -S -qmp stdio "$@" > "$tmp/out" 2> "$tmp/err"
}
# kvm_enabled: what query-kvm said in the last qemu_quit run.
kvm_enabled() { grep -o '"enabled": [a-z]*' "$tmp/out" | head -n 1 | cut -d' ' -f2; }

[ -x "$QEMU" ] || { echo "Bail out! $QEMU not built"; exit 1; }
# A QEMU run from its build tree looks for firmware in its qemu-bundle/,
# not in the configured firmware path (tests/host/test-install.sh runs the
# installed one without -L).
fw=(-L /usr/share/seabios -L /usr/share/qemu -L /usr/lib/ipxe/qemu)

# 1. devices
"$QEMU" -device help > "$tmp/devices" 2>&1
for d in virtio-net-pci e1000e virtio-blk-pci virtio-rng-pci virtio-9p-pci VGA \
         virtio-scsi-pci ufs-zoned scsi-zbc; do
    if grep -q "^name \"$d\"" "$tmp/devices"; then ok "-device help lists $d"
    else not_ok "-device help lists $d"; fi
done

# 2. accelerators, netdevs, fsdevs
"$QEMU" -accel help > "$tmp/accel" 2>&1
for a in kvm tcg; do
    if grep -qx "$a" "$tmp/accel"; then ok "-accel help lists $a"
    else not_ok "-accel help lists $a" "$(cat "$tmp/accel")"; fi
done
"$QEMU" -M none -netdev help > "$tmp/netdev" 2>&1
if grep -qx user "$tmp/netdev"; then ok "-netdev help lists user (libslirp)"
else not_ok "-netdev help lists user (libslirp)" "$(cat "$tmp/netdev")"; fi

# 3. q35 with its defaults starts without a warning (default NIC e1000e
# with its option ROM, default display std VGA), from any directory.
if (cd / && qemu_quit -M q35 -accel tcg "${fw[@]}") && [ ! -s "$tmp/err" ]; then
    ok "q35 with the default devices starts with no message"
else
    not_ok "q35 with the default devices starts with no message" "$(cat "$tmp/err")"
fi

# 4. block backends: aio=io_uring and aio=native are compiled in (a build
# without them says "is not supported in this build")
truncate -s 16M "$tmp/disk.img"
for o in aio=io_uring aio=native,cache.direct=on aio=threads; do
    if qemu_quit -M none -accel tcg -nodefaults \
            -blockdev "driver=file,filename=$tmp/disk.img,node-name=f0,$o"; then
        ok "-blockdev driver=file,$o accepted"
    else
        not_ok "-blockdev driver=file,$o accepted" "$(cat "$tmp/err")"
    fi
done
if ! qemu_quit -M none -accel tcg -nodefaults \
        -blockdev "driver=file,filename=$tmp/disk.img,node-name=f0,aio=native" &&
   grep -q 'requires cache.direct=on' "$tmp/err"; then
    ok "aio=native without cache.direct=on is refused with the reason"
else
    not_ok "aio=native without cache.direct=on is refused with the reason" "$(cat "$tmp/err")"
fi

# 5. qcow2 with zstd compression, written compressed and read back
if "$QEMU_IMG" create -q -f qcow2 -o compression_type=zstd "$tmp/z.qcow2" 16M 2> "$tmp/err" &&
   "$QEMU_IMG" info "$tmp/z.qcow2" 2>&1 | grep -q 'compression type: zstd'; then
    ok "qemu-img creates a zstd-compressed qcow2"
else
    not_ok "qemu-img creates a zstd-compressed qcow2" "$(cat "$tmp/err")"
fi
head -c 1M /dev/urandom > "$tmp/raw.img"
truncate -s 16M "$tmp/raw.img"
if "$QEMU_IMG" convert -c -O qcow2 -o compression_type=zstd "$tmp/raw.img" "$tmp/c.qcow2" 2> "$tmp/err" &&
   "$QEMU_IMG" compare -q "$tmp/raw.img" "$tmp/c.qcow2" 2>> "$tmp/err"; then
    ok "qemu-img convert -c (zstd) round-trips"
else
    not_ok "qemu-img convert -c (zstd) round-trips" "$(cat "$tmp/err")"
fi

# 6. KVM.  A missing KVM device: -accel kvm fails and says why.
if ! qemu_quit -M q35 "${fw[@]}" -nodefaults -accel kvm,device=/nonexistent &&
   grep -q 'failed to initialize kvm: No such file or directory' "$tmp/err"; then
    ok "-accel kvm without a KVM device fails: $(grep -m1 'Could not access' "$tmp/err" | sed 's/.*: Could/Could/')"
else
    not_ok "-accel kvm without a KVM device fails with the reason" "$(cat "$tmp/err")"
fi
# ... and with a fallback QEMU takes TCG and says so.
if qemu_quit -M q35 "${fw[@]}" -nodefaults -accel kvm,device=/nonexistent -accel tcg &&
   grep -q 'falling back to tcg' "$tmp/err" && [ "$(kvm_enabled)" = false ]; then
    ok "-accel kvm -accel tcg falls back to TCG with a message"
else
    not_ok "-accel kvm -accel tcg falls back to TCG with a message" "$(cat "$tmp/err" "$tmp/out")"
fi
# The fallback's other spelling is -machine accel=kvm:tcg ("-accel kvm:tcg"
# is not one: QEMU calls it an invalid accelerator).
if ! qemu_quit -M q35 "${fw[@]}" -nodefaults -accel kvm:tcg && grep -q 'invalid accelerator kvm:tcg' "$tmp/err"; then
    ok "-accel kvm:tcg is refused (the list form is -machine accel=kvm:tcg)"
else
    not_ok "-accel kvm:tcg is refused (the list form is -machine accel=kvm:tcg)" "$(cat "$tmp/err")"
fi
if [ -e /dev/kvm ]; then
    # This host has KVM: the plain forms use it when it works.  Whether a
    # guest runs well on it is the host's business; here only that QEMU
    # starts with it or falls back.
    if qemu_quit -M q35 "${fw[@]}" -nodefaults -machine accel=kvm:tcg; then
        ok "-machine accel=kvm:tcg starts (kvm enabled: $(kvm_enabled))"
    else
        not_ok "-machine accel=kvm:tcg starts" "$(cat "$tmp/err")"
    fi
    skip "-accel kvm fails when /dev/kvm is absent" "this host has /dev/kvm (covered by device=/nonexistent above)"
else
    if ! qemu_quit -M q35 "${fw[@]}" -nodefaults -accel kvm &&
       grep -q 'Could not access KVM kernel module' "$tmp/err"; then
        ok "-accel kvm fails when /dev/kvm is absent: $(grep -m1 'failed to initialize' "$tmp/err" | sed 's/.*: failed/failed/')"
    else
        not_ok "-accel kvm fails when /dev/kvm is absent" "$(cat "$tmp/err")"
    fi
    if qemu_quit -M q35 "${fw[@]}" -nodefaults -machine accel=kvm:tcg &&
       grep -q 'falling back to tcg' "$tmp/err" && [ "$(kvm_enabled)" = false ]; then
        ok "-machine accel=kvm:tcg falls back to TCG with a message"
    else
        not_ok "-machine accel=kvm:tcg falls back to TCG with a message" "$(cat "$tmp/err")"
    fi
fi

# 7. scripts/run-guest --accel: the choice, without booting (--dry-run)
rg() { RUN_GUEST_ACCEL= "$top/scripts/run-guest" --plan vm-devices --log-dir "$tmp/rg" \
           --kernel "$tmp/disk.img" --initrd "$tmp/disk.img" --dry-run "$@"; }
if out=$(RUN_GUEST_KVM_DEVICE=/nonexistent rg --accel kvm 2>&1); then
    not_ok "run-guest --accel kvm without a KVM device fails" "$out"
elif grep -q '/nonexistent does not exist (no KVM on this host' <<< "$out"; then
    ok "run-guest --accel kvm without a KVM device fails with the reason"
else
    not_ok "run-guest --accel kvm without a KVM device fails with the reason" "$out"
fi
if out=$(RUN_GUEST_KVM_DEVICE=/nonexistent rg 2>&1) && grep -qx 'accel=tcg' <<< "$out" &&
   grep -q 'using TCG: /nonexistent does not exist' <<< "$out" && grep -qx tcg <<< "$out"; then
    ok "run-guest's default (--accel auto) without a KVM device takes TCG and says why"
else
    not_ok "run-guest's default (--accel auto) without a KVM device takes TCG and says why" "$out"
fi
touch "$tmp/kvm"
chmod 600 "$tmp/kvm"
mknod "$tmp/kvmdev" c 1 3 2>/dev/null || cp -a /dev/null "$tmp/kvmdev" 2>/dev/null || true
if [ -c "$tmp/kvmdev" ]; then
    if out=$(RUN_GUEST_KVM_DEVICE=$tmp/kvmdev rg --accel auto 2>&1) && grep -qx 'accel=kvm' <<< "$out" &&
       grep -qx "kvm,device=$tmp/kvmdev" <<< "$out" && grep -qx tcg <<< "$out"; then
        ok "run-guest --accel auto with a KVM device asks for KVM with TCG as the fallback"
    else
        not_ok "run-guest --accel auto with a KVM device asks for KVM with TCG as the fallback" "$out"
    fi
    if out=$(RUN_GUEST_KVM_DEVICE=$tmp/kvmdev RUN_GUEST_QEMU_ARGS="-icount shift=0" rg 2>&1) &&
       grep -qx 'accel=tcg' <<< "$out"; then
        ok "run-guest --accel auto with -icount takes TCG"
    else
        not_ok "run-guest --accel auto with -icount takes TCG" "$out"
    fi
    if out=$(RUN_GUEST_KVM_DEVICE=$tmp/kvmdev rg --accel kvm -- -icount shift=0 2>&1); then
        not_ok "run-guest --accel kvm with -icount fails" "$out"
    else
        ok "run-guest --accel kvm with -icount fails: ${out#run-guest: error: }"
    fi
else
    skip "run-guest --accel auto with a KVM device" "cannot make a character device here"
fi
if out=$(rg --accel tcg 2>&1) && grep -qx 'accel=tcg' <<< "$out" && ! grep -q kvm <<< "$out"; then
    ok "run-guest --accel tcg asks for TCG alone"
else
    not_ok "run-guest --accel tcg asks for TCG alone" "$out"
fi
if out=$(rg --accel hvf 2>&1); then
    not_ok "run-guest --accel hvf is refused" "$out"
else
    ok "run-guest --accel hvf is refused: ${out#run-guest: error: }"
fi

echo "1..$n"
[ $failed -eq 0 ]
