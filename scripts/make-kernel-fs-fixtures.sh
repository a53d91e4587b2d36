#!/usr/bin/env bash
# Makes the kernel filesystem fixtures: ext4 images made by mkfs.ext4 and populated by the Linux kernel
# through a loop mount, each with a manifest of what the kernel shows in it.
#
# Two kinds (docs: the resources' fixtures/fs/README.md):
#   tree     populated by scripts/fs-populate.py (htree directories of thousands of names, extent trees
#            of depth 2, holes, unwritten extents, xattrs in the inode and in blocks, ACLs, symlinks,
#            hard links, fifos, sockets, devices, nanosecond and far-off times), cleanly unmounted.
#            After the unmount the journal's log blocks (not its superblock) are zeroed: an empty
#            journal (s_start 0) is never read past its superblock, and the stale transactions the
#            kernel leaves there would more than double the compressed size.
#   orphans  a power cut: a smaller tree, then files kept open after their last unlink and a
#            truncate of a file of thousands of extents caught half way, committed (syncfs) and
#            copied while still mounted (testing.md's method), so the copy needs journal recovery
#            and orphan processing. Its manifest is what the kernel shows after mounting a scratch
#            copy (it replays the journal and processes the orphans).
# Manifests come from scripts/fs-manifest.py run on the tree mounted read-only (so no atime changes);
# its first line holds statvfs's numbers.
#
# Each image is verified before it is kept:
#   tree     e2fsck -fn prints nothing; debugfs shows the promised structures (htree index levels,
#            extent tree depth 2, unwritten extents, an xattr block shared by two inodes).
#   orphans  the copy needs recovery; after a journal-only replay by debugfs journal_run (which,
#            unlike e2fsck -E journal_only, leaves the orphan list alone) the orphan file or list
#            holds the open-unlinked inodes and the half-truncated one, whose blocks reach past its
#            size; the kernel mounting a scratch copy logs "3 orphan inodes deleted" and
#            "1 truncate cleaned up", and e2fsck -fn afterwards prints nothing.
# Image and manifest are gzip -9'ed into the test kit's resources.
#
# Usage (as root): scripts/make-kernel-fs-fixtures.sh [output-dir [fixture-name...]]
#   default output-dir: ext4j-testkit/src/main/resources/io/ext4j/testkit/fixtures/fs
# Needs: e2fsprogs (mkfs.ext4, dumpe2fs, debugfs, e2fsck), util-linux (mount, fallocate), python3
# (setxattr, sockets, nanosecond utime and the manifest: Debian base has no setfattr or setfacl), gzip.
set -Eeuo pipefail
trap 'echo "failed at line $LINENO: $BASH_COMMAND" >&2' ERR

here="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$here/ext4j-testkit/src/main/resources/io/ext4j/testkit/fixtures/fs}"
[[ $EUID -eq 0 ]] || { echo "run as root (loop mounts)" >&2; exit 1; }
for t in mkfs.ext4 dumpe2fs debugfs e2fsck gzip mount umount findmnt dmesg fallocate python3 od; do
  command -v "$t" >/dev/null || { echo "missing tool: $t" >&2; exit 1; }
done
populate="$here/scripts/fs-populate.py"
manifest="$here/scripts/fs-manifest.py"
mkdir -p "$out"
work="$(mktemp -d /tmp/ext4j-fs-fixtures.XXXXXX)"
mnt="$work/mnt"
mkdir -p "$mnt"
fds=() # descriptors held open on the mount (orphans)
cleanup() {
  local fd
  for fd in "${fds[@]}"; do eval "exec $fd<&-" || true; done
  [[ -n ${bgpid:-} ]] && wait "$bgpid" 2>/dev/null || true
  mountpoint -q "$mnt" && umount "$mnt" || true
  rm -rf "$work"
}
trap cleanup EXIT

# Fixed identities so re-runs differ only in what the kernel chooses (times, generations).
UUID=5e7f1c2a-0b1d-4c3e-8f4a-6d2b9e0c1a22
HASH_SEED=3c1d2e4f-5a6b-4c7d-8e9f-0a1b2c3d4e66
# Upstream mke2fs.conf enables these two by default; Debian's /etc/mke2fs.conf does not.
UPSTREAM=(-O metadata_csum_seed,orphan_file)

