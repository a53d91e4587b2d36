package io.ext4j.fuse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ext4j.fs.Attributes;
import io.ext4j.testkit.Seeds;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Instant;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The FUSE codecs ({@link FuseRequest}, {@link FuseReplies}, {@link FuseOptions}) on random values. */
@Tag("fast")
class FuseCodecTest {
  private static Attributes randomAttributes(SplittableRandom r) {
    Instant a = Instant.ofEpochSecond(r.nextLong(-(1L << 33), 1L << 34), r.nextInt(1_000_000_000));
    Instant m = Instant.ofEpochSecond(r.nextLong(0, 1L << 34), r.nextInt(1_000_000_000));
    Instant c = Instant.ofEpochSecond(r.nextLong(0, 1L << 34), r.nextInt(1_000_000_000));
    return new Attributes(r.nextLong(1, 1L << 32), r.nextInt(1 << 16), r.nextInt(65_001), r.nextLong(1L << 32),
        r.nextLong(1L << 32), r.nextLong(Long.MAX_VALUE), r.nextLong(1L << 40), a, m, c, Instant.EPOCH,
        r.nextLong(1L << 32), r.nextInt(), r.nextInt(), 1024 << r.nextInt(7));
  }

  @Test
  void entryOut_laysOutEveryFieldWhereTheKernelReadsIt() {
    long seed = Seeds.seed();
    SplittableRandom r = new SplittableRandom(seed);
    for (int i = 0; i < 2000; i++) {
      Attributes a = randomAttributes(r);
      long ev = r.nextLong(0, 1L << 40);
      long av = r.nextLong(0, 1L << 40);
      ByteBuffer b = ByteBuffer.allocate(FuseReplies.ENTRY_OUT).order(ByteOrder.LITTLE_ENDIAN);
      FuseReplies.entry(b, a, ev, av);
      assertThat(b.position()).isEqualTo(FuseReplies.ENTRY_OUT);
      assertThat(b.getLong(0)).isEqualTo(a.ino() == 2 ? 1 : a.ino());
      assertThat(b.getLong(8)).isEqualTo(a.generation() & 0xFFFF_FFFFL);
      assertThat(b.getLong(16) * 1_000_000_000L + b.getInt(32)).isEqualTo(ev);
      assertThat(b.getLong(24) * 1_000_000_000L + b.getInt(36)).isEqualTo(av);
      int at = 40; // fuse_attr
      assertThat(b.getLong(at)).isEqualTo(a.ino());
      assertThat(b.getLong(at + 8)).isEqualTo(a.size());
      assertThat(b.getLong(at + 16)).isEqualTo(a.blocks());
      assertThat(Instant.ofEpochSecond(b.getLong(at + 24), b.getInt(at + 48))).isEqualTo(a.atime());
      assertThat(Instant.ofEpochSecond(b.getLong(at + 32), b.getInt(at + 52))).isEqualTo(a.mtime());
      assertThat(Instant.ofEpochSecond(b.getLong(at + 40), b.getInt(at + 56))).isEqualTo(a.ctime());
      assertThat(b.getInt(at + 60)).isEqualTo(a.mode());
      assertThat(b.getInt(at + 64)).isEqualTo(a.nlink());
      assertThat(Integer.toUnsignedLong(b.getInt(at + 68))).isEqualTo(a.uid());
      assertThat(Integer.toUnsignedLong(b.getInt(at + 72))).isEqualTo(a.gid());
      assertThat(Integer.toUnsignedLong(b.getInt(at + 76))).isEqualTo(a.rdev());
      assertThat(b.getInt(at + 80)).isEqualTo(a.blockSize());
    }
  }

  @Test
  void dirents_areAlignedTo8Bytes_andStopWhenTheBufferIsFull() {
    SplittableRandom r = new SplittableRandom(Seeds.seed());
    for (int i = 0; i < 500; i++) {
      ByteBuffer b = ByteBuffer.allocate(r.nextInt(24, 4096)).order(ByteOrder.LITTLE_ENDIAN);
      int n = 0;
      while (true) {
        byte[] name = new byte[r.nextInt(1, 256)];
        for (int k = 0; k < name.length; k++) {
          name[k] = (byte) r.nextInt(1, 256);
        }
        int before = b.position();
        boolean plus = r.nextBoolean();
        boolean fit = plus ? FuseReplies.direntPlus(b, null, n + 10, n + 1, 8, name, 0, 0)
            : FuseReplies.dirent(b, n + 10, n + 1, 8, name);
        int need = (plus ? FuseReplies.ENTRY_OUT : 0) + FuseReplies.direntSize(name.length);
        if (!fit) {
          assertThat(b.position()).as("nothing written when it does not fit").isEqualTo(before);
          assertThat(b.capacity() - before).isLessThan(need);
          break;
        }
        assertThat(b.position() - before).isEqualTo(need);
        assertThat(b.position() % 8).isZero();
        int d = before + (plus ? FuseReplies.ENTRY_OUT : 0);
        assertThat(b.getLong(d)).isEqualTo(n + 10);
        assertThat(b.getLong(d + 8)).isEqualTo(n + 1);
        assertThat(b.getInt(d + 16)).isEqualTo(name.length);
        byte[] back = new byte[name.length];
        b.get(d + 24, back);
        assertThat(back).isEqualTo(name);
        for (int k = d + 24 + name.length; k < b.position(); k++) {
          assertThat(b.get(k)).as("padding is zero").isZero();
        }
        n++;
      }
    }
  }

