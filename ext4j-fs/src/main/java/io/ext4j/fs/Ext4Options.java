package io.ext4j.fs;

import io.ext4j.jbd2.JournalOptions;
import java.util.Objects;
import java.util.function.IntSupplier;

/**
 * How to open an ext4 filesystem. Defaults noted per component; build with {@link #builder()}.
 *
 * @param readOnly open without writing anything (default false); an image needing journal recovery
 *     is then recovered in memory only
 * @param journal the journal's options (default {@link JournalOptions#defaults()})
 * @param cacheBytes the block cache's size (default 64 MiB: the CLI runs in -Xmx256m on any image)
 * @param inodeCacheSize inodes kept in memory when unused (default 16384)
 * @param dioLocking direct-I/O locking (default {@link DioLocking#SHARED_WITH_UNWRITTEN})
 * @param clock timestamps (default {@link FsClock#system()})
 * @param generations i_generation of new inodes (default a secure random source)
 * @param bulkLoad write metadata through the cache without the journal, written back at close —
 *     for filling a new image (mkfs -d): much faster, but a crash before {@code close} leaves the
 *     image unusable (default false; the journal must be empty)
 * @param directDevice open an image file with {@code O_DIRECT} ({@link Ext4FileSystem#open(java.nio.file.Path,
 *     Ext4Options)}): every read and write of it bypasses the host's page cache, as a file system on
 *     a block device sees its disk, so the engine's direct I/O is direct down to the device (default
 *     false; the host file system must support O_DIRECT, which tmpfs does not)
 * @param dirSync ext4's {@code dirsync} mount option: every directory change (create, link, unlink,
 *     mkdir, rmdir, mknod, symlink, rename) is durable when its call returns, as if every directory
 *     had the DIRSYNC flag ({@code chattr +D}); each one stops a synchronous journal handle, where
 *     the batching policy's {@link io.ext4j.jbd2.BatchingPolicy#onSyncStop} acts (default false)
 * @param dentryCacheSize names the dentry cache keeps (positive and negative), so that a path walk
 *     over known names reads no directory block (default 65536; 0 turns the cache off, for the
 *     benchmark's comparison)
 * @param atime when reads and listings update access times (default {@link AtimeUpdates#RELATIME},
 *     as the kernel mounts)
 * @param noDirAtime {@code nodiratime}: listing a directory never updates its access time (default false)
 */
public record Ext4Options(boolean readOnly, JournalOptions journal, long cacheBytes, int inodeCacheSize,
    DioLocking dioLocking, FsClock clock, IntSupplier generations, boolean bulkLoad, boolean directDevice,
    boolean dirSync, int dentryCacheSize, AtimeUpdates atime, boolean noDirAtime) {

  public Ext4Options {
    Objects.requireNonNull(journal, "journal");
    Objects.requireNonNull(dioLocking, "dioLocking");
    Objects.requireNonNull(clock, "clock");
    Objects.requireNonNull(generations, "generations");
    Objects.requireNonNull(atime, "atime");
    if (cacheBytes < 1 << 20) {
      throw new IllegalArgumentException("cacheBytes must be at least 1 MiB, not " + cacheBytes);
    }
    if (dentryCacheSize < 0) {
      throw new IllegalArgumentException("dentryCacheSize must be 0 (off) or more, not " + dentryCacheSize);
    }
    if (inodeCacheSize < 64) {
      throw new IllegalArgumentException("inodeCacheSize must be at least 64, not " + inodeCacheSize);
    }
  }

  public static Ext4Options defaults() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  public Builder toBuilder() {
    Builder b = new Builder();
    b.readOnly = readOnly;
    b.journal = journal;
    b.cacheBytes = cacheBytes;
    b.inodeCacheSize = inodeCacheSize;
    b.dentryCacheSize = dentryCacheSize;
    b.dioLocking = dioLocking;
    b.clock = clock;
    b.generations = generations;
    b.bulkLoad = bulkLoad;
    b.directDevice = directDevice;
    b.dirSync = dirSync;
    b.atime = atime;
    b.noDirAtime = noDirAtime;
    return b;
  }

  /** Builds {@link Ext4Options}; each setter sets the record component of the same name. */
  public static final class Builder {
    private boolean readOnly;
    private JournalOptions journal = JournalOptions.defaults();
    private long cacheBytes = 64L << 20;
    private int inodeCacheSize = 16384;
    private int dentryCacheSize = 65536;
    private DioLocking dioLocking = DioLocking.SHARED_WITH_UNWRITTEN;
    private FsClock clock = FsClock.system();
    private IntSupplier generations = new java.security.SecureRandom()::nextInt;
    private boolean bulkLoad;
    private boolean directDevice;
    private boolean dirSync;
    private AtimeUpdates atime = AtimeUpdates.RELATIME;
    private boolean noDirAtime;

    private Builder() {}

    public Builder readOnly(boolean v) {
      readOnly = v;
      return this;
    }

    public Builder journal(JournalOptions v) {
      journal = v;
      return this;
    }

    public Builder cacheBytes(long v) {
      cacheBytes = v;
      return this;
    }

    public Builder inodeCacheSize(int v) {
      inodeCacheSize = v;
      return this;
    }

    public Builder dioLocking(DioLocking v) {
      dioLocking = v;
      return this;
    }

    public Builder clock(FsClock v) {
      clock = v;
      return this;
    }

    public Builder generations(IntSupplier v) {
      generations = v;
      return this;
    }

    public Builder directDevice(boolean v) {
      directDevice = v;
      return this;
    }

    public Builder dirSync(boolean v) {
      dirSync = v;
      return this;
    }

    public Builder dentryCacheSize(int v) {
      dentryCacheSize = v;
      return this;
    }

    public Builder atime(AtimeUpdates v) {
      atime = v;
      return this;
    }

    public Builder noDirAtime(boolean v) {
      noDirAtime = v;
      return this;
    }

    public Builder bulkLoad(boolean v) {
      bulkLoad = v;
      return this;
    }

    public Ext4Options build() {
      if (bulkLoad && readOnly) {
        throw new IllegalArgumentException("bulkLoad writes; it cannot be read-only");
      }
      return new Ext4Options(readOnly, journal, cacheBytes, inodeCacheSize, dioLocking, clock, generations, bulkLoad,
          directDevice, dirSync, dentryCacheSize, atime, noDirAtime);
    }
  }
}
