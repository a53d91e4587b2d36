package io.ext4j.tools.check;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.block.BlockDevice;
import io.ext4j.block.MemoryBlockDevice;
import io.ext4j.block.OverlayBlockDevice;
import io.ext4j.fs.format.DxBlock;
import io.ext4j.fs.format.ExtentNode;
import io.ext4j.fs.format.GroupDescriptor;
import io.ext4j.fs.format.RawInode;
import io.ext4j.testkit.Seeds;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The checker on hostile images: seeded random damage to the metadata blocks of a populated image
 * (bit flips, random bytes, zeroed and random blocks, extreme field values), and hand-made loops (an
 * extent index pointing at its own block, an htree node listing itself, directories naming each
 * other). It must always return a report — no exception, no internal error — in bounded time, and an
 * image it cannot check gets exit code 8 with the reason.
 */
@Tag("oracle")
class CheckerRobustnessOracleTest {

  @Test
  void randomDamageToMetadata_alwaysGivesAReport_neverAnInternalError() throws Exception {
    long seed = Seeds.seed();
    SplittableRandom r = new SplittableRandom(seed);
    for (String[] cfg : new String[][] {{"-b", "1024", "-O", "metadata_csum_seed,orphan_file"},
        {"-b", "4096", "-O", "^metadata_csum,uninit_bg"}}) {
      Path img = Fixture.mkfs("fuzz-base-" + cfg[1], 16, cfg);
      Fixture.populate(img, seed, true);
      int bs = CheckImage.blockSize(img);
      MemoryBlockDevice base = MemoryBlockDevice.of("fuzz-" + cfg[1], bs, Files.readAllBytes(img));
      long[] targets = metadataBlocks(img);
      int[] exits = new int[9];
      long worst = 0;
      int rounds = Integer.getInteger("ext4j.checker.fuzz", 1500);
      for (int i = 0; i < rounds; i++) {
        OverlayBlockDevice dev = new OverlayBlockDevice(base);
        String damage = damage(dev, targets, r);
        long t0 = System.nanoTime();
        CheckReport rep = Checker.check(dev, CheckOptions.defaults().withMaxProblems(200));
        long t = System.nanoTime() - t0;
        worst = Math.max(worst, t);
        exits[rep.exitCode()]++;
        assertThat(rep.problems()).as("seed %d round %d (%s): %s", seed, i, damage, rep.toText())
            .noneMatch(p -> p.what().startsWith("internal checker error"));
        assertThat(rep.problems().size() + rep.notes().size()).isLessThanOrEqualTo(400);
        assertThat(t).as("seed %d round %d (%s) took %d ms", seed, i, damage, t / 1_000_000).isLessThan(5_000_000_000L);
        assertThat(rep.toText()).isNotEmpty();
      }
      System.out.printf("fuzz %s: %d rounds, exit 0/4/8 = %d/%d/%d, slowest %d µs%n", String.join(" ", cfg), rounds,
          exits[0], exits[4], exits[8], worst / 1000);
      assertThat(exits[4]).as("most damage is found").isGreaterThan(rounds / 2);
    }
  }

  /** Superblock, descriptors, bitmaps, the used inode table blocks, directory, extent and xattr blocks. */
  static long[] metadataBlocks(Path img) throws Exception {
    List<Long> out = new ArrayList<>();
    try (ImageEditor ed = ImageEditor.open(img)) {
      out.add(1024L / ed.bs);
      for (int g = 0; g < ed.lay.groups(); g++) {
        out.add(ed.lay.descriptorBlock(g));
        GroupDescriptor d = ed.gd(g);
        out.add(d.blockBitmap());
        out.add(d.inodeBitmap());
        long used = (ed.sb.inodesPerGroup() - d.itableUnused()) * ed.sb.inodeSize() / ed.bs + 1;
        for (long b = 0; b < used && b < 64; b++) {
          out.add(d.inodeTable() + b);
        }
      }
      for (long ino = 1; ino < 40; ino++) {
        RawInode r = ed.inode(ino);
        if (r.fileAcl() != 0) {
          out.add(r.fileAcl());
        }
        if (r.hasFlag(RawInode.FL_EXTENTS) && (r.isDirectory() || ino == 8 || ino == 12)) {
          ExtentNode root = ExtentNode.decode(r.bytes(), RawInode.I_BLOCK, 60, 4, null);
          for (int k = 0; k < root.count(); k++) {
            long n = root.depth() == 0 ? Math.min(root.lengths()[k], 8) : 1;
            for (long j = 0; j < n; j++) {
              out.add(root.values()[k] + j);
            }
          }
        } else if (r.hasFlag(RawInode.FL_EXTENTS) && r.isRegular()) {
          ExtentNode root = ExtentNode.decode(r.bytes(), RawInode.I_BLOCK, 60, 4, null);
          if (root.depth() > 0) {
            out.add(root.values()[0]);
          }
        }
      }
    }
    return out.stream().mapToLong(Long::longValue).toArray();
  }

