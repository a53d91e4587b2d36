/**
 * JMH microbenchmarks of the journal's two lock-free paths against their "before" strategies,
 * under thread contention and on a memory device: {@link io.ext4j.bench.jmh.IsCommittedBenchmark}
 * ({@code CommittedCheck}) and {@link io.ext4j.bench.jmh.WriteAccessBenchmark}
 * ({@code WriteAccessPath}). {@link io.ext4j.bench.jmh.JmhRunner} runs both at several thread counts.
 */
package io.ext4j.bench.jmh;
