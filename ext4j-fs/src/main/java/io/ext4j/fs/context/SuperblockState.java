package io.ext4j.fs.context;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.ext4j.fs.format.FsLayout;
import io.ext4j.block.BlockDevice;
import io.ext4j.fs.format.Ext4Superblock;
import io.ext4j.fs.format.SuperblockEditor;
import io.ext4j.fs.meta.Buf;
import io.ext4j.fs.meta.MetaStore;
import io.ext4j.fs.meta.Tx;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * The primary superblock while the filesystem is open: its current bytes, changed through
 * {@link #change} and written either in a Tx (the orphan list head, error records) or directly
 * (mount and clean unmount, when no transaction runs). The free-block and free-inode totals are
 * filled in from the group counters at every write, as the kernel does from its percpu counters.
 *
 * <h2>Locks and durability</h2>
 * {@code this} guards the bytes; {@link #current} reads their decoded form without the lock (every
 * operation asks it for the reserved-block owner), refreshed whenever the bytes change.
 * {@link #writeIn} makes the superblock block part of the Tx; {@link #writeDirect} writes it to the
 * device without flushing (the caller flushes).
 */
public final class SuperblockState {
  private final FsLayout lay;
  private final LongSupplier freeBlocks;
  private final LongSupplier freeInodes;
  @GuardedBy("this") private byte[] bytes;
  private volatile Ext4Superblock decoded; // written under this, with bytes; read without it

  /** @throws io.ext4j.fs.Ext4FormatException if the superblock, its checksum made whole, still does not decode */
  public SuperblockState(FsLayout lay, Ext4Superblock sb, LongSupplier freeBlocks, LongSupplier freeInodes)
      throws io.ext4j.fs.Ext4FormatException {
    this.lay = lay;
    this.bytes = new SuperblockEditor(sb.toBytes()).encode(); // a checksum torn by a crash is made whole here
    this.decoded = Ext4Superblock.decode(lay.name(), bytes);
    this.freeBlocks = freeBlocks;
    this.freeInodes = freeInodes;
  }

  /** The block holding the superblock, and its offset in it. */
  public long block() {
    return lay.blockSize() == 1024 ? 1 : 0;
  }

  public int offset() {
    return lay.blockSize() == 1024 ? 0 : 1024;
  }

  /** Applies {@code edit} to the bytes (not yet written anywhere). */
  public synchronized void change(Consumer<SuperblockEditor> edit) {
    SuperblockEditor e = new SuperblockEditor(bytes);
    edit.accept(e);
    set(e.encode());
  }

  /** The current superblock, decoded (as of the last change or write; no lock taken). */
  public Ext4Superblock current() {
    return decoded;
  }

  @GuardedBy("this")
  private void set(byte[] now) {
    assert Thread.holdsLock(this);
    try {
      decoded = Ext4Superblock.decode(lay.name(), now);
    } catch (IOException e) {
      throw new IllegalStateException("the in-memory superblock stopped decoding: " + e.getMessage(), e);
    }
    bytes = now;
  }

  private synchronized byte[] withTotals() {
    SuperblockEditor e = new SuperblockEditor(bytes);
    e.freeBlocksCount(freeBlocks.getAsLong());
    e.freeInodesCount(freeInodes.getAsLong());
    set(e.encode());
    return bytes.clone();
  }

  /** Writes the superblock into its block within {@code tx}. */
  public void writeIn(Tx tx) throws IOException {
    try (Buf b = tx.read(block())) {
      tx.modify(b);
      synchronized (this) {
        System.arraycopy(withTotals(), 0, b.array(), offset(), Ext4Superblock.SIZE);
      }
      tx.dirty(b);
    }
  }

  /**
   * Applies {@code edit} to the superblock as it is on the device (not to these bytes) and writes it
   * back straight to the device with its checksum recomputed: for the error record after the journal
   * aborted, which must not carry along changes that never committed. The cached copy of the block is
   * left alone (the journal may own it). Does not flush.
   */
  public void editOnDevice(BlockDevice device, Consumer<SuperblockEditor> edit) throws IOException {
    ByteBuffer block = ByteBuffer.allocate(lay.blockSize());
    device.read(block(), block);
    byte[] sb = new byte[Ext4Superblock.SIZE];
    block.get(offset(), sb);
    SuperblockEditor e = new SuperblockEditor(sb);
    edit.accept(e);
    block.put(offset(), e.encode());
    block.clear();
    device.write(block(), block);
  }

  /**
   * Writes the superblock straight to the device, bypassing any journal (mount, unmount, after
   * recovery; nothing else may be writing the superblock's block then), and updates the cached copy
   * of its block. Does not flush.
   */
  public void writeDirect(BlockDevice device, MetaStore meta) throws IOException {
    byte[] sb = withTotals();
    int bs = lay.blockSize();
    ByteBuffer block = ByteBuffer.allocate(bs);
    device.read(block(), block);
    block.put(offset(), sb);
    block.clear();
    device.write(block(), block);
    meta.cache().invalidate(block());
  }
}
