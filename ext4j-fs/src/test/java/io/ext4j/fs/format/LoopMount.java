package io.ext4j.fs.format;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The kernel as an oracle: an image loop-mounted read-write ({@code mount -o loop}, as root) until
 * {@link #close()} unmounts it, and setxattr/getxattr through libc (the JDK's attribute views
 * reach only {@code user.}). Tests use it in try-with-resources so the image is always unmounted;
 * a mount that fails fails the test.
 */
final class LoopMount implements AutoCloseable {
  private static final Linker LINKER = Linker.nativeLinker();
  private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
  private static final VarHandle ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
  private static final MethodHandle SETXATTR = downcall("setxattr",
      FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT));
  private static final MethodHandle GETXATTR = downcall("getxattr",
      FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG));

  final Path dir;
  private boolean frozen; // test thread only

  private LoopMount(Path dir) {
    this.dir = dir;
  }

  static LoopMount mount(Path image) throws IOException, InterruptedException {
    Path dir = Files.createDirectories(image.resolveSibling(image.getFileName() + ".mnt")).toAbsolutePath();
    Tools.runOk("mount", "-o", "loop", image.toString(), dir.toString());
    return new LoopMount(dir);
  }

  /** {@code fsfreeze -f}: the journal is flushed and checkpointed, the image consistent until {@link #thaw()}. */
  void freeze() throws IOException, InterruptedException {
    Tools.runOk("fsfreeze", "-f", dir.toString());
    frozen = true;
  }

  void thaw() throws IOException, InterruptedException {
    Tools.runOk("fsfreeze", "-u", dir.toString());
    frozen = false;
  }

  @Override
  public void close() throws IOException, InterruptedException {
    try {
      if (frozen) {
        thaw();
      }
    } finally {
      Tools.runOk("umount", dir.toString());
    }
  }

  /** setxattr(2) of {@code name} on {@code file}, value as given. */
  static void setxattr(Path file, String name, byte[] value) throws IOException {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment state = arena.allocate(CALL_STATE);
      MemorySegment v = arena.allocate(Math.max(value.length, 1));
      MemorySegment.copy(value, 0, v, JAVA_BYTE, 0, value.length);
      int rc = (int) SETXATTR.invokeExact(state, arena.allocateFrom(file.toString()), arena.allocateFrom(name), v,
          (long) value.length, 0);
      if (rc != 0) {
        throw new IOException("setxattr(" + file + ", " + name + ", " + value.length + " bytes): errno " + (int) ERRNO.get(state, 0L));
      }
    } catch (IOException | RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new AssertionError(t);
    }
  }

  /** getxattr(2) of {@code name} on {@code file}. */
  static byte[] getxattr(Path file, String name) throws IOException {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment state = arena.allocate(CALL_STATE);
      MemorySegment v = arena.allocate(65536);
      long n = (long) GETXATTR.invokeExact(state, arena.allocateFrom(file.toString()), arena.allocateFrom(name), v, 65536L);
      if (n < 0) {
        throw new IOException("getxattr(" + file + ", " + name + "): errno " + (int) ERRNO.get(state, 0L));
      }
      return v.asSlice(0, n).toArray(JAVA_BYTE);
    } catch (IOException | RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new AssertionError(t);
    }
  }

  @SuppressWarnings("restricted") // tests run with --enable-native-access=ALL-UNNAMED
  private static MethodHandle downcall(String function, FunctionDescriptor fd) {
    return LINKER.downcallHandle(LINKER.defaultLookup().find(function).orElseThrow(), fd,
        Linker.Option.captureCallState("errno"));
  }
}
