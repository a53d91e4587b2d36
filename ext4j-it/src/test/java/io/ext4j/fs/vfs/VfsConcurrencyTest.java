package io.ext4j.fs.vfs;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.fs.DirEntry;
import io.ext4j.fs.Ext4Exception;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.Ext4Options;
import io.ext4j.fs.OpenFile;
import io.ext4j.fs.OpenFlag;
import io.ext4j.fs.RenameMode;
import io.ext4j.testkit.E2fsprogs;
import io.ext4j.testkit.NamespaceWorkload;
import io.ext4j.testkit.Seeds;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The namespace race of {@link NamespaceWorkload} (8 threads, {@code -Dext4j.concurrency.seconds},
 * 30 by default) straight on the engine's {@link Vfs}, on an image {@code mkfs.ext4} made: every
 * call ends as Linux allows, no file shows another's data, and afterwards the image passes ext4j's
 * strict fsck and {@code e2fsck -fn}. (The nio and FUSE suites run the same program through their
 * adapters, and on the JDK's own file system.)
 */
@Tag("oracle")
class VfsConcurrencyTest {
  @TempDir
  Path tmp;

  /** The workload's calls as the VFS's *at calls from the root, as root. */
  static final class VfsOps implements NamespaceWorkload.Ops {
    private static final Credentials ROOT = Credentials.root();
    private final Vfs vfs;

    VfsOps(Vfs vfs) {
      this.vfs = vfs;
    }

    private static byte[] p(String name) {
      return ("/" + name).getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public void write(String name, byte[] data, boolean exclusive) throws IOException {
      EnumSet<OpenFlag> f = EnumSet.of(OpenFlag.WRITE, OpenFlag.CREATE, OpenFlag.TRUNCATE);
      if (exclusive) {
        f.add(OpenFlag.EXCLUSIVE);
      }
      try (OpenFile o = vfs.openat(null, p(name), f, 0644, ROOT)) {
        long n = o.write(0, ByteBuffer.wrap(data));
        if (n != data.length) {
          throw new IOException(name + ": one write of " + data.length + " bytes wrote " + n);
        }
      }
    }

    @Override
    public byte[] read(String name) throws IOException {
      try (OpenFile o = vfs.openat(null, p(name), EnumSet.of(OpenFlag.READ), 0, ROOT)) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteBuffer b = ByteBuffer.allocate(16 << 10);
        long at = 0;
        int n;
        while ((n = o.read(at, b.clear())) > 0) {
          out.write(b.array(), 0, n);
          at += n;
        }
        return out.toByteArray();
      }
    }

    @Override
    public void unlink(String name) throws IOException {
      vfs.unlinkat(null, p(name), false, ROOT);
    }

    @Override
    public void rename(String from, String to) throws IOException {
      vfs.renameat(null, p(from), null, p(to), RenameMode.REPLACE, ROOT);
    }

    @Override
    public void link(String existing, String name) throws IOException {
      vfs.linkat(null, p(existing), null, p(name), false, ROOT);
    }

    @Override
    public void mkdir(String name) throws IOException {
      vfs.mkdirat(null, p(name), 0755, ROOT);
    }

    @Override
    public void rmdir(String name) throws IOException {
      vfs.unlinkat(null, p(name), true, ROOT);
    }

    @Override
    public List<String> list(String dir) throws IOException {
      List<String> out = new ArrayList<>();
      try (OpenFile d = vfs.openat(null, p(dir), EnumSet.of(OpenFlag.READ, OpenFlag.DIRECTORY), 0, ROOT)) {
        long cookie = 0;
        while (true) {
          List<DirEntry> page = vfs.readdir(d, cookie, 64);
          if (page.isEmpty()) {
            return out;
          }
          for (DirEntry e : page) {
            cookie = e.cookie();
            if (!e.isDot()) {
              out.add(e.nameString());
            }
          }
        }
      }
    }

    @Override
    public String errno(IOException e) {
      return e instanceof Ext4Exception x ? x.errno().name() : null;
    }
  }

  @Test
  void theVfsDirectly_noCallFailsAsLinuxWouldNot_noFileHoldsAnothersData_andTheImageIsClean() throws Exception {
    long seed = Seeds.seed();
    Path img = E2fsprogs.mkfsSparse(tmp.resolve("race.img"), 128, "-b", "1024");
    NamespaceWorkload.Result r;
    try (Ext4FileSystem fs = Ext4FileSystem.open(img, Ext4Options.defaults())) {
      r = new NamespaceWorkload(new VfsOps(fs.vfs()), 8, Duration.ofSeconds(Long.getLong("ext4j.concurrency.seconds", 30)), seed).run();
    }
    System.out.println("ext4j vfs: " + r.summary());
    assertThat(r.violations()).as("seed %d", seed).isEmpty();
    assertThat(r.outcomes()).containsKeys("CREATE OK", "CREATE_EXCL OK", "READ OK", "UNLINK OK", "RENAME OK", "LINK OK", "MKDIR OK",
        "RMDIR OK", "LIST OK", "PRIVATE OK");
    try (var dev = io.ext4j.block.FileBlockDevice.open(img, 1024, io.ext4j.block.FileBlockDevice.Options.defaults().withReadOnly(true))) {
      var report = io.ext4j.tools.check.Checker.check(dev, io.ext4j.tools.check.CheckOptions.defaults().withStrict(true));
      assertThat(report.clean()).as("ext4j fsck --strict after the race: %s", report.toText()).isTrue();
    }
    E2fsprogs.assertE2fsckClean(img, "after the VFS race, seed " + seed);
  }
}
