package io.ext4j.bench.suite;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** A slice's channel chores: positional writes of a whole buffer, closing its channels, removing its files. */
final class Channels {
  private Channels() {}

  /** Writes all of {@code b}'s remaining bytes at {@code at} (a positional write may write fewer). */
  static void writeFully(FileChannel ch, ByteBuffer b, long at) throws IOException {
    while (b.hasRemaining()) {
      ch.write(b, at + b.position());
    }
  }

  private interface Step<T> {
    void apply(T item) throws IOException;
  }

  /** Closes every channel; a failure to close is thrown, or added to {@code failure} when the slice already failed. */
  static void closeAll(List<FileChannel> channels, Throwable failure) throws IOException {
    every(channels, FileChannel::close, failure);
  }

  /** Removes every file; a failure is thrown, or added to {@code failure} when the slice already failed. */
  static void deleteAll(List<Path> files, Throwable failure) throws IOException {
    every(files, Files::deleteIfExists, failure);
  }

  /** {@code step} on every item, each tried whatever the others did; the first failure thrown, or all added to {@code failure}. */
  private static <T> void every(List<T> items, Step<T> step, Throwable failure) throws IOException {
    IOException first = null;
    for (T item : items) {
      try {
        step.apply(item);
      } catch (IOException e) {
        if (failure != null) {
          failure.addSuppressed(e);
        } else if (first == null) {
          first = e;
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }
}
