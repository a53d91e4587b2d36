package io.ext4j.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ext4j.block.BlockDevice;
import io.ext4j.block.MemoryBlockDevice;
import io.ext4j.testkit.FaultyBlockDevice.Fault;
import io.ext4j.testkit.FaultyBlockDevice.Kind;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** A healthy FaultyBlockDevice meets the contract; then each fault. */
@Tag("fast")
class FaultyBlockDeviceTest extends ReadOnlyBlockDeviceContract {
  @Override
  protected BlockDevice create(int blockSize, long blockCount) {
    return new FaultyBlockDevice(new MemoryBlockDevice("mem", blockSize, blockCount));
  }

  @Override
  protected BlockDevice reopenReadOnly(BlockDevice device) {
    var mem = (MemoryBlockDevice) ((FaultyBlockDevice) device).delegate();
    return new FaultyBlockDevice(mem.readOnlyView());
  }

  private final MemoryBlockDevice mem = new MemoryBlockDevice("mem", 1024, 16);

  @Test
  void onNthWrite_failsOnlyThatWrite_andWritesNothing() throws IOException {
    FaultyBlockDevice d = new FaultyBlockDevice(mem, Fault.onNthWrite(2));
    d.write(0, pattern(1, 1));
    assertThatThrownBy(() -> d.write(1, pattern(1, 2))).isInstanceOf(InjectedFaultException.class).hasMessageContaining("block 1");
    d.write(2, pattern(1, 3));
    assertThat(mem.block(1)).containsOnly(0);
    assertThat(d.injectedCount()).isOne();
  }

  @Test
  void onNthFlush_failsThatFlush() throws IOException {
    FaultyBlockDevice d = new FaultyBlockDevice(mem, Fault.onNthFlush(1));
    assertThatThrownBy(d::flush).isInstanceOf(InjectedFaultException.class);
    d.flush();
  }

  @Test
  void onWriteTo_failsEveryTransferCoveringTheBlock_includingVectored() throws IOException {
    FaultyBlockDevice d = new FaultyBlockDevice(mem, Fault.onWriteTo(5));
    d.write(4, pattern(1, 1));
    assertThatThrownBy(() -> d.write(4, pattern(2, 1))).isInstanceOf(InjectedFaultException.class);
    assertThatThrownBy(() -> d.write(3, pattern(1, 1), pattern(2, 1))).isInstanceOf(InjectedFaultException.class);
    d.read(5, ByteBuffer.allocate(1024));
    assertThat(mem.block(3)).containsOnly(0);
  }

  @Test
  void zeroOut_failsAsItsOwnKind_andByAFaultOnWritesToItsBlocks_writingNothing() throws IOException {
    mem.write(6, pattern(2, 7));
    FaultyBlockDevice d = new FaultyBlockDevice(mem, Fault.onNthZeroOut(2));
    d.write(0, pattern(1, 1)); // a write is not a zero-out: it does not count
    d.zeroOut(0, 1);
    assertThatThrownBy(() -> d.zeroOut(6, 2)).isInstanceOf(InjectedFaultException.class).hasMessageContaining("zero_out");
    assertThat(mem.block(6)).as("a failed zero-out changed nothing").isEqualTo(bytes(pattern(1, 7)));
    d.inject(Fault.onWriteTo(7));
    assertThatThrownBy(() -> d.zeroOut(7, 1)).isInstanceOf(InjectedFaultException.class);
    d.zeroOut(6, 1);
    assertThat(mem.block(6)).containsOnly(0);
    assertThat(d.injectedCount()).isEqualTo(2);
  }

  @Test
  void scatteredWrite_isOneOperationPerContiguousRun() throws IOException {
    FaultyBlockDevice d = new FaultyBlockDevice(mem, Fault.onNthWrite(2));
    assertThatThrownBy(() -> d.write(new long[] {1, 2, 9}, new ByteBuffer[] {pattern(1, 1), pattern(1, 2), pattern(1, 3)}))
        .isInstanceOf(InjectedFaultException.class).hasMessageContaining("block 9");
    assertThat(mem.block(2)).as("the first run (blocks 1-2) was one write and landed").isEqualTo(bytes(pattern(1, 2)));
    assertThat(mem.block(9)).containsOnly(0);
  }

