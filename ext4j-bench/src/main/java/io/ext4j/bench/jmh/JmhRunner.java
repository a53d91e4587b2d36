package io.ext4j.bench.jmh;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * Runs the JMH benchmarks of this package at several thread counts and prints one summary table.
 * Arguments: thread counts (default {@code 1 2 4}); the benchmarks' own annotations set one fork,
 * one 1 s warmup and three 1 s measurements, so each (benchmark, variant, threads) takes ~5 s.
 * For anything else use {@code org.openjdk.jmh.Main} on the same class path.
 */
public final class JmhRunner {
  private JmhRunner() {}

  public static void main(String[] args) throws Exception {
    int[] threads = args.length == 0 ? new int[] {1, 2, 4} : Arrays.stream(args).mapToInt(Integer::parseInt).toArray();
    List<String> lines = new ArrayList<>();
    for (int t : threads) {
      Options opts = new OptionsBuilder()
          .include(JmhRunner.class.getPackageName() + "\\..*Benchmark")
          .threads(t)
          .build();
      for (RunResult r : new Runner(opts).run()) {
        var p = r.getParams();
        String variant = String.join(",", p.getParamsKeys().stream().map(k -> k + "=" + p.getParam(k)).toList());
        var s = r.getPrimaryResult();
        lines.add(String.format(Locale.ROOT, "%-22s %-44s %7d %12.1f %10.1f  %s",
            p.getBenchmark().substring(p.getBenchmark().lastIndexOf('.', p.getBenchmark().lastIndexOf('.') - 1) + 1),
            variant, t, s.getScore(), s.getScoreError(), s.getScoreUnit()));
      }
    }
    System.out.printf(Locale.ROOT, "%n%-22s %-44s %7s %12s %10s  %s%n", "benchmark", "variant", "threads", "score",
        "error", "unit");
    lines.forEach(System.out::println);
  }
}
