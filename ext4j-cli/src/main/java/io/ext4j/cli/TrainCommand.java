package io.ext4j.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code ext4j train SOURCE WORKDIR} (hidden): the launcher's training run for the JVM's
 * ahead-of-time cache. Runs the everyday commands once each, in this JVM, on a small image made from
 * SOURCE inside WORKDIR: mkfs -d (journaled, checked), info, ls -lR, stat, cat, put -r, get -r, mkdir,
 * mv, ln, rm, fsck, journal info. WORKDIR must be empty or missing; its contents are left for the
 * caller to remove. Exit code 0 when every step succeeded, else the first failing step's code.
 */
@Command(name = "train", hidden = true, description = "Training run for the launcher's AOT cache.")
public final class TrainCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "SOURCE", description = "A directory to copy in (a few MiB).")
  Path source;

  @Parameters(index = "1", paramLabel = "WORKDIR", description = "Where the image and copies go.")
  Path work;

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    Files.createDirectories(work);
    String img = work.resolve("train.img").toString();
    String out = work.resolve("out").toString();
    List<String[]> steps = new ArrayList<>();
    steps.add(new String[] {"mkfs", "-q", "--journaled", "--check", "-d", source.toString(), img, "64M"});
    steps.add(new String[] {"info", img});
    steps.add(new String[] {"ls", "-lR", img, "/"});
    steps.add(new String[] {"stat", img, "/"});
    steps.add(new String[] {"mkdir", "-p", img, "/t/a/b"});
    steps.add(new String[] {"put", "-r", img, source.toString(), "/t/a/b/src"});
    steps.add(new String[] {"mv", img, "/t/a/b/src", "/t/moved"});
    steps.add(new String[] {"ln", "-s", img, "moved", "/t/link"});
    steps.add(new String[] {"get", "-r", img, "/t/moved", out});
    steps.add(new String[] {"rm", "-r", img, "/t"});
    steps.add(new String[] {"fsck", "-n", img});
    steps.add(new String[] {"journal", "info", img});
    StringWriter log = new StringWriter();
    PrintWriter sink = new PrintWriter(log);
    PrintWriter err = spec.commandLine().getErr();
    for (String[] step : steps) {
      int code = Main.run(sink, sink, step);
      if (code != 0) {
        sink.flush();
        err.println("ext4j train: '" + String.join(" ", step) + "' exited " + code + ":\n" + log);
        return code;
      }
    }
    return 0;
  }
}
