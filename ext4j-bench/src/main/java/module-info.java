/**
 * The benchmark suite ({@code io.ext4j.bench.suite}: scenarios on targets side by side — the journal's
 * group commit among them —, the report and its charts), what its scenarios share ({@code
 * io.ext4j.bench}) and the JMH micro-benchmarks ({@code io.ext4j.bench.jmh}). An application module: the CLI's {@code bench} commands run it.
 */
module io.ext4j.bench {
  requires static com.google.errorprone.annotations; // @GuardedBy, checked at compile time
  requires transitive io.ext4j.nio;
  requires transitive io.ext4j.fuse;
  requires transitive io.ext4j.tools; // images made and populated for the scenarios
  requires jmh.core;
  requires org.knowm.xchart;
  requires HdrHistogram;
  requires transitive com.fasterxml.jackson.databind; // the reports' JSON
  requires java.desktop; // XChart draws with java.awt
  requires java.management;
  requires jdk.management; // com.sun.management.OperatingSystemMXBean: the process's CPU time

  exports io.ext4j.bench;
  exports io.ext4j.bench.suite;
  opens io.ext4j.bench.jmh to jmh.core; // JMH instantiates the benchmark states reflectively
}
