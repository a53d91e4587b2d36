package io.ext4j.fs;

/**
 * What {@code statfs} reports.
 *
 * @param blockSize bytes per block
 * @param blocks blocks in the filesystem, less its metadata overhead (as the kernel's f_blocks)
 * @param freeBlocks free blocks
 * @param availableBlocks free blocks an unprivileged caller may use (free minus the reserved ones)
 * @param inodes inodes in the filesystem
 * @param freeInodes free inodes
 * @param maxNameLength 255
 * @param fsid from the filesystem UUID
 */
public record StatFs(int blockSize, long blocks, long freeBlocks, long availableBlocks, long inodes, long freeInodes,
    int maxNameLength, long fsid) {}
