package io.ext4j.nio;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.LinkOption;
import java.nio.file.attribute.UserDefinedFileAttributeView;
import java.util.ArrayList;
import java.util.List;

/**
 * User-defined attributes of one path as the inode's {@code user.*} extended attributes, as the
 * JDK's Linux provider keeps them: the attribute "x" is the xattr "user.x". Each call is one engine
 * call on the path (getxattr, setxattr, listxattr, removexattr), which checks the name as Linux
 * does (an empty one is EINVAL, one over 255 bytes ERANGE, and a symbolic link keeps none: EPERM).
 */
final class Ext4UserAttributeView implements UserDefinedFileAttributeView {
  private static final String PREFIX = "user.";

  private final Ext4NioFileSystem fs;
  private final Ext4Path path;
  private final LinkOption[] options;

  Ext4UserAttributeView(Ext4NioFileSystem fs, Ext4Path path, LinkOption... options) {
    this.fs = fs;
    this.path = path;
    this.options = options.clone();
  }

  @Override
  public String name() {
    return "user";
  }

  @Override
  public List<String> list() throws IOException {
    List<String> out = new ArrayList<>();
    for (String n : fs.listxattr(null, path, path, options)) {
      if (n.startsWith(PREFIX)) {
        out.add(n.substring(PREFIX.length()));
      }
    }
    return out;
  }

  private byte[] value(String name) throws IOException {
    return fs.getxattr(null, path, path, PREFIX + name, options);
  }

  @Override
  public int size(String name) throws IOException {
    return value(name).length;
  }

  @Override
  public int read(String name, ByteBuffer dst) throws IOException {
    byte[] v = value(name);
    if (dst.remaining() < v.length) {
      throw new java.nio.file.FileSystemException(path.toString(), null, "attribute '" + name + "' holds " + v.length
          + " bytes, the buffer " + dst.remaining() + ": Numerical result out of range");
    }
    dst.put(v);
    return v.length;
  }

  @Override
  public int write(String name, ByteBuffer src) throws IOException {
    byte[] v = new byte[src.remaining()];
    src.get(v);
    fs.setxattr(null, path, path, PREFIX + name, v, options);
    return v.length;
  }

  @Override
  public void delete(String name) throws IOException {
    fs.removexattr(null, path, path, PREFIX + name, options);
  }
}
