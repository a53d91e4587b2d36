package io.ext4j.nio;

import io.ext4j.fs.Attributes;
import io.ext4j.fs.vfs.AttrChange;
import java.io.IOException;
import java.nio.file.LinkOption;

/**
 * What an attribute view reads and changes: a path resolved again at each call (the views
 * {@code Files.getFileAttributeView} returns), or a directory a secure directory stream holds open
 * and the paths resolved from it. Each call is one engine call (fstatat, or the setattr that does
 * chmod, chown and utimensat with their rules).
 */
interface InodeRef {
  Attributes stat() throws IOException;

  void setattr(AttrChange change) throws IOException;

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
      public void setattr(AttrChange change) throws IOException {
        fs.setattr(path, change, o);
      }

      @Override
      public Object shown() {
        return path;
      }
    };
  }
}
