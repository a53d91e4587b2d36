package io.ext4j.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@code journal info|dump|recover IMAGE --journal-dev PATH} and the file commands' {@code --journal-dev} on a filesystem made with an external
 * journal (mke2fs -J device= on a loop device): the journal is read from the device, and the file
 * commands (put, cat) write and read through it; without the option the command says the journal
 * is external; a journal device of another filesystem is
 * refused naming it and the UUIDs.
 */
@Tag("oracle")
@Tag("root")
class JournalDeviceCommandTest {
  @Test
  void theJournalCommands_readAnExternalJournal_andRefuseAnotherFilesystemsDevice() throws Exception {
    Path dir = Files.createDirectories(Path.of("target", "test-images", "journal-dev"));
    Path journal = dir.resolve("journal.img");
    Path fs = dir.resolve("fs.img");
    Path other = dir.resolve("other-journal.img");
    for (Path p : new Path[] {journal, fs, other}) {
      Files.deleteIfExists(p);
    }
    try (var j = new java.io.RandomAccessFile(journal.toFile(), "rw"); var f = new java.io.RandomAccessFile(fs.toFile(), "rw")) {
      j.setLength(8L << 20);
      f.setLength(32L << 20);
    }
    String loop = Tools.runOk("losetup", "-f", "--show", journal.toString()).strip();
    try {
      Tools.runOk("mkfs.ext4", "-q", "-F", "-O", "journal_dev", "-b", "4096", loop);
      Tools.runOk("mkfs.ext4", "-q", "-F", "-b", "4096", "-J", "device=" + loop, fs.toString());
    } finally {
      Tools.run("losetup", "-d", loop);
    }
    Tools.runOk("mkfs.ext4", "-q", "-F", "-O", "journal_dev", "-b", "4096", other.toString(), "2048");

    Cli info = Cli.run("journal", "info", fs.toString(), "--journal-dev", journal.toString());
    assertThat(info.exitCode()).as(info.err()).isZero();
    assertThat(info.out()).contains("Journal device:").contains(journal.toString()).contains("Journal state:            clean");

    Cli recover = Cli.run("journal", "recover", fs.toString(), "--journal-dev", journal.toString());
    assertThat(recover.exitCode()).as(recover.err()).isZero();
    assertThat(recover.out()).contains("nothing to replay");

    Cli dump = Cli.run("journal", "dump", fs.toString(), "--journal-dev", journal.toString(), "--json");
    assertThat(dump.exitCode()).as(dump.err()).isZero();
    assertThat(dump.out()).contains("\"transactions\":[]");

    Cli without = Cli.run("journal", "info", fs.toString());
    assertThat(without.exitCode()).isNotZero();
    assertThat(without.err()).contains("external");

    // the file commands take the journal device too: a write goes through it, and e2fsck -fn -j finds it clean
    Path host = Files.writeString(dir.resolve("host.txt"), "through the external journal\n");
    Cli put = Cli.run("put", fs.toString(), host.toString(), "/note.txt", "--journal-dev", journal.toString());
    assertThat(put.exitCode()).as(put.err()).isZero();
    Cli cat = Cli.run("cat", fs.toString(), "/note.txt", "--journal-dev", journal.toString());
    assertThat(cat.out()).isEqualTo("through the external journal\n");
    Tools.Result fsck = Tools.run("e2fsck", "-fn", "-j", journal.toString(), fs.toString());
    assertThat(fsck.exit()).as(fsck.describe()).isZero();
    Cli putWithout = Cli.run("put", fs.toString(), host.toString(), "/again.txt");
    assertThat(putWithout.exitCode()).isNotZero();
    assertThat(putWithout.err()).contains("external");

    Cli wrong = Cli.run("journal", "info", fs.toString(), "--journal-dev", other.toString());
    assertThat(wrong.exitCode()).isNotZero();
    assertThat(wrong.err()).contains(other.toString()).contains("s_journal_uuid");
  }
}