  static String damage(BlockDevice dev, long[] targets, SplittableRandom r) throws Exception {
    int bs = dev.blockSize();
    StringBuilder what = new StringBuilder();
    int n = 1 + r.nextInt(3);
    for (int k = 0; k < n; k++) {
      long blk = targets[r.nextInt(targets.length)];
      ByteBuffer buf = ByteBuffer.allocate(bs);
      dev.read(blk, buf);
      byte[] b = buf.array();
      int kind = r.nextInt(6);
      switch (kind) {
        case 0 -> {
          for (int i = 0; i < 1 + r.nextInt(8); i++) {
            b[r.nextInt(bs)] ^= (byte) (1 << r.nextInt(8));
          }
        }
        case 1 -> {
          int at = r.nextInt(bs);
          int len = Math.min(bs - at, 1 + r.nextInt(32));
          byte[] junk = new byte[len];
          r.nextBytes(junk);
          System.arraycopy(junk, 0, b, at, len);
        }
        case 2 -> java.util.Arrays.fill(b, (byte) 0);
        case 3 -> r.nextBytes(b);
        case 4 -> {
          int at = r.nextInt(bs / 4) * 4;
          int v = new int[] {0, -1, 0xFFFF, 0x7FFFFFFF, r.nextInt()}[r.nextInt(5)];
          ByteBuffer.wrap(b).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(at, v);
        }
        default -> {
          int at = r.nextInt(bs / 2) * 2;
          ByteBuffer.wrap(b).order(java.nio.ByteOrder.LITTLE_ENDIAN).putShort(at, (short) (r.nextBoolean() ? 0xFFFF : 0));
        }
      }
      dev.write(blk, ByteBuffer.wrap(b));
      what.append("block ").append(blk).append(" kind ").append(kind).append("; ");
    }
    return what.toString();
  }

