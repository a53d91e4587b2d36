#!/usr/bin/env bash
# Makes the kernel power-cut fixtures: ext4 images whose internal jbd2 journal holds committed,
# not-yet-checkpointed transactions, written by the Linux kernel itself.
#
# Method (docs: /work/shared/reference/testing.md, "Oracles"): mkfs.ext4 a small image with the
# smallest journal (1024 blocks), loop-mount it with a long commit interval, run a workload that
# fsyncs, copy the image file *while still mounted* (so the copy needs recovery), then unmount.
# Each copy is verified before it is kept:
#   - dumpe2fs -h shows needs_recovery;
#   - debugfs logdump shows committed transactions (and revoke records / a wrapped log where the
#     fixture promises them);
#   - e2fsck -E journal_only -y on a scratch copy replays the journal, after which e2fsck -fn finds
#     nothing worse than the superblock's free block/inode counts (which the kernel recomputes at mount).
# The kept copies are gzip -9'ed (java.util.zip reads them) into the test kit's resources, and a
# summary of what logdump saw is printed for the fixtures README.
#
# Usage (as root): scripts/make-kernel-fixtures.sh [output-dir [fixture-name...]]
#   default output-dir: ext4j-testkit/src/main/resources/io/ext4j/testkit/fixtures
# Needs: e2fsprogs (mkfs.ext4, dumpe2fs, debugfs, e2fsck), mount with loop devices, gzip.
set -euo pipefail
trap 'echo "failed at line $LINENO: $BASH_COMMAND" >&2' ERR

here="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$here/ext4j-testkit/src/main/resources/io/ext4j/testkit/fixtures}"
[[ $EUID -eq 0 ]] || { echo "run as root (loop mounts)" >&2; exit 1; }
for t in mkfs.ext4 dumpe2fs debugfs e2fsck gzip mount umount; do
  command -v "$t" >/dev/null || { echo "missing tool: $t" >&2; exit 1; }
done
mkdir -p "$out"
work="$(mktemp -d /tmp/ext4j-fixtures.XXXXXX)"
mnt="$work/mnt"
mkdir -p "$mnt"
cleanup() {
  mountpoint -q "$mnt" && umount "$mnt" || true
  rm -rf "$work"
}
trap cleanup EXIT

# Fixed identities so re-runs differ only in timestamps.
UUID=5e7f1c2a-0b1d-4c3e-8f4a-6d2b9e0c1a11
HASH_SEED=3c1d2e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f

# mkimage IMG BLOCKSIZE SIZE_MIB JOURNAL_MIB [MKFS_OPTION...]
mkimage() {
  local img=$1 bs=$2 size=$3 jmib=$4
  shift 4
  rm -f "$img"
  truncate -s "${size}M" "$img"
  mkfs.ext4 -q -F -b "$bs" -J size="$jmib" -U "$UUID" \
    -E lazy_itable_init=0,lazy_journal_init=0,hash_seed="$HASH_SEED" "$@" "$img"
}

# A file of N bytes of compressible text, fsynced (one committed transaction each in data=ordered).
# (yes ends by SIGPIPE, so it is fed by process substitution, outside pipefail's view.)
put() { head -c "$3" < <(yes "$2") > "$1"; sync "$1"; }
append() { head -c "$3" < <(yes "$2") >> "$1"; sync "$1"; }

# True when the image's ext4 superblock has INCOMPAT_RECOVER (needs_recovery).
needs_recovery() {
  local header
  header="$(dumpe2fs -h "$1" 2>/dev/null)"
  grep -q '^Filesystem features:.*needs_recovery' <<<"$header"
}

# logdump facts of an image: "<commits> <revoke-records> <revoked-blocks> <start> <last-block>"
logfacts() {
  local dump
  # A copy taken mid-update may not open (debugfs prints nothing): it then reports zeros.
  dump="$(debugfs -R "logdump" "$1" 2>/dev/null || true)"
  local commits revokes start last revoked
  commits=$(grep -c 'type 2 (commit block)' <<<"$dump" || true)
  revokes=$(grep -c 'type 5 (revoke table)' <<<"$dump" || true)
  revoked=$({ debugfs -R "logdump -a" "$1" 2>/dev/null || true; } | grep -c 'Revoke FS block' || true)
  start=$(sed -n 's/^Journal starts at block \([0-9]*\),.*/\1/p' <<<"$dump")
  last=$({ grep 'Found expected sequence' <<<"$dump" || true; } | tail -1 | sed -n 's/.* at block \([0-9]*\)$/\1/p')
  echo "$commits $revokes $revoked ${start:-0} ${last:-0}"
}

