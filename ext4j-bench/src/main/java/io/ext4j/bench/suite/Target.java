package io.ext4j.bench.suite;

import java.nio.file.Path;

/**
 * One place a workload runs: a directory its threads make files in, through {@code FileChannel}.
 *
 * @param name what the report calls it: {@code ext4j} (the engine in-process through the java.nio
 *     provider, the default batching policy), {@code ext4j/POLICY} (the same with another policy),
 *     {@code ext4j-fuse}, {@code kernel-loop}, {@code kernel-host}, {@code fuse2fs}
 * @param policy the batching policy of an in-process ext4j target, else null
 * @param isDefaultPolicy whether {@code policy} is the engine's default
 * @param dir where the workload makes its files
 * @param description how it was made, for the report
 */
public record Target(String name, String policy, boolean isDefaultPolicy, Path dir, String description) {
  public static final String EXT4J = "ext4j";
  public static final String FUSE = "ext4j-fuse";
  public static final String LOOP = "kernel-loop";
  public static final String HOST = "kernel-host";
  public static final String FUSE2FS = "fuse2fs";

  /** Whether this is the engine in-process (any policy). */
  public boolean inProcess() {
    return policy != null;
  }
}
