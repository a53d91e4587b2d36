#!/usr/bin/env bash
# The FUSE mount's numbers (docs/BENCHMARKS.md), each next to its peers from the same run:
#   ext4j      ./ext4j mount IMAGE (the engine through the kernel's FUSE)
#   kernel     the kernel's ext4 on a loop mount of an identical image
#   fuse2fs    e2fsprogs' FUSE ext4 on an identical image
# fio jobs: 4 KiB sequential writes with fdatasync after each at 1, 4 and 16 jobs (a file per job),
# then a 1 MiB sequential write of 1 GiB (end_fsync) and a 1 MiB sequential read of it after
# dropping the page cache. The three images are copies of one mkfs.ext4 image (4 KiB blocks, fixed
# UUID), all mounted at once; the rows are interleaved round by round (each job on each target in
# turn), so drift on a shared machine falls on all alike; each cell is the median over ROUNDS.
# Then the suite's fsync scenario (`ext4j bench fsync`) at 1, 4 and 16 threads: among its variants
# 4 KiB overwrite + fdatasync and 4 KiB append + fdatasync through the ext4 provider in-process,
# beside the host directory, the loop mount, the FUSE mount and fuse2fs.
#
# Needs root (mounts), fio, fuse2fs, fuse3, e2fsprogs, a JDK >= 25.
# Usage: scripts/bench-fuse.sh [ROUNDS=3] [SECONDS=10]
#   EXT4J_BENCH_DIR (default /tmp/ext4j-bench-fuse) holds the images; removed at the end unless KEEP=1.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
rounds="${1:-3}"
secs="${2:-10}"
work="${EXT4J_BENCH_DIR:-/tmp/ext4j-bench-fuse}"
ext4j="$root/ext4j"
[ "$(id -u)" = 0 ] || { echo "bench-fuse: needs root for the mounts" >&2; exit 1; }
for t in fio fuse2fs fusermount3 mkfs.ext4 e2fsck; do
  command -v "$t" >/dev/null || { echo "bench-fuse: $t is not installed" >&2; exit 1; }
done
targets=(ext4j kernel fuse2fs)
mkdir -p "$work"
ext4j_pid=""
cleanup() {
  for t in "${targets[@]}"; do
    mountpoint -q "$work/$t.mnt" && { fusermount3 -u "$work/$t.mnt" 2>/dev/null || umount "$work/$t.mnt"; } || true
  done
  [ -n "$ext4j_pid" ] && wait "$ext4j_pid" 2>/dev/null || true
  [ "${KEEP:-0}" = 1 ] || rm -rf "$work"
}
trap cleanup EXIT

"$ext4j" --version >/dev/null # builds the CLI now, not inside a timed run

