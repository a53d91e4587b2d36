package io.ext4j.fs.format;

/**
 * Extended attributes do not fit where they were to be encoded (the in-inode area or one block): the
 * engine's cue to move some to a block, or to fail with ENOSPC / E2BIG.
 */
public class XattrSpaceException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;
  private final int needed;
  private final int available;

  /**
   * @param where the area, e.g. "in-inode xattr area" or "xattr block"
   * @param needed the bytes the entries need
   * @param available the bytes the area has
   */
  public XattrSpaceException(String where, int needed, int available) {
    super("xattrs need " + needed + " bytes but the " + where + " has " + available);
    this.needed = needed;
    this.available = available;
  }

  /** The bytes the entries need, header and terminator included. */
  public int needed() {
    return needed;
  }

  /** The bytes the area has. */
  public int available() {
    return available;
  }
}
