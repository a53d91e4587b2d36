#!/usr/bin/env bash
# The engine's numbers (docs/BENCHMARKS.md, issue 7), each next to its peer from the same run:
#   mkfs -d   ext4j mkfs -d          vs  mke2fs -d                      (same size, same tree)
#   put -r    ext4j put -r           vs  the kernel: cp -a into a loop mount, then umount
#   get -r    ext4j get -r           vs  debugfs -R "rdump"
# on two host trees: "mixed" (~5,500 entries: a 5,000-entry directory, a 48 MiB file, a few hundred
# more in subdirectories) and "small" (100,000 small files in 100 directories); wall time and peak
# RSS (/usr/bin/time) of the median of REPS runs, the CLI at -Xmx256m. Then the layout of a 1 GiB
# file written sequentially (ext4j put vs the kernel's dd), as filefrag counts extents and as
# on-disk entries.
#
# Needs root (loop mounts), e2fsprogs, a JDK >= 25. Usage: scripts/bench-engine.sh [REPS]
#   EXT4J_BENCH_DIR (default /tmp/ext4j-bench-engine) holds the trees and images; removed at the end
#   unless KEEP=1.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
reps="${1:-3}"
work="${EXT4J_BENCH_DIR:-/tmp/ext4j-bench-engine}"
ext4j="$root/ext4j"
export EXT4J_JAVA_OPTS="${EXT4J_JAVA_OPTS:--Xmx256m -XX:+UseSerialGC}"
[ "$(id -u)" = 0 ] || { echo "bench-engine: needs root for the kernel's loop mounts" >&2; exit 1; }
for t in mke2fs debugfs e2fsck mount losetup /usr/bin/time; do
  command -v "$t" >/dev/null || { echo "bench-engine: $t is not installed" >&2; exit 1; }
done
mkdir -p "$work"
mnt="$work/mnt"
mkdir -p "$mnt"
cleanup() {
  mountpoint -q "$mnt" && umount "$mnt" || true
  [ "${KEEP:-0}" = 1 ] || rm -rf "$work"
}
trap cleanup EXIT

"$ext4j" --version >/dev/null # builds the CLI now, not inside a timed run

# ---------------------------------------------------------------- trees
chunk="$(head -c 49152 /dev/urandom | base64 -w0)"
write_small() { # DIR COUNT MAXBYTES
  local d="$1" n="$2" max="$3" i len off
  mkdir -p "$d"
  for ((i = 0; i < n; i++)); do
    len=$(( (i * 2654435761) % max ))
    off=$(( (i * 40503) % 16384 ))
    printf '%s' "${chunk:off:len}" > "$d/f$i"
  done
}
if [ ! -d "$work/mixed" ]; then
  echo "bench-engine: making the trees in $work" >&2
  write_small "$work/mixed/big-dir" 5000 6000
  for s in a b c d e; do write_small "$work/mixed/sub/$s" 90 20000; done
  mkdir -p "$work/mixed/links"
  for i in $(seq 0 19); do ln -s "../sub/a/f$i" "$work/mixed/links/l$i"; done
  head -c $((48 << 20)) /dev/urandom > "$work/mixed/file-48m"
  for i in $(seq 0 99); do write_small "$work/small/d$i" 1000 3000; done
fi
count() { find "$1" | wc -l; }
bytes() { du -sb "$1" | cut -f1; }

# ---------------------------------------------------------------- timing
# run NAME CMD...: runs CMD, appends "seconds maxrss_kib" to $work/NAME.times
run() {
  local name="$1"
  shift
  sync
  /usr/bin/time -f "%e %M" -o "$work/.t" "$@" >"$work/.out" 2>&1 || { echo "bench-engine: $name failed:" >&2; cat "$work/.out" >&2; exit 1; }
  cat "$work/.t" >> "$work/$name.times"
}
median() { # NAME FIELD(1 seconds, 2 KiB)
  sort -n -k"$2" "$work/$1.times" | awk -v f="$2" '{ v[NR] = $f } END { print v[int((NR + 1) / 2)] }'
}
size_for() { # TREE -> image MiB: the tree, half again, and 256 MiB
  echo $(( ( $(bytes "$1") * 3 / 2 + (256 << 20) ) >> 20 ))
}

