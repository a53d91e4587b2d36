package io.ext4j.bench.suite;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/** What the suite asks of the host: whether it is Linux and root, which tools it has, and running them. */
final class Host {
  private Host() {}

  static boolean isLinux() {
    return System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux");
  }

  /** Whether this process runs as uid 0 (from /proc/self/status; false off Linux). */
  static boolean isRoot() {
    if (!isLinux()) {
      return false;
    }
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("Uid:")) {
          return line.substring(4).strip().split("\\s+", 0)[0].equals("0");
        }
      }
    } catch (IOException e) {
      return false;
    }
    return false;
  }

  /** Whether {@code tool} is an executable on PATH. */
  static boolean has(String tool) {
    String path = System.getenv("PATH");
    if (path == null) {
      return false;
    }
    for (String d : path.split(java.io.File.pathSeparator, 0)) {
      if (!d.isEmpty() && Files.isExecutable(Path.of(d, tool))) {
        return true;
      }
    }
    return false;
  }

  /**
   * Runs {@code cmd}; its output (stdout and stderr), or an IOException naming the command, its exit
   * code and its output. The output goes through a file, not a pipe, so a tool that leaves a daemon
   * behind holding its stdout (fuse2fs) does not keep this waiting.
   */
  static String run(List<String> cmd, long timeoutSeconds) throws IOException {
    Path log = Files.createTempFile("ext4j-bench-", ".log");
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile())
          .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
      try {
        if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
          p.destroyForcibly();
          throw new IOException(String.join(" ", cmd) + ": did not finish in " + timeoutSeconds + " s");
        }
      } catch (InterruptedException e) {
        p.destroyForcibly();
        Thread.currentThread().interrupt();
        throw new IOException(String.join(" ", cmd) + ": interrupted", e);
      }
      String out = Files.readString(log, StandardCharsets.UTF_8);
      if (p.exitValue() != 0) {
        throw new IOException(String.join(" ", cmd) + ": exit " + p.exitValue() + ": " + out.strip());
      }
      return out;
    } finally {
      Files.deleteIfExists(log);
    }
  }

  /** Whether {@code dir} is a mount point now (/proc/self/mountinfo's fifth field). */
  static boolean isMountPoint(Path dir) throws IOException {
    String want = dir.toAbsolutePath().normalize().toString();
    for (String line : Files.readAllLines(Path.of("/proc/self/mountinfo"))) {
      String[] f = line.split(" ", 0);
      if (f.length > 4 && f[4].replace("\\040", " ").equals(want)) {
        return true;
      }
    }
    return false;
  }

  /** The peak resident set of this process so far (VmHWM), in bytes; -1 where the kernel does not say. */
  static long peakRss() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("VmHWM:")) {
          return Long.parseLong(line.substring(6).strip().split("\\s+", 0)[0]) * 1024;
        }
      }
    } catch (IOException | RuntimeException e) {
      return -1;
    }
    return -1;
  }

  /** Resets {@link #peakRss()} to the current resident set (writing 5 to /proc/self/clear_refs); false where it cannot. */
  static boolean resetPeakRss() {
    try {
      Files.writeString(Path.of("/proc/self/clear_refs"), "5");
      return true;
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  /** Resets the heap pools' peak usage, so that {@link #peakHeapBytes()} counts from now. */
  static void resetPeakHeap() {
    for (java.lang.management.MemoryPoolMXBean pool : java.lang.management.ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == java.lang.management.MemoryType.HEAP) {
        pool.resetPeakUsage();
      }
    }
  }

  /** The sum of the heap pools' peak usage since {@link #resetPeakHeap()} (an upper bound of the peak heap). */
  static long peakHeapBytes() {
    long sum = 0;
    for (java.lang.management.MemoryPoolMXBean pool : java.lang.management.ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == java.lang.management.MemoryType.HEAP) {
        sum += pool.getPeakUsage().getUsed();
      }
    }
    return sum;
  }
}