  @Test
  void loops_inExtentTreesHtreesAndDirectories_areReportedAndBounded() throws Exception {
    Path img = Fixture.mkfs("loops", 16, "-b", "1024", "-O", "metadata_csum_seed,orphan_file");
    Fixture.populate(img, 7, true);
    Path copy = Fixture.DIR.resolve("loops-1.img");
    // an extent index block whose entry points at itself
    Files.copy(img, copy, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    long sparse;
    long[] leafOf = new long[1];
    try (ImageEditor ed = ImageEditor.open(copy)) {
      sparse = find(ed, r -> r.isRegular() && depth(r) == 1);
      RawInode r = ed.inode(sparse);
      ExtentNode root = ExtentNode.decode(r.bytes(), RawInode.I_BLOCK, 60, 4, null);
      long leaf = root.values()[0];
      leafOf[0] = leaf;
      ExtentNode self = ExtentNode.index(1, List.of(new long[] {0, leaf}, new long[] {1000, leaf}));
      byte[] b = ed.block(leaf);
      self.encode(b, 0, ed.bs, ExtentNode.blockMax(ed.bs), ed.inodeSeed(sparse));
      ed.put(leaf, b);
      ExtentNode deeper = ExtentNode.index(2, List.of(new long[] {0, leaf}));
      deeper.encode(r.bytes(), RawInode.I_BLOCK, 60, 4, null);
      ed.putInode(sparse, r);
    }
    CheckReport rep = CheckImage.check(copy);
    assertThat(rep.exitCode()).as(rep.toText()).isEqualTo(4);
    assertThat(rep.problems()).as(rep.toText()).anyMatch(p -> p.inode() == sparse && p.block() == leafOf[0]
        && p.structure().equals(Problem.BLOCK_OWNERSHIP)); // the tree reaches its own block again: claimed twice
    assertThat(E2fsprogs.e2fsck(copy).exit()).isNotZero();

    // an htree root entry pointing at the root, and two leaves' entries swapped to point at one block
    Files.copy(img, copy, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    long hdir;
    try (ImageEditor ed = ImageEditor.open(copy)) {
      hdir = find(ed, r -> r.isDirectory() && r.hasFlag(RawInode.FL_INDEX));
      ExtentNode root = ExtentNode.decode(ed.inode(hdir).bytes(), RawInode.I_BLOCK, 60, 4, null);
      long b0 = root.values()[0];
      byte[] b = ed.block(b0);
      int c = DxBlock.ROOT_COUNT_OFFSET;
      DxBlock.setEntry(b, c, 1, DxBlock.hash(b, c, 1), 0);
      DxBlock.setEntry(b, c, 2, DxBlock.hash(b, c, 2), DxBlock.block(b, c, 3));
      ed.fixDx(hdir, b, c);
      ed.put(b0, b);
    }
    rep = CheckImage.check(copy);
    assertThat(rep.exitCode()).as(rep.toText()).isEqualTo(4);
    assertThat(rep.problems()).anyMatch(p -> p.inode() == hdir && p.structure().equals(Problem.HTREE));
    assertThat(E2fsprogs.e2fsck(copy).exit()).isNotZero();

    // two directories that name each other and nothing else: a loop cut off from the root
    Files.copy(img, copy, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    E2fsprogs.debugfs(copy, true, List.of("mkdir x", "mkdir y", "link /y /x/y-again", "link /x /y/x-again",
        "unlink /x", "unlink /y"));
    rep = CheckImage.check(copy);
    assertThat(rep.exitCode()).as(rep.toText()).isEqualTo(4);
    assertThat(rep.problems()).anyMatch(p -> p.structure().equals(Problem.DIRECTORY_TREE));
    assertThat(E2fsprogs.e2fsck(copy).exit()).isNotZero();
  }

  @Test
  void imagesThatCannotBeChecked_exitWith8AndSayWhy() throws Exception {
    CheckReport zeros = Checker.check(new MemoryBlockDevice("zeros", 1024, 4096), CheckOptions.defaults());
    assertThat(zeros.exitCode()).isEqualTo(8);
    assertThat(zeros.checked()).isFalse();
    assertThat(zeros.problems()).singleElement().satisfies(p -> assertThat(p.what()).contains("not an ext4 filesystem"));
    CheckReport tiny = Checker.check(new MemoryBlockDevice("tiny", 512, 2), CheckOptions.defaults());
    assertThat(tiny.exitCode()).isEqualTo(8);
    assertThat(tiny.problems()).singleElement().satisfies(p -> assertThat(p.what()).contains("too small"));

    Path img = Fixture.mkfs("wrong-bs", 16, "-b", "4096");
    byte[] bytes = Files.readAllBytes(img);
    CheckReport mismatch = Checker.check(MemoryBlockDevice.of("1k-view", 1024, bytes), CheckOptions.defaults());
    assertThat(mismatch.exitCode()).isEqualTo(8);
    assertThat(mismatch.problems()).singleElement().satisfies(p -> assertThat(p.what()).contains("4096-byte blocks"));
    CheckReport truncated = Checker.check(MemoryBlockDevice.of("half", 4096,
        java.util.Arrays.copyOf(bytes, bytes.length / 2)), CheckOptions.defaults());
    assertThat(truncated.exitCode()).isEqualTo(8);
    assertThat(truncated.problems()).singleElement().satisfies(p -> assertThat(p.what()).contains("truncated"));
    CheckReport whole = Checker.check(MemoryBlockDevice.of("whole", 4096, bytes), CheckOptions.defaults());
    assertThat(whole.silent()).as(whole.toText()).isTrue();
  }

  private interface InodeTest {
    boolean test(RawInode r) throws Exception;
  }

  private static long find(ImageEditor ed, InodeTest t) throws Exception {
    for (long ino = 11; ino < 500; ino++) {
      RawInode r = ed.inode(ino);
      if (r.links() > 0 && t.test(r)) {
        return ino;
      }
    }
    throw new AssertionError("no such inode in the fixture");
  }

  private static int depth(RawInode r) {
    return r.hasFlag(RawInode.FL_EXTENTS) ? r.bytes()[RawInode.I_BLOCK + 6] : -1;
  }
}
