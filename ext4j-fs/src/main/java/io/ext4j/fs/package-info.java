/**
 * The ext4 engine's API. So far: {@link io.ext4j.fs.Ext4JournalLocator}, which finds an ext4
 * filesystem's internal jbd2 journal ({@link io.ext4j.fs.JournalLocation}) and sets or clears its
 * needs_recovery flag, and {@link io.ext4j.fs.Ext4FormatException} for on-disk structures that are
 * malformed or use what is not supported. Not here: on-disk codecs (in {@code io.ext4j.fs.format}),
 * and any writing of files or directories.
 */
package io.ext4j.fs;
