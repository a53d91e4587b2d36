package io.ext4j.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ext4j.block.MemoryBlockDevice;
import io.ext4j.testkit.RecordingBlockDevice.Mark;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("fast")
class CrashStatesTest {
  private static final int BS = 1024;

  private static ByteBuffer block(int value) {
    byte[] b = new byte[BS];
    Arrays.fill(b, (byte) value);
    return ByteBuffer.wrap(b);
  }

  private static byte[] bytes(int value) {
    return block(value).array();
  }

  @Test
  void unflushedEpochOfThreeWrites_yieldsEverySubsetAndOneTornVariantPerWrite() throws IOException {
    RecordingBlockDevice d = new RecordingBlockDevice("rec", BS, 16);
    d.write(1, block(1));
    d.write(2, block(2));
    d.write(1, block(3));
    CrashStates states = CrashStates.of(d.crash(), 1);

    assertThat(states.epochCount()).isEqualTo(1);
    List<CrashState> all = states.stream().toList();
    assertThat(all.stream().filter(s -> s.tornWrite().isEmpty())).hasSize(8);
    assertThat(all.stream().filter(s -> s.tornWrite().isEmpty() && s.isPrefix())).hasSize(4);
    assertThat(all.stream().filter(s -> s.tornWrite().isPresent())).hasSize(3); // 1 KiB: 1 of 2 sectors
    assertThat(all).extracting(CrashState::id).doesNotHaveDuplicates();
  }

  @Test
  void epochEndedByAFlush_leavesOutItsFullSubset_whichTheNextEpochStartsFrom() throws IOException {
    RecordingBlockDevice d = new RecordingBlockDevice("rec", BS, 16);
    d.write(1, block(1));
    d.write(2, block(2));
    d.write(3, block(3));
    d.flush();
    CrashStates states = CrashStates.of(d.crash(), 1, CrashStates.Options.defaults().withTornWrites(false));

    assertThat(states.epochCount()).isEqualTo(2);
    assertThat(states.epoch(0)).hasSize(7);
    assertThat(states.epoch(1)).extracting(CrashState::id).containsExactly("e1:w");
    assertThat(states.epoch(1).findFirst().orElseThrow().materialize().block(3)).isEqualTo(bytes(3));
  }

  @Test
  void largeEpoch_yieldsEveryPrefixAndTheSeededRandomSubsets() throws IOException {
    RecordingBlockDevice d = new RecordingBlockDevice("rec", 4096, 64);
    for (int i = 0; i < 12; i++) {
      d.write(i, ByteBuffer.allocate(4096));
    }
    Recording r = d.crash();
    CrashStates.Options o = CrashStates.Options.defaults().withRandomSubsets(5);
    CrashStates states = CrashStates.of(r, 77, o);

    List<CrashState> all = states.stream().toList();
    assertThat(all.stream().filter(s -> s.tornWrite().isEmpty() && s.isPrefix())).hasSize(13);
    assertThat(all.stream().filter(s -> !s.isPrefix())).hasSize(5);
    assertThat(all.stream().filter(s -> s.tornWrite().isPresent())).hasSize(12 * 7); // 4 KiB: 1..7 of 8 sectors
    assertThat(CrashStates.of(r, 77, o).stream().map(CrashState::id).toList())
        .as("same seed, same states").isEqualTo(all.stream().map(CrashState::id).toList());
  }

  @Test
  void marks_areAcknowledgedFromTheirOwnEpochOn() throws IOException {
    RecordingBlockDevice d = new RecordingBlockDevice("rec", BS, 16);
    d.write(0, block(1)); // epoch 0
    d.flush();
    d.mark("m1"); // epoch 1: promises epoch 0
    d.write(1, block(2));
    d.write(2, block(3));
    d.mark("m2"); // still epoch 1: promises only epoch 0, as writes 1 and 2 are unflushed
    d.flush();
    d.write(3, block(4)); // epoch 2
    d.mark("m3");
    CrashStates states = CrashStates.of(d.crash(), 1);

    assertThat(states.epochCount()).isEqualTo(3);
    assertThat(states.epoch(0)).allSatisfy(s -> assertThat(s.acknowledgedMarkCount()).isZero());
    assertThat(states.epoch(1)).allSatisfy(s -> assertThat(s.lastAcknowledgedMark()).map(Mark::label).contains("m2"));
    assertThat(states.epoch(2)).allSatisfy(s -> assertThat(s.acknowledgedMarks()).extracting(Mark::label)
        .containsExactly("m1", "m2", "m3"));
    // every state of epoch 1 holds what m2 promised: block 0
    assertThat(states.epoch(1)).allSatisfy(s -> assertThat(s.materialize().block(0)).isEqualTo(bytes(1)));
  }

  @Test
  void materialize_appliesEarlierEpochsAndTheSubsetInOrder() throws IOException {
    RecordingBlockDevice d = new RecordingBlockDevice("rec", BS, 16);
    d.write(0, block(1));
    d.flush();
    d.write(1, block(2)); // epoch 1, write 0
    d.write(2, block(3)); // write 1
    d.write(1, block(4)); // write 2: same block again, later in log order
    CrashStates states = CrashStates.of(d.crash(), 1);

    MemoryBlockDevice s = states.state("e1:w1-2").materialize();
    assertThat(s.block(0)).isEqualTo(bytes(1));
    assertThat(s.block(1)).isEqualTo(bytes(4));
    assertThat(s.block(2)).isEqualTo(bytes(3));
    MemoryBlockDevice t = states.state("e1:w0,1").materialize();
    assertThat(t.block(1)).isEqualTo(bytes(2));
  }

