package io.ext4j.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ext4j.block.BlockDevice;
import io.ext4j.block.ReadOnlyDeviceException;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * {@link BlockDeviceContract} for an implementation that also has a read-only mode: every obligation
 * of the SPI, and what a read-only device owes (refuse every write and flush, keep the contents).
 * Provide {@link #reopenReadOnly(BlockDevice)} as well as {@link #create(int, long)}.
 */
public abstract class ReadOnlyBlockDeviceContract extends BlockDeviceContract {
  /** For the subclass of one implementation. */
  protected ReadOnlyBlockDeviceContract() {}

  /** The same storage as {@code device}, read-only, after closing {@code device} if need be. */
  protected abstract BlockDevice reopenReadOnly(BlockDevice device) throws IOException;

  @Test
  void readOnly_refusesWritesAndFlushes_andKeepsContents() throws IOException {
    BlockDevice w = device();
    w.write(3, pattern(1, 41));
    BlockDevice r = track(reopenReadOnly(w));
    assertThat(r.isReadOnly()).isTrue();
    assertThatThrownBy(() -> r.write(3, pattern(1, 42))).isInstanceOf(ReadOnlyDeviceException.class);
    assertThatThrownBy(() -> r.write(3, pattern(1, 42), pattern(1, 43))).isInstanceOf(ReadOnlyDeviceException.class);
    assertThatThrownBy(() -> r.write(new long[] {3}, new ByteBuffer[] {pattern(1, 42)})).isInstanceOf(ReadOnlyDeviceException.class);
    assertThatThrownBy(() -> r.zeroOut(3, 1)).isInstanceOf(ReadOnlyDeviceException.class);
    assertThatThrownBy(r::flush).isInstanceOf(ReadOnlyDeviceException.class);
    assertThat(readBlock(r, 3)).isEqualTo(bytes(pattern(1, 41)));
  }
}
