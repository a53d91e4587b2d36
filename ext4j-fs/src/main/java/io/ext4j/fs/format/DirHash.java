package io.ext4j.fs.format;

/**
 * The directory name hashes of ext4's htree index ({@code dx_root.info.hash_version}). Pure functions.
 *
 * <h2>Versions</h2>
 * <pre>
 * 0 LEGACY   1 HALF_MD4   2 TEA              on disk in dx_root; s_def_hash_version for new dirs
 * 3 LEGACY_UNSIGNED  4 HALF_MD4_UNSIGNED  5 TEA_UNSIGNED
 *            never on disk: the in-memory versions when s_flags has UNSIGNED_HASH (0x2), see
 *            {@link #versionFor}; they read name bytes as unsigned instead of sign-extended
 * </pre>
 *
 * <h2>Result</h2>
 * {@link #hash} returns {@code major << 32 | minor} (both unsigned 32-bit): major is the value stored
 * in dx entries, with bit 0 cleared (bit 0 of a stored index hash is the collision-continuation
 * bit); minor breaks ties for readdir cookies (0 for legacy). The kernel additionally maps a major
 * of 0xFFFFFFFE to 0xFFFFFFFC (its end-of-directory cookie); e2fsprogs does not, and neither does
 * this class — {@link #kernelMajor} does it for callers that want the kernel's value.
 *
 * <h2>Seed</h2>
 * {@code s_hash_seed} as four 32-bit words (the UUID-formatted superblock field read as four
 * little-endian ints). Legacy ignores it; for half-MD4 and TEA an all-zero or null seed means the
 * default initial state 0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476.
 *
 * <h2>Packing</h2>
 * Half-MD4 consumes the name in 32-byte chunks (8 words), TEA in 16-byte chunks (4 words). A chunk
 * of {@code n} words is packed from the bytes left in the name, {@code rem} = bytes from the chunk
 * start to the end of the name: every word starts as {@code pad} = rem's low byte repeated four
 * times; each byte {@code c} shifts in as {@code v = c + (v << 8)} and every fourth byte completes a
 * word; a partial last word is emitted, and the words still missing are {@code pad}.
 */
public final class DirHash {
  public static final int LEGACY = 0;
  public static final int HALF_MD4 = 1;
  public static final int TEA = 2;
  public static final int LEGACY_UNSIGNED = 3;
  public static final int HALF_MD4_UNSIGNED = 4;
  public static final int TEA_UNSIGNED = 5;

  /** The major hash the kernel reserves as its end-of-directory position. */
  static final int EOF_MAJOR = 0xFFFFFFFE;

  private static final int[] DEFAULT_IV = {0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476};
  private static final int K2 = 0x5A827999;
  private static final int K3 = 0x6ED9EBA1;
  private static final int TEA_DELTA = 0x9E3779B9;

  private DirHash() {}

  /**
   * The hash of {@code name[off, off + len)}.
   *
   * @param version one of {@link #LEGACY} … {@link #TEA_UNSIGNED}
   * @param seed s_hash_seed as four words; null or all zero means the default initial state
   * @return {@code (major & 0xFFFFFFFFL) << 32 | (minor & 0xFFFFFFFFL)}, major with bit 0 clear
   * @throws IllegalArgumentException for an unknown version (siphash, 6, needs the casefold key and
   *     is not supported) or a seed that is not four words
   */
  public static long hash(int version, byte[] name, int off, int len, int[] seed) {
    java.util.Objects.checkFromIndexSize(off, len, name.length);
    if (seed != null && seed.length != 4) {
      throw new IllegalArgumentException("hash seed must be 4 words, got " + seed.length);
    }
    int major;
    int minor;
    switch (version) {
      case LEGACY, LEGACY_UNSIGNED -> {
        major = legacy(name, off, len, version == LEGACY);
        minor = 0;
      }
      case HALF_MD4, HALF_MD4_UNSIGNED -> {
        int[] state = initialState(seed);
        int[] words = new int[8];
        for (int p = 0; p < len; p += 32) {
          pack(name, off + p, len - p, words, version == HALF_MD4);
          halfMd4(state, words);
        }
        major = state[1];
        minor = state[2];
      }
      case TEA, TEA_UNSIGNED -> {
        int[] state = initialState(seed);
        int[] words = new int[4];
        for (int p = 0; p < len; p += 16) {
          pack(name, off + p, len - p, words, version == TEA);
          tea(state, words);
        }
        major = state[0];
        minor = state[1];
      }
      default -> throw new IllegalArgumentException("unsupported directory hash version " + version);
    }
    major &= ~1;
    return (major & 0xFFFFFFFFL) << 32 | (minor & 0xFFFFFFFFL);
  }

