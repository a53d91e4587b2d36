package io.ext4j.fuse;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * One request as read from {@code /dev/fuse}: the fuse_in_header (len u32, opcode u32, unique u64,
 * nodeid u64, uid u32, gid u32, pid u32, padding u32 — 40 bytes) and the opcode's argument struct
 * after it, read through {@link #u32}/{@link #u64} at offsets into the arguments and
 * {@link #name} for the NUL-terminated names that follow a struct. A view over the bytes; it
 * checks the header's length against what was read and every access against the length, so a
 * short or garbled request fails with {@link IllegalArgumentException} instead of reading past it.
 */
final class FuseRequest {
  private final ByteBuffer b; // little-endian view of [0, len); its position and limit are not used
  final int len;
  final int opcode;
  final long unique;
  final long nodeid;
  final int uid;
  final int gid;
  final int pid;
  /**
   * A node whose attributes the kernel must forget before the reply is sent (0: none): set by the
   * handler when it changed more than the kernel expects (a setuid bit it cleared); read by the
   * session thread that owns this request.
   */
  long invalidateBeforeReply;
  /**
   * With {@link #invalidateBeforeReply}: the byte range whose cached pages the kernel must drop too
   * ({@link #invalidatePagesLength} bytes from here; -1, the default: attributes only).
   */
  long invalidatePagesFrom = -1;
  long invalidatePagesLength;

  private FuseRequest(ByteBuffer b, int len) {
    this.b = b;
    this.len = len;
    this.opcode = b.getInt(4);
    this.unique = b.getLong(8);
    this.nodeid = b.getLong(16);
    this.uid = b.getInt(24);
    this.gid = b.getInt(28);
    this.pid = b.getInt(32);
  }

  /** Decodes the {@code read} bytes at the start of {@code buf} (which it keeps as its view). */
  static FuseRequest decode(ByteBuffer buf, int read) {
    if (read < FuseProto.IN_HEADER) {
      throw new IllegalArgumentException("FUSE request of " + read + " bytes is shorter than its header");
    }
    ByteBuffer b = buf.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    int len = b.getInt(0);
    if (len != read) {
      throw new IllegalArgumentException("FUSE request says " + len + " bytes, " + read + " were read");
    }
    return new FuseRequest(b, len);
  }

  /** Bytes of arguments after the header. */
  int argLength() {
    return len - FuseProto.IN_HEADER;
  }

  private int at(int off, int size) {
    if (off < 0 || off + size > argLength()) {
      throw new IllegalArgumentException(FuseProto.name(opcode) + " request too short: " + size + " bytes at " + off
          + " of " + argLength());
    }
    return FuseProto.IN_HEADER + off;
  }

  int u32(int off) {
    return b.getInt(at(off, 4));
  }

  long u64(int off) {
    return b.getLong(at(off, 8));
  }

  /** The NUL-terminated name starting at argument offset {@code off} (without its NUL). */
  byte[] name(int off) {
    int start = at(off, 0);
    int end = FuseProto.IN_HEADER + argLength();
    for (int i = start; i < end; i++) {
      if (b.get(i) == 0) {
        byte[] out = new byte[i - start];
        b.get(start, out);
        return out;
      }
    }
    throw new IllegalArgumentException(FuseProto.name(opcode) + " request: name at " + off + " not NUL-terminated");
  }

  /** The argument offset just after the name at {@code off}. */
  int after(int off) {
    return off + name(off).length + 1;
  }

  /** {@code n} bytes at argument offset {@code off}, as a read-only buffer over the request (no copy). */
  ByteBuffer bytes(int off, int n) {
    int start = at(off, n);
    return b.slice(start, n).asReadOnlyBuffer();
  }

  byte[] copy(int off, int n) {
    byte[] out = new byte[n];
    b.get(at(off, n), out);
    return out;
  }

  @Override
  public String toString() {
    return FuseProto.name(opcode) + " unique=" + unique + " node=" + nodeid + " len=" + len
        + (argLength() > 0 && argLength() <= 16 ? " args=" + Arrays.toString(copy(0, argLength())) : "");
  }
}
