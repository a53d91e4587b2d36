/**
 * Benchmarks, not tests: what the suite's scenarios share ({@link io.ext4j.bench.TimedRun}, the
 * closed-loop timed run; {@link io.ext4j.bench.ZeroFiles}; the reports' {@link io.ext4j.bench.Json}).
 * The one harness, the suite of {@code ext4j bench} and {@code ext4j bench journal}, is
 * {@code io.ext4j.bench.suite}; {@code io.ext4j.bench.jmh} holds the
 * JMH microbenchmarks of the two lock-free paths against their "before" strategies. Nothing here is
 * used by the engine, and no test asserts a speed.
 */
package io.ext4j.bench;
