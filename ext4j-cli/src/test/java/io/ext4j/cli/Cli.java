package io.ext4j.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;

/** Runs the CLI in-process and captures its streams (standard output as bytes, and as UTF-8 text). */
record Cli(int exitCode, byte[] outBytes, String out, String err) {
  static Cli run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    StringWriter err = new StringWriter();
    int code = Main.run(out, new PrintWriter(err), args);
    return new Cli(code, out.toByteArray(), out.toString(StandardCharsets.UTF_8), err.toString());
  }
}
