package io.ext4j.testkit;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import io.ext4j.block.MemoryBlockDevice;
import io.ext4j.testkit.RecordingBlockDevice.Event;
import io.ext4j.testkit.RecordingBlockDevice.Flush;
import io.ext4j.testkit.RecordingBlockDevice.Mark;
import io.ext4j.testkit.RecordingBlockDevice.Write;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * The device states a crash could leave after a {@link Recording}, enumerated as CrashMonkey does.
 *
 * <h2>Epochs</h2>
 * Epoch {@code k} is the run of writes after the {@code k}th flush and before the next (epoch 0
 * starts at the base image; the last epoch, after the last flush, has no flush ending it). There are
 * {@code flushCount + 1} epochs, some perhaps empty. A crash state of epoch {@code k} is the base
 * image, plus every write of epochs before {@code k}, plus a subset of epoch {@code k}'s writes
 * applied in log order — optionally with one of them torn.
 *
 * <h2>Which states</h2>
 * For each epoch of {@code n} writes:
 * <ul>
 *   <li>if {@code n <= exhaustiveLimit}: every subset ({@code 2^n}), which includes every prefix;
 *   <li>else every prefix ({@code n + 1}) and {@code randomSubsets} random subsets that are not
 *       prefixes, drawn from {@code Seeds.derive(seed, k)} (so an epoch's states do not depend on
 *       which other epochs are enumerated; random subsets may rarely repeat);
 *   <li>with torn writes on: for every {@code i < n} and every {@code s} in
 *       {@code [1, sectorsPerBlock)}, the prefix of writes {@code [0, i)} followed by write {@code i}
 *       of which only the first {@code s} 512-byte sectors landed (the rest of the block keeps its
 *       previous contents).
 * </ul>
 * The full subset of an epoch that a flush ends is left out: it is the same image as the next
 * epoch's empty subset, which acknowledges more marks and so checks more. (An empty epoch ended by a
 * flush therefore contributes no states.)
 *
 * <h2>Acknowledged marks</h2>
 * A mark is acknowledged in a state when everything it promised is in the state. A mark promises
 * what was durable when it was logged: the writes before the last flush preceding it, i.e. every
 * write of the epochs before the mark's own epoch. Those are all in every state of epoch {@code k}
 * exactly when the mark's epoch is {@code <= k}. So: <b>a mark logged in epoch {@code e} is
 * acknowledged in every crash state of epochs {@code k >= e}</b> — whatever subset of epoch {@code k}
 * landed, since unflushed writes promise nothing. The acknowledged marks are a prefix of the marks in
 * log order; an oracle checks that everything acknowledged by the last of them is present and exact.
 *
 * <h2>Cost</h2>
 * {@link CrashState#materialize()} snapshots a cached image of the epoch's base (one pointer copy per
 * block) and applies the subset; keep test devices small (say 2048 blocks of 1 KiB). Epoch bases are
 * built incrementally and cached at most {@value #MAX_CACHED_BASES} at a time plus the latest, so a
 * sequential walk builds each once. Thread-safe: states may be materialized from a parallel stream.
 */
public final class CrashStates implements Iterable<CrashState> {
  static final int MAX_CACHED_BASES = 256;
  static final int SECTOR = 512;

  /**
   * What to enumerate.
   *
   * @param exhaustiveLimit epochs with at most this many writes get every subset (default 10; at most 20)
   * @param randomSubsets random non-prefix subsets for larger epochs (default 32)
   * @param tornWrites whether to add torn-write states (default true)
   */
  public record Options(int exhaustiveLimit, int randomSubsets, boolean tornWrites) {
    public Options {
      if (exhaustiveLimit < 0 || exhaustiveLimit > 20) {
        throw new IllegalArgumentException("exhaustiveLimit " + exhaustiveLimit + " is outside [0, 20]");
      }
      if (randomSubsets < 0) {
        throw new IllegalArgumentException("randomSubsets " + randomSubsets + " is negative");
      }
    }

    public static Options defaults() {
      return new Options(10, 32, true);
    }

    public Options withExhaustiveLimit(int limit) {
      return new Options(limit, randomSubsets, tornWrites);
    }

    public Options withRandomSubsets(int count) {
      return new Options(exhaustiveLimit, count, tornWrites);
    }

    public Options withTornWrites(boolean torn) {
      return new Options(exhaustiveLimit, randomSubsets, torn);
    }
  }

  private final Recording recording;
  private final long seed;
  private final Options options;
  private final List<List<Write>> epochs; // immutable
  private final int[] marksUpToEpoch; // immutable: marks logged in epochs <= k
  private final List<Mark> marks;
  private final int stride; // epochs between cached bases
  @GuardedBy("this") private final MemoryBlockDevice[] checkpoints; // index k / stride
  @GuardedBy("this") private MemoryBlockDevice latestBase;
  @GuardedBy("this") private int latestEpoch = -1;

  private CrashStates(Recording recording, long seed, Options options) {
    this.recording = recording;
    this.seed = seed;
    this.options = options;
    List<List<Write>> eps = new ArrayList<>();
    List<Write> current = new ArrayList<>();
    List<Integer> markEpochs = new ArrayList<>();
    List<Mark> ms = new ArrayList<>();
    for (Event e : recording.events()) {
      switch (e) {
        case Write w -> current.add(w);
        case Flush f -> {
          eps.add(List.copyOf(current));
          current = new ArrayList<>();
        }
        case Mark m -> {
          markEpochs.add(eps.size());
          ms.add(m);
        }
      }
    }
    eps.add(List.copyOf(current));
    this.epochs = List.copyOf(eps);
    this.marks = List.copyOf(ms);
    this.marksUpToEpoch = new int[epochs.size()];
    for (int k = 0, m = 0; k < epochs.size(); k++) {
      while (m < markEpochs.size() && markEpochs.get(m) <= k) {
        m++;
      }
      marksUpToEpoch[k] = m;
    }
    this.stride = Math.max(1, (epochs.size() + MAX_CACHED_BASES - 1) / MAX_CACHED_BASES);
    this.checkpoints = new MemoryBlockDevice[(epochs.size() + stride - 1) / stride];
    this.checkpoints[0] = recording.baseImage();
  }

  /** The crash states of {@code recording} with default options; {@code seed} drives random subsets. */
  public static CrashStates of(Recording recording, long seed) {
    return of(recording, seed, Options.defaults());
  }

  public static CrashStates of(Recording recording, long seed, Options options) {
    Objects.requireNonNull(recording, "recording");
    Objects.requireNonNull(options, "options");
    return new CrashStates(recording, seed, options);
  }

  public Recording recording() {
    return recording;
  }

  public long seed() {
    return seed;
  }

  public Options options() {
    return options;
  }

  /** {@code flushCount + 1}. */
  public int epochCount() {
    return epochs.size();
  }

  /** The writes of epoch {@code k}, in log order. */
  public List<Write> epochWrites(int k) {
    return epochs.get(k);
  }

  /** Every mark in log order. */
  public List<Mark> marks() {
    return marks;
  }

  /** Every state, epoch by epoch, lazily. */
  public Stream<CrashState> stream() {
    return IntStream.range(0, epochs.size()).boxed().flatMap(this::epoch);
  }

  /** The states of epoch {@code k}. */
  public Stream<CrashState> epoch(int k) {
    Objects.checkIndex(k, epochs.size());
    int n = epochs.get(k).size();
    boolean ended = k < epochs.size() - 1;
    List<CrashState> out = new ArrayList<>();
    if (n <= options.exhaustiveLimit()) {
      long all = 1L << n;
      for (long mask = 0; mask < all; mask++) {
        if (ended && mask == all - 1) {
          continue;
        }
        out.add(new CrashState(this, k, maskToIndices(mask, n), -1, 0));
      }
    } else {
      for (int p = 0; p <= (ended ? n - 1 : n); p++) {
        out.add(new CrashState(this, k, prefix(p), -1, 0));
      }
      SplittableRandom random = new SplittableRandom(Seeds.derive(seed, k));
      for (int r = 0; r < options.randomSubsets(); r++) {
        int[] subset = randomNonPrefix(random, n);
        if (subset != null) {
          out.add(new CrashState(this, k, subset, -1, 0));
        }
      }
    }
    int sectors = recording.blockSize() / SECTOR;
    if (options.tornWrites()) {
      for (int i = 0; i < n; i++) {
        for (int s = 1; s < sectors; s++) {
          out.add(new CrashState(this, k, prefix(i), i, s));
        }
      }
    }
    return out.stream();
  }

  @Override
  public Iterator<CrashState> iterator() {
    return stream().iterator();
  }

  /**
   * The state an {@link CrashState#id() id} names, to replay one failure exactly (with the same
   * workload seed, which reproduces the recording).
   *
   * @throws IllegalArgumentException if the id is malformed or does not fit this recording
   */
  public CrashState state(String id) {
    // e<k>:w<ranges>[+t<i>/<sectors>]
    try {
      int colon = id.indexOf(':');
      if (!id.startsWith("e") || colon < 0 || id.charAt(colon + 1) != 'w') {
        throw new IllegalArgumentException("expected e<epoch>:w<writes>[+t<write>/<sectors>]");
      }
      int k = Integer.parseInt(id.substring(1, colon));
      String rest = id.substring(colon + 2);
      int torn = -1;
      int sectors = 0;
      int plus = rest.indexOf('+');
      if (plus >= 0) {
        String t = rest.substring(plus + 1);
        int slash = t.indexOf('/');
        if (!t.startsWith("t") || slash < 0) {
          throw new IllegalArgumentException("expected +t<write>/<sectors>");
        }
        torn = Integer.parseInt(t.substring(1, slash));
        sectors = Integer.parseInt(t.substring(slash + 1));
        rest = rest.substring(0, plus);
      }
      int[] writes = parseRanges(rest);
      Objects.checkIndex(k, epochs.size());
      int n = epochs.get(k).size();
      for (int w : writes) {
        Objects.checkIndex(w, n);
      }
      if (torn >= 0) {
        Objects.checkIndex(torn, n);
        if (sectors < 1 || sectors >= recording.blockSize() / SECTOR || Arrays.binarySearch(writes, torn) >= 0) {
          throw new IllegalArgumentException("torn write " + torn + " with " + sectors + " sectors does not fit");
        }
      }
      return new CrashState(this, k, writes, torn, sectors);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("bad crash state id '" + id + "' for " + recording, e);
    }
  }

  int acknowledgedMarkCount(int epoch) {
    return marksUpToEpoch[epoch];
  }

  int sizeOf(int epoch) {
    return epochs.get(epoch).size();
  }

  /** The image of every write of epochs before {@code k}; shared, never written. */
  synchronized MemoryBlockDevice epochBase(int k) {
    if (k == latestEpoch) {
      return latestBase;
    }
    int c = k / stride;
    while (checkpoints[c] == null) {
      c--;
    }
    int from = c * stride;
    MemoryBlockDevice image = checkpoints[c];
    if (latestEpoch > from && latestEpoch < k) { // the latest base is nearer: a sequential walk
      from = latestEpoch;
      image = latestBase;
    }
    for (int e = from; e < k; e++) {
      MemoryBlockDevice next = image.snapshot(recording.name() + "#epoch" + (e + 1));
      for (Write w : epochs.get(e)) {
        Recording.apply(next, w);
      }
      image = next;
      if ((e + 1) % stride == 0) {
        checkpoints[(e + 1) / stride] = image;
      }
    }
    latestEpoch = k;
    latestBase = image;
    return image;
  }

  private int[] randomNonPrefix(SplittableRandom random, int n) {
    for (int attempt = 0; attempt < 16; attempt++) {
      double density = random.nextDouble();
      int[] picked = new int[n];
      int c = 0;
      for (int i = 0; i < n; i++) {
        if (random.nextDouble() < density) {
          picked[c++] = i;
        }
      }
      if (c > 0 && picked[c - 1] != c - 1) { // not 0..c-1, so not a prefix (and not full)
        return Arrays.copyOf(picked, c);
      }
    }
    return null;
  }

  private static int[] prefix(int p) {
    return IntStream.range(0, p).toArray();
  }

  private static int[] maskToIndices(long mask, int n) {
    int[] out = new int[Long.bitCount(mask)];
    int c = 0;
    for (int i = 0; i < n; i++) {
      if ((mask & (1L << i)) != 0) {
        out[c++] = i;
      }
    }
    return out;
  }

  /** "0-3,5,7-8" from ascending indices. */
  static String formatRanges(int[] xs) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < xs.length; ) {
      int j = i;
      while (j + 1 < xs.length && xs[j + 1] == xs[j] + 1) {
        j++;
      }
      if (!sb.isEmpty()) {
        sb.append(',');
      }
      sb.append(xs[i]);
      if (j > i) {
        sb.append('-').append(xs[j]);
      }
      i = j + 1;
    }
    return sb.toString();
  }

  static int[] parseRanges(String s) {
    if (s.isEmpty()) {
      return new int[0];
    }
    IntStream.Builder b = IntStream.builder();
    int last = -1;
    for (String part : s.split(",", 0)) {
      int dash = part.indexOf('-');
      int lo = Integer.parseInt(dash < 0 ? part : part.substring(0, dash));
      int hi = dash < 0 ? lo : Integer.parseInt(part.substring(dash + 1));
      if (lo <= last || hi < lo) {
        throw new IllegalArgumentException("write indices must ascend: " + s);
      }
      for (int i = lo; i <= hi; i++) {
        b.add(i);
      }
      last = hi;
    }
    return b.build().toArray();
  }
}
