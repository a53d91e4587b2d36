package io.ext4j.bench;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.errorprone.annotations.FormatMethod;
import com.google.errorprone.annotations.FormatString;
import io.ext4j.jbd2.JournalStats;
import java.lang.reflect.RecordComponent;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * The benchmark's result: its rows, the journal statistics of the default policy's last run, and
 * the two renderings — a human table and one JSON object.
 *
 * <p>JSON shape: {@code {"seconds":…, "warmupSeconds":…, "blocksPerOp":…, "asyncCommit":…,
 * "peakHeapBytes":…, "rows":[{"policy":…, "threads":…, "opsPerSec":…, "p50Micros":…, "p99Micros":…,
 * "handlesPerTransaction":…, "flushesPerSec":…, "default":…, "deviceFlushesPerSec":…, "commitWakeup":…}],
 * "defaultPolicyStats":{…}|null}}}. A baseline row's {@code handlesPerTransaction} is {@code null}
 * (no transactions) and its {@code flushesPerSec} counts fdatasync calls; a group-commit ceiling
 * row ({@link GroupCommitCeiling}) has N handles per transaction and one flush per commit; {@code deviceFlushesPerSec}
 * is what the disk really did (see {@link BenchRow#deviceFlushesPerSec()}), {@code null} where the
 * kernel does not count it.
 *
 * @param peakHeapBytes the sum of the heap pools' peaks during the run
 */
public record BenchReport(JournalBenchmark.Options options, List<BenchRow> rows, Optional<JournalStats> defaultPolicyStats,
    long peakHeapBytes) {

  public BenchReport {
    rows = List.copyOf(rows);
  }

  /**
   * The baseline row a row is compared with: the latest baseline row with the same thread count
   * measured before it (with each thread count listed once, simply that count's baseline).
   */
  public Optional<BenchRow> baselineOf(BenchRow row) {
    return referenceOf(row, BenchRow.BASELINE);
  }

  /** The group-commit ceiling row a journal row is compared with, found as {@link #baselineOf} finds the baseline. */
  public Optional<BenchRow> ceilingOf(BenchRow row) {
    return referenceOf(row, BenchRow.CEILING);
  }

  private Optional<BenchRow> referenceOf(BenchRow row, String policy) {
    BenchRow found = null;
    for (BenchRow r : rows) {
      if (r == row) {
        break;
      }
      if (r.policy().equals(policy) && r.threads() == row.threads()) {
        found = r;
      }
    }
    return Optional.ofNullable(found);
  }

  /** The human table, then the default policy's journal statistics. */
  public String formatTable() {
    StringBuilder s = new StringBuilder();
    boolean ceilings = rows.stream().anyMatch(r -> r.policy().equals(BenchRow.CEILING));
    s.append(String.format(Locale.ROOT, "%-20s %7s %10s %9s %9s %10s %10s %8s %10s %9s %9s %9s%s%n", "policy", "threads",
        "ops/s", "p50 us", "p99 us", "handles/tx", "flushes/s", "flush/tx", "disk fl/s", "ops/dfl", "ops/base",
        "p50/base", ceilings ? fmt(" %9s", "ops/ceil") : ""));
    for (BenchRow r : rows) {
      Optional<BenchRow> base = baselineOf(r);
      String opsRatio = base.filter(b -> !r.isBaseline() && b.opsPerSec() > 0)
          .map(b -> fmt("%.2fx", r.opsPerSec() / b.opsPerSec())).orElse("-");
      String p50Ratio = base.filter(b -> !r.isBaseline() && b.p50Micros() > 0)
          .map(b -> fmt("%.2fx", r.p50Micros() / b.p50Micros())).orElse("-");
      String ceilingRatio = ceilingOf(r).filter(c -> !r.isReference() && c.opsPerSec() > 0)
          .map(c -> fmt("%.2f", r.opsPerSec() / c.opsPerSec())).orElse("-");
      s.append(String.format(Locale.ROOT, "%-20s %7d %10.0f %9.0f %9.0f %10s %10.0f %8s %10s %9s %9s %9s%s%n",
          r.policy() + (r.isDefault() ? " *" : ""), r.threads(), r.opsPerSec(), r.p50Micros(), r.p99Micros(),
          r.handlesPerTransaction().isPresent() ? fmt("%.2f", r.handlesPerTransaction().getAsDouble()) : "-",
          r.flushesPerSec(), r.isBaseline() ? "-" : fmt("%.2f", r.flushesPerTransaction()),
          r.deviceFlushesPerSec().isPresent() ? fmt("%.0f", r.deviceFlushesPerSec().getAsDouble()) : "-",
          r.opsPerDeviceFlush().isPresent() ? fmt("%.2f", r.opsPerDeviceFlush().getAsDouble()) : "-", opsRatio,
          p50Ratio, ceilings ? fmt(" %9s", ceilingRatio) : ""));
    }
    s.append(fmt("(* = default policy; %.1f s measured per row in %d interleaved slices, each after %.1f s warmup; "
        + "%d block(s) per handle; async commit %s; ratios against the same run's fdatasync-baseline row; "
        + "disk fl/s = flushes the disk completed (all processes), ops/dfl = operations per such flush; "
        + "%sJIT warmup %.1f s before the first row; commit wake-up %s; peak heap %d MiB)%n",
        options.duration().toNanos() / 1e9, options.rounds(), options.warmup().toNanos() / 1e9, options.blocksPerOp(),
        options.journalOptions().asyncCommit() ? "on" : "off",
        ceilings ? "group-commit-ceiling = one writer committing N handles' blocks per fdatasync back to back, "
            + "which no journal beats; ops/ceil = share of it reached; " : "",
        options.jvmWarmup().toNanos() / 1e9,
        wakeupsRun(), peakHeapBytes >> 20));
    defaultPolicyStats.ifPresent(st -> {
      int lastThreads = rows.stream().filter(BenchRow::isDefault).reduce((a, b) -> b).orElseThrow().threads();
      s.append(fmt("%nJournal statistics, default policy, last slice (%d threads; whole slice incl. warmup):%n", lastThreads));
      s.append(st.format());
    });
    return s.toString();
  }

  /** One JSON object (see the class comment), on one line. */
  public String toJson() {
    ObjectNode o = Json.object();
    o.put("seconds", Json.figure(options.duration().toNanos() / 1e9));
    o.put("rounds", options.rounds());
    o.put("warmupSeconds", Json.figure(options.warmup().toNanos() / 1e9));
    o.put("jvmWarmupSeconds", Json.figure(options.jvmWarmup().toNanos() / 1e9));
    o.put("blocksPerOp", options.blocksPerOp());
    o.put("asyncCommit", options.journalOptions().asyncCommit());
    o.put("peakHeapBytes", peakHeapBytes);
    ArrayNode rowsNode = o.putArray("rows");
    for (BenchRow r : rows) {
      ObjectNode row = rowsNode.addObject();
      row.put("policy", r.policy());
      row.put("threads", r.threads());
      row.put("opsPerSec", Json.figure(r.opsPerSec()));
      row.put("p50Micros", Json.figure(r.p50Micros()));
      row.put("p99Micros", Json.figure(r.p99Micros()));
      row.put("handlesPerTransaction", Json.figure(r.handlesPerTransaction()));
      row.put("flushesPerSec", Json.figure(r.flushesPerSec()));
      row.put("default", r.isDefault());
      row.put("deviceFlushesPerSec", Json.figure(r.deviceFlushesPerSec()));
      row.put("commitWakeup", r.isReference() ? null : r.commitWakeup());
    }
    if (defaultPolicyStats.isPresent()) {
      ObjectNode stats = o.putObject("defaultPolicyStats");
      JournalStats st = defaultPolicyStats.get();
      for (RecordComponent c : JournalStats.class.getRecordComponents()) {
        Object v;
        try {
          v = c.getAccessor().invoke(st);
        } catch (ReflectiveOperationException e) {
          throw new IllegalStateException(e);
        }
        if (v instanceof Double d) {
          stats.put(c.getName(), Json.figure(d));
        } else {
          stats.set(c.getName(), Json.MAPPER.valueToTree(v));
        }
      }
    } else {
      o.putNull("defaultPolicyStats");
    }
    return Json.write(o);
  }

  /** The commit wake-ups the journal rows really used, e.g. "futex-broadcast". */
  private String wakeupsRun() {
    String run = String.join(", ", rows.stream().filter(r -> !r.isReference()).map(BenchRow::commitWakeup).distinct()
        .toList());
    return run.isEmpty() ? "-" : run;
  }

  static String progressLine(BenchRow r) {
    return fmt("%-20s %3d threads: %8.0f ops/s  p50 %6.0f us  p99 %6.0f us  handles/tx %s  flushes/s %.0f  disk fl/s %s",
        r.policy(), r.threads(), r.opsPerSec(), r.p50Micros(), r.p99Micros(),
        r.handlesPerTransaction().isPresent() ? fmt("%.2f", r.handlesPerTransaction().getAsDouble()) : "-",
        r.flushesPerSec(), r.deviceFlushesPerSec().isPresent() ? fmt("%.0f", r.deviceFlushesPerSec().getAsDouble()) : "-");
  }

  @FormatMethod
  private static String fmt(@FormatString String format, Object... args) {
    return String.format(Locale.ROOT, format, args);
  }
}
