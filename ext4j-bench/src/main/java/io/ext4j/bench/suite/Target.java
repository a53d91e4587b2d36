package io.ext4j.bench.suite;

import java.nio.file.Path;

/**
 * One place a workload runs: a directory its threads make files in, through {@code FileChannel}.
 *
 * @param name what the report calls it: {@code ext4j} (the engine in-process through the java.nio
 *     provider, every strategy at its default), {@code ext4j/VALUE} (the same with one strategy
 *     changed; {@code ext4j/dentry-cache-off} for the dentry cache switch), {@code ext4j-fuse}, {@code kernel-loop}, {@code kernel-host}, {@code fuse2fs}
 * @param knob the provider option this in-process target changes from the default
 *     ({@code batchingPolicy}, {@code dioLocking}, …), else null
 * @param value the knob's value, null with it
 * @param inProcess whether this is the engine in-process
 * @param dir where the workload makes its files
 * @param description how it was made, for the report
 */
public record Target(String name, String knob, String value, boolean inProcess, Path dir, String description) {
  public static final String EXT4J = "ext4j";
  public static final String FUSE = "ext4j-fuse";
  public static final String LOOP = "kernel-loop";
  public static final String HOST = "kernel-host";
  public static final String FUSE2FS = "fuse2fs";

  /** Whether a scenario comparing {@code knob}'s values runs on this target: every target but the in-process ones that change another knob. */
  public boolean servesKnob(String knob) {
    return this.knob == null || this.knob.equals(knob);
  }
}
