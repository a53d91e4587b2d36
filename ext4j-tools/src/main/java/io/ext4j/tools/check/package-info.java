/**
 * ext4j's own filesystem checker ({@link io.ext4j.tools.check.Checker}): what {@code ext4j fsck} runs
 * and what the crash tests run on every crash state. In-process, read-only, one read per block.
 *
 * <h2>Checked</h2>
 * Superblock (magic, checksum, geometry, inode count, feature pairs, times, extra-isize hints);
 * every group descriptor (checksum, UNINIT flags, itable_unused, locations); block ownership (every
 * block claimed once: superblock backups, GDT and reserved GDT, bitmaps, inode tables, journal,
 * orphan file, files, tree and indirect blocks, xattr blocks; shared blocks named with their
 * owners); every inode below the watermarks (checksum, dtime, i_extra_isize, timestamps, i_faddr,
 * mode, flags per type, sizes, i_blocks recounted, fast and slow symlinks, device/fifo/socket rules);
 * extent trees (headers, eh_max, depth, keys, index starts, bounds, checksums, unwritten extents in
 * directories, the "could be narrower/shorter" note) and block maps; xattrs in the inode and in
 * blocks (bounds, hashes, checksum, refcount); directories (checksum tails, entries, "." and "..",
 * names, inode references, file types, duplicates within a block, a second link to a directory);
 * htree indexes (root info, limits, counts, hash order, references, depth, leaf hash ranges,
 * checksums); the directory tree (connectivity, loops, ".."); link counts and unattached inodes; the
 * resize inode, the journal inode and superblock, the orphan file and orphan_present; bitmaps
 * (checksums, padding, every bit) and group and total counts.
 *
 * <h2>Not checked, or not as e2fsck does</h2>
 * Features this checker refuses with exit code 8: bigalloc, inline_data, ea_inode, encrypt,
 * casefold, mmp, quota, verity, sparse_super2, exclude_bitmap, external journals. Duplicate names in
 * different blocks of one directory are not reported (e2fsck -fn does not report them either). The
 * journal's log contents are checked only by replaying them. Quota usage, s_overhead_clusters and
 * the s_jnl_blocks backup are not compared.
 */
package io.ext4j.tools.check;