for tree in ${TREES:-mixed small}; do
  src="$work/$tree"
  size=$(size_for "$src")
  inodes=$(( $(count "$src") * 2 + 4096 ))
  rm -f "$work"/*.times
  for ((r = 0; r < reps; r++)); do
    # mkfs -d: both fill an image of the same size and inode count from the same tree
    rm -f "$work/e.img" "$work/k.img"
    run ext4j-mkfs "$ext4j" mkfs -q -N "$inodes" -d "$src" "$work/e.img" "${size}M"
    truncate -s 0 "$work/k.img"; truncate -s "${size}M" "$work/k.img"
    run mke2fs-d mke2fs -q -F -t ext4 -N "$inodes" -d "$src" "$work/k.img"
    # put -r into an empty image vs cp -a into the kernel's mount of one (umount included)
    rm -f "$work/p.img" "$work/m.img"
    "$ext4j" mkfs -q -N "$inodes" "$work/p.img" "${size}M"
    run ext4j-put "$ext4j" put -r "$work/p.img" "$src" /tree
    truncate -s "${size}M" "$work/m.img"
    mke2fs -q -F -t ext4 -N "$inodes" "$work/m.img"
    run kernel-cp bash -c "mount -o loop '$work/m.img' '$mnt' && cp -a '$src' '$mnt/tree' && umount '$mnt'"
    # get -r from the image ext4j filled vs debugfs rdump of the same image
    rm -rf "$work/out-e" "$work/out-d"; mkdir -p "$work/out-e" "$work/out-d"
    run ext4j-get "$ext4j" get -r "$work/p.img" /tree "$work/out-e/tree"
    run debugfs-rdump debugfs -R "rdump /tree $work/out-d" "$work/p.img"
  done
  diff -r "$src" "$work/out-e/tree" >/dev/null || { echo "bench-engine: get -r of $tree differs from the tree" >&2; exit 1; }
  e2fsck -fn "$work/e.img" >/dev/null && e2fsck -fn "$work/p.img" >/dev/null \
    || { echo "bench-engine: e2fsck -fn is not clean on ext4j's $tree images" >&2; exit 1; }
  echo
  echo "### $tree: $(count "$src") entries, $(( $(bytes "$src") >> 20 )) MiB; image ${size} MiB; median of $reps"
  echo
  echo "| job | ext4j s | peer | peer s | ext4j / peer | ext4j peak RSS MiB | peer peak RSS MiB |"
  echo "|---|---|---|---|---|---|---|"
  for pair in "ext4j-mkfs mke2fs-d mkfs_-d mke2fs_-d" "ext4j-put kernel-cp put_-r cp_-a+umount" "ext4j-get debugfs-rdump get_-r rdump"; do
    set -- $pair
    a=$(median "$1" 1); b=$(median "$2" 1)
    ra=$(median "$1" 2); rb=$(median "$2" 2)
    printf '| %s | %.2f | %s | %.2f | %.2f | %d | %d |\n' "${3//_/ }" "$a" "${4//_/ }" "$b" "$(awk -v a="$a" -v b="$b" 'BEGIN { print a / b }')" $((ra / 1024)) $((rb / 1024))
  done
done

# ---------------------------------------------------------------- 1 GiB layout
[ "${LAYOUT:-1}" = 1 ] || exit 0
head -c $((1 << 30)) /dev/zero | tr '\0' 'x' > "$work/gib"
rm -f "$work/g.img" "$work/gk.img"
"$ext4j" mkfs -q "$work/g.img" 4G
"$ext4j" put "$work/g.img" "$work/gib" /gib
truncate -s 4G "$work/gk.img"; mke2fs -q -F -t ext4 "$work/gk.img"
mount -o loop "$work/gk.img" "$mnt" && dd if="$work/gib" of="$mnt/gib" bs=1M status=none && umount "$mnt"
layout() { # IMAGE -> "runs entries": leaf lines of debugfs ex are "L/ D  i/ n  lstart - lend  pstart - pend  len"
  debugfs -R "ex /gib" "$1" 2>/dev/null | awk '
    $1 ~ /\/$/ && $3 ~ /\/$/ && $6 == "-" && $9 == "-" {
      if ($1 + 0 != $2 + 0) next
      n++
      if (n == 1 || $8 != pend + 1 || $5 != lend + 1) runs++
      pend = $10; lend = $7
    }
    END { print runs + 0, n + 0 }'
}
read -r er ee < <(layout "$work/g.img")
read -r kr ke < <(layout "$work/gk.img")
echo
echo "### 1 GiB written sequentially into an empty 4 GiB image (4 KiB blocks)"
echo
echo "| writer | extents (filefrag's count: contiguous runs) | on-disk extent entries |"
echo "|---|---|---|"
echo "| ext4j put | $er | $ee |"
echo "| kernel dd bs=1M | $kr | $ke |"
