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
 * The basic, POSIX and owner views of one file ({@link InodeRef}: a path resolved again at each
 * call, or an inode a secure directory stream holds), read and changed through the engine's
 * getattr/setattr.
 */
final class Ext4AttributeView implements PosixFileAttributeView {
  private final InodeRef target;
  private final String name;

  Ext4AttributeView(Ext4NioFileSystem fs, Ext4Path path, String name, LinkOption... options) {
    this(InodeRef.of(fs, path, options), name);
  }

  Ext4AttributeView(InodeRef target, String name) {
    this.target = target;
    this.name = name;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public Ext4FileAttributes readAttributes() throws IOException {
    return new Ext4FileAttributes(target.stat());
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
    target.setattr(c);
  }

  @Override
  public void setPermissions(Set<PosixFilePermission> perms) throws IOException {
    int type = target.stat().mode() & 07000; // setuid, setgid and sticky stay
    target.setattr(SetAttributes.none().withMode(type | Ext4FileAttributes.mode(perms)));
  }

  @Override
  public void setGroup(GroupPrincipal group) throws IOException {
    target.setattr(SetAttributes.none().withOwner(null, principal(group).id()));
  }

  @Override
  public UserPrincipal getOwner() throws IOException {
    return readAttributes().owner();
  }

  @Override
  public void setOwner(UserPrincipal owner) throws IOException {
    target.setattr(SetAttributes.none().withOwner(principal(owner).id(), null));
  }

  private static Ext4Principal principal(Object p) {
    if (p instanceof Ext4Principal e) {
      return e;
    }
    throw new java.nio.file.ProviderMismatchException("not an ext4 principal (look it up through the file system's service): " + p);
  }
}
