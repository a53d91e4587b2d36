/**
 * The layout mke2fs 1.47.0 would lay down, computed without writing anything: {@link
 * io.ext4j.tools.mkfs.MkfsParameters} (what is asked, validated, with mke2fs's feature dependency rules)
 * in, {@link io.ext4j.tools.mkfs.Geometry} (superblock counts, every {@link io.ext4j.tools.mkfs.GroupLayout},
 * where the root directory, lost+found, resize inode, journal and orphan file go) out, so that an
 * image built from it matches {@code mkfs.ext4}'s structure for the same inputs. Pure computation;
 * every rule is written in the doc of the class that applies it. Not here: writing the image
 * (superblock, descriptors, bitmaps, inodes, directory blocks, journal superblock), checksums.
 */
package io.ext4j.tools.mkfs;
