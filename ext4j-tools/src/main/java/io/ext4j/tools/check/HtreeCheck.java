package io.ext4j.tools.check;

import static io.ext4j.tools.check.Problem.HTREE;

import io.ext4j.fs.format.DirHash;
import io.ext4j.fs.format.DxBlock;
import io.ext4j.fs.format.Ext4Superblock;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * The index of one htree directory (§6.6 of the format brief): the root's info (reserved zero,
 * known hash version, info length, depth within what large_dir allows), in the root and in every
 * interior node the exact limit, count ≤ limit, non-decreasing hashes, pointers inside the
 * directory, the dx_tail checksum; then, from the root down, every non-root block referenced
 * exactly once, every leaf at depth indirect_levels + 1, and each leaf's recomputed entry hashes
 * within [its index hash, the next index hash] (the last of a node: 0xFFFFFFFE). Interior nodes are
 * recognised as e2fsck does: a first record {inode 0, rec_len = block size} and the exact node limit.
 */
final class HtreeCheck {
  private static final byte LEAF = 1;
  private static final byte NODE = 2;
  private static final byte ROOT = 3;
  private static final long HASH_MAX = 0xFFFFFFFEL;

  private final Scan s;
  private final Scan.DirInfo d;
  private final int seed;
  private final int[] hashSeed;
  private final int sFlags;
  private final boolean csum;
  private final byte[] kind;
  private final long[] minHash;
  private final long[] maxHash;
  private final Map<Integer, long[]> index = new HashMap<>(); // position → entries (hash << 32 | block)
  private boolean valid = true;
  private int levels;
  private int version;
  private int current = -1;

  HtreeCheck(Scan s, Scan.DirInfo d, int seed, int[] hashSeed, int sFlags) {
    this.s = s;
    this.d = d;
    this.seed = seed;
    this.hashSeed = hashSeed;
    this.sFlags = sFlags;
    this.csum = s.metadataCsum;
    int n = d.lblk.length;
    this.kind = new byte[n];
    this.minHash = new long[n];
    this.maxHash = new long[n];
    Arrays.fill(minHash, Long.MAX_VALUE);
    Arrays.fill(maxHash, -1);
  }

  boolean valid() {
    return valid;
  }

  private int position(long lblk) {
    int p = Arrays.binarySearch(d.lblk, lblk);
    return p < 0 ? -1 : p;
  }

  private void invalid(long pblk, String what) {
    s.out.error(HTREE, d.ino, pblk, what);
    valid = false;
  }

  /** Block 0. */
  void root(byte[] b) {
    long pblk = d.pblk[0];
    kind[0] = ROOT;
    int reserved = DxBlock.reservedZero(b);
    int hv = DxBlock.hashVersion(b);
    int infoLen = DxBlock.infoLength(b);
    levels = DxBlock.indirectLevels(b);
    int maxLevels = s.sb.hasIncompat(Ext4Superblock.INCOMPAT_LARGEDIR) ? 3 : 2;
    if (reserved != 0 || infoLen < 8) {
      invalid(pblk, "the htree root is invalid (reserved_zero " + reserved + ", info_length " + infoLen + ")");
      return;
    }
    if (hv > DirHash.TEA) {
      invalid(pblk, "the htree root has an unsupported hash version " + hv);
      return;
    }
    if (levels >= maxLevels) {
      invalid(pblk, "the htree depth (indirect_levels " + levels + ") is too big; at most " + (maxLevels - 1)
          + (maxLevels == 2 ? " without large_dir" : ""));
      return;
    }
    if ((DxBlock.unusedFlags(b) & DxBlock.FLAG_INCOMPAT) != 0) {
      invalid(pblk, String.format("the htree root uses an incompatible flag (unused_flags 0x%02X)", DxBlock.unusedFlags(b)));
      return;
    }
    version = DirHash.versionFor(hv, (sFlags & Ext4Superblock.FLAG_UNSIGNED_HASH) != 0);
    int c = 24 + infoLen;
    if (c + 8 > s.bs) {
      invalid(pblk, "the htree root's info length " + infoLen + " leaves no room for the index");
      return;
    }
    long[] e = entries(0, pblk, b, c);
    if (e != null) {
      index.put(0, e);
    }
  }

  /** Whether a block of an indexed directory is an interior node (as e2fsck recognises one). */
  boolean isNode(byte[] b) {
    return DxBlock.looksLikeNode(b, s.bs)
        && DxBlock.limit(b, DxBlock.NODE_COUNT_OFFSET) == DxBlock.limitFor(s.bs, DxBlock.NODE_COUNT_OFFSET, csum);
  }

  void node(long lblk, long pblk, byte[] b) {
    int p = position(lblk);
    kind[p] = NODE;
    long[] e = entries(lblk, pblk, b, DxBlock.NODE_COUNT_OFFSET);
    if (e != null) {
      index.put(p, e);
    }
  }

