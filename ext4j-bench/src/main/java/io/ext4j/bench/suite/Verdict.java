package io.ext4j.bench.suite;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The judgement of one of the suite's targets ({@link Verdicts}) on a run's figures: what it checks,
 * the bound, the figures measured against it, and whether they meet it. The report words it as
 * {@code target: met (evidence; note; …)} ({@link SuiteReport#render}).
 *
 * @param target what it checks, as the report words it: "fsync: ext4j ≥ 0.7 of kernel-host at 1 thread"
 * @param comparison whether each figure must reach {@code threshold} or stay within it
 * @param threshold the bound each figure is held to: a share of the peer's rate for the ratios (for
 *     metadata's scaling, of the kernel's scaling), bytes for memory
 * @param figures the figures the verdict compares, named by what each is of (a thread count, an
 *     operation and block size, a scenario), in the report's order; empty where none was measured
 * @param outcome met, not met, or not measured (a missing peer, thread count or row)
 * @param evidence the figures as the report words them, or why they could not be measured
 * @param notes what the report adds after the evidence: what bounds a missed figure, the run's noise
 */
public record Verdict(String target, Comparison comparison, double threshold, Map<String, Double> figures, Outcome outcome,
    String evidence, List<String> notes) {
  /** Whether the figures met the threshold, or could not be judged. */
  public enum Outcome {
    MET, NOT_MET, NOT_MEASURED
  }

  /** How a figure is held to the threshold: {@code ≥} or {@code ≤}. */
  public enum Comparison {
    AT_LEAST, AT_MOST;

    /** Whether {@code figure} meets {@code threshold}. */
    boolean holds(double figure, double threshold) {
      return this == AT_LEAST ? figure >= threshold : figure <= threshold;
    }
  }

  public Verdict {
    figures = Collections.unmodifiableMap(new LinkedHashMap<>(figures));
    notes = List.copyOf(notes);
  }

  /** A verdict that could not be judged: no figures, and {@code why}. */
  static Verdict notMeasured(String target, Comparison comparison, double threshold, String why) {
    return new Verdict(target, comparison, threshold, Map.of(), Outcome.NOT_MEASURED, why, List.of());
  }

  /** Whether the figures met the threshold. */
  public boolean met() {
    return outcome == Outcome.MET;
  }

  /** This verdict with {@code note} after its notes. */
  Verdict withNote(String note) {
    List<String> more = new ArrayList<>(notes);
    more.add(note);
    return new Verdict(target, comparison, threshold, figures, outcome, evidence, more);
  }
}
