package io.ext4j.testkit;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.TestTag;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;

/**
 * Counts, per tag, the tests a test run executed, so a build can say how many tests of a tag ran
 * (CI fails when it runs as root and no {@code root} test ran: a tag filter gone wrong must not
 * pass as a green run). Registered for every module's test runs through
 * {@code META-INF/services/org.junit.platform.launcher.TestExecutionListener}.
 *
 * <p>At the end of each test plan it writes one file to {@code target/tag-counts/} under the working
 * directory (the module's directory under Surefire and Failsafe), one line per tag:
 * {@code <tag> <ran> <aborted> <skipped>} — ran counts passed and failed tests, aborted those an
 * assumption stopped, skipped the disabled ones. A test counts under each tag it carries, its own and
 * its class's.
 */
public final class TagCounts implements TestExecutionListener {
  /** The directory, relative to the working directory, that receives one file per test plan. */
  public static final Path DIRECTORY = Path.of("target", "tag-counts");

  @GuardedBy("this") private final Map<String, long[]> counts = new TreeMap<>(); // tag -> {ran, aborted, skipped}

  /** Creates the listener; the JUnit Platform does, through the service file. */
  public TagCounts() {}

  @Override
  public void executionFinished(TestIdentifier test, TestExecutionResult result) {
    if (test.isTest()) {
      count(test, result.getStatus() == TestExecutionResult.Status.ABORTED ? 1 : 0);
    }
  }

  @Override
  public void executionSkipped(TestIdentifier test, String reason) {
    if (test.isTest()) {
      count(test, 2);
    }
  }

  private synchronized void count(TestIdentifier test, int column) {
    for (TestTag tag : test.getTags()) {
      counts.computeIfAbsent(tag.getName(), t -> new long[3])[column]++;
    }
  }

  @Override
  public synchronized void testPlanExecutionFinished(TestPlan plan) {
    if (counts.isEmpty()) {
      return;
    }
    StringBuilder lines = new StringBuilder();
    counts.forEach((tag, c) -> lines.append(tag).append(' ').append(c[0]).append(' ').append(c[1]).append(' ').append(c[2]).append('\n'));
    try {
      Files.createDirectories(DIRECTORY);
      Files.writeString(DIRECTORY.resolve(ProcessHandle.current().pid() + "-" + System.nanoTime() + ".txt"), lines);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the test run's tag counts under " + DIRECTORY.toAbsolutePath(), e);
    }
  }
}
