package io.ext4j.fuse;

import static org.assertj.core.api.Assertions.assertThat;

import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fs.Ext4Options;
import io.ext4j.testkit.E2fsprogs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A real image made by mkfs.ext4, opened by the engine and mounted through {@link FuseMount} on a
 * directory; {@link #close} unmounts, closes the engine and asserts {@code e2fsck -fn} finds the
 * image clean.
 */
final class MountedImage implements AutoCloseable {
  final Path image;
  final Path dir;
  final Ext4FileSystem fs;
  final FuseMount mount;
  private boolean closed;

  private MountedImage(Path image, Path dir, Ext4FileSystem fs, FuseMount mount) {
    this.image = image;
    this.dir = dir;
    this.fs = fs;
    this.mount = mount;
  }

  /** mkfs.ext4 of an image of {@code bytes} with {@code mkfsArgs}, mounted with {@code options} on {@code tmp}/mnt. */
  static MountedImage create(Path tmp, long bytes, FuseOptions options, String... mkfsArgs) throws IOException {
    return open(mkfs(tmp.resolve("fs.img"), bytes, mkfsArgs), tmp.resolve("mnt"), options);
  }

  /** An image file of {@code bytes} made by mkfs.ext4 with {@code mkfsArgs}; returns it. */
  static Path mkfs(Path img, long bytes, String... mkfsArgs) throws IOException {
    try (var f = new java.io.RandomAccessFile(img.toFile(), "rw")) {
      f.setLength(bytes);
    }
    E2fsprogs.mkfs(img, mkfsArgs);
    return img;
  }

  static MountedImage open(Path img, Path dir, FuseOptions options) throws IOException {
    Files.createDirectories(dir);
    Ext4FileSystem fs = Ext4FileSystem.open(img, Ext4Options.builder().readOnly(options.readOnly()).build());
    try {
      return new MountedImage(img, dir, fs, FuseMount.mount(fs, img.toString(), dir, options));
    } catch (IOException | RuntimeException e) {
      fs.close();
      throw e;
    }
  }

  /** Unmounts and closes the engine, leaving the image for a check. */
  void unmountAndClose() throws IOException {
    if (closed) {
      return;
    }
    closed = true;
    try (fs) {
      mount.close();
    }
  }

  @Override
  public void close() throws IOException {
    boolean wasOpen = !closed;
    unmountAndClose();
    if (wasOpen) {
      E2fsprogs.Result r = E2fsprogs.e2fsckForceNoChange(image);
      assertThat(r.exitCode()).as("e2fsck -fn after unmount:\n%s", r.output()).isZero();
    }
  }
}