# mkimage IMG BLOCKSIZE SIZE_MIB FEATURES: FEATURES is "upstream" or "debian".
mkimage() {
  local img=$1 bs=$2 size=$3 features=$4 opts=()
  [[ $features == upstream ]] && opts=("${UPSTREAM[@]}")
  rm -f "$img"
  truncate -s "${size}M" "$img"
  mkfs.ext4 -q -F -b "$bs" -U "$UUID" -E lazy_itable_init=0,lazy_journal_init=0,hash_seed="$HASH_SEED" \
    ${opts[@]+"${opts[@]}"} "$img"
}

fail() { echo "$1" >&2; exit 1; }

# take_manifest DEST: the manifest of the tree mounted on $mnt, which must be read-only by now.
take_manifest() {
  findmnt -n -o OPTIONS "$mnt" | grep -q '^ro' || fail "manifest of a mount that is not read-only"
  python3 "$manifest" "$mnt" > "$1"
}

# zero_log IMG: zeroes every journal block but the journal superblock (logical block 0).
zero_log() {
  local img=$1 bs
  bs=$(dumpe2fs -h "$img" 2>/dev/null | sed -n 's/^Block size: *//p')
  dumpe2fs -h "$img" 2>/dev/null | grep -q '^Journal start: *0$' || fail "$img: journal not empty"
  debugfs -R "blocks <8>" "$img" 2>/dev/null | python3 -c '
import sys
img, bs = sys.argv[1], int(sys.argv[2])
blocks = [int(b) for b in sys.stdin.read().split()]
assert len(blocks) >= 1024, "journal of %d blocks?" % len(blocks)
with open(img, "r+b") as f:
    for b in blocks[1:]:
        f.seek(b * bs)
        f.write(bytes(bs))
' "$img" "$bs"
}

# e2fsck -fn must print nothing but the pass headers and the summary.
assert_clean() {
  local report
  report="$(e2fsck -fn "$1" 2>&1)" || fail "e2fsck -fn $1 failed:"$'\n'"$report"
  if grep -E -v '^(e2fsck [0-9]|Pass [1-5]:|.*: [0-9]+/[0-9]+ files )' <<<"$report" | grep -q .; then
    fail "e2fsck -fn $1 reports:"$'\n'"$report"
  fi
}

# expect IMG WHAT DEBUGFS_REQUEST REGEX: the request's output must match.
expect() {
  local got
  got="$(debugfs -R "$3" "$1" 2>&1)"
  grep -E -q "$4" <<<"$got" || fail "$1: $2: debugfs '$3' does not match /$4/:"$'\n'"$(head -30 <<<"$got")"
}

# htree_levels IMG DIR: the indirect levels of DIR's htree root.
htree_levels() { debugfs -R "htree $2" "$1" 2>/dev/null | sed -n 's/^[[:space:]]*Indirect levels: //p' | head -1; }

keep() {
  local name=$1 img=$2 man=$3
  gzip -9 -n -c "$img" > "$out/$name.img.gz"
  gzip -9 -n -c "$man" > "$out/$name.manifest.gz"
  echo "$name: image $(stat -c %s "$out/$name.img.gz") bytes gz ($(stat -c %s "$img") raw)," \
    "manifest $(( $(wc -l < "$man") - 1 )) names, $(stat -c %s "$out/$name.manifest.gz") bytes gz"
}

# --- tree NAME BS SIZE_MIB FEATURES BIG_ENTRIES
tree() {
  local name=$1 bs=$2 size=$3 features=$4 big=$5 img="$work/$1.img" man="$work/$1.manifest"
  mkimage "$img" "$bs" "$size" "$features"
  mount -o loop "$img" "$mnt"
  python3 "$populate" "$mnt" "$bs" "$big"
  sync -f "$mnt"
  mount -o remount,ro "$mnt"
  take_manifest "$man"
  umount "$mnt"
  zero_log "$img"
  assert_clean "$img"
  local levels
  levels=$(htree_levels "$img" /big)
  [[ $levels == 1 ]] || fail "$name: /big has $levels indirect htree levels, not 1"
  [[ $(htree_levels "$img" /dirs/htree) == 0 ]] || fail "$name: /dirs/htree is not a one-level htree"
  [[ $(htree_levels "$img" /dirs/emptied-index) == 0 ]] || fail "$name: /dirs/emptied-index is not indexed"
  expect "$img" "extent tree depth 2" "ex /deep/deep.bin" '^ *0/ *2 '
  expect "$img" "unwritten extents" "ex /sparse/unwritten-past-eof.bin" 'Uninit'
  expect "$img" "unwritten extents" "ex /sparse/unwritten-inside.bin" 'Uninit'
  local acl1 acl2
  acl1=$(debugfs -R "stat /xattr/shared-1" "$img" 2>/dev/null | sed -n 's/.*File ACL: \([0-9]*\).*/\1/p')
  acl2=$(debugfs -R "stat /xattr/shared-2" "$img" 2>/dev/null | sed -n 's/.*File ACL: \([0-9]*\).*/\1/p')
  [[ $acl1 != 0 && $acl1 == "$acl2" ]] || fail "$name: shared-1 and shared-2 do not share an xattr block ($acl1, $acl2)"
  expect "$img" "in-inode xattrs only" "stat /xattr/in-inode" 'File ACL: 0'
  keep "$name" "$img" "$man"
}

