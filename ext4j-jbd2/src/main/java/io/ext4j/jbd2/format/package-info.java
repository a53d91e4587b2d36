/**
 * Pure codecs for jbd2's on-disk blocks — superblock, descriptor (tags), revoke, commit — and the
 * seeded crc32c they (and ext4) use. No I/O, no state; each codec's doc gives its grammar.
 */
package io.ext4j.jbd2.format;
