package io.ext4j.cli;

import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

/**
 * The progress of put -r and get -r in bytes copied, drawn on standard error by me.tongfei's
 * progressbar only when the command runs on a terminal; elsewhere (pipes, files, tests) every call
 * does nothing.
 */
final class Progress implements AutoCloseable {
  private static final Progress NONE = new Progress(null);

  private final ProgressBar bar; // null: not shown
  private long files; // owned by the copying thread

  private Progress(ProgressBar bar) {
    this.bar = bar;
  }

  /** Whether a bar would be shown: standard input and output are a terminal. */
  @SuppressWarnings("SystemConsoleNull")
  static boolean onTerminal() {
    // isTerminal() is the test; the null check stays because System.console() is still specified to
    // return null when there is no console (e.g. with -Djdk.console=java.base and no terminal).
    java.io.Console c = System.console();
    return c != null && c.isTerminal();
  }

  /** A bar for {@code totalBytes}, or nothing when not {@code shown}. */
  static Progress start(String task, long totalBytes, boolean shown) {
    if (!shown) {
      return NONE;
    }
    ProgressBar bar = new ProgressBarBuilder().setTaskName(task).setInitialMax(Math.max(1, totalBytes))
        .setUnit(" MiB", 1 << 20).showSpeed().setStyle(ProgressBarStyle.ASCII).setUpdateIntervalMillis(200)
        .continuousUpdate().build();
    return new Progress(bar);
  }

  /** {@code bytes} more were copied. */
  void bytes(long bytes) {
    if (bar != null) {
      bar.stepBy(bytes);
    }
  }

  /** One more file or directory was copied. */
  void entry() {
    if (bar != null) {
      bar.setExtraMessage(" " + ++files + " files");
    }
  }

  @Override
  public void close() {
    if (bar != null) {
      bar.close();
    }
  }
}
