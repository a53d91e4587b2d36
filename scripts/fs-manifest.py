#!/usr/bin/env python3
"""Prints the manifest of a directory tree: one line per name, as the kernel reports it.

Usage: fs-manifest.py ROOT > MANIFEST

The manifest is what ext4j's kernel-fixture tests compare against (io.ext4j.testkit.FsManifest reads
and writes the same format). Lines starting with '#' are comments; the others are, sorted by path
bytes:

  PATH type=T mode=OOOO uid=U gid=G size=S nlink=N ino=I blocks=B atime=SEC.NSEC mtime=SEC.NSEC
       ctime=SEC.NSEC [rdev=MAJ:MIN] [target=ESC] [sha256=HEX] [xattr.NAME=HEX ...]

on one line, where PATH is '/' for the root and '/a/b' below it, T is one of f d l p s c b, mode
holds the permission bits only (07777, octal), blocks is st_blocks (512-byte units), SEC may be
negative (NSEC is then still 0..999999999, as in a timespec), rdev is given for c and b, target
(the symlink's) for l, for f the sha256 of the contents if the size is at most 64 MiB, else
data=OFF:LEN:SHA256,... for every data segment lseek(2)'s SEEK_DATA and SEEK_HOLE find (all the
rest reads as zeros; '-' if there is none), and one xattr.NAME=HEX for every extended
attribute in name order (HEX of an empty value is '-'). PATH, ESC and NAME escape every byte
outside 0x21..0x7e, and '\\' and '=', as \\xNN. The first line is a '# statfs' comment with the
numbers statvfs(2) gives: bsize blocks bfree bavail files ffree.
"""
import hashlib
import os
import stat
import sys

TYPES = {stat.S_IFREG: "f", stat.S_IFDIR: "d", stat.S_IFLNK: "l", stat.S_IFIFO: "p",
         stat.S_IFSOCK: "s", stat.S_IFCHR: "c", stat.S_IFBLK: "b"}


def esc(b: bytes) -> str:
    return "".join(chr(c) if 0x21 <= c <= 0x7E and c not in (0x5C, 0x3D) else "\\x%02x" % c for c in b)


def ts(ns: int) -> str:
    sec, nsec = divmod(ns, 1_000_000_000)
    return "%d.%09d" % (sec, nsec)


def sha256(path: bytes) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while True:
            chunk = f.read(1 << 20)
            if not chunk:
                return h.hexdigest()
            h.update(chunk)


BIG = 64 << 20


def segments(path: bytes) -> str:
    out = []
    with open(path, "rb") as f:
        fd, size, off = f.fileno(), os.fstat(f.fileno()).st_size, 0
        while off < size:
            try:
                start = os.lseek(fd, off, os.SEEK_DATA)
            except OSError:  # ENXIO: no data past off
                break
            end = os.lseek(fd, start, os.SEEK_HOLE)
            h = hashlib.sha256()
            at = start
            while at < end:
                chunk = os.pread(fd, min(1 << 20, end - at), at)
                h.update(chunk)
                at += len(chunk)
            out.append("%d:%d:%s" % (start, end - start, h.hexdigest()))
            off = end
    return ",".join(out) or "-"


def line(root: bytes, rel: bytes) -> str:
    full = root + rel if rel != b"/" else root
    st = os.lstat(full)
    t = TYPES[stat.S_IFMT(st.st_mode)]
    fields = [esc(rel), "type=" + t, "mode=%04o" % stat.S_IMODE(st.st_mode), "uid=%d" % st.st_uid,
              "gid=%d" % st.st_gid, "size=%d" % st.st_size, "nlink=%d" % st.st_nlink, "ino=%d" % st.st_ino,
              "blocks=%d" % st.st_blocks, "atime=" + ts(st.st_atime_ns), "mtime=" + ts(st.st_mtime_ns),
              "ctime=" + ts(st.st_ctime_ns)]
    if t in "cb":
        fields.append("rdev=%d:%d" % (os.major(st.st_rdev), os.minor(st.st_rdev)))
    if t == "l":
        fields.append("target=" + esc(os.readlink(full)))
    if t == "f":
        fields.append("sha256=" + sha256(full) if st.st_size <= BIG else "data=" + segments(full))
    for name in sorted(os.listxattr(full, follow_symlinks=False), key=lambda n: n.encode()):
        value = os.getxattr(full, name, follow_symlinks=False)
        fields.append("xattr.%s=%s" % (esc(name.encode()), value.hex() if value else "-"))
    return " ".join(fields)


def main() -> None:
    root = os.fsencode(sys.argv[1]).rstrip(b"/")
    vfs = os.statvfs(root)
    out = ["# statfs bsize=%d blocks=%d bfree=%d bavail=%d files=%d ffree=%d"
           % (vfs.f_bsize, vfs.f_blocks, vfs.f_bfree, vfs.f_bavail, vfs.f_files, vfs.f_ffree)]
    rels = [b"/"]
    for dirpath, dirnames, filenames in os.walk(root):
        base = dirpath[len(root):]
        for n in dirnames + filenames:  # os.walk does not follow symlinks to directories
            rels.append(base + b"/" + n)
    for rel in sorted(rels):
        out.append(line(root, rel))
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
