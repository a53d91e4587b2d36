package io.ext4j.fs.format;

import io.ext4j.block.Crc32c;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * One node of an extent tree, decoded: the root (the 60 bytes of i_block) or a tree block. Pure codec.
 *
 * <h2>On-disk grammar (little-endian)</h2>
 * <pre>
 * node    := header entry{eh_entries} [tail]
 * header  := u16 eh_magic = 0xF30A, u16 eh_entries, u16 eh_max, u16 eh_depth, u32 eh_generation (0)
 * index   := u32 ei_block, u32 ei_leaf_lo, u16 ei_leaf_hi, u16 unused      (eh_depth &gt; 0)
 * leaf    := u32 ee_block, u16 ee_len, u16 ee_start_hi, u32 ee_start_lo     (eh_depth = 0)
 *            ee_len &gt; 32768: unwritten, of length ee_len − 32768
 * tail    := u32 checksum at 12 + 12·eh_max (tree blocks, metadata_csum):
 *            crc32c(ino_seed, node bytes [0, 12 + 12·eh_max))
 * </pre>
 * eh_max is 4 in the root and (block size − 12) / 12 in a tree block; ext4j writes exactly that.
 *
 * @param depth 0 for a leaf
 * @param keys first logical block of each entry
 * @param values the child block (index) or first physical block (leaf) of each entry
 * @param lengths leaf lengths (unwritten flag removed); empty for index nodes
 * @param unwritten leaf unwritten flags
 */
public record ExtentNode(int depth, long[] keys, long[] values, int[] lengths, boolean[] unwritten) {
  public static final int MAGIC = 0xF30A;
  public static final int ROOT_MAX = 4;
  static final int UNWRITTEN_BIAS = 32768;

  public int count() {
    return keys.length;
  }

  /** Entries a tree block of {@code blockSize} bytes holds. */
  public static int blockMax(int blockSize) {
    return (blockSize - 12) / 12;
  }

  /** A decoding failure: what is wrong, without the location (the caller adds it). */
  public static final class Malformed extends Exception {
    private static final long serialVersionUID = 1L;

    Malformed(String what) {
      super(what);
    }
  }

  /**
   * Decodes the node in {@code bytes[off, off + len)}.
   *
   * @param expectedMax 4 for the root, {@link #blockMax} for a tree block
   * @param checksumSeed the inode's checksum seed (ino_seed) to verify a tree block's tail, or null
   * @throws Malformed on a bad magic, counts, depth or checksum, each with its own message
   */
  public static ExtentNode decode(byte[] bytes, int off, int len, int expectedMax, Integer checksumSeed) throws Malformed {
    ByteBuffer b = ByteBuffer.wrap(bytes, off, len).slice().order(ByteOrder.LITTLE_ENDIAN);
    int magic = Short.toUnsignedInt(b.getShort(0));
    if (magic != MAGIC) {
      throw new Malformed(String.format("bad extent header magic 0x%04X (expected 0x%04X)", magic, MAGIC));
    }
    int entries = Short.toUnsignedInt(b.getShort(2));
    int max = Short.toUnsignedInt(b.getShort(4));
    int depth = Short.toUnsignedInt(b.getShort(6));
    if (max == 0 || max > expectedMax || entries > max) {
      throw new Malformed("extent header counts " + entries + " entries of at most " + max + " (a node here holds " + expectedMax + ")");
    }
    if (depth > 5) {
      throw new Malformed("extent tree depth " + depth + " exceeds 5");
    }
    if (checksumSeed != null) {
      int tail = 12 + 12 * max;
      if (tail + 4 > len) {
        throw new Malformed("no room for the extent block checksum after " + max + " entries");
      }
      int stored = b.getInt(tail);
      int computed = Crc32c.update(checksumSeed, bytes, off, tail);
      if (stored != computed) {
        throw new Malformed(String.format("extent block checksum mismatch: stored 0x%08X, computed 0x%08X", stored, computed));
      }
    }
    long[] keys = new long[entries];
    long[] values = new long[entries];
    int[] lengths = depth == 0 ? new int[entries] : new int[0];
    boolean[] unwritten = depth == 0 ? new boolean[entries] : new boolean[0];
    for (int i = 0; i < entries; i++) {
      int e = 12 + 12 * i;
      keys[i] = Integer.toUnsignedLong(b.getInt(e));
      if (i > 0 && keys[i] <= keys[i - 1]) {
        throw new Malformed("extent entries out of order: entry " + i + " starts at " + keys[i] + " after " + keys[i - 1]);
      }
      if (depth > 0) {
        values[i] = Integer.toUnsignedLong(b.getInt(e + 4)) | (long) Short.toUnsignedInt(b.getShort(e + 8)) << 32;
      } else {
        int raw = Short.toUnsignedInt(b.getShort(e + 4));
        boolean u = raw > UNWRITTEN_BIAS;
        int n = u ? raw - UNWRITTEN_BIAS : raw;
        if (n == 0) {
          throw new Malformed("extent " + i + " has length 0");
        }
        lengths[i] = n;
        unwritten[i] = u;
        values[i] = (long) Short.toUnsignedInt(b.getShort(e + 6)) << 32 | Integer.toUnsignedLong(b.getInt(e + 8));
        if (i > 0 && keys[i - 1] + lengths[i - 1] > keys[i]) {
          throw new Malformed("extent " + i + " at " + keys[i] + " overlaps the previous one ending at " + (keys[i - 1] + lengths[i - 1]));
        }
      }
    }
    return new ExtentNode(depth, keys, values, lengths, unwritten);
  }

