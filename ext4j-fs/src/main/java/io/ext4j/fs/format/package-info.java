/**
 * Pure codecs for ext4's on-disk structures: the superblock, group descriptors, inodes, and the two
 * block-map forms (extent tree, indirect blocks). Each class's doc gives its on-disk grammar; decoding
 * checks magic, checksum and bounds separately, each with its own message naming device and offset.
 * No I/O here beyond following block pointers through a caller's {@link io.ext4j.fs.format.BlockReader}.
 * Not here: directory entries, bitmaps, xattrs, and anything that writes other than the superblock's
 * needs_recovery flag.
 */
package io.ext4j.fs.format;
