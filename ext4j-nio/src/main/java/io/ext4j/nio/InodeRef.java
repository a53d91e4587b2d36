package io.ext4j.nio;

import io.ext4j.fs.Attributes;
import io.ext4j.fs.SetAttributes;
import java.io.IOException;
import java.nio.file.LinkOption;

/**
 * What an attribute view reads and changes: a path resolved again at each call (the views
 * {@code Files.getFileAttributeView} returns), or an inode held open (a
 * {@link java.nio.file.SecureDirectoryStream}'s directory and the entries named relative to it).
 */
interface InodeRef {
  Attributes stat() throws IOException;

  void setattr(SetAttributes change) throws IOException;

  /** The path, for messages. */
  Object shown();

  static InodeRef of(Ext4NioFileSystem fs, Ext4Path path, LinkOption... options) {
    LinkOption[] o = options.clone();
    return new InodeRef() {
      @Override
      public Attributes stat() throws IOException {
        return fs.stat(path, o);
      }

      @Override
      public void setattr(SetAttributes change) throws IOException {
        fs.setattr(path, change, o);
      }

      @Override
      public Object shown() {
        return path;
      }
    };
  }

  static InodeRef ofInode(Ext4NioFileSystem fs, long ino, Object shown) {
    return new InodeRef() {
      @Override
      public Attributes stat() throws IOException {
        try {
          return fs.engine().getattr(ino);
        } catch (IOException e) {
          throw NioErrors.translate(e, shown, null);
        }
      }

      @Override
      public void setattr(SetAttributes change) throws IOException {
        fs.ensureWritableForViews();
        try {
          fs.engine().setattr(ino, change);
        } catch (IOException e) {
          throw NioErrors.translate(e, shown, null);
        }
      }

      @Override
      public Object shown() {
        return shown;
      }
    };
  }
}
