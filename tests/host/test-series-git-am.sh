#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# guest/linux/patches is a series a user can `git am` onto a 6.12 kernel
# tree of their own (README, docs/system/devices/own-kernel.rst): in a
# scratch git repository holding the files the series touches, taken from
# the unpacked linux-source-6.12 of the guest build, the documented command
# (the patches in the order of patches/series, the cover letter left out)
# applies every patch as a commit with its author and subject, and the
# result equals the tree guest/build-kernel patches (its patched copy).
#
#   tests/host/test-series-git-am.sh
#
# Environment: B (build directory).  Output is TAP.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-$top/build}
P=$top/guest/linux/patches
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() {
    n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; shift
    local l; for l in "$@"; do printf '%s\n' "$l" | sed 's/^/# /'; done
}

pristine=$(ls -d "$B"/linux-src/pristine-* 2>/dev/null | tail -n 1)
[ -n "$pristine" ] && [ -f "$pristine/.zr-unpacked" ] ||
    { echo "Bail out! no unpacked linux-source-6.12 under $B/linux-src (make kernel)"; exit 1; }
command -v git >/dev/null || { echo "Bail out! git not installed"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/zr-git-am.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

mapfile -t patches < <(grep -v '^#' "$P/series" | sed '/^$/d')
mapfile -t files < <(for p in "${patches[@]}"; do
    sed -n 's|^diff --git a/\([^ ]*\) b/.*|\1|p' "$P/$p"; done | sort -u)
repo=$tmp/linux
mkdir -p "$repo"
for f in "${files[@]}"; do
    [ -e "$pristine/$f" ] && install -D -m 0644 "$pristine/$f" "$repo/$f"
done
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.invalid
export GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.invalid
git -C "$repo" init -q && git -C "$repo" add -A && git -C "$repo" commit -q -m base ||
    { echo "Bail out! could not make the scratch repository"; exit 1; }

# The command of the docs, run in the kernel tree.
if out=$(cd "$repo" && git am $(grep -v '^#' "$P/series" | sed "s|^|$P/|") 2>&1); then
    ok "git am applies the ${#patches[@]} patches of patches/series to linux-source-6.12 ($(basename "$pristine" | sed 's/^pristine-//'))"
else
    not_ok "git am applies the series" "$out"
fi
if [ "$(git -C "$repo" rev-list --count HEAD)" = $((${#patches[@]} + 1)) ]; then
    ok "one commit a patch"
else
    not_ok "one commit a patch" "$(git -C "$repo" log --oneline)"
fi
if [ "$(git -C "$repo" log -1 --format=%an HEAD)" != t ]; then
    ok "the commits keep the patches' author ($(git -C "$repo" log -1 --format=%an HEAD))"
else
    not_ok "the commits keep the patches' author"
fi
# A long Subject: is folded in the mail; its first line starts the commit's.
mapfile -t subjects < <(git -C "$repo" log --reverse --format=%s | sed 1d)
bad=
for i in "${!patches[@]}"; do
    first=$(sed -n '/^Subject: /{s/^Subject: \[PATCH[^]]*\] //p;q}' "$P/${patches[i]}")
    case ${subjects[i]:-} in "$first"*) ;; *) bad+="${patches[i]}: '${subjects[i]:-}' "$'\n' ;; esac
done
if [ -z "$bad" ]; then
    ok "the commits' subjects are the patches' subjects, in the series' order"
else
    not_ok "the commits' subjects are the patches' subjects, in the series' order" "$bad"
fi
patched=$B/linux-src/patched
if [ -f "$patched/.zr-patchset" ]; then
    diff=$(for f in "${files[@]}"; do
        if [ -e "$repo/$f" ] || [ -e "$patched/$f" ]; then
            cmp -s "$repo/$f" "$patched/$f" || echo "$f"
        fi
    done)
    if [ -z "$diff" ]; then
        ok "the result equals guest/build-kernel's patched tree"
    else
        not_ok "the result equals guest/build-kernel's patched tree" "differ: $diff"
    fi
else
    n=$((n + 1)); echo "ok $n - the result equals guest/build-kernel's patched tree # SKIP no patched tree (make kernel)"
fi
echo "1..$n"
[ $failed -eq 0 ]
