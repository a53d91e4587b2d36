package io.ext4j.bench.suite;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The memory target's measurement: what one engine costs in resident memory under a scenario's
 * heaviest load, apart from everything else the suite's own process holds (the other engines, the
 * FUSE server, the workload threads). A JVM of its own — the suite's heap and collector options,
 * nothing else loaded — runs the scenario's every variant at the run's largest thread count and
 * block size, one slice each, first on {@code kernel-host} and then on one engine (every strategy at
 * its default, on its own copy of the scenario's base image). Its peak resident set (VmHWM) after
 * the first part is the baseline: the JVM, the workload code and its buffers, the heap the workload
 * grew. What the second part adds to it is the engine's: its caches, its journal, the heap its
 * garbage grew. For {@code populate} the baseline is the JVM after making the host tree, and the
 * engine is {@code mkfs -d} of it.
 *
 * <p>The parent side ({@link #measure}) runs on the suite's coordinating thread; the child's
 * {@link #main} is a process of its own, told what to run by its arguments and answering in a
 * file, so nothing it prints can be mistaken for the answer.
 */
public final class MemoryProbe {
  private static final String ANSWER = "probe.answer";

  private MemoryProbe() {}

  /**
   * What the probe measured for one scenario, in bytes of peak resident set; with {@code failure}
   * set, the probe did not finish and the figures are -1.
   *
   * @param baselineBytes the probe JVM's peak after the workload ran on kernel-host
   * @param withEngineBytes its peak after the same workload ran on the engine too
   * @param failure why the probe did not finish, else null
   */
  public record Result(long baselineBytes, long withEngineBytes, String failure) {
    /** What the engine added to the baseline. */
    public long engineBytes() {
      return failure != null ? -1 : Math.max(0, withEngineBytes - baselineBytes);
    }
  }

  /**
   * Runs the probe of {@code s} in a child JVM working in {@code dir} (made now; the caller removes
   * it), on a copy of {@code base} (null for a scenario without targets). A probe that fails or
   * outlives its time is reported in the result, not thrown.
   */
  static Result measure(Scenario s, SuiteOptions o, Path base, Path dir) throws IOException {
    Files.createDirectories(dir);
    int threads = o.threads().stream().mapToInt(Integer::intValue).max().orElseThrow();
    int block = o.blockSizes().stream().mapToInt(Integer::intValue).max().orElseThrow();
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(jvmOptions(ManagementFactory.getRuntimeMXBean().getInputArguments()));
    cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), MemoryProbe.class.getName(), s.name(),
        base == null ? "-" : base.toString(), dir.toString(), Integer.toString(threads), Integer.toString(block),
        Long.toString(o.warmup().toMillis()), Long.toString(o.window().toMillis()), Long.toString(o.imageSize())));
    Path log = dir.resolve("probe.log");
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile())
        .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
    // every variant twice (kernel-host, engine) plus the JVM's start and the files each plan writes
    long limit = 120 + 2L * 8 * (o.warmup().toMillis() + o.window().toMillis()) / 1000;
    try {
      if (!p.waitFor(limit, TimeUnit.SECONDS)) {
        p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        return failed("did not finish in " + limit + " s");
      }
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IOException("memory probe of " + s.name() + ": interrupted", e);
    }
    Path answer = dir.resolve(ANSWER);
    if (p.exitValue() != 0 || !Files.exists(answer)) {
      String out = Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8).strip() : "";
      String last = out.isEmpty() ? "no output" : out.substring(out.lastIndexOf('\n') + 1);
      return failed("the probe JVM exited " + p.exitValue() + ": " + last);
    }
    String[] f = Files.readString(answer, StandardCharsets.US_ASCII).strip().split(" ", 0);
    return new Result(Long.parseLong(f[0]), Long.parseLong(f[1]), null);
  }

  private static Result failed(String why) {
    return new Result(-1, -1, why);
  }

  /** The suite JVM's heap, stack and collector options, which the probe JVM takes too (not agents, not caches). */
  static List<String> jvmOptions(List<String> inputArguments) {
    return inputArguments.stream().filter(a -> a.startsWith("-Xmx") || a.startsWith("-Xms") || a.startsWith("-Xss")
        || a.matches("-XX:[+-]Use\\w*GC") || a.startsWith("--enable-native-access")).toList();
  }

  /**
   * The probe JVM: {@code SCENARIO BASE|- DIR THREADS BLOCK WARMUP_MS WINDOW_MS IMAGE_BYTES}. Writes
   * "baseline withEngine" (bytes) to DIR/probe.answer and exits 0; on any failure prints it and exits 1.
   */
  public static void main(String[] args) {
    try {
      Scenario s = BenchSuite.scenario(args[0]);
      Path base = args[1].equals("-") ? null : Path.of(args[1]);
      Path dir = Path.of(args[2]);
      SuiteOptions o = new SuiteOptions(List.of(s.name()), List.of(Integer.parseInt(args[3])), List.of(Integer.parseInt(args[4])),
          Duration.ofMillis(Long.parseLong(args[6])), 1, Duration.ofMillis(Long.parseLong(args[5])), Long.parseLong(args[7]),
          dir, dir.resolve("out"), true, JournalScenarioOptions.defaults());
      long[] peaks = s.needsTargets() ? onTargets(s, o, base, dir) : onBare(s, o, dir);
      Files.writeString(dir.resolve(ANSWER), peaks[0] + " " + peaks[1] + "\n", StandardCharsets.US_ASCII);
      System.exit(0);
    } catch (Throwable t) {
      System.out.println("memory probe: " + t);
      System.exit(1);
    }
  }

  /** kernel-host first (the baseline), then the engine opened only now. */
  private static long[] onTargets(Scenario s, SuiteOptions o, Path base, Path dir) throws Exception {
    Path host = Files.createDirectories(dir.resolve("host"));
    runAll(s.plan(Targets.listing(dir, List.of(new Target(Target.HOST, null, null, false, host, Target.HOST))), o, null), o);
    long baseline = Host.peakRss();
    Path img = dir.resolve("ext4j.img");
    Files.copy(base, img);
    Map<String, Object> env = Scenario.engineEnv(s);
    try (FileSystem fs = FileSystems.newFileSystem(img, env)) {
      Path d = Files.createDirectories(fs.getPath("/bench"));
      runAll(s.plan(Targets.listing(dir, List.of(new Target(Target.EXT4J, null, null, true, d, Target.EXT4J))), o, null), o);
      return new long[] {baseline, Host.peakRss()};
    }
  }

  /** A scenario running its own tools: the baseline after its plan (the host tree made), then the engine's cells alone. */
  private static long[] onBare(Scenario s, SuiteOptions o, Path dir) throws Exception {
    List<Cell> cells = s.plan(Targets.bare(dir, true), o, null).stream().filter(c -> c.target.equals(Target.EXT4J)).toList();
    long baseline = Host.peakRss();
    runAll(cells, o);
    return new long[] {baseline, Host.peakRss()};
  }

  private static void runAll(List<Cell> cells, SuiteOptions o) throws IOException {
    for (Cell c : cells) {
      c.runSlice(o.warmup(), o.window());
      String failure = c.result().failure();
      if (failure != null) {
        throw new IOException(c + ": " + failure);
      }
    }
  }
}
