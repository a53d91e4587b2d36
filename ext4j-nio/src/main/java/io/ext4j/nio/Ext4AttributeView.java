package io.ext4j.nio;

import io.ext4j.fs.SetAttributes;
import java.io.IOException;
import java.nio.file.LinkOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.UserPrincipal;
import java.util.Set;

/**
 * The basic, POSIX and owner views of one path: each call resolves the path again (a view is not
 * an open file) and reads or changes the inode through the engine's getattr/setattr.
 */
final class Ext4AttributeView implements PosixFileAttributeView {
  private final Ext4NioFileSystem fs;
  private final Ext4Path path;
  private final String name;
  private final LinkOption[] options;

  Ext4AttributeView(Ext4NioFileSystem fs, Ext4Path path, String name, LinkOption... options) {
    this.fs = fs;
    this.path = path;
    this.name = name;
    this.options = options.clone();
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public Ext4FileAttributes readAttributes() throws IOException {
    return new Ext4FileAttributes(fs.stat(path, options));
  }

  @Override
  public void setTimes(FileTime lastModifiedTime, FileTime lastAccessTime, FileTime createTime) throws IOException {
    if (lastModifiedTime == null && lastAccessTime == null && createTime == null) {
      return;
    }
    SetAttributes c = SetAttributes.none().withTimes(lastAccessTime == null ? null : lastAccessTime.toInstant(),
        lastModifiedTime == null ? null : lastModifiedTime.toInstant());
    if (createTime != null) {
      c = c.withCrtime(createTime.toInstant());
    }
    fs.setattr(path, c, options);
  }

  @Override
  public void setPermissions(Set<PosixFilePermission> perms) throws IOException {
    int type = fs.stat(path, options).mode() & 07000; // setuid, setgid and sticky stay
    fs.setattr(path, SetAttributes.none().withMode(type | Ext4FileAttributes.mode(perms)), options);
  }

  @Override
  public void setGroup(GroupPrincipal group) throws IOException {
    fs.setattr(path, SetAttributes.none().withOwner(null, principal(group).id()), options);
  }

  @Override
  public UserPrincipal getOwner() throws IOException {
    return readAttributes().owner();
  }

  @Override
  public void setOwner(UserPrincipal owner) throws IOException {
    fs.setattr(path, SetAttributes.none().withOwner(principal(owner).id(), null), options);
  }

  private static Ext4Principal principal(Object p) {
    if (p instanceof Ext4Principal e) {
      return e;
    }
    throw new java.nio.file.ProviderMismatchException("not an ext4 principal (look it up through the file system's service): " + p);
  }
}
