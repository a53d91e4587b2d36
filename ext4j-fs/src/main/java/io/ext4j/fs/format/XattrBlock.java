package io.ext4j.fs.format;

import java.util.List;

/**
 * A decoded xattr block ({@link XattrCodec#decodeBlock}).
 *
 * @param refcount h_refcount: how many inodes share the block
 * @param blocks h_blocks (always 1 once decoded)
 * @param entries the attributes in stored order
 * @param storedHash h_hash as stored (the kernel's fold of the entry hashes; e2fsprogs writes 0)
 * @param storedChecksum h_checksum as stored (0 without metadata_csum)
 */
public record XattrBlock(int refcount, int blocks, List<XattrEntry> entries, int storedHash, int storedChecksum) {
  public XattrBlock {
    entries = List.copyOf(entries);
  }
}
