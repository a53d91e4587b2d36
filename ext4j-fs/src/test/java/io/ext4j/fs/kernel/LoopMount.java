package io.ext4j.fs.kernel;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The kernel as an oracle: an image loop-mounted ({@code mount -o loop}, as root) on a mount point
 * of its own under {@code target/} until {@link #close()} unmounts it. Tests hold it in
 * try-with-resources, so nothing stays mounted whatever fails; a mount that fails fails the test.
 */
final class LoopMount implements AutoCloseable {
  final Path dir;
  private boolean mounted; // test thread only

  private LoopMount(Path dir) {
    this.dir = dir;
  }

  /** Mounts {@code image} read-only ({@code ro,noatime}: nothing is written, no atime moves). */
  static LoopMount readOnly(Path image) throws IOException, InterruptedException {
    return mount(image, "loop,ro,noatime");
  }

  /** Mounts {@code image} read-write. */
  static LoopMount readWrite(Path image) throws IOException, InterruptedException {
    return mount(image, "loop");
  }

  /** Mounts {@code image} read-write with extra mount options ({@code "commit=600"}). */
  static LoopMount readWrite(Path image, String options) throws IOException, InterruptedException {
    return mount(image, "loop," + options);
  }

  private static LoopMount mount(Path image, String options) throws IOException, InterruptedException {
    Path dir = Files.createTempDirectory(Files.createDirectories(KernelImages.ROOT), "mnt-").toAbsolutePath();
    LoopMount m = new LoopMount(dir);
    KernelImages.runOk("mount", "-t", "ext4", "-o", options, image.toAbsolutePath().toString(), dir.toString());
    m.mounted = true;
    return m;
  }

  /** {@code mount -o remount,ro}: later reads move no atime, and a manifest of the tree is stable. */
  void remountReadOnly() throws IOException, InterruptedException {
    KernelImages.runOk("mount", "-o", "remount,ro", dir.toString());
  }

  @Override
  public void close() throws IOException, InterruptedException {
    if (!mounted) {
      return;
    }
    KernelImages.Result r = KernelImages.run("umount", dir.toString());
    for (int i = 0; r.exit() != 0 && i < 20; i++) {
      Thread.sleep(250); // a reader of ours may still be closing its descriptor
      r = KernelImages.run("umount", dir.toString());
    }
    if (r.exit() != 0) {
      throw new AssertionError("could not unmount " + dir + ": " + r.describe());
    }
    mounted = false;
    Files.deleteIfExists(dir);
  }
}
