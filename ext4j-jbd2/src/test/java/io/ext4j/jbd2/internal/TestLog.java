package io.ext4j.jbd2.internal;

import io.ext4j.block.MemoryBlockDevice;
import io.ext4j.jbd2.JournalMap;
import io.ext4j.jbd2.format.BlockTag;
import io.ext4j.jbd2.format.CommitBlock;
import io.ext4j.jbd2.format.DescriptorBlock;
import io.ext4j.jbd2.format.JournalFeature;
import io.ext4j.jbd2.format.JournalHeader;
import io.ext4j.jbd2.format.JournalSuperblock;
import io.ext4j.jbd2.format.LogFormat;
import io.ext4j.jbd2.format.RevokeBlock;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Hand-built jbd2 logs for recovery tests: a memory device of fs blocks whose last
 * {@link #JOURNAL_BLOCKS} blocks hold a journal, written block by block with the production codecs.
 * Transactions are appended at a cursor that wraps like jbd2's log.
 */
final class TestLog {
  static final int JOURNAL_BLOCKS = 1024;
  static final int FS_BLOCKS = 512;
  static final byte[] UUID = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};

  final MemoryBlockDevice device;
  final JournalMap map;
  final LogFormat format;
  final int incompat;
  final int blockSize;
  final long start;
  final int firstTid;
  long cursor;

  /** A journal at device blocks {@code [FS_BLOCKS, FS_BLOCKS + 1024)}, its log starting at {@code start} with {@code firstTid}. */
  TestLog(int blockSize, int incompat, long start, int firstTid) {
    this.blockSize = blockSize;
    this.incompat = incompat;
    this.device = new MemoryBlockDevice("test", blockSize, FS_BLOCKS + JOURNAL_BLOCKS);
    // two extents, to exercise the map
    this.map = JournalMap.ofExtents(List.of(new JournalMap.Extent(0, FS_BLOCKS, 300),
        new JournalMap.Extent(300, FS_BLOCKS + 300, JOURNAL_BLOCKS - 300)));
    this.format = LogFormat.of(blockSize, incompat, UUID);
    this.start = start;
    this.firstTid = firstTid;
    this.cursor = start;
  }

  JournalSuperblock superblock() {
    return JournalSuperblock.create(blockSize, JOURNAL_BLOCKS, UUID, 0, incompat).withTail(firstTid, start);
  }

  /** Writes the superblock (dirty: s_start = start) to journal block 0. */
  TestLog writeSuperblock() throws IOException {
    ByteBuffer b = ByteBuffer.allocate(blockSize);
    b.put(0, superblock().encode());
    device.write(map.deviceBlock(0), b);
    return this;
  }

  boolean async() {
    return (incompat & JournalFeature.ASYNC_COMMIT.mask()) != 0;
  }

  /** Writes {@code b} at the cursor and advances it with wrap; returns the journal block written. */
  long put(ByteBuffer b) throws IOException {
    long at = cursor;
    device.write(map.deviceBlock(at), b.duplicate().clear());
    cursor = cursor + 1 >= JOURNAL_BLOCKS ? 1 : cursor + 1;
    return at;
  }

  ByteBuffer readJournal(long journalBlock) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(blockSize);
    device.read(map.deviceBlock(journalBlock), b);
    return b.clear();
  }

  void writeJournal(long journalBlock, ByteBuffer b) throws IOException {
    device.write(map.deviceBlock(journalBlock), b.duplicate().clear());
  }

  byte[] home(long fsBlock) {
    return device.block(fsBlock);
  }

  /** A block of {@code blockSize} bytes filled from {@code seed}. */
  byte[] content(int seed) {
    byte[] b = new byte[blockSize];
    for (int i = 0; i < b.length; i++) {
      b[i] = (byte) (seed * 31 + i * 7 + (i >> 8));
    }
    return b;
  }

  /** A block whose first word is the jbd2 magic: logged escaped. */
  byte[] magicContent(int seed) {
    byte[] b = content(seed);
    ByteBuffer.wrap(b).putInt(0, JournalHeader.MAGIC);
    return b;
  }

  Tx tx(int tid) {
    return new Tx(tid);
  }

  /** One transaction being appended. */
  final class Tx {
    final int tid;
    final List<Long> fsBlocks = new ArrayList<>();
    final List<byte[]> contents = new ArrayList<>();
    final List<Long> revokes = new ArrayList<>();
    /** Journal blocks written for this transaction, filled by {@link #commit}. */
    final List<Long> dataBlocks = new ArrayList<>();
    long commitBlock = -1;
    long descriptorBlock = -1;

    Tx(int tid) {
      this.tid = tid;
    }

    Tx log(long fsBlock, byte[] content) {
      fsBlocks.add(fsBlock);
      contents.add(content.clone());
      return this;
    }

    Tx revoke(long... blocks) {
      for (long b : blocks) {
        revokes.add(b);
      }
      return this;
    }

    /** Writes revoke blocks, descriptor(s) and data; no commit block. */
    Tx writeBody() throws IOException {
      if (!revokes.isEmpty()) {
        long[] r = revokes.stream().mapToLong(Long::longValue).toArray();
        for (int i = 0; i < r.length; i += format.revokeRecordsPerBlock()) {
          put(RevokeBlock.encode(format, tid, r, i, Math.min(r.length, i + format.revokeRecordsPerBlock())));
        }
      }
      int per = format.tagsPerDescriptor();
      for (int from = 0; from < fsBlocks.size(); from += per) {
        int to = Math.min(fsBlocks.size(), from + per);
        List<BlockTag> tags = new ArrayList<>();
        List<ByteBuffer> logged = new ArrayList<>();
        for (int i = from; i < to; i++) {
          byte[] c = contents.get(i).clone();
          int flags = 0;
          if (ByteBuffer.wrap(c).getInt(0) == JournalHeader.MAGIC) {
            Arrays.fill(c, 0, 4, (byte) 0);
            flags = BlockTag.FLAG_ESCAPE;
          }
          int csum = format.dataBlockChecksum(tid, ByteBuffer.wrap(c));
          tags.add(new BlockTag(fsBlocks.get(i), flags, format.checksumVersion() == 2 ? csum & 0xFFFF : csum));
          logged.add(ByteBuffer.wrap(c));
        }
        long d = put(DescriptorBlock.encode(format, tid, tags));
        if (descriptorBlock < 0) {
          descriptorBlock = d;
        }
        for (ByteBuffer b : logged) {
          dataBlocks.add(put(b));
        }
      }
      return this;
    }

    /** Writes the whole transaction with a commit block stamped {@code seconds}. */
    Tx commit(long seconds) throws IOException {
      writeBody();
      commitBlock = put(CommitBlock.encode(format, tid, seconds, 0));
      return this;
    }
  }
}
