package io.ext4j.jbd2;

import java.io.IOException;

/**
 * Data writes that must be on the device before a transaction's commit block (ext4 data=ordered).
 * The commit thread calls {@link #writeOut()} after the transaction stops taking handles and
 * before it writes the commit block; the commit's device flush then covers those writes.
 */
@FunctionalInterface
public interface OrderedData {
  /**
   * Issues (and completes) the writes of the data this transaction's metadata points at. Returns
   * when they are written to the device, not necessarily flushed.
   *
   * @throws IOException aborts the journal: the transaction is not committed
   */
  void writeOut() throws IOException;
}