  /** {@link #hash(int, byte[], int, int, int[])} over all of {@code name}. */
  public static long hash(int version, byte[] name, int[] seed) {
    return hash(version, name, 0, name.length, seed);
  }

  /** The major hash (bit 0 clear) of a {@link #hash} result. */
  public static int major(long h) {
    return (int) (h >>> 32);
  }

  /** The minor hash of a {@link #hash} result. */
  public static int minor(long h) {
    return (int) h;
  }

  /**
   * The major hash as the kernel's {@code ext4fs_dirhash} returns it: 0xFFFFFFFE (the end-of-directory
   * cookie) becomes 0xFFFFFFFC. Not what e2fsck compares index entries against.
   */
  public static int kernelMajor(long h) {
    int major = major(h);
    return major == EOF_MAJOR ? EOF_MAJOR - 2 : major;
  }

  /**
   * The version to compute with: the on-disk version (0–2) plus 3 when the superblock's s_flags
   * has UNSIGNED_HASH; other versions are returned unchanged.
   */
  public static int versionFor(int onDiskVersion, boolean unsignedFlag) {
    return unsignedFlag && onDiskVersion >= LEGACY && onDiskVersion <= TEA ? onDiskVersion + 3 : onDiskVersion;
  }

  /** The four words of an s_hash_seed read from {@code b[off, off + 16)} (little-endian). */
  public static int[] seedWords(byte[] b, int off) {
    int[] seed = new int[4];
    for (int i = 0; i < 4; i++) {
      seed[i] = le32(b, off + 4 * i);
    }
    return seed;
  }

  private static int[] initialState(int[] seed) {
    if (seed != null && (seed[0] | seed[1] | seed[2] | seed[3]) != 0) {
      return seed.clone();
    }
    return DEFAULT_IV.clone();
  }

  /** The legacy (dx_hack) hash: a per-byte mix of two registers; its result is shifted left once. */
  private static int legacy(byte[] name, int off, int len, boolean signed) {
    int h0 = 0x12A3FE2D;
    int h1 = 0x37ABE8F9;
    for (int i = off; i < off + len; i++) {
      int c = signed ? name[i] : name[i] & 0xFF;
      int h = h1 + (h0 ^ (c * 7152373));
      if ((h & 0x80000000) != 0) {
        h -= 0x7FFFFFFF;
      }
      h1 = h0;
      h0 = h;
    }
    return h0 << 1;
  }

  /** Fills {@code words} from the {@code rem} bytes left at {@code name[at]} (see the class doc). */
  static void pack(byte[] name, int at, int rem, int[] words, boolean signed) {
    int pad = rem & 0xFF;
    pad |= pad << 8;
    pad |= pad << 16;
    int n = words.length;
    int take = Math.min(rem, 4 * n);
    int v = pad;
    int emitted = 0;
    for (int i = 0; i < take; i++) {
      int c = signed ? name[at + i] : name[at + i] & 0xFF;
      v = c + (v << 8);
      if (i % 4 == 3) {
        words[emitted++] = v;
        v = pad;
      }
    }
    if (emitted < n) {
      words[emitted++] = v;
    }
    while (emitted < n) {
      words[emitted++] = pad;
    }
  }

