package io.ext4j.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ext4j.block.BlockDevice;
import io.ext4j.block.BlockOutOfRangeException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The {@link BlockDevice} SPI's obligations as tests. Extend it once per implementation and provide
 * {@link #create(int, long)} (an implementation with a read-only mode extends {@link
 * ReadOnlyBlockDeviceContract} instead); override {@link #blockSize()} if it needs a particular block
 * size. Devices made through {@link #device()} are closed after each test.
 */
public abstract class BlockDeviceContract {
  /** Blocks in each test device. */
  protected static final long BLOCKS = 64;

  private final List<BlockDevice> opened = new ArrayList<>(); // test thread only

  /** For the subclass of one implementation. */
  protected BlockDeviceContract() {}

  /** A new writable device of {@code blockCount} blocks of {@code blockSize}, all zeros. */
  protected abstract BlockDevice create(int blockSize, long blockCount) throws IOException;

  /** The block size the tests use (default 1024). */
  protected int blockSize() {
    return 1024;
  }

  /** A buffer for transfers (default: heap); override to test direct buffers. */
  protected ByteBuffer allocate(int bytes) {
    return ByteBuffer.allocate(bytes);
  }

  protected final BlockDevice device() throws IOException {
    return track(create(blockSize(), BLOCKS));
  }

  protected final BlockDevice track(BlockDevice d) {
    opened.add(d);
    return d;
  }

  @AfterEach
  final void closeDevices() throws IOException {
    for (BlockDevice d : opened) {
      d.close();
    }
    opened.clear();
  }

  @Test
  void create_reportsBlockSizeAndCount() throws IOException {
    BlockDevice d = device();
    assertThat(d.blockSize()).isEqualTo(blockSize());
    assertThat(d.blockCount()).isEqualTo(BLOCKS);
    assertThat(d.isReadOnly()).isFalse();
    assertThat(d.name()).isNotBlank();
  }

  @Test
  void read_ofBlocksNeverWritten_returnsZeros() throws IOException {
    BlockDevice d = device();
    ByteBuffer dst = filled(3 * blockSize(), (byte) 0x5a);
    d.read(BLOCKS - 3, dst);
    assertThat(dst.hasRemaining()).isFalse();
    assertThat(bytes(dst.flip())).containsOnly(0);
  }

  @Test
  void write_thenRead_roundTripsAcrossBlocks() throws IOException {
    BlockDevice d = device();
    ByteBuffer src = pattern(4, 7);
    d.write(10, src);
    assertThat(src.hasRemaining()).as("write consumes the buffer").isFalse();

    ByteBuffer all = allocate(4 * blockSize());
    d.read(10, all);
    assertThat(bytes(all.flip())).isEqualTo(bytes(pattern(4, 7)));

    ByteBuffer one = allocate(blockSize());
    d.read(12, one);
    assertThat(bytes(one.flip())).isEqualTo(bytes(pattern(4, 7).position(2 * blockSize()).limit(3 * blockSize())));
  }

  @Test
  void write_ofSameBlockTwice_readsTheLatest() throws IOException {
    BlockDevice d = device();
    d.write(5, pattern(1, 1));
    d.write(5, pattern(1, 2));
    ByteBuffer dst = allocate(blockSize());
    d.read(5, dst);
    assertThat(bytes(dst.flip())).isEqualTo(bytes(pattern(1, 2)));
  }

  @Test
  void read_intoBufferAtAnOffset_fillsOnlyItsRemaining() throws IOException {
    BlockDevice d = device();
    d.write(0, pattern(1, 3));
    ByteBuffer dst = filled(3 * blockSize(), (byte) 9).position(blockSize()).limit(2 * blockSize());
    d.read(0, dst);
    assertThat(dst.position()).isEqualTo(2 * blockSize());
    byte[] all = bytes(dst.clear());
    assertThat(java.util.Arrays.copyOfRange(all, 0, blockSize())).containsOnly(9);
    assertThat(java.util.Arrays.copyOfRange(all, blockSize(), 2 * blockSize())).isEqualTo(bytes(pattern(1, 3)));
    assertThat(java.util.Arrays.copyOfRange(all, 2 * blockSize(), 3 * blockSize())).containsOnly(9);
  }

  @Test
  void write_vectored_landsBuffersOnConsecutiveBlocks() throws IOException {
    BlockDevice d = device();
    ByteBuffer a = pattern(1, 11);
    ByteBuffer b = pattern(2, 12);
    ByteBuffer c = pattern(1, 13);
    d.write(20, a, b, c);
    assertThat(a.hasRemaining() || b.hasRemaining() || c.hasRemaining()).isFalse();

    ByteBuffer dst = allocate(4 * blockSize());
    d.read(20, dst);
    ByteBuffer expected = ByteBuffer.allocate(4 * blockSize())
        .put(pattern(1, 11)).put(pattern(2, 12)).put(pattern(1, 13)).flip();
    assertThat(bytes(dst.flip())).isEqualTo(bytes(expected));
  }

  @Test
  void write_outOfRange_throwsBeforeAnythingMoves() throws IOException {
    BlockDevice d = device();
    d.write(BLOCKS - 1, pattern(1, 21));
    ByteBuffer src = pattern(2, 22);

    assertThatThrownBy(() -> d.write(BLOCKS - 1, src)).isInstanceOf(BlockOutOfRangeException.class);
    assertThatThrownBy(() -> d.write(-1, pattern(1, 22))).isInstanceOf(BlockOutOfRangeException.class);
    assertThatThrownBy(() -> d.write(BLOCKS, pattern(1, 22))).isInstanceOf(BlockOutOfRangeException.class);

    assertThat(src.position()).as("the buffer did not move").isZero();
    assertThat(readBlock(d, BLOCKS - 1)).isEqualTo(bytes(pattern(1, 21)));
  }

  @Test
  void write_vectoredWithALaterBufferOutOfRange_writesNothing() throws IOException {
    BlockDevice d = device();
    ByteBuffer first = pattern(1, 31);
    ByteBuffer second = pattern(2, 32);
    assertThatThrownBy(() -> d.write(BLOCKS - 2, first, second)).isInstanceOf(BlockOutOfRangeException.class);
    assertThat(first.position()).isZero();
    assertThat(readBlock(d, BLOCKS - 2)).containsOnly(0);
  }

  @Test
  void read_outOfRange_throwsBlockOutOfRange() throws IOException {
    BlockDevice d = device();
    ByteBuffer dst = allocate(2 * blockSize());
    assertThatThrownBy(() -> d.read(BLOCKS - 1, dst)).isInstanceOf(BlockOutOfRangeException.class);
    assertThatThrownBy(() -> d.read(-1, allocate(blockSize()))).isInstanceOf(BlockOutOfRangeException.class);
    assertThat(dst.position()).isZero();
  }

  @Test
  void transfer_notAPositiveMultipleOfTheBlockSize_throwsIllegalArgument() throws IOException {
    BlockDevice d = device();
    assertThatThrownBy(() -> d.write(0, ByteBuffer.allocate(blockSize() + 1))).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> d.write(0, ByteBuffer.allocate(0))).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> d.read(0, ByteBuffer.allocate(blockSize() - 1))).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> d.write(0, pattern(1, 1), ByteBuffer.allocate(3))).isInstanceOf(IllegalArgumentException.class);
    assertThat(readBlock(d, 0)).containsOnly(0);
  }

  @Test
  void write_scattered_landsEachBufferAtItsBlock_andALaterEntryForTheSameBlockWins() throws IOException {
    BlockDevice d = device();
    d.write(new long[] {40, 3, 9, 12, 3}, new ByteBuffer[] {pattern(1, 61), pattern(1, 62), pattern(3, 63), pattern(1, 64),
        pattern(1, 65)});
    assertThat(readBlock(d, 40)).isEqualTo(bytes(pattern(1, 61)));
    assertThat(readBlock(d, 3)).as("the later of two entries for block 3").isEqualTo(bytes(pattern(1, 65)));
    ByteBuffer three = allocate(3 * blockSize());
    d.read(9, three);
    assertThat(bytes(three.flip())).isEqualTo(bytes(pattern(3, 63)));
    assertThat(readBlock(d, 12)).as("an entry continuing the previous one").isEqualTo(bytes(pattern(1, 64)));
    assertThat(readBlock(d, 4)).containsOnly(0);
    assertThat(readBlock(d, 8)).containsOnly(0);
  }

  @Test
  void write_scatteredWithABadEntryAnywhere_writesNothing() throws IOException {
    BlockDevice d = device();
    ByteBuffer first = pattern(1, 71);
    assertThatThrownBy(() -> d.write(new long[] {2, BLOCKS}, new ByteBuffer[] {first, pattern(1, 72)}))
        .isInstanceOf(BlockOutOfRangeException.class);
    assertThatThrownBy(() -> d.write(new long[] {2, 5}, new ByteBuffer[] {first, ByteBuffer.allocate(3)}))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> d.write(new long[] {2, 5}, new ByteBuffer[] {first}))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(first.position()).as("the buffer did not move").isZero();
    assertThat(readBlock(d, 2)).containsOnly(0);
  }

  @Test
  void zeroOut_makesTheRangeReadAsZeros_andLeavesItsNeighbours() throws IOException {
    BlockDevice d = device();
    d.write(10, pattern(6, 81));
    d.zeroOut(11, 4);
    assertThat(readBlock(d, 10)).isEqualTo(bytes(pattern(1, 81)));
    for (long b = 11; b < 15; b++) {
      assertThat(readBlock(d, b)).as("block %d", b).containsOnly(0);
    }
    assertThat(readBlock(d, 15)).isEqualTo(bytes(pattern(6, 81).position(5 * blockSize())));
    d.zeroOut(0, BLOCKS); // the whole device, in one call
    assertThat(readBlock(d, 10)).containsOnly(0);
    d.write(12, pattern(1, 82));
    assertThat(readBlock(d, 12)).as("a zeroed block can be written again").isEqualTo(bytes(pattern(1, 82)));
  }

  @Test
  void zeroOut_outOfRangeOrOfNoBlocks_throwsBeforeAnythingChanges() throws IOException {
    BlockDevice d = device();
    d.write(BLOCKS - 2, pattern(2, 91));
    assertThatThrownBy(() -> d.zeroOut(BLOCKS - 2, 3)).isInstanceOf(BlockOutOfRangeException.class);
    assertThatThrownBy(() -> d.zeroOut(-1, 2)).isInstanceOf(BlockOutOfRangeException.class);
    assertThatThrownBy(() -> d.zeroOut(3, 0)).isInstanceOf(IllegalArgumentException.class);
    assertThat(readBlock(d, BLOCKS - 2)).isEqualTo(bytes(pattern(1, 91)));
  }

  @Test
  void alignment_isAPowerOfTwoDividingTheBlockSize_andAllocateAlignedMeetsIt() throws IOException {
    BlockDevice d = device();
    int a = d.alignment();
    assertThat(Integer.bitCount(a)).as("alignment %d is a power of two", a).isEqualTo(1);
    assertThat(d.blockSize() % a).isZero();
    ByteBuffer b = d.allocateAligned(2 * blockSize());
    assertThat(b.position()).isZero();
    assertThat(b.limit()).isEqualTo(2 * blockSize());
    assertThat(b.capacity()).isEqualTo(2 * blockSize());
    assertThat(bytes(b)).containsOnly(0);
    if (a > 1) {
      assertThat(b.isDirect()).isTrue();
      assertThat(b.alignmentOffset(0, a)).as("address aligned to %d", a).isZero();
    }
    b.put(pattern(2, 95)).flip();
    d.write(7, b);
    ByteBuffer back = d.allocateAligned(2 * blockSize());
    d.read(7, back);
    assertThat(bytes(back.flip())).isEqualTo(bytes(pattern(2, 95)));
  }

  @Test
  void close_thenEveryTransferAndFlush_throwsClosedChannel() throws IOException {
    BlockDevice d = device();
    d.close();
    assertThatThrownBy(() -> d.read(0, allocate(blockSize()))).isInstanceOf(ClosedChannelException.class);
    assertThatThrownBy(() -> d.write(0, pattern(1, 1))).isInstanceOf(ClosedChannelException.class);
    assertThatThrownBy(() -> d.write(0, pattern(1, 1), pattern(1, 2))).isInstanceOf(ClosedChannelException.class);
    assertThatThrownBy(() -> d.write(new long[] {0}, new ByteBuffer[] {pattern(1, 1)})).isInstanceOf(ClosedChannelException.class);
    assertThatThrownBy(() -> d.zeroOut(0, 1)).isInstanceOf(ClosedChannelException.class);
    assertThatThrownBy(d::flush).isInstanceOf(ClosedChannelException.class);
  }

  @Test
  void flush_onWritableDevice_returns() throws IOException {
    BlockDevice d = device();
    d.write(1, pattern(1, 51));
    d.flush();
    assertThat(readBlock(d, 1)).isEqualTo(bytes(pattern(1, 51)));
  }

  @Test
  void concurrentWriters_toDistinctBlocks_allLand() throws Exception {
    BlockDevice d = device();
    int threads = 4;
    long perThread = BLOCKS / threads;
    try (ExecutorService pool = Executors.newFixedThreadPool(threads)) {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        long first = t * perThread;
        done.add(pool.submit(() -> {
          for (long b = first; b < first + perThread; b++) {
            d.write(b, pattern(1, (int) b));
            if (b % 5 == 0) {
              d.flush();
            }
          }
          return null;
        }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    }
    for (long b = 0; b < threads * perThread; b++) {
      assertThat(readBlock(d, b)).as("block %d", b).isEqualTo(bytes(pattern(1, (int) b)));
    }
  }

  /** {@code blocks} blocks of bytes {@code seed + i} (mod 251, never all zero), ready to write. */
  protected final ByteBuffer pattern(int blocks, int seed) {
    ByteBuffer b = allocate(blocks * blockSize());
    for (int i = 0; i < blocks * blockSize(); i++) {
      b.put(i, (byte) (1 + Math.floorMod(seed * 31 + i, 251)));
    }
    return b.limit(blocks * blockSize());
  }

  /** One block of {@code d} (of {@code d}'s block size). */
  protected final byte[] readBlock(BlockDevice d, long block) throws IOException {
    ByteBuffer dst = allocate(d.blockSize());
    d.read(block, dst);
    return bytes(dst.flip());
  }

  private ByteBuffer filled(int bytes, byte value) {
    ByteBuffer b = allocate(bytes);
    for (int i = 0; i < bytes; i++) {
      b.put(i, value);
    }
    return b;
  }

  /** The remaining bytes of {@code b}, without moving it. */
  protected static byte[] bytes(ByteBuffer b) {
    byte[] out = new byte[b.remaining()];
    b.duplicate().get(out);
    return out;
  }
}
