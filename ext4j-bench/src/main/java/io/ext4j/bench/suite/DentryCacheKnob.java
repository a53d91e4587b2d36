package io.ext4j.bench.suite;

import io.ext4j.fs.Ext4Options;
import java.util.List;
import java.util.Map;

/**
 * The dentry cache switch, a knob of the scenarios that walk paths ({@code metadata}, {@code
 * stat-depth}): {@code on}, the engine's default (a cache of {@link Ext4Options#dentryCacheSize}
 * names), or {@code off}, the provider's {@code dentryCacheSize} 0, where every name of every path
 * is looked up in its directory's blocks (through the block cache). Unlike a strategy knob, whose
 * value is the provider option's, this one's value is translated ({@link #env}), and its target is
 * {@code ext4j/dentry-cache-off} ({@link #label}), not the bare {@code ext4j/off}.
 */
final class DentryCacheKnob {
  static final String NAME = "dentryCache";
  static final String ON = "on";
  static final String OFF = "off";
  /** The in-process target with the cache off. */
  static final String TARGET = Target.EXT4J + "/" + label(OFF);

  private DentryCacheKnob() {}

  /** The knob as {@link Scenario#knobs()} lists it: its one value besides the default. */
  static Map<String, List<String>> knobs() {
    return Map.of(NAME, List.of(OFF));
  }

  /** The provider options of {@code value}: {@code dentryCacheSize} 0 for off, the engine's default for on. */
  static Map<String, Object> env(String value) {
    return switch (value) {
      case OFF -> Map.of("dentryCacheSize", 0);
      case ON -> Map.of("dentryCacheSize", Ext4Options.defaults().dentryCacheSize());
      default -> throw new IllegalArgumentException(NAME + " is " + ON + " or " + OFF + ", not '" + value + "'");
    };
  }

  /** What rows call {@code value}: {@code dentry-cache-on}, {@code dentry-cache-off}. */
  static String label(String value) {
    return "dentry-cache-" + value;
  }
}
