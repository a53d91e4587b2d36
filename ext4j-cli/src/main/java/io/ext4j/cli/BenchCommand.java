package io.ext4j.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code ext4j bench}: benchmarks (see the {@code ext4j-bench} module and docs/BENCHMARKS.md). */
@Command(name = "bench", mixinStandardHelpOptions = true,
    description = "Run benchmarks against same-run kernel baselines.",
    subcommands = {BenchJournalCommand.class})
public final class BenchCommand implements Runnable {
  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "missing subcommand: journal");
  }
}
