package io.ext4j.fs.format;

/** Little-endian reads and writes of byte arrays, for the codecs of this package. */
final class LittleEndian {
  private LittleEndian() {}

  static int le16(byte[] b, int at) {
    return b[at] & 0xFF | (b[at + 1] & 0xFF) << 8;
  }

  static int le32(byte[] b, int at) {
    return b[at] & 0xFF | (b[at + 1] & 0xFF) << 8 | (b[at + 2] & 0xFF) << 16 | (b[at + 3] & 0xFF) << 24;
  }

  static void putLe16(byte[] b, int at, int v) {
    b[at] = (byte) v;
    b[at + 1] = (byte) (v >>> 8);
  }

  static void putLe32(byte[] b, int at, int v) {
    b[at] = (byte) v;
    b[at + 1] = (byte) (v >>> 8);
    b[at + 2] = (byte) (v >>> 16);
    b[at + 3] = (byte) (v >>> 24);
  }
}
