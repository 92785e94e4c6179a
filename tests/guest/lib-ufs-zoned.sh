# SPDX-License-Identifier: GPL-2.0-or-later
#
# Sourced by tests/guest/test-ufs-zoned-*.sh: boot the guest on ufs-zoned
# controllers, one per reorder policy, and run the ufs-smoke plan; then
# check the controllers' own counters (qom-get after the guest is done,
# scripts/run-guest --qom) and print those checks as TAP too.
#
#   ufs_zoned_run LOGNAME MODE TIMEOUT [run-guest options]
#
# At most four controllers go in one guest: q35 routes INTA of every
# add-on slot to one of four GSIs, and Linux 6.12's ufshcd disables its
# (shared) IRQ line while runtime-suspended, which silences any other
# controller on that line.  So the five policies take two boots: none,
# spec, rr and random, then reverse.  In a boot, controller i (id
# ufs<i>, PCI slot 0x10 + i) runs its policy with auto-hibernate on and
# carries a file-backed scsi-zbc LU 0 (real data, so fio can verify).  In
# the first boot controller 0 also carries a file-backed scsi-hd LU 1,
# the plan sets controller 1's auto_hibern8 to 0 and controller 2's to
# 1 ms and leaves $gaps idle gaps on controller 2.  Host checks: no
# controller answered UNALIGNED WRITE (the stock kernel keeps one write
# per zone in flight; with the patched kernel the plan switches
# pipelining off) and never had two writes to one zone in service, controller
# 2 entered and left H8 at least once per gap, and in MCQ mode the writes
# came through more than one SQ.

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
B=${B:-$top/build}
export B

groups=("none spec rr random" "reverse")
size=$((64 << 20))              # 16 zones of 4 MiB, 1 conventional
zone_size=$((4 << 20))
conv=1
hd_size=$((16 << 20))
gaps=10

ufs_zoned_run() {
    local name=$1 mode=$2 timeout=$3 g rc=0
    shift 3
    for g in "${!groups[@]}"; do
        read -r -a policies <<< "${groups[g]}"
        ufs_zoned_boot "$name-$((g + 1))" "$mode" "$timeout" "$g" "$@" || rc=1
    done
    return $rc
}

# ufs_zoned_boot LOGNAME MODE TIMEOUT GROUP [run-guest options]: one guest
# with the controllers of ${policies[@]}; the extras in group 0 only.
ufs_zoned_boot() {
    local name=$1 mode=$2 timeout=$3 first=$(($4 == 0)) logdir out rc=0 i dev=() qom=() t
    local extra=(--param hd_size=0 --param ah8=-1 --param ah8_off=-1)
    shift 4
    logdir=$B/guest-logs/$name
    mkdir -p "$logdir"
    rm -f "$logdir"/*.img
    for i in "${!policies[@]}"; do
        truncate -s "$size" "$logdir/zbc$i.img"
        dev+=(-drive "file=$logdir/zbc$i.img,if=none,id=zbc$i,format=raw,cache=unsafe"
              -device "ufs-zoned,id=ufs$i,addr=$(printf '%02x' $((0x10 + i))).0,mode=$mode,reorder=${policies[i]},auto-hibernate=on"
              -device "scsi-zbc,bus=ufs$i.0,lun=0,drive=zbc$i,zone-size=$zone_size,conv-zones=$conv")
        for t in unaligned-writes zone-write-overlaps h8-entries h8-exits starts queue-starts; do
            qom+=(--qom "/machine/peripheral/ufs$i:$t")
        done
    done
    if [ $first = 1 ]; then
        truncate -s "$hd_size" "$logdir/hd.img"
        dev+=(-drive "file=$logdir/hd.img,if=none,id=hd0,format=raw,cache=unsafe"
              -device "scsi-hd,bus=ufs0.0,lun=1,drive=hd0")
        extra=(--param hd_size="$hd_size" --param ah8=2 --param ah8_off=1 --param gaps="$gaps")
    fi
    out=$logdir/run-guest.out
    "$top/scripts/run-guest" --plan ufs-smoke --log-dir "$logdir" --timeout "$timeout" \
        "${qom[@]}" "$@" \
        --param mode="$mode" --param policies="$(IFS=,; echo "${policies[*]}")" \
        --param size="$size" --param zone_size="$zone_size" --param conv="$conv" \
        --param pipeline=0 "${extra[@]}" -- "${dev[@]}" | tee "$out" || rc=$?
    ufs_zoned_host_checks "$mode" "$out" "$first" || rc=1
    [ $rc -ne 0 ] || rm -f "$logdir"/*.img
    return $rc
}

# qom_val OUT ID PROP: a ZR-QOM value from run-guest's output.
qom_val() {
    awk -v p="/machine/peripheral/$2" -v k="$3" '$1 == "ZR-QOM" && $2 == p && $3 == k { print $4 }' "$1"
}

ufs_zoned_host_checks() {
    local mode=$1 out=$2 first=$3 n=900 fails=0 i v e x starts
    tap() {     # tap OK DESC
        n=$((n + 1))
        if [ "$1" = 1 ]; then echo "ok $n - host: $2"; else echo "not ok $n - host: $2"; fails=1; fi
    }
    if ! grep -q '^ZR-QOM ' "$out"; then
        tap 0 "device counters read after the guest finished"
        return 1
    fi
    for i in "${!policies[@]}"; do
        v=$(qom_val "$out" "ufs$i" unaligned-writes)
        starts=$(qom_val "$out" "ufs$i" starts)
        tap "$([ "$v" = 0 ] && echo 1)" "ufs$i (reorder=${policies[i]}): 0 UNALIGNED WRITE in $starts commands (got $v)"
        v=$(qom_val "$out" "ufs$i" zone-write-overlaps)
        tap "$([ "$v" = 0 ] && echo 1)" "ufs$i: never two writes to one zone in service (overlaps: $v)"
        if [ "$mode" = mcq ]; then
            v=$(qom_val "$out" "ufs$i" queue-starts)
            tap "$([ "$(tr ',' '\n' <<< "$v" | awk '$1 > 0' | wc -l)" -gt 1 ] && echo 1)" \
                "ufs$i: commands started from more than one SQ (per SQ: $v)"
        fi
    done
    [ "$first" = 1 ] || return $fails
    e=$(qom_val "$out" ufs2 h8-entries)
    x=$(qom_val "$out" ufs2 h8-exits)
    tap "$([ "${e:-0}" -ge "$gaps" ] && [ "${x:-0}" -ge "$gaps" ] && echo 1)" \
        "ufs2 (auto_hibern8 = 1 ms, $gaps idle gaps): H8 entries $e, exits $x, each >= $gaps"
    echo "ZR-RESULT ufs-h8 ctrl=ufs2 entries=$e exits=$x ctrl_off=ufs1 entries_off=$(qom_val "$out" ufs1 h8-entries)"
    return $fails
}
