#!/usr/bin/env python3
"""Populates a mounted ext4 filesystem, through the kernel, with the tree of ext4j's kernel fixtures.

Usage: fs-populate.py MOUNTPOINT BLOCK_SIZE BIG_ENTRIES [--small]

Every byte goes through system calls on the mount (open/pwrite/fallocate/link/symlink/mknod/
setxattr/utime), so the kernel lays out every structure. Contents are deterministic; the inode
numbers, i_generation and the times of the files not given explicit times are the kernel's.

  /files    regular files: empty, small, exactly one block, multi-extent, odd modes and owners
            (setuid/setgid/sticky, uid 4000000000 which needs i_uid_high), a UTF-8 name with
            spaces, a 255-byte name
  /sparse   holes (leading, inner, trailing, 100 MiB of nothing, blocks past logical block 2^31
            and in the last one a file may have), unwritten extents from fallocate
            inside the size and past it (--keep-size), punched holes, zero ranges
  /deep     deep.bin: every other block written, enough extents for an extent tree of depth 2;
            punched.bin: written whole then every third block punched
  /xattr    attributes in the inode only, in a block, in both, one block shared by two inodes
            (the kernel's mbcache), an empty value, many names, trusted. on a symlink, access and
            default POSIX ACLs (system.posix_acl_*, set in the VFS form; no setfacl here)
  /links    fast symlinks (short, 59 bytes), slow ones (60 bytes, 1000 bytes), dangling, absolute,
            to a directory; a file with three hard links in two directories
  /special  fifo, socket, character and block devices (one with a minor past 255)
  /times    nanosecond times; before 1970, past 2038 and 2106 (ext4's epoch bits)
  /dirs     empty; an indexed directory all of whose entries were removed; a path 12 deep;
            an htree of 400 distinct files
  /big      BIG_ENTRIES names (hard links, round-robin to 50 files, plus 400 subdirectories,
            300 symlinks and 300 files of their own) with 40-byte names, enough leaves for a
            two-level htree

--small leaves out /big, /deep and /dirs/htree (the power-cut images).
"""
import os
import socket
import struct
import sys

root, bs, big = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
small = "--small" in sys.argv[4:]
P = lambda *parts: os.path.join(root, *parts)  # noqa: E731

FALLOC_FL_KEEP_SIZE, FALLOC_FL_PUNCH_HOLE, FALLOC_FL_ZERO_RANGE = 1, 2, 0x10


