/**
 * Pure codecs for ext4's on-disk structures: the superblock, group descriptors (crc32c or the
 * gdt_csum {@link io.ext4j.fs.format.Crc16}), inodes, the two block-map forms (extent tree, indirect
 * blocks), the directory name hashes ({@link io.ext4j.fs.format.DirHash}), extended attributes in
 * the inode and in a block ({@link io.ext4j.fs.format.XattrCodec}) with POSIX ACL values
 * ({@link io.ext4j.fs.format.PosixAcl}), and orphan-file blocks ({@link io.ext4j.fs.format.OrphanBlock}).
 * Each class's doc gives its on-disk grammar; decoding checks magic, checksum and bounds separately,
 * each with its own message naming device and offset. No I/O here beyond following block pointers
 * through a caller's {@link io.ext4j.fs.format.BlockReader}. Not here: directory entries and htree
 * blocks, bitmaps, and the policies that decide what to write (which xattrs go in the inode, block
 * sharing, orphan slot choice) — those belong to the engine packages.
 */
package io.ext4j.fs.format;
