package io.ext4j.tools.check;

import static io.ext4j.tools.check.Problem.BLOCK_OWNERSHIP;

import io.ext4j.fs.format.RawInode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * e2fsck's pass 1B, run only when pass 1 found blocks claimed twice: a second walk of every in-use
 * inode's blocks (problems muted: pass 1 reported them) that names, for each inode holding shared
 * blocks, how many, the first, and who else holds them — other inodes or filesystem metadata.
 */
final class SharedBlocks {
  /** Owner ids of the metadata, below any inode number. */
  private static final long METADATA = 0;

  private final Scan s;
  private final Map<Long, long[]> perInode = new LinkedHashMap<>(); // ino → {count, first block}
  private final Map<Long, TreeSet<Long>> owners = new java.util.HashMap<>(); // shared block → owners (bounded)
  private static final int TRACKED_BLOCKS = 100_000;

  private SharedBlocks(Scan s) {
    this.s = s;
  }

  static void report(Scan s) throws IOException {
    if (s.sharedCount == 0) {
      return;
    }
    SharedBlocks sb = new SharedBlocks(s);
    sb.metadata();
    sb.inodes();
    sb.emit();
  }

  private void own(long block, long owner) {
    if (!s.shared.get(block)) {
      return;
    }
    TreeSet<Long> set = owners.get(block);
    if (set == null) {
      if (owners.size() >= TRACKED_BLOCKS) {
        return;
      }
      set = new TreeSet<>();
      owners.put(block, set);
    }
    set.add(owner);
    if (owner != METADATA) {
      long[] c = perInode.computeIfAbsent(owner, k -> new long[] {0, block});
      c[0]++;
      c[1] = Math.min(c[1], block);
    }
  }

  private void ownRange(long start, long n, long owner) {
    long b = s.shared.firstSetIn(start, start + n);
    while (b >= 0) {
      own(b, owner);
      b = s.shared.firstSetIn(b + 1, start + n);
    }
  }

  private void metadata() {
    for (int g = 0; g < s.groups; g++) {
      int overhead = Math.min(s.lay.superBackupOverhead(g), s.lay.groupBlockCount(g));
      if (overhead > 0) {
        ownRange(s.lay.groupFirstBlock(g), overhead, METADATA);
      }
      if (s.blockBitmapOk[g]) {
        ownRange(s.gd[g].blockBitmap(), 1, METADATA);
      }
      if (s.inodeBitmapOk[g]) {
        ownRange(s.gd[g].inodeBitmap(), 1, METADATA);
      }
      if (s.inodeTableOk[g]) {
        ownRange(s.gd[g].inodeTable(), s.itableBlocks, METADATA);
      }
    }
  }

  private void inodes() throws IOException {
    Findings muted = Findings.muted();
    ExtentWalk extents = new ExtentWalk(s, muted);
    IndirectWalk indirect = new IndirectWalk(s, muted);
    Bits seen = new Bits(s.blocks);
    InodeScan.forEachSlot(s, (ino, buf, off) -> {
      byte t = s.typeOf(ino);
      if (t == 0 || InodeScan.allZero(buf, off, s.isize)) {
        return;
      }
      RawInode r = new RawInode(buf, off, s.isize);
      long acl = s.sb.is64Bit() ? r.fileAcl() : r.fileAcl() & 0xFFFFFFFFL;
      Scan.XattrRef x = s.xattrBlocks.get(acl);
      if (x != null && x.firstInode == ino) {
        ownRange(acl, 1, ino);
      }
      if (ino == 7 && s.sb.hasCompat(io.ext4j.fs.format.Ext4Superblock.COMPAT_RESIZE_INODE)) {
        long dind = Integer.toUnsignedLong(r.iBlockWord(13));
        if (s.inRange(dind, 1)) {
          ownRange(dind, 1, ino);
        }
        return;
      }
      boolean mapped = t == Scan.T_REG || t == Scan.T_DIR
          || (t == Scan.T_LNK && !(r.sizeBytes() > 0 && r.sizeBytes() < RawInode.I_BLOCK_SIZE));
      if (!mapped) {
        return;
      }
      BlockVisitor v = new BlockVisitor() {
        @Override
        public void data(long lblk, long pblk, long len, boolean unwritten) {
          ownRange(pblk, len, ino);
        }

        @Override
        public boolean node(long pblk) {
          ownRange(pblk, 1, ino);
          boolean fresh = !seen.get(pblk);
          seen.set(pblk);
          return fresh;
        }
      };
      if (r.hasFlag(RawInode.FL_EXTENTS)) {
        extents.walk(ino, r, t == Scan.T_DIR, v);
      } else {
        indirect.walk(ino, r, v);
      }
    });
  }

  private void emit() {
    Map<Long, TreeSet<Long>> partners = new LinkedHashMap<>();
    for (Map.Entry<Long, TreeSet<Long>> e : owners.entrySet()) {
      for (long o : e.getValue()) {
        if (o == METADATA) {
          continue;
        }
        TreeSet<Long> p = partners.computeIfAbsent(o, k -> new TreeSet<>());
        for (long other : e.getValue()) {
          if (other != o) {
            p.add(other);
          }
        }
        if (e.getValue().size() == 1) {
          p.add(-1L); // shared within its own map (the same block twice)
        }
      }
    }
    for (Map.Entry<Long, long[]> e : perInode.entrySet()) {
      long ino = e.getKey();
      List<String> with = new ArrayList<>();
      for (long o : partners.getOrDefault(ino, new TreeSet<>())) {
        with.add(o == METADATA ? "filesystem metadata" : o == -1 ? "itself" : "inode " + o);
      }
      s.out.error(BLOCK_OWNERSHIP, ino, e.getValue()[1], e.getValue()[0] + " block(s) of inode " + ino
          + " (the first " + e.getValue()[1] + ") are also used by " + (with.isEmpty() ? "another owner" : String.join(", ", with)));
    }
  }
}
