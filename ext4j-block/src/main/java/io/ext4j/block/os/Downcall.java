package io.ext4j.block.os;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.util.Locale;

/**
 * One libc function bound as a downcall handle, or the reason it could not be: not Linux, a missing
 * symbol, or native access denied ({@code --illegal-native-access=deny}). Linking happens when it
 * is created and is the package's one restricted linker call; where native access is not enabled
 * the JDK warns once, at the first link, and links anyway (its default).
 *
 * <p>A function bound {@linkplain #capturingErrno capturing errno} takes a call-state segment
 * ({@link #CALL_STATE}) as its first argument; the downcall itself stores errno there, so no other
 * call in the thread (the JVM's own included) can overwrite it before {@link #errno} reads it.
 *
 * <p>A record because the JIT trusts a record's final fields as constants: a downcall through
 * {@code Libc}'s static final instances inlines as one through a static final handle would.
 *
 * @param name the C function's name
 * @param bound the downcall handle; null when linking failed
 * @param failure why {@code bound} is null; null when it is not
 */
record Downcall(String name, MethodHandle bound, String failure) {
  static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
  private static final VarHandle ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
  private static final String OS = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);

  /** Links {@code name}, or records why it cannot be linked. */
  private static Downcall bind(String name, FunctionDescriptor descriptor, Linker.Option... options) {
    if (!OS.startsWith("linux")) {
      return new Downcall(name, null, "not Linux (" + OS + ")");
    }
    try {
      return new Downcall(name, link(name, descriptor, options), null);
    } catch (RuntimeException | LinkageError e) { // a missing symbol, or native access denied
      return new Downcall(name, null, "cannot link " + name + "(): " + e);
    }
  }

  /** A function whose errno is captured: its handle takes a {@link #CALL_STATE} segment first. */
  static Downcall capturingErrno(String name, FunctionDescriptor descriptor, Linker.Option... more) {
    Linker.Option[] options = new Linker.Option[more.length + 1];
    options[0] = Linker.Option.captureCallState("errno");
    System.arraycopy(more, 0, options, 1, more.length);
    return bind(name, descriptor, options);
  }

  /** A function that cannot fail, or whose failure is told by its result alone. */
  static Downcall plain(String name, FunctionDescriptor descriptor) {
    return bind(name, descriptor);
  }

  @SuppressWarnings("restricted") // the package's one linker call; see the class doc for native access
  private static MethodHandle link(String name, FunctionDescriptor descriptor, Linker.Option[] options) {
    Linker linker = Linker.nativeLinker();
    return linker.downcallHandle(linker.defaultLookup().findOrThrow(name), descriptor, options);
  }

  /** The bound handle; an {@link UnsatisfiedLinkError} saying why when the function is not bound. */
  MethodHandle handle() {
    if (bound == null) {
      throw new UnsatisfiedLinkError("libc " + name + "() is not available: " + failure);
    }
    return bound;
  }

  /** The errno a capturing downcall stored in {@code state}. */
  static int errno(MemorySegment state) {
    return (int) ERRNO.get(state, 0L);
  }
}
