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
 * The engine's errno-style {@link Ext4Exception} as the JDK's file-system exceptions, as the JDK
 * maps errno: the path (and the other path) first, then the errno's text once, as strerror says it,
 * and the engine's evidence in parentheses ({@code /self -> /self/sub: Invalid argument (…)}).
 * Pure.
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
    String reason = reason(x);
    FileSystemException out = switch (x.errno()) {
      case ENOENT -> new NoSuchFileException(f, o, null);
      case EEXIST -> new FileAlreadyExistsException(f, o, null);
      case ENOTEMPTY -> new DirectoryNotEmptyException(f);
      case ENOTDIR -> new NotDirectoryException(f);
      case EACCES, EPERM -> new AccessDeniedException(f, o, reason);
      case ELOOP -> new FileSystemLoopException(f);
      case EROFS -> new FileSystemException(f, o, reason);
      default -> new FileSystemException(f, o, reason);
    };
    out.initCause(e);
    return out;
  }

  /** "Invalid argument (what the engine saw)": strerror's words, then the detail when there is one. */
  static String reason(Ext4Exception x) {
    String d = x.errno().description();
    String text = Character.toUpperCase(d.charAt(0)) + d.substring(1);
    return x.detail() == null || x.detail().isEmpty() ? text : text + " (" + x.detail() + ")";
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
