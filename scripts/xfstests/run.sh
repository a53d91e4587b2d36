#!/usr/bin/env bash
# Runs xfstests (fstests) on ext4j's FUSE mount, on the kernel's ext4 (loop devices) or on fuse2fs,
# and writes a summary: which tests passed, failed, were not run (with xfstests' reason) or hung.
#
#   scripts/xfstests/run.sh [--fs ext4j|ext4|fuse2fs] [-g GROUP | --tests FILE] [--work DIR] [--out DIR]
#                           [--chunk N] [--chunk-timeout S] [--size SIZE]
#
#   --fs            what is tested (default ext4j: images made by `ext4j mkfs`, mounted with
#                   `mount -t fuse.ext4j` through scripts/xfstests/mount.fuse.ext4j)
#   -g GROUP        an xfstests group (default generic/quick), minus the `dangerous` group
#   --tests FILE    instead, the tests named in FILE (one per line, `#` comments)
#   --work DIR      where xfstests is copied and built and the images live (default /var/tmp/ext4j-xfstests)
#   --out DIR       where the summary and xfstests' results go (default WORK/results-FS)
#   --chunk N       tests per ./check run (default 20); each run is under --chunk-timeout seconds
#                   (default 1200), so that one hang stops only its chunk
#   --size SIZE     each image's size (default 4G; sparse files)
#
# EXT4J=CMD runs the CLI as CMD (default: a snapshot of the repository's ./ext4j build, so that a
# rebuild during the run cannot change what is mounted half way).
# Needs root (mounts, loop devices, the users the tests switch to). The xfstests source is
# ../shared/third_party/xfstests beside the repository, or XFSTESTS_SRC. Missing Debian packages are
# installed with apt-get. Exit status 0 when every test that ran passed, 1 when one failed or hung,
# 2 on a setup error. Results: OUT/summary.txt (counts and lists), OUT/tests.tsv (test, verdict,
# seconds, reason), OUT/check-N.log (each chunk's output) and xfstests' own OUT/xfstests/ files.
set -euo pipefail
here="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)"
repo="$(cd "$here/../.." && pwd)"

fs=ext4j group=generic/quick tests_file="" work=/var/tmp/ext4j-xfstests out="" chunk=20 chunk_timeout=1200 size=4G
while [ $# -gt 0 ]; do
  case "$1" in
    --fs) fs="$2"; shift 2 ;;
    -g) group="$2"; shift 2 ;;
    --tests) tests_file="$(readlink -f "$2")"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --chunk) chunk="$2"; shift 2 ;;
    --chunk-timeout) chunk_timeout="$2"; shift 2 ;;
    --size) size="$2"; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run.sh: unknown argument '$1' (--help lists them)" >&2; exit 2 ;;
  esac
done
case "$fs" in ext4j|ext4|fuse2fs) ;; *) echo "run.sh: --fs must be ext4j, ext4 or fuse2fs, not '$fs'" >&2; exit 2 ;; esac
[ "$(id -u)" = 0 ] || { echo "run.sh: xfstests needs root (mounts, loop devices, test users)" >&2; exit 2; }
mkdir -p "$work"
work="$(readlink -f "$work")"
out="${out:-$work/results-$fs}"
mkdir -p "$out"
out="$(readlink -f "$out")"
src="${XFSTESTS_SRC:-$repo/../shared/third_party/xfstests}"
[ -f "$src/check" ] || { echo "run.sh: no xfstests source at $src (set XFSTESTS_SRC)" >&2; exit 2; }

# Debian packages xfstests builds with and its tests call (its BUILD.md's list).
packages=(xfslibs-dev uuid-dev libtool-bin automake gcc make libuuid1 quota attr libattr1-dev libacl1-dev
  libaio-dev xfsprogs libgdbm-dev gawk fio dbench uuid-runtime python3 sqlite3 libcap-dev liburing-dev bc
  psmisc acl e2fsprogs fuse3)
[ "$fs" = fuse2fs ] && packages+=(fuse2fs)
missing=()
for p in "${packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "run.sh: installing ${missing[*]}" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null \
    || { DEBIAN_FRONTEND=noninteractive apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null; }
