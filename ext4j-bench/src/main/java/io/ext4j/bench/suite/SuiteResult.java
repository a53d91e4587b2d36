package io.ext4j.bench.suite;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * What a run measured, for the report.
 *
 * @param targets per scenario, each target that ran: name → how it was made
 * @param skipped each target that could not run here: name → why
 * @param peakRssBytes per scenario, this process's peak resident set while it ran (-1 where unknown);
 *     the in-process engine, the FUSE mount's server and the workload threads all live in it
 * @param peakHeapBytes per scenario, the sum of this process's heap pools' peaks while it ran (an
 *     upper bound of its peak heap)
 * @param engineMemory per scenario, what one engine added to a JVM of its own running the scenario's
 *     heaviest cells ({@link MemoryProbe})
 * @param cacheBytes the engine's configured block cache per open image
 * @param loadAfter the load average when the run ended (the machine's other work)
 */
public record SuiteResult(SuiteOptions options, Machine machine, Map<String, Map<String, String>> targets, Map<String, String> skipped,
    List<CellResult> rows, Map<String, Long> peakRssBytes, Map<String, Long> peakHeapBytes,
    Map<String, MemoryProbe.Result> engineMemory, long cacheBytes, Instant started, Duration took, String loadAfter) {
  public SuiteResult {
    rows = List.copyOf(rows);
  }
}