  @Test
  void tornWrite_landsOnlyItsLeadingSectors_overThePreviousContents() throws IOException {
    RecordingBlockDevice d = new RecordingBlockDevice("rec", 4096, 8);
    d.write(5, ByteBuffer.wrap(fill(4096, 1)));
    d.flush();
    d.write(5, ByteBuffer.wrap(fill(4096, 2)));
    CrashStates states = CrashStates.of(d.crash(), 1);

    byte[] b = states.state("e1:w+t0/3").materialize().block(5);
    assertThat(Arrays.copyOfRange(b, 0, 3 * 512)).containsOnly(2);
    assertThat(Arrays.copyOfRange(b, 3 * 512, 4096)).containsOnly(1);
  }

  @Test
  void state_byId_replaysEveryEnumeratedState() throws IOException {
    Recording r = randomWorkload(Seeds.seed(), 6, 40);
    CrashStates states = CrashStates.of(r, 5);
    CrashStates again = CrashStates.of(r, 5);
    states.stream().forEach(s -> {
      CrashState replay = again.state(s.id());
      assertThat(replay.id()).isEqualTo(s.id());
      assertThat(replay.materialize().toByteArray()).as(s.toString()).isEqualTo(s.materialize().toByteArray());
    });
    assertThatThrownBy(() -> states.state("e99:w")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> states.state("x")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> states.state("e0:w2,1")).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void materialize_givesIndependentDevices() throws IOException {
    RecordingBlockDevice d = new RecordingBlockDevice("rec", BS, 16);
    d.write(0, block(1));
    CrashStates states = CrashStates.of(d.crash(), 1);
    CrashState s = states.state("e0:w0");
    MemoryBlockDevice a = s.materialize();
    a.write(0, block(9));
    a.write(1, block(9));
    assertThat(s.materialize().block(0)).isEqualTo(bytes(1));
    assertThat(states.state("e0:w").materialize().block(1)).containsOnly(0);
  }

  @Test
  void prefixStates_equalTheRecordingMaterializedAtThatPoint() throws IOException {
    long seed = Seeds.seed();
    Recording r = randomWorkload(seed, 20, 300);
    CrashStates states = CrashStates.of(r, seed);
    int[] writesSeen = {0};
    for (int k = 0; k < states.epochCount(); k++) {
      int before = writesSeen[0];
      states.epoch(k).filter(s -> s.isPrefix() && s.tornWrite().isEmpty()).forEach(s -> {
        int eventCount = eventIndexAfterWrites(r, before + s.writes().length);
        assertThat(s.materialize().toByteArray()).as(s.toString()).isEqualTo(r.materialize(eventCount).toByteArray());
      });
      writesSeen[0] += states.epochWrites(k).size();
    }
  }

  @Test
  void enumeration_ofTensOfThousandsOfStates_isCheap() throws IOException {
    long seed = Seeds.seed();
    RecordingBlockDevice d = new RecordingBlockDevice("rec", BS, 2048);
    SplittableRandom random = new SplittableRandom(seed);
    for (int e = 0; e < 20; e++) {
      for (int i = 0; i < 10; i++) {
        d.write(random.nextInt(2048), block(random.nextInt(1, 256)));
      }
      d.flush();
    }
    CrashStates states = CrashStates.of(d.crash(), seed);
    long t0 = System.nanoTime();
    long n = states.stream().peek(CrashState::materialize).count();
    long ms = (System.nanoTime() - t0) / 1_000_000;
    assertThat(n).isEqualTo(20 * (1023 + 10) + 1);
    System.out.println("materialized " + n + " crash states in " + ms + " ms");
  }

  /** The number of events up to and including the {@code writes}th write (0: none). */
  private static int eventIndexAfterWrites(Recording r, int writes) {
    if (writes == 0) {
      return (int) r.events().stream().takeWhile(e -> !(e instanceof RecordingBlockDevice.Write)).count();
    }
    int seen = 0;
    for (int i = 0; i < r.events().size(); i++) {
      if (r.events().get(i) instanceof RecordingBlockDevice.Write && ++seen == writes) {
        return i + 1;
      }
    }
    throw new IllegalArgumentException("only " + seen + " writes");
  }

  /** Random writes over 32 blocks, flushes and marks. */
  static Recording randomWorkload(long seed, int flushes, int writes) throws IOException {
    SplittableRandom random = new SplittableRandom(seed);
    RecordingBlockDevice d = new RecordingBlockDevice("rec", BS, 32);
    int flushed = 0;
    for (int i = 0; i < writes; i++) {
      d.write(random.nextInt(32), block(random.nextInt(1, 256)));
      if (flushed < flushes && random.nextInt(writes / Math.max(1, flushes) + 1) == 0) {
        d.flush();
        flushed++;
        d.mark("m" + i);
      }
    }
    return d.crash();
  }

  private static byte[] fill(int n, int v) {
    byte[] b = new byte[n];
    Arrays.fill(b, (byte) v);
    return b;
  }
}