rm -f "$work"/*.img
truncate -s 8G "$work/base.img"
mkfs.ext4 -q -F -b 4096 -U 3e1f4a2b-5c6d-4e7f-8091-a2b3c4d5e6f7 -E hash_seed=0a1b2c3d-4e5f-4061-8273-8495a6b7c8d9 \
  "$work/base.img"
for t in "${targets[@]}"; do
  cp --sparse=always "$work/base.img" "$work/$t.img"
  mkdir -p "$work/$t.mnt"
done
rm -f "$work/base.img"

"$ext4j" mount "$work/ext4j.img" "$work/ext4j.mnt" 2>"$work/ext4j-mount.log" &
ext4j_pid=$!
mount -o loop "$work/kernel.img" "$work/kernel.mnt"
fuse2fs "$work/fuse2fs.img" "$work/fuse2fs.mnt" -o fakeroot
for i in $(seq 100); do mountpoint -q "$work/ext4j.mnt" && break; sleep 0.1; done
mountpoint -q "$work/ext4j.mnt" || { echo "bench-fuse: ext4j mount did not come up:" >&2; cat "$work/ext4j-mount.log" >&2; exit 1; }

# Warm every image: the files the jobs use, written once, so no job measures the host's allocation
# of a sparse image file; then the journal area, by an fsync-heavy pass.
for t in "${targets[@]}"; do
  fio --name=warm --directory="$work/$t.mnt" --rw=write --bs=1m --size=1g --end_fsync=1 --numjobs=1 \
    --filename_format='seq.$jobnum' >/dev/null
  fio --name=warmsync --directory="$work/$t.mnt" --rw=write --bs=4k --size=16m --fdatasync=1 --numjobs=16 \
    --filename_format='sync.$jobnum' >/dev/null
done

results="$work/results.tsv"
: >"$results"
# job NAME TARGET fio-args...: appends "name target value" (IOPS or MiB/s)
job() {
  local name="$1" t="$2"; shift 2
  local line
  line="$(fio --name="$name" --directory="$work/$t.mnt" --group_reporting --minimal "$@")"
  # terse v3: field 7 read bandwidth KiB/s, 8 read IOPS, 48 write bandwidth KiB/s, 49 write IOPS
  case "$name" in
    sync*) awk -F';' -v n="$name" -v t="$t" '{print n "\t" t "\t" $49}' <<<"$line" >>"$results" ;;
    seqwrite) awk -F';' -v n="$name" -v t="$t" '{printf "%s\t%s\t%.1f\n", n, t, $48 / 1024}' <<<"$line" >>"$results" ;;
    seqread) awk -F';' -v n="$name" -v t="$t" '{printf "%s\t%s\t%.1f\n", n, t, $7 / 1024}' <<<"$line" >>"$results" ;;
  esac
  tail -n 1 "$results" >&2
}
for r in $(seq "$rounds"); do
  echo "bench-fuse: round $r of $rounds" >&2
  for jobs in 1 4 16; do
    for t in "${targets[@]}"; do
      job "sync$jobs" "$t" --rw=write --bs=4k --size=16m --fdatasync=1 --numjobs="$jobs" --time_based --runtime="$secs" \
        --filename_format='sync.$jobnum' --ioengine=psync
    done
  done
  for t in "${targets[@]}"; do
    job seqwrite "$t" --rw=write --bs=1m --size=1g --end_fsync=1 --filename_format='seq.$jobnum' --ioengine=psync
  done
  for t in "${targets[@]}"; do
    sync; echo 3 >/proc/sys/vm/drop_caches
    job seqread "$t" --rw=read --bs=1m --size=1g --filename_format='seq.$jobnum' --ioengine=psync
  done
done

echo
echo "| job | ext4j | kernel loop | fuse2fs | ext4j ÷ kernel | ext4j ÷ fuse2fs |"
echo "|---|---|---|---|---|---|"
for name in sync1 sync4 sync16 seqwrite seqread; do
  med() { awk -F'\t' -v n="$name" -v t="$1" '$1 == n && $2 == t {print $3}' "$results" | sort -n |
    awk '{v[NR] = $1} END {if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
  e="$(med ext4j)"; k="$(med kernel)"; f="$(med fuse2fs)"
  unit="IOPS"; case "$name" in seq*) unit="MiB/s" ;; esac
  awk -v n="$name" -v u="$unit" -v e="$e" -v k="$k" -v f="$f" \
    'BEGIN {printf "| %s (%s) | %.0f | %.0f | %.0f | %.2f | %.2f |\n", n, u, e, k, f, e / k, e / f}'
done

for t in "${targets[@]}"; do
  fusermount3 -u "$work/$t.mnt" 2>/dev/null || umount "$work/$t.mnt"
done
wait "$ext4j_pid"
ext4j_pid=""
for t in "${targets[@]}"; do
  e2fsck -fn "$work/$t.img" >/dev/null 2>&1 && echo "e2fsck -fn $t.img: clean" || echo "e2fsck -fn $t.img: NOT CLEAN"
done

echo
echo "java.nio in-process (the ext4 provider) against the host directory and the other targets:"
echo "the suite's fsync scenario, whose overwrite and fdatasync variants are 4 KiB + fdatasync in place and appending"
"$root/ext4j" bench fsync --threads 1,4,16 --seconds "$secs" --slices "$rounds" --work "$work/nio" --out "$work/nio-report"
