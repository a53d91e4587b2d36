package io.ext4j.fs.power;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A child process's stdout, read on a thread of its own into complete lines: a line counts only once
 * its newline arrived, so a line the kill cut short is dropped (the child prints a line only after
 * the call it reports returned; a torn one reports nothing). {@code READY} is recognised as it arrives.
 */
final class ChildOutput {
  private final Thread reader;
  private final CountDownLatch readyOrEnd = new CountDownLatch(1);
  @GuardedBy("lines") private final List<String> lines = new ArrayList<>();
  private volatile boolean ready; // published before readyOrEnd's countDown
  private volatile IOException failure; // written by the reader before it ends

  private ChildOutput(InputStream in) {
    this.reader = Thread.ofPlatform().daemon().name("kill9-child-stdout").start(() -> read(in));
  }

  /** Starts reading {@code in} until its end. */
  static ChildOutput start(InputStream in) {
    return new ChildOutput(in);
  }

  private void read(InputStream in) {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    byte[] buf = new byte[8192];
    try (in) {
      for (int n; (n = in.read(buf)) >= 0; ) {
        for (int i = 0; i < n; i++) {
          if (buf[i] != '\n') {
            line.write(buf[i]);
            continue;
          }
          String s = line.toString(StandardCharsets.UTF_8);
          line.reset();
          synchronized (lines) {
            lines.add(s);
          }
          if (s.equals("READY")) {
            ready = true;
            readyOrEnd.countDown();
          }
        }
      }
    } catch (IOException e) {
      failure = e;
    } finally {
      readyOrEnd.countDown();
    }
  }

  /** Waits until the child printed READY (true) or its stdout ended first (false). */
  boolean awaitReady(long timeout, TimeUnit unit) throws InterruptedException {
    return readyOrEnd.await(timeout, unit) && ready;
  }

  /** Waits for the end of the stream (the child is dead) and returns every complete line. */
  List<String> finish(long timeout, TimeUnit unit) throws InterruptedException, IOException {
    reader.join(unit.toMillis(timeout));
    if (reader.isAlive()) {
      throw new IllegalStateException("the child's stdout did not end within " + timeout + " " + unit + " of its death");
    }
    if (failure != null) {
      throw failure;
    }
    synchronized (lines) {
      return List.copyOf(lines);
    }
  }
}
