package io.ext4j.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code ext4j} command line. Subcommands are listed once, in {@link #SUBCOMMANDS}; each is one
 * class that parses its arguments, calls the jbd2/fs APIs and formats what they return.
 *
 * <p>Exit codes: 0 success, 1 failure (bad image, corrupt journal, I/O error: one line on stderr naming
 * what and where), 2 usage error. No stack trace is printed, not even for an unexpected exception
 * (one line says what it was; {@code EXT4J_DEBUG=1} in the environment adds the stack trace).
 *
 * <p>Subcommands that write bytes (cat) take them from {@link #stdout()}, the stream under the
 * command line's text output.
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
      MkfsCommand.class, FsckCommand.class, InfoCommand.class, LsCommand.class, CatCommand.class, StatCommand.class, MkdirCommand.class, RmCommand.class,
      MvCommand.class, LnCommand.class, PutCommand.class, GetCommand.class, MountCommand.class, JournalCommand.class, BenchCommand.class,
      TrainCommand.class);

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  private final OutputStream stdout; // the bytes under spec's text output

  private Main(OutputStream stdout) {
    this.stdout = stdout;
  }

  /** The standard output as bytes; flush the command line's text output before writing to it. */
  OutputStream stdout() {
    return stdout;
  }

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "missing command");
  }

  public static void main(String[] args) {
    OutputStream out = new java.io.FileOutputStream(java.io.FileDescriptor.out);
    System.exit(run(new java.io.BufferedOutputStream(out, 1 << 16), new PrintWriter(System.err, true, System.err.charset()), args));
  }

  /** Runs the command line with its text output in UTF-8 on {@code stdout}, and returns the exit code. */
  public static int run(OutputStream stdout, PrintWriter err, String... args) {
    PrintWriter out = new PrintWriter(new OutputStreamWriter(stdout, StandardCharsets.UTF_8));
    try {
      return run(commandLine(stdout), out, err, args);
    } finally {
      try {
        stdout.flush();
      } catch (IOException e) {
        err.println("ext4j: standard output: " + message(e));
        err.flush();
      }
    }
  }

  /**
   * Runs the command line with the given streams and returns the exit code (for tests); bytes a
   * command writes to standard output reach {@code out} as ISO-8859-1 characters.
   */
  public static int run(PrintWriter out, PrintWriter err, String... args) {
    OutputStream bytes = new OutputStream() {
      @Override
      public void write(int b) {
        out.write(b & 0xFF);
      }

      @Override
      public void flush() {
        out.flush();
      }
    };
    return run(commandLine(bytes), out, err, args);
  }

  private static int run(CommandLine cl, PrintWriter out, PrintWriter err, String... args) {
    cl.setOut(out);
    cl.setErr(err);
    int code = cl.execute(args);
    out.flush();
    err.flush();
    return code;
  }

  /** The configured picocli command tree. */
  static CommandLine commandLine() {
    return commandLine(OutputStream.nullOutputStream());
  }

  private static CommandLine commandLine(OutputStream stdout) {
    CommandLine cl = new CommandLine(new Main(stdout));
    for (Class<?> sub : SUBCOMMANDS) {
      cl.addSubcommand(sub);
    }
    cl.setExecutionExceptionHandler((ex, line, parseResult) -> {
      PrintWriter err = line.getErr();
      line.getOut().flush();
      if (ex instanceof UncheckedIOException u && u.getCause() != null) {
        ex = u.getCause();
      }
      if (isExpected(ex)) {
        err.println("ext4j: " + message(ex));
      } else {
        err.println("ext4j: internal error: " + ex.getClass().getName() + ": " + message(ex)
            + (debug() ? "" : " (EXT4J_DEBUG=1 shows the stack trace)"));
      }
      if (debug()) {
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

  private static boolean debug() {
    return "1".equals(System.getenv("EXT4J_DEBUG"));
  }

  private static boolean isExpected(Throwable ex) {
    return ex instanceof IOException || ex instanceof UnsupportedOperationException || ex instanceof IllegalArgumentException;
  }

  /** The one-line wording of an expected failure (after "ext4j: "). */
  static String message(Throwable ex) {
    String m = ex.getMessage();
    if (ex instanceof java.nio.file.NoSuchFileException nsf) {
      return nsf.getFile() + ": no such file or directory";
    }
    if (ex instanceof java.nio.file.AccessDeniedException ade) {
      return ade.getFile() + ": permission denied";
    }
    if (ex instanceof java.nio.file.FileSystemException fse && fse.getFile() != null) {
      return fse.getFile() + ": " + (fse.getReason() == null ? ex.getClass().getSimpleName() : fse.getReason().toLowerCase(java.util.Locale.ROOT));
    }
    return m == null ? ex.getClass().getSimpleName() : m;
  }
}