fi
for u in fsgqa 123456-fsgqa fsgqa2; do
  id "$u" >/dev/null 2>&1 || useradd -m "$u" 2>/dev/null || useradd "$u"
done

# A private copy of xfstests (the source may be read-only), built once per upstream commit.
xt="$work/xfstests"
stamp="$(cat "$src/UPSTREAM" 2>/dev/null | head -n 1)"
if [ ! -f "$xt/.ext4j-built" ] || [ "$(cat "$xt/.ext4j-built")" != "$stamp" ]; then
  echo "run.sh: building xfstests in $xt (a few minutes)" >&2
  rm -rf "$xt"
  cp -a "$src" "$xt"
  # check stops with "TEST_DEV … is mounted but not a type fuse filesystem" unless _fs_type maps our
  # FUSE subtypes back to fuse, as it does for glusterfs and ceph-fuse.
  # (fuse2fs names its mounts fuse.ext4 whatever subtype it is given.)
  sed -i "s|-e 's/fuse.ceph-fuse/ceph-fuse/'|-e 's/fuse.ceph-fuse/ceph-fuse/' -e 's/^fuse[.]ext4j\$/fuse/' -e 's/^fuse[.]fuse2fs\$/fuse/' -e 's/^fuse[.]ext4\$/fuse/'|" "$xt/common/rc"
  grep -qF 's/^fuse[.]ext4j$/fuse/' "$xt/common/rc" || { echo "run.sh: could not patch _fs_type in $xt/common/rc" >&2; exit 2; }
  (cd "$xt" && make -j"$(nproc)" >"$work/xfstests-build.log" 2>&1) \
    || { echo "run.sh: xfstests build failed; see $work/xfstests-build.log" >&2; tail -n 20 "$work/xfstests-build.log" >&2; exit 2; }
  echo "$stamp" >"$xt/.ext4j-built"
fi
# A copy built before fuse.ext4 (fuse2fs's own type) was mapped gets the mapping now.
grep -qF 's/^fuse[.]ext4$/fuse/' "$xt/common/rc" \
  || sed -i "s|-e 's/^fuse\[.\]fuse2fs\$/fuse/'|-e 's/^fuse[.]fuse2fs\$/fuse/' -e 's/^fuse[.]ext4\$/fuse/'|" "$xt/common/rc"

test_dir="$work/mnt/test" scratch_mnt="$work/mnt/scratch"
cleanup_mounts() {
  for m in "$scratch_mnt" "$test_dir"; do
    while findmnt -n -M "$m" >/dev/null 2>&1; do umount "$m" 2>/dev/null || umount -l "$m" || break; done
  done
  pkill -f "ext4j.jar mount $work" 2>/dev/null || true
  pkill -f "fuse2fs $work" 2>/dev/null || true
}
cleanup_mounts
mkdir -p "$test_dir" "$scratch_mnt"
test_img="$work/test-$fs.img" scratch_img="$work/scratch-$fs.img"
rm -f "$test_img" "$scratch_img"

# The images and how xfstests reaches them.
mount_opts="-oallow_other,default_permissions"
case "$fs" in
  ext4j)
    # A snapshot of the CLI, so that a rebuild in the repository during the run (the launcher
    # rebuilds when sources change) cannot change what is mounted half way.
    # EXT4J, when set, is the command that runs the CLI (the build's tests give one on their class path).
    if [ -z "${EXT4J:-}" ]; then
      (cd "$repo" && ./ext4j --version >/dev/null)
      cp "$repo/ext4j-cli/target/ext4j.jar" "$work/ext4j.jar"
      . "$repo/.mvn/find-jdk.sh"
      ext4j_find_jdk
      printf '#!/bin/sh\nexec "%s/bin/java" -Xmx256m -XX:+UseSerialGC -jar "%s/ext4j.jar" "$@"\n' "$JAVA_HOME" "$work" >"$work/ext4j"
      chmod +x "$work/ext4j"
      export EXT4J="$work/ext4j"
    fi
    "$EXT4J" mkfs "$test_img" "$size" >/dev/null && "$EXT4J" mkfs "$scratch_img" "$size" >/dev/null
    ln -sf "$here/mount.fuse.ext4j" /sbin/mount.fuse.ext4j
    # suid and dev as a root mount of the kernel's ext4 has them (libfuse's default is nosuid,nodev)
    mount_opts="-oallow_other,default_permissions,suid,dev"
    test_dev="$test_img" scratch_dev="$scratch_img" fstyp=fuse subtyp=.ext4j ;;
  fuse2fs)
    truncate -s "$size" "$test_img" "$scratch_img"
    mkfs.ext4 -q -F "$test_img" && mkfs.ext4 -q -F "$scratch_img"
    ln -sf "$here/mount.fuse.fuse2fs" /sbin/mount.fuse.fuse2fs
    test_dev="$test_img" scratch_dev="$scratch_img" fstyp=fuse subtyp=.fuse2fs ;;
  ext4)
    truncate -s "$size" "$test_img" "$scratch_img"
    mkfs.ext4 -q -F "$test_img" && mkfs.ext4 -q -F "$scratch_img"
    for img in "$test_img" "$scratch_img"; do
      losetup -j "$img" | cut -d: -f1 | xargs -r -n1 losetup -d
    done
    test_dev="$(losetup -f --show "$test_img")" scratch_dev="$(losetup -f --show "$scratch_img")"
    fstyp=ext4 subtyp="" mount_opts="" ;;
