package io.ext4j.bench.suite;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Closing a slice's channels and removing its files. */
final class Channels {
  private Channels() {}

  /** Closes every channel; a failure to close is thrown, or added to {@code failure} when the slice already failed. */
  static void closeAll(List<FileChannel> channels, Throwable failure) throws IOException {
    IOException first = null;
    for (FileChannel ch : channels) {
      try {
        ch.close();
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

  /** Removes every file; a failure is thrown, or added to {@code failure} when the slice already failed. */
  static void deleteAll(List<Path> files, Throwable failure) throws IOException {
    IOException first = null;
    for (Path f : files) {
      try {
        Files.deleteIfExists(f);
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
