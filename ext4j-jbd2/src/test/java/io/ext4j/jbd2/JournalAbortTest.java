package io.ext4j.jbd2;

import static io.ext4j.jbd2.JournalFixtures.MAP;
import static io.ext4j.jbd2.JournalFixtures.image;
import static io.ext4j.jbd2.JournalFixtures.read;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.ext4j.block.MemoryBlockDevice;
import io.ext4j.jbd2.format.JournalSuperblock;
import io.ext4j.testkit.CrashState;
import io.ext4j.testkit.CrashStates;
import io.ext4j.testkit.FaultyBlockDevice;
import io.ext4j.testkit.FaultyBlockDevice.Fault;
import io.ext4j.testkit.InjectedFaultException;
import io.ext4j.testkit.Recording;
import io.ext4j.testkit.RecordingBlockDevice;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A failed write or flush on a durability path aborts the journal: the synchronous stop that needed
 * it throws {@link JournalAbortedException} carrying the device's exception, every later start
 * fails the same way, the failed transaction is never reported committed, and every transaction
 * whose synchronous stop returned before is recovered from the device (checked on every crash state
 * of the recorded device, so "returned" really means "flushed").
 */
@Tag("crash")
@Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class JournalAbortTest {
  static final long A = 100;
  static final int BLOCKS = 6;

  static Stream<Arguments> commitFaults() {
    return Stream.of(
        Arguments.of("1st flush of the commit (before the commit block)", Fault.onNthFlush(1)),
        Arguments.of("2nd flush of the commit (after the commit block)", Fault.onNthFlush(2)),
        Arguments.of("1st write of the commit", Fault.onNthWrite(1)),
        Arguments.of("2nd write of the commit", Fault.onNthWrite(2)),
        Arguments.of("every write, sticky", Fault.onEvery(FaultyBlockDevice.Kind.WRITE).sticky()),
        Arguments.of("every flush", Fault.onEvery(FaultyBlockDevice.Kind.FLUSH)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("commitFaults")
  void ioErrorDuringCommit_abortsTheJournal_andLosesNothingAcknowledged(String what, Fault fault) throws Exception {
    MemoryBlockDevice base = JournalFixtures.device("abort");
    Journal.format(base, MAP, JournalFixtures.uuid(3), 1);
    RecordingBlockDevice rec = new RecordingBlockDevice(base);
    FaultyBlockDevice faulty = new FaultyBlockDevice(rec);
    JournalOptions options = JournalApiTest.quiet();
    Journal j = Journal.open(faulty, MAP, options);
    byte[][] acknowledged = new byte[BLOCKS][];
    for (int i = 0; i < 20; i++) {
      int k = i % BLOCKS;
      byte[] img = image(1, i, A + k, false);
      JournalFixtures.writeBlock(j, A + k, img, true);
      acknowledged[k] = img;
    }
    faulty.inject(fault);

    Handle h = j.start(1);
    int failedTid = h.tid();
    try (JournalBuffer a = j.buffer(A)) {
      h.getWriteAccess(a);
      a.data().put(image(2, 0, A, false));
      h.dirtyMetadata(a);
    }
    h.setSync(true);
    Throwable stop = catchThrowable(h::stop);

    assertThat(stop).isInstanceOf(JournalAbortedException.class);
    assertThat(causedByInjection(stop)).as("%s carries the injected fault", stop).isTrue();
    assertThat(j.isAborted()).isTrue();
    assertThat(j.isCommitted(failedTid)).as("the failed transaction").isFalse();
    assertThatThrownBy(() -> j.start(1)).isInstanceOf(JournalAbortedException.class)
        .hasRootCauseInstanceOf(InjectedFaultException.class);
    assertThatThrownBy(() -> j.waitCommit(failedTid)).isInstanceOf(JournalAbortedException.class);
    assertThatThrownBy(j::close).isInstanceOf(java.io.IOException.class);
    assertThatThrownBy(() -> j.start(1)).as("still aborted after close").isInstanceOf(JournalException.class);

    // Whatever a crash now leaves, recovery gives at least what was acknowledged.
    Recording recording = rec.crash();
    List<String> failures = new ArrayList<>();
    int states = 0;
    for (CrashState cs : (Iterable<CrashState>) CrashStates.of(recording, 3).stream()::iterator) {
      if (cs.acknowledgedMarkCount() == 0 && cs.epoch() < recording.flushCount()) {
        continue; // before the last flush the earlier transactions are checked by the crash-state tests
      }
      states++;
      MemoryBlockDevice d = cs.materialize();
      JournalRecovery.recover(d, MAP, JournalFixtures.superblock(d));
      for (int k = 0; k < BLOCKS; k++) {
        byte[] got = read(d, A + k);
        boolean ok = java.util.Arrays.equals(got, acknowledged[k])
            || (k == 0 && java.util.Arrays.equals(got, image(2, 0, A, false))); // the failed one may have landed
        if (!ok) {
          failures.add(cs + ": block " + (A + k));
        }
      }
    }
    assertThat(states).isPositive();
    assertThat(failures).as("%s: crash states losing acknowledged transactions", what).isEmpty();
  }

  @Test
  void ioErrorWritingHome_abortsTheJournal_andLaterStartsFailWithTheCause() throws Exception {
    MemoryBlockDevice dev = JournalFixtures.device("abort-home");
    FaultyBlockDevice faulty = new FaultyBlockDevice(dev);
    JournalOptions options = JournalApiTest.quiet();
    Journal j = Journal.create(faulty, MAP, options);
    byte[] img = image(1, 1, A, false);
    JournalFixtures.writeBlock(j, A, img, true);
    faulty.inject(Fault.onWriteTo(A));
    Throwable flush = catchThrowable(j::flush);
    assertThat(flush).isInstanceOf(java.io.IOException.class);
    assertThat(causedByInjection(flush)).as("%s is or carries the injected fault", flush).isTrue();
    assertThat(j.isAborted()).isTrue();
    assertThatThrownBy(() -> j.start(1)).isInstanceOf(JournalAbortedException.class)
        .hasRootCauseInstanceOf(InjectedFaultException.class);
    var _ = catchThrowable(j::close);
    faulty.heal();
    MemoryBlockDevice copy = dev.snapshot("copy");
    Journal.open(copy, MAP, options).close();
    assertThat(read(copy, A)).as("the committed block, replayed after the failed checkpoint").isEqualTo(img);
  }

  @Test
  void abort_isRecordedInTheSuperblockAsEio_keptByOpen_andClearedOnRequest() throws Exception {
    MemoryBlockDevice dev = JournalFixtures.device("abort-errno");
    FaultyBlockDevice faulty = new FaultyBlockDevice(dev);
    JournalOptions options = JournalApiTest.quiet();
    Journal j = Journal.create(faulty, MAP, options);
    byte[] img = image(1, 1, A, false);
    JournalFixtures.writeBlock(j, A, img, true);
    assertThat(j.recordedErrno()).isZero();
    JournalSuperblock before = JournalFixtures.superblock(dev);
    assertThat(before.start()).as("the log holds the committed transaction").isNotZero();
    faulty.inject(Fault.onNthWrite(1)); // the next commit's log write, once
    Throwable stop = catchThrowable(() -> JournalFixtures.writeBlock(j, A, image(1, 2, A, false), true));
    assertThat(stop).isInstanceOf(JournalAbortedException.class);
    var _ = catchThrowable(j::close); // joins the home writer, which records the abort on its way out

    assertThat(JournalFixtures.superblock(dev).errno()).as("s_errno on disk").isEqualTo(-5);
    JournalSuperblock after = JournalFixtures.superblock(dev);
    assertThat(after.start()).as("s_start untouched").isEqualTo(before.start());
    assertThat(after.sequence()).as("s_sequence untouched").isEqualTo(before.sequence());
    try (Journal again = Journal.open(dev, MAP, options)) {
      assertThat(read(dev, A)).as("the acknowledged block, replayed").isEqualTo(img);
      assertThat(again.recordedErrno()).as("open keeps it, as jbd2 does").isEqualTo(-5);
      again.clearRecordedErrno();
      assertThat(again.recordedErrno()).isZero();
      assertThat(JournalFixtures.superblock(dev).errno()).as("cleared on disk").isZero();
    }
  }

  @Test
  void abort_byTheCaller_isRecordedToo() throws Exception {
    MemoryBlockDevice dev = JournalFixtures.device("abort-errno-api");
    Journal j = Journal.create(dev, MAP, JournalOptions.defaults());
    j.abort(new IllegalStateException("fs error"));
    var _ = catchThrowable(j::close);
    assertThat(JournalFixtures.superblock(dev).errno()).isEqualTo(-5);
  }

  @Test
  void abort_onADeadDevice_cannotRecordTheErrno_andSaysSoBesideTheCause() throws Exception {
    MemoryBlockDevice dev = JournalFixtures.device("abort-errno-dead");
    FaultyBlockDevice faulty = new FaultyBlockDevice(dev);
    Journal j = Journal.create(faulty, MAP, JournalApiTest.quiet());
    faulty.inject(Fault.onEvery(FaultyBlockDevice.Kind.WRITE).sticky());
    var _ = catchThrowable(() -> JournalFixtures.writeBlock(j, A, image(1, 1, A, false), true));
    var _ = catchThrowable(j::close);

    Throwable later = catchThrowable(() -> j.start(1));
    assertThat(later).isInstanceOf(JournalAbortedException.class);
    assertThat(later.getCause()).isNotNull();
    assertThat(later.getCause().getSuppressed()).as("the failed errno write, kept beside the cause")
        .anySatisfy(sup -> assertThat(sup).hasMessageContaining("could not record the abort"));
    assertThat(JournalFixtures.superblock(dev).errno()).as("nothing reached the device").isZero();
  }

  static boolean causedByInjection(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof InjectedFaultException) {
        return true;
      }
    }
    return false;
  }

  @Test
  void abort_byTheCaller_failsLaterStartsWithItsCause() throws Exception {
    try (Journal j = Journal.create(JournalFixtures.device("abort-api"), MAP, JournalOptions.defaults())) {
      IllegalStateException cause = new IllegalStateException("fs error");
      j.abort(cause);
      assertThatThrownBy(() -> j.start(1)).isInstanceOf(JournalAbortedException.class).hasCause(cause);
      assertThat(j.isAborted()).isTrue();
    } catch (JournalAbortedException expected) {
      assertThat(expected).hasMessageContaining("fs error");
    }
  }
}
