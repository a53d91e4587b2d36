package io.ext4j.bench.suite;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** One scenario of the suite: what in-process variants it needs, and its cells once the targets exist. */
interface Scenario {
  String name();

  /** Whether it runs on {@link Targets} made for it (else on a bare work directory: {@link Targets#bare}). */
  default boolean needsTargets() {
    return true;
  }

  /** Whether its image-backed targets read and write their images with O_DIRECT (see {@link Targets}). */
  default boolean direct() {
    return false;
  }

  /**
   * Whether its image-backed targets are mounted {@code dirsync}: the engines with {@link
   * io.ext4j.fs.Ext4Options#dirSync}, the loop mount with {@code -o dirsync}.
   */
  default boolean dirSync() {
    return false;
  }

  /** The provider options of its in-process engines ({@code directDevice}, {@code dirSync}) beyond a knob. */
  static Map<String, Object> engineEnv(Scenario s) {
    Map<String, Object> env = new java.util.LinkedHashMap<>();
    if (s.direct()) {
      env.put("directDevice", true);
    }
    if (s.dirSync()) {
      env.put("dirSync", true);
    }
    return env;
  }

  /**
   * How long the first cell on each engine target runs unmeasured before the slices, so that the
   * JIT has compiled what they run (see {@link Cell#rehearse}).
   */
  default java.time.Duration jitWarmup(SuiteOptions o) {
    return BenchSuite.JIT_WARMUP;
  }

  /**
   * Runs, unmeasured, what the JIT should have compiled before the first measured slice: by default
   * the first cell on each engine target ({@code ext4j}, {@code ext4j-fuse}) for {@link #jitWarmup}.
   */
  default void rehearse(List<Cell> cells, SuiteOptions o) {
    for (String target : List.of(Target.EXT4J, Target.FUSE)) {
      cells.stream().filter(c -> c.target.equals(target)).findFirst().ifPresent(c -> c.rehearse(jitWarmup(o)));
    }
  }

  /** Whether the suite runs its {@link MemoryProbe} after its cells (an engine to measure in a JVM of its own). */
  default boolean probesMemory() {
    return true;
  }

  /**
   * Provider options this scenario compares → the values besides the default (each becomes an
   * in-process target), in the order the targets are made; more than one knob in a scenario
   * compares each against the plain {@code ext4j}, not their combinations.
   */
  Map<String, List<String>> knobs();

  /**
   * The provider options an in-process target with {@code knob} at {@code value} opens with: the
   * option itself for a strategy, {@code dentryCacheSize} for the dentry cache switch ({@link
   * DentryCacheKnob}).
   */
  static Map<String, Object> knobEnv(String knob, String value) {
    return knob.equals(DentryCacheKnob.NAME) ? DentryCacheKnob.env(value) : Map.of(knob, value);
  }

  /**
   * What the rows call {@code knob} at {@code value}, and its target {@code ext4j/}label: a
   * strategy's value itself ({@code always-locked}), the dentry cache switch's {@code dentry-cache-off}.
   */
  static String label(String knob, String value) {
    return knob.equals(DentryCacheKnob.NAME) ? DentryCacheKnob.label(value) : value;
  }

  /**
   * Prepares what its cells read or overwrite (unmeasured) and returns them. {@code scratch} is a
   * directory of the host's file system for fio's bound, null when fio is not installed.
   */
  List<Cell> plan(Targets targets, SuiteOptions o, Path scratch) throws IOException;

  /** An engine strategy as the provider option takes it: {@code SHARED_OVERWRITE} → {@code shared-overwrite}. */
  static String optionName(Enum<?> strategy) {
    return strategy.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
  }

  /** The knobs of a scenario comparing the constants of one strategy: {@code knob} → every constant but {@code dflt}. */
  static Map<String, List<String>> othersThan(String knob, Enum<?> dflt) {
    return Map.of(knob, java.util.Arrays.stream(dflt.getDeclaringClass().getEnumConstants()).filter(e -> e != dflt)
        .map(Scenario::optionName).toList());
  }

  /** The value of this scenario's knob an in-process target runs with (its default for the plain {@code ext4j}), else null. */
  static String setting(Target t, String knob, String defaultValue) {
    if (!t.inProcess()) {
      return null;
    }
    return t.knob() == null ? defaultValue : knob.equals(t.knob()) ? label(t.knob(), t.value()) : null;
  }

  /**
   * The setting an in-process target runs with in a scenario of several knobs: its knob's {@link
   * #label}, {@code defaultValue} for the plain {@code ext4j}; null for every other target.
   */
  static String setting(Target t, String defaultValue) {
    if (!t.inProcess()) {
      return null;
    }
    return t.knob() == null ? defaultValue : label(t.knob(), t.value());
  }
}