  @Test
  void inject_midRun_countsFromInjection_andHealStops() throws IOException {
    FaultyBlockDevice d = new FaultyBlockDevice(mem);
    d.write(0, pattern(1, 1));
    d.write(0, pattern(1, 1));
    d.inject(Fault.onNthWrite(1));
    assertThatThrownBy(() -> d.write(0, pattern(1, 1))).isInstanceOf(InjectedFaultException.class);
    d.inject(Fault.onEvery(Kind.FLUSH));
    assertThatThrownBy(d::flush).isInstanceOf(InjectedFaultException.class);
    d.heal();
    d.flush();
  }

  @Test
  void sticky_afterTheFirstFault_failsEverything() throws IOException {
    FaultyBlockDevice d = new FaultyBlockDevice(mem, Fault.onNthFlush(1).sticky());
    d.write(0, pattern(1, 1));
    assertThatThrownBy(d::flush).isInstanceOf(InjectedFaultException.class);
    assertThatThrownBy(() -> d.write(0, pattern(1, 1))).isInstanceOf(InjectedFaultException.class);
    assertThatThrownBy(() -> d.read(0, ByteBuffer.allocate(1024))).isInstanceOf(InjectedFaultException.class);
  }

  @Test
  void after_armsTheFaultOnceTheTriggerFires_andTheTriggerSucceeds() throws IOException {
    FaultyBlockDevice d = new FaultyBlockDevice(mem, Fault.onEvery(Kind.WRITE).after(Fault.onNthFlush(1)));
    d.write(0, pattern(1, 1));
    d.flush();
    assertThatThrownBy(() -> d.write(1, pattern(1, 1))).isInstanceOf(InjectedFaultException.class);
  }

  @Test
  void or_failsWhenEitherFires() throws IOException {
    FaultyBlockDevice d = new FaultyBlockDevice(mem, Fault.onNthWrite(2).or(Fault.onNthFlush(1)));
    d.write(0, pattern(1, 1));
    assertThatThrownBy(d::flush).isInstanceOf(InjectedFaultException.class);
    assertThatThrownBy(() -> d.write(0, pattern(1, 1))).isInstanceOf(InjectedFaultException.class);
  }

  @Test
  void faults_composeWithRecording_soAFailedWriteIsNotLogged() throws IOException {
    RecordingBlockDevice rec = new RecordingBlockDevice("rec", 1024, 8);
    FaultyBlockDevice d = new FaultyBlockDevice(rec, Fault.onNthWrite(1));
    assertThatThrownBy(() -> d.write(0, pattern(1, 1))).isInstanceOf(InjectedFaultException.class);
    assertThat(rec.eventCount()).isZero();
  }

  @Test
  void aTornWrite_landsTheFirstHalfOfItsBlocks_orOfOneBlockTheFirstSector_thenFails() throws IOException {
    MemoryBlockDevice mem = new MemoryBlockDevice("mem", 1024, 8);
    FaultyBlockDevice d = new FaultyBlockDevice(mem, Fault.onEvery(Kind.WRITE));
    d.tearWrites(true);
    ByteBuffer three = ByteBuffer.allocate(3 * 1024);
    java.util.Arrays.fill(three.array(), (byte) 7);
    assertThatThrownBy(() -> d.write(0, three)).isInstanceOf(InjectedFaultException.class);
    assertThat(mem.block(0)[0]).isEqualTo((byte) 7);
    assertThat(mem.block(1)[1023]).isEqualTo((byte) 7);
    assertThat(mem.block(2)[0]).as("past the torn prefix").isZero();

    ByteBuffer one = ByteBuffer.allocate(1024);
    java.util.Arrays.fill(one.array(), (byte) 9);
    assertThatThrownBy(() -> d.write(5, one)).isInstanceOf(InjectedFaultException.class);
    assertThat(mem.block(5)[511]).as("the first sector landed").isEqualTo((byte) 9);
    assertThat(mem.block(5)[512]).as("the second did not").isZero();

    d.tearWrites(false);
    assertThatThrownBy(() -> d.write(6, one)).isInstanceOf(InjectedFaultException.class);
    assertThat(mem.block(6)[0]).as("without tearing nothing lands").isZero();
  }
}
