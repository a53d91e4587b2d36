package io.ext4j.tools.populate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The read-ahead walker: same entries and bytes in the same order, its limits, and how failures cross threads. */
@Tag("fast")
class ReadAheadTest {
  @TempDir
  Path tmp;

  @Test
  void aHostTreeReadAhead_givesTheSameEntriesInTheSameOrder_withTheSameBytes() throws Exception {
    long seed = System.nanoTime();
    System.out.println("ReadAheadTest seed " + seed);
    SplittableRandom rnd = new SplittableRandom(seed);
    Path root = Files.createDirectories(tmp.resolve("tree"));
    for (int d = 0; d < 5; d++) {
      Path dir = Files.createDirectories(root.resolve("d" + d));
      for (int f = 0; f < 300; f++) {
        byte[] b = new byte[rnd.nextInt(3) == 0 ? rnd.nextInt(ReadAhead.SMALL_FILE * 2) : rnd.nextInt(9000)];
        rnd.nextBytes(b);
        Files.write(dir.resolve("f" + f), b);
      }
    }
    List<String> direct = listing(new HostDirectory(root));
    List<String> ahead = listing(new ReadAhead(new HostDirectory(root)));
    assertThat(ahead).hasSize(1 + 5 + 5 * 300).isEqualTo(direct);
  }

  /** Each entry's path, kind, size and contents' hash, as the sink sees them. */
  private static List<String> listing(TreeSource s) throws IOException {
    List<String> out = new ArrayList<>();
    s.entries(e -> {
      String hash = "";
      if (e.contents() != null) {
        try (InputStream in = e.contents().open()) {
          hash = Integer.toHexString(Arrays.hashCode(in.readAllBytes()));
        }
      }
      out.add(e.display() + " " + e.kind() + " " + e.size() + " " + hash);
    });
    return out;
  }

  @Test
  void smallFilesAreReadAhead_largeOnesOpenedWhenTheSinkAsks() throws Exception {
    AtomicInteger opened = new AtomicInteger();
    TreeSource src = source(sink -> {
      sink.accept(file("small", ReadAhead.SMALL_FILE, opened));
      sink.accept(file("large", ReadAhead.SMALL_FILE + 1, opened));
    });
    List<Integer> openedBeforeOpening = new ArrayList<>();
    new ReadAhead(src).entries(e -> {
      openedBeforeOpening.add(opened.get());
      try (InputStream in = e.contents().open()) {
        assertThat(in.readAllBytes()).hasSize((int) e.size());
      }
    });
    // The small file was opened by the walker before the sink saw it; the large one only by the sink.
    assertThat(openedBeforeOpening.get(0)).isEqualTo(1);
    assertThat(opened.get()).isEqualTo(2);
  }

  @Test
  void aFileThatFailsToReadAhead_failsWhereTheSinkOpensIt() throws Exception {
    TreeSource src = source(sink -> sink.accept(entry("unreadable", 10, () -> {
      throw new java.nio.file.AccessDeniedException("/tree/unreadable");
    })));
    List<String> seen = new ArrayList<>();
    new ReadAhead(src).entries(e -> {
      seen.add(e.display());
      assertThatThrownBy(() -> e.contents().open()).isInstanceOf(java.nio.file.AccessDeniedException.class)
          .hasMessageContaining("/tree/unreadable");
    });
    assertThat(seen).containsExactly("/unreadable");
  }

  @Test
  void aWalkThatFails_deliversTheEntriesBeforeIt_thenThrowsItsError() {
    TreeSource src = source(sink -> {
      sink.accept(file("a", 1, new AtomicInteger()));
      sink.accept(file("b", 1, new AtomicInteger()));
      throw new java.nio.file.NoSuchFileException("/tree/c", null, "vanished while listing");
    });
    List<String> seen = new ArrayList<>();
    assertThatThrownBy(() -> new ReadAhead(src).entries(e -> seen.add(e.display())))
        .isInstanceOf(java.nio.file.NoSuchFileException.class).hasMessageContaining("vanished while listing");
    assertThat(seen).containsExactly("/a", "/b");
  }

  @Test
  void aSinkThatFails_stopsTheWalker_andItsErrorIsThrown() {
    AtomicInteger produced = new AtomicInteger();
    Thread[] walker = new Thread[1];
    TreeSource endless = source(sink -> {
      walker[0] = Thread.currentThread();
      for (int i = 0; ; i++) {
        sink.accept(file("f" + i, 0, new AtomicInteger()));
        produced.incrementAndGet();
      }
    });
    assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
      assertThatThrownBy(() -> new ReadAhead(endless).entries(e -> {
        if (e.display().equals("/f10")) {
          throw new IOException("image full at " + e.display());
        }
      })).isInstanceOf(IOException.class).hasMessage("image full at /f10");
      assertThat(walker[0].isAlive()).as("the walker ended before entries() returned").isFalse();
    });
    // The walker ran at most a queue's length ahead of the sink's failure.
    assertThat(produced.get()).isBetween(10, 11 + ReadAhead.MAX_QUEUED);
  }

  private interface Walk {
    void run(TreeSource.Sink sink) throws IOException;
  }

  private static TreeSource source(Walk walk) {
    return new TreeSource() {
      @Override
      public void entries(Sink sink) throws IOException {
        walk.run(sink);
      }

      @Override
      public String name() {
        return "test source";
      }
    };
  }

  private static TreeEntry file(String name, int size, AtomicInteger opened) {
    return entry(name, size, () -> {
      opened.incrementAndGet();
      return new ByteArrayInputStream(new byte[size]);
    });
  }

  private static TreeEntry entry(String name, int size, TreeEntry.Contents contents) {
    Instant t = Instant.EPOCH;
    return new TreeEntry(List.of(name.getBytes(StandardCharsets.UTF_8)), TreeEntry.Kind.FILE, 0644, 0, 0, t, t, t, size, 0, 0, null,
        Map.of(), contents);
  }
}
