package io.ext4j.bench.suite;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** What the report says about where it ran: CPU, memory, kernel, JDK and the work directory's file system. */
public record Machine(Map<String, String> facts) {
  public Machine {
    facts = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(facts));
  }

  static Machine describe(Path work) {
    Map<String, String> f = new LinkedHashMap<>();
    f.put("cpu", cpuModel() + " × " + Runtime.getRuntime().availableProcessors());
    f.put("memory", memTotal());
    f.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " " + System.getProperty("os.arch"));
    f.put("jdk", System.getProperty("java.vm.vendor") + " " + System.getProperty("java.runtime.version"));
    f.put("max heap", (Runtime.getRuntime().maxMemory() >> 20) + " MiB");
    try {
      Path p = work.toAbsolutePath();
      while (p != null && !Files.exists(p)) {
        p = p.getParent();
      }
      if (p != null) {
        var store = Files.getFileStore(p);
        f.put("work directory", work.toAbsolutePath() + " on " + store.type() + " (" + store.name() + ")");
      }
    } catch (IOException e) {
      f.put("work directory", work.toAbsolutePath() + " (file store unknown: " + e.getMessage() + ")");
    }
    f.put("load average", loadAverage());
    return new Machine(f);
  }

  private static String cpuModel() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
        if (line.startsWith("model name")) {
          return line.substring(line.indexOf(':') + 1).strip();
        }
      }
    } catch (IOException | RuntimeException e) {
      // not Linux: the processor count alone
    }
    return "cpus";
  }

  private static String memTotal() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
        if (line.startsWith("MemTotal:")) {
          return (Long.parseLong(line.substring(9).strip().split("\\s+", 0)[0]) >> 10) + " MiB";
        }
      }
    } catch (IOException | RuntimeException e) {
      // not Linux
    }
    return "unknown";
  }

  /** The load average now (1, 5, 15 minutes), or "unknown". */
  static String loadAverage() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ", 0);
      return f[0] + " " + f[1] + " " + f[2];
    } catch (IOException | RuntimeException e) {
      return "unknown";
    }
  }
}
