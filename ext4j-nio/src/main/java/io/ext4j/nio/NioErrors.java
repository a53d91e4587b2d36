package io.ext4j.nio;

import io.ext4j.fs.Ext4Exception;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.FileSystemLoopException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.NotLinkException;
import java.nio.file.ReadOnlyFileSystemException;

/**
 * The engine's errno-style {@link Ext4Exception} as the JDK's file-system exceptions, the path in
 * the message, as {@code UnixException.translateToIOException} maps errno. Pure.
 */
final class NioErrors {
  private NioErrors() {}

  /** {@code e} for an operation on {@code file} (and {@code other}, for two-path operations; may be null). */
  static IOException translate(IOException e, Object file, Object other) {
    if (!(e instanceof Ext4Exception x)) {
      return e;
    }
    String f = String.valueOf(file);
    String o = other == null ? null : other.toString();
    String reason = x.errno().toString().toLowerCase(java.util.Locale.ROOT) + ": " + x.getMessage();
    FileSystemException out = switch (x.errno()) {
      case ENOENT -> new NoSuchFileException(f, o, null);
      case EEXIST -> new FileAlreadyExistsException(f, o, null);
      case ENOTEMPTY -> new DirectoryNotEmptyException(f);
      case ENOTDIR -> new NotDirectoryException(f);
      case EACCES, EPERM -> new AccessDeniedException(f, o, reason);
      case ELOOP -> new FileSystemLoopException(f);
      case EROFS -> new FileSystemException(f, o, "read-only file system: " + x.getMessage());
      default -> new FileSystemException(f, o, reason);
    };
    out.initCause(e);
    return out;
  }

  /** For a write on a file system opened read-only. */
  static ReadOnlyFileSystemException readOnly() {
    return new ReadOnlyFileSystemException();
  }

  /** {@code readlink} of what is not a link. */
  static NotLinkException notLink(Object file) {
    return new NotLinkException(String.valueOf(file));
  }
}
