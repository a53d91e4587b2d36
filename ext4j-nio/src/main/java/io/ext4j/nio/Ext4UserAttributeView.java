package io.ext4j.nio;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.LinkOption;
import java.nio.file.attribute.UserDefinedFileAttributeView;
import java.util.ArrayList;
import java.util.List;

/**
 * User-defined attributes of one path as the inode's {@code user.*} extended attributes, as the
 * JDK's Linux provider keeps them: the attribute "x" is the xattr "user.x". Each call resolves the
 * path again and goes to the engine (getxattr, setxattr, listxattr, removexattr).
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

  private long ino() throws IOException {
    return fs.stat(path, options).ino();
  }

  @Override
  public List<String> list() throws IOException {
    List<String> out = new ArrayList<>();
    try {
      for (String n : fs.engine().listxattr(ino())) {
        if (n.startsWith(PREFIX)) {
          out.add(n.substring(PREFIX.length()));
        }
      }
    } catch (IOException e) {
      throw NioErrors.translate(e, path, null);
    }
    return out;
  }

  private byte[] value(String name) throws IOException {
    try {
      return fs.engine().getxattr(ino(), PREFIX + name);
    } catch (IOException e) {
      throw NioErrors.translate(e, path, null);
    }
  }

  @Override
  public int size(String name) throws IOException {
    return value(name).length;
  }

  @Override
  public int read(String name, ByteBuffer dst) throws IOException {
    byte[] v = value(name);
    if (dst.remaining() < v.length) {
      throw new IOException(path + ": attribute '" + name + "' holds " + v.length + " bytes, the buffer " + dst.remaining());
    }
    dst.put(v);
    return v.length;
  }

  @Override
  public int write(String name, ByteBuffer src) throws IOException {
    byte[] v = new byte[src.remaining()];
    src.get(v);
    fs.ensureWritableForViews();
    try {
      fs.engine().setxattr(ino(), PREFIX + name, v, 0);
    } catch (IOException e) {
      throw NioErrors.translate(e, path, null);
    }
    return v.length;
  }

  @Override
  public void delete(String name) throws IOException {
    fs.ensureWritableForViews();
    try {
      fs.engine().removexattr(ino(), PREFIX + name);
    } catch (IOException e) {
      throw NioErrors.translate(e, path, null);
    }
  }
}
