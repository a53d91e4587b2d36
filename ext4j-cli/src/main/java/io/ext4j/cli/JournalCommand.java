package io.ext4j.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code ext4j journal}: inspect and recover the jbd2 journal of an ext4 image or a standalone journal. */
@Command(name = "journal", mixinStandardHelpOptions = true,
    description = "Inspect and recover the jbd2 journal of an ext4 image (or of a standalone journal file).",
    subcommands = {JournalDumpCommand.class, JournalRecoverCommand.class, JournalInfoCommand.class})
public final class JournalCommand implements Runnable {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "missing subcommand: dump, recover or info");
  }
}
