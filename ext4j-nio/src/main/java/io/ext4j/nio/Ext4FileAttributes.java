package io.ext4j.nio;

import io.ext4j.fs.Attributes;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.UserPrincipal;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * What {@code stat} says of an inode ({@link Attributes}) as the JDK's basic and POSIX attributes,
 * and as the {@code "unix:*"} map the JDK's Linux provider gives (ino, nlink, uid, gid, mode, rdev,
 * ctime, dev). Owners are numeric ({@link Ext4Principal}): an image has no user database.
 * Immutable.
 */
final class Ext4FileAttributes implements PosixFileAttributes {
  private final Attributes a;

  Ext4FileAttributes(Attributes a) {
    this.a = a;
  }

  Attributes raw() {
    return a;
  }

  @Override
  public FileTime lastModifiedTime() {
    return FileTime.from(a.mtime());
  }

  @Override
  public FileTime lastAccessTime() {
    return FileTime.from(a.atime());
  }

  @Override
  public FileTime creationTime() {
    return FileTime.from(a.crtime());
  }

  @Override
  public boolean isRegularFile() {
    return a.isRegularFile();
  }

  @Override
  public boolean isDirectory() {
    return a.isDirectory();
  }

  @Override
  public boolean isSymbolicLink() {
    return a.isSymlink();
  }

  @Override
  public boolean isOther() {
    return !isRegularFile() && !isDirectory() && !isSymbolicLink();
  }

  @Override
  public long size() {
    return a.size();
  }

  @Override
  public Object fileKey() {
    return a.ino();
  }

  @Override
  public UserPrincipal owner() {
    return Ext4Principal.user(a.uid());
  }

  @Override
  public GroupPrincipal group() {
    return Ext4Principal.group(a.gid());
  }

  @Override
  public Set<PosixFilePermission> permissions() {
    return permissions(a.mode());
  }

  /** The permission bits of {@code mode} as the JDK's set. */
  static Set<PosixFilePermission> permissions(int mode) {
    Set<PosixFilePermission> s = EnumSet.noneOf(PosixFilePermission.class);
    PosixFilePermission[] order = {
      PosixFilePermission.OTHERS_EXECUTE, PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_READ,
      PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_READ,
      PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_READ};
    for (int i = 0; i < order.length; i++) {
      if ((mode & (1 << i)) != 0) {
        s.add(order[i]);
      }
    }
    return s;
  }

  /** The permission bits of {@code perms}. */
  static int mode(Set<PosixFilePermission> perms) {
    int m = 0;
    for (PosixFilePermission p : perms) {
      m |= switch (p) {
        case OWNER_READ -> 0400;
        case OWNER_WRITE -> 0200;
        case OWNER_EXECUTE -> 0100;
        case GROUP_READ -> 040;
        case GROUP_WRITE -> 020;
        case GROUP_EXECUTE -> 010;
        case OTHERS_READ -> 04;
        case OTHERS_WRITE -> 02;
        case OTHERS_EXECUTE -> 01;
      };
    }
    return m;
  }

  /** Every attribute of {@code view} ("basic", "posix", "owner" or "unix") by name. */
  Map<String, Object> asMap(String view) {
    Map<String, Object> m = new LinkedHashMap<>();
    if (view.equals("owner")) {
      m.put("owner", owner());
      return m;
    }
    m.put("lastModifiedTime", lastModifiedTime());
    m.put("lastAccessTime", lastAccessTime());
    m.put("creationTime", creationTime());
    m.put("size", size());
    m.put("isRegularFile", isRegularFile());
    m.put("isDirectory", isDirectory());
    m.put("isSymbolicLink", isSymbolicLink());
    m.put("isOther", isOther());
    m.put("fileKey", fileKey());
    if (view.equals("basic")) {
      return m;
    }
    m.put("owner", owner());
    m.put("group", group());
    m.put("permissions", permissions());
    if (view.equals("posix")) {
      return m;
    }
    m.put("mode", a.mode());
    m.put("ino", a.ino());
    m.put("dev", 0L);
    m.put("rdev", a.rdev());
    m.put("nlink", a.nlink());
    m.put("uid", (int) a.uid());
    m.put("gid", (int) a.gid());
    m.put("ctime", FileTime.from(a.ctime()));
    return m;
  }
}
