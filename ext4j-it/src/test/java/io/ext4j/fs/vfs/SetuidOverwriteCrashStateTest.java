package io.ext4j.fs.vfs;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.block.MemoryBlockDevice;
import io.ext4j.fs.Attributes;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.Ext4Options;
import io.ext4j.fs.OpenFile;
import io.ext4j.fs.OpenFlag;
import io.ext4j.tools.check.CheckOptions;
import io.ext4j.tools.check.CheckReport;
import io.ext4j.tools.check.Checker;
import io.ext4j.testkit.CrashState;
import io.ext4j.testkit.CrashStates;
import io.ext4j.testkit.Recording;
import io.ext4j.testkit.RecordingBlockDevice;
import io.ext4j.testkit.Seeds;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.EnumSet;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Crash states of a setuid, setgid, group-executable file being overwritten (a write, then a
 * truncate and an fallocate) by its owner, who lacks CAP_FSETID: Linux clears setuid and setgid
 * before the data changes, so no state a power cut leaves may show new data with either bit still
 * set. The states are every device state the recorded writes and flushes allow (CrashMonkey's
 * method, {@link CrashStates}), each recovered by ext4j and then checked (strict).
 */
@Tag("crash")
class SetuidOverwriteCrashStateTest {
  static final Credentials OWNER = Credentials.user(1001, 1001);
  static final int SIZE = 3 * 4096;

  static byte[] fill(char c, int n) {
    byte[] b = new byte[n];
    Arrays.fill(b, (byte) c);
    return b;
  }

  static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void noCrashState_showsTheNewDataWithSetuidOrSetgidStillSet() throws Exception {
    long seed = Seeds.seed();
    MemoryBlockDevice base = VfsTest.image();
    try (Ext4FileSystem fs = Ext4FileSystem.open(base, Ext4Options.defaults(), false)) {
      Vfs vfs = fs.vfs();
      try (OpenFile f = vfs.openat(null, b("/victim"), EnumSet.of(OpenFlag.WRITE, OpenFlag.CREATE), 0755, Credentials.root())) {
        f.write(0, ByteBuffer.wrap(fill('O', SIZE)));
      }
      vfs.setattrat(null, b("/victim"), true, AttrChange.chown(1001L, 1001L), Credentials.root());
      vfs.setattrat(null, b("/victim"), true, AttrChange.chmod(06755), Credentials.root());
      assertThat(vfs.statat(null, b("/victim"), true, Credentials.root()).mode() & 07777).isEqualTo(06755);
    }
    RecordingBlockDevice dev = new RecordingBlockDevice(base.snapshot("setuid"));
    try (Ext4FileSystem fs = Ext4FileSystem.open(dev, Ext4Options.defaults(), false)) {
      Vfs vfs = fs.vfs();
      try (OpenFile f = vfs.openat(null, b("/victim"), EnumSet.of(OpenFlag.WRITE), 0, OWNER)) {
        f.write(4096, ByteBuffer.wrap(fill('N', 4096))); // an overwrite in place: no block allocated
        f.fsync(false);
        dev.mark("written");
      }
      vfs.setattrat(null, b("/victim"), true, AttrChange.chmod(06755), OWNER); // the owner sets them again
      try (OpenFile f = vfs.openat(null, b("/victim"), EnumSet.of(OpenFlag.WRITE), 0, OWNER)) {
        f.truncate(2 * 4096);
        f.fsync(false);
        dev.mark("truncated");
      }
      vfs.setattrat(null, b("/victim"), true, AttrChange.chmod(06755), OWNER);
      try (OpenFile f = vfs.openat(null, b("/victim"), EnumSet.of(OpenFlag.WRITE), 0, OWNER)) {
        f.fallocate(0, 0, 5 * 4096);
        f.fsync(false);
        dev.mark("fallocated");
      }
    }
    Recording rec = dev.crash();
    int states = 0;
    for (CrashState state : CrashStates.of(rec, seed, CrashStates.Options.defaults().withExhaustiveLimit(8).withRandomSubsets(16))) {
      MemoryBlockDevice d = state.materialize();
      states++;
      try (Ext4FileSystem fs = Ext4FileSystem.open(d, Ext4Options.defaults(), false)) {
        Vfs vfs = fs.vfs();
        Attributes a = vfs.statat(null, b("/victim"), true, Credentials.root());
        byte[] got = new byte[(int) a.size()];
        try (OpenFile f = vfs.openat(null, b("/victim"), EnumSet.of(OpenFlag.READ), 0, Credentials.root())) {
          f.read(0, ByteBuffer.wrap(got));
        }
        boolean changed = a.size() != SIZE || indexOf(got, (byte) 'N') >= 0;
        assertThat(changed && (a.mode() & 06000) != 0)
            .as("seed %d, %s: size %d, %s, mode %o", seed, state, a.size(), changed ? "data changed" : "old data", a.mode() & 07777)
            .isFalse();
      }
      CheckReport report = Checker.check(d, CheckOptions.defaults().withStrict(true));
      assertThat(report.exitCode()).as("seed %d, %s:%n%s", seed, state, report.toText()).isZero();
    }
    System.out.println("SetuidOverwriteCrashStateTest: " + states + " crash states");
    assertThat(states).isGreaterThan(3);
  }

  private static int indexOf(byte[] a, byte v) {
    for (int i = 0; i < a.length; i++) {
      if (a[i] == v) {
        return i;
      }
    }
    return -1;
  }
}
