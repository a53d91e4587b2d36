package io.ext4j.cli;

import io.ext4j.fs.Ext4FileSystem;
import io.ext4j.fuse.FuseMount;
import io.ext4j.fuse.FuseOptions;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code ext4j mount IMAGE MOUNTPOINT [-o OPTIONS]}: serves the image through the kernel's FUSE in
 * the foreground until it is unmounted — {@code fusermount3 -u MOUNTPOINT} or {@code umount}, or
 * SIGINT/SIGTERM (Ctrl-C), which unmount it — then closes the engine, which commits and checkpoints
 * the journal, and exits 0. Needs Linux and root (mount(2)).
 */
@Command(name = "mount", mixinStandardHelpOptions = true,
    description = "Mount an ext4 image through FUSE (foreground; Linux, as root) until unmounted.")
public final class MountCommand implements Callable<Integer> {
  @Mixin
  ImageTarget target;

  @Parameters(index = "1", paramLabel = "MOUNTPOINT", description = "An existing directory.")
  Path mountpoint;

  @Option(names = "-o", paramLabel = "OPTIONS", split = ",",
      description = "Mount options: ro, rw, allow_other, default_permissions (the default: the kernel checks permissions), "
          + "no_default_permissions (the engine checks them), writeback_cache, direct_io, max_write=N (default 1 MiB), "
          + "threads=N (default 16), attr_timeout=S, entry_timeout=S (default 1), fsname=NAME, "
          + "dirsync (every directory change durable when it returns); and mount(8)'s: relatime (the default), "
          + "strictatime, noatime, nodiratime, lazytime, nosuid and nodev (the defaults, as libfuse's), suid, dev, "
          + "noexec, exec, sync, async; defaults, auto, noauto, user, users, nouser, nofail, _netdev and x-* are accepted "
          + "and ignored.")
  java.util.List<String> options = new java.util.ArrayList<>();

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    FuseOptions o;
    try {
      o = FuseOptions.parse(String.join(",", options), FuseOptions.defaults());
    } catch (IllegalArgumentException e) {
      throw new CliException("ext4j mount: " + e.getMessage());
    }
    PrintWriter err = spec.commandLine().getErr();
    Ext4FileSystem fs = target.open(!o.readOnly(), b -> b.dirSync(o.dirSync()).atime(o.atime()).noDirAtime(o.noDirAtime()));
    FuseMount m;
    try {
      m = FuseMount.mount(fs, target.name(), mountpoint, o);
    } catch (IOException e) {
      fs.close();
      throw new CliException(e.getMessage(), e);
    }
    CountDownLatch closed = new CountDownLatch(1);
    Thread hook = new Thread(() -> { // SIGINT/SIGTERM: unmount, then let the main thread close the engine
      try {
        m.unmount();
      } catch (IOException e) {
        err.println("ext4j mount: " + e.getMessage());
        err.flush();
      }
      try {
        closed.await(10, TimeUnit.MINUTES);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "ext4j-unmount");
    Runtime.getRuntime().addShutdownHook(hook);
    boolean readOnly = o.readOnly() || fs.isReadOnly();
    err.println("ext4j: " + target.name() + " mounted on " + m.mountpoint() + (readOnly ? " (read-only)" : "")
        + "; unmount with fusermount3 -u " + m.mountpoint() + " or Ctrl-C");
    err.flush();
    try (fs; m) {
      m.awaitUnmount();
    } finally {
      closed.countDown();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException e) {
        // shutting down: the hook is running and returns now that the engine is closed
      }
    }
    err.println("ext4j: " + m.mountpoint() + " unmounted; " + target.name() + " closed ("
        + (readOnly ? "read-only: nothing written" : "journal committed and checkpointed") + ")");
    err.println("ext4j: requests served: " + m.requestCounts().entrySet().stream().map(e -> e.getKey() + " " + e.getValue())
        .collect(java.util.stream.Collectors.joining(", ")));
    err.flush();
    return 0;
  }
}