esac
sed -e "s|@TEST_DEV@|$test_dev|" -e "s|@TEST_DIR@|$test_dir|" -e "s|@SCRATCH_DEV@|$scratch_dev|" \
  -e "s|@SCRATCH_MNT@|$scratch_mnt|" -e "s|@FSTYP@|$fstyp|" -e "s|@FUSE_SUBTYP@|$subtyp|" \
  -e "s|@MOUNT_OPTIONS@|$mount_opts|" -e "s|@RESULT_BASE@|$out/xfstests|" \
  "$here/local.config.in" >"$xt/local.config"
export EXT4J_MOUNT_LOG="$out/mount.log"

# Which tests.
if [ -n "$tests_file" ]; then
  mapfile -t tests < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' "$tests_file" | grep -v '^$')
else
  mapfile -t tests < <(cd "$xt" && ./check -n -g "$group" -x dangerous 2>/dev/null | grep -E '^[a-z0-9]+/[0-9]+' | awk '{print $1}')
fi
[ "${#tests[@]}" -gt 0 ] || { echo "run.sh: no tests selected" >&2; exit 2; }
echo "run.sh: ${#tests[@]} tests on $fs; results in $out" >&2

# Chunks of tests, each one ./check under a timeout. check's own summary lines name what ran,
# what was not run and what failed; a test of a chunk that timed out that is in none of them hung.
: >"$out/tests.tsv"
start=$(date +%s)
n=0
for ((i = 0; i < ${#tests[@]}; i += chunk)); do
  part=("${tests[@]:i:chunk}")
  n=$((n + 1))
  log="$out/check-$n.log"
  cleanup_mounts
  set +e
  (cd "$xt" && timeout -k 30 "$chunk_timeout" ./check "${part[@]}") >"$log" 2>&1
  rc=$?
  set -e
  python3 "$here/summarize.py" chunk "$log" "$rc" "${part[@]}" >>"$out/tests.tsv"
  printf 'run.sh: chunk %d (%s … %s) done, %d s so far\n' "$n" "${part[0]}" "${part[-1]}" $(($(date +%s) - start)) >&2
done
cleanup_mounts

# The images afterwards: xfstests' fsck is a no-op for FUSE, so check them here.
fsck_report="$out/fsck.txt"
: >"$fsck_report"
fsck_rc=0
for img in "$test_img" "$scratch_img"; do
  echo "== e2fsck -fn $img" >>"$fsck_report"
  e2fsck -fn "$img" >>"$fsck_report" 2>&1 || fsck_rc=$?
done
[ "$fs" = ext4 ] && { losetup -d "$test_dev" "$scratch_dev" || true; }
python3 "$here/summarize.py" summary "$out/tests.tsv" "$fs" "$(($(date +%s) - start))" "${fsck_rc:-0}" >"$out/summary.txt"
cat "$out/summary.txt"
grep -q -P '\t(failed|hung)\t' "$out/tests.tsv" && exit 1
exit 0
