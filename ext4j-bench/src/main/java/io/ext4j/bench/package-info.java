/**
 * Benchmarks, not tests: workloads measured against same-run baselines.
 *
 * <p>{@link io.ext4j.bench.JournalBenchmark} is the journal benchmark of {@code ext4j bench journal}
 * (synchronous handles per batching policy and thread count, beside N threads of
 * {@code pwrite + fdatasync}); {@code io.ext4j.bench.jmh} holds the JMH microbenchmarks of the two
 * lock-free paths against their "before" strategies. Nothing here is used by the engine, and no
 * test asserts a speed.
 */
package io.ext4j.bench;
