package io.ext4j.fs.kernel;

/** Wall-clock time per phase of a test, printed so that the suite's cost stays visible. */
final class Phases {
  private final StringBuilder report;
  private long last = System.nanoTime();

  Phases(String what) {
    report = new StringBuilder(what).append(" timings (ms):");
  }

  void done(String phase) {
    long now = System.nanoTime();
    report.append(' ').append(phase).append('=').append((now - last) / 1_000_000);
    last = now;
  }

  @Override
  public String toString() {
    return report.toString();
  }
}
