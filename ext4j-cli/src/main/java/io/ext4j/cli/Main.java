package io.ext4j.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code ext4j} command line. Subcommands are listed once, in {@link #SUBCOMMANDS}; each is one
 * class that parses its arguments, calls the jbd2/fs APIs and formats what they return.
 *
 * <p>Exit codes: 0 success, 1 failure (bad image, corrupt journal, I/O error: one line on stderr naming
 * what and where), 2 usage error. No stack trace is printed for expected failures.
 */
@Command(name = "ext4j", mixinStandardHelpOptions = true, version = "ext4j 0.1.0-SNAPSHOT",
    description = "A pure-Java ext4 filesystem and jbd2 journal, byte-compatible with Linux.")
public final class Main implements Runnable {
  /** Exit code of a failure the user can act on (bad image, corrupt journal, I/O error). */
  public static final int EXIT_FAILURE = 1;
  /** Exit code of a command line that does not parse. */
  public static final int EXIT_USAGE = 2;

  /** Every top-level subcommand: adding one is adding its class here. */
  static final List<Class<?>> SUBCOMMANDS = List.of(
      JournalCommand.class, BenchCommand.class);

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "missing command");
  }

  public static void main(String[] args) {
    System.exit(run(new PrintWriter(System.out, true), new PrintWriter(System.err, true), args));
  }

  /** Runs the command line with the given streams and returns the exit code (for tests). */
  public static int run(PrintWriter out, PrintWriter err, String... args) {
    CommandLine cl = commandLine();
    cl.setOut(out);
    cl.setErr(err);
    int code = cl.execute(args);
    out.flush();
    err.flush();
    return code;
  }

  /** The configured picocli command tree. */
  static CommandLine commandLine() {
    CommandLine cl = new CommandLine(new Main());
    for (Class<?> sub : SUBCOMMANDS) {
      cl.addSubcommand(sub);
    }
    cl.setExecutionExceptionHandler((ex, line, parseResult) -> {
      PrintWriter err = line.getErr();
      if (isExpected(ex)) {
        err.println("ext4j: " + message(ex));
      } else {
        err.println("ext4j: internal error: " + message(ex));
        ex.printStackTrace(err);
      }
      err.flush();
      return EXIT_FAILURE;
    });
    cl.setParameterExceptionHandler((ex, args) -> {
      PrintWriter err = ex.getCommandLine().getErr();
      err.println("ext4j: " + ex.getMessage());
      err.println("Try '" + ex.getCommandLine().getCommandSpec().qualifiedName() + " --help' for more information.");
      err.flush();
      return EXIT_USAGE;
    });
    return cl;
  }

  private static boolean isExpected(Throwable ex) {
    return ex instanceof IOException || ex instanceof UnsupportedOperationException || ex instanceof IllegalArgumentException;
  }

  private static String message(Throwable ex) {
    String m = ex.getMessage();
    if (ex instanceof java.nio.file.NoSuchFileException nsf) {
      return nsf.getFile() + ": no such file";
    }
    if (ex instanceof java.nio.file.AccessDeniedException ade) {
      return ade.getFile() + ": permission denied";
    }
    return m == null ? ex.getClass().getSimpleName() : m;
  }
}