  private static ByteBuffer request(int opcode, byte[] args) {
    ByteBuffer b = ByteBuffer.allocate(FuseProto.IN_HEADER + args.length).order(ByteOrder.LITTLE_ENDIAN);
    b.putInt(b.capacity()).putInt(opcode).putLong(77).putLong(5).putInt(1000).putInt(100).putInt(4242).putInt(0).put(args);
    return b;
  }

  @Test
  void request_decodesHeaderAndNames_andRefusesAnythingShortOrUnterminated() {
    byte[] args = new byte[] {1, 0, 0, 0, 0, 0, 0, 0, 'a', 'b', 0, 'c', 0};
    FuseRequest q = FuseRequest.decode(request(FuseProto.RENAME, args), FuseProto.IN_HEADER + args.length);
    assertThat(q.opcode).isEqualTo(FuseProto.RENAME);
    assertThat(q.unique).isEqualTo(77);
    assertThat(q.nodeid).isEqualTo(5);
    assertThat(q.uid).isEqualTo(1000);
    assertThat(q.gid).isEqualTo(100);
    assertThat(q.u64(0)).isEqualTo(1);
    assertThat(q.name(8)).isEqualTo(new byte[] {'a', 'b'});
    assertThat(q.name(q.after(8))).isEqualTo(new byte[] {'c'});
    assertThatThrownBy(() -> q.u64(8)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> FuseRequest.decode(request(1, args), 39)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> FuseRequest.decode(request(1, args), FuseProto.IN_HEADER + 3)).hasMessageContaining("were read");
    byte[] open = {'a', 'b'};
    FuseRequest u = FuseRequest.decode(request(FuseProto.LOOKUP, open), FuseProto.IN_HEADER + 2);
    assertThatThrownBy(() -> u.name(0)).hasMessageContaining("not NUL-terminated");

    SplittableRandom r = new SplittableRandom(Seeds.seed());
    for (int i = 0; i < 5000; i++) { // random argument bytes: values or IllegalArgumentException, nothing else
      byte[] junk = new byte[r.nextInt(0, 64)];
      r.nextBytes(junk);
      FuseRequest j = FuseRequest.decode(request(r.nextInt(1, 50), junk), FuseProto.IN_HEADER + junk.length);
      int off = r.nextInt(-4, 70);
      for (Runnable probe : new Runnable[] {() -> j.u32(off), () -> j.u64(off), () -> j.name(off), () -> j.copy(off, 8)}) {
        try {
          probe.run();
        } catch (IllegalArgumentException expected) {
          // the only way a malformed request fails
        }
      }
    }
  }

  @Test
  void options_parseEveryKnownKey_andRefuseUnknownOnesByName() {
    FuseOptions o = FuseOptions.parse("ro,allow_other,default_permissions,writeback_cache,direct_io,max_write=131072,threads=4,"
        + "attr_timeout=0.5,entry_timeout=0,fsname=disk,dirsync", FuseOptions.defaults());
    assertThat(o).isEqualTo(new FuseOptions(true, true, true, true, 131072, 4, 500_000_000L, 0, "disk", true, true,
        FuseOptions.MS_NOSUID | FuseOptions.MS_NODEV | FuseOptions.MS_RELATIME, io.ext4j.fs.AtimeUpdates.RELATIME, false));
    assertThat(FuseOptions.parse("ro,rw", FuseOptions.defaults()).readOnly()).isFalse();
    assertThat(FuseOptions.parse("", FuseOptions.defaults())).isEqualTo(FuseOptions.defaults());
    assertThatThrownBy(() -> FuseOptions.parse("noatim", FuseOptions.defaults())).hasMessageContaining("unknown mount option 'noatim'");
    FuseOptions m = FuseOptions.parse("noatime,suid,dev,noexec,nodiratime,defaults,nofail,_netdev,x-systemd.automount",
        FuseOptions.defaults());
    assertThat(m.mountFlags()).isEqualTo(FuseOptions.MS_NOATIME | FuseOptions.MS_NOEXEC | FuseOptions.MS_NODIRATIME);
    assertThat(m.atime()).isEqualTo(io.ext4j.fs.AtimeUpdates.NOATIME);
    assertThat(m.noDirAtime()).isTrue();
    FuseOptions strict = FuseOptions.parse("noatime,strictatime", FuseOptions.defaults());
    assertThat(strict.atime()).isEqualTo(io.ext4j.fs.AtimeUpdates.STRICTATIME);
    assertThat(strict.mountFlags() & (FuseOptions.MS_NOATIME | FuseOptions.MS_STRICTATIME)).isEqualTo(FuseOptions.MS_STRICTATIME);
    assertThatThrownBy(() -> FuseOptions.parse("max_write=1000", FuseOptions.defaults())).hasMessageContaining("power of two");
    assertThatThrownBy(() -> FuseOptions.parse("threads=x", FuseOptions.defaults())).hasMessageContaining("not a number");
    assertThatThrownBy(() -> FuseOptions.parse("ro=1", FuseOptions.defaults())).hasMessageContaining("takes no value");
  }
}