# verify NAME COPY NEED_REVOKE NEED_WRAP: checks the copy keeps its promises; exit 1 otherwise.
verify() {
  local name=$1 img=$2 need_revoke=$3 need_wrap=$4
  needs_recovery "$img" || { echo "$name: copy does not need recovery" >&2; return 1; }
  read -r commits revokes revoked start last < <(logfacts "$img")
  (( commits > 0 )) || { echo "$name: no committed transactions in the log" >&2; return 1; }
  if [[ $need_revoke == yes ]] && (( revokes == 0 )); then echo "$name: no revoke records" >&2; return 1; fi
  if [[ $need_wrap == yes ]] && (( last >= start )); then echo "$name: log does not wrap (start $start, last $last)" >&2; return 1; fi
  cp --sparse=always "$img" "$work/replay.img"
  local rc=0
  e2fsck -E journal_only -y "$work/replay.img" >/dev/null 2>&1 || rc=$?
  (( rc <= 1 )) || { echo "$name: e2fsck journal replay failed ($rc)" >&2; return 1; }
  if needs_recovery "$work/replay.img"; then
    echo "$name: still needs recovery after e2fsck replay" >&2; return 1
  fi
  # After replay only the superblock free counts may be off.
  local report
  report="$(e2fsck -fn "$work/replay.img" 2>&1 || true)"
  if grep -E -v '^(e2fsck|Pass [1-5]|Free (blocks|inodes) count wrong|Fix\? no|/|$)' <<<"$report" \
      | grep -q .; then
    echo "$name: e2fsck -fn after replay reports more than free counts:" >&2
    echo "$report" >&2
    return 1
  fi
  echo "$name: commits=$commits revoke-blocks=$revokes revoked-fs-blocks=$revoked journal-start=$start last-log-block=$last wrapped=$([[ $last -lt $start ]] && echo yes || echo no)"
}

# keep NAME COPY: compress into the output directory.
keep() {
  gzip -9 -n -c "$2" > "$out/$1.img.gz"
  echo "$1: $(stat -c %s "$out/$1.img.gz") bytes compressed, $(stat -c %s "$2") bytes raw"
}

# mountimg IMG [EXTRA_MOUNT_OPTIONS]
mountimg() { mount -o "loop,commit=600${2:+,$2}" "$1" "$mnt"; }
snapshot() { cp --sparse=always "$1" "$2"; }

# --- basic: a handful of fsynced file creations and appends, no deletions. ---
basic() {
  local name=$1 bs=$2 size=$3 jmib=$4 img="$work/$1.img" copy="$work/$1.copy.img"
  mkimage "$img" "$bs" "$size" "$jmib"
  mountimg "$img"
  mkdir "$mnt/docs"
  sync "$mnt/docs" "$mnt"
  for i in $(seq 1 12); do put "$mnt/docs/note$i.txt" "note $i" $((i * 700)); done
  for i in 1 2 3; do append "$mnt/docs/note$i.txt" "appended $i" 5000; done
  snapshot "$img" "$copy"
  umount "$mnt"
  verify "$name" "$copy" no no
  keep "$name" "$copy"
}