# orphan_inodes IMG: the inode numbers an image's orphan file or orphan list holds, one a line.
orphan_inodes() {
  local img=$1 n
  if dumpe2fs -h "$img" 2>/dev/null | grep -q '^Filesystem features:.*orphan_file'; then
    local ino bs
    ino=$(dumpe2fs -h "$img" 2>/dev/null | sed -n 's/^Orphan file inode: *//p')
    bs=$(dumpe2fs -h "$img" 2>/dev/null | sed -n 's/^Block size: *//p')
    # Each block: le32 inode numbers, then an 8-byte tail (magic, checksum).
    debugfs -R "cat <${ino:-12}>" "$img" 2>/dev/null | od -An -tu4 -w"$bs" -v |
      awk '{ for (i = 1; i <= NF - 2; i++) if ($i != 0) print $i }'
  else
    n=$(dumpe2fs -h "$img" 2>/dev/null | sed -n 's/^First orphan inode: *//p')
    while [[ -n $n && $n != 0 ]]; do
      echo "$n"
      # The orphan list is chained through i_dtime.
      n=$(debugfs -R "stat <$n>" "$img" 2>/dev/null | sed -n 's/.*dtime: *0x\([0-9a-f]*\).*/\1/p' | head -1)
      if [[ -n $n ]]; then n=$((16#$n)); fi
    done
  fi
  return 0
}

# inode_field IMG INO FIELD: Links, Size or Blockcount of an inode, as debugfs stat prints it.
inode_field() { debugfs -R "stat <$2>" "$1" 2>/dev/null | grep -o "$3: *[0-9]*" | head -1 | grep -o '[0-9]*$'; }

# fragment FILE BS EXTENTS: (re)writes every other block of FILE, EXTENTS blocks in all.
fragment() {
  python3 - "$1" "$2" "$3" <<'EOF'
import os, sys
path, bs, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
for i in range(n):
    os.pwrite(fd, (b"fragment %08d\n" % (2 * i)).ljust(bs, b"\0"), 2 * i * bs)
os.close(fd)
EOF
}

# --- orphans NAME BS SIZE_MIB FEATURES EXTENTS
orphans() {
  local name=$1 bs=$2 size=$3 features=$4 extents=$5 img="$work/$1.img" copy="$work/$1.copy.img"
  local scratch="$work/scratch.img" man="$work/$1.manifest"
  mkimage "$img" "$bs" "$size" "$features"
  mount -o loop,commit=600,noatime "$img" "$mnt"
  python3 "$populate" "$mnt" "$bs" 0 --small
  mkdir "$mnt/orphans"
  # Files kept open after their last name is removed: a small one, one with an extent tree, one
  # with an xattr block, and one of two hard links (the other stays).
  printf 'open and unlinked\n%.0s' $(seq 1 100) > "$mnt/orphans/open-small"
  fragment "$mnt/orphans/open-tree" "$bs" 200
  printf 'xattr\n' > "$mnt/orphans/open-xattr"
  python3 -c "import os,sys; os.setxattr(sys.argv[1], 'user.big', b'v' * ($bs - 300))" "$mnt/orphans/open-xattr"
  printf 'one of two\n' > "$mnt/orphans/linked-a"
  ln "$mnt/orphans/linked-a" "$mnt/orphans/linked-b"
  local f fd
  for f in open-small open-tree open-xattr linked-a; do
    exec {fd}<"$mnt/orphans/$f"
    fds+=("$fd")
    rm "$mnt/orphans/$f"
  done
  sync -f "$mnt"
  local want_unlinked
  want_unlinked=$(for f in "${fds[@]}"; do stat -L -c %i "/proc/$$/fd/$f"; done | grep -v "^$(stat -c %i "$mnt/orphans/linked-b")$" | sort)
  local round frag=$mnt/orphans/half-truncated ino got=no
  for round in $(seq 1 40); do
    fragment "$frag" "$bs" "$extents"
    sync -f "$mnt"
    ino=$(stat -c %i "$frag")
    # What stays needs the same depth (more leaves than the inode holds), or e2fsck would call the
    # kernel's tree collapsible.
    truncate -s $((2 * (4 * (bs - 12) / 12 + 20) * bs + 1234)) "$frag" &
    bgpid=$!
    sleep "0.00$(( round % 10 ))"
    sync -f "$mnt"
    # Never committed (no commit before the copy): must not be there after recovery.
    printf 'not committed\n' > "$mnt/orphans/uncommitted-$round"
    cp --sparse=always "$img" "$copy"
    wait "$bgpid"
    bgpid=
    cp --sparse=always "$copy" "$scratch"
    # debugfs replays the journal without e2fsck's release of the orphan list.
    debugfs -w -R "journal_run" "$scratch" >/dev/null 2>&1 || fail "$name: debugfs journal_run failed"
    local listed missing blocks size links
    listed=$(orphan_inodes "$scratch" | sort)
    missing=$(comm -23 <(echo "$want_unlinked") <(echo "$listed"))
    if grep -qx "$ino" <<<"$listed" && [[ -z $missing ]]; then
      blocks=$(inode_field "$scratch" "$ino" Blockcount)
      size=$(inode_field "$scratch" "$ino" Size)
      links=$(inode_field "$scratch" "$ino" Links)
      if (( links == 1 && blocks * 512 > size + 4 * bs )); then
        echo "$name: round $round caught the truncate of inode $ino half way: size $size, $blocks sectors;" \
          "orphans:" $listed
        got=yes
        break
      fi
    fi
    rm -f "$mnt"/orphans/uncommitted-*
  done
  [[ $got == yes ]] || fail "$name: never caught a truncate half way"
  for fd in "${fds[@]}"; do eval "exec $fd<&-"; done
  fds=()
  umount "$mnt"
  dumpe2fs -h "$copy" 2>/dev/null | grep -q '^Filesystem features:.*needs_recovery' || fail "$name: copy does not need recovery"
  # The kernel's view: mount a scratch copy (journal replay and orphan processing), then read-only.
  cp --sparse=always "$copy" "$scratch"
  local logged dev said
  logged=$(dmesg | wc -l)
  mount -o loop,noatime "$scratch" "$mnt"
  dev=$(findmnt -n -o SOURCE "$mnt")
  said=$(dmesg | tail -n +$((logged + 1)) | grep -F "EXT4-fs (${dev#/dev/}):" || true)
  # The kernel's own account of its orphan processing: the three open-unlinked files, the truncate.
  grep -q ': 3 orphan inodes deleted$' <<<"$said" || fail "$name: the kernel did not delete 3 orphans:"$'\n'"$said"
  grep -q ': 1 truncate cleaned up$' <<<"$said" || fail "$name: the kernel did not finish 1 truncate:"$'\n'"$said"
  mount -o remount,ro "$mnt"
  take_manifest "$man"
  umount "$mnt"
  grep -q '/orphans/uncommitted' "$man" && fail "$name: an uncommitted file survived"
  grep -q '^/orphans/linked-b ' "$man" || fail "$name: linked-b is missing"
  assert_clean "$scratch"
  [[ -z $(orphan_inodes "$scratch") ]] || fail "$name: the kernel left orphans"
  keep "$name" "$copy" "$man"
}

all=(
  "tree    4k-tree           4096 64 upstream 50000"
  "tree    1k-tree           1024 32 upstream 6000"
  "tree    1k-debian-tree    1024 32 debian   3000"
  "orphans 1k-orphans        1024 32 upstream 4000"
  "orphans 4k-debian-orphans 4096 64 debian   6000"
)
shift || true
for spec in "${all[@]}"; do
  read -r kind name bs size features n <<<"$spec"
  if (( $# == 0 )) || [[ " $* " == *" $name "* ]]; then
    "$kind" "$name" "$bs" "$size" "$features" "$n"
  fi
done
ls -l "$out"
