package io.ext4j.fs.file;

/**
 * A run of a file's logical blocks with one state: a hole, written blocks, or unwritten (allocated,
 * reading as zeros) blocks, with the physical block of the first for the latter two.
 */
public record Segment(long lblk, long len, long pblk, State state) {
  public enum State { HOLE, WRITTEN, UNWRITTEN }

  public long end() {
    return lblk + len;
  }

  public boolean mapped() {
    return state != State.HOLE;
  }

  public long physical(long l) {
    return pblk + (l - lblk);
  }
}
