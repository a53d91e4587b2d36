package io.ext4j.fs.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.fs.Attributes;
import io.ext4j.fs.Caller;
import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.Ext4Options;
import io.ext4j.fs.OpenFile;
import io.ext4j.fs.OpenFlag;
import io.ext4j.fs.RenameMode;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("oracle")
class EngineSmokeTest {
  static final Path DIR = Path.of("target", "test-images", "engine");

  static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void createWriteReadRenameUnlink_leavesAnImageE2fsckFindsClean() throws Exception {
    Files.createDirectories(DIR);
    Path img = DIR.resolve("smoke.img");
    Oracle.mkfs(img, 64 << 20, 4096, "-O", "metadata_csum_seed,orphan_file");
    try (Ext4FileSystem fs = Ext4FileSystem.open(img, Ext4Options.defaults())) {
      Attributes d = fs.mkdir(Ext4FileSystem.ROOT, b("dir"), 0755, Caller.ROOT);
      Attributes f = fs.create(d.ino(), b("hello.txt"), 0644, Caller.ROOT);
      try (OpenFile of = fs.open(f.ino(), EnumSet.of(OpenFlag.READ, OpenFlag.WRITE))) {
        byte[] data = new byte[100_000];
        for (int i = 0; i < data.length; i++) {
          data[i] = (byte) (i * 7);
        }
        assertThat(of.write(0, ByteBuffer.wrap(data))).isEqualTo(data.length);
        ByteBuffer back = ByteBuffer.allocate(data.length);
        assertThat(of.read(0, back)).isEqualTo(data.length);
        assertThat(back.array()).isEqualTo(data);
        of.fsync(false);
      }
      fs.rename(d.ino(), b("hello.txt"), Ext4FileSystem.ROOT, b("moved.txt"), RenameMode.REPLACE);
      assertThat(fs.lookup(Ext4FileSystem.ROOT, b("moved.txt")).size()).isEqualTo(100_000);
      for (int i = 0; i < 300; i++) {
        fs.create(d.ino(), b("file-" + i), 0644, Caller.ROOT);
      }
      for (int i = 0; i < 300; i += 2) {
        fs.unlink(d.ino(), b("file-" + i));
      }
      fs.symlink(Ext4FileSystem.ROOT, b("short"), b("moved.txt"), Caller.ROOT);
      fs.symlink(Ext4FileSystem.ROOT, b("long"), b("x".repeat(200)), Caller.ROOT);
      fs.setxattr(f.ino(), "user.comment", b("hi"), 0);
    }
    Oracle.assertClean(img);
  }
}
