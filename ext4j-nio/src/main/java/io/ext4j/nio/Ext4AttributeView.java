package io.ext4j.nio;

import io.ext4j.fs.vfs.AttrChange;
import io.ext4j.fs.vfs.TimeSpec;
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
 * call, or a directory a secure directory stream holds open), read and changed through the
 * engine's stat and setattr: setting permissions is chmod with those bits (setuid, setgid and
 * sticky go, as they do from chmod 644), setting times is utimensat.
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
    AttrChange c = AttrChange.times(lastAccessTime == null ? null : TimeSpec.at(lastAccessTime.toInstant()),
        lastModifiedTime == null ? null : TimeSpec.at(lastModifiedTime.toInstant()));
    if (createTime != null) {
      c = c.withCrtime(createTime.toInstant());
    }
    target.setattr(c);
  }

  @Override
  public void setPermissions(Set<PosixFilePermission> perms) throws IOException {
    target.setattr(AttrChange.chmod(Ext4FileAttributes.mode(perms)));
  }

  @Override
  public void setGroup(GroupPrincipal group) throws IOException {
    target.setattr(AttrChange.chown(null, principal(group).id()));
  }

  @Override
  public UserPrincipal getOwner() throws IOException {
    return readAttributes().owner();
  }

  @Override
  public void setOwner(UserPrincipal owner) throws IOException {
    target.setattr(AttrChange.chown(principal(owner).id(), null));
  }

  private static Ext4Principal principal(Object p) {
    if (p instanceof Ext4Principal e) {
      return e;
    }
    throw new java.nio.file.ProviderMismatchException("not an ext4 principal (look it up through the file system's service): " + p);
  }
}