  /** A node's eh_max as stored, without any check. */
  public static int headerMax(byte[] bytes, int off) {
    return Short.toUnsignedInt(ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getShort(off + 4));
  }

  /**
   * Whether a tree block's tail checksum (at {@code 12 + 12·eh_max}) is crc32c({@code inodeSeed}, the
   * node bytes before it); false when the tail does not fit in {@code len} bytes.
   */
  public static boolean checksumMatches(byte[] bytes, int off, int len, int inodeSeed) {
    int tail = 12 + 12 * headerMax(bytes, off);
    if (tail + 4 > len) {
      return false;
    }
    int stored = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getInt(off + tail);
    return stored == Crc32c.update(inodeSeed, bytes, off, tail);
  }

  /**
   * Writes the node into {@code bytes[off, off + len)}: header with {@code max}, the entries, zeros
   * up to the tail, and the tail checksum when {@code checksumSeed} is non-null (tree blocks).
   */
  public void encode(byte[] bytes, int off, int len, int max, Integer checksumSeed) {
    if (count() > max) {
      throw new IllegalArgumentException(count() + " entries do not fit a node of " + max);
    }
    ByteBuffer b = ByteBuffer.wrap(bytes, off, len).slice().order(ByteOrder.LITTLE_ENDIAN);
    for (int i = 0; i < len; i++) {
      b.put(i, (byte) 0);
    }
    b.putShort(0, (short) MAGIC);
    b.putShort(2, (short) count());
    b.putShort(4, (short) max);
    b.putShort(6, (short) depth);
    b.putInt(8, 0);
    for (int i = 0; i < count(); i++) {
      int e = 12 + 12 * i;
      b.putInt(e, (int) keys[i]);
      if (depth > 0) {
        b.putInt(e + 4, (int) values[i]);
        b.putShort(e + 8, (short) (values[i] >>> 32));
      } else {
        b.putShort(e + 4, (short) (unwritten[i] ? lengths[i] + UNWRITTEN_BIAS : lengths[i]));
        b.putShort(e + 6, (short) (values[i] >>> 32));
        b.putInt(e + 8, (int) values[i]);
      }
    }
    if (checksumSeed != null) {
      int tail = 12 + 12 * max;
      b.putInt(tail, Crc32c.update(checksumSeed, bytes, off, tail));
    }
  }

  /** An empty leaf (a file with no blocks). */
  public static ExtentNode emptyLeaf() {
    return new ExtentNode(0, new long[0], new long[0], new int[0], new boolean[0]);
  }

  /** A leaf of the given extents (each {lblk, pblk, len, unwritten ? 1 : 0}). */
  public static ExtentNode leaf(List<long[]> extents) {
    int n = extents.size();
    long[] k = new long[n];
    long[] v = new long[n];
    int[] l = new int[n];
    boolean[] u = new boolean[n];
    for (int i = 0; i < n; i++) {
      long[] e = extents.get(i);
      k[i] = e[0];
      v[i] = e[1];
      l[i] = (int) e[2];
      u[i] = e[3] != 0;
    }
    return new ExtentNode(0, k, v, l, u);
  }

  /** An index node of depth {@code depth} over children {@code {firstKey, block}}. */
  public static ExtentNode index(int depth, List<long[]> children) {
    int n = children.size();
    long[] k = new long[n];
    long[] v = new long[n];
    for (int i = 0; i < n; i++) {
      k[i] = children.get(i)[0];
      v[i] = children.get(i)[1];
    }
    return new ExtentNode(depth, k, v, new int[0], new boolean[0]);
  }

  /** The leaf's entries as {lblk, pblk, len, unwritten} rows. */
  public List<long[]> rows() {
    List<long[]> out = new ArrayList<>(count());
    for (int i = 0; i < count(); i++) {
      out.add(depth == 0 ? new long[] {keys[i], values[i], lengths[i], unwritten[i] ? 1 : 0} : new long[] {keys[i], values[i]});
    }
    return out;
  }
}
