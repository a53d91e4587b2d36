package io.ext4j.cli;

import java.io.PrintWriter;
import java.io.StringWriter;

/** Runs the CLI in-process and captures its streams. */
record Cli(int exitCode, String out, String err) {
  static Cli run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = Main.run(new PrintWriter(out), new PrintWriter(err), args);
    return new Cli(code, out.toString(), err.toString());
  }
}
