package io.ext4j.bench.suite;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A device bound measured by fio in the host's own file system (the kernel straight on the device,
 * no image in between): for the {@code fsync} rows 4 KiB write + fdatasync with N jobs, for the
 * {@code dio} rows O_DIRECT I/O with 10 jobs on one file the size of the workload's. fio reports its
 * own rate and mean latency; such a row has no percentiles.
 */
final class FioBound {
  static final String TARGET = "device";

  private FioBound() {}

  /** One slice: fio's {@code job} arguments run for {@code window} after {@code warmup} of ramp; {@code reads} picks the figures. */
  static Cell.Slice run(List<String> job, boolean reads, Duration warmup, Duration window) throws IOException {
    List<String> cmd = new ArrayList<>(List.of("fio", "--name=bound", "--time_based", "--runtime=" + window.toMillis() + "ms",
        "--ramp_time=" + warmup.toMillis() + "ms", "--ioengine=psync", "--group_reporting", "--minimal"));
    cmd.addAll(job);
    String out = Host.run(cmd, 120 + window.toSeconds() * 2);
    double[] f = figures(out, reads);
    return new Cell.Slice(Math.round(f[0] * window.toNanos() / 1e9), window.toNanos(), null, f[1]);
  }

  /**
   * {IOPS, mean latency in µs} from fio's terse (v3) line, counting fields from 1: reads 8 and 40,
   * writes 49 and 81.
   */
  static double[] figures(String terse, boolean reads) throws IOException {
    for (String line : terse.split("\n", 0)) {
      String[] f = line.split(";", 0);
      if (f.length > 81 && f[0].equals("3")) {
        return reads ? new double[] {Double.parseDouble(f[7]), Double.parseDouble(f[39])}
            : new double[] {Double.parseDouble(f[48]), Double.parseDouble(f[80])};
      }
    }
    throw new IOException("fio printed no terse result line: " + terse.strip());
  }
}
