package io.ext4j.bench.suite;

import io.ext4j.bench.TimedRun;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.HdrHistogram.Histogram;

/**
 * The device bound of the {@code fdatasync} rows: fio's 4 KiB sequential write + fdatasync with N
 * jobs, a file of 4 MiB each, in a directory of the host's file system (the kernel straight on the
 * device, no image in between). fio reports its own rate; the row has no per-operation latencies.
 */
final class FioBound {
  static final String TARGET = "device";

  private FioBound() {}

  static TimedRun.Result run(Path dir, int jobs, Duration warmup, Duration window) throws IOException {
    String out = Host.run(List.of("fio", "--name=bound", "--directory=" + dir, "--rw=write", "--bs=4k", "--size=4m",
        "--fdatasync=1", "--numjobs=" + jobs, "--time_based", "--runtime=" + window.toMillis() + "ms",
        "--ramp_time=" + warmup.toMillis() + "ms", "--ioengine=psync", "--group_reporting", "--minimal",
        "--filename_format=bound.$jobnum"), 120 + window.toSeconds() * 2);
    double iops = writeIops(out);
    return new TimedRun.Result(new Histogram(3), Math.round(iops * window.toNanos() / 1e9), window.toNanos());
  }

  /** Write IOPS from fio's terse (v3) line: field 49, counting from 1. */
  static double writeIops(String terse) throws IOException {
    for (String line : terse.split("\n")) {
      String[] f = line.split(";");
      if (f.length > 49 && f[0].equals("3")) {
        return Double.parseDouble(f[48]);
      }
    }
    throw new IOException("fio printed no terse result line: " + terse.strip());
  }
}