  /** Three rounds of eight MD4 steps over {@code in[0..8)}, added into {@code state}. */
  private static void halfMd4(int[] state, int[] in) {
    int a = state[0];
    int b = state[1];
    int c = state[2];
    int d = state[3];
    // Round 1: F, words 0..7, shifts 3 7 11 19; registers a, d, c, b in turn.
    a = Integer.rotateLeft(a + f(b, c, d) + in[0], 3);
    d = Integer.rotateLeft(d + f(a, b, c) + in[1], 7);
    c = Integer.rotateLeft(c + f(d, a, b) + in[2], 11);
    b = Integer.rotateLeft(b + f(c, d, a) + in[3], 19);
    a = Integer.rotateLeft(a + f(b, c, d) + in[4], 3);
    d = Integer.rotateLeft(d + f(a, b, c) + in[5], 7);
    c = Integer.rotateLeft(c + f(d, a, b) + in[6], 11);
    b = Integer.rotateLeft(b + f(c, d, a) + in[7], 19);
    // Round 2: G, words 1 3 5 7 0 2 4 6, shifts 3 5 9 13.
    a = Integer.rotateLeft(a + g(b, c, d) + in[1] + K2, 3);
    d = Integer.rotateLeft(d + g(a, b, c) + in[3] + K2, 5);
    c = Integer.rotateLeft(c + g(d, a, b) + in[5] + K2, 9);
    b = Integer.rotateLeft(b + g(c, d, a) + in[7] + K2, 13);
    a = Integer.rotateLeft(a + g(b, c, d) + in[0] + K2, 3);
    d = Integer.rotateLeft(d + g(a, b, c) + in[2] + K2, 5);
    c = Integer.rotateLeft(c + g(d, a, b) + in[4] + K2, 9);
    b = Integer.rotateLeft(b + g(c, d, a) + in[6] + K2, 13);
    // Round 3: H, words 3 7 2 6 1 5 0 4, shifts 3 9 11 15.
    a = Integer.rotateLeft(a + h(b, c, d) + in[3] + K3, 3);
    d = Integer.rotateLeft(d + h(a, b, c) + in[7] + K3, 9);
    c = Integer.rotateLeft(c + h(d, a, b) + in[2] + K3, 11);
    b = Integer.rotateLeft(b + h(c, d, a) + in[6] + K3, 15);
    a = Integer.rotateLeft(a + h(b, c, d) + in[1] + K3, 3);
    d = Integer.rotateLeft(d + h(a, b, c) + in[5] + K3, 9);
    c = Integer.rotateLeft(c + h(d, a, b) + in[0] + K3, 11);
    b = Integer.rotateLeft(b + h(c, d, a) + in[4] + K3, 15);
    state[0] += a;
    state[1] += b;
    state[2] += c;
    state[3] += d;
  }

  private static int f(int x, int y, int z) {
    return z ^ (x & (y ^ z));
  }

  private static int g(int x, int y, int z) {
    return (x & y) + ((x ^ y) & z);
  }

  private static int h(int x, int y, int z) {
    return x ^ y ^ z;
  }

  /** Sixteen TEA rounds keyed by {@code in[0..4)} over {@code state[0..2)}, added into it. */
  private static void tea(int[] state, int[] in) {
    int x0 = state[0];
    int x1 = state[1];
    int sum = 0;
    for (int round = 0; round < 16; round++) {
      sum += TEA_DELTA;
      x0 += ((x1 << 4) + in[0]) ^ (x1 + sum) ^ ((x1 >>> 5) + in[1]);
      x1 += ((x0 << 4) + in[2]) ^ (x0 + sum) ^ ((x0 >>> 5) + in[3]);
    }
    state[0] += x0;
    state[1] += x1;
  }

  private static int le32(byte[] b, int at) {
    return (b[at] & 0xFF) | ((b[at + 1] & 0xFF) << 8) | ((b[at + 2] & 0xFF) << 16) | ((b[at + 3] & 0xFF) << 24);
  }
}