# --- revoke: journal directory blocks, delete the directory (its metadata blocks are freed and
# revoked), then reuse the freed blocks with new fsynced files. ---
revoke() {
  local name=$1 bs=$2 size=$3 jmib=$4 img="$work/$1.img" copy="$work/$1.copy.img"
  mkimage "$img" "$bs" "$size" "$jmib"
  mountimg "$img"
  mkdir "$mnt/big"
  # Enough long names that the directory spans several blocks (each block is journaled metadata).
  for i in $(seq 1 60); do
    : > "$mnt/big/a-rather-long-file-name-to-fill-directory-blocks-quickly-$i"
  done
  sync "$mnt/big" "$mnt"
  for i in $(seq 1 6); do put "$mnt/big/data$i" "data $i" 6000; done
  rm -rf "$mnt/big"
  sync "$mnt"
  mkdir "$mnt/after"
  for i in $(seq 1 10); do put "$mnt/after/reuse$i" "reuse $i" 3000; done
  sync "$mnt/after" "$mnt"
  snapshot "$img" "$copy"
  umount "$mnt"
  verify "$name" "$copy" yes no
  keep "$name" "$copy"
}

# --- wrapped: fsync until the kernel has checkpointed and moved the log tail and the head has wrapped
# past the end of the 1024-block journal; snapshot each round and keep the first wrapped copy. ---
wrapped() {
  local name=$1 bs=$2 size=$3 jmib=$4 img="$work/$1.img" copy="$work/$1.copy.img"
  mkimage "$img" "$bs" "$size" "$jmib"
  mountimg "$img"
  mkdir "$mnt/w"
  sync "$mnt/w" "$mnt"
  local n=0 round
  for round in $(seq 1 200); do
    for _ in 1 2 3 4 5; do
      n=$((n + 1))
      put "$mnt/w/f$n" "wrap $n" 1500
      # Delete an older file now and then so the log also carries frees.
      if (( n % 7 == 0 )); then rm -f "$mnt/w/f$((n - 5))"; sync "$mnt/w"; fi
      # And now and then a short-lived multi-block directory, whose freed blocks are revoked.
      if (( n % 40 == 0 )); then
        mkdir "$mnt/w/d$n"
        for i in $(seq 1 40); do : > "$mnt/w/d$n/a-rather-long-file-name-to-fill-directory-blocks-$i"; done
        sync "$mnt/w/d$n" "$mnt/w"
        rm -rf "$mnt/w/d$n"
        sync "$mnt/w"
      fi
    done
    snapshot "$img" "$copy"
    read -r commits _ _ start last < <(logfacts "$copy")
    if (( commits >= 8 && last < start && last > 40 )); then break; fi
  done
  umount "$mnt"
  verify "$name" "$copy" no yes
  keep "$name" "$copy"
}

# --- v1csum: the basic workload on a file system without metadata_csum mounted with journal_checksum,
# for which the kernel writes legacy v1 journal checksums (COMPAT_CHECKSUM, crc32_be in the commit
# block) instead of v3. ---
v1csum() {
  local name=$1 bs=$2 size=$3 jmib=$4 img="$work/$1.img" copy="$work/$1.copy.img"
  mkimage "$img" "$bs" "$size" "$jmib" -O ^metadata_csum
  mountimg "$img" journal_checksum
  mkdir "$mnt/v1"
  sync "$mnt/v1" "$mnt"
  for i in $(seq 1 8); do put "$mnt/v1/sum$i.txt" "v1 checksum $i" $((i * 900)); done
  for i in 1 2; do append "$mnt/v1/sum$i.txt" "appended $i" 4000; done
  snapshot "$img" "$copy"
  umount "$mnt"
  if ! dumpe2fs -h "$copy" 2>/dev/null | grep -q '^Journal features:.*journal_checksum'; then
    echo "$name: the kernel did not write v1 journal checksums" >&2; return 1
  fi
  verify "$name" "$copy" no no
  keep "$name" "$copy"
}

all=(
  "basic   1k-basic   1024 16 1"
  "basic   4k-basic   4096 32 4"
  "revoke  1k-revoke  1024 16 1"
  "revoke  4k-revoke  4096 32 4"
  "wrapped 1k-wrapped 1024 16 1"
  "wrapped 4k-wrapped 4096 32 4"
  "v1csum  1k-v1csum  1024 16 1"
  "v1csum  4k-v1csum  4096 32 4"
)
shift || true
for spec in "${all[@]}"; do
  read -r kind name bs size jmib <<<"$spec"
  if (( $# == 0 )) || [[ " $* " == *" $name "* ]]; then
    "$kind" "$name" "$bs" "$size" "$jmib"
  fi
done
ls -l "$out"
