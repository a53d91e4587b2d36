package io.ext4j.tools.mkfs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * e2fsprogs 1.47.0 as the oracle: mkfs.ext4 with the upstream mke2fs.conf (written into the test's
 * own directory, so the host's /etc/mke2fs.conf does not matter), dumpe2fs and debugfs. A missing
 * tool fails the test. Every tool runs with stdin from /dev/null, its stdout and stderr drained on
 * their own threads, and a timeout that starts before any output is read.
 */
final class E2fsTools {
  /** Upstream misc/mke2fs.conf.in (1.47.0), the defaults §1.1/§2 of the format brief were read with. */
  static final String UPSTREAM_MKE2FS_CONF = """
      [defaults]
      	base_features = sparse_super,large_file,filetype,resize_inode,dir_index,ext_attr
      	default_mntopts = acl,user_xattr
      	enable_periodic_fsck = 0
      	blocksize = 4096
      	inode_size = 256
      	inode_ratio = 16384

      [fs_types]
      	ext3 = {
      		features = has_journal
      	}
      	ext4 = {
      		features = has_journal,extent,huge_file,flex_bg,metadata_csum,metadata_csum_seed,64bit,dir_nlink,extra_isize,orphan_file
      	}
      	small = {
      		blocksize = 1024
      		inode_ratio = 4096
      	}
      	floppy = {
      		blocksize = 1024
      		inode_ratio = 8192
      	}
      	big = {
      		inode_ratio = 32768
      	}
      	huge = {
      		inode_ratio = 65536
      	}
      	news = {
      		inode_ratio = 4096
      	}
      	largefile = {
      		inode_ratio = 1048576
      		blocksize = -1
      	}
      	largefile4 = {
      		inode_ratio = 4194304
      		blocksize = -1
      	}
      """;

  private static final long TIMEOUT_SECONDS = 60;

  /** What a tool printed and its exit status. */
  record Result(List<String> command, int exit, String stdout, String stderr) {
    String describe() {
      return command + " exited " + exit + "\nstdout:\n" + stdout + "\nstderr:\n" + stderr;
    }
  }

  private final Path dir;
  private final Path config;

  /** Tools working in {@code dir}, where the mke2fs.conf is written. */
  E2fsTools(Path dir) throws IOException {
    this.dir = dir;
    this.config = dir.resolve("mke2fs.conf");
    Files.writeString(config, UPSTREAM_MKE2FS_CONF);
  }

  /** The absolute path of {@code tool}; fails the test if it is not installed. */
  static String require(String tool) {
    List<String> dirs = new ArrayList<>(List.of("/usr/sbin", "/sbin", "/usr/bin", "/bin"));
    String path = System.getenv("PATH");
    if (path != null) {
      dirs.addAll(List.of(path.split(File.pathSeparator)));
    }
    for (String d : dirs) {
      Path p = Path.of(d, tool);
      if (Files.isExecutable(p)) {
        return p.toString();
      }
    }
    return fail("%s is not installed (the oracle tests need e2fsprogs 1.47.0: apt-get install e2fsprogs)", tool);
  }

  /** A sparse image of {@code bytes} in the work directory. */
  Path sparseImage(String name, long bytes) throws IOException {
    Path img = dir.resolve(name);
    Files.deleteIfExists(img);
    try (RandomAccessFile f = new RandomAccessFile(img.toFile(), "rw")) {
      f.setLength(bytes);
    }
    return img;
  }

  /** Runs {@code mkfs.ext4 -q -F <options> img} with the upstream config; the result, whatever the exit. */
  Result mkfs(Path img, List<String> options) {
    List<String> cmd = new ArrayList<>(List.of(require("mkfs.ext4"), "-q", "-F"));
    cmd.addAll(options);
    cmd.add(img.toString());
    return run(cmd);
  }

  /** {@code dumpe2fs img} (header and groups); must exit 0. */
  String dumpe2fs(Path img) {
    return ok(run(List.of(require("dumpe2fs"), img.toString()))).stdout();
  }

  /** {@code debugfs -f cmds img} running {@code stat <n>} for each inode; must exit 0. */
  String debugfsStat(Path img, long... inodes) throws IOException {
    StringBuilder cmds = new StringBuilder();
    for (long ino : inodes) {
      cmds.append("stat <").append(ino).append(">\n");
    }
    Path file = dir.resolve("debugfs.cmds");
    Files.writeString(file, cmds);
    return ok(run(List.of(require("debugfs"), "-f", file.toString(), img.toString()))).stdout();
  }

  private static Result ok(Result r) {
    assertThat(r.exit()).as("%s", r.describe()).isZero();
    return r;
  }

  private Result run(List<String> cmd) {
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    pb.environment().put("MKE2FS_CONFIG", config.toString());
    pb.environment().put("LC_ALL", "C");
    Process p;
    try {
      p = pb.start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + cmd, e);
    }
    CompletableFuture<String> out = drain(p.getInputStream());
    CompletableFuture<String> err = drain(p.getErrorStream());
    try {
      if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        fail("%s did not finish within %d s", cmd, TIMEOUT_SECONDS);
      }
      return new Result(cmd, p.exitValue(), out.get(10, TimeUnit.SECONDS), err.get(10, TimeUnit.SECONDS));
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted waiting for " + cmd, e);
    } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new IllegalStateException("reading the output of " + cmd, e);
    }
  }

  private static CompletableFuture<String> drain(InputStream in) {
    CompletableFuture<String> f = new CompletableFuture<>();
    Thread.ofPlatform().daemon().name("e2fs-drain").start(() -> {
      try (in) {
        f.complete(new String(in.readAllBytes(), StandardCharsets.UTF_8));
      } catch (IOException e) {
        f.completeExceptionally(e);
      }
    });
    return f;
  }
}
