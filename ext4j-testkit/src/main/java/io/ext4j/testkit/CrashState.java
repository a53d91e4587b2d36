package io.ext4j.testkit;

import io.ext4j.block.MemoryBlockDevice;
import io.ext4j.testkit.RecordingBlockDevice.Mark;
import io.ext4j.testkit.RecordingBlockDevice.Write;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * One state a crash could leave: epoch {@link #epoch()}'s base plus the writes {@link #writes()} of
 * that epoch (indices into {@link CrashStates#epochWrites(int)}), and perhaps one write torn. Cheap
 * to hold; {@link #materialize()} builds the device. Report a failure with {@link #toString()}, which
 * names the seed and the {@link #id()}; {@link CrashStates#state(String)} rebuilds it.
 */
public final class CrashState {
  private final CrashStates states;
  private final int epoch;
  private final int[] writes; // ascending; never modified
  private final int tornWrite; // -1 when none
  private final int tornSectors;

  CrashState(CrashStates states, int epoch, int[] writes, int tornWrite, int tornSectors) {
    this.states = states;
    this.epoch = epoch;
    this.writes = writes;
    this.tornWrite = tornWrite;
    this.tornSectors = tornSectors;
  }

  /** The epoch the crash fell in: every write of earlier epochs is in the state. */
  public int epoch() {
    return epoch;
  }

  /** Which of the epoch's writes landed whole, ascending. */
  public int[] writes() {
    return writes.clone();
  }

  /** The epoch's write that landed torn, if any. */
  public OptionalInt tornWrite() {
    return tornWrite < 0 ? OptionalInt.empty() : OptionalInt.of(tornWrite);
  }

  /** How many leading 512-byte sectors of the torn write landed (0 when none is torn). */
  public int tornSectors() {
    return tornSectors;
  }

  /** Replayable descriptor: {@code e<epoch>:w<ranges>[+t<write>/<sectors>]}, e.g. {@code e3:w0-2,5+t6/1}. */
  public String id() {
    return "e" + epoch + ":w" + CrashStates.formatRanges(writes)
        + (tornWrite >= 0 ? "+t" + tornWrite + "/" + tornSectors : "");
  }

  /** True when the whole writes are a prefix of the epoch (in log order, nothing skipped). */
  public boolean isPrefix() {
    return writes.length == 0 || writes[writes.length - 1] == writes.length - 1;
  }

  /** How many marks are acknowledged: the first this many of {@link CrashStates#marks()}. */
  public int acknowledgedMarkCount() {
    return states.acknowledgedMarkCount(epoch);
  }

  /** The acknowledged marks, in log order (see {@link CrashStates} for the rule). */
  public List<Mark> acknowledgedMarks() {
    return states.marks().subList(0, acknowledgedMarkCount());
  }

  /** The last acknowledged mark: everything it promised must be present after recovery. */
  public Optional<Mark> lastAcknowledgedMark() {
    int n = acknowledgedMarkCount();
    return n == 0 ? Optional.empty() : Optional.of(states.marks().get(n - 1));
  }

  /** A human description for failure messages. */
  public String description() {
    int n = states.sizeOf(epoch);
    String landed = isPrefix() ? "prefix of " + writes.length : "writes {" + CrashStates.formatRanges(writes) + "}";
    return "epoch " + epoch + " of " + states.epochCount() + ": " + landed + " of " + n + " writes"
        + (tornWrite >= 0 ? ", write " + tornWrite + " torn after " + tornSectors + " sector(s)" : "")
        + "; " + acknowledgedMarkCount() + " mark(s) acknowledged"
        + lastAcknowledgedMark().map(m -> ", last '" + m.label() + "'").orElse("");
  }

  /** A fresh writable device holding this state; independent of every other device. */
  public MemoryBlockDevice materialize() {
    MemoryBlockDevice d = states.epochBase(epoch).snapshot(states.recording().name() + "[crash " + id() + "]");
    List<Write> epochWrites = states.epochWrites(epoch);
    int next = 0;
    for (int i = 0; i < epochWrites.size(); i++) {
      if (next < writes.length && writes[next] == i) {
        Recording.apply(d, epochWrites.get(i));
        next++;
      } else if (i == tornWrite) {
        applyTorn(d, epochWrites.get(i));
      }
    }
    return d;
  }

  private void applyTorn(MemoryBlockDevice d, Write w) {
    byte[] mixed = d.block(w.block()); // the block as it was: the tail keeps it
    System.arraycopy(w.bytes(), 0, mixed, 0, tornSectors * CrashStates.SECTOR);
    try {
      d.write(w.block(), ByteBuffer.wrap(mixed));
    } catch (IOException e) {
      throw new IllegalStateException("a fresh memory device refused a write", e);
    }
  }

  @Override
  public String toString() {
    return "CrashState[seed=" + states.seed() + ", " + id() + " (" + description() + ")]";
  }
}