def text(tag: str, n: int) -> bytes:
    """n bytes of recognisable text, different for each tag."""
    line = ("%s %s\n" % (tag, "x" * max(0, 40 - len(tag)))).encode()
    return (line * (n // len(line) + 1))[:n]


def block(tag: str, i: int) -> bytes:
    """One block of text naming its tag and index."""
    return text("%s block %07d" % (tag, i), bs)


def write(path: str, data: bytes, mode: int = 0o644) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


def fallocate(path: str, mode: int, off: int, length: int) -> None:
    # os.posix_fallocate has no mode; the fallocate(1) tool does it through the same syscall.
    flags = {0: "", FALLOC_FL_KEEP_SIZE: "-n", FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE: "-p",
             FALLOC_FL_ZERO_RANGE: "-z", FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE: "-z -n"}[mode]
    rc = os.system("fallocate %s -o %d -l %d '%s'" % (flags, off, length, path))
    if rc != 0:
        raise SystemExit("fallocate %s %s failed" % (flags, path))


def utime(path: str, atime_ns: int, mtime_ns: int) -> None:
    os.utime(path, ns=(atime_ns, mtime_ns), follow_symlinks=False)


def acl(entries) -> bytes:
    """A POSIX ACL in the VFS xattr form: le32 version 2, then (le16 tag, le16 perm, le32 id) each."""
    return struct.pack("<I", 2) + b"".join(struct.pack("<HHI", t, p, i) for t, p, i in entries)


USER_OBJ, USER, GROUP_OBJ, GROUP, MASK, OTHER = 1, 2, 4, 8, 0x10, 0x20
UNDEF = 0xFFFFFFFF
NS = 1_000_000_000

# --- /files
os.mkdir(P("files"))
write(P("files", "empty"), b"")
write(P("files", "small.txt"), text("small", 100))
write(P("files", "one-block.bin"), block("one", 0))
write(P("files", "medium.bin"), b"".join(block("medium", i) for i in range(300)))
write(P("files", "odd-size.bin"), text("odd", 3 * bs + 17))
write(P("files", "h\u00e9llo w\u00f6rld \u2713.txt"), text("utf8 name", 500))
write(P("files", "n" * 255), text("long name", 10))
for name, mode in [("setuid", 0o4755), ("setgid", 0o2750), ("none", 0o000), ("all", 0o7777)]:
    write(P("files", name), text(name, 64))
    os.chmod(P("files", name), mode)
write(P("files", "owned"), text("owned", 64))
os.chown(P("files", "owned"), 1000, 1000)
write(P("files", "nobody"), text("nobody", 64))
os.chown(P("files", "nobody"), 65534, 65534)
write(P("files", "high-ids"), text("high ids", 64))
os.chown(P("files", "high-ids"), 4_000_000_000, 3_000_000_000)
os.mkdir(P("files", "sticky"), 0o1777)
os.chmod(P("files", "sticky"), 0o1777)

# --- /sparse
os.mkdir(P("sparse"))
f = P("sparse", "holes.bin")
fd = os.open(f, os.O_WRONLY | os.O_CREAT, 0o644)
for off in (0, 1 << 20, (5 << 20) + 100):
    os.pwrite(fd, text("holes at %d" % off, 3000), off)
os.ftruncate(fd, 8 << 20)
os.close(fd)
f = P("sparse", "leading-hole.bin")
fd = os.open(f, os.O_WRONLY | os.O_CREAT, 0o644)
os.pwrite(fd, text("after a hole", 5000), 3 << 20)
os.close(fd)
f = P("sparse", "all-hole.bin")
write(f, b"")
os.truncate(f, 100 << 20)
f = P("sparse", "far.bin")  # logical blocks past 2^31 (the sign bit of ee_block) and at the last one
fd = os.open(f, os.O_WRONLY | os.O_CREAT, 0o644)
os.pwrite(fd, text("far", 10), 0)
os.pwrite(fd, text("past 2^31 blocks", 2 * bs), ((1 << 31) + 5) * bs)
os.pwrite(fd, text("last block", 100), ((1 << 32) - 2) * bs)
os.close(fd)
f = P("sparse", "unwritten-inside.bin")
write(f, text("unwritten inside", 4 * bs))
fallocate(f, 0, 4 * bs, 20 * bs)  # grows the size: unwritten extents inside i_size read as zeros
fd = os.open(f, os.O_WRONLY)
os.pwrite(fd, text("written into the middle of an unwritten extent", 100), 10 * bs + 7)
os.close(fd)
f = P("sparse", "unwritten-past-eof.bin")
write(f, text("keep size", 3 * bs + 5))
fallocate(f, FALLOC_FL_KEEP_SIZE, 0, 64 * bs)  # blocks past i_size (EOFBLOCKS)
f = P("sparse", "only-unwritten.bin")
write(f, b"")
fallocate(f, FALLOC_FL_KEEP_SIZE, 0, 8 * bs)
f = P("sparse", "punched.bin")
write(f, b"".join(block("punched", i) for i in range(64)))
for first, n in [(0, 1), (5, 3), (20, 10), (63, 1)]:
    fallocate(f, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, first * bs, n * bs)
f = P("sparse", "zeroed.bin")
write(f, b"".join(block("zeroed", i) for i in range(32)))
fallocate(f, FALLOC_FL_ZERO_RANGE, 3 * bs + 100, 9 * bs)
fallocate(f, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE, 30 * bs, 10 * bs)

# --- /deep
if not small:
    os.mkdir(P("deep"))
    # Leaves hold (bs - 12) / 12 extents and the inode 4 index entries: past 4 full leaves the
    # tree needs depth 2. Appending keeps the left leaves full.
    extents = 4 * (bs - 12) // 12 + 200
    fd = os.open(P("deep", "deep.bin"), os.O_WRONLY | os.O_CREAT, 0o644)
    for i in range(extents):
        os.pwrite(fd, block("deep", 2 * i), 2 * i * bs)
    os.close(fd)
    f = P("deep", "punched.bin")
    write(f, b"".join(block("deep punched", i) for i in range(600)))
    for i in range(1, 600, 3):
        fallocate(f, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, i * bs, bs)

# --- /xattr
os.mkdir(P("xattr"))
x = P("xattr", "in-inode")
write(x, text("in inode", 10))
os.setxattr(x, "user.a", b"1")
os.setxattr(x, "trusted.t", b"trusted value")
os.setxattr(x, "security.s", b"sec")
x = P("xattr", "in-block")
write(x, text("in block", 10))
os.setxattr(x, "user.big", text("big value", min(2000, bs - 200)))
x = P("xattr", "both")
write(x, text("both", 10))
os.setxattr(x, "user.small", b"s")
os.setxattr(x, "user.large", text("large", min(1500, bs - 300)))
os.setxattr(x, "trusted.medium", text("medium", 90))
for name in ("shared-1", "shared-2"):
    x = P("xattr", name)
    write(x, text(name, 10))
    os.setxattr(x, "user.shared", text("shared value", min(1200, bs - 300)))
x = P("xattr", "empty-value")
write(x, b"")
os.setxattr(x, "user.empty", b"")
x = P("xattr", "many")
write(x, b"")
for i in range(30):
    os.setxattr(x, "user.n%02d" % i, ("v%d" % i).encode() * (1 + i % 3))
x = P("xattr", "dir")
os.mkdir(x)
os.setxattr(x, "user.on-a-dir", b"directory attribute")
x = P("xattr", "symlink")
os.symlink("in-inode", x)
os.setxattr(x, "trusted.on-a-symlink", b"symlink attribute", follow_symlinks=False)
x = P("xattr", "acl-file")
write(x, text("acl", 10), 0o640)
os.setxattr(x, "system.posix_acl_access",
            acl([(USER_OBJ, 6, UNDEF), (USER, 6, 1000), (USER, 4, 4_000_000_000), (GROUP_OBJ, 4, UNDEF),
                 (GROUP, 5, 100), (MASK, 6, UNDEF), (OTHER, 0, UNDEF)]))
x = P("xattr", "acl-dir")
os.mkdir(x, 0o750)
os.setxattr(x, "system.posix_acl_access",
            acl([(USER_OBJ, 7, UNDEF), (GROUP_OBJ, 5, UNDEF), (OTHER, 0, UNDEF)]))
os.setxattr(x, "system.posix_acl_default",
            acl([(USER_OBJ, 7, UNDEF), (USER, 7, 1000), (GROUP_OBJ, 5, UNDEF), (MASK, 7, UNDEF), (OTHER, 5, UNDEF)]))
write(os.path.join(x, "inherits"), text("inherits", 10), 0o666)  # gets an access ACL from the default

# --- /links
os.mkdir(P("links"))
os.mkdir(P("links", "other"))
for name, target in [("fast", "files/small.txt"), ("fast-59", "t" * 59), ("slow-60", "u" * 60),
                     ("slow-long", "/" + "/".join(["component%03d" % i for i in range(90)])[: min(1000, bs - 1) - 1]),
                     ("dangling", "no/such/file"), ("absolute", "/etc/hostname"), ("to-dir", "../files")]:
    os.symlink(target, P("links", name))
write(P("links", "hard-a"), text("hard link", 5000))
os.link(P("links", "hard-a"), P("links", "hard-b"))
os.link(P("links", "hard-a"), P("links", "other", "hard-c"))

# --- /special
os.mkdir(P("special"))
os.mkfifo(P("special", "fifo"), 0o644)
os.mknod(P("special", "null"), 0o666 | 0o020000, os.makedev(1, 3))
os.mknod(P("special", "disk"), 0o660 | 0o060000, os.makedev(8, 1))
os.mknod(P("special", "wide-minor"), 0o600 | 0o020000, os.makedev(259, 300000))
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(P("special", "socket"))
s.close()

# --- /times (set last: writes elsewhere do not touch them, but the directory's own mtime would
# change if a name were added after; so the directory's times are set after its entries)
os.mkdir(P("times"))
for name, a, m in [("ns", 1614834367 * NS + 987654321, 1614834367 * NS + 123456789),
                   ("pre-1970", -1 * NS + 500_000_000, -86400 * 365 * 50 * NS + 1),
                   ("y2038", 2147483648 * NS + 1, 2147483647 * NS + 999_999_999),
                   ("y2106", 4294967296 * NS + 42, 4294967297 * NS + 7),
                   ("y2400", 13569465600 * NS + 5, 13569465600 * NS + 999_999_999)]:
    write(P("times", name), text(name, 20))
    utime(P("times", name), a, m)
os.symlink("ns", P("times", "symlink"))
utime(P("times", "symlink"), 1000000000 * NS + 1, 1000000001 * NS + 2)
utime(P("times"), 1234567890 * NS + 111, 1234567890 * NS + 222)

# --- /dirs
os.mkdir(P("dirs"))
os.mkdir(P("dirs", "empty"))
os.mkdir(P("dirs", "emptied-index"))
names = [P("dirs", "emptied-index", "removed-name-%04d-with-some-padding" % i) for i in range(400)]
for n in names:
    write(n, b"")
for n in names:
    os.unlink(n)
d = P("dirs", "nested")
for i in range(12):
    d = os.path.join(d, "level%02d" % i)
os.makedirs(d)
write(os.path.join(d, "bottom"), text("bottom", 30))
if not small:
    os.mkdir(P("dirs", "htree"))
    for i in range(400):
        write(P("dirs", "htree", "distinct-%04d" % i), text("distinct %d" % i, i % 50))

# --- /big
if not small and big > 0:
    os.mkdir(P("big"))
    stem = "an-htree-name-padded-to-forty-bytes-"  # 36 bytes; 6 digits make 42
    targets = []
    for i in range(50):
        t = P("big", stem + "t%05d" % i)
        write(t, text("link target %d" % i, 100 + i))
        targets.append(t)
    made = 50
    for i in range(400):
        os.mkdir(P("big", stem + "d%05d" % i))
    for i in range(300):
        os.symlink("target-%d" % i, P("big", stem + "s%05d" % i))
    for i in range(300):
        write(P("big", stem + "f%05d" % i), b"")
    made += 1000
    i = 0
    while made < big:
        os.link(targets[i % 50], P("big", stem + "%06d" % i))
        i += 1
        made += 1
