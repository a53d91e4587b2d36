package io.ext4j.tools.populate;

import java.io.IOException;

/**
 * A tree to copy into an image, delivered entry by entry: a directory before what it contains (or
 * implied by it), a hard link after the entry it names. Implementations: {@link HostDirectory},
 * {@link TarArchive}.
 */
public interface TreeSource {
  /** Calls {@code sink} with every entry, in an order where parents come before their children. */
  void entries(Sink sink) throws IOException;

  /** Receives entries. */
  @FunctionalInterface
  interface Sink {
    void accept(TreeEntry e) throws IOException;

    /**
     * The entry at {@code path} could not be read from the source (what is below it is not
     * delivered); returns to go on with the others, throws to end. By default it ends.
     */
    default void failed(java.util.List<byte[]> path, IOException e) throws IOException {
      throw e;
    }
  }

  /** A name for messages (the directory or archive path). */
  String name();
}
