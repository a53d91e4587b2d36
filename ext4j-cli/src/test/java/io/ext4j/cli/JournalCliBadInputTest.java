package io.ext4j.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.block.FileBlockDevice;
import io.ext4j.fs.Ext4JournalLocator;
import io.ext4j.fs.JournalLocation;
import io.ext4j.jbd2.JournalMap;
import io.ext4j.jbd2.JournalRecovery;
import io.ext4j.jbd2.format.JournalSuperblock;
import io.ext4j.testkit.E2fsprogs;
import io.ext4j.testkit.KernelFixtures;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Bad input to the journal commands: one line on stderr naming what and where, exit 1, image untouched. */
@Tag("fast")
class JournalCliBadInputTest {
  @TempDir
  Path dir;

  @Test
  void help_listsTheCommands() {
    Cli top = Cli.run("--help");
    Cli journal = Cli.run("journal", "--help");

    assertThat(top.exitCode()).isZero();
    assertThat(top.out()).contains("journal");
    assertThat(journal.out()).contains("dump", "recover", "info");
  }

  @Test
  void missingImageArgument_isAUsageError() {
    Cli cli = Cli.run("journal", "dump");

    assertThat(cli.exitCode()).isEqualTo(Main.EXIT_USAGE);
    assertThat(cli.err()).contains("IMAGE");
  }

  @ParameterizedTest
  @ValueSource(strings = {"dump", "info", "recover"})
  void missingFile_failsNamingThePath(String command) {
    Path missing = dir.resolve("nope.img");

    Cli cli = Cli.run("journal", command, missing.toString());

    assertFailsWithOneLine(cli, missing.toString(), "no such file");
    assertThat(missing).doesNotExist();
  }

  @ParameterizedTest
  @ValueSource(strings = {"dump", "info", "recover"})
  void notExt4_failsNamingTheMagic(String command) throws Exception {
    Path img = dir.resolve("zeros.img");
    Files.write(img, new byte[64 * 1024]);

    Cli cli = Cli.run("journal", command, img.toString());

    assertFailsWithOneLine(cli, img.toString(), "magic");
    assertThat(Files.readAllBytes(img)).isEqualTo(new byte[64 * 1024]);
  }

  @Tag("oracle") // mkfs.ext4 makes the image
  @ParameterizedTest
  @ValueSource(strings = {"dump", "info", "recover"})
  void noJournal_failsSayingSo(String command) throws Exception {
    Path img = dir.resolve("nojournal.img");
    try (RandomAccessFile f = new RandomAccessFile(img.toFile(), "rw")) {
      f.setLength(4L << 20);
    }
    E2fsprogs.mkfs(img, "-b", "1024", "-O", "^has_journal"); // fails loudly when mkfs.ext4 is missing
    byte[] before = Files.readAllBytes(img);

    Cli cli = Cli.run("journal", command, img.toString());

    assertFailsWithOneLine(cli, img.toString(), "no journal");
    assertThat(Files.readAllBytes(img)).isEqualTo(before);
  }

  @ParameterizedTest
  @ValueSource(strings = {"dump", "info", "recover"})
  void corruptJournalSuperblock_failsNamingTheCheck(String command) throws Exception {
    Path img = KernelFixtures.extract("1k-basic", dir);
    long at = journalSuperblockOffset(img);
    try (RandomAccessFile f = new RandomAccessFile(img.toFile(), "rw")) {
      f.seek(at);
      f.writeInt(0x12345678); // the magic
    }
    byte[] before = Files.readAllBytes(img);

    Cli cli = Cli.run("journal", command, img.toString());

    assertFailsWithOneLine(cli, img.toString(), "journal block 0: superblock magic");
    assertThat(Files.readAllBytes(img)).isEqualTo(before);
  }

  @ParameterizedTest
  @ValueSource(strings = {"dump", "info", "recover"})
  void unsupportedIncompatFeature_failsNamingIt(String command) throws Exception {
    Path img = KernelFixtures.extract("4k-basic", dir);
    long at = journalSuperblockOffset(img);
    try (FileBlockDevice dev = FileBlockDevice.open(img, 4096)) {
      JournalMap map = JournalMap.contiguous(at / 4096, 1024);
      JournalSuperblock sb = JournalRecovery.readSuperblock(dev, map);
      JournalSuperblock odd = sb.withFeatures(sb.featureCompat(), sb.featureIncompat() | 0x40, sb.featureRoCompat());
      try (RandomAccessFile f = new RandomAccessFile(img.toFile(), "rw")) {
        f.seek(at);
        f.write(odd.encode());
      }
    }
    byte[] before = Files.readAllBytes(img);

    Cli cli = Cli.run("journal", command, img.toString());

    assertFailsWithOneLine(cli, img.toString(), "unsupported feature journal_incompat_0x40");
    assertThat(Files.readAllBytes(img)).isEqualTo(before);
  }

  @Test
  void standalone_readsABareJournalRegion() throws Exception {
    Path img = KernelFixtures.extract("4k-wrapped", dir);
    JournalLocation loc = location(img);
    Path region = dir.resolve("journal.bin");
    byte[] bytes = new byte[Math.toIntExact(loc.length() * 4096)];
    try (RandomAccessFile f = new RandomAccessFile(img.toFile(), "r")) {
      for (long j = 0; j < loc.length(); j++) { // the journal inode's blocks, in journal order
        f.seek(loc.deviceBlock(j) * 4096);
        f.readFully(bytes, Math.toIntExact(j * 4096), 4096);
      }
    }
    Files.write(region, bytes);

    Cli standalone = Cli.run("journal", "dump", "--json", "--standalone", region.toString());
    Cli internal = Cli.run("journal", "dump", "--json", img.toString());

    assertThat(standalone.exitCode()).as(standalone.err()).isZero();
    assertThat(standalone.out()).isEqualTo(internal.out());
  }

  private static long journalSuperblockOffset(Path img) throws Exception {
    JournalLocation loc = location(img);
    return loc.deviceBlock(0) * loc.blockSize();
  }

  private static JournalLocation location(Path img) throws Exception {
    try (FileBlockDevice dev = FileBlockDevice.open(img, 1024, FileBlockDevice.Options.defaults().withReadOnly(true))) {
      return Ext4JournalLocator.locate(dev);
    }
  }

  private static void assertFailsWithOneLine(Cli cli, String... fragments) {
    assertThat(cli.exitCode()).as("exit code; stderr: " + cli.err()).isEqualTo(Main.EXIT_FAILURE);
    assertThat(cli.err().lines().toList()).as("stderr").hasSize(1);
    assertThat(cli.err()).startsWith("ext4j: ").contains(fragments).doesNotContain("Exception", "\tat ");
  }
}
