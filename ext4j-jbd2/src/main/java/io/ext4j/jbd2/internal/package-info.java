/**
 * The journal engine behind {@link io.ext4j.jbd2.Journal}: transactions and handles, the commit
 * thread ({@code CommitProcess}), the checkpointer (home writer and log-space recovery), log-space
 * arithmetic, statistics, and recovery's three passes. Not API: everything here may change.
 */
package io.ext4j.jbd2.internal;
