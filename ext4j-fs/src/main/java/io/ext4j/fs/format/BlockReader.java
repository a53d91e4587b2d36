package io.ext4j.fs.format;

import java.io.IOException;

/** Reads one whole filesystem block; the codecs use it to follow pointers without doing I/O themselves. */
@FunctionalInterface
public interface BlockReader {
  /** The {@code blockSize} bytes of filesystem block {@code block}. */
  byte[] read(long block) throws IOException;
}