  /** A leaf (any block that is neither the root nor a node); its entries follow through {@link #leafEntry}. */
  void leaf(long lblk) {
    current = position(lblk);
    kind[current] = LEAF;
  }

  void leafEntry(long lblk, byte[] b, int at, int len) {
    if (current < 0 || d.lblk[current] != lblk) {
      return;
    }
    long h = Integer.toUnsignedLong(DirHash.major(DirHash.hash(version, b, at, len, hashSeed)));
    minHash[current] = Math.min(minHash[current], h);
    maxHash[current] = Math.max(maxHash[current], h);
  }

  /** The count/limit header at {@code c} and its entries; null when the header is unusable. */
  private long[] entries(long lblk, long pblk, byte[] b, int c) {
    String what = lblk == 0 ? "the htree root" : "htree node (block " + lblk + ")";
    int limit = DxBlock.limit(b, c);
    int count = DxBlock.count(b, c);
    int want = DxBlock.limitFor(s.bs, c, csum);
    if (limit != want) {
      invalid(pblk, what + " has limit " + limit + ", should be " + want);
      return null;
    }
    if (count > limit || count == 0) {
      invalid(pblk, what + " has count " + count + " (limit " + limit + ")");
      return null;
    }
    if (csum) {
      if (!DxBlock.tailFits(b, c, s.bs)) {
        invalid(pblk, what + " has no room for its checksum tail");
        return null;
      }
      int stored = DxBlock.storedChecksum(b, c);
      int computed = DxBlock.checksum(b, c, seed);
      if (stored != computed) {
        s.out.error(HTREE, d.ino, pblk, String.format("%s checksum does not match: stored 0x%08X, computed 0x%08X",
            what, stored, computed));
      }
    }
    long[] out = new long[count];
    long prev = 0;
    for (int i = 0; i < count; i++) {
      long hash = Integer.toUnsignedLong(DxBlock.hash(b, c, i)) & ~1L;
      long block = DxBlock.block(b, c, i);
      if (hash < prev) {
        s.out.error(HTREE, d.ino, pblk, what + " has hashes out of order at entry " + i + " (0x"
            + Long.toHexString(hash) + " after 0x" + Long.toHexString(prev) + ")");
      }
      prev = Math.max(prev, hash);
      if (position(block) < 0 || block == 0) {
        s.out.error(HTREE, d.ino, pblk, what + " entry " + i + " points to block " + block + ", which is "
            + (block == 0 ? "the root" : "not a block of the directory"));
        block = -1;
      }
      out[i] = hash << 32 | (block & 0xFFFFFFFFL);
    }
    return out;
  }

  /** References, depths and hash ranges, walking down from the root with an explicit stack. */
  void finish() {
    if (!valid || !index.containsKey(0)) {
      return;
    }
    int n = kind.length;
    int[] refs = new int[n];
    int[] stack = new int[8]; // positions of index blocks still to expand; each is pushed at most once
    int[] depthOf = new int[8];
    int top = 0;
    stack[top] = 0;
    depthOf[top++] = 0;
    while (top > 0) {
      top--;
      int p = stack[top];
      int depth = depthOf[top];
      long[] e = index.get(p);
      if (e == null) {
        continue;
      }
      for (int i = 0; i < e.length; i++) {
        long block = e[i] & 0xFFFFFFFFL;
        if (block == 0xFFFFFFFFL) {
          continue;
        }
        int c = position(block);
        long lo = e[i] >>> 32;
        long hi = i + 1 < e.length ? e[i + 1] >>> 32 : HASH_MAX;
        if (++refs[c] > 1) {
          s.out.error(HTREE, d.ino, d.pblk[c], "block " + block + " is referenced more than once by the index");
          continue;
        }
        int childDepth = depth + 1;
        if (kind[c] == NODE) {
          if (childDepth > levels) {
            s.out.error(HTREE, d.ino, d.pblk[c], "interior node " + block + " is at depth " + childDepth
                + ", below the " + levels + " index level(s) the root declares");
            continue;
          }
          if (top == stack.length) {
            stack = Arrays.copyOf(stack, top * 2);
            depthOf = Arrays.copyOf(depthOf, top * 2);
          }
          stack[top] = c;
          depthOf[top++] = childDepth;
        } else {
          if (childDepth != levels + 1) {
            s.out.error(HTREE, d.ino, d.pblk[c], "leaf block " + block + " is at depth " + childDepth + ", should be "
                + (levels + 1));
          }
          if (maxHash[c] >= 0 && (minHash[c] < lo || maxHash[c] > hi)) {
            s.out.error(HTREE, d.ino, d.pblk[c], String.format(
                "leaf block %d holds hashes 0x%08X…0x%08X outside its index range 0x%08X…0x%08X", block, minHash[c],
                maxHash[c], lo, hi));
          }
        }
      }
    }
    for (int p = 1; p < n; p++) {
      if (refs[p] == 0) {
        s.out.error(HTREE, d.ino, d.pblk[p], "block " + d.lblk[p] + " is not referenced by the index");
      }
    }
  }
}
