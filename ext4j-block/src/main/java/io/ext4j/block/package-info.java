/**
 * The block-device SPI that the journal and the filesystem engine write through, and its two
 * production implementations: {@link io.ext4j.block.FileBlockDevice} (an image file or a raw block
 * device) and {@link io.ext4j.block.MemoryBlockDevice}. Crash-recording and fault-injecting devices
 * for tests live in the {@code ext4j-testkit} module, not here.
 */
package io.ext4j.block;
