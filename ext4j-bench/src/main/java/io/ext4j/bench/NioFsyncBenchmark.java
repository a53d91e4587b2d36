package io.ext4j.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The same synchronous-write loop through {@code java.nio} on two targets, in the same run: an
 * ext4j image opened with the {@code ext4} provider (in-process engine) and a directory of the
 * host's file system (the kernel's ext4 on the device, "kernel-host"). N threads each write 4 KiB to
 * a file of their own and call {@code force(false)} (fdatasync), in two variants: {@code overwrite}
 * (positions cycling through a preallocated, written file: no metadata changes) and {@code append}
 * (each write extends the file: the size changes every time, so each fdatasync commits metadata).
 * Rows are interleaved — for each round, for each thread count, each target in turn — so drift on a
 * shared machine falls on both alike; each cell is the median over rounds.
 *
 * <p>{@code java -cp ext4j.jar io.ext4j.bench.NioFsyncBenchmark DIR [THREADS=1,4,16] [SECONDS=5] [ROUNDS=3]}
 * (the image — 2 GiB written through once, then mkfs.ext4 — and the host files are made in DIR and
 * removed afterwards; needs mkfs.ext4).
 *
 * <h2>Durability</h2>
 * Every counted operation returned from {@code force(false)}: its 4 KiB are durable (on the
 * image, journal committed; on the host, fdatasync).
 */
public final class NioFsyncBenchmark {
  private static final int BLOCK = 4096;
  private static final int FILE_BLOCKS = 64;
  private static final Duration WARMUP = Duration.ofSeconds(1);

  private NioFsyncBenchmark() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 1) {
      System.err.println("usage: NioFsyncBenchmark DIR [THREADS=1,4,16] [SECONDS=5] [ROUNDS=3]");
      System.exit(2);
    }
    Path dir = Files.createDirectories(Path.of(args[0]));
    int[] threads = java.util.Arrays.stream((args.length > 1 ? args[1] : "1,4,16").split(",")).mapToInt(Integer::parseInt)
        .toArray();
    Duration window = Duration.ofSeconds(args.length > 2 ? Long.parseLong(args[2]) : 5);
    int rounds = args.length > 3 ? Integer.parseInt(args[3]) : 3;
    int maxThreads = java.util.Arrays.stream(threads).max().orElse(1);
    Path img = dir.resolve("nio-bench.img");
    Path host = Files.createDirectories(dir.resolve("host-files"));
    Files.deleteIfExists(img);
    Map<String, List<Double>> cells = new LinkedHashMap<>();
    warmImage(img, 2L << 30);
    try (FileSystem fs = FileSystems.newFileSystem(img)) {
      Path inImage = Files.createDirectories(fs.getPath("/bench"));
      for (int i = 0; i < maxThreads; i++) {
        prefill(host.resolve("f" + i));
        prefill(inImage.resolve("f" + i));
      }
      for (int r = 0; r < rounds; r++) {
        for (String variant : List.of("overwrite", "append")) {
          for (int t : threads) {
            for (String target : List.of("ext4j-nio", "kernel-host")) {
              Path d = target.equals("ext4j-nio") ? inImage : host;
              double rate = run(d, t, variant.equals("append"), window);
              cells.computeIfAbsent(variant + "|" + t + "|" + target, k -> new ArrayList<>()).add(rate);
              System.err.printf("round %d %-9s %2d threads %-11s %9.0f ops/s%n", r + 1, variant, t, target, rate);
            }
          }
        }
      }
    } finally {
      try (var s = Files.list(host)) {
        for (Path p : s.toList()) {
          Files.delete(p);
        }
      }
      Files.deleteIfExists(host);
      Files.deleteIfExists(img);
    }
    System.out.println("| variant | threads | ext4j-nio ops/s | kernel-host ops/s | ext4j ÷ kernel-host |");
    System.out.println("|---|---|---|---|---|");
    for (String variant : List.of("overwrite", "append")) {
      for (int t : threads) {
        double e = median(cells.get(variant + "|" + t + "|ext4j-nio"));
        double k = median(cells.get(variant + "|" + t + "|kernel-host"));
        System.out.printf("| %s | %d | %.0f | %.0f | %.2f |%n", variant, t, e, k, e / k);
      }
    }
  }

  /**
   * An image of {@code bytes} written through once (so that no measured write makes the host
   * allocate blocks of a sparse file), then formatted by mkfs.ext4 with 4 KiB blocks, as the
   * kernel-side benchmarks make theirs.
   */
  private static void warmImage(Path img, long bytes) throws IOException, InterruptedException {
    ZeroFiles.create(img, bytes);
    Process p = new ProcessBuilder("mkfs.ext4", "-q", "-F", "-b", "4096", img.toString()).inheritIO().start();
    if (p.waitFor() != 0) {
      throw new IOException("mkfs.ext4 " + img + " exited " + p.exitValue());
    }
  }

  /** FILE_BLOCKS written blocks, made durable, so that overwrites change no metadata. */
  private static void prefill(Path f) throws IOException {
    ZeroFiles.create(f, (long) FILE_BLOCKS * BLOCK);
  }

  private static double run(Path dir, int threads, boolean append, Duration window) throws Exception {
    List<FileChannel> channels = new ArrayList<>();
    try {
      List<TimedRun.Op> ops = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        Path f = dir.resolve("f" + i);
        if (append) {
          prefill(f); // each append row starts from the same size
        }
        FileChannel ch = FileChannel.open(f, StandardOpenOption.READ, StandardOpenOption.WRITE);
        channels.add(ch);
        ByteBuffer buf = ByteBuffer.allocateDirect(BLOCK);
        long base = append ? ch.size() : 0;
        ops.add(seq -> {
          buf.clear();
          buf.putLong(0, seq);
          long pos = append ? base + seq * BLOCK : (seq % FILE_BLOCKS) * BLOCK;
          while (buf.hasRemaining()) {
            ch.write(buf, pos + buf.position());
          }
          ch.force(false);
        });
      }
      return TimedRun.run(ops, WARMUP, window, () -> { }, () -> { }).opsPerSec();
    } finally {
      for (FileChannel ch : channels) {
        ch.close();
      }
    }
  }

  private static double median(List<Double> v) {
    List<Double> s = new ArrayList<>(v);
    s.sort(null);
    int n = s.size();
    return n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
  }
}
