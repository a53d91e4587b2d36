package io.ext4j.bench.suite;

/**
 * One row of the report.
 *
 * @param target the target's name ({@link Target}; {@code ext4j/POLICY} for a non-default policy), or
 *     {@code device} for fio's bound on the host directory
 * @param policy the batching policy of an in-process ext4j row, else null
 * @param opsPerSec operations per second over all slices' windows
 * @param p50Micros median latency in microseconds (NaN where not measured per operation: fio's bound)
 * @param operations operations counted in the windows
 * @param seconds the windows' total length
 */
public record CellResult(String scenario, String variant, String target, String policy, boolean isDefaultPolicy, int threads,
    double opsPerSec, double p50Micros, double p99Micros, double p999Micros, long operations, double seconds) {}
