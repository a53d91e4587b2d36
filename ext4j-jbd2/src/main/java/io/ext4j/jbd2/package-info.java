/**
 * The jbd2 journal's API: {@link io.ext4j.jbd2.Journal} (start here: lifecycle, layout, buffers and
 * the block cache, threads, durability, recovery), {@link io.ext4j.jbd2.Handle},
 * {@link io.ext4j.jbd2.JournalBuffer}, {@link io.ext4j.jbd2.OrderedData} (data=ordered and its
 * locking contract), {@link io.ext4j.jbd2.CommitListener}, {@link io.ext4j.jbd2.JournalOptions},
 * {@link io.ext4j.jbd2.JournalMap}, the batching policies, the statistics and the exceptions; offline tools in {@link io.ext4j.jbd2.JournalRecovery} and
 * {@link io.ext4j.jbd2.JournalLog}. Needs only the JDK and {@code ext4j-block}, so any Java storage
 * engine can use it. Not here: the on-disk codecs ({@code format}) and the engine ({@code internal}).
 */
package io.ext4j.jbd2;
