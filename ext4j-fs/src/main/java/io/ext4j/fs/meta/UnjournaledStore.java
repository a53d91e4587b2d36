package io.ext4j.fs.meta;

import io.ext4j.block.BlockDevice;
import io.ext4j.block.cache.BlockCache;
import io.ext4j.block.cache.CachedBlock;
import java.io.IOException;
import java.util.Arrays;

/**
 * Metadata without a journal (ext2-style: filesystems without has_journal, and mkfs): changes are
 * made in the cache and written back by {@link #sync()}.
 *
 * <h2>Durability</h2>
 * A change is on the device once {@link #sync()} (or {@link #commit(int)}, the same) returns, after
 * the write-back and a device flush. A crash before that may leave any subset of the changes — the
 * guarantee ext2 gives; use a journal for crash consistency.
 */
public final class UnjournaledStore implements MetaStore {
  private final BlockDevice device;
  private final BlockCache cache;

  public UnjournaledStore(BlockDevice device, BlockCache cache) {
    this.device = device;
    this.cache = cache;
  }

  @Override
  public BlockDevice device() {
    return device;
  }

  @Override
  public BlockCache cache() {
    return cache;
  }

  @Override
  public boolean journaled() {
    return false;
  }

  @Override
  public Buf read(long block) throws IOException {
    try {
      return new CBuf(cache.get(block));
    } catch (io.ext4j.block.BlockDeviceException e) {
      throw MetaStore.readFailed(cache.device(), block, e);
    }
  }

  @Override
  public void readAhead(long first, int count) throws IOException {
    cache.readAhead(first, count);
  }

  @Override
  public Tx begin(int credits, int revokes) {
    return new CTx();
  }

  @Override
  public java.util.OptionalInt runningTid() {
    return java.util.OptionalInt.empty();
  }

  @Override
  public boolean isCommitted(int tid) {
    return true;
  }

  @Override
  public void commit(int tid) throws IOException {
    sync();
  }

  @Override
  public void sync() throws IOException {
    if (cache.writeBack() == 0 && device.isReadOnly()) {
      return; // a read-only filesystem: nothing was written, and the device refuses flushes
    }
    device.flush();
  }

  @Override
  public void abort(Throwable cause) {
    // nothing to stop: without a journal every change is already in the cache
  }

  @Override
  public int maxCredits() {
    return Integer.MAX_VALUE / 2;
  }

  @Override
  public void close() throws IOException {
    sync();
  }

  /** A cached block as a {@link Buf}. */
  static final class CBuf implements Buf {
    final CachedBlock cb;

    CBuf(CachedBlock cb) {
      this.cb = cb;
    }

    @Override
    public long block() {
      return cb.block();
    }

    @Override
    public byte[] array() {
      return cb.array();
    }

    @Override
    public void close() {
      cb.release();
    }
  }

  private final class CTx implements Tx {
    private boolean sync; // the owning thread only

    @Override
    public int tid() {
      return NO_TID;
    }

    @Override
    public Buf read(long block) throws IOException {
      return UnjournaledStore.this.read(block);
    }

    @Override
    public Buf create(long block) throws IOException {
      CBuf b = new CBuf(cache.getNew(block));
      Arrays.fill(b.array(), (byte) 0);
      return b;
    }

    @Override
    public void modify(Buf b) {
      // nothing to declare without a journal
    }

    @Override
    public void dirty(Buf b) {
      ((CBuf) b).cb.markDirty();
    }

    @Override
    public void forget(long block) {
      cache.discard(block);
    }

    @Override
    public boolean ensureCredits(int credits) {
      return true;
    }

    @Override
    public int creditsLeft() {
      return Integer.MAX_VALUE / 2;
    }

    @Override
    public void setSync() {
      sync = true;
    }

    /** Without {@link #setSync()} the changes stay in the cache until {@link #sync()}; with it, they are synced now. */
    @Override
    public void close() throws IOException {
      if (sync) {
        sync();
      }
    }
  }
}
