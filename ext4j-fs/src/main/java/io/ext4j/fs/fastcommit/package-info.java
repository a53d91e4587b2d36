/**
 * ext4 fast commits at recovery: {@link io.ext4j.fs.fastcommit.FastCommitArea} decodes the
 * fast-commit area at the end of a {@code journal_fast_commit} journal and finds the fast commits
 * written after the last full commit (a pure codec); {@link io.ext4j.fs.fastcommit.FastCommitReplay}
 * applies them to the filesystem as e2fsck's replay does (inode images, extent ranges, directory
 * entries, then the group and superblock counts). {@link io.ext4j.fs.Ext4Recovery} runs both after
 * the journal's own recovery.
 *
 * <p>Not here: writing fast commits. ext4j commits every change as a full jbd2 transaction in the
 * log before the area; before it writes a journal with the feature it retires the kernel's old
 * area ({@link io.ext4j.fs.Ext4Recovery#retireFastCommitArea}).
 */
package io.ext4j.fs.fastcommit;
