package io.ext4j.nio;

import io.ext4j.fs.StatFs;
import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.FileAttributeView;
import java.nio.file.attribute.FileOwnerAttributeView;
import java.nio.file.attribute.FileStoreAttributeView;
import java.nio.file.attribute.PosixFileAttributeView;

/**
 * The one store of an image: space and inode figures from the engine's {@code statfs} (usable
 * space leaves out the root-reserved blocks, as {@code df} does for others; the JVM runs as root
 * here, but {@code getUsableSpace} follows the JDK's meaning of "available to this user" loosely,
 * as the Linux provider gives f_bavail). Attributes "totalInodes", "freeInodes", "blockSize", and
 * "journalStats": the journal's {@link io.ext4j.jbd2.JournalStats} since the image was opened (null
 * without a journal or read-only), for monitoring group commit from outside the engine.
 */
final class Ext4FileStore extends FileStore {
  private final Ext4NioFileSystem fs;

  Ext4FileStore(Ext4NioFileSystem fs) {
    this.fs = fs;
  }

  private StatFs statfs() throws IOException {
    return fs.engine().statfs();
  }

  @Override
  public String name() {
    return fs.image().getFileName().toString();
  }

  @Override
  public String type() {
    return "ext4";
  }

  @Override
  public boolean isReadOnly() {
    return fs.isReadOnly();
  }

  @Override
  public long getTotalSpace() throws IOException {
    StatFs s = statfs();
    return s.blocks() * s.blockSize();
  }

  @Override
  public long getUsableSpace() throws IOException {
    StatFs s = statfs();
    return s.availableBlocks() * s.blockSize();
  }

  @Override
  public long getUnallocatedSpace() throws IOException {
    StatFs s = statfs();
    return s.freeBlocks() * s.blockSize();
  }

  @Override
  public long getBlockSize() throws IOException {
    return statfs().blockSize();
  }

  @Override
  public boolean supportsFileAttributeView(Class<? extends FileAttributeView> type) {
    return type == BasicFileAttributeView.class || type == PosixFileAttributeView.class || type == FileOwnerAttributeView.class
        || type == java.nio.file.attribute.UserDefinedFileAttributeView.class;
  }

  @Override
  public boolean supportsFileAttributeView(String name) {
    return fs.supportedFileAttributeViews().contains(name);
  }

  @Override
  public <V extends FileStoreAttributeView> V getFileStoreAttributeView(Class<V> type) {
    return null;
  }

  @Override
  public Object getAttribute(String attribute) throws IOException {
    if (attribute.equals("journalStats")) {
      return fs.engine().journalStats();
    }
    StatFs s = statfs();
    return switch (attribute) {
      case "totalSpace" -> getTotalSpace();
      case "usableSpace" -> getUsableSpace();
      case "unallocatedSpace" -> getUnallocatedSpace();
      case "totalInodes" -> s.inodes();
      case "freeInodes" -> s.freeInodes();
      case "blockSize" -> (long) s.blockSize();
      default -> throw new UnsupportedOperationException("file store attribute '" + attribute + "'");
    };
  }

  @Override
  public String toString() {
    return fs.image() + " (ext4)";
  }
}
